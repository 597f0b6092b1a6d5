/*
 * Unit tests: experiments over k levels (ab_sweep.h) - the balanced
 * order (a Williams design: each level at each position and after each
 * other level equally often, for every k), the comparison of k levels
 * with a baseline on records built in memory (paired by block, a block
 * missing a level left out, Holm over levels x metrics, the geometric
 * mean row, two levels equal to ab compare's own), the gate, the
 * rendered text (100 columns) and JSON, the levels' SVG, and the
 * issue's acceptance by simulation: 10,000 experiments of 4 levels
 * from one distribution say "different" somewhere in at most 5 % of
 * them, fixed-N and sequential; with one level shifted by twice the
 * minimum effect, the runs "runs needed" gives find it in at least 80 %.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <yajl/yajl_tree.h>

#include "xvbd/ab/ab.h"
#include "xvbd/ab/ab_stat.h"
#include "xvbd/ab/ab_sweep.h"
#include "xvbd/base/out.h"
#include "ab_testrec.h"
#include "ab_testutil.h"
#include "unit_sim.h"

#define N_ELEMS(a)	(sizeof(a) / sizeof((a)[0]))
#define LEVELS		4
#define BLOCKS_MAX	64
#define EXP_ID		"ab-run-20240501T120000-abcd"

/* ---- the order ---- */

/*
 * For every k: each row a permutation; over the design's rows each
 * level at each position rows / k times, and each ordered pair of
 * levels adjacent (one right after the other) rows / k times for k
 * even (once), twice for k odd.  k = 2 is ABBA.
 */
static void test_order_williams(void **state)
{
	size_t k, b, p, i, j;

	(void)state;
	for (k = 2; k <= XVBD_AB_LEVELS_MAX; k++) {
		size_t rows = xvbd_ab_order_rows(k);
		size_t at[XVBD_AB_LEVELS_MAX][XVBD_AB_LEVELS_MAX] = { { 0 } };
		size_t after[XVBD_AB_LEVELS_MAX][XVBD_AB_LEVELS_MAX] = {
			{ 0 } };

		assert_int_equal(rows, k % 2 ? 2 * k : k);
		for (b = 0; b < rows; b++) {
			size_t order[XVBD_AB_LEVELS_MAX], seen = 0;

			assert_int_equal(xvbd_ab_order(k, b, order), 0);
			for (p = 0; p < k; p++) {
				assert_true(order[p] < k);
				seen |= (size_t)1 << order[p];
				at[order[p]][p]++;
				if (p)
					after[order[p - 1]][order[p]]++;
			}
			assert_int_equal(seen, ((size_t)1 << k) - 1);
		}
		for (i = 0; i < k; i++)
			for (j = 0; j < k; j++) {
				assert_int_equal(at[i][j], rows / k);
				if (i != j)
					assert_int_equal(after[i][j],
							 k % 2 ? 2 : 1);
			}
		/* the design repeats after its rows */
		{
			size_t o1[XVBD_AB_LEVELS_MAX], o2[XVBD_AB_LEVELS_MAX];

			xvbd_ab_order(k, 1, o1);
			xvbd_ab_order(k, 1 + rows, o2);
			assert_memory_equal(o1, o2, k * sizeof(o1[0]));
		}
	}
	{
		size_t o[2];

		xvbd_ab_order(2, 0, o);
		assert_true(o[0] == 0 && o[1] == 1);	/* A B */
		xvbd_ab_order(2, 1, o);
		assert_true(o[0] == 1 && o[1] == 0);	/* B A */
		xvbd_ab_order(2, 2, o);
		assert_true(o[0] == 0 && o[1] == 1);
	}
	assert_int_equal(xvbd_ab_order_rows(1), 0);
	assert_int_equal(xvbd_ab_order_rows(XVBD_AB_LEVELS_MAX + 1), 0);
	assert_int_equal(xvbd_ab_order(1, 0, (size_t[1]){ 0 }), -EINVAL);
}

/* ---- records built in memory ---- */

/* One experiment: levels x blocks of runs, 10 s of reads each. */
struct exper {
	size_t k, blocks;
	struct trec run[LEVELS][BLOCKS_MAX];
	struct xvbd_ab_record rec[LEVELS][BLOCKS_MAX];
	size_t n[LEVELS];
	char ids[LEVELS][BLOCKS_MAX][48];
	struct xvbd_ab_level lv[LEVELS];
};

static const char *const labels[LEVELS] = { "host", "none", "slow", "same" };

/*
 * Level l's run of block b at iops reads a second (8 sectors each),
 * guest and dom0 CPU as given (% of one CPU); exp NULL: no experiment.
 */
static void put_run(struct exper *e, size_t l, size_t b, double iops,
		    double guest_pct, double dom0_pct, const char *exp)
{
	struct trec *t = &e->run[l][e->n[l]];
	uint64_t req = (uint64_t)llround(iops * 10);

	snprintf(e->ids[l][e->n[l]], sizeof(e->ids[l][0]),
		 "%s-20240501T12%02zu%02zu-abcd", labels[l], b / 60, b % 60);
	trec_init(t, labels[l], e->ids[l][e->n[l]], 1);
	trec_add(t, 0, 0, 0, 0, 0, 0, 0);
	trec_add(t, 10000, req, 0, req * 8, 0,
		 (uint64_t)llround(guest_pct * 100),
		 (uint64_t)llround(dom0_pct * 100));
	t->r.experiment = (char *)exp;
	t->r.pair = exp ? (uint32_t)(b + 1) : 0;
	e->rec[l][e->n[l]++] = t->r;
}

