/*
 * test_lat_trace.c - the latency tracker's pure parts: the hist
 * triggers' texts, the ring buffer's pages and the synthetic event's
 * format, and the counting of its records into each interval's
 * histograms (the slot of a record's own time, the slot under way held
 * for later, the generation that answers for a slot, lost records, late
 * records and a reader too far behind said).  The kernel's side is the
 * lab's (tests/lab/t/88-latency.sh).
 */
#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../src/dom0/lat_trace_impl.h"

#define S	UINT64_C(1000000000)	/* slot: 1 s */
#define KDEV	((UINT32_C(254) << 20) | 16)
/* just past the reader's slack after a slot end */
#define GRACE	(LAT_READ_GRACE_NS(S) + UINT64_C(1000000))

static struct xvbd_lat *fake_tracker(void)
{
	struct xvbd_lat *lat = calloc(1, sizeof(*lat));
	struct lat_unit *u;

	assert_non_null(lat);
	lat->slot_ns = S;
	lat->ingress_size = 16384;
	snprintf(lat->synth, sizeof(lat->synth), "xvbd_42");
	lat->units = calloc(4, sizeof(*lat->units));
	assert_non_null(lat->units);
	lat->capunits = 4;
	lat->nunits = 2;
	/* A whole disk 254:16 and a partition of another disk. */
	u = &lat->units[0];
	u->major = 254;
	u->minor = 16;
	u->kdev = KDEV;
	u->wanted = u->live = u->queued = true;
	u->live_from_slot = 10;
	u = &lat->units[1];
	u->major = 254;
	u->minor = 33;
	u->kdev = (UINT32_C(254) << 20) | 32;
	u->partition = true;
	u->part_id = 3;
	u->first_sector = 2048;
	u->end_sector = 1050624;
	u->wanted = u->live = u->queued = true;
	u->live_from_slot = 10;
	lat->gen[0].installed = true;
	lat->gen[0].bit = 0;
	lat->gen[0].first_slot = 10;
	lat->gen[0].last_slot = UINT64_MAX;
	lat->started = true;
	lat->done_slot = 9;
	return lat;
}

static void free_tracker(struct xvbd_lat *lat)
{
	size_t i;

	lat_units_free(lat);
	for (i = 0; i < 2; i++)
		free(lat->gen[i].cmds);
	free(lat);
}

static uint64_t vk_of(struct xvbd_lat *lat, size_t unit, unsigned gen,
		      enum xvbd_lat_kind k)
{
	return lat_vk(&lat->units[unit], gen, k);
}

static void results_free(struct xvbd_lat_result *r)
{
	size_t k, d;

	for (k = 0; k < XVBD_LAT_NKINDS; k++)
		for (d = 0; d < XVBD_LAT_NDIRS; d++)
			xvbd_lathist_free(&r->h[k][d]);
}

/* ---- ring buffer pages, as 6.1 writes them on x86-64 ---- */

#define ID	1717
#define PAGE	4096

struct page {
	unsigned char b[PAGE];
	size_t used;		/* from the start of the page */
};

static void page_init(struct page *p)
{
	memset(p, 0, sizeof(*p));
	p->used = 16;
}

static void put32(struct page *p, uint32_t v)
{
	memcpy(p->b + p->used, &v, 4);
	p->used += 4;
}

/* The synthetic event's record: common fields, vk, t, lat, rwbs. */
static void record_rw(struct page *p, uint16_t id, uint64_t vk, uint64_t t,
		      uint64_t lat, bool long_form, const char *rwbs)
{
	unsigned char d[40] = { 0 };

	memcpy(d, &id, 2);
	memcpy(d + 8, &vk, 8);
	memcpy(d + 16, &t, 8);
	memcpy(d + 24, &lat, 8);
	memcpy(d + 32, rwbs, strnlen(rwbs, 8));
	if (long_form) {	/* type_len 0: a length word first */
		put32(p, 0 | (5u << 5));
		put32(p, 4 + sizeof(d));
	} else {
		put32(p, (sizeof(d) / 4) | (7u << 5));
	}
	memcpy(p->b + p->used, d, sizeof(d));
	p->used += sizeof(d);
}

