/*
 * ab_compare.c - two labels' runs -> per-metric verdicts and warnings.
 *
 * The unit of evidence is the run: every run contributes its summary
 * (ab_summary.c, Delta counter / Delta time over the run), and the
 * labels' run summaries are compared with the test asked for:
 *  - Welch's t (centre: mean).  The difference B - A and its interval
 *    are Welch's; the relative difference is the ratio of the means with
 *    Fieller's interval (ab_stat.c), so the uncertainty of A's mean is
 *    part of the % interval (it is unbounded when A's own interval
 *    includes 0; then no % interval is given);
 *  - Mann-Whitney U (centre: median).  The difference is the
 *    Hodges-Lehmann shift with its distribution-free interval; the
 *    relative one is the Hodges-Lehmann shift of the logarithms,
 *    exponentiated (the typical ratio B/A), with its interval, which
 *    needs every run above 0.
 * With fewer than 3 runs on a side the verdict is "weak" whatever the
 * numbers say.  Samples inside a run never enter a test.
 *
 * Then the fingerprints: one fact differing between the labels is the
 * variable under test; when more differ, each is a warning naming what
 * it may distort, and the effect cannot be attributed.  Differences among
 * the runs of one label, intervals left out, incomplete runs and the
 * recorder's own notes are warnings too.  A verdict is never given
 * without them.  Rendering: ab_compare_render.c.  Pure (unit-tested).
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ab_compare_impl.h"

#define MIN_RUNS	3

int ab_warn(struct xvbd_ab_comparison *c, const char *fmt, ...)
{
	char **w;
	char *s;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -ENOMEM;
	w = realloc(c->warnings, (c->nwarnings + 1) * sizeof(*w));
	if (!w) {
		free(s);
		return -ENOMEM;
	}
	c->warnings = w;
	c->warnings[c->nwarnings++] = s;
	return 0;
}

void xvbd_ab_comparison_free(struct xvbd_ab_comparison *c)
{
	size_t i;

	if (!c)
		return;
	for (i = 0; i < c->nwarnings; i++)
		free(c->warnings[i]);
	free(c->warnings);
	free(c->diffs);
	free(c->interf);
	memset(c, 0, sizeof(*c));
	c->variable = -1;
}

/* ---- one metric ---- */

const char *xvbd_ab_test_name(enum xvbd_ab_test t)
{
	switch (t) {
	case XVBD_AB_TEST_MWU:
		return "Mann-Whitney U";
	case XVBD_AB_TEST_PAIRED:
		return "paired t";
	default:
		return "Welch's t";
	}
}

/* Relative difference of MWU: HL shift of ln(x), back to a ratio. */
void ab_mwu_ratio(const double *xa, size_t na, const double *xb, size_t nb,
		  double confidence, double *r, double *lo, double *hi)
{
	double *la = calloc(na, sizeof(*la)), *lb = calloc(nb, sizeof(*lb));
	struct xvbd_stat_cmp s;
	size_t i;

	*r = *lo = *hi = NAN;
	if (!la || !lb)
		goto out;
	for (i = 0; i < na; i++) {
		if (!(xa[i] > 0))
			goto out;
		la[i] = log(xa[i]);
	}
	for (i = 0; i < nb; i++) {
		if (!(xb[i] > 0))
			goto out;
		lb[i] = log(xb[i]);
	}
	if (xvbd_stat_mwu(la, na, lb, nb, confidence, &s))
		goto out;
	*r = exp(s.diff);
	*lo = exp(s.diff_lo);	/* exp(NAN) stays NAN */
	*hi = exp(s.diff_hi);
out:
	free(la);
	free(lb);
}

/* "12.3 % +- 3.4 %", or the bounds when the interval is lopsided. */
static void fmt_mag(char *buf, size_t len, double v, double lo, double hi,
		    const char *unit, int decimals)
{
	double h;

	if (v < 0) {
		double t = -lo;

		v = -v;
		lo = -hi;
		hi = t;
	}
	if (isnan(lo) || isnan(hi)) {
		snprintf(buf, len, "%.*f%s%s", decimals, v, *unit ? " " : "",
			 unit);
		return;
	}
	h = (hi - lo) / 2;
	if (fabs((hi - v) - (v - lo)) <= 0.1 * h + 1e-12)
		snprintf(buf, len, "%.*f %s +- %.*f %s", decimals, v, unit,
			 decimals, h, unit);
	else
		snprintf(buf, len, "%.*f %s (%.*f to %.*f %s)", decimals, v,
			 unit, decimals, lo, decimals, hi, unit);
}

