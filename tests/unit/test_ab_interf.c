/*
 * test_ab_interf.c - interference: other domains' CPU and the backing
 * device's I/O that was not the VBD's, flagged at the threshold edges,
 * unknown for records without the figures, merges and splits not taken
 * for another user; the new sample fields through JSON and back, and a
 * record written before them still read.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "ab_testrec.h"

#define MS	1000000ull

/*
 * Ten one-second intervals; others use others_ms of CPU per second (2
 * domains); the VBD reads 100 requests of 8 sectors a second, the device
 * serves dev_ios I/Os and dev_sect sectors a second (sectors recorded
 * when dev_sect is not 0).
 */
static void make(struct trec *t, const char *cpus, uint64_t others_ms,
		 uint64_t dev_ios, uint64_t dev_sect)
{
	uint64_t i;

	trec_init(t, "a", "a-20240501T120000-0000", 1);
	if (cpus)
		trec_fact(t, "host.cpus", cpus);
	for (i = 0; i <= 10; i++) {
		struct xvbd_ab_sample *s = trec_add(t, i * 1000, i * 100, 0,
						    i * 800, 0, i * 300,
						    i * 100);

		s->has_others = true;
		s->others_cpu_ns = i * others_ms * MS;
		s->others_doms = 2;
		s->vbds[0].has_blk = true;
		s->vbds[0].blk_rd_ios = i * dev_ios;
		s->vbds[0].has_io_ticks = true;
		s->vbds[0].blk_io_ticks_ms = i * 500;
		s->vbds[0].has_blk_sect = dev_sect > 0;
		s->vbds[0].blk_rd_sect = i * dev_sect;
	}
}

static void interf(const struct trec *t, double threshold,
		   struct xvbd_ab_interf *f)
{
	assert_int_equal(xvbd_ab_interference(&t->r, threshold, f), 0);
}

/* 4 CPUs: 400 ms a second is 10 % of the host, the threshold itself. */
static void test_cpu_edges(void **state)
{
	struct xvbd_ab_interf f;
	struct trec t;
	char buf[320];

	(void)state;
	make(&t, "4", 400, 100, 800);
	interf(&t, 0, &f);
	assert_true(f.cpu_known);
	assert_true(f.window.host_known);
	assert_float_equal(f.window.cpu_pct, 40.0, 1e-9);
	assert_float_equal(f.window.host_pct, 10.0, 1e-9);
	assert_int_equal(f.host_cpus, 4);
	assert_int_equal(f.others_doms, 2);
	assert_false(f.cpu_flagged);
	assert_int_equal(xvbd_ab_interf_cpu_text(&f, buf, sizeof(buf)),
			 -ENOENT);

	make(&t, "4", 404, 100, 800);
	interf(&t, 0, &f);
	assert_true(f.cpu_flagged);
	assert_int_equal(xvbd_ab_interf_cpu_text(&f, buf, sizeof(buf)), 0);
	assert_non_null(strstr(buf, "interference: other domains used 10.1 % "
				    "of the host's CPUs (2 domains; 40.4 % of "
				    "one CPU, 4 CPUs) over the window"));
	assert_non_null(strstr(buf, "above the 10.0 % threshold"));

	/* --interference-cpu 20: the same run is not flagged. */
	interf(&t, 0.20, &f);
	assert_false(f.cpu_flagged);
	/* --interference-cpu 5: 10 % is. */
	make(&t, "4", 400, 100, 800);
	interf(&t, 0.05, &f);
	assert_true(f.cpu_flagged);
}

/* Quiet while the VBD was busy, not around it: the busy span tells. */
static void test_cpu_busy_span(void **state)
{
	struct xvbd_ab_interf f;
	struct trec t;
	char buf[320];
	size_t i;

	(void)state;
	make(&t, "2", 0, 100, 800);
	for (i = 0; i <= 10; i++) {
		struct xvbd_ab_vbd_sample *v = &t.s[i].vbds[0];
		uint64_t k = i < 4 ? 0 : i > 6 ? 3 : i - 3;

		/* I/O only in intervals 4..6; others busy in 5 and 6 */
		v->c.rd_req = k * 100;
		v->c.rd_sect = k * 800;
		v->blk_rd_ios = k * 100;
		v->blk_rd_sect = k * 800;
		v->blk_io_ticks_ms = k * 500;
		t.s[i].others_cpu_ns = (i < 5 ? 0 : i > 6 ? 2 : i - 4) *
				       900 * MS;
	}
	interf(&t, 0, &f);
	assert_float_equal(f.window.host_pct, 9.0, 1e-9);
	assert_true(f.busy.known);
	assert_float_equal(f.busy.host_pct, 30.0, 1e-9);
	assert_true(f.cpu_flagged);
	assert_int_equal(xvbd_ab_interf_cpu_text(&f, buf, sizeof(buf)), 0);
	assert_non_null(strstr(buf, "used 30.0 % of the host's CPUs"));
	assert_non_null(strstr(buf, "over the busy span (9.0 % over the "
				    "window)"));
}

