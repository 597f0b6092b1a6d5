/*
 * Unit tests: run summaries from hand-made raw counters (ab_summary.c)
 * and fingerprint differences with their confounder texts (ab_fp.c).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "xvbd/ab/ab.h"
#include "ab_testrec.h"

#define near(x, want) assert_true(fabs_((x) - (want)) < 1e-9 * \
				  (1 + fabs_(want)))

static double fabs_(double x)
{
	return x < 0 ? -x : x;
}

/* ---- summaries ---- */

static void test_metric_table(void **state)
{
	bool old = true;
	int m;

	(void)state;
	assert_int_equal(xvbd_ab_metric_find("read_iops", &old),
			 XVBD_AB_RD_IOPS);
	assert_false(old);
	assert_int_equal(xvbd_ab_metric_find("dom0_cpu_pct", NULL),
			 XVBD_AB_DOM0_CPU);
	assert_int_equal(xvbd_ab_metric_find("write_lat_ms", NULL),
			 XVBD_AB_WR_LAT_MS);
	/* the names before the table: read, and said to be old */
	assert_int_equal(xvbd_ab_metric_find("read-mbs", &old),
			 XVBD_AB_RD_MBS);
	assert_true(old);
	assert_int_equal(xvbd_ab_metric_find("busy_seconds", &old),
			 XVBD_AB_BUSY_SECONDS);
	assert_true(old);
	assert_int_equal(xvbd_ab_metric_find("guest-read-p999", &old),
			 XVBD_AB_G_RD_P999);
	/* a quantity that is no metric, and no name at all */
	assert_int_equal(xvbd_ab_metric_find("queue_depth", NULL), -1);
	assert_int_equal(xvbd_ab_metric_find("iops", NULL), -1);
	assert_int_equal(xvbd_ab_metric_find("", NULL), -1);
	assert_int_equal(xvbd_ab_metric_find(NULL, NULL), -1);
	/* each metric under its own name, found by it */
	for (m = 0; m < XVBD_AB_NMETRICS; m++)
		assert_int_equal(xvbd_ab_metric_find(xvbd_ab_metric_name(m),
						     NULL), m);
	assert_string_equal(xvbd_ab_metric_unit(XVBD_AB_RD_MBS), "MB/s");
	assert_string_equal(xvbd_ab_metric_unit(XVBD_AB_GUEST_CPU), "%CPU");
	assert_false(xvbd_ab_metrics[XVBD_AB_RD_LAT_MS].higher_is_better);
}

/* Delta counter / Delta time over the run, not a mean of rates. */
static void test_summary_run_rate(void **state)
{
	struct trec t;
	struct xvbd_ab_summary s;

	(void)state;
	trec_init(&t, "base", "base-1", 1);
	trec_add(&t, 0, 0, 0, 0, 0, 0, 0);
	/* 100 reads in 1 s, then 300 in 2 s: rates 100 and 150. */
	trec_add(&t, 1000, 100, 10, 2000, 80, 500, 100);
	trec_add(&t, 3000, 400, 40, 6000, 320, 1500, 400);
	assert_int_equal(xvbd_ab_summarize(&t.r, &s), 0);
	assert_int_equal(s.nintervals, 2);
	assert_int_equal(s.nflagged, 0);
	assert_int_equal(s.nreset, 0);
	assert_true(s.used_ns == 3 * T_NS);
	/* 400 / 3 s, not (100 + 150) / 2 */
	near(s.value[XVBD_AB_RD_IOPS], 400.0 / 3);
	near(s.value[XVBD_AB_WR_IOPS], 40.0 / 3);
	/* MB/s of 10^6 bytes: 6000 sectors x 512 / 3 s */
	near(s.value[XVBD_AB_RD_MBS], 6000.0 * 512 / 1e6 / 3);
	near(s.value[XVBD_AB_WR_MBS], 320.0 * 512 / 1e6 / 3);
	/* % of one CPU: 1.5 s of CPU in 3 s */
	near(s.value[XVBD_AB_GUEST_CPU], 50.0);
	near(s.value[XVBD_AB_DOM0_CPU], 400.0 / 3000 * 100);
	assert_true(s.known[XVBD_AB_RD_IOPS]);
	assert_true(s.known[XVBD_AB_GUEST_CPU]);
	/* No backing device seen: latency unknown, not 0. */
	assert_false(s.known[XVBD_AB_RD_LAT_MS]);
	assert_false(s.known[XVBD_AB_WR_LAT_MS]);
}

