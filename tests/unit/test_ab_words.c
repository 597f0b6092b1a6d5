/*
 * Unit tests: that ab compare's words and fields agree with its own
 * numbers (ab_verdict.c, ab_compare_words.c, ab_compare_render.c).  The
 * record sets of the review that found them, each built as records in
 * memory (a run summary is a request count over the run's time, exact),
 * and a property test over thousands of random record sets with a fixed
 * seed: no direction word disagrees with the sign of what it names, no
 * verdict but "weak" rests on fewer than 3 runs or pairs, no JSON
 * interval has one end alone, and no verdict's text is cut.
 */
#include <ctype.h>
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
#include "xvbd/base/out.h"
#include "ab_testrec.h"
#include "ab_testutil.h"
#include "unit_sim.h"

#define MAXRUNS		24
#define EXP_ID		"ab-run-20240501T120000-c0de"
#define INTERVALS	10

/* One label's runs, built run by run. */
struct side {
	struct trec run[MAXRUNS];
	struct xvbd_ab_record rec[MAXRUNS];
	char ids[MAXRUNS][48];
	size_t n;
};

/*
 * A run of secs seconds (10 equal intervals) that read req requests of
 * sect sectors in all, evenly; its backing device served ios reads in
 * ticks ms (ios 0: no device, latency unknown).  pair > 0: that pair of
 * the experiment.
 */
static void add_run(struct side *s, const char *label, uint64_t secs,
		    uint64_t req, uint64_t sect, uint64_t ios, uint64_t ticks,
		    uint32_t pair)
{
	struct trec *t = &s->run[s->n];
	uint64_t k;

	assert_true(s->n < MAXRUNS);
	snprintf(s->ids[s->n], sizeof(s->ids[s->n]), "%s-%zu", label, s->n);
	trec_init(t, label, s->ids[s->n], 1);
	trec_fact(t, "vbd.xvdb.ring_pages", label[0] == 'A' ? "1" : "8");
	trec_fact(t, "workload", "fio");
	t->r.experiment = pair ? (char *)EXP_ID : NULL;
	t->r.pair = pair;
	for (k = 0; k <= INTERVALS; k++) {
		struct xvbd_ab_sample *x;

		x = trec_add(t, secs * 1000 * k / INTERVALS,
			     req * k / INTERVALS, 0, sect * k / INTERVALS, 0,
			     secs * 300 * k / INTERVALS,
			     secs * 100 * k / INTERVALS);
		x->vbds[0].has_blk = ios > 0;
		x->vbds[0].blk_rd_ios = ios * k / INTERVALS;
		x->vbds[0].blk_rd_ticks_ms = ticks * k / INTERVALS;
	}
	s->n++;
}

/* A run at rate IO/s (one decimal: over 10 s, exact). */
static void add_rate(struct side *s, const char *label, double rate,
		     uint32_t pair)
{
	uint64_t req = (uint64_t)llround(rate * 10);

	add_run(s, label, 10, req, req * 8, req, req * 2, pair);
}

static struct xvbd_ab_record *recs(struct side *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		s->rec[i] = s->run[i].r;
	return s->rec;
}

static void compare(struct side *a, struct side *b,
		    const struct xvbd_ab_compare_opts *o,
		    struct xvbd_ab_comparison *c)
{
	assert_int_equal(xvbd_ab_compare_with(recs(a), a->n, recs(b), b->n,
					      o, c), 0);
}

static yajl_val jget(yajl_val v, const char *key)
{
	const char *path[] = { key, NULL };

	return yajl_tree_get(v, path, yajl_t_any);
}

/* The metric's object of a rendered comparison's JSON. */
static yajl_val jmetric(yajl_val doc, const char *name)
{
	yajl_val arr = jget(doc, "metrics");
	size_t i;

	assert_true(YAJL_IS_ARRAY(arr));
	for (i = 0; i < arr->u.array.len; i++) {
		yajl_val n = jget(arr->u.array.values[i], "metric");
		const char *got = n ? YAJL_GET_STRING(n) : NULL;

		if (got && !strcmp(got, name))
			return arr->u.array.values[i];
	}
	fail_msg("no metric %s", name);
	return NULL;
}

