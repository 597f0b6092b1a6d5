/*
 * blkif.c - the negotiation model: key lookup, state names, vdev names,
 * effective values and consistency warnings.  Pure functions.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "xvbd/xen/blkif.h"

bool xvbd_blkif_key_match(const char *pattern, const char *name)
{
	while (*pattern) {
		if (pattern[0] == '%' && pattern[1] == 'u') {
			uint64_t ignored;
			size_t n = strspn(name, "0123456789");
			char digits[24];

			if (n == 0 || n >= sizeof(digits))
				return false;
			memcpy(digits, name, n);
			digits[n] = '\0';
			if (xvbd_parse_uint(digits, UINT32_MAX, &ignored))
				return false;
			name += n;
			pattern += 2;
			continue;
		}
		if (*pattern++ != *name++)
			return false;
	}
	return *name == '\0';
}

const struct xvbd_blkif_key *xvbd_blkif_key_find(enum xvbd_dir dir,
						 const char *name)
{
	size_t i;

	for (i = 0; i < xvbd_blkif_nkeys; i++) {
		const struct xvbd_blkif_key *row = &xvbd_blkif_keys[i];

		if (row->dir == dir && xvbd_blkif_key_match(row->name, name))
			return row;
	}
	return NULL;
}

int xvbd_blkif_key_check(const struct xvbd_blkif_key *row, const char *value)
{
	uint64_t v;
	int rc;

	switch (row->type) {
	case XVBD_KT_STRING:
		return 0;
	case XVBD_KT_BOOL:
	case XVBD_KT_UINT:
	case XVBD_KT_STATE:
	case XVBD_KT_RING_REF:
		rc = xvbd_parse_uint(value, row->max, &v);
		if (rc)
			return rc;
		return v < row->min ? -ERANGE : 0;
	}
	return -EINVAL;
}

const char *xvbd_side_name(enum xvbd_side side)
{
	switch (side) {
	case XVBD_SIDE_BACKEND:
		return "backend";
	case XVBD_SIDE_FRONTEND:
		return "frontend";
	case XVBD_SIDE_TOOLSTACK:
		return "toolstack";
	}
	return "?";
}

const char *xvbd_dir_name(enum xvbd_dir dir)
{
	return dir == XVBD_DIR_BACKEND ? "backend" : "frontend";
}

const char *xvbd_state_name(uint64_t state)
{
	/* enum xenbus_state, xen/io/xenbus.h */
	static const char *const names[] = {
		"Unknown", "Initialising", "InitWait", "Initialised",
		"Connected", "Closing", "Closed", "Reconfiguring",
		"Reconfigured",
	};

	return state <= XVBD_STATE_MAX ? names[state] : NULL;
}

/* ---- virtual device names (xen-vbd-interface(7)) ---- */

#define XVD_MAJOR	202
#define SD_MAJOR	8
#define VDEV_EXT	(1u << 28)
#define VDEV_EXT_DISKS	(1u << 20)
#define VDEV_EXT_PARTS	256u

/* Linux IDE majors, two disks each: hda/hdb 3, hdc/hdd 22, ... hds/hdt 91 */
static const unsigned hd_majors[] = { 3, 22, 33, 34, 56, 57, 88, 89, 90, 91 };
#define HD_DISKS	(2 * sizeof(hd_majors) / sizeof(hd_majors[0]))

/* "a".."z", "aa".. (bijective base 26) -> disk; *end after letters. */
static int parse_letters(const char *s, const char **end, uint32_t *disk)
{
	uint64_t n = 0;
	const char *p;

	for (p = s; *p >= 'a' && *p <= 'z'; p++) {
		n = n * 26 + (uint64_t)(*p - 'a' + 1);
		if (n > VDEV_EXT_DISKS)
			return -ERANGE;
	}
	if (p == s)
		return -EINVAL;
	*end = p;
	*disk = (uint32_t)(n - 1);
	return 0;
}