static void exper_levels(struct exper *e)
{
	size_t l;

	for (l = 0; l < e->k; l++) {
		e->lv[l].label = labels[l];
		e->lv[l].recs = e->rec[l];
		e->lv[l].n = e->n[l];
	}
}

/*
 * The host drifts from block to block (+15 % each); within a block
 * "none" is 2 % faster, "slow" a third as fast, "same" as "host" but for
 * +-0.1 %.
 */
static void make_lab(struct exper *e, size_t blocks, const char *exp)
{
	static const double factor[LEVELS] = { 1, 1.02, 1.0 / 3, 1 };
	size_t b, l;

	memset(e, 0, sizeof(*e));
	e->k = LEVELS;
	e->blocks = blocks;
	for (b = 0; b < blocks; b++)
		for (l = 0; l < LEVELS; l++) {
			double base = 1000 * pow(1.15, (double)b);
			double f = factor[l];

			if (l == 3)
				f += (b % 2 ? 0.001 : -0.001);
			put_run(e, l, b, base * f, 30 + (double)(b % 3),
				10 + (double)(b % 2), exp);
		}
	exper_levels(e);
}

static const struct xvbd_ab_sweep_opts defaults = {
	.cmp = { .confidence = 0.95, .test = XVBD_AB_TEST_WELCH },
};

static void test_sweep_compare(void **state)
{
	struct exper *e = calloc(1, sizeof(*e));
	struct xvbd_ab_sweep *s = calloc(1, sizeof(*s));
	const struct xvbd_ab_metric_cmp *m;

	(void)state;
	assert_non_null(e);
	assert_non_null(s);
	make_lab(e, 5, EXP_ID);
	assert_int_equal(xvbd_ab_sweep_compare(e->lv, 4, 0, &defaults, s), 0);
	assert_int_equal(s->nlevels, 4);
	assert_string_equal(s->experiment, EXP_ID);
	assert_int_equal(s->blocks, 5);
	assert_int_equal(s->dropped, 0);
	/* paired: the drift of +15 % a block drops out */
	m = &s->cmp[1].m[XVBD_AB_RD_IOPS];
	assert_int_equal(m->test, XVBD_AB_TEST_PAIRED);
	assert_int_equal(m->verdict, XVBD_AB_V_BETTER);
	assert_true(fabs(m->s.pct - 2) < 0.1);
	m = &s->cmp[2].m[XVBD_AB_RD_IOPS];
	assert_int_equal(m->verdict, XVBD_AB_V_WORSE);
	assert_true(fabs(m->s.pct + 66.67) < 0.1);
	m = &s->cmp[3].m[XVBD_AB_RD_IOPS];
	assert_int_equal(m->verdict, XVBD_AB_V_NO_DIFF);
	/* Holm over the levels x metrics with a p-value */
	assert_true(s->adjusted);
	assert_true(s->family >= 9 && s->family % 3 == 0);
	assert_true(fabs(s->alpha_runs - 0.05 / (double)s->family) < 1e-12);
	assert_int_equal(s->cmp[1].family, s->family);
	/* the rates' geometric mean: IO/s and MB/s move alike here */
	assert_int_equal(s->geomean.nmetrics, 2);
	assert_true(fabs(s->geomean.pct[2] + 66.67) < 0.1);
	assert_true(s->geomean.pct_lo[2] < s->geomean.pct[2] &&
		    s->geomean.pct[2] < s->geomean.pct_hi[2]);
	xvbd_ab_sweep_free(s);

	/* unpaired: the drift swamps the 2 % */
	{
		struct xvbd_ab_sweep_opts o = defaults;

		o.cmp.unpaired = true;
		assert_int_equal(xvbd_ab_sweep_compare(e->lv, 4, 0, &o, s), 0);
		assert_null(s->experiment);
		assert_int_equal(s->cmp[1].m[XVBD_AB_RD_IOPS].test,
				 XVBD_AB_TEST_WELCH);
		assert_int_equal(s->cmp[1].m[XVBD_AB_RD_IOPS].verdict,
				 XVBD_AB_V_NO_DIFF);
		assert_true(isnan(s->geomean.pct_lo[1]));
		xvbd_ab_sweep_free(s);
	}
	/* another baseline: "slow", against which the rest are faster */
	assert_int_equal(xvbd_ab_sweep_compare(e->lv, 4, 2, &defaults, s), 0);
	assert_int_equal(s->cmp[0].m[XVBD_AB_RD_IOPS].verdict,
			 XVBD_AB_V_BETTER);
	assert_int_equal(s->cmp[2].nwarnings, 0);
	xvbd_ab_sweep_free(s);
	/* bad calls */
	assert_int_equal(xvbd_ab_sweep_compare(e->lv, 1, 0, &defaults, s),
			 -EINVAL);
	assert_int_equal(xvbd_ab_sweep_compare(e->lv, 4, 4, &defaults, s),
			 -EINVAL);
	e->lv[1].recs = e->lv[0].recs;	/* a run in two levels */
	assert_int_equal(xvbd_ab_sweep_compare(e->lv, 4, 0, &defaults, s),
			 -EINVAL);
	free(s);
	free(e);
}