/* ---- the words' own rules, checked on any comparison ---- */

/* The first number in s (after skip), and where it ends. */
static double text_number(const char *s, const char **end)
{
	char *e;
	double v;

	while (*s && !(isdigit((unsigned char)*s) ||
		       ((*s == '+' || *s == '-') &&
			(isdigit((unsigned char)s[1]) || s[1] == 'i'))))
		s++;
	v = strtod(s, &e);
	if (end)
		*end = e;
	return v;
}

/* v printed at d decimals (or as %.3g beyond 1e9) reads as printed. */
static bool same_printed(double printed, double v, int d)
{
	double q = fabs(v) < 1e9 ? 0.5 * pow(10, -d) * 1.0001 :
		   fabs(v) * 0.006;

	return fabs(printed - v) <= q || (isinf(v) && isinf(printed));
}

/*
 * One metric's words against its numbers: a proven verdict's words are
 * its direction's, the number they name has that sign and its interval
 * lies on that side; a weak verdict's "B higher"/"B lower" follows the
 * signed number just before it.
 */
static void check_words(const struct xvbd_ab_comparison *c,
			const struct xvbd_ab_metric_cmp *m)
{
	const struct xvbd_ab_metric_info *info = &xvbd_ab_metrics[m->metric];
	const char *t = ab_vtext(c, m), *by, *word, *rest;
	bool higher = m->direction > 0;
	double v;

	if (m->verdict == XVBD_AB_V_BETTER || m->verdict == XVBD_AB_V_WORSE) {
		assert_true(m->direction != 0);
		assert_true((m->verdict == XVBD_AB_V_BETTER) ==
			    (higher == info->higher_is_better));
		assert_ptr_equal(strstr(t, xvbd_ab_direction(m->metric,
							     higher)), t);
		/* point estimates never point the other way */
		if (!isnan(m->s.pct))
			assert_true(m->s.pct * m->direction > 0);
		assert_true(m->s.diff * m->direction > 0);
		by = strstr(t, " by ");
		if (!by)
			return;
		v = text_number(by, &rest);
		assert_true(v >= 0);
		/* " %" is the relative difference; " %CPU" a unit */
		if (!strncmp(rest, " % ", 3) || !strcmp(rest, " %")) {
			assert_true(same_printed(v, fabs(m->s.pct), 1));
			assert_true(m->direction > 0 ? m->s.pct_ci.lo > 0 :
				    m->s.pct_ci.hi < 0);
		} else {
			assert_true(same_printed(v, fabs(m->s.diff),
						 info->decimals));
			if (m->s.diff_ci.shape != XVBD_AB_CI_NONE)
				assert_true(m->direction > 0 ?
					    m->s.diff_ci.lo > 0 :
					    m->s.diff_ci.hi < 0);
		}
		return;
	}
	if (m->verdict != XVBD_AB_V_WEAK)
		return;
	word = strstr(t, ", B higher");
	if (!word)
		word = strstr(t, ", B lower");
	by = strstr(t, ": B-A ");
	if (!by) {
		assert_null(word);
		return;
	}
	v = text_number(by + 6, NULL);
	if (!word) {
		assert_true(v == 0);
		return;
	}
	assert_true(v != 0);
	assert_true((v > 0) == (strncmp(word, ", B higher", 10) == 0));
}

/* What the test used: 3 runs a side, or 3 pairs when paired. */
static bool enough(const struct xvbd_ab_metric_cmp *m)
{
	if (m->test == XVBD_AB_TEST_PAIRED)
		return m->npairs >= XVBD_AB_MIN_RUNS;
	return m->na >= XVBD_AB_MIN_RUNS && m->nb >= XVBD_AB_MIN_RUNS;
}

static void check_enough(const struct xvbd_ab_metric_cmp *m)
{
	bool claims = m->verdict == XVBD_AB_V_BETTER ||
		      m->verdict == XVBD_AB_V_WORSE ||
		      m->verdict == XVBD_AB_V_NO_DIFF ||
		      m->equiv == XVBD_AB_EQ_SAME ||
		      m->runs_status == XVBD_AB_RUNS_RULED_OUT;

	if (claims)
		assert_true(enough(m));
	if (m->verdict == XVBD_AB_V_WEAK)
		assert_false(enough(m));
	if (m->runs_status == XVBD_AB_RUNS_NEEDED)
		assert_true(m->runs_needed >= 3);
}