static void fmt_letters(uint32_t disk, char *buf, size_t len)
{
	char tmp[8];
	size_t n = 0, i;
	uint64_t v = (uint64_t)disk + 1;

	while (v && n < sizeof(tmp)) {
		v--;
		tmp[n++] = (char)('a' + v % 26);
		v /= 26;
	}
	for (i = 0; i < n && i + 1 < len; i++)
		buf[i] = tmp[n - 1 - i];
	buf[i < len ? i : len - 1] = '\0';
}

/* Optional partition number after the disk part: "" -> 0. */
static int parse_partition(const char *s, uint32_t max, uint32_t *part)
{
	uint64_t v;
	int rc;

	if (*s == '\0') {
		*part = 0;
		return 0;
	}
	rc = xvbd_parse_uint(s, UINT32_MAX, &v);
	if (rc)
		return rc;
	if (v > max)
		return -ERANGE;
	*part = (uint32_t)v;
	return 0;
}

static int encode_xvd(uint32_t disk, uint32_t part, uint32_t *devid)
{
	if (disk < 16 && part < 16)
		*devid = XVD_MAJOR << 8 | disk << 4 | part;
	else if (disk < VDEV_EXT_DISKS && part < VDEV_EXT_PARTS)
		*devid = VDEV_EXT | disk << 8 | part;
	else
		return -ERANGE;
	return 0;
}

static int encode_sd(uint32_t disk, uint32_t part, uint32_t *devid)
{
	unsigned major;

	/* Linux SCSI majors: 8 (sda-sdp), 65-71, then 128-135. */
	if (disk < 16)
		major = SD_MAJOR;
	else if (disk < 128)
		major = 65 + (disk - 16) / 16;
	else if (disk < 256)
		major = 128 + (disk - 128) / 16;
	else
		return -ERANGE;
	*devid = major << 8 | (disk % 16) << 4 | part;
	return 0;
}

int xvbd_vdev_parse(const char *vdev, uint32_t *devid)
{
	const char *rest;
	uint32_t disk, part;
	uint64_t v;
	int rc;

	if (!vdev || !*vdev)
		return -EINVAL;
	if (vdev[0] >= '0' && vdev[0] <= '9') {
		rc = xvbd_parse_uint(vdev, (2u << 28) - 1, &v);
		if (rc)
			return rc;
		*devid = (uint32_t)v;
		return 0;
	}
	if (!strncmp(vdev, "xvd", 3)) {
		rc = parse_letters(vdev + 3, &rest, &disk);
		if (!rc)
			rc = parse_partition(rest, VDEV_EXT_PARTS - 1, &part);
		return rc ? rc : encode_xvd(disk, part, devid);
	}
	if (!strncmp(vdev, "sd", 2)) {
		rc = parse_letters(vdev + 2, &rest, &disk);
		if (!rc)
			rc = parse_partition(rest, 15, &part);
		return rc ? rc : encode_sd(disk, part, devid);
	}
	if (!strncmp(vdev, "hd", 2)) {
		if (vdev[2] < 'a' || vdev[2] > 'z')
			return -EINVAL;
		disk = (uint32_t)(vdev[2] - 'a');
		rc = parse_partition(vdev + 3, 63, &part);
		if (rc)
			return rc;
		if (disk >= HD_DISKS)
			return -ERANGE;
		*devid = hd_majors[disk / 2] << 8 | (disk & 1) << 6 | part;
		return 0;
	}
	if (vdev[0] == 'd') {
		/* d<disk>[p<partition>] */
		char digits[16];
		size_t n = strspn(vdev + 1, "0123456789");

		if (n == 0 || n >= sizeof(digits))
			return n ? -ERANGE : -EINVAL;
		memcpy(digits, vdev + 1, n);
		digits[n] = '\0';
		rc = xvbd_parse_uint(digits, UINT32_MAX, &v);
		if (rc)
			return rc;
		if (v >= VDEV_EXT_DISKS)
			return -ERANGE;
		disk = (uint32_t)v;
		rest = vdev + 1 + n;
		part = 0;
		if (*rest) {
			if (*rest != 'p' || !rest[1])
				return -EINVAL;
			rc = parse_partition(rest + 1, VDEV_EXT_PARTS - 1,
					     &part);
			if (rc)
				return rc;
		}
		return encode_xvd(disk, part, devid);
	}
	return -EINVAL;
}