/* Two levels: each number as ab compare gives it (compare + adjust). */
static void test_sweep_two_is_compare(void **state)
{
	struct exper *e = calloc(1, sizeof(*e));
	struct xvbd_ab_sweep *s = calloc(1, sizeof(*s));
	struct xvbd_ab_comparison c;
	int m;

	(void)state;
	make_lab(e, 5, EXP_ID);
	assert_int_equal(xvbd_ab_sweep_compare(e->lv, 2, 0, &defaults, s), 0);
	assert_int_equal(xvbd_ab_compare_with(e->rec[0], 5, e->rec[1], 5,
					      &defaults.cmp, &c), 0);
	assert_int_equal(xvbd_ab_compare_adjust(&c, NULL, true), 0);
	assert_int_equal(s->family, c.family);
	for (m = 0; m < XVBD_AB_NMETRICS; m++) {
		const struct xvbd_ab_metric_cmp *x = &s->cmp[1].m[m];
		const struct xvbd_ab_metric_cmp *y = &c.m[m];

		assert_int_equal(x->verdict, y->verdict);
		assert_int_equal(x->test, y->test);
		{
			char tx[XVBD_AB_VERDICT_TEXT_MAX];

			/* the same words, the one level's family */
			assert_int_equal(xvbd_ab_verdict_text(&s->cmp[1], x, tx,
							      sizeof(tx)), 0);
			assert_string_equal(tx, ab_vtext(&c, y));
		}
		assert_true((isnan(x->s.p) && isnan(y->s.p)) ||
			    x->s.p == y->s.p);
		assert_true((isnan(x->s.p_adj) && isnan(y->s.p_adj)) ||
			    x->s.p_adj == y->s.p_adj);
		assert_true((isnan(x->s.pct) && isnan(y->s.pct)) ||
			    x->s.pct == y->s.pct);
	}
	xvbd_ab_comparison_free(&c);
	xvbd_ab_sweep_free(s);
	free(s);
	free(e);
}

/* An experiment stopped mid-block: that block out, the rest paired. */
static void test_sweep_drops_block(void **state)
{
	struct exper *e = calloc(1, sizeof(*e));
	struct xvbd_ab_sweep *s = calloc(1, sizeof(*s));

	(void)state;
	make_lab(e, 5, EXP_ID);
	/* block 6: host and none ran, slow and same did not */
	put_run(e, 0, 5, 4000, 30, 10, EXP_ID);
	put_run(e, 1, 5, 3000, 30, 10, EXP_ID);
	exper_levels(e);
	assert_int_equal(xvbd_ab_sweep_compare(e->lv, 4, 0, &defaults, s), 0);
	assert_int_equal(s->blocks, 5);
	assert_int_equal(s->dropped, 1);
	assert_int_equal(s->nwarnings, 1);
	assert_non_null(strstr(s->warnings[0], "block 6 of experiment "
			       EXP_ID " lacks 2 of the 4 levels' runs"));
	/* 3000 against 4000 would have made "none" slower: left out */
	assert_int_equal(s->cmp[1].m[XVBD_AB_RD_IOPS].verdict,
			 XVBD_AB_V_BETTER);
	assert_int_equal(s->runs[0], 6);
	xvbd_ab_sweep_free(s);
	free(s);
	free(e);
}

/* A level proven faster alone (p 0.008) is not, among a dozen tests. */
static void test_sweep_holm_overturns(void **state)
{
	struct exper *e = calloc(1, sizeof(*e));
	struct xvbd_ab_sweep *s = calloc(1, sizeof(*s));
	struct xvbd_ab_sweep_opts o = defaults;
	const struct xvbd_ab_metric_cmp *m;
	size_t b;

	(void)state;
	memset(e, 0, sizeof(*e));
	e->k = 3;
	/* "none" 1.2 % faster with run noise: p 0.008 alone, a dozen
	 * tests in the family */
	for (b = 0; b < 4; b++) {
		static const double noise[4] = { 0.004, -0.003, 0.001, -0.004 };

		put_run(e, 0, b, 1000, 30, 10, EXP_ID);
		put_run(e, 1, b, 1000 * (1.012 + noise[b]), 30, 10, EXP_ID);
		put_run(e, 2, b, 1000 * (1 - noise[b]), 30, 10, EXP_ID);
	}
	exper_levels(e);
	o.no_adjust = true;
	assert_int_equal(xvbd_ab_sweep_compare(e->lv, 3, 0, &o, s), 0);
	m = &s->cmp[1].m[XVBD_AB_RD_IOPS];
	print_message("none read_iops p %.3g\n", m->s.p);
	assert_true(m->s.p < 0.01);
	assert_int_equal(m->verdict, XVBD_AB_V_BETTER);
	assert_false(s->adjusted);
	xvbd_ab_sweep_free(s);
	assert_int_equal(xvbd_ab_sweep_compare(e->lv, 3, 0, &defaults, s), 0);
	m = &s->cmp[1].m[XVBD_AB_RD_IOPS];
	assert_true(s->adjusted);
	assert_true(m->s.p_adj >= 0.05);
	assert_int_equal(m->verdict, XVBD_AB_V_NO_DIFF);
	assert_non_null(strstr(ab_vtext(&s->cmp[1], m),
			       "after Holm's adjustment over"));
	assert_non_null(strstr(ab_vtext(&s->cmp[1], m), "levels x metrics"));
	xvbd_ab_sweep_free(s);
	free(s);
	free(e);
}