/* Every interval of a metric's JSON: KEY_lo and KEY_hi, both or none. */
static void check_json_ends(yajl_val m)
{
	size_t i, n = 0;

	for (i = 0; i < m->u.object.len; i++) {
		const char *k = m->u.object.keys[i];
		size_t len = strlen(k);
		char hi[64];
		yajl_val lo_v, hi_v;

		if (len < 4 || strcmp(k + len - 3, "_lo"))
			continue;
		snprintf(hi, sizeof(hi), "%.*s_hi", (int)(len - 3), k);
		lo_v = m->u.object.values[i];
		hi_v = jget(m, hi);
		assert_non_null(hi_v);
		assert_int_equal(YAJL_IS_NULL(lo_v), YAJL_IS_NULL(hi_v));
		if (!YAJL_IS_NULL(lo_v)) {
			assert_true(YAJL_IS_NUMBER(lo_v) &&
				    YAJL_IS_NUMBER(hi_v));
			assert_true(YAJL_GET_DOUBLE(lo_v) <=
				    YAJL_GET_DOUBLE(hi_v));
		}
		n++;
	}
	assert_true(n >= 2);	/* diff and pct at least */
}

/* All of the above, on every metric of c, its JSON and its text. */
static void check_all(const struct xvbd_ab_comparison *c)
{
	char err[256], *json = ab_render(c, true, NULL), *text;
	yajl_val doc = yajl_tree_parse(json, err, sizeof(err)), arr;
	size_t i, nshown = 0;
	int m;

	assert_non_null(doc);
	arr = jget(doc, "metrics");
	/* the guest's own metrics only where some run has them */
	for (m = 0; m < XVBD_AB_NMETRICS; m++)
		nshown += !xvbd_ab_metric_is_guest(m) || c->m[m].na ||
			  c->m[m].nb;
	assert_int_equal(arr->u.array.len, nshown);
	for (m = 0; m < XVBD_AB_NMETRICS; m++) {
		check_words(c, &c->m[m]);
		check_enough(&c->m[m]);
	}
	for (i = 0; i < arr->u.array.len; i++)
		check_json_ends(arr->u.array.values[i]);
	yajl_tree_free(doc);
	free(json);
	text = ab_render(c, false, NULL);
	assert_non_null(strstr(text, "warnings:"));
	free(text);
}

/* ---- the review's record sets ---- */

/*
 * Pairs (1, 2), (100, 60): the weak text named B "lower" beside +9.5 %.
 * The word follows the number it prints, paired and with Mann-Whitney.
 */
static void test_weak_word_follows_number(void **state)
{
	static struct side a, b;
	struct xvbd_ab_compare_opts o = { .confidence = 0.95 };
	struct xvbd_ab_comparison c;
	const struct xvbd_ab_metric_cmp *m;
	int pass;

	(void)state;
	for (pass = 0; pass < 2; pass++) {
		memset(&a, 0, sizeof(a));
		memset(&b, 0, sizeof(b));
		add_rate(&a, "A", 1, 1);
		add_rate(&b, "B", 2, 1);
		add_rate(&a, "A", 100, 2);
		add_rate(&b, "B", 60, 2);
		o.test = pass ? XVBD_AB_TEST_MWU : XVBD_AB_TEST_WELCH;
		compare(&a, &b, &o, &c);
		m = &c.m[XVBD_AB_RD_IOPS];
		print_message("%s\n", ab_vtext(&c, m));
		assert_int_equal(m->verdict, XVBD_AB_V_WEAK);
		assert_true(m->s.pct > 9.5 && m->s.pct < 9.6);
		assert_non_null(strstr(ab_vtext(&c, m), "B-A +9.5 %"));
		assert_non_null(strstr(ab_vtext(&c, m), ", B higher, not proven"));
		assert_null(strstr(ab_vtext(&c, m), "lower"));
		check_all(&c);
		xvbd_ab_comparison_free(&c);
	}
}