static void fmt_name(char *buf, size_t len, const char *prefix,
		     uint32_t disk, uint32_t part)
{
	char letters[8];

	fmt_letters(disk, letters, sizeof(letters));
	if (part)
		snprintf(buf, len, "%s%s%" PRIu32, prefix, letters, part);
	else
		snprintf(buf, len, "%s%s", prefix, letters);
}

int xvbd_vdev_name(uint32_t devid, char *buf, size_t len)
{
	uint32_t major = devid >> 8, minor = devid & 0xff;
	size_t i;

	if (devid & VDEV_EXT) {
		if (devid >= 2u << 28)
			return -EINVAL;
		/* Disks 0-15 with partitions 0-15 have the short encoding;
		 * naming this one "xvda" would give two devids one name
		 * (fuzz_vdev: "268435456"). */
		if (((devid >> 8) & (VDEV_EXT_DISKS - 1)) < 16 && minor < 16)
			return -EINVAL;
		fmt_name(buf, len, "xvd", (devid >> 8) & (VDEV_EXT_DISKS - 1),
			 minor);
		return 0;
	}
	if (devid > 0xffff)
		return -EINVAL;
	if (major == XVD_MAJOR) {
		fmt_name(buf, len, "xvd", minor >> 4, minor & 15);
		return 0;
	}
	if (major == SD_MAJOR || (major >= 65 && major <= 71) ||
	    (major >= 128 && major <= 135)) {
		uint32_t base = major == SD_MAJOR ? 0 :
				major <= 71 ? 16 + (major - 65) * 16 :
				128 + (major - 128) * 16;

		fmt_name(buf, len, "sd", base + (minor >> 4), minor & 15);
		return 0;
	}
	for (i = 0; i < HD_DISKS / 2; i++) {
		if (hd_majors[i] != major)
			continue;
		if (minor & 0x80)
			return -EINVAL;
		fmt_name(buf, len, "hd", (uint32_t)i * 2 + (minor >> 6),
			 minor & 63);
		return 0;
	}
	return -EINVAL;
}

enum xvbd_be_kind xvbd_be_kind(const char *type, const char *node,
			       bool params_is_regular_file)
{
	if (!type)
		return XVBD_BE_UNKNOWN;
	if (!strcmp(type, "phy")) {
		/* The block script attaches files through a loop device. */
		if (params_is_regular_file ||
		    (node && !strncmp(node, "/dev/loop", 9)))
			return XVBD_BE_FILE_LOOP;
		return XVBD_BE_PHY;
	}
	if (!strcmp(type, "qdisk"))
		return XVBD_BE_QDISK;
	if (!strcmp(type, "vbd3") || !strcmp(type, "tap") ||
	    !strcmp(type, "tap2"))
		return XVBD_BE_TAP;
	return XVBD_BE_UNKNOWN;
}

const char *xvbd_be_kind_name(enum xvbd_be_kind kind)
{
	switch (kind) {
	case XVBD_BE_PHY:
		return "phy";
	case XVBD_BE_FILE_LOOP:
		return "file-via-loop";
	case XVBD_BE_QDISK:
		return "qdisk";
	case XVBD_BE_TAP:
		return "tap";
	case XVBD_BE_UNKNOWN:
		break;
	}
	return NULL;
}

/* ---- effective values and warnings ---- */

void xvbd_blkif_warn(struct xvbd_blkif_eval *ev, const char *fmt, ...)
{
	va_list ap;

	if (ev->nwarnings >= XVBD_WARN_MAX)
		return;
	va_start(ap, fmt);
	vsnprintf(ev->warnings[ev->nwarnings++], XVBD_WARN_LEN, fmt, ap);
	va_end(ap);
}

static const struct xvbd_opt unknown_opt;

static struct xvbd_opt known(uint64_t v)
{
	struct xvbd_opt o = { .known = true, .v = v };

	return o;
}