/*
 * A fixed-size read with idle time around it (seed 001's cached runs: a
 * 1.3 s record, 0.2 s of I/O): IO/s and MB/s over the busy span, the
 * first to the last interval with requests, not over the window; the
 * window's rates kept beside them; the run's length and busy span as
 * metrics of their own.
 */
static void test_summary_busy_span(void **state)
{
	struct trec t;
	struct xvbd_ab_summary s;
	int m;

	(void)state;
	trec_init(&t, "cached", "cached-1", 1);
	t.r.mode = XVBD_AB_MODE_RUN;
	t.r.workload = (char *)"read 8 MiB; sleep 5";
	trec_add(&t, 0, 0, 0, 0, 0, 0, 0);
	trec_add(&t, 100, 0, 0, 0, 0, 5, 5);		/* idle */
	trec_add(&t, 200, 40, 0, 5120, 0, 10, 10);	/* busy ... */
	trec_add(&t, 300, 90, 0, 11520, 0, 15, 15);
	trec_add(&t, 400, 90, 0, 11520, 0, 20, 20);	/* a pause inside */
	trec_add(&t, 500, 128, 0, 16384, 0, 25, 25);	/* ... to here */
	trec_add(&t, 2500, 128, 0, 16384, 0, 30, 30);	/* idle tail */
	trec_add(&t, 5500, 128, 0, 16384, 0, 35, 35);
	assert_int_equal(xvbd_ab_summarize(&t.r, &s), 0);
	assert_true(s.used_ns == 5500 * 1000000ull);
	/* From the start of the first busy interval (0.1 s) to 0.5 s. */
	assert_true(s.busy_ns == 400 * 1000000ull);
	near(s.value[XVBD_AB_RD_IOPS], 128 / 0.4);
	near(s.value[XVBD_AB_RD_MBS], 16384.0 * 512 / 1e6 / 0.4);
	near(s.window[XVBD_AB_RD_IOPS], 128 / 5.5);
	near(s.window[XVBD_AB_RD_MBS], 16384.0 * 512 / 1e6 / 5.5);
	near(s.value[XVBD_AB_WR_MBS], 0);
	/* CPU stays per second of the window. */
	near(s.value[XVBD_AB_GUEST_CPU], 35.0 / 5500 * 100);
	near(s.window[XVBD_AB_GUEST_CPU], s.value[XVBD_AB_GUEST_CPU]);
	/* Request size is per request, whatever the time. */
	near(s.value[XVBD_AB_RD_KIB_PER_REQ], 64.0);
	assert_true(s.known[XVBD_AB_SECONDS]);
	near(s.value[XVBD_AB_SECONDS], 5.5);
	assert_true(s.known[XVBD_AB_BUSY_SECONDS]);
	near(s.value[XVBD_AB_BUSY_SECONDS], 0.4);
	for (m = 0; m < XVBD_AB_NMETRICS; m++)
		if (!xvbd_ab_metric_is_rate(m))
			near(s.window[m], s.value[m]);
	assert_false(xvbd_ab_metrics[XVBD_AB_SECONDS].higher_is_better);
	assert_int_equal(xvbd_ab_metric_find("busy_s", NULL),
			 XVBD_AB_BUSY_SECONDS);

	/* A --duration run's length is the one asked for: no metric. */
	t.r.mode = XVBD_AB_MODE_DURATION;
	assert_int_equal(xvbd_ab_summarize(&t.r, &s), 0);
	assert_false(s.known[XVBD_AB_SECONDS]);
	assert_true(s.known[XVBD_AB_BUSY_SECONDS]);
	/* An incomplete run's length is not the work's. */
	t.r.mode = XVBD_AB_MODE_RUN;
	t.r.complete = false;
	assert_int_equal(xvbd_ab_summarize(&t.r, &s), 0);
	assert_false(s.known[XVBD_AB_SECONDS]);

	/* No I/O at all: busy span 0, rates 0 (not over 0 s). */
	trec_init(&t, "idle", "idle-1", 1);
	trec_add(&t, 0, 0, 0, 0, 0, 0, 0);
	trec_add(&t, 1000, 0, 0, 0, 0, 5, 5);
	assert_int_equal(xvbd_ab_summarize(&t.r, &s), 0);
	assert_true(s.busy_ns == 0);
	near(s.value[XVBD_AB_RD_IOPS], 0);
	assert_true(s.known[XVBD_AB_RD_IOPS]);
	near(s.value[XVBD_AB_BUSY_SECONDS], 0);
}