/*
 * Twenty pairs, A alternating 10 and 1000, B 13.x and 97x: the ratio is
 * up 13 %, the raw differences average -9.4 IO/s.  The verdict, the
 * centres and B - A are all on the ratio scale, and the raw mean is
 * kept apart and said.
 */
static void test_one_scale(void **state)
{
	static const double bs[] = { 13.0, 979, 13.2, 977, 13.1, 978 };
	static struct side a, b;
	struct xvbd_ab_compare_opts o = { .confidence = 0.95 };
	struct xvbd_ab_comparison c;
	const struct xvbd_ab_metric_cmp *m;
	char *text;
	uint32_t i;

	(void)state;
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	for (i = 0; i < 20; i++) {
		add_rate(&a, "A", i % 2 ? 1000 : 10, i + 1);
		add_rate(&b, "B", bs[i % 6], i + 1);
	}
	compare(&a, &b, &o, &c);
	m = &c.m[XVBD_AB_RD_IOPS];
	assert_int_equal(m->test, XVBD_AB_TEST_PAIRED);
	assert_int_equal(m->scale, XVBD_AB_SCALE_RATIO);
	assert_int_equal(m->verdict, XVBD_AB_V_BETTER);
	assert_int_equal(m->direction, 1);
	/* B-A and its interval on the verdict's side, as the % */
	assert_true(m->s.diff > 0 && m->s.diff_ci.lo > 0);
	assert_true(m->s.pct > 10 && m->s.pct_ci.lo > 0);
	/* the centres are geometric: sqrt(10 x 1000) */
	assert_true(fabs(m->s.centre_a - 100) < 1e-9);
	assert_true(fabs(m->s.diff - (m->s.centre_b - m->s.centre_a)) < 1e-9);
	/* the raw mean of B_i - A_i points the other way, and is said */
	assert_true(m->raw_diff < 0 && m->raw_ci.hi < 0);
	assert_true(m->raw_disagrees);
	text = ab_render(&c, false, NULL);
	assert_non_null(strstr(text, "read_iops: the pairs' raw differences "
				     "B-A average -9.4"));
	assert_non_null(strstr(text, "the other way from the paired test's "
				     "ln(B/A)"));
	free(text);
	check_all(&c);
	xvbd_ab_comparison_free(&c);
}

/*
 * read_lat_ms 5.0, 5.1, 5.05, (unknown) against 5.01, 5.11, (unknown), 5.06
 * with --equivalence 5: 3 runs a side but 2 pairs, df 1.  Weak, and not
 * "same".
 */
static void test_weak_by_pairs(void **state)
{
	static const uint64_t ta[] = { 500, 510, 505, 0 };
	static const uint64_t tb[] = { 501, 511, 0, 506 };
	static struct side a, b;
	struct xvbd_ab_compare_opts o = {
		.confidence = 0.95, .equivalence = 0.05,
	};
	struct xvbd_ab_comparison c;
	const struct xvbd_ab_metric_cmp *m;
	uint32_t i;

	(void)state;
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	for (i = 0; i < 4; i++) {
		add_run(&a, "A", 10, 1000, 8000, ta[i] ? 100 : 0, ta[i],
			i + 1);
		add_run(&b, "B", 10, 1000, 8000, tb[i] ? 100 : 0, tb[i],
			i + 1);
	}
	compare(&a, &b, &o, &c);
	m = &c.m[XVBD_AB_RD_LAT_MS];
	print_message("%s\n", ab_vtext(&c, m));
	assert_int_equal(m->na, 3);
	assert_int_equal(m->nb, 3);
	assert_int_equal(m->npairs, 2);
	assert_int_equal(m->test, XVBD_AB_TEST_PAIRED);
	assert_int_equal(m->verdict, XVBD_AB_V_WEAK);
	assert_int_equal(m->weak, XVBD_AB_WEAK_PAIRS);
	assert_int_not_equal(m->equiv, XVBD_AB_EQ_SAME);
	assert_non_null(strstr(ab_vtext(&c, m), "weak: 2 pairs (3 needed)"));
	check_all(&c);
	xvbd_ab_comparison_free(&c);
}

/*
 * Five pairs within 1 % of each other: no difference, and the runs made
 * already rule out 5 % (where "2 pairs would detect 5 %" was said); a
 * count is never below 3, and it is the noncentral t's.
 */