const char *xvbd_ab_direction(enum xvbd_ab_metric m, bool b_higher)
{
	switch (m) {
	case XVBD_AB_RD_LAT_MS:
	case XVBD_AB_WR_LAT_MS:
		return b_higher ? "B slower (higher latency)" :
				  "B faster (lower latency)";
	case XVBD_AB_GUEST_CPU:
	case XVBD_AB_DOM0_CPU:
	case XVBD_AB_BE_CPU:
		return b_higher ? "B uses more CPU" : "B uses less CPU";
	case XVBD_AB_BE_US_PER_REQ:
		return b_higher ? "B costs more CPU per request" :
				  "B costs less CPU per request";
	case XVBD_AB_RD_KIB_PER_REQ:
	case XVBD_AB_WR_KIB_PER_REQ:
		return b_higher ? "B has larger requests" :
				  "B has smaller requests";
	case XVBD_AB_SECONDS:
	case XVBD_AB_BUSY_SECONDS:
		return b_higher ? "B takes longer" : "B takes less time";
	case XVBD_AB_G_RD_CLAT:
	case XVBD_AB_G_RD_P50:
	case XVBD_AB_G_RD_P99:
	case XVBD_AB_G_RD_P999:
	case XVBD_AB_G_RD_CLAT_MAX:
	case XVBD_AB_G_WR_CLAT:
	case XVBD_AB_G_WR_P50:
	case XVBD_AB_G_WR_P99:
	case XVBD_AB_G_WR_P999:
	case XVBD_AB_G_WR_CLAT_MAX:
		return b_higher ? "B slower (higher latency in the guest)" :
				  "B faster (lower latency in the guest)";
	case XVBD_AB_BENCH_LOWER1:
	case XVBD_AB_BENCH_LOWER2:
	case XVBD_AB_BENCH_LOWER3:
	case XVBD_AB_BENCH_LOWER4:
		return b_higher ? "B worse (higher)" : "B better (lower)";
	case XVBD_AB_BENCH_HIGHER1:
	case XVBD_AB_BENCH_HIGHER2:
	case XVBD_AB_BENCH_HIGHER3:
	case XVBD_AB_BENCH_HIGHER4:
		return b_higher ? "B better (higher)" : "B worse (lower)";
	default:
		return b_higher ? "B faster" : "B slower";
	}
}

static bool all_zero(const double *x, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (x[i] != 0)
			return false;
	return true;
}

/*
 * Which way B went: the sign of the tested estimate (paired: the mean
 * log-ratio, which the % carries; it may differ in sign from the mean
 * difference when the pairs' sizes differ a lot).
 */
static bool b_higher(const struct xvbd_ab_metric_cmp *mc)
{
	if (mc->test == XVBD_AB_TEST_PAIRED && !isnan(mc->s.pct))
		return mc->s.pct > 0;
	return mc->s.diff > 0;
}

