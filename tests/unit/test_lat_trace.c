/*
 * test_lat_trace.c - the latency tracker's pure parts: the events'
 * filters, the ring buffer's pages (time stamps included) and the block
 * events' formats, the pairing of records of several CPUs into requests
 * in time order, and the counting of requests into each interval's
 * histograms (the slot of a completion's own time, the slot under way
 * held for later, lost, late and out-of-order records and a reader too
 * far behind said).  The kernel's side is the lab's
 * (tests/lab/t/88-latency.sh).
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
#define PDEV	((UINT32_C(254) << 20) | 32)
/* just past the reader's slack after a slot end */
#define GRACE	(LAT_READ_GRACE_NS(S) + UINT64_C(1000000))

static struct xvbd_lat *fake_tracker(void)
{
	struct xvbd_lat *lat = calloc(1, sizeof(*lat));
	struct lat_unit *u;

	assert_non_null(lat);
	lat->slot_ns = S;
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
	u->kdev = PDEV;
	u->partition = true;
	u->first_sector = 2048;
	u->end_sector = 1050624;
	u->wanted = u->live = u->queued = true;
	u->live_from_slot = 10;
	lat->started = true;
	lat->done_slot = 9;
	return lat;
}

static void free_tracker(struct xvbd_lat *lat)
{
	lat_units_free(lat);
	free(lat->recs);
	free(lat->reqs);
	free(lat);
}

static void results_free(struct xvbd_lat_result *r)
{
	size_t k, d;

	for (k = 0; k < XVBD_LAT_NKINDS; k++)
		for (d = 0; d < XVBD_LAT_NDIRS; d++)
			xvbd_lathist_free(&r->h[k][d]);
}

/* ---- ring buffer pages, as 6.1 writes them on x86-64 ---- */

#define ID_INSERT	1101
#define ID_ISSUE	1102
#define ID_COMPLETE	1103
#define PAGE		4096

static const uint16_t ids[LAT_NEVS] = { ID_INSERT, ID_ISSUE, ID_COMPLETE };

struct page {
	unsigned char b[PAGE];
	size_t used;		/* from the start of the page */
};

static void page_init(struct page *p, uint64_t ts)
{
	memset(p, 0, sizeof(*p));
	memcpy(p->b, &ts, 8);
	p->used = 16;
}

static void put32(struct page *p, uint32_t v)
{
	memcpy(p->b + p->used, &v, 4);
	p->used += 4;
}

/*
 * A block request event's record (6.1's layout: dev at 8, sector at 16,
 * rwbs at 32; 40 bytes and more), delta ns after the one before.
 */
static void record_rw(struct page *p, uint16_t id, uint32_t dev,
		      uint64_t sector, uint32_t delta, bool long_form,
		      const char *rwbs)
{
	unsigned char d[44] = { 0 };

	memcpy(d, &id, 2);
	memcpy(d + 8, &dev, 4);
	memcpy(d + 16, &sector, 8);
	memcpy(d + 32, rwbs, strnlen(rwbs, 8));
	if (long_form) {	/* type_len 0: a length word first */
		put32(p, 0 | (delta << 5));
		put32(p, 4 + sizeof(d));
	} else {
		put32(p, (sizeof(d) / 4) | (delta << 5));
	}
	memcpy(p->b + p->used, d, sizeof(d));
	p->used += sizeof(d);
}

static void record(struct page *p, uint16_t id, uint32_t dev,
		   uint64_t sector, uint32_t delta)
{
	record_rw(p, id, dev, sector, delta, false, "RS");
}

static void page_done(struct page *p, uint64_t flags)
{
	uint64_t commit = (p->used - 16) | flags;

	memcpy(p->b + 8, &commit, 8);
}

static struct lat_ring_fmt fmt_of(uint16_t id)
{
	struct lat_ring_fmt f = {
		.id = id, .off_dev = 8, .off_sector = 16, .off_rwbs = 32,
		.rwbs_len = 8, .min_len = 40,
	};

	return f;
}

struct seen {
	size_t n;
	uint64_t ts[8], sector[8];
	uint32_t dev[8];
	enum xvbd_lat_dir dir[8];
};