/*
 * A direct read of eight 1 MiB requests queued at once (queue depth 8)
 * and served one after the other, ~1 s each: blkback counts all eight in
 * the first interval, when it takes them off the ring, and the disk
 * serves them until 8 s.  The backing device's io_ticks grow all along:
 * the busy span runs to 8 s, the rate is 8 MiB over 8 s.  Without
 * io_ticks (an older record, no backing device seen) the span is that of
 * the requests alone, 1 s here: eight times the rate.
 */
static void test_summary_busy_io_ticks(void **state)
{
	struct trec t;
	struct xvbd_ab_sample *p;
	struct xvbd_ab_summary s;
	size_t k;

	(void)state;
	trec_init(&t, "direct", "direct-1", 1);
	t.r.mode = XVBD_AB_MODE_RUN;
	for (k = 0; k <= 10; k++) {
		uint64_t req = k ? 8 : 0;

		p = trec_add(&t, k * 1000, req, 0, req * 2048, 0, k, k);
		p->vbds[0].has_blk = true;
		p->vbds[0].blk_rd_ios = k < 8 ? k : 8;
		p->vbds[0].has_io_ticks = true;
		/* near 2^32: the 32-bit counter wraps inside the run */
		p->vbds[0].blk_io_ticks_ms = (UINT32_MAX - 2500 +
					      (k < 8 ? k : 8) * 1000) &
					     UINT32_MAX;
	}
	assert_int_equal(xvbd_ab_summarize(&t.r, &s), 0);
	assert_int_equal(s.nreset, 0);
	assert_true(s.busy_ns == 8000 * 1000000ull);
	near(s.value[XVBD_AB_RD_MBS], 8 * 1048576.0 / 1e6 / 8);
	near(s.window[XVBD_AB_RD_MBS], 8 * 1048576.0 / 1e6 / 10);
	near(s.value[XVBD_AB_BUSY_SECONDS], 8.0);

	for (k = 0; k <= 10; k++)
		t.s[k].vbds[0].has_io_ticks = false;
	assert_int_equal(xvbd_ab_summarize(&t.r, &s), 0);
	assert_true(s.busy_ns == 1000 * 1000000ull);
	near(s.value[XVBD_AB_RD_MBS], 8 * 1048576.0 / 1e6 / 1);

	/* io_ticks far from 2^32 going back: a reset, left out. */
	for (k = 0; k <= 10; k++)
		t.s[k].vbds[0].has_io_ticks = true;
	t.s[5].vbds[0].blk_io_ticks_ms = 1000000;
	assert_int_equal(xvbd_ab_summarize(&t.r, &s), 0);
	assert_int_equal(s.nreset, 1);
}

/*
 * A guest's CPU time a few ms back (two physical CPUs' clocks disagree
 * about a running vCPU: 3.4 ms seen in the lab) is no new domain: the
 * interval stays in, with no CPU time; a step back beyond 10 ms
 * per vCPU (the stats layer's skew) is a replaced domain, left out.
 */
