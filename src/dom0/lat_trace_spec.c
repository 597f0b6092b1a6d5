/*
 * lat_trace_spec.c - the texts of the latency tracker's hist triggers
 * (lat_trace_impl.h says what each one does).  Pure: unit tested.
 *
 * The syntax is the kernel's (Documentation/trace/histogram.rst):
 * "hist:keys=...:var=expr:...:size=N:clock=mono:onmatch(sys.event)
 * .trace(synth,$a,...) if filter".  Every timestamp is taken on the
 * "mono" clock, named in every trigger that reads one: a hist trigger
 * sets its instance's clock and defaults to "global".
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lat_trace_impl.h"

static const char *const kind_names[XVBD_LAT_NKINDS] = { "d2c", "i2c" };
static const char *const dir_names[XVBD_LAT_NDIRS] = { "read", "write" };
/* The event whose time a kind starts from, and its variable's prefix. */
static const char *const kind_event[XVBD_LAT_NKINDS] = {
	"block_rq_issue", "block_rq_insert"
};
static const char *const kind_var[XVBD_LAT_NKINDS] = { "ts", "tq" };
/*
 * rwbs: the operation's letter, after an 'F' for a preflush: reads and
 * writes (not a flush without data, "FN", nor a discard).  The record
 * carries rwbs itself: the reader tells the direction (lat_rwbs_dir),
 * so one trigger and one map per kind serve both.
 */
static const char rw_filter[] =
	"(rwbs ~ \"R*\" || rwbs ~ \"W*\" || rwbs ~ \"FW*\")";

const char *xvbd_lat_kind_name(enum xvbd_lat_kind k)
{
	return k < XVBD_LAT_NKINDS ? kind_names[k] : "?";
}

const char *xvbd_lat_dir_name(enum xvbd_lat_dir d)
{
	return d < XVBD_LAT_NDIRS ? dir_names[d] : "?";
}

static unsigned vk_sub(unsigned gen_bit, enum xvbd_lat_kind k)
{
	return gen_bit * 2 + (unsigned)k;
}

uint64_t lat_vk(const struct lat_unit *u, unsigned gen_bit,
		enum xvbd_lat_kind k)
{
	uint64_t base = u->partition ?
			LAT_PART_BASE + (uint64_t)u->part_id * LAT_VK_SUB :
			(uint64_t)u->kdev * LAT_VK_SUB;

	return base + vk_sub(gen_bit, k);
}

struct lat_unit *lat_vk_unit(struct xvbd_lat *lat, uint64_t vk,
			     unsigned *gen_bit, enum xvbd_lat_kind *k)
{
	unsigned sub = (unsigned)(vk % LAT_VK_SUB);
	bool part = vk >= LAT_PART_BASE;
	uint64_t id = (part ? vk - LAT_PART_BASE : vk) / LAT_VK_SUB;
	size_t i;

	*gen_bit = sub / 2;
	*k = (enum xvbd_lat_kind)(sub % 2);
	for (i = 0; i < lat->nunits; i++) {
		struct lat_unit *u = &lat->units[i];

		if (u->unsupported || u->partition != part)
			continue;
		if (part ? u->part_id == id : u->kdev == id)
			return u;
	}
	return NULL;
}