static void on_data(void *arg, uint64_t ts, const unsigned char *data,
		    size_t n)
{
	struct lat_ring_fmt f = fmt_of(ID_ISSUE);
	struct seen *s = arg;
	const unsigned char *rwbs;

	if (s->n < 8 && lat_ring_event(&f, data, n, &s->dev[s->n],
				       &s->sector[s->n], &rwbs)) {
		s->ts[s->n] = ts;
		s->dir[s->n] = lat_rwbs_dir(rwbs, f.rwbs_len);
		s->n++;
	}
}

/*
 * Records in both forms with their times (the page's, plus each delta,
 * a time extension's too), another event's record skipped, padding
 * ending the page; lost records said; bad pages.
 */
static void test_ring_page(void **state)
{
	struct page p;
	struct seen s = { 0 };
	bool missed = false;

	(void)state;
	page_init(&p, 10 * S);
	record(&p, ID_ISSUE, KDEV, 11, 5);
	put32(&p, 30 | (7u << 5));	/* a time extension: 8 bytes */
	put32(&p, 3);			/* 3 << 27, plus its delta 7 */
	record_rw(&p, ID_ISSUE, KDEV, 12, 1, true, "FWFS");
	record(&p, 99, KDEV, 13, 2);	/* another event: its time counts */
	put32(&p, 29 | (4u << 5));	/* a discarded event: adds nothing */
	put32(&p, 8);
	put32(&p, 0);
	record(&p, ID_ISSUE, KDEV, 14, 3);
	page_done(&p, 0);
	/* past the commit: the rest of the page, not read */
	record(&p, ID_ISSUE, KDEV, 15, 1);
	assert_int_equal(lat_ring_page(p.b, PAGE, on_data, &s, &missed), 0);
	assert_false(missed);
	assert_int_equal(s.n, 3);
	assert_true(s.dev[0] == KDEV && s.sector[0] == 11 &&
		    s.ts[0] == 10 * S + 5);
	assert_true(s.sector[1] == 12 &&
		    s.ts[1] == 10 * S + 5 + (UINT64_C(3) << 27) + 7 + 1);
	assert_true(s.sector[2] == 14 && s.ts[2] == s.ts[1] + 2 + 3);
	assert_true(s.dir[0] == XVBD_LAT_READ && s.dir[1] == XVBD_LAT_WRITE);
	assert_int_equal(lat_rwbs_dir((const unsigned char *)"WS", 2),
			 XVBD_LAT_WRITE);
	assert_int_equal(lat_rwbs_dir((const unsigned char *)"FN\0\0", 4),
			 XVBD_LAT_NDIRS);
	assert_int_equal(lat_rwbs_dir((const unsigned char *)"D", 1),
			 XVBD_LAT_NDIRS);
	assert_int_equal(lat_rwbs_dir((const unsigned char *)"F", 1),
			 XVBD_LAT_NDIRS);
	/* an absolute stamp: the page's upper bits, its own below */
	page_init(&p, 10 * S);
	put32(&p, 31 | (5u << 5));
	put32(&p, 100);
	record(&p, ID_ISSUE, KDEV, 16, 2);
	page_done(&p, 0);
	s.n = 0;
	assert_int_equal(lat_ring_page(p.b, PAGE, on_data, &s, &missed), 0);
	assert_int_equal(s.n, 1);
	assert_true(s.ts[0] == (UINT64_C(100) << 27 | 5) + 2);
	/* padding with a zero delta: the page ends there */
	page_init(&p, 0);
	record(&p, ID_ISSUE, KDEV, 21, 1);
	put32(&p, 29);
	record(&p, ID_ISSUE, KDEV, 22, 1);
	page_done(&p, 0);
	s.n = 0;
	assert_int_equal(lat_ring_page(p.b, PAGE, on_data, &s, &missed), 0);
	assert_int_equal(s.n, 1);
	/* the kernel's mark of records lost before the page */
	page_done(&p, UINT64_C(1) << 31);
	assert_int_equal(lat_ring_page(p.b, PAGE, on_data, &s, &missed), 0);
	assert_true(missed);
	/* a commit beyond what was read; a length word below its own
	 * size; a record or a time event running past the commit */
	page_init(&p, 0);
	record(&p, ID_ISSUE, KDEV, 1, 1);
	page_done(&p, 0);
	assert_int_equal(lat_ring_page(p.b, 40, on_data, &s, &missed),
			 -EPROTO);
	assert_int_equal(lat_ring_page(p.b, 8, on_data, &s, &missed),
			 -EPROTO);
	page_init(&p, 0);
	put32(&p, 0);
	put32(&p, 2);
	page_done(&p, 0);
	assert_int_equal(lat_ring_page(p.b, PAGE, on_data, &s, &missed),
			 -EPROTO);
	page_init(&p, 0);
	put32(&p, 28);
	page_done(&p, 0);
	assert_int_equal(lat_ring_page(p.b, PAGE, on_data, &s, &missed),
			 -EPROTO);
	page_init(&p, 0);
	put32(&p, 30);
	page_done(&p, 0);
	assert_int_equal(lat_ring_page(p.b, PAGE, on_data, &s, &missed),
			 -EPROTO);
}

