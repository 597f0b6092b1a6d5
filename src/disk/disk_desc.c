/*
 * disk_desc.c - a disk's description and the one parser every grammar
 * that names a disk goes through (xvbd/disk/disk.h): attach's options and
 * disk specs, apply's plan keys, ab run's --disk/--cache/--vbd.  Values
 * are read by the layers that own their grammar (libxlutil for xl disk
 * specs, share.h for paths and URLs, override.h for the offers, optval.h
 * for sizes); this file knows the keys, what goes with what, and how each
 * grammar words an error.  Pure apart from libxlutil: no connection, no
 * file looked at.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xvbd/base/optval.h"
#include "xvbd/dom0/image.h"
#include "xvbd/xen/tstack.h"
#include "disk_impl.h"

#define SOURCE_KEYS	(KEY_BIT(KEY_SPEC) | KEY_BIT(KEY_FILE) | \
			 KEY_BIT(KEY_PHY) | KEY_BIT(KEY_SHARE))

const char *const xvbd_disk_keys[KEY_N + 1] = {
	[KEY_SPEC] = "spec", [KEY_FILE] = "file", [KEY_PHY] = "phy",
	[KEY_SHARE] = "share", [KEY_VDEV] = "vdev", [KEY_ACCESS] = "access",
	[KEY_SIZE] = "size", [KEY_PREALLOC] = "prealloc",
	[KEY_CACHE] = "cache", [KEY_CREDENTIALS] = "credentials",
	[KEY_SHARE_OPTS] = "share-opts", [KEY_RING_ORDER] = "ring-order",
	[KEY_QUEUES] = "queues", [KEY_INDIRECT] = "indirect-segments",
	[KEY_DISCARD] = "discard", [KEY_TRUSTED] = "trusted",
	[KEY_N] = NULL,
};

/* The offer keys: the override each one sets. */
static const enum xvbd_ovr_id offer_ids[] = {
	[KEY_RING_ORDER - KEY_RING_ORDER] = XVBD_OVR_RING_ORDER,
	[KEY_QUEUES - KEY_RING_ORDER] = XVBD_OVR_QUEUES,
	[KEY_INDIRECT - KEY_RING_ORDER] = XVBD_OVR_INDIRECT,
	[KEY_DISCARD - KEY_RING_ORDER] = XVBD_OVR_DISCARD,
	[KEY_TRUSTED - KEY_RING_ORDER] = XVBD_OVR_TRUSTED,
};

const char *xvbd_disk_kind_name(enum xvbd_disk_kind kind)
{
	static const char *const names[] = {
		[XVBD_DISK_SPEC] = "spec", [XVBD_DISK_FILE] = "file",
		[XVBD_DISK_PHY] = "phy", [XVBD_DISK_SHARE] = "share",
	};

	return kind < XVBD_DISK_NKINDS ? names[kind] : "?";
}

static bool options(const struct xvbd_disk_desc *d)
{
	return d->words == XVBD_DISK_WORDS_OPTIONS;
}

/* A key as the grammar writes it: "--size" or "size". */
static const char *spell(const struct xvbd_disk_desc *d, enum disk_key k,
			 char *buf, size_t len)
{
	snprintf(buf, len, "%s%s", options(d) ? "--" : "", xvbd_disk_keys[k]);
	return buf;
}

/*
 * What an error about key k names: with options, the disk as the user
 * wrote it for its source and whatever is checked against it, the
 * option otherwise; with plain keys, the key.
 */
static const char *subject(const struct xvbd_disk_desc *d, enum disk_key k,
			   bool about_disk, char *buf, size_t len)
{
	if (options(d) && about_disk)
		return d->arg;
	return spell(d, k, buf, len);
}

void xvbd_disk_desc_init(struct xvbd_disk_desc *d,
			 enum xvbd_disk_words words, unsigned sources)
{
	memset(d, 0, sizeof(*d));
	d->words = words;
	d->sources = sources & XVBD_DISK_SOURCES_ALL;
	d->readwrite = true;
	d->auto_vdev = true;
	d->cache = XVBD_CACHE_HOST;
}