static void verdict_text(struct xvbd_ab_metric_cmp *mc, double confidence)
{
	const struct xvbd_ab_metric_info *info = &xvbd_ab_metrics[mc->metric];
	const struct xvbd_stat_cmp_view *s = &mc->s;
	char mag[80];

	/* A % without its interval (A's mean not told from 0) would say
	 * more than is known: the absolute difference then. */
	if (!isnan(s->pct) && (!isnan(s->pct_lo) || isnan(s->diff_lo)))
		fmt_mag(mag, sizeof(mag), s->pct, s->pct_lo, s->pct_hi, "%", 1);
	else
		fmt_mag(mag, sizeof(mag), s->diff, s->diff_lo, s->diff_hi,
			info->unit, info->decimals);
	switch (mc->verdict) {
	case XVBD_AB_V_BETTER:
	case XVBD_AB_V_WORSE:
		snprintf(mc->text, sizeof(mc->text), "%s by %s",
			 xvbd_ab_direction(mc->metric, b_higher(mc)), mag);
		break;
	case XVBD_AB_V_NO_DIFF:
		snprintf(mc->text, sizeof(mc->text),
			 "no difference proven at %g %%", confidence * 100);
		break;
	case XVBD_AB_V_WEAK:
		snprintf(mc->text, sizeof(mc->text),
			 "weak: %zu and %zu runs (%d per label needed); "
			 "B %s by %s, not proven", mc->na, mc->nb, MIN_RUNS,
			 s->diff > 0 ? "higher" : s->diff < 0 ? "lower" :
			 "equal", mag);
		break;
	case XVBD_AB_V_UNKNOWN:
		break;		/* set where decided */
	}
}

static void metric_unknown(struct xvbd_ab_metric_cmp *mc, const char *why)
{
	struct xvbd_stat_cmp_view *s = &mc->s;

	s->centre_a = s->half_a = s->centre_b = s->half_b = NAN;
	s->diff = s->diff_lo = s->diff_hi = NAN;
	s->pct = s->pct_lo = s->pct_hi = s->p = NAN;
	s->stat = s->df = s->p_adj = NAN;
	mc->verdict = XVBD_AB_V_UNKNOWN;
	/* asked or not, there is nothing to judge the same */
	mc->equiv = XVBD_AB_EQ_NOT_ASKED;
	mc->eq_p = mc->eq_lo = mc->eq_hi = NAN;
	mc->runs_needed = 0;
	snprintf(mc->text, sizeof(mc->text), "%s", why);
}

/*
 * The test of one metric into st and the ratio B/A with its interval
 * into ratio[0..2]; mc->test the test used (paired falls back to Welch
 * where fewer than 2 pairs know the metric).
 */
static int run_test(const struct xvbd_ab_comparison *c,
		    struct xvbd_ab_metric_cmp *mc, const double *xa,
		    const double *xb, const struct xvbd_ab_summary *sa,
		    const struct xvbd_ab_summary *sb,
		    const struct ab_pairing *pg, struct xvbd_stat_cmp *st,
		    double *ratio)
{
	double confidence = c->confidence, ma;
	int rc = 0;

	mc->test = c->test;
	if (c->test == XVBD_AB_TEST_MWU) {
		rc = xvbd_stat_mwu(xa, mc->na, xb, mc->nb, confidence, st);
		if (!rc)
			ab_mwu_ratio(xa, mc->na, xb, mc->nb, confidence,
				     &ratio[0], &ratio[1], &ratio[2]);
		return rc;
	}
	if (mc->na >= 2 && mc->nb >= 2) {
		/* Welch for the centres; paired for the rest when it can */
		rc = xvbd_stat_welch(xa, mc->na, xb, mc->nb, confidence, st);
		if (!rc && c->test == XVBD_AB_TEST_PAIRED)
			rc = ab_metric_paired(mc, sa, sb, pg, confidence, st,
					      &ratio[0], &ratio[1], &ratio[2]);
		if (rc)
			return rc == 1 ? 0 : rc;
		mc->test = XVBD_AB_TEST_WELCH;
		ma = xvbd_stat_mean(xa, mc->na);
		ratio[0] = ma > 0 ? xvbd_stat_mean(xb, mc->nb) / ma : NAN;
		xvbd_stat_fieller(xa, mc->na, xb, mc->nb, confidence,
				  &ratio[1], &ratio[2]);
		return 0;
	}
	mc->test = XVBD_AB_TEST_WELCH;
	/* One run on a side: centres and the difference, no test. */
	st->centre_a = xvbd_stat_mean(xa, mc->na);
	st->centre_b = xvbd_stat_mean(xb, mc->nb);
	st->half_a = st->half_b = st->diff_lo = st->diff_hi = st->p = NAN;
	st->stat = st->df = NAN;
	st->diff = st->centre_b - st->centre_a;
	st->significant = false;
	ratio[0] = st->centre_a > 0 ? st->centre_b / st->centre_a : NAN;
	return 0;
}