/* block_rq_complete's format file (6.1) and the page header's. */
static void test_ring_format(void **state)
{
	static const char text[] =
		"name: block_rq_complete\nID: 1103\nformat:\n"
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\t"
		"signed:0;\n"
		"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
		"\tfield:dev_t dev;\toffset:8;\tsize:4;\tsigned:0;\n"
		"\tfield:sector_t sector;\toffset:16;\tsize:8;\tsigned:0;\n"
		"\tfield:unsigned int nr_sector;\toffset:24;\tsize:4;\t"
		"signed:0;\n"
		"\tfield:int error;\toffset:28;\tsize:4;\tsigned:1;\n"
		"\tfield:char rwbs[8];\toffset:32;\tsize:8;\tsigned:1;\n"
		"\tfield:__data_loc char[] cmd;\toffset:40;\tsize:4;\t"
		"signed:1;\n\n"
		"print fmt: \"%d,%d %s (%s) %llu + %u [%d]\"\n";
	static const char header[] =
		"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
		"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
		"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
		"\tfield: char data;\toffset:16;\tsize:4080;\tsigned:1;\n";
	struct lat_ring_fmt f;

	(void)state;
	assert_int_equal(lat_ring_format(text, &f), 0);
	assert_int_equal(f.id, 1103);
	assert_true(f.off_dev == 8 && f.off_sector == 16);
	assert_true(f.off_rwbs == 32 && f.rwbs_len == 8);
	assert_int_equal(f.min_len, 40);
	assert_int_equal(lat_ring_format("name: x\nID: 5\nformat:\n", &f),
			 -EPROTO);
	assert_int_equal(lat_ring_format("name: x\nformat:\n", &f), -EPROTO);
	/* a 32-bit sector_t is not this layout */
	assert_int_equal(lat_ring_format("ID: 5\n\tfield:dev_t dev;\t"
					 "offset:8;\tsize:4;\n\tfield:"
					 "sector_t sector;\toffset:12;\t"
					 "size:4;\n\tfield:char rwbs[8];\t"
					 "offset:16;\tsize:8;\n", &f),
			 -EPROTO);
	assert_int_equal(lat_ring_header_ok(header), 0);
	assert_int_equal(lat_ring_header_ok("\tfield: local_t commit;\t"
					    "offset:8;\tsize:4;\n"), -EPROTO);
}

static struct xvbd_lat_result take(struct xvbd_lat *lat, unsigned minor,
				   enum xvbd_lat_state want)
{
	struct xvbd_lat_result r;

	memset(&r, 0, sizeof(r));
	assert_int_equal(xvbd_lat_take(lat, 254, minor, &r), want);
	return r;
}

/*
 * Slot 10: 3 reads of the disk and 1 long one, exact sum and maximum;
 * slot 11, under way at the read, held until it has ended.
 */