/* "spec", "share_opts" -> its index; -1 when unknown. */
static int find_key(const char *name)
{
	char norm[32];
	size_t i;

	if (strlen(name) >= sizeof(norm))
		return -1;
	for (i = 0; name[i]; i++)
		norm[i] = name[i] == '_' ? '-' : name[i];
	norm[i] = '\0';
	for (i = 0; i < KEY_N; i++)
		if (!strcmp(xvbd_disk_keys[i], norm))
			return (int)i;
	return -1;
}

static bool key_taken(const struct xvbd_disk_desc *d, int k)
{
	return k >= 0 && (k > KEY_SHARE || (d->sources & (1u << k)));
}

/* The keys this grammar takes, for "unknown key" (plain keys only). */
static void known_keys(const struct xvbd_disk_desc *d, char *buf,
		       size_t len)
{
	size_t n = 0, i;

	buf[0] = '\0';
	for (i = 0; i < KEY_N && n < len; i++)
		if (key_taken(d, (int)i))
			n += (size_t)snprintf(buf + n, len - n, "%s%s",
					      n ? ", " : "",
					      xvbd_disk_keys[i]);
}

/* ---- the sources ---- */

/*
 * A spec: libxlutil's reading, then what xvbd refuses of it before
 * anything runs (a script outside Xen's script directory, a target with
 * option injection).
 */
static int set_spec(struct xvbd_disk_desc *d, const char *spec,
		    struct xvbd_report *rep, const char *what)
{
	struct xvbd_tstack_disk *disk = NULL;
	struct xvbd_tstack_disk_info info;
	char why[512];
	const char *bad;
	int err, rc = XVBD_EXIT_USAGE;

	err = xvbd_tstack_disk_parse(spec, &disk, why, sizeof(why));
	if (err) {
		xvbd_report_err(rep, what, "%s", why);
		return err == -EINVAL ? XVBD_EXIT_USAGE : XVBD_EXIT_FAIL;
	}
	xvbd_tstack_disk_describe(disk, &info);
	if (info.backend_domname &&
	    xvbd_tstack_domain_spec_check(info.backend_domname)) {
		xvbd_report_err(rep, what, "backend domain \"%s\": %s",
				info.backend_domname,
				xvbd_tstack_lookup_why(-EINVAL));
		goto out;
	}
	if (info.script && xvbd_token_check(info.script, &bad)) {
		xvbd_report_err(rep, what, "script \"%s\": %s", info.script,
				bad);
		goto out;
	}
	/* libxl runs a script as root with the disk's arguments: a name
	 * is looked up in Xen's script directory, a path is run as it is. */
	if (info.script && info.script[0] == '/' &&
	    (strncmp(info.script, XVBD_XEN_SCRIPT_DIR "/",
		     strlen(XVBD_XEN_SCRIPT_DIR "/")) ||
	     strchr(info.script + strlen(XVBD_XEN_SCRIPT_DIR "/"), '/'))) {
		xvbd_report_err(rep, what, "script \"%s\": not in %s",
				info.script, XVBD_XEN_SCRIPT_DIR);
		xvbd_report_hint(rep, "name a hotplug script of Xen's script "
				 "directory (script=block-iscsi)");
		goto out;
	}
	if (info.target && *info.target) {
		/* Without a script the target is a path the block script
		 * resolves; a script gets its own word (iscsi:..., drbd:...). */
		err = info.script ? xvbd_token_check(info.target, &bad) :
			xvbd_path_check(info.target, &bad);
		if (err) {
			xvbd_report_err(rep, what, "target \"%s\": %s",
					info.target, bad);
			goto out;
		}
		snprintf(d->target, sizeof(d->target), "%s", info.target);
	}
	d->readwrite = info.readwrite;
	d->auto_vdev = !strcmp(info.vdev, "auto");
	snprintf(d->vdev, sizeof(d->vdev), "%s", d->auto_vdev ? "" :
		 info.vdev);
	snprintf(d->format, sizeof(d->format), "%s", info.format ?
		 info.format : "");
	snprintf(d->script, sizeof(d->script), "%s", info.script ?
		 info.script : "");
	snprintf(d->backend_domname, sizeof(d->backend_domname), "%s",
		 info.backend_domname ? info.backend_domname : "");
	snprintf(d->backendtype, sizeof(d->backendtype), "%s",
		 info.backend && strcmp(info.backend, "unknown") ?
		 info.backend : "");
	d->cdrom = info.is_cdrom;
	rc = 0;
out:
	xvbd_tstack_disk_free(disk);
	return rc;
}

