/*
 * lat_trace_ring.c - the kernel's ring buffer pages as trace_pipe_raw
 * gives them, and the block request events' places in them.  Pure: unit
 * tested with pages made by hand.
 *
 * The layout (kernel/trace/ring_buffer.c; events/header_page states the
 * header): a page is a u64 time stamp, a commit word (the bytes of
 * events that follow; its bit 31 says events were lost before this page,
 * bit 30 that their count is stored after them) and the events.  Each
 * event starts with a u32: type_len in bits 0-4, a time delta above.
 * type_len 1..28: the data follow, type_len x 4 bytes; 0: a u32 length
 * (counting itself) and then the data; 29: padding (with a zero delta:
 * the rest of the page; else a discarded event, its length as type 0's);
 * 30: a time extension (the delta's upper bits in the next u32), 31: an
 * absolute stamp, 8 bytes in all.  An event's time is the page's plus
 * the deltas of the data events and extensions up to it, as the kernel's
 * own reader counts them (rb_update_read_stamp): padding adds nothing.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lat_trace_impl.h"

#define RB_MISSED_EVENTS	(UINT64_C(1) << 31)
#define RB_MISSED_STORED	(UINT64_C(1) << 30)
#define RB_COMMIT_FLAGS		(RB_MISSED_EVENTS | RB_MISSED_STORED)
#define RB_TYPE_DATA_MAX	28
#define RB_TYPE_PADDING		29
#define RB_TYPE_TIME_EXTEND	30
#define RB_TYPE_TIME_STAMP	31
#define RB_EVENT_HDR		4u
#define RB_TIME_EVENT_LEN	8u
#define RB_TS_SHIFT		27
/* An absolute stamp's bits; the page's time gives the ones above. */
#define RB_ABS_BITS		59
/* The header every 64-bit kernel writes (events/header_page). */
#define RB_PAGE_COMMIT_OFF	8u
#define RB_PAGE_DATA_OFF	16u

static uint32_t get32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static uint64_t get64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

int lat_ring_header_ok(const char *header_page)
{
	/* commit: a 64-bit local_t at 8; data from 16. */
	if (!strstr(header_page, "commit;\toffset:8;\tsize:8;") ||
	    !strstr(header_page, "data;\toffset:16;"))
		return -EPROTO;
	return 0;
}

int lat_ring_page(const unsigned char *page, size_t len,
		  void (*on_data)(void *arg, uint64_t ts,
				  const unsigned char *data, size_t n),
		  void *arg, bool *missed)
{
	uint64_t commit, ts;
	size_t end, off;

	if (len < RB_PAGE_DATA_OFF)
		return -EPROTO;
	ts = get64(page);
	commit = get64(page + RB_PAGE_COMMIT_OFF);
	if (commit & RB_COMMIT_FLAGS)
		*missed = true;
	commit &= ~RB_COMMIT_FLAGS;
	if (commit > len - RB_PAGE_DATA_OFF)
		return -EPROTO;
	end = RB_PAGE_DATA_OFF + (size_t)commit;
	for (off = RB_PAGE_DATA_OFF; off + RB_EVENT_HDR <= end;) {
		uint32_t h = get32(page + off);
		unsigned type_len = h & 0x1f;
		uint64_t delta = h >> 5, hi;
		size_t data, n;

		if (type_len >= 1 && type_len <= RB_TYPE_DATA_MAX) {
			data = off + RB_EVENT_HDR;
			n = (size_t)type_len * 4;
		} else if (type_len == 0 || type_len == RB_TYPE_PADDING) {
			if (type_len == RB_TYPE_PADDING && !delta)
				break;	/* the rest of the page */
			if (off + 2 * RB_EVENT_HDR > end)
				return -EPROTO;
			n = get32(page + off + RB_EVENT_HDR);
			if (n < RB_EVENT_HDR)
				return -EPROTO;
			data = off + 2 * RB_EVENT_HDR;
			n -= RB_EVENT_HDR;
		} else {
			if (off + RB_TIME_EVENT_LEN > end)
				return -EPROTO;
			hi = (uint64_t)get32(page + off + RB_EVENT_HDR) <<
			     RB_TS_SHIFT;
			if (type_len == RB_TYPE_TIME_EXTEND) {
				ts += hi + delta;
			} else {
				hi |= delta;
				hi |= ts & ~((UINT64_C(1) << RB_ABS_BITS) - 1);
				if (hi < ts)
					hi += UINT64_C(1) << RB_ABS_BITS;
				ts = hi;
			}
			off += RB_TIME_EVENT_LEN;
			continue;
		}
		if (n > end - data)
			return -EPROTO;
		if (type_len != RB_TYPE_PADDING) {
			ts += delta;
			on_data(arg, ts, page + data, n);
		}
		off = data + ((n + 3) & ~(size_t)3);
	}
	return 0;
}

/*
 * A field's place in a format file: the line that starts with pat
 * ("field:u64 vk;", "field:char rwbs["), its "offset:N;\tsize:M;" after
 * the declaration's ';'.
 */
static int field_at(const char *fmt, const char *pat, size_t *off,
		    size_t *size)
{
	const char *p = strstr(fmt, pat), *semi;
	unsigned o, sz;

	if (!p)
		return -EPROTO;
	semi = strchr(p, ';');
	if (!semi || sscanf(semi + 1, "\toffset:%u;\tsize:%u;", &o, &sz) != 2)
		return -EPROTO;
	*off = o;
	*size = sz;
	return 0;
}

/* A field of the given size at the line that starts with pat. */
static int field_sized(const char *fmt, const char *pat, size_t want,
		       size_t *off)
{
	size_t sz;

	if (field_at(fmt, pat, off, &sz) || sz != want)
		return -EPROTO;
	return 0;
}

int lat_ring_format(const char *fmt, struct lat_ring_fmt *f)
{
	const char *p = strstr(fmt, "\nID: ");
	unsigned id;

	if (!p && !strncmp(fmt, "ID: ", 4))
		p = fmt - 1;
	if (!p || sscanf(p + 5, "%u", &id) != 1 || id > UINT16_MAX)
		return -EPROTO;
	f->id = (uint16_t)id;
	/* dev_t: the kernel's u32; sector_t: u64 on every 64-bit kernel. */
	if (field_sized(fmt, "field:dev_t dev;", 4, &f->off_dev) ||
	    field_sized(fmt, "field:sector_t sector;", 8, &f->off_sector) ||
	    field_at(fmt, "field:char rwbs[", &f->off_rwbs, &f->rwbs_len) ||
	    !f->rwbs_len || f->rwbs_len > 64)
		return -EPROTO;
	f->min_len = f->off_dev + 4;
	if (f->off_sector + 8 > f->min_len)
		f->min_len = f->off_sector + 8;
	if (f->off_rwbs + f->rwbs_len > f->min_len)
		f->min_len = f->off_rwbs + f->rwbs_len;
	return 0;
}

bool lat_ring_event(const struct lat_ring_fmt *f, const unsigned char *data,
		    size_t n, uint32_t *dev, uint64_t *sector,
		    const unsigned char **rwbs)
{
	uint16_t type;

	/* common_type first, as in every event. */
	if (n < f->min_len || n < sizeof(type))
		return false;
	memcpy(&type, data, sizeof(type));
	if (type != f->id)
		return false;
	*dev = get32(data + f->off_dev);
	*sector = get64(data + f->off_sector);
	*rwbs = data + f->off_rwbs;
	return true;
}