/* ---- the gate ---- */

/* The lab's four levels compared, c[] the comparisons (the baseline's NULL). */
static void gate_lab(struct exper *e, struct xvbd_ab_sweep *s,
		     const struct xvbd_ab_comparison **c)
{
	size_t i;

	make_lab(e, 5, EXP_ID);
	assert_int_equal(xvbd_ab_sweep_compare(e->lv, 4, 0, &defaults, s), 0);
	for (i = 0; i < LEVELS; i++)
		c[i] = i ? &s->cmp[i] : NULL;
}

static void test_gate(void **state)
{
	struct exper *e = calloc(1, sizeof(*e));
	struct xvbd_ab_sweep *s = calloc(1, sizeof(*s));
	const struct xvbd_ab_comparison *c[LEVELS];
	bool iops_only[XVBD_AB_NMETRICS] = { false };
	struct xvbd_ab_gate g;
	char line[512];

	(void)state;
	gate_lab(e, s, c);
	/* slow: -66.7 % in IO/s and MB/s, proven */
	assert_int_equal(xvbd_ab_gate_judge(c, 4, NULL, 20, &g), 0);
	assert_int_equal(g.nfailed, 2);
	assert_int_equal(g.nunproven, 0);
	assert_string_equal(g.hits[0].level, "slow");
	assert_string_equal(g.hits[0].baseline, "host");
	assert_true(g.hits[0].proven);
	assert_int_equal(xvbd_ab_gate_text(&g, &g.hits[0], 0.95, line,
					   sizeof(line)), 0);
	assert_non_null(strstr(line, "slow read_iops: -66.7 %"));
	assert_non_null(strstr(line, "fails the gate"));
	xvbd_ab_gate_free(&g);
	/* beyond what slow lost: nothing fails */
	assert_int_equal(xvbd_ab_gate_judge(c, 4, NULL, 70, &g), 0);
	assert_int_equal(g.nfailed + g.nunproven, 0);
	xvbd_ab_gate_free(&g);
	/* "none" is better, never worse; 1 % catches no proven loss */
	iops_only[XVBD_AB_RD_IOPS] = true;
	assert_int_equal(xvbd_ab_gate_judge(&c[1], 1, iops_only, 1, &g), 0);
	assert_int_equal(g.nhits, 0);
	xvbd_ab_gate_free(&g);
	xvbd_ab_sweep_free(s);

	/* worse by 30 % on 2 runs a side: weak, told, not a failure */
	memset(e, 0, sizeof(*e));
	e->k = 2;
	put_run(e, 0, 0, 1000, 30, 10, NULL);
	put_run(e, 0, 1, 1010, 30, 10, NULL);
	put_run(e, 1, 0, 700, 30, 10, NULL);
	put_run(e, 1, 1, 690, 30, 10, NULL);
	exper_levels(e);
	assert_int_equal(xvbd_ab_sweep_compare(e->lv, 2, 0, &defaults, s), 0);
	c[0] = &s->cmp[1];
	assert_int_equal(xvbd_ab_gate_judge(c, 1, iops_only, 20, &g), 0);
	assert_int_equal(g.nfailed, 0);
	assert_int_equal(g.nunproven, 1);
	xvbd_ab_gate_text(&g, &g.hits[0], 0.95, line, sizeof(line));
	assert_non_null(strstr(line, "weak"));
	assert_non_null(strstr(line, "not proven"));
	xvbd_ab_gate_free(&g);
	assert_int_equal(xvbd_ab_gate_judge(c, 1, NULL, 0, &g), -EINVAL);
	xvbd_ab_sweep_free(s);
	free(s);
	free(e);
}