static void test_slot_counts(void **state)
{
	struct xvbd_lat *lat = fake_tracker();
	struct lat_unit *disk = &lat->units[0], *part = &lat->units[1];
	struct xvbd_lat_result r;
	struct xvbd_lathist *h = &r.h[XVBD_LAT_D2C][XVBD_LAT_READ];

	(void)state;
	lat_count(lat, disk, XVBD_LAT_D2C, XVBD_LAT_READ, 10 * S + 1, 100352);
	lat_count(lat, disk, XVBD_LAT_D2C, XVBD_LAT_READ, 10 * S + 2, 100360);
	lat_count(lat, disk, XVBD_LAT_D2C, XVBD_LAT_READ, 10 * S + 3, 100400);
	lat_count(lat, disk, XVBD_LAT_D2C, XVBD_LAT_READ, 11 * S - 1, 201000);
	lat_count(lat, disk, XVBD_LAT_D2C, XVBD_LAT_READ, 11 * S, 100400);
	lat_close_slots(lat, 11 * S + GRACE);
	assert_int_equal(lat->done_slot, 10);
	r = take(lat, 16, XVBD_LAT_OK);
	assert_int_equal(h->count, 4);
	assert_int_equal(h->sum_ns, 100352 + 100360 + 100400 + 201000);
	assert_int_equal(h->max_ns, 201000);
	assert_int_equal(r.h[XVBD_LAT_D2C][XVBD_LAT_WRITE].count, 0);
	results_free(&r);
	/* Not yet due: nothing moves. */
	lat_close_slots(lat, 12 * S);
	assert_int_equal(lat->done_slot, 10);
	/* Slot 11 once it ended: its one request and its maximum. */
	lat_close_slots(lat, 12 * S + GRACE);
	r = take(lat, 16, XVBD_LAT_OK);
	assert_int_equal(h->count, 1);
	assert_int_equal(h->max_ns, 100400);
	results_free(&r);
	/* Nothing new: an empty interval; the partition's write i2c. */
	lat_count(lat, part, XVBD_LAT_I2C, XVBD_LAT_WRITE, 12 * S + 7, 5000);
	lat_close_slots(lat, 13 * S + GRACE);
	r = take(lat, 16, XVBD_LAT_OK);
	assert_int_equal(h->count, 0);
	r = take(lat, 33, XVBD_LAT_OK);
	assert_int_equal(r.h[XVBD_LAT_I2C][XVBD_LAT_WRITE].count, 1);
	results_free(&r);
	free_tracker(lat);
}

static void rec(struct xvbd_lat *lat, enum lat_ev ev, uint32_t dev,
		uint64_t sector, uint64_t ts, enum xvbd_lat_dir dir)
{
	struct lat_rec r = {
		.ts = ts, .sector = sector, .dev = dev, .ev = (uint8_t)ev,
		.dir = (uint8_t)dir,
	};

	lat_add_rec(lat, &r);
}

/*
 * Records of two CPUs read one CPU after the other: each completion is
 * paired with its own request's issue and insertion in time order, the
 * same sector reused in between; a request of the partition counts for
 * it alone, one outside it for neither; a completion without its start
 * is not timed; records younger than the slack wait for the next read.
 */
static void test_pairing(void **state)
{
	struct xvbd_lat *lat = fake_tracker();
	struct xvbd_lat_result r;
	struct xvbd_lathist *d2c = &r.h[XVBD_LAT_D2C][XVBD_LAT_READ];
	struct xvbd_lathist *i2c = &r.h[XVBD_LAT_I2C][XVBD_LAT_READ];
	uint64_t t = 10 * S;

	(void)state;
	/* CPU 0: the starts */
	rec(lat, LAT_EV_INSERT, KDEV, 8, t + 1000, XVBD_LAT_READ);
	rec(lat, LAT_EV_ISSUE, KDEV, 8, t + 3000, XVBD_LAT_READ);
	rec(lat, LAT_EV_ISSUE, KDEV, 8, t + 20000, XVBD_LAT_READ);
	rec(lat, LAT_EV_ISSUE, PDEV, 4096, t + 5000, XVBD_LAT_READ);
	rec(lat, LAT_EV_ISSUE, PDEV, 16, t + 5000, XVBD_LAT_READ);
	rec(lat, LAT_EV_ISSUE, KDEV, 72, t + 5000, XVBD_LAT_READ);
	/* CPU 1: the completions, read after CPU 0's records */
	rec(lat, LAT_EV_COMPLETE, KDEV, 8, t + 10000, XVBD_LAT_READ);
	rec(lat, LAT_EV_COMPLETE, KDEV, 8, t + 27000, XVBD_LAT_READ);
	rec(lat, LAT_EV_COMPLETE, PDEV, 4096, t + 9000, XVBD_LAT_READ);
	rec(lat, LAT_EV_COMPLETE, PDEV, 16, t + 9000, XVBD_LAT_READ);
	rec(lat, LAT_EV_COMPLETE, KDEV, 99, t + 9000, XVBD_LAT_READ);
	/* a request still under way at the read: its issue waits */
	rec(lat, LAT_EV_ISSUE, KDEV, 64, 11 * S - 5000, XVBD_LAT_READ);
	lat_pair_until(lat, 11 * S - 10000 + LAT_READ_GRACE_NS(S));
	assert_int_equal(lat->nrecs, 1);
	assert_int_equal(lat->nreqs, 1);	/* sector 72: not completed */
	rec(lat, LAT_EV_COMPLETE, KDEV, 64, 11 * S - 1000, XVBD_LAT_READ);
	lat_pair_until(lat, 11 * S + GRACE);
	lat_close_slots(lat, 11 * S + GRACE);
	r = take(lat, 16, XVBD_LAT_OK);
	assert_int_equal(d2c->count, 3);
	assert_int_equal(d2c->sum_ns, 7000 + 7000 + 4000);
	/* only the first request was inserted */
	assert_int_equal(i2c->count, 1);
	assert_int_equal(i2c->sum_ns, 9000);
	results_free(&r);
	r = take(lat, 33, XVBD_LAT_OK);
	assert_int_equal(d2c->count, 1);
	assert_int_equal(d2c->max_ns, 4000);
	results_free(&r);
	assert_int_equal(lat->nreqs, 1);
	/* Forgotten once older than the limit. */
	xvbd_lat_read(lat, t + 5000 + LAT_STALE_NS);
	assert_int_equal(lat->nreqs, 1);
	xvbd_lat_read(lat, t + 5000 + LAT_STALE_NS + S);
	assert_int_equal(lat->nreqs, 0);
	free_tracker(lat);
}