/* Append to buf (len bytes) at *used; false once it does not fit. */
static bool put(char *buf, size_t len, size_t *used, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static bool put(char *buf, size_t len, size_t *used, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (*used >= len)
		return false;
	va_start(ap, fmt);
	n = vsnprintf(buf + *used, len - *used, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= len - *used) {
		*used = len;
		return false;
	}
	*used += (size_t)n;
	return true;
}

/* "dev == K" or a partition's "(dev == K && sector >= S && ...)". */
static bool unit_filter(const struct lat_unit *u, char *buf, size_t len,
			size_t *used)
{
	if (!u->partition)
		return put(buf, len, used, "dev == %" PRIu32, u->kdev);
	return put(buf, len, used, "(dev == %" PRIu32 " && sector >= %" PRIu64
		   " && sector < %" PRIu64 ")", u->kdev, u->first_sector,
		   u->end_sector);
}

/*
 * Is the unit timed for kind k: d2c always; i2c where its queue has an
 * I/O scheduler (with "none", a request is inserted only now and then,
 * and its insert-to-completion says nothing of a queue: not timed, and
 * its two triggers and their maps not made).
 */
static bool counted(const struct lat_unit *u, enum xvbd_lat_kind k)
{
	return u->wanted && !u->unsupported &&
	       (k == XVBD_LAT_D2C || u->queued);
}

/*
 * The units' filter for kind k: every counted unit, or only whole ones
 * or only partitions.
 */
static bool units_filter(const struct xvbd_lat *lat, enum xvbd_lat_kind k,
			 int only_part, char *buf, size_t len, size_t *used)
{
	size_t i;
	bool any = false;

	for (i = 0; i < lat->nunits; i++) {
		const struct lat_unit *u = &lat->units[i];

		if (!counted(u, k) || (only_part >= 0 &&
				       u->partition != (only_part > 0)))
			continue;
		if ((any && !put(buf, len, used, " || ")) ||
		    !unit_filter(u, buf, len, used))
			return false;
		any = true;
	}
	return true;
}

static int add_cmd(struct lat_gen *g, const char *event, const char *text)
{
	char(*cmds)[LAT_TRIGGER_MAX];
	int n;

	cmds = realloc(g->cmds, (g->ncmds + 1) * sizeof(*cmds));
	if (!cmds)
		return -ENOMEM;
	g->cmds = cmds;
	n = snprintf(cmds[g->ncmds], LAT_TRIGGER_MAX, "%s\t%s", event, text);
	if (n < 0 || n >= LAT_TRIGGER_MAX)
		return -E2BIG;
	g->ncmds++;
	return 0;
}

/* Does any counted unit have kind k (of whole disks, of partitions)? */
static bool any_counted(const struct xvbd_lat *lat, enum xvbd_lat_kind k,
			int only_part)
{
	size_t i;

	for (i = 0; i < lat->nunits; i++)
		if (counted(&lat->units[i], k) &&
		    (only_part < 0 ||
		     lat->units[i].partition == (only_part > 0)))
			return true;
	return false;
}

/* The start events' triggers: keys dev,sector, the time in ts<g>. */
static int start_triggers(struct xvbd_lat *lat, struct lat_gen *g)
{
	char text[LAT_TRIGGER_MAX];
	size_t used;
	int err, k;

	for (k = 0; k < XVBD_LAT_NKINDS; k++) {
		if (!any_counted(lat, (enum xvbd_lat_kind)k, -1))
			continue;
		used = 0;
		if (!put(text, sizeof(text), &used, "hist:keys=dev,sector:"
			 "%s%u=common_timestamp:size=%zu:clock=%s if ",
			 kind_var[k], g->bit, lat->ingress_size,
			 XVBD_LAT_CLOCK) ||
		    !units_filter(lat, (enum xvbd_lat_kind)k, -1, text,
				  sizeof(text), &used))
			return -E2BIG;
		err = add_cmd(g, kind_event[k], text);
		if (err)
			return err;
	}
	return 0;
}

/*
 * A completion trigger: its own variables (numbered: names are unique
 * per event), vk from dev (whole devices) or a constant (a partition),
 * t and the latency, sent to the synthetic event with rwbs.
 */
static int complete_trigger(struct xvbd_lat *lat, struct lat_gen *g,
			    const struct lat_unit *part, enum xvbd_lat_kind k)
{
	unsigned n = lat->next_trigger++;
	char text[LAT_TRIGGER_MAX];
	size_t used = 0;
	bool ok;

	if (part)
		ok = put(text, sizeof(text), &used, "hist:keys=dev,sector:"
			 "v%u=%" PRIu64, n, lat_vk(part, g->bit, k));
	/*
	 * An expression takes its type from its first operand, and the
	 * synthetic event's field is u64: a constant first, never dev (a
	 * dev_t).  Kernels differ in what they take: lat->style says which
	 * spelling this one took (lat_trace.c tries them in turn).
	 */
	else if (lat->style & LAT_STYLE_VK_CONST_LAST)
		ok = put(text, sizeof(text), &used, "hist:keys=dev,sector:"
			 "v%u=%u+dev*%u", n, vk_sub(g->bit, k), LAT_VK_SUB);
	else
		ok = put(text, sizeof(text), &used, "hist:keys=dev,sector:"
			 "v%u=%u*dev+%u", n, LAT_VK_SUB, vk_sub(g->bit, k));
	ok = ok && put(text, sizeof(text), &used,
		       ":l%u=common_timestamp-$%s%u:n%u=common_timestamp",
		       n, kind_var[k], g->bit, n);
	ok = ok && put(text, sizeof(text), &used,
		       ":size=%zu:clock=%s:onmatch(block.%s).trace(%s,$v%u,"
		       "$n%u,$l%u,rwbs) if (",
		       lat->ingress_size, XVBD_LAT_CLOCK, kind_event[k],
		       lat->synth, n, n, n);
	if (part)
		ok = ok && unit_filter(part, text, sizeof(text), &used);
	else
		ok = ok && units_filter(lat, k, 0, text, sizeof(text), &used);
	ok = ok && put(text, sizeof(text), &used, ") && %s", rw_filter);
	if (!ok)
		return -E2BIG;
	return add_cmd(g, "block_rq_complete", text);
}

int lat_spec_gen(struct xvbd_lat *lat, struct lat_gen *g)
{
	size_t i;
	int k, err;

	err = start_triggers(lat, g);
	for (k = 0; !err && k < XVBD_LAT_NKINDS; k++) {
		enum xvbd_lat_kind kind = (enum xvbd_lat_kind)k;

		if (any_counted(lat, kind, 0))
			err = complete_trigger(lat, g, NULL, kind);
		for (i = 0; !err && i < lat->nunits; i++)
			if (counted(&lat->units[i], kind) &&
			    lat->units[i].partition)
				err = complete_trigger(lat, g, &lat->units[i],
						       kind);
	}
	return err;
}

enum xvbd_lat_dir lat_rwbs_dir(const unsigned char *rwbs, size_t n)
{
	size_t i = 0;

	/* A preflush's 'F' comes before the operation's letter. */
	if (i < n && rwbs[i] == 'F')
		i++;
	if (i < n && rwbs[i] == 'R')
		return XVBD_LAT_READ;
	if (i < n && rwbs[i] == 'W')
		return XVBD_LAT_WRITE;
	return XVBD_LAT_NDIRS;
}