/* A run's block and position: written, read back, a bad one refused. */
static void test_record_position(void **state)
{
	struct exper *e = calloc(1, sizeof(*e));
	struct xvbd_ab_record back;
	struct xvbd_ab_err err = { "" };
	char *json = NULL, *p;
	size_t len = 0;

	(void)state;
	memset(e, 0, sizeof(*e));
	put_run(e, 0, 2, 1000, 30, 10, EXP_ID);
	e->run[0][0].r.position = 4;
	assert_int_equal(xvbd_ab_record_to_json(&e->run[0][0].r, &json, &len),
			 0);
	assert_non_null(strstr(json, "\"pair\":3,\"position\":4,"));
	assert_int_equal(xvbd_ab_record_from_json(json, len, &back, &err), 0);
	assert_int_equal(back.pair, 3);
	assert_int_equal(back.position, 4);
	xvbd_ab_record_free(&back);
	/* beyond the levels an experiment can have */
	p = strstr(json, "\"position\":4");
	p[strlen("\"position\":")] = '9';
	assert_int_equal(xvbd_ab_record_from_json(json, len, &back, &err), 0);
	xvbd_ab_record_free(&back);
	memmove(p + strlen("\"position\":") + 1, p + strlen("\"position\":"),
		len - (size_t)(p - json) - strlen("\"position\":"));
	p[strlen("\"position\":")] = '1';
	p[strlen("\"position\":") + 1] = '7';
	assert_int_equal(xvbd_ab_record_from_json(json, len + 1, &back, &err),
			 -EINVAL);
	assert_non_null(strstr(err.msg, "position"));
	free(json);
	/* older records: no position, read as 0 */
	e->run[0][0].r.position = 0;
	json = NULL;
	assert_int_equal(xvbd_ab_record_to_json(&e->run[0][0].r, &json, &len),
			 0);
	assert_null(strstr(json, "\"position\""));
	assert_int_equal(xvbd_ab_record_from_json(json, len, &back, &err), 0);
	assert_int_equal(back.position, 0);
	xvbd_ab_record_free(&back);
	free(json);
	free(e);
}

/* ---- rendering ---- */

static char *render(const struct xvbd_ab_sweep *s, bool json)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct xvbd_out *o;

	assert_non_null(f);
	o = xvbd_out_new(f, json);
	assert_non_null(o);
	xvbd_ab_sweep_render(o, NULL, s, NULL);
	assert_int_equal(xvbd_out_finish(o), 0);
	xvbd_out_free(o);
	fclose(f);
	return buf;
}

static void test_render(void **state)
{
	struct exper *e = calloc(1, sizeof(*e));
	struct xvbd_ab_sweep *s = calloc(1, sizeof(*s));
	char *text, *json, *line, *save = NULL, err[128];
	yajl_val doc, metrics, cells;
	size_t tables = 0;

	(void)state;
	make_lab(e, 5, EXP_ID);
	assert_int_equal(xvbd_ab_sweep_compare(e->lv, 4, 0, &defaults, s), 0);
	text = render(s, false);
	json = render(s, true);
	/* every line within 100 columns, the levels wrapped */
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(line, "  METRIC", 8)) {
			tables++;
			assert_true(strlen(line) <= XVBD_AB_SWEEP_TEXT_COLS);
			assert_non_null(strstr(line, "HOST"));
			assert_non_null(strstr(line, "VS HOST"));
		}
		if (!strncmp(line, "  read_iops", 11) ||
		    !strncmp(line, "  geomean", 9))
			assert_true(strlen(line) <= XVBD_AB_SWEEP_TEXT_COLS);
	}
	assert_true(tables >= 2 && tables <= 3);
	free(text);
	doc = yajl_tree_parse(json, err, sizeof(err));
	assert_non_null(doc);
	metrics = yajl_tree_get(doc, (const char *[]){ "metrics", NULL },
				yajl_t_array);
	assert_non_null(metrics);
	assert_int_equal(metrics->u.array.len, XVBD_AB_NMETRICS);
	cells = yajl_tree_get(metrics->u.array.values[XVBD_AB_RD_IOPS],
			      (const char *[]){ "cells", NULL }, yajl_t_array);
	assert_non_null(cells);
	assert_int_equal(cells->u.array.len, 4);
	assert_string_equal(YAJL_GET_STRING(yajl_tree_get(
		cells->u.array.values[2], (const char *[]){ "verdict", NULL },
		yajl_t_string)), "worse");
	assert_non_null(yajl_tree_get(doc, (const char *[]){ "comparisons",
				      NULL }, yajl_t_array));
	assert_int_equal(yajl_tree_get(doc, (const char *[]){ "comparisons",
			 NULL }, yajl_t_array)->u.array.len, 3);
	assert_string_equal(YAJL_GET_STRING(yajl_tree_get(doc,
		(const char *[]){ "adjust", NULL }, yajl_t_string)), "holm");
	yajl_tree_free(doc);
	free(json);
	xvbd_ab_sweep_free(s);
	free(s);
	free(e);
}