/*
 * Thousands of requests in flight at once, completed in another order:
 * the table grows, and removing one never loses another (its probe run
 * moved back); every request timed exactly.
 */
static void test_many_in_flight(void **state)
{
	struct xvbd_lat *lat = fake_tracker();
	struct xvbd_lat_result r;
	uint64_t i, n = 5000, t = 10 * S;

	(void)state;
	for (i = 0; i < n; i++)
		rec(lat, LAT_EV_ISSUE, KDEV, i * 8, t + i, XVBD_LAT_WRITE);
	lat_pair_until(lat, t + n + LAT_READ_GRACE_NS(S));
	assert_int_equal(lat->nreqs, n);
	for (i = 0; i < n; i++) {
		uint64_t j = (i * 7919) % n;	/* a permutation */

		rec(lat, LAT_EV_COMPLETE, KDEV, j * 8, t + n + 1000 + i,
		    XVBD_LAT_WRITE);
	}
	lat_pair_until(lat, 11 * S + GRACE);
	assert_int_equal(lat->nreqs, 0);
	lat_close_slots(lat, 11 * S + GRACE);
	r = take(lat, 16, XVBD_LAT_OK);
	assert_int_equal(r.h[XVBD_LAT_D2C][XVBD_LAT_WRITE].count, n);
	assert_int_equal(r.h[XVBD_LAT_I2C][XVBD_LAT_WRITE].count, 0);
	results_free(&r);
	free_tracker(lat);
	/* More in flight than it keeps: those not kept are said. */
	lat = fake_tracker();
	lat->reqs_max = 1024;
	t = 11 * S;
	for (i = 0; i < 1500; i++)
		rec(lat, LAT_EV_ISSUE, KDEV, i * 8, t + i, XVBD_LAT_READ);
	/* an issue again of one kept: still found when full */
	rec(lat, LAT_EV_ISSUE, KDEV, 0, t + 2000, XVBD_LAT_READ);
	for (i = 0; i < 1500; i++)
		rec(lat, LAT_EV_COMPLETE, KDEV, i * 8, t + 3000 + i,
		    XVBD_LAT_READ);
	lat_pair_until(lat, 12 * S + GRACE);
	assert_int_equal(lat->nreqs, 0);
	lat_close_slots(lat, 12 * S + GRACE);
	r = take(lat, 16, XVBD_LAT_INCOMPLETE);
	assert_non_null(strstr(r.why, "more requests in flight"));
	assert_int_equal(r.h[XVBD_LAT_D2C][XVBD_LAT_READ].count, 1024);
	/* sector 0's start is its second issue's */
	assert_int_equal(r.h[XVBD_LAT_D2C][XVBD_LAT_READ].sum_ns,
			 1000 + 1023 * 3000);
	results_free(&r);
	free_tracker(lat);
}

/* Lost records, a late record, a reader too far behind, a negative
 * difference, a record out of order: each said, never a latency. */