static int compare_metric(const struct xvbd_ab_comparison *c,
			  struct xvbd_ab_metric_cmp *mc,
			  const struct xvbd_ab_summary *sa, size_t na,
			  const struct xvbd_ab_summary *sb, size_t nb,
			  const struct ab_pairing *pg)
{
	enum xvbd_ab_metric m = mc->metric;
	const struct xvbd_ab_metric_info *info = &xvbd_ab_metrics[m];
	double *xa = calloc(na, sizeof(*xa)), *xb = calloc(nb, sizeof(*xb));
	struct xvbd_stat_cmp st = { 0 };
	struct xvbd_stat_cmp_view *s = &mc->s;
	double ratio[3] = { NAN, NAN, NAN }, confidence = c->confidence;
	size_t i;
	int rc = 0;

	if (!xa || !xb) {
		rc = -ENOMEM;
		goto out;
	}
	mc->na = mc->nb = mc->npairs = 0;
	mc->test = c->test;
	for (i = 0; i < na; i++)
		if (sa[i].known[m])
			xa[mc->na++] = sa[i].value[m];
	for (i = 0; i < nb; i++)
		if (sb[i].known[m])
			xb[mc->nb++] = sb[i].value[m];
	if (!mc->na || !mc->nb) {
		metric_unknown(mc, !mc->na && !mc->nb ?
			       "unknown on both sides" : !mc->na ?
			       "unknown in A's runs" : "unknown in B's runs");
		goto out;
	}
	if (all_zero(xa, mc->na) && all_zero(xb, mc->nb)) {
		/* e.g. writes of a read-only workload: nothing to test */
		metric_unknown(mc, "none in any run");
		s->centre_a = s->centre_b = s->diff = 0;
		goto out;
	}
	rc = run_test(c, mc, xa, xb, sa, sb, pg, &st, ratio);
	if (rc < 0 && rc != -EINVAL)
		goto out;
	if (rc) {
		/* e.g. no variation at all on either side */
		metric_unknown(mc, "no test possible on these runs");
		rc = 0;
		goto out;
	}
	s->centre_a = st.centre_a;
	s->half_a = st.half_a;
	s->centre_b = st.centre_b;
	s->half_b = st.half_b;
	s->diff = st.diff;
	s->diff_lo = st.diff_lo;
	s->diff_hi = st.diff_hi;
	s->p = st.p;
	s->p_adj = NAN;
	s->stat = st.stat;
	s->df = st.df;
	s->pct = (ratio[0] - 1) * 100;
	s->pct_lo = (ratio[1] - 1) * 100;
	s->pct_hi = (ratio[2] - 1) * 100;
	if (mc->na < MIN_RUNS || mc->nb < MIN_RUNS)
		mc->verdict = XVBD_AB_V_WEAK;
	else if (!st.significant)
		mc->verdict = XVBD_AB_V_NO_DIFF;
	else
		mc->verdict = b_higher(mc) == info->higher_is_better ?
			      XVBD_AB_V_BETTER : XVBD_AB_V_WORSE;
	verdict_text(mc, confidence);
	rc = ab_metric_extras(c, mc, xa, xb, sa, sb, pg);
out:
	free(xa);
	free(xb);
	return rc;
}

/* ---- warnings ---- */

/* Facts that differ among one label's runs (each key once). */
static int warn_within(struct xvbd_ab_comparison *c, const char *side,
		       const struct xvbd_ab_record *r, size_t n)
{
	struct xvbd_ab_fpdiff *seen = NULL;
	size_t nseen = 0, i, j, k;
	int rc = 0;

	for (i = 1; i < n && !rc; i++) {
		struct xvbd_ab_fpdiff *d;
		size_t nd;

		rc = xvbd_ab_fp_diff(&r[0].fp, &r[i].fp, &d, &nd);
		if (rc)
			break;
		for (j = 0; j < nd && !rc; j++) {
			struct xvbd_ab_fpdiff *grown;

			for (k = 0; k < nseen; k++)
				if (!strcmp(seen[k].key, d[j].key))
					break;
			if (k < nseen)
				continue;
			grown = realloc(seen, (nseen + 1) * sizeof(*seen));
			if (!grown) {
				rc = -ENOMEM;
				break;
			}
			seen = grown;
			seen[nseen++] = d[j];
			rc = ab_warn(c, "runs of %s differ among themselves: "
				  "%s: %s %s, %s %s: %s", side, d[j].key,
				  r[0].id, d[j].a ? d[j].a : "-", r[i].id,
				  d[j].b ? d[j].b : "-", d[j].distorts);
		}
		free(d);
	}
	free(seen);
	return rc;
}