static void test_summary_cpu_step_back(void **state)
{
	struct trec t;
	struct xvbd_ab_summary s;

	(void)state;
	trec_init(&t, "skew", "skew-1", 1);
	trec_add(&t, 0, 0, 0, 0, 0, 0, 0);
	trec_add(&t, 1000, 100, 0, 800, 0, 500, 100);
	trec_add(&t, 2000, 200, 0, 1600, 0, 500, 200)->guest_cpu_ns -= 3400000;
	trec_add(&t, 3000, 300, 0, 2400, 0, 1000, 300);
	assert_int_equal(xvbd_ab_summarize(&t.r, &s), 0);
	assert_int_equal(s.nreset, 0);
	assert_int_equal(s.nintervals, 3);
	assert_true(s.used_ns == 3 * T_NS);
	near(s.value[XVBD_AB_RD_IOPS], 100.0);
	/* 500 + 0 + 503.4 ms: the step back comes out in the next interval */
	near(s.value[XVBD_AB_GUEST_CPU], (500.0 + 503.4) / 3000 * 100);

	t.s[2].guest_cpu_ns = 500 * 1000000ull - 10000001;
	assert_int_equal(xvbd_ab_summarize(&t.r, &s), 0);
	assert_int_equal(s.nreset, 1);
}

/* A reset interval (new counter instance) is left out of every metric. */
static void test_summary_reset_left_out(void **state)
{
	struct trec t;
	struct xvbd_ab_summary s;
	struct xvbd_ab_interval iv;

	(void)state;
	trec_init(&t, "base", "base-1", 1);
	trec_add(&t, 0, 0, 0, 0, 0, 0, 0);
	trec_add(&t, 1000, 100, 0, 800, 0, 200, 0);
	/* re-attached: counters start again */
	trec_add(&t, 2000, 5, 0, 40, 0, 900, 0)->vbds[0].reset = true;
	trec_add(&t, 3000, 105, 0, 840, 0, 1100, 0);
	/* counters going back without the flag: also a reset */
	trec_add(&t, 4000, 50, 0, 900, 0, 1300, 0);
	assert_int_equal(xvbd_ab_summarize(&t.r, &s), 0);
	assert_int_equal(s.nintervals, 4);
	assert_int_equal(s.nreset, 2);
	assert_int_equal(s.nflagged, 0);
	assert_true(s.used_ns == 2 * T_NS);
	near(s.value[XVBD_AB_RD_IOPS], 100.0);	/* (100 + 100) / 2 s */
	/* The CPU of the left-out intervals is left out too. */
	near(s.value[XVBD_AB_GUEST_CPU], (200.0 + 200.0) / 2000 * 100);
	assert_int_equal(xvbd_ab_interval_get(&t.r, 2, &iv), 0);
	assert_int_equal(iv.status, XVBD_AB_IV_RESET);
	assert_non_null(iv.why);
	assert_int_equal(xvbd_ab_interval_get(&t.r, 4, &iv), 0);
	assert_int_equal(iv.status, XVBD_AB_IV_RESET);
	assert_int_equal(xvbd_ab_interval_get(&t.r, 3, &iv), 0);
	assert_int_equal(iv.status, XVBD_AB_IV_OK);
	near(iv.value[XVBD_AB_RD_IOPS], 100.0);
	assert_int_equal(xvbd_ab_interval_get(&t.r, 0, &iv), -EINVAL);
	assert_int_equal(xvbd_ab_interval_get(&t.r, 5, &iv), -EINVAL);
}