/*
 * Typed read of a key through its table row.  Invalid values were
 * already reported by check_values(), so here they are just unknown.
 */
static struct xvbd_opt get(const struct xvbd_kvmap *map, enum xvbd_dir dir,
			   const char *key)
{
	const struct xvbd_blkif_key *row = xvbd_blkif_key_find(dir, key);
	const char *value = map ? xvbd_kvmap_get(map, key) : NULL;
	uint64_t v;

	if (!row || !value || xvbd_blkif_key_check(row, value))
		return unknown_opt;
	if (xvbd_parse_uint(value, row->max, &v))
		return unknown_opt;
	return known(v);
}

/* Value if present, else the table default once `when` has passed. */
static struct xvbd_opt get_or_default(const struct xvbd_kvmap *map,
				      enum xvbd_dir dir, const char *key,
				      bool written_by_now)
{
	const struct xvbd_blkif_key *row = xvbd_blkif_key_find(dir, key);
	struct xvbd_opt o = get(map, dir, key);
	uint64_t v;

	if (o.known || !written_by_now || !row || !row->default_value)
		return o;
	if (map && xvbd_kvmap_get(map, key))
		return o;	/* present but invalid: stays unknown */
	if (xvbd_parse_uint(row->default_value, row->max, &v))
		return o;
	return known(v);
}

static void check_values(const struct xvbd_kvmap *map, enum xvbd_dir dir,
			 struct xvbd_blkif_eval *ev)
{
	size_t i;

	if (!map)
		return;
	for (i = 0; i < map->len; i++) {
		const struct xvbd_blkif_key *row =
			xvbd_blkif_key_find(dir, map->items[i].key);
		int rc;

		if (!row)
			continue;
		rc = xvbd_blkif_key_check(row, map->items[i].value);
		if (rc)
			xvbd_blkif_warn(ev, "%s key %s: %s value \"%.40s\"",
					xvbd_dir_name(dir), map->items[i].key,
					rc == -ERANGE ? "out of range" :
							"invalid",
					map->items[i].value);
	}
}

static int log2_exact(uint64_t v)
{
	int order = 0;

	if (v == 0 || (v & (v - 1)))
		return -1;
	while (v >>= 1)
		order++;
	return order;
}

static bool has_key(const struct xvbd_kvmap *map, const char *key)
{
	return map && xvbd_kvmap_get(map, key);
}

/* One ring's keys under prefix ("" or "queue-N/") vs 2^order pages. */
static void check_ring_refs(const struct xvbd_kvmap *fe, const char *prefix,
			    uint64_t pages, struct xvbd_blkif_eval *ev)
{
	char key[64];
	uint64_t i, present = 0, stale = 0;
	size_t k;

	snprintf(key, sizeof(key), "%sevent-channel", prefix);
	if (!has_key(fe, key))
		xvbd_blkif_warn(ev, "frontend %sevent-channel missing", prefix);
	if (pages == 1) {
		/* blkif.h note 6: a single page ring uses 'ring-ref'. */
		snprintf(key, sizeof(key), "%sring-ref", prefix);
		if (!has_key(fe, key))
			xvbd_blkif_warn(ev, "frontend %sring-ref missing "
					"for a one-page ring", prefix);
		return;
	}
	for (i = 0; i < pages; i++) {
		snprintf(key, sizeof(key), "%sring-ref%" PRIu64, prefix, i);
		present += has_key(fe, key);
	}
	/* ring-refN beyond the ring size: stale keys from an earlier ring */
	for (k = 0; k < fe->len; k++) {
		const char *name = fe->items[k].key;
		size_t plen = strlen(prefix);
		uint64_t n;

		if (strncmp(name, prefix, plen) ||
		    strncmp(name + plen, "ring-ref", 8) || !name[plen + 8])
			continue;
		if (!xvbd_parse_uint(name + plen + 8, UINT32_MAX, &n) &&
		    n >= pages)
			stale++;
	}
	if (present != pages || stale)
		xvbd_blkif_warn(ev, "frontend %sring-ref count %" PRIu64
				" (+%" PRIu64 " extra) does not match "
				"2^ring-page-order = %" PRIu64,
				prefix, present, stale, pages);
}