/* The gate as JSON: its threshold, the verdict, each hit (ab run --json). */
static void test_gate_render(void **state)
{
	struct exper *e = calloc(1, sizeof(*e));
	struct xvbd_ab_sweep *s = calloc(1, sizeof(*s));
	const struct xvbd_ab_comparison *c[LEVELS];
	struct xvbd_ab_gate g;
	char *buf = NULL, err[128];
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct xvbd_out *o;
	yajl_val doc, hits;

	(void)state;
	gate_lab(e, s, c);
	assert_int_equal(xvbd_ab_gate_judge(c, 4, NULL, 20, &g), 0);
	o = xvbd_out_new(f, true);
	xvbd_out_obj_begin(o, NULL);
	xvbd_ab_gate_render(o, "gate", &g);
	xvbd_out_obj_end(o);
	assert_int_equal(xvbd_out_finish(o), 0);
	xvbd_out_free(o);
	fclose(f);
	doc = yajl_tree_parse(buf, err, sizeof(err));
	assert_non_null(doc);
	assert_true(YAJL_IS_TRUE(yajl_tree_get(doc, (const char *[]){ "gate",
		"failed", NULL }, yajl_t_true)));
	assert_int_equal(YAJL_GET_INTEGER(yajl_tree_get(doc,
		(const char *[]){ "gate", "exit", NULL }, yajl_t_number)), 3);
	assert_int_equal(YAJL_GET_INTEGER(yajl_tree_get(doc,
		(const char *[]){ "gate", "failures", NULL }, yajl_t_number)),
		(long long)g.nfailed);
	hits = yajl_tree_get(doc, (const char *[]){ "gate", "hits", NULL },
			     yajl_t_array);
	assert_non_null(hits);
	assert_int_equal(hits->u.array.len, g.nhits);
	assert_string_equal(YAJL_GET_STRING(yajl_tree_get(hits->u.array.values[0],
		(const char *[]){ "level", NULL }, yajl_t_string)), "slow");
	assert_string_equal(YAJL_GET_STRING(yajl_tree_get(hits->u.array.values[0],
		(const char *[]){ "verdict", NULL }, yajl_t_string)), "worse");
	assert_true(YAJL_IS_TRUE(yajl_tree_get(hits->u.array.values[0],
		(const char *[]){ "fails", NULL }, yajl_t_true)));
	assert_true(YAJL_GET_DOUBLE(yajl_tree_get(hits->u.array.values[0],
		(const char *[]){ "pct", NULL }, yajl_t_number)) <= -20);
	yajl_tree_free(doc);
	free(buf);
	xvbd_ab_gate_free(&g);
	xvbd_ab_sweep_free(s);
	free(s);
	free(e);
}

/* The levels' picture: well-formed, a row per metric with data. */
static void test_plot_levels(void **state)
{
	struct exper *e = calloc(1, sizeof(*e));
	bool iops[XVBD_AB_NMETRICS] = { false };
	char *svg = NULL;
	size_t len = 0, circles = 0;
	const char *p;

	(void)state;
	make_lab(e, 3, EXP_ID);
	e->lv[1].label = "<&level>";
	iops[XVBD_AB_RD_IOPS] = true;
	assert_int_equal(xvbd_ab_plot_levels_svg(e->lv, 4, 0, iops, 0.95, &svg,
						 &len), 0);
	assert_int_equal(strlen(svg), len);
	for (p = svg; (p = strstr(p, "<circle")); p++)
		circles++;
	assert_int_equal(circles, 12);		/* 4 levels x 3 runs */
	assert_non_null(strstr(svg, "baseline"));
	assert_non_null(strstr(svg, "stroke-dasharray"));
	assert_non_null(strstr(svg, "&lt;&amp;level&gt;"));
	assert_null(strstr(svg, "<&level>"));
	assert_non_null(strstr(svg, "</svg>"));
	free(svg);
	assert_int_equal(xvbd_ab_plot_levels_svg(e->lv, 4, 4, NULL, 0.95, &svg,
						 &len), -EINVAL);
	free(e);
}

/* ---- the acceptance: simulations ---- */

#define SIM_EXPERIMENTS	10000
#define SIM_BLOCKS	5
#define PILOT_BLOCKS	3
#define SEQ_CAP		20
#define MIN_EFFECT	0.05
#define RUN_SD		0.035	/* a run's log-normal noise */
#define BLOCK_SD	0.10	/* drift between blocks, common to all */

/*
 * One experiment: `blocks` blocks of 4 levels; every run's read rate
 * 10000 x the block's drift x its own noise x shift[level]; CPU with
 * noise of its own.
 */
static void sim_experiment(struct exper *e, struct xvbd_rng *r,
			   size_t blocks, const double *shift)
{
	size_t b, l;

	memset(e->n, 0, sizeof(e->n));
	e->k = LEVELS;
	e->blocks = blocks;
	for (b = 0; b < blocks; b++) {
		double drift = exp(BLOCK_SD * xvbd_rng_normal(r));

		for (l = 0; l < LEVELS; l++)
			put_run(e, l, b, 10000 * drift * shift[l] *
				exp(RUN_SD * xvbd_rng_normal(r)),
				30 * exp(0.05 * xvbd_rng_normal(r)),
				10 * exp(0.05 * xvbd_rng_normal(r)), EXP_ID);
	}
	exper_levels(e);
}

static bool any_different(const struct xvbd_ab_sweep *s)
{
	size_t i;
	int m;

	for (i = 1; i < s->nlevels; i++)
		for (m = 0; m < XVBD_AB_NMETRICS; m++)
			if (s->cmp[i].m[m].verdict == XVBD_AB_V_BETTER ||
			    s->cmp[i].m[m].verdict == XVBD_AB_V_WORSE)
				return true;
	return false;
}

/*
 * Fixed N: 10,000 experiments of 4 levels x 5 blocks, every level the
 * same distribution; "different" in any of the 3 comparisons x their
 * metrics (read IO/s, MB/s, request size, busy span, guest and dom0
 * CPU) in at most 5 % of them.  Without Holm over the family it is far
 * more, which shows the family is what keeps it.
 */