static void record(struct page *p, uint16_t id, uint64_t vk, uint64_t t,
		   uint64_t lat, bool long_form)
{
	record_rw(p, id, vk, t, lat, long_form, "RS");
}

static void page_done(struct page *p, uint64_t flags)
{
	uint64_t commit = (p->used - 16) | flags;

	memcpy(p->b + 8, &commit, 8);
}

struct seen {
	size_t n;
	uint64_t vk[8], t[8], lat[8];
	enum xvbd_lat_dir dir[8];
};

static const struct lat_ring_fmt fmt = {
	.id = ID, .off_vk = 8, .off_t = 16, .off_lat = 24, .off_rwbs = 32,
	.rwbs_len = 8, .min_len = 40,
};

static void on_data(void *arg, const unsigned char *data, size_t n)
{
	struct seen *s = arg;
	const unsigned char *rwbs;

	if (s->n < 8 && lat_ring_event(&fmt, data, n, &s->vk[s->n],
				       &s->t[s->n], &s->lat[s->n], &rwbs)) {
		s->dir[s->n] = lat_rwbs_dir(rwbs, fmt.rwbs_len);
		s->n++;
	}
}

/* Records in both forms, time events between, another event's record
 * skipped, padding ending the page; lost records said; bad pages. */
static void test_ring_page(void **state)
{
	struct page p;
	struct seen s = { 0 };
	bool missed = false;

	(void)state;
	page_init(&p);
	record(&p, ID, 11, 10 * S + 5, 100352, false);
	put32(&p, 30 | (1u << 5));	/* a time extension: 8 bytes */
	put32(&p, 12345);
	record_rw(&p, ID, 12, 10 * S + 6, 200000, true, "FWFS");
	record(&p, 99, 13, 1, 1, false);	/* another event */
	put32(&p, 31);			/* an absolute stamp: 8 bytes */
	put32(&p, 0);
	record(&p, ID, 14, 11 * S, 7, false);
	page_done(&p, 0);
	/* past the commit: the rest of the page, not read */
	record(&p, ID, 15, 1, 1, false);
	assert_int_equal(lat_ring_page(p.b, PAGE, on_data, &s, &missed), 0);
	assert_false(missed);
	assert_int_equal(s.n, 3);
	assert_true(s.vk[0] == 11 && s.t[0] == 10 * S + 5 &&
		    s.lat[0] == 100352);
	assert_true(s.vk[1] == 12 && s.lat[1] == 200000);
	assert_true(s.dir[0] == XVBD_LAT_READ && s.dir[1] == XVBD_LAT_WRITE);
	assert_int_equal(lat_rwbs_dir((const unsigned char *)"WS", 2),
			 XVBD_LAT_WRITE);
	assert_int_equal(lat_rwbs_dir((const unsigned char *)"FN\0\0", 4),
			 XVBD_LAT_NDIRS);
	assert_int_equal(lat_rwbs_dir((const unsigned char *)"D", 1),
			 XVBD_LAT_NDIRS);
	assert_int_equal(lat_rwbs_dir((const unsigned char *)"F", 1),
			 XVBD_LAT_NDIRS);
	assert_true(s.vk[2] == 14 && s.lat[2] == 7);
	/* padding with a zero delta: the page ends there */
	page_init(&p);
	record(&p, ID, 21, 1, 1, false);
	put32(&p, 29);
	record(&p, ID, 22, 1, 1, false);
	page_done(&p, 0);
	s.n = 0;
	assert_int_equal(lat_ring_page(p.b, PAGE, on_data, &s, &missed), 0);
	assert_int_equal(s.n, 1);
	/* the kernel's mark of records lost before the page */
	page_done(&p, UINT64_C(1) << 31);
	assert_int_equal(lat_ring_page(p.b, PAGE, on_data, &s, &missed), 0);
	assert_true(missed);
	/* a commit beyond what was read; a length word below its own
	 * size; a record running past the commit */
	page_init(&p);
	record(&p, ID, 1, 1, 1, false);
	page_done(&p, 0);
	assert_int_equal(lat_ring_page(p.b, 40, on_data, &s, &missed),
			 -EPROTO);
	assert_int_equal(lat_ring_page(p.b, 8, on_data, &s, &missed),
			 -EPROTO);
	page_init(&p);
	put32(&p, 0);
	put32(&p, 2);
	page_done(&p, 0);
	assert_int_equal(lat_ring_page(p.b, PAGE, on_data, &s, &missed),
			 -EPROTO);
	page_init(&p);
	put32(&p, 28);
	page_done(&p, 0);
	assert_int_equal(lat_ring_page(p.b, PAGE, on_data, &s, &missed),
			 -EPROTO);
}

