/*
 * test_lat_trace.c - the latency tracker's pure parts: the hist
 * triggers' texts, and the reading of the kernel's cumulative counts
 * into each interval's histograms (the slot a place of the cycle stands
 * for, the slot under way left for later, the generation that answers
 * for a slot, dropped counts and a reader a cycle behind said, the
 * maximum from the max trigger).  The kernel's side is the lab's
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
	lat->hist_fd = -1;
	lat->ingress_size = 16384;
	lat->count_size = 4096;
	lat->max_size = 2048;
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
	u->wanted = u->live = true;
	u->live_from_slot = 10;
	u = &lat->units[1];
	u->major = 254;
	u->minor = 33;
	u->kdev = (UINT32_C(254) << 20) | 32;
	u->partition = true;
	u->part_id = 3;
	u->first_sector = 2048;
	u->end_sector = 1050624;
	u->wanted = u->live = true;
	u->live_from_slot = 10;
	lat->gen[0].installed = true;
	lat->gen[0].bit = 0;
	lat->gen[0].first_slot = 10;
	lat->gen[0].last_slot = UINT64_MAX;
	lat->maxt[0].installed = true;
	lat->maxt[0].id = 0;
	lat->maxt[0].last_slot = UINT64_MAX;
	lat->started = true;
	lat->done_slot = 9;
	return lat;
}

static void free_tracker(struct xvbd_lat *lat)
{
	size_t i, k, d;

	for (i = 0; i < lat->nunits; i++)
		for (k = 0; k < XVBD_LAT_NKINDS; k++)
			for (d = 0; d < XVBD_LAT_NDIRS; d++)
				xvbd_lathist_free(&lat->units[i].pend[k][d]);
	free(lat->units);
	for (i = 0; i < 2; i++)
		free(lat->gen[i].cmds);
	lat_seen_free(lat);
	free(lat);
}

/* The kernel's hist file, built up section by section. */
struct text {
	char buf[16384];
	size_t used;
};

