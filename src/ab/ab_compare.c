/*
 * ab_compare.c - two labels' runs -> per-metric verdicts and warnings.
 *
 * The unit of evidence is the run: every run contributes its summary
 * (ab_summary.c, Delta counter / Delta time over the run), and the
 * labels' run summaries are compared metric by metric with the test
 * asked for (xvbd_ab_metric_decide, ab_verdict.c):
 *  - Welch's t (centre: mean).  The difference B - A and its interval
 *    are Welch's; the relative difference is the ratio of the means with
 *    Fieller's set (ab_stat_fieller.c), so the uncertainty of A's mean
 *    is part of the % interval (unbounded when A's own interval
 *    includes 0; in pieces when B's few degrees of freedom let ratios
 *    near 0 pass);
 *  - the paired t of an ab run experiment's pairs (ab_compare_pair.c);
 *  - Mann-Whitney U (centre: median).  The difference is the
 *    Hodges-Lehmann shift with its distribution-free interval; the
 *    relative one is the Hodges-Lehmann shift of the logarithms,
 *    exponentiated (the typical ratio B/A), with its interval, which
 *    needs every run above 0.
 * With fewer than 3 runs on a side, or 3 pairs, the verdict is "weak"
 * whatever the numbers say.  Samples inside a run never enter a test.
 *
 * Then the fingerprints: one fact differing between the labels is the
 * variable under test; when more differ, each is a warning naming what
 * it may distort, and the effect cannot be attributed.  Differences among
 * the runs of one label, intervals left out, incomplete runs and the
 * recorder's own notes are warnings too.  A verdict is never given
 * without them.  Words: ab_compare_words.c; rendering:
 * ab_compare_render.c.  Pure (unit-tested).
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ab_compare_impl.h"

#define MIN_RUNS	XVBD_AB_MIN_RUNS

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

/*
 * One metric of two labels' runs: each run's summary (NAN where the run
 * does not know the metric), the pairs when paired, decided by
 * xvbd_ab_metric_decide (ab_verdict.c).
 */
static int compare_metric(const struct xvbd_ab_comparison *c,
			  struct xvbd_ab_metric_cmp *mc,
			  const struct xvbd_ab_summary *sa, size_t na,
			  const struct xvbd_ab_summary *sb, size_t nb,
			  const struct ab_pairing *pg)
{
	enum xvbd_ab_metric m = mc->metric;
	double *xa = calloc(na, sizeof(*xa)), *xb = calloc(nb, sizeof(*xb));
	struct xvbd_ab_values v = {
		.a = xa, .b = xb, .na = na, .nb = nb,
		.ia = pg->ia, .ib = pg->ib, .npairs = pg->n,
	};
	size_t i;
	int rc = -ENOMEM;

	if (!xa || !xb)
		goto out;
	for (i = 0; i < na; i++)
		xa[i] = sa[i].known[m] ? sa[i].value[m] : NAN;
	for (i = 0; i < nb; i++)
		xb[i] = sb[i].known[m] ? sb[i].value[m] : NAN;
	rc = xvbd_ab_metric_decide(c, &v, mc);
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
		    "descriptive", xvbd_ab_metric_name(m), decision);
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
		mc->holm = true;
		mc->runs_status = ab_runs_status(c, mc);
	}
	return 0;
}