static void test_runs_needed_rule_out(void **state)
{
	static const double ra[] = { 1000, 1010, 990, 1005, 995 };
	static const double rb[] = { 1001, 1008, 992, 1004, 996 };
	static struct side a, b;
	struct xvbd_ab_compare_opts o = { .confidence = 0.95 };
	struct xvbd_ab_comparison c;
	const struct xvbd_ab_metric_cmp *m;
	char *text;
	uint32_t i;

	(void)state;
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	for (i = 0; i < 5; i++) {
		add_rate(&a, "A", ra[i], i + 1);
		add_rate(&b, "B", rb[i], i + 1);
	}
	compare(&a, &b, &o, &c);
	m = &c.m[XVBD_AB_RD_IOPS];
	assert_int_equal(m->verdict, XVBD_AB_V_NO_DIFF);
	assert_int_equal(m->runs_status, XVBD_AB_RUNS_RULED_OUT);
	assert_true(m->runs_needed >= 3);
	text = ab_render(&c, false, NULL);
	assert_non_null(strstr(text, "read_iops: the runs made already rule "
				     "out an effect of 5 %"));
	assert_null(strstr(text, "2 pairs would detect"));
	free(text);
	check_all(&c);
	xvbd_ab_comparison_free(&c);
	/* 0.1 %: not ruled out, and the count is the exact one */
	o.min_effect = 0.001;
	compare(&a, &b, &o, &c);
	m = &c.m[XVBD_AB_RD_IOPS];
	assert_int_equal(m->runs_status, XVBD_AB_RUNS_NEEDED);
	{
		double d[5], sd;

		for (i = 0; i < 5; i++)
			d[i] = log(rb[i] / ra[i]);
		sd = sqrt(xvbd_stat_var(d, 5));
		assert_int_equal(m->runs_needed,
				 xvbd_stat_pairs_needed(0.05, 0.8, sd,
							log1p(0.001)));
		/* at n the exact power reaches 80 %, one below it does not */
		assert_true(xvbd_stat_t_power(0.05, (double)m->runs_needed - 1,
					      log1p(0.001) *
					      sqrt((double)m->runs_needed) /
					      sd) >= 0.8);
		assert_true(xvbd_stat_t_power(0.05, (double)m->runs_needed - 2,
					      log1p(0.001) *
					      sqrt((double)m->runs_needed - 1) /
					      sd) < 0.8);
	}
	xvbd_ab_comparison_free(&c);
}

/* Every number in s is at most 12 characters long. */
static void assert_numbers_short(const char *s)
{
	size_t run = 0;

	for (; *s; s++) {
		run = isdigit((unsigned char)*s) || *s == '.' ? run + 1 : 0;
		assert_true(run <= 12);
	}
}

/*
 * Two pairs A = 1000, 1000, B = 1030, 1000 at 99.999 %: the upper end of
 * the % is beyond any double ("to +inf", JSON neither end); at 99.99 %
 * a 43-digit bound, printed in three digits.  A = 0.001, 1e9 and B =
 * 1e9, 0.001: bounds of 1e116 %, the JSON text whole.
 */