static void test_sim_fixed_aa(void **state)
{
	static const double same[LEVELS] = { 1, 1, 1, 1 };
	const size_t n = sim_count(SIM_EXPERIMENTS);
	const double limit = n == SIM_EXPERIMENTS ? 0.05 :
			     0.05 + 3 * sqrt(0.05 * 0.95 / (double)n);
	struct exper *e = calloc(1, sizeof(*e));
	struct xvbd_ab_sweep *s = calloc(1, sizeof(*s));
	struct xvbd_ab_sweep_opts raw = defaults;
	size_t i, hit = 0, hit_raw = 0;
	struct xvbd_rng r;

	(void)state;
	raw.no_adjust = true;
	xvbd_rng_seed(&r, 41);
	for (i = 0; i < n; i++) {
		sim_experiment(e, &r, SIM_BLOCKS, same);
		assert_int_equal(xvbd_ab_sweep_compare(e->lv, LEVELS, 0,
						       &defaults, s), 0);
		hit += any_different(s);
		if (i < n / 10) {
			xvbd_ab_sweep_free(s);
			assert_int_equal(xvbd_ab_sweep_compare(e->lv, LEVELS,
							       0, &raw, s), 0);
			hit_raw += any_different(s);
		}
		xvbd_ab_sweep_free(s);
	}
	print_message("fixed-N A/A, 4 levels x %d blocks: any different in "
		      "%zu of %zu (%.4f, limit %.4f); without Holm %zu of "
		      "%zu\n", SIM_BLOCKS, hit, n, (double)hit / (double)n,
		      limit, hit_raw, n / 10);
	assert_true((double)hit / (double)n <= limit);
	assert_true((double)hit_raw / (double)(n / 10) > 0.15);
	free(s);
	free(e);
}

/*
 * Sequential: the same experiments looked at after every block up to
 * 20, stopped as ab run --until-confident stops; "different" in any of
 * the 3 comparisons in at most 5 % of them.
 */
static void test_sim_seq_aa(void **state)
{
	const size_t n = sim_count(SIM_EXPERIMENTS);
	const double limit = n == SIM_EXPERIMENTS ? 0.05 :
			     0.05 + 3 * sqrt(0.05 * 0.95 / (double)n);
	struct xvbd_seq_params p = {
		.alpha = 0.05, .min_effect = MIN_EFFECT, .max_pairs = SEQ_CAP,
	};
	double d[LEVELS][SEQ_CAP];
	const double *dp[LEVELS] = { NULL, d[1], d[2], d[3] };
	size_t i, b, l, hit = 0, blocks = 0;
	struct xvbd_ab_sweep_seq q;
	struct xvbd_rng r;

	(void)state;
	xvbd_rng_seed(&r, 4141);
	for (i = 0; i < n; i++) {
		bool diff = false;

		assert_int_equal(xvbd_ab_sweep_seq_init(&q, LEVELS, 0, &p), 0);
		for (b = 0; q.stop == XVBD_AB_SWEEP_GO_ON; b++) {
			double base = exp(RUN_SD * xvbd_rng_normal(&r));

			for (l = 1; l < LEVELS; l++)
				d[l][b] = log(exp(RUN_SD *
						  xvbd_rng_normal(&r)) / base);
			assert_int_equal(xvbd_ab_sweep_seq_step(&q, dp, b + 1),
					 0);
		}
		for (l = 1; l < LEVELS; l++)
			diff |= q.decided[l] &&
				q.st[l].decision == XVBD_SEQ_DIFFERENT;
		hit += diff;
		blocks += q.blocks;
	}
	print_message("sequential A/A, 4 levels, cap %d blocks: any different "
		      "in %zu of %zu (%.4f, limit %.4f), %.1f blocks on "
		      "average\n", SEQ_CAP, hit, n, (double)hit / (double)n,
		      limit, (double)blocks / (double)n);
	assert_true((double)hit / (double)n <= limit);
	assert_true(fabs(q.each.alpha - 0.05 / 3) < 1e-15);
}

/*
 * One level (the last) 2 x the minimum effect slower: a pilot of 3
 * blocks gives "runs needed" for its comparison (at the family's level);
 * a new experiment of that many blocks finds it, "worse", in at least
 * 80 % of 10,000.  The sequential stop finds it too, within its cap.
 */
static void test_sim_power(void **state)
{
	const double shift[LEVELS] = { 1, 1, 1, 1 / (1 + 2 * MIN_EFFECT) };
	const size_t n = sim_count(SIM_EXPERIMENTS);
	struct xvbd_ab_sweep_opts o = defaults;
	struct exper *e = calloc(1, sizeof(*e));
	struct xvbd_ab_sweep *s = calloc(1, sizeof(*s));
	size_t i, found = 0, total_blocks = 0, capped = 0;
	struct xvbd_rng r;

	(void)state;
	o.cmp.min_effect = MIN_EFFECT;
	xvbd_rng_seed(&r, 4242);
	for (i = 0; i < n; i++) {
		size_t need;

		sim_experiment(e, &r, PILOT_BLOCKS, shift);
		assert_int_equal(xvbd_ab_sweep_compare(e->lv, LEVELS, 0, &o,
						       s), 0);
		need = s->cmp[3].m[XVBD_AB_RD_IOPS].runs_needed;
		xvbd_ab_sweep_free(s);
		assert_true(need >= 2);
		if (need > BLOCKS_MAX) {
			need = BLOCKS_MAX;
			capped++;
		}
		total_blocks += need;
		sim_experiment(e, &r, need, shift);
		assert_int_equal(xvbd_ab_sweep_compare(e->lv, LEVELS, 0, &o,
						       s), 0);
		found += s->cmp[3].m[XVBD_AB_RD_IOPS].verdict ==
			 XVBD_AB_V_WORSE;
		xvbd_ab_sweep_free(s);
	}
	print_message("2 x min effect: found in %zu of %zu at the runs "
		      "needed (%.1f blocks on average, %zu capped at %d)\n",
		      found, n, (double)total_blocks / (double)n, capped,
		      BLOCKS_MAX);
	assert_true((double)found >= 0.8 * (double)n);
	free(s);
	free(e);
}