/* The synthetic event's format file and the page header's. */
static void test_ring_format(void **state)
{
	static const char text[] =
		"name: xvbd_42\nID: 1717\nformat:\n"
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\t"
		"signed:0;\n"
		"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
		"\tfield:u64 vk;\toffset:8;\tsize:8;\tsigned:0;\n"
		"\tfield:u64 t;\toffset:16;\tsize:8;\tsigned:0;\n"
		"\tfield:u64 lat;\toffset:24;\tsize:8;\tsigned:0;\n"
		"\tfield:char rwbs[];\toffset:32;\tsize:8;\tsigned:1;\n\n"
		"print fmt: \"vk=%llu, t=%llu, lat=%llu\"\n";
	static const char header[] =
		"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
		"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
		"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
		"\tfield: char data;\toffset:16;\tsize:4080;\tsigned:1;\n";
	struct lat_ring_fmt f;

	(void)state;
	assert_int_equal(lat_ring_format(text, &f), 0);
	assert_int_equal(f.id, 1717);
	assert_true(f.off_vk == 8 && f.off_t == 16 && f.off_lat == 24);
	assert_true(f.off_rwbs == 32 && f.rwbs_len == 8);
	assert_int_equal(f.min_len, 40);
	assert_int_equal(lat_ring_format("name: x\nID: 5\nformat:\n", &f),
			 -EPROTO);
	assert_int_equal(lat_ring_format("name: x\nformat:\n", &f), -EPROTO);
	assert_int_equal(lat_ring_header_ok(header), 0);
	assert_int_equal(lat_ring_header_ok("\tfield: local_t commit;\t"
					    "offset:8;\tsize:4;\n"), -EPROTO);
}

/*
 * Slot 10: 3 reads of the disk and 1 long one, exact sum and maximum;
 * slot 11, under way at the read, held until it has ended.
 */
static void test_slot_counts(void **state)
{
	struct xvbd_lat *lat = fake_tracker();
	uint64_t rd = vk_of(lat, 0, 0, XVBD_LAT_D2C);
	struct xvbd_lat_result r;
	struct xvbd_lathist *h = &r.h[XVBD_LAT_D2C][XVBD_LAT_READ];

	(void)state;
	memset(&r, 0, sizeof(r));
	lat_count(lat, rd, XVBD_LAT_READ, 10 * S + 1, 100352);
	lat_count(lat, rd, XVBD_LAT_READ, 10 * S + 2, 100360);
	lat_count(lat, rd, XVBD_LAT_READ, 10 * S + 3, 100400);
	lat_count(lat, rd, XVBD_LAT_READ, 11 * S - 1, 201000);
	lat_count(lat, rd, XVBD_LAT_READ, 11 * S, 100400);		/* slot 11 */
	lat_close_slots(lat, 11 * S + GRACE);
	assert_int_equal(lat->done_slot, 10);
	assert_int_equal(xvbd_lat_take(lat, 254, 16, &r), XVBD_LAT_OK);
	assert_int_equal(h->count, 4);
	assert_int_equal(h->sum_ns, 100352 + 100360 + 100400 + 201000);
	assert_int_equal(h->max_ns, 201000);
	assert_int_equal(r.h[XVBD_LAT_D2C][XVBD_LAT_WRITE].count, 0);
	/* Not yet due: nothing moves. */
	lat_close_slots(lat, 12 * S);
	assert_int_equal(lat->done_slot, 10);
	/* Slot 11 once it ended: its one request and its maximum. */
	lat_close_slots(lat, 12 * S + GRACE);
	xvbd_lathist_free(h);
	assert_int_equal(xvbd_lat_take(lat, 254, 16, &r), XVBD_LAT_OK);
	assert_int_equal(h->count, 1);
	assert_int_equal(h->max_ns, 100400);
	xvbd_lathist_free(h);
	/* Nothing new: an empty interval; the partition's write i2c. */
	lat_count(lat, vk_of(lat, 1, 0, XVBD_LAT_I2C), XVBD_LAT_WRITE,
		  12 * S + 7, 5000);
	lat_close_slots(lat, 13 * S + GRACE);
	assert_int_equal(xvbd_lat_take(lat, 254, 16, &r), XVBD_LAT_OK);
	assert_int_equal(h->count, 0);
	assert_int_equal(xvbd_lat_take(lat, 254, 33, &r), XVBD_LAT_OK);
	assert_int_equal(r.h[XVBD_LAT_I2C][XVBD_LAT_WRITE].count, 1);
	assert_int_equal(lat->completions[0], 6);
	results_free(&r);
	free_tracker(lat);
}