/* A share: its URL, and the image's path below xvbd's mount point. */
static int set_share(struct xvbd_disk_desc *d, const char *url,
		     struct xvbd_report *rep, const char *what)
{
	char point[XVBD_PATH_MAX];
	const char *bad;
	int n;

	if (xvbd_share_parse_url(url, &d->url, &bad)) {
		xvbd_report_err(rep, what, "%s", bad);
		return XVBD_EXIT_USAGE;
	}
	n = xvbd_share_mountpoint(&d->url, point, sizeof(point)) ? -1 :
		snprintf(d->target, sizeof(d->target), "%s/%s", point,
			 d->url.image);
	if (n < 0 || (size_t)n >= sizeof(d->target)) {
		xvbd_report_err(rep, what, "image path too long");
		return XVBD_EXIT_USAGE;
	}
	return 0;
}

static int set_source(struct xvbd_disk_desc *d, enum disk_key k,
		      const char *value, struct xvbd_report *rep)
{
	char key[32];
	const char *what = options(d) ? value : spell(d, k, key, sizeof(key));
	const char *bad;
	int rc = 0;

	/* A second source is refused once all keys are in (check). */
	if (d->given & SOURCE_KEYS & ~KEY_BIT(k))
		return 0;
	d->kind = (enum xvbd_disk_kind)k;
	switch (k) {
	case KEY_SPEC:
		rc = set_spec(d, value, rep, what);
		break;
	case KEY_SHARE:
		rc = set_share(d, value, rep, what);
		break;
	default:
		if (xvbd_path_check(value, &bad)) {
			xvbd_report_err(rep, what, "%s", bad);
			return XVBD_EXIT_USAGE;
		}
		snprintf(d->target, sizeof(d->target), "%s", value);
	}
	/* attach reads a spec again from here: it must be whole */
	if (!rc && strlen(value) >= sizeof(d->arg)) {
		xvbd_report_err(rep, options(d) ? NULL : what, "%s longer "
				"than %zu bytes", xvbd_disk_keys[k],
				sizeof(d->arg) - 1);
		rc = XVBD_EXIT_USAGE;
	}
	snprintf(d->arg, sizeof(d->arg), "%s", value);
	return rc;
}

/* ---- the other keys ---- */

/* A boolean in the one grammar (on/off, yes/no, true/false, 1/0). */
static int parse_onoff(const char *value, bool *on)
{
	char why[XVBD_OPTVAL_WHY_MAX];

	return xvbd_optval_bool(value, on, why, sizeof(why)) ? -EINVAL : 0;
}

static int set_size(struct xvbd_disk_desc *d, const char *value,
		    struct xvbd_report *rep, const char *what)
{
	char why[XVBD_OPTVAL_WHY_MAX];

	/* An image's bounds, as attach's --size (the one grammar's words) */
	if (!xvbd_optval_size(value, XVBD_IMAGE_SIZE_MIN, XVBD_IMAGE_SIZE_MAX,
			      &d->size_bytes, why, sizeof(why))) {
		d->have_size = true;
		return 0;
	}
	xvbd_report_err(rep, what, "\"%s\": %s", value, why);
	return XVBD_EXIT_USAGE;
}