static void test_bounded_printing(void **state)
{
	static struct side a, b;
	struct xvbd_ab_compare_opts o = { .confidence = 0.99999 };
	struct xvbd_ab_comparison c;
	const struct xvbd_ab_metric_cmp *m;
	char err[256], *json, *text;
	yajl_val doc, jm;

	(void)state;
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	add_rate(&a, "A", 1000, 1);
	add_rate(&b, "B", 1030, 1);
	add_rate(&a, "A", 1000, 2);
	add_rate(&b, "B", 1000, 2);
	compare(&a, &b, &o, &c);
	m = &c.m[XVBD_AB_RD_IOPS];
	assert_int_equal(m->s.pct_ci.shape, XVBD_AB_CI_OPEN);
	assert_true(isinf(m->s.pct_ci.hi));
	assert_non_null(strstr(ab_vtext(&c, m), "(-100.0 to +inf) %"));
	json = ab_render(&c, true, NULL);
	doc = yajl_tree_parse(json, err, sizeof(err));
	jm = jmetric(doc, "read_iops");
	assert_true(YAJL_IS_NULL(jget(jm, "pct_lo")) &&
		    YAJL_IS_NULL(jget(jm, "pct_hi")));
	assert_string_equal(YAJL_GET_STRING(jget(jm, "pct_interval")), "open");
	yajl_tree_free(doc);
	free(json);
	text = ab_render(&c, false, NULL);
	assert_null(strstr(text, "+- inf"));
	free(text);
	check_all(&c);
	xvbd_ab_comparison_free(&c);

	o.confidence = 0.9999;
	compare(&a, &b, &o, &c);
	m = &c.m[XVBD_AB_RD_IOPS];
	assert_true(m->s.pct_ci.hi > 1e40 && isfinite(m->s.pct_ci.hi));
	text = ab_render(&c, false, NULL);
	assert_numbers_short(text);
	free(text);
	json = ab_render(&c, true, NULL);
	assert_numbers_short(ab_vtext(&c, m));
	doc = yajl_tree_parse(json, err, sizeof(err));
	jm = jmetric(doc, "read_iops");
	assert_true(YAJL_GET_DOUBLE(jget(jm, "pct_hi")) > 1e40);
	assert_true(YAJL_GET_DOUBLE(jget(jm, "pct_lo")) < -99);
	yajl_tree_free(doc);
	free(json);
	check_all(&c);
	xvbd_ab_comparison_free(&c);

	/* 0.001 IO/s: one request over 1000 s */
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	add_run(&a, "A", 1000, 1, 8, 1, 2, 1);
	add_rate(&b, "B", 1e9, 1);
	add_rate(&a, "A", 1e9, 2);
	add_run(&b, "B", 1000, 1, 8, 1, 2, 2);
	o.confidence = 0.95;
	compare(&a, &b, &o, &c);
	m = &c.m[XVBD_AB_RD_IOPS];
	print_message("%s\n", ab_vtext(&c, m));
	assert_true(m->s.pct_ci.hi > 1e100);
	assert_non_null(strstr(ab_vtext(&c, m), ", not proven"));
	assert_numbers_short(ab_vtext(&c, m));
	check_all(&c);
	xvbd_ab_comparison_free(&c);
}

/*
 * Every run 1.6 MB/s, over 10 s (31250 sectors) or 3 s (9375): 1.6 and
 * 1.5999999999999999.  One value, paired and unpaired: p = 1.
 */
static void test_rounding_is_no_difference(void **state)
{
	static const uint64_t secs[] = { 3, 3, 10, 3, 3 };
	static struct side a, b;
	struct xvbd_ab_compare_opts o = { .confidence = 0.95 };
	struct xvbd_ab_comparison c;
	const struct xvbd_ab_metric_cmp *m;
	uint32_t i;
	int pass;

	(void)state;
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	for (i = 0; i < 5; i++) {
		add_run(&a, "A", 10, 1000, 31250, 1000, 2000, i + 1);
		add_run(&b, "B", secs[i], secs[i] * 100, secs[i] * 3125,
			secs[i] * 100, secs[i] * 200, i + 1);
	}
	for (pass = 0; pass < 3; pass++) {
		o.unpaired = pass == 1;
		o.test = pass == 2 ? XVBD_AB_TEST_MWU : XVBD_AB_TEST_WELCH;
		compare(&a, &b, &o, &c);
		m = &c.m[XVBD_AB_RD_MBS];
		assert_int_equal(m->verdict, XVBD_AB_V_NO_DIFF);
		assert_true(m->s.p == 1);
		assert_true(m->s.pct == 0 && m->s.diff == 0);
		check_all(&c);
		xvbd_ab_comparison_free(&c);
	}
}