static void test_sim_seq_power(void **state)
{
	struct xvbd_seq_params p = {
		.alpha = 0.05, .min_effect = MIN_EFFECT, .max_pairs = 40,
	};
	const size_t n = sim_count(SIM_EXPERIMENTS) / 4;
	double d[LEVELS][40];
	const double *dp[LEVELS] = { NULL, d[1], d[2], d[3] };
	size_t i, b, l, found = 0, wrong = 0, blocks = 0;
	struct xvbd_ab_sweep_seq q;
	struct xvbd_rng r;

	(void)state;
	xvbd_rng_seed(&r, 4343);
	for (i = 0; i < n; i++) {
		assert_int_equal(xvbd_ab_sweep_seq_init(&q, LEVELS, 0, &p), 0);
		for (b = 0; q.stop == XVBD_AB_SWEEP_GO_ON; b++) {
			double base = exp(RUN_SD * xvbd_rng_normal(&r));

			for (l = 1; l < LEVELS; l++)
				d[l][b] = log(exp(RUN_SD *
						  xvbd_rng_normal(&r)) / base /
					      (l == 3 ? 1 + 2 * MIN_EFFECT :
					       1));
			assert_int_equal(xvbd_ab_sweep_seq_step(&q, dp, b + 1),
					 0);
		}
		found += q.decided[3] &&
			 q.st[3].decision == XVBD_SEQ_DIFFERENT &&
			 q.st[3].hi < 0;
		for (l = 1; l < 3; l++)
			wrong += q.decided[l] &&
				 q.st[l].decision == XVBD_SEQ_DIFFERENT;
		blocks += q.blocks;
	}
	print_message("sequential, 2 x min effect: found in %zu of %zu, %.1f "
		      "blocks on average; a null level different %zu times\n",
		      found, n, (double)blocks / (double)n, wrong);
	assert_true((double)found >= 0.8 * (double)n);
	assert_true((double)wrong <= 0.05 * (double)n);
}

static void test_seq_basics(void **state)
{
	struct xvbd_seq_params p = {
		.alpha = 0.05, .min_effect = 0.05, .max_pairs = 10,
	};
	double big[10] = { -0.7, -0.69, -0.71, -0.7, -0.7, -0.7, -0.7, -0.7,
			   -0.7, -0.7 };
	double same[10] = { 0.001, -0.001, 0.0005, -0.0004, 0.0002, -0.001,
			    0.001, 0.0, 0.0003, -0.0002 };
	const double *d[3] = { NULL, big, same };
	struct xvbd_ab_sweep_seq q;
	size_t b;

	(void)state;
	assert_int_equal(xvbd_ab_sweep_seq_init(&q, 3, 0, &p), 0);
	assert_true(fabs(q.each.alpha - 0.025) < 1e-15);
	for (b = 1; b <= 10 && q.stop == XVBD_AB_SWEEP_GO_ON; b++)
		assert_int_equal(xvbd_ab_sweep_seq_step(&q, d, b), 0);
	assert_int_equal(q.stop, XVBD_AB_SWEEP_SETTLED);
	assert_int_equal(q.st[1].decision, XVBD_SEQ_DIFFERENT);
	assert_int_equal(q.st[2].decision, XVBD_SEQ_EQUIVALENT);
	assert_true(q.decided_at[1] <= q.blocks);
	assert_string_equal(xvbd_ab_sweep_stop_name(q.stop), "settled");
	/* a step out of turn */
	assert_int_equal(xvbd_ab_sweep_seq_step(&q, d, 2), -EINVAL);
	assert_int_equal(xvbd_ab_sweep_seq_init(&q, 1, 0, &p), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_order_williams),
		cmocka_unit_test(test_sweep_compare),
		cmocka_unit_test(test_sweep_two_is_compare),
		cmocka_unit_test(test_sweep_drops_block),
		cmocka_unit_test(test_sweep_holm_overturns),
		cmocka_unit_test(test_gate),
		cmocka_unit_test(test_gate_render),
		cmocka_unit_test(test_record_position),
		cmocka_unit_test(test_render),
		cmocka_unit_test(test_plot_levels),
		cmocka_unit_test(test_seq_basics),
		cmocka_unit_test(test_sim_fixed_aa),
		cmocka_unit_test(test_sim_seq_aa),
		cmocka_unit_test(test_sim_power),
		cmocka_unit_test(test_sim_seq_power),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