/* An offer as the override layer's "key=value", checked now. */
static int set_offer(struct xvbd_disk_desc *d, enum disk_key k,
		     const char *value, struct xvbd_report *rep,
		     const char *what)
{
	enum xvbd_ovr_id id = offer_ids[k - KEY_RING_ORDER];
	const struct xvbd_ovr_key *key = &xvbd_ovr_keys[id];
	struct xvbd_ovr_set scratch;
	char why[320];
	bool on;

	if (id == XVBD_OVR_DISCARD || id == XVBD_OVR_TRUSTED) {
		if (parse_onoff(value, &on)) {
			xvbd_report_err(rep, what, "\"%.24s\": on or off",
					value);
			return XVBD_EXIT_USAGE;
		}
		value = on ? "1" : "0";
	}
	snprintf(d->offer_kv[id], sizeof(d->offer_kv[id]), "%s=%.24s",
		 key->name, value);
	if (xvbd_override_set_init(&scratch, "xvda", why, sizeof(why)) ||
	    xvbd_override_parse_kv(&scratch, d->offer_kv[id], why,
				   sizeof(why))) {
		xvbd_report_err(rep, what, "%s", why);
		return XVBD_EXIT_USAGE;
	}
	return 0;
}

/* A string key kept for later checks: credentials, share-opts, vdev. */
static int set_text(char *buf, size_t len, const char *value,
		    struct xvbd_report *rep, const char *what)
{
	if (strlen(value) >= len) {
		xvbd_report_err(rep, what, "longer than %zu bytes", len - 1);
		return XVBD_EXIT_USAGE;
	}
	snprintf(buf, len, "%s", value);
	return 0;
}

static int set_value(struct xvbd_disk_desc *d, enum disk_key k,
		     const char *value, struct xvbd_report *rep,
		     const char *what)
{
	bool on;

	switch (k) {
	case KEY_VDEV:
		/* checked against the source's words (check) */
		d->auto_vdev = !strcmp(value, "auto");
		snprintf(d->vdev, sizeof(d->vdev), "%s", d->auto_vdev ? "" :
			 value);
		return 0;
	case KEY_ACCESS:
		if (!strcmp(value, "rw") || !strcmp(value, "w"))
			d->readwrite = true;
		else if (!strcmp(value, "ro") || !strcmp(value, "r"))
			d->readwrite = false;
		else
			break;
		return 0;
	case KEY_SIZE:
		return set_size(d, value, rep, what);
	case KEY_PREALLOC:
		if (parse_onoff(value, &on)) {
			xvbd_report_err(rep, what, "\"%.24s\": on or off",
					value);
			return XVBD_EXIT_USAGE;
		}
		d->prealloc = on;
		return 0;
	case KEY_CACHE:
		if (xvbd_cache_parse(value, &d->cache))
			break;
		d->have_cache = true;
		return 0;
	case KEY_CREDENTIALS:
		return set_text(d->credentials, sizeof(d->credentials), value,
				rep, what);
	case KEY_SHARE_OPTS:
		return set_text(d->share_opts, sizeof(d->share_opts), value,
				rep, what);
	default:
		return set_offer(d, k, value, rep, what);
	}
	xvbd_report_err(rep, what, "%s, not \"%s\"", k == KEY_ACCESS ?
			"rw or ro" : "host or none", value);
	return XVBD_EXIT_USAGE;
}

int xvbd_disk_desc_set(struct xvbd_disk_desc *d, const char *key,
		       const char *value, struct xvbd_report *rep)
{
	int k = find_key(key);
	char name[48], known[400];

	if (!key_taken(d, k)) {
		known_keys(d, known, sizeof(known));
		snprintf(name, sizeof(name), "%s%.40s", options(d) ? "--" : "",
			 key);
		xvbd_report_err(rep, name, "unknown key (known: %s)", known);
		return XVBD_EXIT_USAGE;
	}
	if (d->given & KEY_BIT(k)) {
		xvbd_report_err(rep, spell(d, k, name, sizeof(name)),
				"given twice");
		return XVBD_EXIT_USAGE;
	}
	d->given |= KEY_BIT(k);
	if (k <= KEY_SHARE)
		return set_source(d, (enum disk_key)k, value, rep);
	return set_value(d, (enum disk_key)k, value, rep,
			 spell(d, k, name, sizeof(name)));
}