/* Per run: intervals left out, incomplete runs, the recorder's notes. */
static int warn_runs(struct xvbd_ab_comparison *c, const char *side,
		     const struct xvbd_ab_record *r,
		     const struct xvbd_ab_summary *s, size_t n)
{
	size_t i, k;
	int rc = 0;

	for (i = 0; i < n && !rc; i++) {
		if (s[i].nflagged)
			rc = ab_warn(c, "%s run %s: %zu of %zu intervals "
				  "flagged and left out: CPU time outran wall "
				  "time x vCPUs, or time did not advance (a "
				  "time-base problem, e.g. a clock running "
				  "fast, makes every rate of such an interval "
				  "wrong)",
				  side, r[i].id, s[i].nflagged,
				  s[i].nintervals);
		if (!rc && s[i].nreset)
			rc = ab_warn(c, "%s run %s: %zu of %zu intervals left "
				  "out: counters reset or went back "
				  "(re-attach, re-connect, domain replaced)",
				  side, r[i].id, s[i].nreset,
				  s[i].nintervals);
		if (!rc && !s[i].used_ns)
			rc = ab_warn(c, "%s run %s: no usable interval: left "
				  "out of every metric", side, r[i].id);
		if (!rc && !r[i].complete)
			rc = ab_warn(c, "%s run %s did not end as planned "
				  "(incomplete): its counted time is shorter",
				  side, r[i].id);
		for (k = 1; k < r[i].nsamples && !rc; k++) {
			const struct xvbd_ab_sample *s0 = &r[i].samples[0];

			if (r[i].samples[k].guest_vcpus == s0->guest_vcpus &&
			    r[i].samples[k].dom0_vcpus == s0->dom0_vcpus)
				continue;
			rc = ab_warn(c, "%s run %s: the online vCPUs changed "
				  "during the run (guest %u -> %u, dom0 %u -> "
				  "%u at sample %zu)", side, r[i].id,
				  s0->guest_vcpus,
				  r[i].samples[k].guest_vcpus, s0->dom0_vcpus,
				  r[i].samples[k].dom0_vcpus, k);
			break;
		}
		if (!rc && r[i].workload_status)
			rc = ab_warn(c, "%s run %s: the workload exited with "
				  "status %d: it may not have done its work",
				  side, r[i].id, r[i].workload_status);
		for (k = 0; k < r[i].nnotes && !rc; k++)
			rc = ab_warn(c, "%s run %s: recorder: %s", side,
				  r[i].id, r[i].notes[k]);
	}
	return rc;
}

/*
 * Facts that are never the variable under test, even alone: a different
 * workload is a different experiment, a different xvbd a different
 * measuring instrument.  Their difference is always a confounder.
 */
static bool never_variable(const char *key)
{
	return !strcmp(key, "workload") || !strcmp(key, "xvbd.version") ||
	       !strncmp(key, XVBD_AB_FP_WORKLOAD_PREFIX,
			strlen(XVBD_AB_FP_WORKLOAD_PREFIX));
}

/*
 * A and B created from different config files is how an experiment on a
 * config setting looks: what the files set for the guest is recorded as
 * its own facts (vCPUs, memory, disks).  Among one label's runs it is a
 * difference (warn_within).
 */
static void drop_config_hash(struct xvbd_ab_comparison *c)
{
	size_t i, n = 0;

	for (i = 0; i < c->ndiffs; i++)
		if (strcmp(c->diffs[i].key, XVBD_AB_FP_CONFIG_KEY))
			c->diffs[n++] = c->diffs[i];
	c->ndiffs = n;
}