/* CPU time beyond wall x vCPUs: flagged, left out, every metric. */
static void test_summary_cpu_outruns_wall(void **state)
{
	struct trec t;
	struct xvbd_ab_summary s;
	struct xvbd_ab_interval iv;

	(void)state;
	trec_init(&t, "base", "base-1", 1);
	trec_add(&t, 0, 0, 0, 0, 0, 0, 0);
	trec_add(&t, 1000, 100, 0, 0, 0, 600, 100);
	/* 1 vCPU, 1 s wall, 1.5 s of CPU: a clock running 50 % fast */
	trec_add(&t, 2000, 1100, 0, 0, 0, 2100, 200);
	trec_add(&t, 3000, 1200, 0, 0, 0, 2700, 300);
	assert_int_equal(xvbd_ab_summarize(&t.r, &s), 0);
	assert_int_equal(s.nflagged, 1);
	assert_int_equal(s.nreset, 0);
	assert_true(s.used_ns == 2 * T_NS);
	near(s.value[XVBD_AB_RD_IOPS], 100.0);	/* the 1000 left out */
	near(s.value[XVBD_AB_GUEST_CPU], 60.0);
	assert_int_equal(xvbd_ab_interval_get(&t.r, 2, &iv), 0);
	assert_int_equal(iv.status, XVBD_AB_IV_FLAGGED);
	assert_non_null(strstr(iv.why, "outran"));

	/* Two vCPUs may use 1.5 s in 1 s. */
	t.s[1].guest_vcpus = t.s[2].guest_vcpus = 2;
	assert_int_equal(xvbd_ab_summarize(&t.r, &s), 0);
	assert_int_equal(s.nflagged, 0);

	/* dom0 is checked the same way. */
	t.s[3].dom0_cpu_ns = 200 * 1000000ull + 3 * T_NS;
	assert_int_equal(xvbd_ab_summarize(&t.r, &s), 0);
	assert_int_equal(s.nflagged, 1);
	assert_int_equal(xvbd_ab_interval_get(&t.r, 3, &iv), 0);
	assert_non_null(strstr(iv.why, "dom0"));
}

/* Sampling slack: a hair above 100 % x vCPUs is not a time-base error. */
static void test_summary_cpu_tolerance(void **state)
{
	struct trec t;
	struct xvbd_ab_summary s;

	(void)state;
	trec_init(&t, "base", "base-1", 1);
	trec_add(&t, 0, 0, 0, 0, 0, 0, 0);
	trec_add(&t, 1000, 10, 0, 0, 0, 1020, 0);	/* 102 % */
	assert_int_equal(xvbd_ab_summarize(&t.r, &s), 0);
	assert_int_equal(s.nflagged, 0);
	trec_add(&t, 2000, 20, 0, 0, 0, 2200, 0);	/* 118 % */
	assert_int_equal(xvbd_ab_summarize(&t.r, &s), 0);
	assert_int_equal(s.nflagged, 1);
}

/* Latency from the backing device: 32-bit ticks wrap, ios do not. */
static void test_summary_latency_wrap(void **state)
{
	struct trec t;
	struct xvbd_ab_sample *p;
	struct xvbd_ab_summary s;

	(void)state;
	trec_init(&t, "base", "base-1", 1);
	p = trec_add(&t, 0, 0, 0, 0, 0, 0, 0);
	p->vbds[0].has_blk = true;
	p->vbds[0].blk_rd_ios = 1000;
	p->vbds[0].blk_rd_ticks_ms = UINT32_MAX - 9;
	p->vbds[0].blk_wr_ios = 7;
	p->vbds[0].blk_wr_ticks_ms = 100;
	p = trec_add(&t, 1000, 5, 0, 40, 0, 10, 0);
	p->vbds[0].has_blk = true;
	p->vbds[0].blk_rd_ios = 1005;
	p->vbds[0].blk_rd_ticks_ms = 5;		/* wrapped: 15 ms */
	p->vbds[0].blk_wr_ios = 7;		/* no writes */
	p->vbds[0].blk_wr_ticks_ms = 100;
	assert_int_equal(xvbd_ab_summarize(&t.r, &s), 0);
	assert_int_equal(s.nreset, 0);
	assert_true(s.known[XVBD_AB_RD_LAT_MS]);
	near(s.value[XVBD_AB_RD_LAT_MS], 3.0);
	/* no write I/O: write latency unknown, write rates known as 0 */
	assert_false(s.known[XVBD_AB_WR_LAT_MS]);
	assert_true(s.known[XVBD_AB_WR_IOPS]);
	near(s.value[XVBD_AB_WR_IOPS], 0.0);

	/* A tick counter far from 2^32 going back was reset, not wrapped. */
	t.s[0].vbds[0].blk_rd_ticks_ms = 1000000;
	assert_int_equal(xvbd_ab_summarize(&t.r, &s), 0);
	assert_int_equal(s.nreset, 1);
	assert_false(s.known[XVBD_AB_RD_IOPS]);
}