int xvbd_disk_desc_set_offers(struct xvbd_disk_desc *d,
			      const struct xvbd_ovr_set *set,
			      struct xvbd_report *rep)
{
	char value[24];
	size_t i;
	int rc;

	for (i = 0; i < set->n; i++) {
		snprintf(value, sizeof(value), "%" PRIu64,
			 set->items[i].value);
		rc = xvbd_disk_desc_set(d, set->items[i].key->name, value,
					rep);
		if (rc)
			return rc;
	}
	return 0;
}

/* ---- the keys together ---- */

/* "file, phy and share" / "\"file\", \"phy\" or \"share\"" */
static void source_list(const struct xvbd_disk_desc *d, bool with_spec,
			const char *quote, const char *last, char *buf,
			size_t len)
{
	char key[32];
	size_t n = 0, count = 0, total = 0, k;

	for (k = KEY_SPEC; k <= KEY_SHARE; k++)
		if ((d->sources & (1u << k)) && (with_spec || k != KEY_SPEC))
			total++;
	buf[0] = '\0';
	for (k = KEY_SPEC; k <= KEY_SHARE && n < len; k++) {
		if (!(d->sources & (1u << k)) || (!with_spec && k == KEY_SPEC))
			continue;
		count++;
		n += (size_t)snprintf(buf + n, len - n, "%s%s%s%s",
				      count == 1 ? "" : count == total ? last :
				      ", ", quote,
				      spell(d, (enum disk_key)k, key,
					    sizeof(key)), quote);
	}
}

/* One source, and none of the keys another source says itself. */
static int check_sources(const struct xvbd_disk_desc *d,
			 struct xvbd_report *rep)
{
	uint32_t srcs = d->given & SOURCE_KEYS;
	char list[200], key[32];
	size_t k;

	if (!srcs) {
		if (options(d)) {
			source_list(d, false, "", " or ", list, sizeof(list));
			xvbd_report_err(rep, NULL, "no disk: give %s%s",
					d->sources & XVBD_DISK_SOURCE(
						XVBD_DISK_SPEC) ?
					"a disk spec, --spec, " : "", list);
		} else {
			source_list(d, true, "\"", " or ", list,
				    sizeof(list));
			xvbd_report_err(rep, NULL, "no source: give %s", list);
		}
		return XVBD_EXIT_USAGE;
	}
	if (srcs & (srcs - 1)) {
		if (options(d) && (srcs & KEY_BIT(KEY_SPEC))) {
			for (k = KEY_FILE; !(srcs & KEY_BIT(k)); k++)
				;
			xvbd_report_err(rep, NULL, "a disk spec and %s: give "
					"one", spell(d, (enum disk_key)k, key,
						     sizeof(key)));
		} else {
			source_list(d, !options(d), "", " and ", list,
				    sizeof(list));
			xvbd_report_err(rep, NULL, "%s are one disk each: "
					"give one", list);
		}
		return XVBD_EXIT_USAGE;
	}
	if (d->kind == XVBD_DISK_SPEC &&
	    (d->given & (KEY_BIT(KEY_VDEV) | KEY_BIT(KEY_SIZE) |
			 KEY_BIT(KEY_PREALLOC) | KEY_BIT(KEY_ACCESS)))) {
		xvbd_report_err(rep, NULL, options(d) ?
				"--vdev, --size, --prealloc and --access go "
				"with --file, --phy or --share (a disk spec "
				"says them itself)" :
				"vdev, size, prealloc and access go with "
				"file, phy or share (a spec says them itself)");
		return XVBD_EXIT_USAGE;
	}
	if (d->kind == XVBD_DISK_PHY &&
	    (d->given & (KEY_BIT(KEY_SIZE) | KEY_BIT(KEY_PREALLOC) |
			 KEY_BIT(KEY_CACHE)))) {
		xvbd_report_err(rep, NULL, "%ssize, %sprealloc and %scache are "
				"for image files, not %sphy",
				options(d) ? "--" : "", options(d) ? "--" : "",
				options(d) ? "--" : "", options(d) ? "--" : "");
		return XVBD_EXIT_USAGE;
	}
	if (d->kind != XVBD_DISK_SHARE &&
	    (d->given & (KEY_BIT(KEY_CREDENTIALS) | KEY_BIT(KEY_SHARE_OPTS)))) {
		if (options(d))
			xvbd_report_err(rep, NULL, "--credentials and "
					"--share-opts go with --share");
		else
			xvbd_report_err(rep, d->given &
					KEY_BIT(KEY_CREDENTIALS) ?
					"credentials" : "share-opts",
					"goes with share");
		return XVBD_EXIT_USAGE;
	}
	return 0;
}