/* Each offer that differs without its choice: it did not take effect. */
static int warn_not_taken(struct xvbd_ab_comparison *c)
{
	char line[1024];
	size_t i;
	int rc = 0;

	for (i = 0; i < c->ndiffs && !rc; i++)
		if (c->diffs[i].not_taken) {
			xvbd_ab_fp_not_taken_text(&c->diffs[i], line,
						  sizeof(line));
			rc = ab_warn(c, "%s", line);
		}
	return rc;
}

/*
 * Differences that follow from another one (a frontend's choice of a
 * changed offer) are part of it: one variable under test may show as
 * several facts.
 */
static int warn_fingerprints(struct xvbd_ab_comparison *c,
			     const struct xvbd_ab_fp *a,
			     const struct xvbd_ab_fp *b)
{
	char line[1024];
	size_t i, alone, first = 0;
	int rc;

	if (!c->ndiffs)
		return ab_warn(c, "the fingerprints of A and B do not differ: "
			    "no variable under test was recorded (the "
			    "change is outside what xvbd records, e.g. "
			    "inside the guest, or there is none)");
	alone = xvbd_ab_fp_relate(a, b, c->diffs, c->ndiffs);
	rc = warn_not_taken(c);
	while (first < c->ndiffs && c->diffs[first].follows)
		first++;
	if (first == c->ndiffs)
		first = 0;	/* none alone: cannot happen, stay in bounds */
	if (rc || (alone == 1 && !never_variable(c->diffs[first].key))) {
		if (!rc)
			c->variable = (long)first;
		return rc;
	}
	for (i = 0; i < c->ndiffs && !rc; i++) {
		if (c->diffs[i].follows)
			continue;
		/* The workload's own facts in one line, both sides' jobs. */
		if (strncmp(c->diffs[i].key, XVBD_AB_FP_WORKLOAD_PREFIX,
			    strlen(XVBD_AB_FP_WORKLOAD_PREFIX)) ||
		    xvbd_ab_workload_diff_text(a, b, line, sizeof(line)) ==
		    -ENOENT)
			xvbd_ab_fp_diff_text(&c->diffs[i], line, sizeof(line));
		rc = ab_warn(c, "%s", line);
	}
	if (!rc && alone > 1)
		rc = ab_warn(c, "%zu facts differ between A and B: the effect "
			  "cannot be attributed to one of them", alone);
	else if (!rc)
		rc = ab_warn(c, "%s cannot be the variable under test: A and B "
			  "are not the same experiment", c->diffs[first].key);
	return rc;
}

/*
 * The same on both sides is no confounder, but a disk dom0's page cache
 * serves on both sides still makes read rates a measure of dom0's RAM.
 */
static int warn_cached(struct xvbd_ab_comparison *c,
		       const struct xvbd_ab_fp *a, const struct xvbd_ab_fp *b)
{
	size_t i, k;
	int rc = 0;

	for (i = 0; i < a->n && !rc; i++) {
		const struct xvbd_ab_fact *f = &a->facts[i];
		size_t len = strlen(f->key);

		if (strncmp(f->key, "vbd.", 4) || len < 15 ||
		    strcmp(f->key + len - 11, ".dom0_cache") ||
		    strcmp(f->value, "host"))
			continue;
		for (k = 0; k < b->n; k++)
			if (!strcmp(b->facts[k].key, f->key))
				break;
		if (k == b->n || strcmp(b->facts[k].value, "host"))
			continue;	/* a difference: warned as one */
		rc = ab_warn(c, "%s: host on both sides: dom0's page cache can "
			  "serve reads of this file-backed disk, so read rates "
			  "may measure dom0's RAM rather than the disk (drop "
			  "dom0's caches between runs, or use direct I/O)",
			  f->key);
	}
	return rc;
}

/* Smallest two-sided p an exact Mann-Whitney U can give: 2 / C(n, k). */
static double mwu_min_p(size_t na, size_t nb)
{
	double comb = 1;
	size_t i;

	for (i = 1; i <= na; i++)
		comb = comb * (double)(nb + i) / (double)i;
	return 2.0 / comb;
}