/*
 * A new generation answers from slot 12: in slot 12 both pair the same
 * requests, and only the new one's are counted; the old one's slot 11
 * is still its own.
 */
static void test_handover(void **state)
{
	struct xvbd_lat *lat = fake_tracker();
	uint64_t old = vk_of(lat, 0, 0, XVBD_LAT_D2C);
	uint64_t new = vk_of(lat, 0, 1, XVBD_LAT_D2C);
	struct xvbd_lat_result r;

	(void)state;
	memset(&r, 0, sizeof(r));
	lat->gen[0].last_slot = 11;
	lat->gen[1].installed = true;
	lat->gen[1].bit = 1;
	lat->gen[1].first_slot = 12;
	lat->gen[1].last_slot = UINT64_MAX;
	lat->done_slot = 10;
	lat_count(lat, old, XVBD_LAT_READ, 11 * S + 1, 100352);
	lat_count(lat, old, XVBD_LAT_READ, 12 * S + 1, 100352);
	lat_count(lat, new, XVBD_LAT_READ, 12 * S + 1, 100352);
	lat_count(lat, new, XVBD_LAT_READ, 12 * S + 2, 100352);
	lat_close_slots(lat, 13 * S + GRACE);
	assert_int_equal(xvbd_lat_take(lat, 254, 16, &r), XVBD_LAT_OK);
	assert_int_equal(r.h[XVBD_LAT_D2C][XVBD_LAT_READ].count, 1 + 2);
	assert_int_equal(lat->completions[0], 2);
	assert_int_equal(lat->completions[1], 2);
	results_free(&r);
	free_tracker(lat);
}

/* Lost records, a late record, a reader too far behind, a negative
 * difference: each said, and never a latency. */