static void test_incomplete(void **state)
{
	struct xvbd_lat *lat = fake_tracker();
	struct lat_unit *disk = &lat->units[0];
	struct xvbd_lat_result r;
	uint64_t k;

	(void)state;
	lat_count(lat, disk, XVBD_LAT_D2C, XVBD_LAT_READ, 10 * S + 1, 100352);
	lat->lost = true;
	lat_close_slots(lat, 11 * S + GRACE);
	r = take(lat, 16, XVBD_LAT_INCOMPLETE);
	assert_non_null(strstr(r.why, "lost records"));
	assert_int_equal(r.h[XVBD_LAT_D2C][XVBD_LAT_READ].count, 1);
	results_free(&r);
	/* The next interval whole again. */
	lat_close_slots(lat, 12 * S + GRACE);
	r = take(lat, 16, XVBD_LAT_OK);
	/* A request of slot 11, counted after slot 11 was read: late. */
	lat_count(lat, disk, XVBD_LAT_D2C, XVBD_LAT_READ, 11 * S + 5, 100352);
	lat_close_slots(lat, 13 * S + GRACE);
	r = take(lat, 16, XVBD_LAT_INCOMPLETE);
	assert_non_null(strstr(r.why, "after its interval was read"));
	assert_int_equal(r.h[XVBD_LAT_D2C][XVBD_LAT_READ].count, 0);
	/* Records of more slots than are held before a read. */
	for (k = 13; k < 13 + LAT_HOLD_SLOTS + 1; k++)
		lat_count(lat, disk, XVBD_LAT_D2C, XVBD_LAT_READ, k * S + 1,
			  100352);
	lat_close_slots(lat, (14 + LAT_HOLD_SLOTS) * S + GRACE);
	r = take(lat, 16, XVBD_LAT_INCOMPLETE);
	assert_non_null(strstr(r.why, "fell behind"));
	assert_int_equal(r.h[XVBD_LAT_D2C][XVBD_LAT_READ].count,
			 LAT_HOLD_SLOTS);
	results_free(&r);
	/* A completion before its issue on the clock: backwards. */
	lat_count(lat, disk, XVBD_LAT_D2C, XVBD_LAT_READ,
		  (14 + LAT_HOLD_SLOTS) * S + 1, (uint64_t)-5000);
	lat_close_slots(lat, (15 + LAT_HOLD_SLOTS) * S + GRACE);
	r = take(lat, 16, XVBD_LAT_OK);
	assert_int_equal(r.backwards, 1);
	assert_int_equal(r.h[XVBD_LAT_D2C][XVBD_LAT_READ].count, 0);
	/* Not a device of the tracker. */
	assert_int_equal(xvbd_lat_take(lat, 8, 0, &r), XVBD_LAT_NOT_TRACKED);
	free_tracker(lat);
}

/*
 * The buffers drained through their descriptors: two CPUs, one with an
 * issue and a write's, the other with the completions and a flush's;
 * a record stamped before what was already paired is said; a page that
 * is not one fails the read.
 */
