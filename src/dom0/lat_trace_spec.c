/*
 * lat_trace_spec.c - the texts of the latency tracker's event filters
 * (lat_trace_impl.h says what each event is for).  Pure: unit tested.
 *
 * The syntax is the kernel's (Documentation/trace/events.rst, "Event
 * filtering"): "dev == K || (dev == K && sector >= S && sector < E)"
 * and a glob on rwbs.  The kernel drops every other request's record
 * before it is written into the ring buffer.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "lat_trace_impl.h"

static const char *const kind_names[XVBD_LAT_NKINDS] = { "d2c", "i2c" };
static const char *const dir_names[XVBD_LAT_NDIRS] = { "read", "write" };
static const char *const ev_names[LAT_NEVS] = {
	[LAT_EV_INSERT] = "block_rq_insert",
	[LAT_EV_ISSUE] = "block_rq_issue",
	[LAT_EV_COMPLETE] = "block_rq_complete",
};
/*
 * rwbs: the operation's letter, after an 'F' for a preflush: reads and
 * writes (not a flush without data, "FN", nor a discard).  The record
 * carries rwbs itself: the reader tells the direction (lat_rwbs_dir).
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

const char *lat_ev_name(enum lat_ev ev)
{
	return ev < LAT_NEVS ? ev_names[ev] : "?";
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
 * d2c always; i2c where its queue has an I/O scheduler (with "none", a
 * request is inserted only now and then, and its insert-to-completion
 * says nothing of a queue: not timed, and its insertions not traced).
 */
bool lat_counted(const struct lat_unit *u, enum xvbd_lat_kind k)
{
	return u->wanted && !u->unsupported &&
	       (k == XVBD_LAT_D2C || u->queued);
}

int lat_spec_filter(const struct xvbd_lat *lat, enum lat_ev ev, char *buf,
		    size_t len)
{
	/* Insertions matter for i2c only; issues and completions for all. */
	enum xvbd_lat_kind k = ev == LAT_EV_INSERT ? XVBD_LAT_I2C :
			       XVBD_LAT_D2C;
	size_t i, used = 0;
	bool any = false;

	if (!put(buf, len, &used, "("))
		return -E2BIG;
	for (i = 0; i < lat->nunits; i++) {
		const struct lat_unit *u = &lat->units[i];

		if (!lat_counted(u, k))
			continue;
		if ((any && !put(buf, len, &used, " || ")) ||
		    !unit_filter(u, buf, len, &used))
			return -E2BIG;
		any = true;
	}
	if (!any)
		return -ENOENT;
	if (!put(buf, len, &used, ") && %s", rw_filter))
		return -E2BIG;
	return 0;
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