/* Old records: no others, no host.cpus: unknown, never 0, never flagged. */
static void test_unknown(void **state)
{
	struct xvbd_ab_interf f;
	struct trec t;
	char buf[320];
	size_t i;

	(void)state;
	make(&t, "4", 4000, 100, 0);
	for (i = 0; i < t.r.nsamples; i++)
		t.s[i].has_others = false;
	interf(&t, 0, &f);
	assert_false(f.cpu_known);
	assert_false(f.window.known);
	assert_false(f.busy.known);
	assert_false(f.cpu_flagged);
	assert_int_equal(xvbd_ab_interf_cpu_text(&f, buf, sizeof(buf)),
			 -ENOENT);
	/* One sample without them is enough to say nothing. */
	make(&t, "4", 4000, 100, 800);
	t.s[3].has_others = false;
	interf(&t, 0, &f);
	assert_false(f.cpu_known);
	assert_false(f.cpu_flagged);
	/* host.cpus unknown: % of one CPU known, of the host not. */
	make(&t, NULL, 4000, 100, 800);
	interf(&t, 0, &f);
	assert_true(f.window.known);
	assert_false(f.window.host_known);
	assert_false(f.cpu_flagged);
	/* No backing device seen: the device's figures are unknown. */
	make(&t, "4", 0, 100, 800);
	for (i = 0; i < t.r.nsamples; i++)
		t.s[i].vbds[0].has_blk = false;
	interf(&t, 0, &f);
	assert_false(f.dev_known);
	assert_false(f.sect_known);
	assert_false(f.dev_flagged);
}

/* Merges (fewer device I/Os) and splits (more) move the same sectors. */
static void test_merges_splits(void **state)
{
	struct xvbd_ab_interf f;
	struct trec t;

	(void)state;
	make(&t, "4", 0, 40, 800);
	interf(&t, 0, &f);
	assert_true(f.dev_known);
	assert_true(f.sect_known);
	assert_int_equal(f.dev_ios, 400);
	assert_int_equal(f.vbd_req, 1000);
	assert_int_equal(f.foreign_ios, 0);
	assert_int_equal(f.foreign_sect, 0);
	assert_false(f.dev_flagged);
	make(&t, "4", 0, 200, 800);
	interf(&t, 0, &f);
	assert_int_equal(f.foreign_ios, 1000);
	assert_int_equal(f.foreign_sect, 0);
	assert_false(f.dev_flagged);
	/* Merges hiding another user's I/Os: its sectors still show. */
	make(&t, "4", 0, 90, 1100);
	interf(&t, 0, &f);
	assert_int_equal(f.foreign_ios, 0);
	assert_int_equal(f.foreign_sect, 3000);
	assert_true(f.dev_flagged);
}