static void test_incomplete(void **state)
{
	struct xvbd_lat *lat = fake_tracker();
	uint64_t rd = vk_of(lat, 0, 0, XVBD_LAT_D2C);
	struct xvbd_lat_result r;
	uint64_t k;

	(void)state;
	memset(&r, 0, sizeof(r));
	lat_count(lat, rd, XVBD_LAT_READ, 10 * S + 1, 100352);
	lat->lost = true;
	lat_close_slots(lat, 11 * S + GRACE);
	assert_int_equal(xvbd_lat_take(lat, 254, 16, &r),
			 XVBD_LAT_INCOMPLETE);
	assert_non_null(strstr(r.why, "lost records"));
	assert_int_equal(r.h[XVBD_LAT_D2C][XVBD_LAT_READ].count, 1);
	results_free(&r);
	/* The next interval whole again. */
	lat_close_slots(lat, 12 * S + GRACE);
	assert_int_equal(xvbd_lat_take(lat, 254, 16, &r), XVBD_LAT_OK);
	/* A record of slot 11, read after slot 11 was: late. */
	lat_count(lat, rd, XVBD_LAT_READ, 11 * S + 5, 100352);
	lat_close_slots(lat, 13 * S + GRACE);
	assert_int_equal(xvbd_lat_take(lat, 254, 16, &r),
			 XVBD_LAT_INCOMPLETE);
	assert_non_null(strstr(r.why, "after its interval was read"));
	assert_int_equal(r.h[XVBD_LAT_D2C][XVBD_LAT_READ].count, 0);
	/* Records of more slots than are held before a read. */
	for (k = 13; k < 13 + LAT_HOLD_SLOTS + 1; k++)
		lat_count(lat, rd, XVBD_LAT_READ, k * S + 1, 100352);
	lat_close_slots(lat, (14 + LAT_HOLD_SLOTS) * S + GRACE);
	assert_int_equal(xvbd_lat_take(lat, 254, 16, &r),
			 XVBD_LAT_INCOMPLETE);
	assert_non_null(strstr(r.why, "fell behind"));
	assert_int_equal(r.h[XVBD_LAT_D2C][XVBD_LAT_READ].count,
			 LAT_HOLD_SLOTS);
	results_free(&r);
	/* A completion before its issue on the clock: backwards. */
	lat_count(lat, rd, XVBD_LAT_READ, (14 + LAT_HOLD_SLOTS) * S + 1,
		  (uint64_t)-5000);
	lat_close_slots(lat, (15 + LAT_HOLD_SLOTS) * S + GRACE);
	assert_int_equal(xvbd_lat_take(lat, 254, 16, &r), XVBD_LAT_OK);
	assert_int_equal(r.backwards, 1);
	assert_int_equal(r.h[XVBD_LAT_D2C][XVBD_LAT_READ].count, 0);
	/* Not a device of the tracker. */
	assert_int_equal(xvbd_lat_take(lat, 8, 0, &r), XVBD_LAT_NOT_TRACKED);
	free_tracker(lat);
}

/* The buffers drained through their descriptors: two CPUs, one with
 * two pages, one empty (EAGAIN). */
static void test_drain(void **state)
{
	struct xvbd_lat *lat = fake_tracker();
	uint64_t rd = vk_of(lat, 0, 0, XVBD_LAT_D2C);
	int a[2], b[2], fds[2];
	struct xvbd_lat_result r;
	struct page p;

	(void)state;
	memset(&r, 0, sizeof(r));
	assert_int_equal(pipe2(a, O_NONBLOCK), 0);
	assert_int_equal(pipe2(b, O_NONBLOCK), 0);
	lat->fmt = fmt;
	lat->page_size = PAGE;
	lat->page = malloc(PAGE);
	assert_non_null(lat->page);
	fds[0] = a[0];
	fds[1] = b[0];
	lat->raw_fds = fds;
	lat->nraw = 2;
	page_init(&p);
	record(&p, ID, rd, 10 * S + 1, 3000, false);
	record(&p, ID, rd, 10 * S + 2, 4000, false);
	page_done(&p, 0);
	assert_int_equal(write(a[1], p.b, PAGE), PAGE);
	page_init(&p);
	record(&p, ID, rd, 11 * S + 2, 9000, true);
	record_rw(&p, ID, rd, 11 * S + 3, 7000, false, "WS");
	record_rw(&p, ID, rd, 11 * S + 4, 7000, false, "FN");	/* no data */
	page_done(&p, 0);
	assert_int_equal(write(a[1], p.b, PAGE), PAGE);
	assert_int_equal(xvbd_lat_read(lat, 11 * S + GRACE), 0);
	assert_int_equal(xvbd_lat_take(lat, 254, 16, &r), XVBD_LAT_OK);
	assert_int_equal(r.h[XVBD_LAT_D2C][XVBD_LAT_READ].count, 2);
	assert_int_equal(r.h[XVBD_LAT_D2C][XVBD_LAT_READ].max_ns, 4000);
	results_free(&r);
	assert_int_equal(xvbd_lat_read(lat, 12 * S + GRACE), 0);
	assert_int_equal(xvbd_lat_take(lat, 254, 16, &r), XVBD_LAT_OK);
	assert_int_equal(r.h[XVBD_LAT_D2C][XVBD_LAT_READ].count, 1);
	assert_int_equal(r.h[XVBD_LAT_D2C][XVBD_LAT_WRITE].count, 1);
	results_free(&r);
	/* A page that is not one: the read fails, the interval is not
	 * whole. */
	memset(p.b, 0xff, PAGE);
	assert_int_equal(write(b[1], p.b, PAGE), PAGE);
	assert_int_equal(xvbd_lat_read(lat, 13 * S + GRACE), -EPROTO);
	assert_int_equal(xvbd_lat_take(lat, 254, 16, &r),
			 XVBD_LAT_INCOMPLETE);
	lat->raw_fds = NULL;
	lat->nraw = 0;
	free(lat->page);
	close(a[0]);
	close(a[1]);
	close(b[0]);
	close(b[1]);
	free_tracker(lat);
}