static int warn_data(struct xvbd_ab_comparison *c, size_t na, size_t nb)
{
	double pmin;
	int rc = 0;

	if (na < MIN_RUNS)
		rc = ab_warn(c, "only %zu run%s of A: with fewer than %d "
			  "runs per label every verdict is weak; record "
			  "more runs", na, na == 1 ? "" : "s", MIN_RUNS);
	if (!rc && nb < MIN_RUNS)
		rc = ab_warn(c, "only %zu run%s of B: with fewer than %d "
			  "runs per label every verdict is weak; record "
			  "more runs", nb, nb == 1 ? "" : "s", MIN_RUNS);
	if (rc || c->test != XVBD_AB_TEST_MWU || na < MIN_RUNS ||
	    nb < MIN_RUNS)
		return rc;
	pmin = mwu_min_p(na, nb);
	if (pmin > 1 - c->confidence)
		rc = ab_warn(c, "Mann-Whitney U on %zu and %zu runs cannot "
			  "prove a difference at %g %% (smallest p %.3g): "
			  "record more runs or use Welch's t", na, nb,
			  c->confidence * 100, pmin);
	return rc;
}

int xvbd_ab_compare(const struct xvbd_ab_record *a, size_t na,
		    const struct xvbd_ab_record *b, size_t nb,
		    double confidence, enum xvbd_ab_test test,
		    struct xvbd_ab_comparison *out)
{
	struct xvbd_ab_compare_opts o = {
		.confidence = confidence, .test = test,
	};

	return xvbd_ab_compare_with(a, na, b, nb, &o, out);
}

static int check_opts(const struct xvbd_ab_compare_opts *o)
{
	if (!o || !(o->confidence > 0 && o->confidence < 1) ||
	    (o->test != XVBD_AB_TEST_WELCH && o->test != XVBD_AB_TEST_MWU))
		return -EINVAL;
	if (!(o->equivalence >= 0 && o->equivalence < 1) ||
	    !(o->min_effect >= 0 && o->min_effect < 1) ||
	    !(o->interference_cpu >= 0 && o->interference_cpu <= 1))
		return -EINVAL;
	return 0;
}

/* The options into out; the pairing when the test can use it. */
static int compare_setup(const struct xvbd_ab_record *a, size_t na,
			 const struct xvbd_ab_record *b, size_t nb,
			 const struct xvbd_ab_compare_opts *o,
			 struct xvbd_ab_comparison *out,
			 struct ab_pairing *pg)
{
	int rc;

	out->label_a = a[0].label;
	out->label_b = b[0].label;
	out->runs_a = na;
	out->runs_b = nb;
	out->confidence = o->confidence;
	out->test = o->test;
	out->equivalence = o->equivalence;
	out->min_effect = o->min_effect > 0 ? o->min_effect :
			  XVBD_AB_MIN_EFFECT_DEFAULT;
	out->power = XVBD_AB_POWER;
	if (o->test != XVBD_AB_TEST_WELCH || o->unpaired)
		return 0;
	rc = ab_pairing_make(a, na, b, nb, pg);
	if (rc || !pg->n)
		return rc;
	out->test = XVBD_AB_TEST_PAIRED;
	out->pairs = pg->n;
	out->experiment = a[0].experiment;
	return 0;
}

int xvbd_ab_compare_with(const struct xvbd_ab_record *a, size_t na,
			 const struct xvbd_ab_record *b, size_t nb,
			 const struct xvbd_ab_compare_opts *opts,
			 struct xvbd_ab_comparison *out)
{
	struct xvbd_ab_summary *sa = NULL, *sb = NULL;
	struct ab_pairing pg = { 0 };
	size_t i;
	int rc = 0, m;