/* Two VBDs add up; latency needs every VBD's backing device. */
static void test_summary_two_vbds(void **state)
{
	struct trec t;
	struct xvbd_ab_sample *p;
	struct xvbd_ab_summary s;

	(void)state;
	trec_init(&t, "base", "base-1", 2);
	p = trec_add(&t, 0, 0, 0, 0, 0, 0, 0);
	p->vbds[0].has_blk = true;
	p = trec_add(&t, 2000, 100, 0, 800, 0, 0, 0);
	p->vbds[1].c.rd_req = 300;
	p->vbds[0].has_blk = true;
	p->vbds[0].blk_rd_ios = 100;
	p->vbds[0].blk_rd_ticks_ms = 50;
	assert_int_equal(xvbd_ab_summarize(&t.r, &s), 0);
	near(s.value[XVBD_AB_RD_IOPS], 200.0);
	/* xvdc has no visible backing device: a per-I/O latency of xvdb
	 * alone would be mislabelled as the run's */
	assert_false(s.known[XVBD_AB_RD_LAT_MS]);
	t.s[0].vbds[1].has_blk = t.s[1].vbds[1].has_blk = true;
	t.s[1].vbds[1].blk_rd_ios = 300;
	t.s[1].vbds[1].blk_rd_ticks_ms = 350;
	assert_int_equal(xvbd_ab_summarize(&t.r, &s), 0);
	assert_true(s.known[XVBD_AB_RD_LAT_MS]);
	near(s.value[XVBD_AB_RD_LAT_MS], 400.0 / 400);
}

/* A run without usable intervals: nothing known, nothing negative. */
static void test_summary_empty(void **state)
{
	struct trec t;
	struct xvbd_ab_summary s;
	int m;

	(void)state;
	trec_init(&t, "base", "base-1", 1);
	trec_add(&t, 0, 0, 0, 0, 0, 0, 0);
	assert_int_equal(xvbd_ab_summarize(&t.r, &s), 0);
	assert_int_equal(s.nintervals, 0);
	for (m = 0; m < XVBD_AB_NMETRICS; m++)
		assert_false(s.known[m]);
	/* No VBD recorded: CPU known, I/O rates not. */
	trec_init(&t, "base", "base-1", 0);
	trec_add(&t, 0, 0, 0, 0, 0, 0, 0);
	trec_add(&t, 1000, 0, 0, 0, 0, 250, 0);
	assert_int_equal(xvbd_ab_summarize(&t.r, &s), 0);
	assert_true(s.known[XVBD_AB_GUEST_CPU]);
	near(s.value[XVBD_AB_GUEST_CPU], 25.0);
	assert_false(s.known[XVBD_AB_RD_IOPS]);
	assert_int_equal(xvbd_ab_summarize(NULL, &s), -EINVAL);
}

/* ---- fingerprints ---- */