/* A share's credentials file and mount options (the rest: the mount). */
static int check_share(const struct xvbd_disk_desc *d,
		       struct xvbd_report *rep)
{
	char key[32];
	const char *bad;

	if (d->credentials[0] && xvbd_path_check(d->credentials, &bad)) {
		if (options(d))
			xvbd_report_err(rep, d->arg, "--credentials %s: %s",
					d->credentials, bad);
		else
			xvbd_report_err(rep, "credentials", "%s", bad);
		return XVBD_EXIT_USAGE;
	}
	if (xvbd_share_opts_check(d->url.proto, d->share_opts, &bad)) {
		xvbd_report_err(rep, subject(d, KEY_SHARE_OPTS, true, key,
					     sizeof(key)), "%s", bad);
		return XVBD_EXIT_USAGE;
	}
	if (d->url.proto == XVBD_SHARE_SMB && !d->credentials[0]) {
		if (options(d)) {
			xvbd_report_err(rep, d->arg, "an smb:// share needs "
					"--credentials FILE");
			xvbd_report_hint(rep, "a root-owned 0600 file with "
					 "username=... and password=... lines");
		} else {
			xvbd_report_err(rep, "share", "an smb:// share needs "
					"\"credentials\": a root-owned 0600 "
					"file with username=... and "
					"password=... lines");
		}
		return XVBD_EXIT_USAGE;
	}
	if (d->url.proto == XVBD_SHARE_NFS && d->credentials[0]) {
		xvbd_report_err(rep, options(d) ? d->arg : "credentials",
				"%sis for smb:// shares", options(d) ?
				"--credentials " : "");
		return XVBD_EXIT_USAGE;
	}
	return 0;
}

int xvbd_disk_desc_check(struct xvbd_disk_desc *d, struct xvbd_report *rep)
{
	char key[32], why[320];
	size_t k;
	int rc;

	rc = check_sources(d, rep);
	if (!rc && d->kind == XVBD_DISK_SHARE)
		rc = check_share(d, rep);
	if (rc)
		return rc;
	if (!d->auto_vdev && xvbd_vdev_parse(d->vdev, &d->devid)) {
		if (options(d))
			xvbd_report_err(rep, d->arg, "vdev \"%s\": not a "
					"virtual device name", d->vdev);
		else
			xvbd_report_err(rep, "vdev", "\"%s\": not a virtual "
					"device name", d->vdev);
		return XVBD_EXIT_USAGE;
	}
	if (!d->have_cache)
		d->cache = d->kind == XVBD_DISK_PHY ? XVBD_CACHE_NA :
			XVBD_CACHE_HOST;
	/* The offers for this vdev (an auto one gets its name at attach). */
	if (xvbd_override_set_init(&d->offers, d->auto_vdev ? "xvda" :
				   d->vdev, why, sizeof(why)))
		return XVBD_EXIT_USAGE;
	for (k = 0; k < XVBD_OVR_NKEYS; k++) {
		if (!d->offer_kv[k][0] ||
		    !xvbd_override_parse_kv(&d->offers, d->offer_kv[k], why,
					    sizeof(why)))
			continue;
		xvbd_report_err(rep, subject(d, KEY_RING_ORDER + k, false,
					     key, sizeof(key)), "%s", why);
		return XVBD_EXIT_USAGE;
	}
	return 0;
}