static void eval_ring(const struct xvbd_blkif_input *in,
		      struct xvbd_blkif_eval *ev, bool be_probed)
{
	const struct xvbd_kvmap *be = in->backend, *fe = in->frontend;
	struct xvbd_nego *n = &ev->nego[XVBD_NEGO_RING_ORDER];
	struct xvbd_opt be_order, be_pages, fe_order, fe_pages;

	be_order = get(be, XVBD_DIR_BACKEND, "max-ring-page-order");
	be_pages = get(be, XVBD_DIR_BACKEND, "max-ring-pages");
	fe_order = get(fe, XVBD_DIR_FRONTEND, "ring-page-order");
	fe_pages = get(fe, XVBD_DIR_FRONTEND, "num-ring-pages");

	n->key = "ring-page-order";
	if (be_order.known && be_pages.known &&
	    (1ull << be_order.v) != be_pages.v)
		xvbd_blkif_warn(ev, "backend max-ring-pages=%" PRIu64
				" disagrees with max-ring-page-order=%" PRIu64,
				be_pages.v, be_order.v);
	if (fe_order.known && fe_pages.known &&
	    (1ull << fe_order.v) != fe_pages.v)
		xvbd_blkif_warn(ev, "frontend num-ring-pages=%" PRIu64
				" disagrees with ring-page-order=%" PRIu64,
				fe_pages.v, fe_order.v);

	if (be_order.known)
		n->offer = be_order;
	else if (be_pages.known && log2_exact(be_pages.v) >= 0)
		n->offer = known((uint64_t)log2_exact(be_pages.v));
	else if (be_probed)
		n->offer = known(0);	/* no key: single-page rings only */

	if (fe_order.known)
		n->choice = fe_order;
	else if (fe_pages.known && log2_exact(fe_pages.v) >= 0)
		n->choice = known((uint64_t)log2_exact(fe_pages.v));
	else if (fe_pages.known)
		xvbd_blkif_warn(ev, "frontend num-ring-pages=%" PRIu64
				" is not a power of two", fe_pages.v);
	else if (has_key(fe, "ring-ref") || has_key(fe, "queue-0/ring-ref"))
		n->choice = known(0);

	if (n->offer.known && n->choice.known && n->choice.v > n->offer.v)
		xvbd_blkif_warn(ev, "frontend ring-page-order %" PRIu64
				" above backend max-ring-page-order %" PRIu64
				" (the backend refuses it and closes)",
				n->choice.v, n->offer.v);
	else if (n->choice.known)
		n->effective = n->choice;
	if (n->effective.known)
		ev->ring_pages = known(1ull << n->effective.v);
}

static void eval_queues(const struct xvbd_blkif_input *in,
			struct xvbd_blkif_eval *ev, bool be_probed)
{
	struct xvbd_nego *n = &ev->nego[XVBD_NEGO_QUEUES];
	const struct xvbd_kvmap *fe = in->frontend;

	n->key = "multi-queue-num-queues";
	n->offer = get_or_default(in->backend, XVBD_DIR_BACKEND,
				  "multi-queue-max-queues", be_probed);
	n->choice = get(fe, XVBD_DIR_FRONTEND, "multi-queue-num-queues");
	if (!n->choice.known && !has_key(fe, "multi-queue-num-queues") &&
	    ev->nego[XVBD_NEGO_RING_ORDER].choice.known)
		n->choice = known(1);	/* rings published, no key: one */
	if (n->offer.known && n->choice.known && n->choice.v > n->offer.v)
		xvbd_blkif_warn(ev, "frontend multi-queue-num-queues %" PRIu64
				" above backend multi-queue-max-queues %" PRIu64,
				n->choice.v, n->offer.v);
	else if (n->choice.known)
		n->effective = n->choice;
	ev->queues = n->effective;
}