/* runs_needed_status: settled, ruled out, a count, beyond the cap. */
static void test_runs_needed_status(void **state)
{
	static const double noisy[] = { 1000, 1150, 880, 1090, 960, 1010 };
	static const double other[] = { 1040, 890, 1120, 980, 1060, 930 };
	static struct side a, b;
	struct xvbd_ab_compare_opts o = { .confidence = 0.95 };
	struct xvbd_ab_comparison c;
	bool shown[XVBD_AB_NMETRICS] = { [XVBD_AB_RD_IOPS] = true };
	char err[256], *json;
	yajl_val doc, jm;
	const char *want[] = { "settled", "needed", "beyond-cap" };
	size_t i;
	int pass;

	(void)state;
	for (pass = 0; pass < 3; pass++) {
		memset(&a, 0, sizeof(a));
		memset(&b, 0, sizeof(b));
		for (i = 0; i < 6; i++) {
			add_rate(&a, "A", noisy[i], 0);
			add_rate(&b, "B", pass ? other[i] : 2 * noisy[i], 0);
		}
		o.min_effect = pass == 2 ? 0.001 : 0;
		compare(&a, &b, &o, &c);
		json = ab_render(&c, true, shown);
		doc = yajl_tree_parse(json, err, sizeof(err));
		jm = jmetric(doc, "read_iops");
		assert_string_equal(YAJL_GET_STRING(jget(jm,
			"runs_needed_status")), want[pass]);
		assert_int_equal(YAJL_IS_NUMBER(jget(jm, "runs_needed")),
				 pass == 1);
		yajl_tree_free(doc);
		free(json);
		xvbd_ab_comparison_free(&c);
	}
}

/*
 * A = 4, 3, 4, 8, 5 against B = 5, 6: Fieller's set at 95 % is two
 * pieces, -108.0 to -83.0 % and -30.9 to +126.1 %: both printed.
 */
static void test_fieller_union(void **state)
{
	static const double ra[] = { 4, 3, 4, 8, 5 }, rb[] = { 5, 6 };
	static struct side a, b;
	struct xvbd_ab_compare_opts o = { .confidence = 0.95 };
	struct xvbd_ab_comparison c;
	const struct xvbd_ab_metric_cmp *m;
	char err[256], *json, *text;
	yajl_val doc, jm, pieces;
	size_t i;

	(void)state;
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	for (i = 0; i < 5; i++)
		add_rate(&a, "A", ra[i], 0);
	for (i = 0; i < 2; i++)
		add_rate(&b, "B", rb[i], 0);
	compare(&a, &b, &o, &c);
	m = &c.m[XVBD_AB_RD_IOPS];
	assert_int_equal(m->s.pct_ci.npieces, 2);
	text = ab_render_v(&c, false, NULL, 1);
	fprintf(stderr, "%s", text);
	assert_non_null(strstr(text, "(-108.0 to -83.0 or -30.9 to +126.1) %"));
	free(text);
	json = ab_render(&c, true, NULL);
	doc = yajl_tree_parse(json, err, sizeof(err));
	jm = jmetric(doc, "read_iops");
	pieces = jget(jm, "pct_pieces");
	assert_true(YAJL_IS_ARRAY(pieces) && pieces->u.array.len == 2);
	assert_true(fabs(YAJL_GET_DOUBLE(jget(jm, "pct_lo")) + 107.987) <
		    1e-3);
	yajl_tree_free(doc);
	free(json);
	check_all(&c);
	xvbd_ab_comparison_free(&c);
}

/* ---- the property test ---- */

static double pick(struct xvbd_rng *r, const double *v, size_t n)
{
	return v[(size_t)(xvbd_rng_uniform(r) * (double)n)];
}

/*
 * One random run of a label at level*ratio*noise: its length from 1 to
 * 30 s, no latency device at times, no I/O at times.
 */
static void random_run(struct xvbd_rng *r, struct side *s, const char *label,
		       double rate, uint32_t pair)
{
	uint64_t secs = 1 + (uint64_t)(xvbd_rng_uniform(r) * 30), req;
	double x = rate * (double)secs;

	req = x < 1e15 ? (uint64_t)llround(x) : (uint64_t)1e15;
	if (xvbd_rng_uniform(r) < 0.03)
		req = 0;
	add_run(s, label, secs, req, req * (1 + (uint64_t)(
		xvbd_rng_uniform(r) * 16)), xvbd_rng_uniform(r) < 0.1 ? 0 :
		req, req * 2 + (uint64_t)(xvbd_rng_uniform(r) * (double)req),
		pair);
}