/* More than 10 % of the device's sectors, and at least 1 MiB. */
static void test_device_edges(void **state)
{
	struct xvbd_ab_interf f;
	struct trec t;
	char buf[320];

	(void)state;
	make(&t, "4", 0, 100, 888);	/* 880 of 8880: 9.9 % */
	interf(&t, 0, &f);
	assert_int_equal(f.foreign_sect, 880);
	assert_false(f.dev_flagged);
	make(&t, "4", 0, 112, 900);	/* 1000 of 9000: 11.1 % */
	interf(&t, 0, &f);
	assert_int_equal(f.foreign_sect, 1000);
	/* above the share, below 2048 sectors: too little to say */
	assert_false(f.dev_flagged);
	make(&t, "4", 0, 130, 1040);	/* 2400 of 10400: 23 % */
	interf(&t, 0, &f);
	assert_true(f.dev_flagged);
	assert_float_equal(f.foreign_pct, 2400.0 * 100 / 10400, 1e-9);
	assert_int_equal(xvbd_ab_interf_dev_text(&f, 1, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "interference: the backing device served "
			    "1.2 MB that were not this VBD's (23.1 % of its "
			    "bytes; 300 I/Os beyond its 1000 requests)");
	/* 10 % exactly, and above it by one sector */
	make(&t, "4", 0, 100, 1000);
	t.s[10].vbds[0].c.rd_sect = 9000;	/* 1000 of 10000 */
	t.s[10].vbds[0].blk_rd_sect = 10000;
	interf(&t, 0, &f);
	assert_int_equal(f.foreign_sect, 1000);
	assert_false(f.dev_flagged);
	t.s[10].vbds[0].blk_rd_sect = 25000;
	t.s[10].vbds[0].c.rd_sect = 22500;	/* 2500 of 25000: 10 % */
	interf(&t, 0, &f);
	assert_int_equal(f.foreign_sect, 2500);
	assert_false(f.dev_flagged);
	t.s[10].vbds[0].c.rd_sect = 22499;
	interf(&t, 0, &f);
	assert_true(f.dev_flagged);
}

/* Records without the device's sectors: its I/Os against the requests. */
static void test_device_ios_only(void **state)
{
	struct xvbd_ab_interf f;
	struct trec t;
	char buf[320];

	(void)state;
	make(&t, "4", 0, 112, 0);	/* 120 of 1120: 10.7 % */
	interf(&t, 0, &f);
	assert_false(f.sect_known);
	assert_int_equal(f.foreign_ios, 120);
	assert_true(f.dev_flagged);
	assert_int_equal(xvbd_ab_interf_dev_text(&f, 1, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "interference: the backing device served 120 "
			    "I/Os that were not this VBD's (10.7 % of its "
			    "I/Os)");
	make(&t, "4", 0, 111, 0);	/* 110 of 1110: 9.9 % */
	interf(&t, 0, &f);
	assert_false(f.dev_flagged);
	make(&t, "4", 0, 60, 0);	/* merges */
	interf(&t, 0, &f);
	assert_int_equal(f.foreign_ios, 0);
	assert_false(f.dev_flagged);
	/* one interval's reset leaves it out, not the run */
	make(&t, "4", 0, 112, 0);
	t.s[4].vbds[0].reset = true;
	interf(&t, 0, &f);
	assert_int_equal(f.foreign_ios, 108);
	assert_true(f.dev_flagged);
}

static void json_trip(const struct xvbd_ab_record *in,
		      struct xvbd_ab_record *out, const char *drop)
{
	struct xvbd_ab_err e = { "" };
	char *json = NULL, *p;
	size_t len = 0;

	assert_int_equal(xvbd_ab_record_to_json(in, &json, &len), 0);
	/* drop: a key an older xvbd did not write, removed everywhere */
	while (drop && (p = strstr(json, drop))) {
		memmove(p, p + strlen(drop), strlen(p + strlen(drop)) + 1);
		len -= strlen(drop);
	}
	memset(out, 0, sizeof(*out));
	if (xvbd_ab_record_from_json(json, len, out, &e))
		fail_msg("%s", e.msg);
	free(json);
}

static void test_json(void **state)
{
	struct xvbd_ab_record r;
	struct xvbd_ab_interf f;
	struct trec t;
	char drop[64];
	size_t i;

	(void)state;
	make(&t, "4", 600, 130, 1040);
	t.r.started_unix_ns = 1714564800ll * 1000000000ll;
	t.s[0].others_doms = 3;
	t.s[10].others_cpu_ns = UINT64_MAX;
	json_trip(&t.r, &r, NULL);
	for (i = 0; i < t.r.nsamples; i++) {
		assert_true(r.samples[i].has_others);
		assert_int_equal(r.samples[i].others_cpu_ns,
				 t.s[i].others_cpu_ns);
		assert_int_equal(r.samples[i].others_doms,
				 t.s[i].others_doms);
		assert_true(r.samples[i].vbds[0].has_blk_sect);
		assert_int_equal(r.samples[i].vbds[0].blk_rd_sect,
				 t.s[i].vbds[0].blk_rd_sect);
		assert_int_equal(r.samples[i].vbds[0].blk_wr_sect, 0);
	}
	xvbd_ab_record_free(&r);

	/* Unknown stays unknown: null, and absent in older records. */
	t.s[2].has_others = false;
	t.s[10].others_cpu_ns = 6000 * MS;
	json_trip(&t.r, &r, NULL);
	assert_false(r.samples[2].has_others);
	assert_true(r.samples[3].has_others);
	xvbd_ab_record_free(&r);
	for (i = 0; i < t.r.nsamples; i++)
		t.s[i].has_others = false;
	json_trip(&t.r, &r, ",\"others\":null");
	for (i = 0; i < t.r.nsamples; i++) {
		assert_false(r.samples[i].has_others);
		assert_true(r.samples[i].vbds[0].has_blk_sect);
	}
	xvbd_ab_record_free(&r);
	/* ... and without the device's sectors: I/O counts judge. */
	{
		char *json = NULL, *p;
		size_t len = 0;
		struct xvbd_ab_err e = { "" };

		assert_int_equal(xvbd_ab_record_to_json(&t.r, &json, &len),
				 0);
		for (i = 0; i <= 10; i++) {
			snprintf(drop, sizeof(drop), ",\"rd_sectors\":%llu,"
				 "\"wr_sectors\":0",
				 (unsigned long long)i * 1040);
			p = strstr(json, drop);
			assert_non_null(p);
			memmove(p, p + strlen(drop),
				strlen(p + strlen(drop)) + 1);
		}
		p = strstr(json, ",\"others\":null");
		while (p) {
			memmove(p, p + 14, strlen(p + 14) + 1);
			p = strstr(json, ",\"others\":null");
		}
		memset(&r, 0, sizeof(r));
		if (xvbd_ab_record_from_json(json, strlen(json), &r, &e))
			fail_msg("%s", e.msg);
		free(json);
	}
	for (i = 0; i < r.nsamples; i++) {
		assert_false(r.samples[i].has_others);
		assert_false(r.samples[i].vbds[0].has_blk_sect);
		assert_true(r.samples[i].vbds[0].has_blk);
	}
	assert_int_equal(xvbd_ab_interference(&r, 0, &f), 0);
	assert_false(f.cpu_known);
	assert_false(f.sect_known);
	assert_int_equal(f.foreign_ios, 300);
	assert_true(f.dev_flagged);
	xvbd_ab_record_free(&r);
}

/* One sector count without the other is damage, not an older record. */
static void test_json_half_sectors(void **state)
{
	struct xvbd_ab_err e = { "" };
	struct xvbd_ab_record r;
	struct trec t;
	char *json = NULL, *p;
	size_t len = 0;

	(void)state;
	make(&t, "4", 0, 100, 800);
	t.r.started_unix_ns = 1714564800ll * 1000000000ll;
	assert_int_equal(xvbd_ab_record_to_json(&t.r, &json, &len), 0);
	p = strstr(json, ",\"wr_sectors\":0");
	assert_non_null(p);
	memmove(p, p + 15, strlen(p + 15) + 1);
	memset(&r, 0, sizeof(r));
	assert_int_equal(xvbd_ab_record_from_json(json, strlen(json), &r, &e),
			 -EINVAL);
	assert_non_null(strstr(e.msg, "rd_sectors and wr_sectors go "
				      "together"));
	xvbd_ab_record_free(&r);
	free(json);
}

/* compare names the flagged runs of each side, with their figures. */
static void test_compare(void **state)
{
	struct xvbd_ab_compare_opts o = { .confidence = 0.95 };
	struct xvbd_ab_comparison c;
	struct trec a[3], b[3];
	struct xvbd_ab_record ra[3], rb[3];
	size_t i, hits = 0;

	(void)state;
	for (i = 0; i < 3; i++) {
		make(&a[i], "4", 0, 100, 800);
		make(&b[i], "4", i == 1 ? 1000 : 0, 100, 800);
		ra[i] = a[i].r;
		rb[i] = b[i].r;
		ra[i].id = (char *)(i == 0 ? "a0" : i == 1 ? "a1" : "a2");
		rb[i].id = (char *)(i == 0 ? "b0" : i == 1 ? "b1" : "b2");
		rb[i].label = (char *)"b";
	}
	assert_int_equal(xvbd_ab_compare_with(ra, 3, rb, 3, &o, &c), 0);
	assert_int_equal(c.ninterf, 1);
	assert_string_equal(c.interf[0].side, "B");
	assert_string_equal(c.interf[0].id, "b1");
	assert_true(c.interf[0].f.cpu_flagged);
	assert_float_equal(c.interference_cpu, XVBD_AB_INTERF_CPU_DEFAULT,
			   1e-12);
	for (i = 0; i < c.nwarnings; i++)
		if (strstr(c.warnings[i], "B run b1: interference: other "
					  "domains used 25.0 % of the host's "
					  "CPUs"))
			hits++;
	assert_int_equal(hits, 1);
	xvbd_ab_comparison_free(&c);
	o.interference_cpu = 0.30;
	assert_int_equal(xvbd_ab_compare_with(ra, 3, rb, 3, &o, &c), 0);
	assert_int_equal(c.ninterf, 0);
	xvbd_ab_comparison_free(&c);
	o.interference_cpu = 1.5;
	assert_int_equal(xvbd_ab_compare_with(ra, 3, rb, 3, &o, &c), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cpu_edges),
		cmocka_unit_test(test_cpu_busy_span),
		cmocka_unit_test(test_unknown),
		cmocka_unit_test(test_merges_splits),
		cmocka_unit_test(test_device_edges),
		cmocka_unit_test(test_device_ios_only),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_json_half_sectors),
		cmocka_unit_test(test_compare),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