static void eval_ring_refs(const struct xvbd_blkif_input *in,
			   struct xvbd_blkif_eval *ev)
{
	const struct xvbd_nego *ring = &ev->nego[XVBD_NEGO_RING_ORDER];
	const struct xvbd_nego *queues = &ev->nego[XVBD_NEGO_QUEUES];
	char prefix[32];
	uint64_t q;

	/* The frontend publishes its rings before going Initialised. */
	if (!ev->frontend_state.known ||
	    (ev->frontend_state.v != XVBD_STATE_INITIALISED &&
	     ev->frontend_state.v != XVBD_STATE_CONNECTED))
		return;
	if (!ring->choice.known || !queues->choice.known) {
		xvbd_blkif_warn(ev, "frontend is %s but its ring keys are "
				"incomplete",
				xvbd_state_name(ev->frontend_state.v));
		return;
	}
	/* Linux blkback: one queue = flat keys, else queue-N/ dirs. */
	if (queues->choice.v == 1) {
		check_ring_refs(in->frontend, "", 1ull << ring->choice.v, ev);
		return;
	}
	for (q = 0; q < queues->choice.v && ev->nwarnings < XVBD_WARN_MAX;
	     q++) {
		snprintf(prefix, sizeof(prefix), "queue-%" PRIu64 "/", q);
		check_ring_refs(in->frontend, prefix, 1ull << ring->choice.v,
				ev);
	}
}

static void eval_features(const struct xvbd_blkif_input *in,
			  struct xvbd_blkif_eval *ev, bool be_probed,
			  bool be_connected, bool fe_published)
{
	struct xvbd_nego *n;

	n = &ev->nego[XVBD_NEGO_INDIRECT];
	n->key = "feature-max-indirect-segments";
	n->offer = get_or_default(in->backend, XVBD_DIR_BACKEND,
				  "feature-max-indirect-segments", be_probed);
	/* blkfront does not publish its limit (max_indirect_segments). */
	n->choice = in->fe_indirect_limit;
	if (n->offer.known && n->offer.v == 0)
		n->effective = known(0);
	else if (n->offer.known && n->choice.known)
		n->effective = known(n->offer.v < n->choice.v ?
				     n->offer.v : n->choice.v);
	ev->indirect_offered = n->offer;

	n = &ev->nego[XVBD_NEGO_PERSISTENT];
	n->key = "feature-persistent";
	n->offer = get_or_default(in->backend, XVBD_DIR_BACKEND,
				  "feature-persistent", be_connected);
	n->choice = get_or_default(in->frontend, XVBD_DIR_FRONTEND,
				   "feature-persistent", fe_published);
	if ((n->offer.known && !n->offer.v) ||
	    (n->choice.known && !n->choice.v))
		n->effective = known(0);
	else if (n->offer.known && n->choice.known)
		n->effective = known(1);
	ev->persistent = n->effective;

	n = &ev->nego[XVBD_NEGO_DISCARD];
	n->key = "feature-discard";
	n->offer = get_or_default(in->backend, XVBD_DIR_BACKEND,
				  "feature-discard", be_connected);
	/* blkfront uses discard whenever offered; it writes no key. */
	n->effective = n->offer;
}

static void eval_size(const struct xvbd_blkif_input *in,
		      struct xvbd_blkif_eval *ev)
{
	struct xvbd_opt sectors = get(in->backend, XVBD_DIR_BACKEND, "sectors");
	struct xvbd_opt sector_size = get(in->backend, XVBD_DIR_BACKEND,
					  "sector-size");
	struct xvbd_opt large = get(in->frontend, XVBD_DIR_FRONTEND,
				    "feature-large-sector-size");
	uint64_t unit_bytes = 512;