static void random_set(struct xvbd_rng *r, struct side *a, struct side *b,
		       struct xvbd_ab_compare_opts *o)
{
	static const double levels[] = { 1e-2, 0.3, 7, 150, 3e3, 8e4, 1e9 };
	static const double noise[] = { 0, 1e-4, 0.02, 0.2, 1, 3 };
	static const double effect[] = { 1, 1, 1.03, 0.8, 2.5 };
	static const double conf[] = { 0.5, 0.9, 0.95, 0.95, 0.99, 0.99999 };
	bool paired = xvbd_rng_uniform(r) < 0.5;
	size_t na = 1 + (size_t)(xvbd_rng_uniform(r) * 7), nb, i;
	double level = pick(r, levels, 7), sd = pick(r, noise, 6);
	double eff = pick(r, effect, 5), drift = 1;

	nb = paired ? na : 1 + (size_t)(xvbd_rng_uniform(r) * 7);
	memset(a, 0, sizeof(*a));
	memset(b, 0, sizeof(*b));
	for (i = 0; i < (na > nb ? na : nb); i++) {
		drift *= exp(0.3 * xvbd_rng_normal(r));
		if (i < na)
			random_run(r, a, "A", level * drift *
				   exp(sd * xvbd_rng_normal(r)),
				   paired ? (uint32_t)i + 1 : 0);
		if (i < nb)
			random_run(r, b, "B", level * eff * drift *
				   exp(sd * xvbd_rng_normal(r)),
				   paired ? (uint32_t)i + 1 : 0);
	}
	memset(o, 0, sizeof(*o));
	o->confidence = pick(r, conf, 6);
	o->test = xvbd_rng_uniform(r) < 0.2 ? XVBD_AB_TEST_MWU :
		  XVBD_AB_TEST_WELCH;
	o->unpaired = xvbd_rng_uniform(r) < 0.1;
	o->equivalence = xvbd_rng_uniform(r) < 0.3 ? 0.05 : 0;
	o->min_effect = xvbd_rng_uniform(r) < 0.3 ? 0.5 : 0;
}

static void test_property_random_sets(void **state)
{
	static struct side a, b;
	const size_t sets = sim_count(2000);
	struct xvbd_ab_compare_opts o;
	struct xvbd_ab_comparison c;
	struct xvbd_rng r;
	size_t i, verdicts[5] = { 0 }, paired = 0, pieces = 0, open = 0;
	int m;

	(void)state;
	xvbd_rng_seed(&r, 38);
	for (i = 0; i < sets; i++) {
		random_set(&r, &a, &b, &o);
		compare(&a, &b, &o, &c);
		xvbd_ab_compare_adjust(&c, NULL, xvbd_rng_uniform(&r) < 0.5);
		check_all(&c);
		for (m = 0; m < XVBD_AB_NMETRICS; m++) {
			verdicts[c.m[m].verdict]++;
			pieces += c.m[m].s.pct_ci.npieces > 1;
			open += c.m[m].s.pct_ci.shape == XVBD_AB_CI_OPEN ||
				c.m[m].s.pct_ci.shape == XVBD_AB_CI_UNBOUNDED;
		}
		paired += c.test == XVBD_AB_TEST_PAIRED;
		xvbd_ab_comparison_free(&c);
	}
	print_message("%zu record sets (%zu paired): better %zu, worse %zu, "
		      "no difference %zu, weak %zu, unknown %zu; %% sets in "
		      "pieces %zu, open or unbounded %zu\n", sets, paired,
		      verdicts[0], verdicts[1], verdicts[2], verdicts[3],
		      verdicts[4], pieces, open);
	/* the generator reaches every kind it is meant to */
	assert_true(verdicts[0] && verdicts[1] && verdicts[2] && verdicts[3]);
	assert_true(paired > sets / 4 && open > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_weak_word_follows_number),
		cmocka_unit_test(test_one_scale),
		cmocka_unit_test(test_weak_by_pairs),
		cmocka_unit_test(test_runs_needed_rule_out),
		cmocka_unit_test(test_bounded_printing),
		cmocka_unit_test(test_rounding_is_no_difference),
		cmocka_unit_test(test_runs_needed_status),
		cmocka_unit_test(test_fieller_union),
		cmocka_unit_test(test_property_random_sets),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