static void test_drain(void **state)
{
	struct xvbd_lat *lat = fake_tracker();
	int a[2], b[2], fds[2];
	struct xvbd_lat_result r;
	struct page p;
	size_t e;

	(void)state;
	assert_int_equal(pipe2(a, O_NONBLOCK), 0);
	assert_int_equal(pipe2(b, O_NONBLOCK), 0);
	for (e = 0; e < LAT_NEVS; e++)
		lat->fmt[e] = fmt_of(ids[e]);
	lat->page_size = PAGE;
	lat->page = malloc(PAGE);
	assert_non_null(lat->page);
	fds[0] = a[0];
	fds[1] = b[0];
	lat->raw_fds = fds;
	lat->nraw = 2;
	page_init(&p, 10 * S);
	record(&p, ID_ISSUE, KDEV, 8, 1000);
	record_rw(&p, ID_ISSUE, KDEV, 16, 1000, true, "WS");
	page_done(&p, 0);
	assert_int_equal(write(a[1], p.b, PAGE), PAGE);
	page_init(&p, 10 * S);
	record(&p, ID_COMPLETE, KDEV, 8, 4000);
	record_rw(&p, ID_COMPLETE, KDEV, 16, 3000, false, "WS");
	record_rw(&p, ID_COMPLETE, KDEV, 24, 1000, false, "FN");
	page_done(&p, 0);
	assert_int_equal(write(b[1], p.b, PAGE), PAGE);
	assert_int_equal(xvbd_lat_read(lat, 11 * S + GRACE), 0);
	r = take(lat, 16, XVBD_LAT_OK);
	assert_int_equal(r.h[XVBD_LAT_D2C][XVBD_LAT_READ].count, 1);
	assert_int_equal(r.h[XVBD_LAT_D2C][XVBD_LAT_READ].max_ns, 3000);
	assert_int_equal(r.h[XVBD_LAT_D2C][XVBD_LAT_WRITE].count, 1);
	assert_int_equal(r.h[XVBD_LAT_D2C][XVBD_LAT_WRITE].max_ns, 5000);
	results_free(&r);
	/* Stamped in slot 10, read after slot 11 was paired: said. */
	page_init(&p, 10 * S);
	record(&p, ID_ISSUE, KDEV, 32, 9000);
	page_done(&p, 0);
	assert_int_equal(write(a[1], p.b, PAGE), PAGE);
	assert_int_equal(xvbd_lat_read(lat, 12 * S + GRACE), 0);
	r = take(lat, 16, XVBD_LAT_INCOMPLETE);
	assert_non_null(strstr(r.why, "later than the reader waits"));
	/* A page that is not one: the read fails, the interval is not
	 * whole. */
	memset(p.b, 0xff, PAGE);
	assert_int_equal(write(b[1], p.b, PAGE), PAGE);
	assert_int_equal(xvbd_lat_read(lat, 13 * S + GRACE), -EPROTO);
	r = take(lat, 16, XVBD_LAT_INCOMPLETE);
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

/* The events' filters: what the kernel is told to keep. */
static void test_filters(void **state)
{
	struct xvbd_lat *lat = fake_tracker();
	char buf[LAT_FILTER_MAX];
	size_t i;

	(void)state;
	assert_int_equal(lat_spec_filter(lat, LAT_EV_ISSUE, buf, sizeof(buf)),
			 0);
	assert_string_equal(buf, "(dev == 266338320 || (dev == 266338336 && "
			    "sector >= 2048 && sector < 1050624)) && (rwbs ~ "
			    "\"R*\" || rwbs ~ \"W*\" || rwbs ~ \"FW*\")");
	assert_int_equal(lat_spec_filter(lat, LAT_EV_COMPLETE, buf,
					 sizeof(buf)), 0);
	assert_non_null(strstr(buf, "sector >= 2048"));
	/* No scheduler on the partition's disk: its insertions not
	 * traced; on neither: the insert event not wanted. */
	lat->units[1].queued = false;
	assert_int_equal(lat_spec_filter(lat, LAT_EV_INSERT, buf,
					 sizeof(buf)), 0);
	assert_null(strstr(buf, "sector >="));
	lat->units[0].queued = false;
	assert_int_equal(lat_spec_filter(lat, LAT_EV_INSERT, buf,
					 sizeof(buf)), -ENOENT);
	assert_int_equal(lat_spec_filter(lat, LAT_EV_ISSUE, buf, sizeof(buf)),
			 0);
	/* Not wanted: in no filter; none wanted: no event. */
	lat->units[0].wanted = false;
	assert_int_equal(lat_spec_filter(lat, LAT_EV_ISSUE, buf, sizeof(buf)),
			 0);
	assert_null(strstr(buf, "266338320"));
	lat->units[1].wanted = false;
	assert_int_equal(lat_spec_filter(lat, LAT_EV_COMPLETE, buf,
					 sizeof(buf)), -ENOENT);
	lat->units[0].wanted = lat->units[1].wanted = true;
	/* Too many devices for one filter's text. */
	lat->units = realloc(lat->units, 300 * sizeof(*lat->units));
	assert_non_null(lat->units);
	for (i = 2; i < 300; i++) {
		lat->units[i] = lat->units[1];
		lat->units[i].kdev = KDEV + (uint32_t)i;
	}
	lat->nunits = 300;
	assert_int_equal(lat_spec_filter(lat, LAT_EV_ISSUE, buf, sizeof(buf)),
			 -E2BIG);
	free_tracker(lat);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ring_page),
		cmocka_unit_test(test_ring_format),
		cmocka_unit_test(test_slot_counts),
		cmocka_unit_test(test_pairing),
		cmocka_unit_test(test_many_in_flight),
		cmocka_unit_test(test_incomplete),
		cmocka_unit_test(test_drain),
		cmocka_unit_test(test_joined_late),
		cmocka_unit_test(test_filters),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