/*
 * A device that joins a running tracker (a disk hot-attached after the
 * session began) is counted from the slot after: read before that slot
 * has ended, its first take is incomplete; a baseline taken once it has
 * (xvbd_lat_whole_from_ns) leaves every later take complete.
 */
static void test_joined_late(void **state)
{
	struct xvbd_lat *lat = fake_tracker();
	struct xvbd_lat_result r;

	(void)state;
	memset(&r, 0, sizeof(r));
	/* the slot's start and the reader's slack (below GRACE) */
	assert_in_range(xvbd_lat_whole_from_ns(lat), 10 * S, 10 * S + GRACE);
	lat_close_slots(lat, 12 * S + GRACE);		/* done: slot 11 */
	assert_int_equal(xvbd_lat_take(lat, 254, 33, &r), XVBD_LAT_OK);
	/* It joins during slot 12: counted from slot 13. */
	lat->units[1].live_from_slot = 13;
	assert_in_range(xvbd_lat_whole_from_ns(lat), 13 * S, 13 * S + GRACE);
	/* A baseline now, the next sample after slot 13: not whole. */
	lat_close_slots(lat, 14 * S + GRACE);
	assert_int_equal(xvbd_lat_take(lat, 254, 33, &r),
			 XVBD_LAT_INCOMPLETE);
	/* Again, with the baseline at whole_from: complete after it. */
	lat->units[1].live_from_slot = 15;
	lat_close_slots(lat, xvbd_lat_whole_from_ns(lat));	/* done: 14 */
	xvbd_lat_take(lat, 254, 33, &r);
	lat_close_slots(lat, 16 * S + GRACE);
	assert_int_equal(xvbd_lat_take(lat, 254, 33, &r), XVBD_LAT_OK);
	results_free(&r);
	free_tracker(lat);
}

/* vk round trip for whole devices and partitions. */
static void test_vk(void **state)
{
	struct xvbd_lat *lat = fake_tracker();
	enum xvbd_lat_kind k;
	unsigned gen;

	(void)state;
	assert_true(vk_of(lat, 0, 1, XVBD_LAT_I2C) ==
		    (uint64_t)KDEV * 4 + 3);
	assert_ptr_equal(lat_vk_unit(lat, (uint64_t)KDEV * 4 + 2, &gen, &k),
			 &lat->units[0]);
	assert_true(gen == 1 && k == XVBD_LAT_D2C);
	assert_ptr_equal(lat_vk_unit(lat, LAT_PART_BASE + 3 * 4 + 1, &gen,
				     &k), &lat->units[1]);
	assert_true(gen == 0 && k == XVBD_LAT_I2C);
	assert_null(lat_vk_unit(lat, LAT_PART_BASE + 4 * 4, &gen, &k));
	free_tracker(lat);
}