	memset(out, 0, sizeof(*out));
	out->variable = -1;
	if (!a || !b || !na || !nb || check_opts(opts))
		return -EINVAL;
	rc = compare_setup(a, na, b, nb, opts, out, &pg);
	if (rc)
		goto out;
	sa = calloc(na, sizeof(*sa));
	sb = calloc(nb, sizeof(*sb));
	if (!sa || !sb) {
		rc = -ENOMEM;
		goto out;
	}
	for (i = 0; i < na && !rc; i++)
		rc = xvbd_ab_summarize(&a[i], &sa[i]);
	for (i = 0; i < nb && !rc; i++)
		rc = xvbd_ab_summarize(&b[i], &sb[i]);
	for (m = 0; m < XVBD_AB_NMETRICS && !rc; m++) {
		out->m[m].metric = (enum xvbd_ab_metric)m;
		rc = compare_metric(out, &out->m[m], sa, na, sb, nb, &pg);
	}
	if (!rc)
		rc = xvbd_ab_fp_diff(&a[0].fp, &b[0].fp, &out->diffs,
				     &out->ndiffs);
	if (!rc)
		drop_config_hash(out);
	if (!rc)
		rc = warn_fingerprints(out, &a[0].fp, &b[0].fp);
	if (!rc)
		rc = warn_cached(out, &a[0].fp, &b[0].fp);
	if (!rc)
		rc = warn_within(out, "A", a, na);
	if (!rc)
		rc = warn_within(out, "B", b, nb);
	if (!rc)
		rc = warn_runs(out, "A", a, sa, na);
	if (!rc)
		rc = warn_runs(out, "B", b, sb, nb);
	if (!rc)
		rc = ab_interf_compare(out, "A", a, na,
				       opts->interference_cpu);
	if (!rc)
		rc = ab_interf_compare(out, "B", b, nb,
				       opts->interference_cpu);
	if (!rc)
		rc = ab_account_compare(out, "A", a, na);
	if (!rc)
		rc = ab_account_compare(out, "B", b, nb);
	if (!rc)
		rc = warn_data(out, na, nb);
out:
	free(sa);
	free(sb);
	ab_pairing_free(&pg);
	if (rc)
		xvbd_ab_comparison_free(out);
	return rc;
}

int xvbd_ab_comparison_note_sequential(struct xvbd_ab_comparison *c,
				       enum xvbd_ab_metric m,
				       const char *decision)
{
	c->sequential_stop = true;
	return ab_warn(c, "sequential stop: only the sequential decision (%s, "
		    "%s) keeps its error rate: the runs stopped when its "
		    "always-valid sequence settled, and these fixed-N "
		    "verdicts on the same runs do not account for that stop "
		    "(by simulation one says \"different\" in ~5.5 %% of "
		    "experiments without one at 95 %%): read them as "
		    "descriptive", xvbd_ab_metrics[m].name, decision);
}

/*
 * Holm over the metrics that have a p and are shown: with eight metrics
 * at 95 % each, one or more is "different" by chance in about a third
 * of A/A comparisons; with the adjusted p the share stays within 5 %.
 * The intervals stay per metric (stated in the output).
 */
int xvbd_ab_compare_adjust(struct xvbd_ab_comparison *c,
			   const bool *shown_metrics, bool adjust)
{
	double p[XVBD_AB_NMETRICS], adj[XVBD_AB_NMETRICS];
	int m;

	for (m = 0; m < XVBD_AB_NMETRICS; m++) {
		const struct xvbd_ab_metric_cmp *mc = &c->m[m];

		p[m] = (!shown_metrics || shown_metrics[m]) ? mc->s.p : NAN;
	}
	c->family = xvbd_stat_holm(p, XVBD_AB_NMETRICS, adj);
	c->adjusted = adjust && c->family > 1;
	for (m = 0; m < XVBD_AB_NMETRICS; m++) {
		struct xvbd_ab_metric_cmp *mc = &c->m[m];

		mc->s.p_adj = adj[m];
		if (!c->adjusted || isnan(adj[m]) ||
		    (mc->verdict != XVBD_AB_V_BETTER &&
		     mc->verdict != XVBD_AB_V_WORSE) ||
		    adj[m] < 1 - c->confidence)
			continue;
		mc->verdict = XVBD_AB_V_NO_DIFF;
		snprintf(mc->text, sizeof(mc->text), "no difference proven at "
			 "%g %% after Holm's adjustment over %zu metrics (p "
			 "%.2g, adjusted %.2g)", c->confidence * 100,
			 c->family, mc->s.p, adj[m]);
	}
	return 0;
}