/* ---- the same disk ---- */

/* A disk that is a raw file or device at a path, whoever named it. */
static bool plain_path(const struct xvbd_disk_desc *d)
{
	if (d->kind == XVBD_DISK_FILE || d->kind == XVBD_DISK_PHY)
		return true;
	return d->kind == XVBD_DISK_SPEC && d->target[0] &&
	       (!d->format[0] || !strcmp(d->format, "raw")) &&
	       !d->script[0] && !d->backend_domname[0] &&
	       !d->backendtype[0] && !d->cdrom;
}

bool xvbd_disk_desc_same(const struct xvbd_disk_desc *a,
			 const struct xvbd_disk_desc *b)
{
	size_t k;

	if (a->kind != b->kind && !(plain_path(a) && plain_path(b)))
		return false;
	if (strcmp(a->target, b->target) || a->auto_vdev != b->auto_vdev ||
	    (!a->auto_vdev && a->devid != b->devid) ||
	    a->readwrite != b->readwrite || a->cache != b->cache ||
	    a->have_size != b->have_size ||
	    (a->have_size && a->size_bytes != b->size_bytes) ||
	    a->prealloc != b->prealloc ||
	    strcmp(a->credentials, b->credentials) ||
	    strcmp(a->share_opts, b->share_opts))
		return false;
	if (!(plain_path(a) && plain_path(b)) &&
	    (strcmp(a->format, b->format) || strcmp(a->script, b->script) ||
	     strcmp(a->backend_domname, b->backend_domname) ||
	     strcmp(a->backendtype, b->backendtype) || a->cdrom != b->cdrom))
		return false;
	if (a->kind == XVBD_DISK_SHARE && strcmp(a->url.source, b->url.source))
		return false;
	for (k = 0; k < XVBD_OVR_NKEYS; k++)
		if (strcmp(a->offer_kv[k], b->offer_kv[k]))
			return false;
	return true;
}

void xvbd_disk_desc_text(const struct xvbd_disk_desc *d, char *buf,
			 size_t len)
{
	char size[32];
	size_t n, k;

	if (plain_path(d) || d->kind == XVBD_DISK_SHARE)
		n = (size_t)snprintf(buf, len, "%s%s,vdev=%s,access=%s,"
				     "target=%s", d->kind == XVBD_DISK_SHARE ?
				     "share=" : "format=raw",
				     d->kind == XVBD_DISK_SHARE ?
				     d->url.source : "", d->auto_vdev ?
				     "auto" : d->vdev, d->readwrite ? "rw" :
				     "ro", d->target);
	else
		n = (size_t)snprintf(buf, len, "%s", d->arg);
	if (n >= len)
		return;
	n += (size_t)snprintf(buf + n, len - n, " cache=%s",
			      xvbd_cache_name(d->cache));
	if (d->have_size && n < len) {
		xvbd_fmt_size(d->size_bytes, size, sizeof(size));
		n += (size_t)snprintf(buf + n, len - n, " size=%s%s", size,
				      d->prealloc ? " prealloc=on" : "");
	}
	for (k = 0; k < XVBD_OVR_NKEYS && n < len; k++)
		if (d->offer_kv[k][0])
			n += (size_t)snprintf(buf + n, len - n, " %s",
					      d->offer_kv[k]);
}