/* The triggers' texts: what the kernel is told. */
static void test_specs(void **state)
{
	struct xvbd_lat *lat = fake_tracker();
	struct lat_gen g = { .bit = 1 };
	size_t i, ncomplete = 0;

	(void)state;
	assert_int_equal(lat_spec_gen(lat, &g), 0);
	/* issue, insert; 2 kinds x (whole + 1 partition) */
	assert_int_equal(g.ncmds, 2 + 2 * 2);
	assert_non_null(strstr(g.cmds[0], "block_rq_issue\thist:keys=dev,"
			       "sector:ts1=common_timestamp:size=16384:"
			       "clock=mono if dev == 266338320 || (dev == "
			       "266338336 && sector >= 2048 && sector < "
			       "1050624)"));
	assert_non_null(strstr(g.cmds[1], "block_rq_insert\t"));
	for (i = 2; i < g.ncmds; i++) {
		assert_non_null(strstr(g.cmds[i], "block_rq_complete\t"));
		assert_non_null(strstr(g.cmds[i], ":clock=mono:"));
		assert_non_null(strstr(g.cmds[i], ").trace(xvbd_42,$v"));
		assert_non_null(strstr(g.cmds[i], ",rwbs) if ("));
		/* reads and writes, nothing else, in one trigger */
		assert_non_null(strstr(g.cmds[i], ") && (rwbs ~ \"R*\" || "
				       "rwbs ~ \"W*\" || rwbs ~ \"FW*\")"));
		if (strstr(g.cmds[i], "=4*dev+"))
			assert_null(strstr(g.cmds[i], "sector >="));
		else
			assert_non_null(strstr(g.cmds[i], "sector >= 2048"));
		ncomplete++;
	}
	assert_int_equal(ncomplete, 4);
	/* The first: the whole disk's d2c of generation 1, its device,
	 * completion time, latency and rwbs sent on. */
	assert_non_null(strstr(g.cmds[2], ":v0=4*dev+2:"));
	assert_non_null(strstr(g.cmds[2], ":l0=common_timestamp-$ts1:"
			       "n0=common_timestamp:"));
	assert_non_null(strstr(g.cmds[2], ".trace(xvbd_42,$v0,$n0,$l0,rwbs)"));
	assert_non_null(strstr(g.cmds[2], "onmatch(block.block_rq_issue)"));
	assert_non_null(strstr(g.cmds[4], "onmatch(block.block_rq_insert)"));
	free(g.cmds);
	/* The other spellings, for kernels that refuse the first. */
	memset(&g, 0, sizeof(g));
	lat->style = LAT_STYLE_VK_CONST_LAST;
	assert_int_equal(lat_spec_gen(lat, &g), 0);
	assert_non_null(strstr(g.cmds[2], "=0+dev*4:"));
	free(g.cmds);
	lat->style = 0;
	/* No scheduler on the partition's disk: its i2c not timed; on
	 * neither: no insert trigger at all. */
	memset(&g, 0, sizeof(g));
	lat->units[1].queued = false;
	assert_int_equal(lat_spec_gen(lat, &g), 0);
	assert_int_equal(g.ncmds, 2 + 2 + 1);
	assert_null(strstr(g.cmds[1], "sector >="));
	free(g.cmds);
	memset(&g, 0, sizeof(g));
	lat->units[0].queued = false;
	assert_int_equal(lat_spec_gen(lat, &g), 0);
	assert_int_equal(g.ncmds, 1 + 2);
	for (i = 0; i < g.ncmds; i++)
		assert_null(strstr(g.cmds[i], "insert"));
	free(g.cmds);
	lat->units[0].queued = lat->units[1].queued = true;
	/* Too many devices for one trigger's text. */
	memset(&g, 0, sizeof(g));
	lat->units = realloc(lat->units, 300 * sizeof(*lat->units));
	assert_non_null(lat->units);
	for (i = 2; i < 300; i++) {
		lat->units[i] = lat->units[0];
		lat->units[i].kdev = KDEV + (uint32_t)i;
	}
	lat->nunits = 300;
	assert_int_equal(lat_spec_gen(lat, &g), -E2BIG);
	free(g.cmds);
	free_tracker(lat);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ring_page),
		cmocka_unit_test(test_ring_format),
		cmocka_unit_test(test_slot_counts),
		cmocka_unit_test(test_handover),
		cmocka_unit_test(test_incomplete),
		cmocka_unit_test(test_drain),
		cmocka_unit_test(test_joined_late),
		cmocka_unit_test(test_vk),
		cmocka_unit_test(test_specs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