static void add(struct text *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void add(struct text *t, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(t->buf + t->used, sizeof(t->buf) - t->used, fmt, ap);
	va_end(ap);
	assert_true(n > 0 && (size_t)n < sizeof(t->buf) - t->used);
	t->used += (size_t)n;
}

static void section(struct text *t, const char *info)
{
	add(t, "# event histogram\n#\n# trigger info: %s [active]\n#\n\n",
	    info);
}

static void totals(struct text *t, uint64_t dropped)
{
	add(t, "\nTotals:\n    Hits: 1\n    Entries: 1\n    Dropped: %"
	    PRIu64 "\n\n", dropped);
}

/* One counting entry: vk, the slot's place, the bucket, count, sum. */
static void count(struct text *t, uint64_t vk, uint64_t slot, uint64_t lo,
		  uint64_t width, uint64_t hits, uint64_t sum)
{
	uint64_t cyc = slot % XVBD_LAT_CYCLE_SLOTS * S;

	add(t, "{ vk: %10" PRIu64 ", cyc: ~ %" PRIu64 "-%" PRIu64 ", lat: ~ %"
	    PRIu64 "-%" PRIu64 " } hitcount: %10" PRIu64 "  lat: %10" PRIu64
	    "\n", vk, cyc, cyc + S - 1, lo, lo + width - 1, hits, sum);
}

static void max(struct text *t, uint64_t vk, uint64_t slot, uint64_t m)
{
	add(t, "{ vk: %10" PRIu64 ", t: ~ %" PRIu64 "-%" PRIu64 " } hitcount:"
	    " %10d\n\tmax: %10" PRIu64 "  lat: %10" PRIu64 "\n", vk, slot * S,
	    slot * S + S - 1, 1, m, m);
}

static const char count_info[] = "hist:keys=vk,cyc.buckets=1000000000,"
	"lat.buckets=2048:vals=hitcount,lat:sort=vk:size=4096 if lat >= "
	"65536 && lat < 524288";
static const char max_info[] = "hist:keys=vk,t.buckets=1000000000:vals="
	"hitcount:mx0=lat:sort=vk:size=2048:onmax($mx0).save(lat) if lat < "
	"9223372036854775808";

static uint64_t vk_of(struct xvbd_lat *lat, size_t unit, unsigned gen,
		      enum xvbd_lat_kind k, enum xvbd_lat_dir d)
{
	return lat_vk(&lat->units[unit], gen, k, d);
}

static void read_at(struct xvbd_lat *lat, uint64_t now, struct text *t)
{
	struct lat_read_stats st;

	assert_int_equal(lat_read_text(lat, now, t->buf, t->used, &st), 0);
}

/*
 * Slot 10 (place 2) holds 3 reads of the disk in bucket 100352 and 1
 * in 200704 whose maximum the max trigger says; slot 11, under way at
 * the read, is not taken until it has ended.
 */
static void test_slot_counts(void **state)
{
	struct xvbd_lat *lat = fake_tracker();
	uint64_t rd = vk_of(lat, 0, 0, XVBD_LAT_D2C, XVBD_LAT_READ);
	struct xvbd_lat_result r;
	struct text t = { .used = 0 };
	struct xvbd_lathist *h;

	(void)state;
	memset(&r, 0, sizeof(r));
	section(&t, count_info);
	count(&t, rd, 10, 100352, 2048, 3, 3 * 100352 + 60);
	count(&t, rd, 10, 200704, 2048, 1, 201000);
	count(&t, rd, 11, 100352, 2048, 5, 5 * 100400);	/* under way */
	totals(&t, 0);
	section(&t, max_info);
	max(&t, rd, 10, 201000);
	max(&t, rd, 11, 100400);
	totals(&t, 0);
	read_at(lat, 11 * S + GRACE, &t);
	assert_int_equal(lat->done_slot, 10);
	assert_int_equal(xvbd_lat_take(lat, 254, 16, &r), XVBD_LAT_OK);
	h = &r.h[XVBD_LAT_D2C][XVBD_LAT_READ];
	assert_int_equal(h->count, 4);
	assert_int_equal(h->sum_ns, 3 * 100352 + 60 + 201000);
	assert_int_equal(h->max_ns, 201000);
	assert_int_equal(r.h[XVBD_LAT_D2C][XVBD_LAT_WRITE].count, 0);
	/* Slot 11 once it ended: its 5, and its maximum. */
	read_at(lat, 12 * S + GRACE, &t);
	xvbd_lathist_free(h);
	assert_int_equal(xvbd_lat_take(lat, 254, 16, &r), XVBD_LAT_OK);
	assert_int_equal(h->count, 5);
	assert_int_equal(h->max_ns, 100400);
	xvbd_lathist_free(h);
	/* Nothing new: an empty interval. */
	read_at(lat, 13 * S + GRACE, &t);
	assert_int_equal(xvbd_lat_take(lat, 254, 16, &r), XVBD_LAT_OK);
	assert_int_equal(h->count, 0);
	free_tracker(lat);
}

/* A place of the cycle counts again 4 slots on: the difference. */
static void test_cycle_reuse(void **state)
{
	struct xvbd_lat *lat = fake_tracker();
	uint64_t wr = vk_of(lat, 1, 0, XVBD_LAT_I2C, XVBD_LAT_WRITE);
	struct xvbd_lat_result r;
	struct text t = { .used = 0 };
	uint64_t slot;

	(void)state;
	memset(&r, 0, sizeof(r));
	for (slot = 10; slot <= 14; slot++) {
		t.used = 0;
		section(&t, count_info);
		/* Slot 14 is place 2 again: cumulative 2 + 7. */
		count(&t, wr, 10, 100352, 2048, slot < 14 ? 2 : 9,
		      slot < 14 ? 2 * 100352 : 9 * 100352);
		totals(&t, 0);
		section(&t, max_info);
		max(&t, wr, 10, 100352);
		max(&t, wr, 14, 100352);
		totals(&t, 0);
		read_at(lat, (slot + 1) * S + GRACE, &t);
	}
	/* The partition's write i2c: 2 in slot 10, 7 in slot 14. */
	assert_int_equal(xvbd_lat_take(lat, 254, 33, &r), XVBD_LAT_OK);
	assert_int_equal(r.h[XVBD_LAT_I2C][XVBD_LAT_WRITE].count, 9);
	assert_int_equal(r.h[XVBD_LAT_I2C][XVBD_LAT_WRITE].max_ns, 100352);
	xvbd_lathist_free(&r.h[XVBD_LAT_I2C][XVBD_LAT_WRITE]);
	free_tracker(lat);
}

/*
 * A new generation answers from slot 12: in slot 12 both count the same
 * requests, and only the new one's are taken; the old one's slot 11
 * is still its own.
 */
static void test_handover(void **state)
{
	struct xvbd_lat *lat = fake_tracker();
	uint64_t old = vk_of(lat, 0, 0, XVBD_LAT_D2C, XVBD_LAT_READ);
	uint64_t new = vk_of(lat, 0, 1, XVBD_LAT_D2C, XVBD_LAT_READ);
	struct xvbd_lat_result r;
	struct text t = { .used = 0 };

	(void)state;
	memset(&r, 0, sizeof(r));
	lat->gen[0].last_slot = 11;
	lat->gen[1].installed = true;
	lat->gen[1].bit = 1;
	lat->gen[1].first_slot = 12;
	lat->gen[1].last_slot = UINT64_MAX;
	lat->done_slot = 10;
	section(&t, count_info);
	count(&t, old, 11, 100352, 2048, 4, 4 * 100352);
	count(&t, old, 12, 100352, 2048, 6, 6 * 100352);
	count(&t, new, 12, 100352, 2048, 5, 5 * 100352);
	totals(&t, 0);
	section(&t, max_info);
	max(&t, old, 11, 100352);
	max(&t, old, 12, 100352);
	max(&t, new, 12, 100352);
	totals(&t, 0);
	read_at(lat, 13 * S + GRACE, &t);
	assert_int_equal(xvbd_lat_take(lat, 254, 16, &r), XVBD_LAT_OK);
	assert_int_equal(r.h[XVBD_LAT_D2C][XVBD_LAT_READ].count, 4 + 5);
	xvbd_lathist_free(&r.h[XVBD_LAT_D2C][XVBD_LAT_READ]);
	free_tracker(lat);
}

/* Dropped counts, a reader a cycle behind, a max the counts lack. */
static void test_incomplete(void **state)
{
	struct xvbd_lat *lat = fake_tracker();
	uint64_t rd = vk_of(lat, 0, 0, XVBD_LAT_D2C, XVBD_LAT_READ);
	struct xvbd_lat_result r;
	struct text t = { .used = 0 };

	(void)state;
	memset(&r, 0, sizeof(r));
	section(&t, count_info);
	count(&t, rd, 10, 100352, 2048, 1, 100352);
	totals(&t, 3);
	section(&t, max_info);
	max(&t, rd, 10, 100352);
	totals(&t, 0);
	read_at(lat, 11 * S + GRACE, &t);
	assert_int_equal(xvbd_lat_take(lat, 254, 16, &r),
			 XVBD_LAT_INCOMPLETE);
	/* dropped counts are more than a maximum's disagreement */
	assert_false(r.max_only);
	assert_non_null(strstr(r.why, "dropped"));
	/* The same dropped count again: complete. */
	read_at(lat, 12 * S + GRACE, &t);
	assert_int_equal(xvbd_lat_take(lat, 254, 16, &r), XVBD_LAT_OK);
	/* Read 6 slots later: the slot under way shares a place. */
	read_at(lat, 18 * S + GRACE, &t);
	assert_int_equal(xvbd_lat_take(lat, 254, 16, &r),
			 XVBD_LAT_INCOMPLETE);
	/* A maximum outside the counts' top bucket: said, and bounded. */
	t.used = 0;
	section(&t, count_info);
	count(&t, rd, 20, 100352, 2048, 2, 2 * 100352 + 10);
	totals(&t, 3);
	section(&t, max_info);
	max(&t, rd, 20, 999999);
	totals(&t, 3);
	read_at(lat, 20 * S + GRACE, &t);	/* stall over */
	/* its mark taken: what follows is the maximum alone */
	assert_int_equal(xvbd_lat_take(lat, 254, 16, &r),
			 XVBD_LAT_INCOMPLETE);
	assert_false(r.max_only);
	read_at(lat, 21 * S + GRACE, &t);
	xvbd_lathist_free(&r.h[XVBD_LAT_D2C][XVBD_LAT_READ]);
	assert_int_equal(xvbd_lat_take(lat, 254, 16, &r),
			 XVBD_LAT_INCOMPLETE);
	/* only the maximum disagrees; above the counts: one to come */
	assert_true(r.max_only);
	assert_true(r.count_pending);
	assert_non_null(strstr(r.why, "above the counts' top bucket"));
	assert_int_equal(r.h[XVBD_LAT_D2C][XVBD_LAT_READ].max_ns,
			 100352 + 2047);
	xvbd_lathist_free(&r.h[XVBD_LAT_D2C][XVBD_LAT_READ]);
	/* A count at no place of the cycle (6.1's "c=t-$q*C" gave
	 * t - t x C): not silently an empty interval. */
	t.used = 0;
	section(&t, count_info);
	add(&t, "{ vk: %10" PRIu64 ", cyc: ~ 13312415035000000000-"
	    "13312415035999999999, lat: ~ 100352-102399 } hitcount: 1  lat:"
	    " 100352\n", rd);
	totals(&t, 3);
	read_at(lat, 22 * S + GRACE, &t);
	assert_int_equal(xvbd_lat_take(lat, 254, 16, &r),
			 XVBD_LAT_INCOMPLETE);
	assert_int_equal(r.h[XVBD_LAT_D2C][XVBD_LAT_READ].count, 0);
	/* Not a device of the tracker. */
	assert_int_equal(xvbd_lat_take(lat, 8, 0, &r), XVBD_LAT_NOT_TRACKED);
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
	struct text t = { .used = 0 };
	size_t k, d;

	(void)state;
	memset(&r, 0, sizeof(r));
	section(&t, count_info);
	totals(&t, 0);
	/* the slot's start and the reader's slack (below GRACE) */
	assert_in_range(xvbd_lat_whole_from_ns(lat), 10 * S, 10 * S + GRACE);
	read_at(lat, 12 * S + GRACE, &t);		/* done: slot 11 */
	assert_int_equal(xvbd_lat_take(lat, 254, 33, &r), XVBD_LAT_OK);
	/* It joins during slot 12: counted from slot 13. */
	lat->units[1].live_from_slot = 13;
	assert_in_range(xvbd_lat_whole_from_ns(lat), 13 * S, 13 * S + GRACE);
	/* A baseline now, the next sample after slot 13: not whole. */
	read_at(lat, 14 * S + GRACE, &t);
	assert_int_equal(xvbd_lat_take(lat, 254, 33, &r),
			 XVBD_LAT_INCOMPLETE);
	/* Again, with the baseline at whole_from: complete after it. */
	lat->units[1].live_from_slot = 15;
	read_at(lat, xvbd_lat_whole_from_ns(lat), &t);	/* done: 14 */
	xvbd_lat_take(lat, 254, 33, &r);
	read_at(lat, 16 * S + GRACE, &t);
	assert_int_equal(xvbd_lat_take(lat, 254, 33, &r), XVBD_LAT_OK);
	for (k = 0; k < XVBD_LAT_NKINDS; k++)
		for (d = 0; d < XVBD_LAT_NDIRS; d++)
			xvbd_lathist_free(&r.h[k][d]);
	free_tracker(lat);
}

/* vk round trip for whole devices and partitions. */
static void test_vk(void **state)
{
	struct xvbd_lat *lat = fake_tracker();
	enum xvbd_lat_kind k;
	enum xvbd_lat_dir d;
	unsigned gen;

	(void)state;
	assert_true(vk_of(lat, 0, 1, XVBD_LAT_I2C, XVBD_LAT_WRITE) ==
		    (uint64_t)KDEV * 8 + 7);
	assert_ptr_equal(lat_vk_unit(lat, (uint64_t)KDEV * 8 + 6, &gen, &k,
				     &d), &lat->units[0]);
	assert_true(gen == 1 && k == XVBD_LAT_I2C && d == XVBD_LAT_READ);
	assert_ptr_equal(lat_vk_unit(lat, LAT_PART_BASE + 3 * 8 + 1, &gen,
				     &k, &d), &lat->units[1]);
	assert_true(gen == 0 && k == XVBD_LAT_D2C && d == XVBD_LAT_WRITE);
	assert_null(lat_vk_unit(lat, LAT_PART_BASE + 4 * 8, &gen, &k, &d));
	free_tracker(lat);
}

/* The triggers' texts: what the kernel is told. */
static void test_specs(void **state)
{
	struct xvbd_lat *lat = fake_tracker();
	struct lat_gen g = { .bit = 1 };
	char buf[LAT_TRIGGER_MAX];
	size_t i, ncomplete = 0;

	(void)state;
	lat_spec_count(lat);
	assert_int_equal(lat->ncount, LAT_NCOUNT);
	assert_string_equal(lat->count_cmds[0], "hist:keys=vk,cyc.buckets="
			    "1000000000,lat.buckets=32:vals=hitcount,lat:"
			    "sort=vk:size=4096 if lat < 1024");
	assert_string_equal(lat->count_cmds[1], "hist:keys=vk,cyc.buckets="
			    "1000000000,lat.buckets=32:vals=hitcount,lat:"
			    "sort=vk:size=4096 if lat >= 1024 && lat < 8192");
	assert_non_null(strstr(lat->count_cmds[LAT_NCOUNT - 1],
			       "if lat >= 9223372036854775808"));
	lat_spec_max(lat, 7, buf, sizeof(buf));
	assert_non_null(strstr(buf, ":mx7=lat:"));
	assert_non_null(strstr(buf, "onmax($mx7).save(lat)"));
	assert_int_equal(lat_spec_gen(lat, &g), 0);
	/* issue, insert; 2 kinds x 2 directions x (whole + 1 partition) */
	assert_int_equal(g.ncmds, 2 + 2 * 2 * 2);
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
		if (strstr(g.cmds[i], "=8*dev+"))
			assert_null(strstr(g.cmds[i], "sector >="));
		else
			assert_non_null(strstr(g.cmds[i], "sector >= 2048"));
		ncomplete++;
	}
	assert_int_equal(ncomplete, 8);
	/* The first: the whole disk's d2c reads of generation 1; its
	 * time in the cycle in one expression, no variable of its own
	 * (6.1 reads "$q0" in "c0=...-$q0*C" as common_timestamp). */
	assert_non_null(strstr(g.cmds[2], ":v0=8*dev+4:"));
	assert_non_null(strstr(g.cmds[2], ":c0=common_timestamp-common_"
			       "timestamp/4000000000*4000000000:"));
	assert_null(strstr(g.cmds[2], "$q"));
	assert_non_null(strstr(g.cmds[2], "rwbs ~ \"R*\""));
	assert_non_null(strstr(g.cmds[2], "onmatch(block.block_rq_issue)"));
	free(g.cmds);
	/* The other spellings, for kernels that refuse the first. */
	memset(&g, 0, sizeof(g));
	lat->style = LAT_STYLE_VK_CONST_LAST;
	assert_int_equal(lat_spec_gen(lat, &g), 0);
	assert_non_null(strstr(g.cmds[2], "=0+dev*8:"));
	assert_non_null(strstr(g.cmds[2], "=common_timestamp-common_timestamp"
			       "/4000000000*4000000000:"));
	free(g.cmds);
	lat->style = 0;
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
		cmocka_unit_test(test_slot_counts),
		cmocka_unit_test(test_cycle_reuse),
		cmocka_unit_test(test_handover),
		cmocka_unit_test(test_incomplete),
		cmocka_unit_test(test_joined_late),
		cmocka_unit_test(test_vk),
		cmocka_unit_test(test_specs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