	if (sector_size.known && log2_exact(sector_size.v) < 0)
		xvbd_blkif_warn(ev, "backend sector-size %" PRIu64
				" is not a power of two", sector_size.v);
	/*
	 * blkif.h: sectors is in sector-size units, and sector-size must be
	 * 512 unless the frontend sets feature-large-sector-size.  Linux
	 * blkback always counts 512-byte sectors, so honour sector-size
	 * only for frontends that asked for it.
	 */
	if (sector_size.known && sector_size.v != 512) {
		if (large.known && large.v)
			unit_bytes = sector_size.v;
		else
			xvbd_blkif_warn(ev, "backend sector-size %" PRIu64
					" but the frontend lacks "
					"feature-large-sector-size "
					"(blkif.h wants 512)", sector_size.v);
	}
	if (!sectors.known)
		return;
	if (sectors.v > UINT64_MAX / unit_bytes) {
		xvbd_blkif_warn(ev, "backend sectors %" PRIu64
				" overflows a byte count", sectors.v);
		return;
	}
	ev->size_bytes = known(sectors.v * unit_bytes);
}

static void eval_states(const struct xvbd_blkif_input *in,
			struct xvbd_blkif_eval *ev)
{
	const char *hotplug = in->backend ?
		xvbd_kvmap_get(in->backend, "hotplug-status") : NULL;
	const char *type = in->backend ?
		xvbd_kvmap_get(in->backend, "type") : NULL;
	struct xvbd_opt be = ev->backend_state, fe = ev->frontend_state;

	if (be.known && be.v == XVBD_STATE_INITIALISING)
		xvbd_blkif_warn(ev, "backend Initialising: no backend "
				"driver bound (xen-blkback loaded?)");
	if (be.known && fe.known && be.v == XVBD_STATE_INITWAIT &&
	    fe.v == XVBD_STATE_INITIALISING)
		xvbd_blkif_warn(ev, "backend InitWait, frontend "
				"Initialising: waiting for the frontend "
				"(guest paused or no blkfront?)");
	if (be.known && be.v == XVBD_STATE_CONNECTED && fe.known &&
	    fe.v < XVBD_STATE_CONNECTED)
		xvbd_blkif_warn(ev, "backend Connected but frontend still %s",
				xvbd_state_name(fe.v));
	if (be.known && be.v == XVBD_STATE_CLOSED)
		xvbd_blkif_warn(ev, "backend Closed%s%.120s",
				in->error_text ? ": " : "",
				in->error_text ? in->error_text : "");
	else if (in->error_text)
		xvbd_blkif_warn(ev, "backend error: %.120s", in->error_text);
	if (fe.known && fe.v == XVBD_STATE_CLOSED &&
	    !(be.known && be.v == XVBD_STATE_CLOSED))
		xvbd_blkif_warn(ev, "frontend Closed");
	if (hotplug && strcmp(hotplug, "connected"))
		xvbd_blkif_warn(ev, "hotplug-status \"%.40s\": hotplug "
				"script failed / still running", hotplug);
	else if (!hotplug && type && !strcmp(type, "phy") &&
		 !(be.known && be.v == XVBD_STATE_CONNECTED))
		xvbd_blkif_warn(ev, "no hotplug-status: hotplug script "
				"failed / still running");
}

void xvbd_blkif_evaluate(const struct xvbd_blkif_input *in,
			 struct xvbd_blkif_eval *ev)
{
	bool be_probed, be_connected, fe_published;

	memset(ev, 0, sizeof(*ev));
	check_values(in->backend, XVBD_DIR_BACKEND, ev);
	check_values(in->frontend, XVBD_DIR_FRONTEND, ev);
	ev->backend_state = get(in->backend, XVBD_DIR_BACKEND, "state");
	ev->frontend_state = get(in->frontend, XVBD_DIR_FRONTEND, "state");

	/* When each side's keys are due, so absent keys mean defaults. */
	be_probed = ev->backend_state.known &&
		    ev->backend_state.v >= XVBD_STATE_INITWAIT;
	be_connected = ev->backend_state.known &&
		       ev->backend_state.v == XVBD_STATE_CONNECTED;
	fe_published = ev->frontend_state.known &&
		       (ev->frontend_state.v == XVBD_STATE_INITIALISED ||
			ev->frontend_state.v == XVBD_STATE_CONNECTED);

	eval_ring(in, ev, be_probed);
	eval_queues(in, ev, be_probed);
	eval_ring_refs(in, ev);
	eval_features(in, ev, be_probed, be_connected, fe_published);
	eval_size(in, ev);
	eval_states(in, ev);
}
