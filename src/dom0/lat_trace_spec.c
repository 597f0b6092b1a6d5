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
/* rwbs: the operation's letter, after an 'F' for a preflush. */
static const char *const dir_filter[XVBD_LAT_NDIRS] = {
	"rwbs ~ \"R*\"",
	"(rwbs ~ \"W*\" || rwbs ~ \"FW*\")",
};

const char *xvbd_lat_kind_name(enum xvbd_lat_kind k)
{
	return k < XVBD_LAT_NKINDS ? kind_names[k] : "?";
}

const char *xvbd_lat_dir_name(enum xvbd_lat_dir d)
{
	return d < XVBD_LAT_NDIRS ? dir_names[d] : "?";
}

static unsigned vk_sub(unsigned gen_bit, enum xvbd_lat_kind k,
		       enum xvbd_lat_dir d)
{
	return gen_bit * 4 + (unsigned)k * 2 + (unsigned)d;
}

uint64_t lat_vk(const struct lat_unit *u, unsigned gen_bit,
		enum xvbd_lat_kind k, enum xvbd_lat_dir d)
{
	uint64_t base = u->partition ?
			LAT_PART_BASE + (uint64_t)u->part_id * LAT_VK_SUB :
			(uint64_t)u->kdev * LAT_VK_SUB;

	return base + vk_sub(gen_bit, k, d);
}

struct lat_unit *lat_vk_unit(struct xvbd_lat *lat, uint64_t vk,
			     unsigned *gen_bit, enum xvbd_lat_kind *k,
			     enum xvbd_lat_dir *d)
{
	unsigned sub = (unsigned)(vk % LAT_VK_SUB);
	bool part = vk >= LAT_PART_BASE;
	uint64_t id = (part ? vk - LAT_PART_BASE : vk) / LAT_VK_SUB;
	size_t i;

	*gen_bit = sub / 4;
	*k = (enum xvbd_lat_kind)(sub / 2 % 2);
	*d = (enum xvbd_lat_dir)(sub % 2);
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

static bool counted(const struct lat_unit *u)
{
	return u->wanted && !u->unsupported;
}

/* The units' filter: every counted unit, or only whole or partitions. */
static bool units_filter(const struct xvbd_lat *lat, int only_part,
			 char *buf, size_t len, size_t *used)
{
	size_t i;
	bool any = false;

	for (i = 0; i < lat->nunits; i++) {
		const struct lat_unit *u = &lat->units[i];

		if (!counted(u) || (only_part >= 0 &&
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

/* The start events' triggers: keys dev,sector, the time in ts<g>. */
static int start_triggers(struct xvbd_lat *lat, struct lat_gen *g)
{
	char text[LAT_TRIGGER_MAX];
	size_t used, k;
	int err;

	for (k = 0; k < XVBD_LAT_NKINDS; k++) {
		used = 0;
		if (!put(text, sizeof(text), &used, "hist:keys=dev,sector:"
			 "%s%u=common_timestamp:size=%zu:clock=%s if ",
			 kind_var[k], g->bit, lat->ingress_size,
			 XVBD_LAT_CLOCK) ||
		    !units_filter(lat, -1, text, sizeof(text), &used))
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
 * t and the latency, sent to the synthetic event.
 */
static int complete_trigger(struct xvbd_lat *lat, struct lat_gen *g,
			    const struct lat_unit *part, enum xvbd_lat_kind k,
			    enum xvbd_lat_dir d)
{
	unsigned n = lat->next_trigger++;
	char text[LAT_TRIGGER_MAX];
	size_t used = 0;
	bool ok;

	if (part)
		ok = put(text, sizeof(text), &used, "hist:keys=dev,sector:"
			 "v%u=%" PRIu64, n, lat_vk(part, g->bit, k, d));
	/*
	 * An expression takes its type from its first operand, and the
	 * synthetic event's field is u64: a constant first, never dev (a
	 * dev_t).  Kernels differ in what they take: lat->style says which
	 * spelling this one took (lat_trace.c tries them in turn).
	 */
	else if (lat->style & LAT_STYLE_VK_CONST_LAST)
		ok = put(text, sizeof(text), &used, "hist:keys=dev,sector:"
			 "v%u=%u+dev*%u", n, vk_sub(g->bit, k, d), LAT_VK_SUB);
	else
		ok = put(text, sizeof(text), &used, "hist:keys=dev,sector:"
			 "v%u=%u*dev+%u", n, LAT_VK_SUB, vk_sub(g->bit, k, d));
	ok = ok && put(text, sizeof(text), &used,
		       ":l%u=common_timestamp-$%s%u:n%u=common_timestamp",
		       n, kind_var[k], g->bit, n);
	ok = ok && put(text, sizeof(text), &used,
		       ":size=%zu:clock=%s:onmatch(block.%s).trace(%s,$v%u,"
		       "$n%u,$l%u) if (",
		       lat->ingress_size, XVBD_LAT_CLOCK, kind_event[k],
		       lat->synth, n, n, n);
	if (part)
		ok = ok && unit_filter(part, text, sizeof(text), &used);
	else
		ok = ok && units_filter(lat, 0, text, sizeof(text), &used);
	ok = ok && put(text, sizeof(text), &used, ") && %s", dir_filter[d]);
	if (!ok)
		return -E2BIG;
	return add_cmd(g, "block_rq_complete", text);
}

int lat_spec_gen(struct xvbd_lat *lat, struct lat_gen *g)
{
	bool whole = false;
	size_t i;
	int k, d, err;

	for (i = 0; i < lat->nunits; i++)
		if (counted(&lat->units[i]) && !lat->units[i].partition)
			whole = true;
	err = start_triggers(lat, g);
	for (k = 0; !err && k < XVBD_LAT_NKINDS; k++) {
		for (d = 0; !err && d < XVBD_LAT_NDIRS; d++) {
			if (whole)
				err = complete_trigger(lat, g, NULL, k, d);
			for (i = 0; !err && i < lat->nunits; i++)
				if (counted(&lat->units[i]) &&
				    lat->units[i].partition)
					err = complete_trigger(lat, g,
							       &lat->units[i],
							       k, d);
		}
	}
	return err;
}