static void test_fp_distorts(void **state)
{
	(void)state;
	assert_non_null(strstr(xvbd_ab_fp_distorts("guest.vcpus"),
			       "guest vCPUs differ"));
	assert_non_null(strstr(xvbd_ab_fp_distorts("vbd.xvdb.dom0_cache"),
			       "dom0's page cache can serve reads"));
	assert_non_null(strstr(xvbd_ab_fp_distorts("vbd.xvda.size_bytes"),
			       "disk sizes differ"));
	assert_non_null(strstr(xvbd_ab_fp_distorts("workload"),
			       "workloads differ"));
	assert_non_null(strstr(xvbd_ab_fp_distorts("dom0.clocksource"),
			       "clock running fast"));
	assert_non_null(strstr(xvbd_ab_fp_distorts("blkback.max_queues"),
			       "xen_blkback module parameter"));
	assert_non_null(strstr(xvbd_ab_fp_distorts("vbd.xvdb.backend"),
			       "backends differ"));
	assert_non_null(strstr(xvbd_ab_fp_distorts(
				       "vbd.xvdb.indirect_segments"),
			       "11 segments"));
	assert_non_null(strstr(xvbd_ab_fp_distorts("guest.type"), "PV"));
	/* Anything else: a named default, never NULL. */
	assert_non_null(strstr(xvbd_ab_fp_distorts("vbd.xvdb"),
			       "a fact of the environment differs"));
	assert_non_null(strstr(xvbd_ab_fp_distorts("vbd.xvdb.backend.x"),
			       "a fact of the environment differs"));
	assert_non_null(strstr(xvbd_ab_fp_distorts("guest.vcpus2"),
			       "a fact of the environment differs"));
	assert_non_null(strstr(xvbd_ab_fp_distorts("blkback"),
			       "a fact of the environment differs"));
	assert_non_null(xvbd_ab_fp_distorts(NULL));
}

static void test_fp_diff(void **state)
{
	struct trec a, b;
	struct xvbd_ab_fpdiff *d;
	char line[512];
	size_t n;

	(void)state;
	trec_init(&a, "A", "A-1", 1);
	trec_init(&b, "B", "B-1", 1);
	trec_fact(&a, "guest.vcpus", "1");
	trec_fact(&a, "vbd.xvdb.backend", "file via loop");
	trec_fact(&a, "vbd.xvdb.dom0_cache", "host");
	trec_fact(&a, "xen.version", "4.17.7");
	trec_fact(&b, "dom0.clocksource", "tsc");
	trec_fact(&b, "guest.vcpus", "1");
	trec_fact(&b, "vbd.xvdb.backend", "phy");
	trec_fact(&b, "vbd.xvdb.dom0_cache", "n/a");
	trec_fact(&b, "xen.version", "4.17.7");
	assert_int_equal(xvbd_ab_fp_diff(&a.r.fp, &b.r.fp, &d, &n), 0);
	assert_int_equal(n, 3);
	assert_string_equal(d[0].key, "dom0.clocksource");
	assert_null(d[0].a);
	assert_string_equal(d[0].b, "tsc");
	assert_string_equal(d[1].key, "vbd.xvdb.backend");
	assert_string_equal(d[1].a, "file via loop");
	assert_string_equal(d[1].b, "phy");
	assert_string_equal(d[2].key, "vbd.xvdb.dom0_cache");
	assert_int_equal(xvbd_ab_fp_diff_text(&d[2], line, sizeof(line)), 0);
	assert_non_null(strstr(line, "vbd.xvdb.dom0_cache: A host (dom0's "
				     "page cache can serve reads), B n/a "
				     "(phy): dom0 caching differs"));
	assert_int_equal(xvbd_ab_fp_diff_text(&d[0], line, sizeof(line)), 0);
	assert_non_null(strstr(line, "A - (not recorded), B tsc"));
	assert_int_equal(xvbd_ab_fp_diff_text(&d[0], line, 20), -ENOSPC);
	assert_int_equal(strlen(line), 19);
	free(d);

	/* The same fingerprint: no difference, no allocation. */
	assert_int_equal(xvbd_ab_fp_diff(&a.r.fp, &a.r.fp, &d, &n), 0);
	assert_int_equal(n, 0);
	assert_null(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_metric_table),
		cmocka_unit_test(test_summary_run_rate),
		cmocka_unit_test(test_summary_busy_span),
		cmocka_unit_test(test_summary_busy_io_ticks),
		cmocka_unit_test(test_summary_reset_left_out),
		cmocka_unit_test(test_summary_cpu_outruns_wall),
		cmocka_unit_test(test_summary_cpu_step_back),
		cmocka_unit_test(test_summary_cpu_tolerance),
		cmocka_unit_test(test_summary_latency_wrap),
		cmocka_unit_test(test_summary_two_vbds),
		cmocka_unit_test(test_summary_empty),
		cmocka_unit_test(test_fp_distorts),
		cmocka_unit_test(test_fp_diff),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
