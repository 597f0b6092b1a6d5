/*
 * cmd_ab_run_exp.c - ab run's experiment: the runs in blocks, each block
 * every level once in the order of a Williams design (ab_order.c: ABBA
 * for two levels), each run's block and position in its record; after
 * each block under --until-confident the sequential procedure (two
 * levels: one sequence of ln(B/A); more: one per level against the
 * baseline, the error controlled over the k - 1, ab_sweep_seq.c); at the
 * end the verdict, ab compare's on this experiment's records (two
 * levels: the A/B comparison; more: the sweep's table against the
 * baseline, Holm over levels x metrics) and, with --fail-if-worse P,
 * ab compare's gate on it (exit 3 when it fails).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmd_ab_run_impl.h"
#include "xvbd/ab/ab_sweep.h"
#include "xvbd/cmd/ab/cmd_ab.h"
#include "xvbd/base/sig.h"
#include "xvbd/base/util.h"

#define CMD		"ab run"
#define NS_PER_S	UINT64_C(1000000000)

/* The sequential procedure's state over the blocks. */
struct seq_run {
	struct xvbd_seq_params sp;
	struct xvbd_seq_state st;	/* two levels: ln(B/A) */
	struct xvbd_ab_sweep_seq ss;	/* more: each against the baseline */
	double *d[XVBD_AB_LEVELS_MAX];	/* level i's ratio, block by block */
};

/* The busier direction's MB/s, from the first block's baseline run. */
static int default_metric(const struct xvbd_ab_record *a)
{
	struct xvbd_ab_summary s;

	if (xvbd_ab_summarize(a, &s))
		return XVBD_AB_RD_MBS;
	return s.value[XVBD_AB_WR_MBS] > s.value[XVBD_AB_RD_MBS] ?
	       XVBD_AB_WR_MBS : XVBD_AB_RD_MBS;
}

static void say_progress(struct xvbd_ctx *ctx, const struct run_opts *o,
			 size_t run, size_t total, const struct side *sd)
{
	const struct xvbd_ab_record *r = &sd->recs[sd->nrecs - 1];
	struct xvbd_ab_summary s;
	int m = o->metric >= 0 ? o->metric : XVBD_AB_RD_MBS;
	char of[32] = "";

	if (ctx->opts->quiet || xvbd_ab_summarize(r, &s))
		return;
	/* --until-confident: no total to show ("run 3", not "run 30"). */
	if (total)
		snprintf(of, sizeof(of), "/%zu", total);
	fprintf(stderr, "xvbd: ab run: run %zu%s %s: %s %.*f %s (%s)\n",
		run, of, sd->label,
		xvbd_ab_metric_name(m), xvbd_ab_metrics[m].decimals,
		s.known[m] ? s.value[m] : 0.0, xvbd_ab_metric_unit(m), r->id);
}

/*
 * The id every run of this experiment carries with its block's index:
 * ab compare pairs the levels' runs by them (ab_compare_pair.c).
 */
static int experiment_id(struct run_opts *o)
{
	struct timespec now;
	int err;

	clock_gettime(CLOCK_REALTIME, &now);
	err = xvbd_ab_make_id("ab-run", (int64_t)now.tv_sec *
			      (int64_t)NS_PER_S + now.tv_nsec, o->experiment,
			      sizeof(o->experiment));
	if (err) {
		xvbd_err(CMD, "experiment", "%s", strerror(-err));
		return err;
	}
	o->rec.experiment = o->experiment;
	return 0;
}

/*
 * After block b: each level's log-ratio with the baseline's run of the
 * block, into its sequence.  1: the experiment stops; 0: it goes on; an
 * exit code (negative of it) on error.
 */
static int seq_step(struct xvbd_ctx *ctx, struct run_opts *o,
		    struct seq_run *q, size_t b)
{
	const struct xvbd_ab_record *base = &o->side[0].recs[b];
	const char *labels[XVBD_AB_LEVELS_MAX];
	size_t i;

	if (o->metric < 0)
		o->metric = default_metric(&o->side[0].recs[0]);
	for (i = 1; i < o->nsides; i++) {
		if (xvbd_ab_pair_logratio(base, &o->side[i].recs[b],
					  o->metric, &q->d[i][b]))
			continue;
		xvbd_err(CMD, xvbd_ab_metric_name(o->metric), "%s %zu has no "
			 "%s on a %s (no I/O of that kind?): choose another "
			 "--metric", o->nsides == 2 ? "pair" : "block", b + 1,
			 xvbd_ab_metric_name(o->metric),
			 o->nsides == 2 ? "side" : "level");
		return -XVBD_EXIT_FAIL;
	}
	if (o->nsides > 2) {
		if (xvbd_ab_sweep_seq_step(&q->ss, (const double *const *)q->d,
					   b + 1))
			return -XVBD_EXIT_FAIL;
		for (i = 0; i < o->nsides; i++)
			labels[i] = o->side[i].label;
		if (!ctx->opts->quiet)
			ab_run_seq_say_block(o->metric, &q->ss, labels);
		return q->ss.stop != XVBD_AB_SWEEP_GO_ON;
	}
	if (xvbd_seq_decide(q->d[1], b + 1, &q->sp, &q->st))
		return -XVBD_EXIT_FAIL;
	if (!ctx->opts->quiet)
		ab_run_seq_say_pair(o->metric, &q->st);
	ab_run_seq_warn_cap(&q->sp, &q->st);
	return q->st.decision != XVBD_SEQ_CONTINUE;
}

/*
 * --fail-if-worse P: what `ab compare LEVELS --fail-if-worse P` says of
 * this experiment's records (with --metric M: of M alone, as `ab
 * compare --metric M`), told on stderr and carried as "gate".
 */
static int gate(struct xvbd_ctx *ctx, const struct run_opts *o,
		const struct xvbd_ab_compare_opts *co)
{
	struct xvbd_ab_level lv[XVBD_AB_LEVELS_MAX];
	bool shown[XVBD_AB_NMETRICS] = { false }, some = false;
	size_t i;

	if (!(o->gate_pct > 0))
		return XVBD_EXIT_OK;
	for (i = 0; i < o->nsides; i++)
		lv[i] = (struct xvbd_ab_level){ o->side[i].label,
						o->side[i].recs,
						o->side[i].nrecs };
	if (xvbd_opt(ctx, O_METRIC)) {
		shown[o->metric] = true;
		some = true;
	}
	xvbd_ab_cli_default_metrics(lv, o->nsides, shown, &some);
	return xvbd_ab_cli_gate_levels(ctx->cmd, lv, o->nsides, co,
				       some ? shown : NULL, o->gate_pct,
				       ctx->out, "gate");
}

/* Two levels: ab compare's A/B comparison, as it has always been. */
static int verdict_two(struct xvbd_ctx *ctx, struct run_opts *o, size_t run,
		       const struct xvbd_ab_compare_opts *co,
		       const struct seq_run *q)
{
	struct xvbd_ab_comparison cmp;
	int rc;

	if (xvbd_ab_compare_with(o->side[0].recs, o->side[0].nrecs,
				 o->side[1].recs, o->side[1].nrecs, co, &cmp))
		return XVBD_EXIT_FAIL;
	/* all eight metrics shown: Holm over them, as ab compare */
	xvbd_ab_compare_adjust(&cmp, NULL, true);
	if (o->until_confident && o->metric >= 0 &&
	    xvbd_ab_comparison_note_sequential(&cmp, o->metric,
				xvbd_seq_decision_name(q->st.decision))) {
		xvbd_ab_comparison_free(&cmp);
		return XVBD_EXIT_FAIL;
	}
	xvbd_out_obj_begin(ctx->out, NULL);
	xvbd_out_str(ctx->out, "a", o->side[0].label);
	xvbd_out_str(ctx->out, "b", o->side[1].label);
	xvbd_out_uint(ctx->out, "runs", run);
	xvbd_out_str(ctx->out, "order", ab_run_order_name(2));
	xvbd_out_str(ctx->out, "dir", o->dir);
	if (o->until_confident)
		ab_run_seq_render(ctx->out, o->metric, &q->sp, &q->st);
	xvbd_ab_comparison_render(ctx->out, "comparison", &cmp, NULL);
	rc = gate(ctx, o, co);
	xvbd_out_obj_end(ctx->out);
	xvbd_ab_comparison_free(&cmp);
	return rc;
}

/* More: the sweep's table, every level against the baseline. */
static int verdict_levels(struct xvbd_ctx *ctx, struct run_opts *o,
			  size_t run, const struct xvbd_ab_compare_opts *co,
			  const struct seq_run *q)
{
	struct xvbd_ab_sweep_opts so = { .cmp = *co };
	struct xvbd_ab_level lv[XVBD_AB_LEVELS_MAX];
	struct xvbd_ab_sweep *s = calloc(1, sizeof(*s));
	size_t i;
	int err;

	if (!s)
		return XVBD_EXIT_FAIL;
	for (i = 0; i < o->nsides; i++)
		lv[i] = (struct xvbd_ab_level){ o->side[i].label,
						o->side[i].recs,
						o->side[i].nrecs };
	err = xvbd_ab_sweep_compare(lv, o->nsides, 0, &so, s);
	if (err) {
		xvbd_err(CMD, "compare", "%s", strerror(-err));
		free(s);
		return XVBD_EXIT_FAIL;
	}
	xvbd_out_obj_begin(ctx->out, NULL);
	xvbd_out_arr_begin(ctx->out, "levels");
	for (i = 0; i < o->nsides; i++)
		xvbd_out_str(ctx->out, NULL, o->side[i].label);
	xvbd_out_arr_end(ctx->out);
	xvbd_out_str(ctx->out, "baseline", o->side[0].label);
	xvbd_out_uint(ctx->out, "runs", run);
	xvbd_out_str(ctx->out, "order", ab_run_order_name(o->nsides));
	xvbd_out_str(ctx->out, "dir", o->dir);
	if (o->until_confident)
		ab_run_seq_render_levels(ctx->out, o->metric, &q->ss, lv);
	xvbd_ab_sweep_render(ctx->out, "comparison", s, NULL);
	err = gate(ctx, o, co);
	xvbd_out_obj_end(ctx->out);
	xvbd_ab_sweep_free(s);
	free(s);
	return err;
}

/* One block: every level once, in its row of the design. */
static int run_block(struct xvbd_ctx *ctx, struct run_opts *o, size_t b,
		     size_t total, size_t *run, const char **stopped_by)
{
	size_t order[XVBD_AB_LEVELS_MAX], pos;
	int rc;

	o->rec.pair = (uint32_t)(b + 1);
	if (xvbd_ab_order(o->nsides, b, order))
		return XVBD_EXIT_FAIL;
	for (pos = 0; pos < o->nsides; pos++) {
		struct side *sd = &o->side[order[pos]];

		o->rec.position = (uint32_t)pos + 1;
		rc = ab_run_one(ctx, o, sd, stopped_by);
		if (rc)
			return rc;
		say_progress(ctx, o, ++*run, total, sd);
		/* Between runs, where a signal must stop the next. */
		xvbd_test_stop("ab-run-ended");
	}
	return XVBD_EXIT_OK;
}

int ab_run_experiment(struct xvbd_ctx *ctx, struct run_opts *o)
{
	struct xvbd_ab_compare_opts co = {
		.confidence = o->confidence, .test = XVBD_AB_TEST_WELCH,
		.equivalence = o->equivalence, .min_effect = o->min_effect,
	};
	size_t blocks = o->until_confident ? o->max_pairs : o->pairs;
	size_t b, i, run = 0;
	const char *stopped_by = NULL;
	struct seq_run *q = calloc(1, sizeof(*q));
	int rc = XVBD_EXIT_OK, step;

	if (!q)
		return XVBD_EXIT_FAIL;
	q->sp = (struct xvbd_seq_params){
		.alpha = 1 - o->confidence, .min_effect = o->min_effect,
		.equivalence = o->equivalence, .max_pairs = o->max_pairs,
	};
	q->st.decision = XVBD_SEQ_CONTINUE;
	for (i = 1; i < o->nsides && rc == XVBD_EXIT_OK; i++)
		if (!(q->d[i] = calloc(blocks, sizeof(double))))
			rc = XVBD_EXIT_FAIL;
	if (!rc && o->nsides > 2 && o->until_confident &&
	    xvbd_ab_sweep_seq_init(&q->ss, o->nsides, 0, &q->sp))
		rc = XVBD_EXIT_FAIL;
	if (!rc && experiment_id(o))
		rc = XVBD_EXIT_FAIL;
	if (!rc && o->until_confident && !ctx->opts->quiet)
		ab_run_seq_say_cap(&q->sp);
	for (b = 0; b < blocks && !rc; b++) {
		rc = run_block(ctx, o, b, o->until_confident ? 0 :
			       o->nsides * blocks, &run, &stopped_by);
		/*
		 * Only the sequential procedure needs each block's ratios: a
		 * fixed number of runs goes on through a block with no I/O
		 * of one kind (ab compare then says so per metric).
		 */
		if (rc || !o->until_confident)
			continue;
		step = seq_step(ctx, o, q, b);
		if (step < 0)
			rc = -step;
		if (step)
			break;
	}
	if (o->until_confident && !rc && !ctx->opts->quiet && o->nsides == 2)
		ab_run_seq_say_exhausted(&q->sp, &q->st);
	if (stopped_by || xvbd_sig_held_pending()) {
		xvbd_err(CMD, "interrupted", "%s: %zu complete run%s kept in "
			 "%s; no %s left behind", stopped_by ? stopped_by :
			 "signal", run, run == 1 ? "" : "s", o->dir,
			 o->hot.domain ? "disk under test" : "guest");
		rc = XVBD_EXIT_FAIL;
		goto out;
	}
	for (i = 0; i < o->nsides; i++)
		if (!o->side[i].nrecs) {
			rc = rc ? rc : XVBD_EXIT_FAIL;
			goto out;
		}
	/* The verdict: ab compare's, on this experiment's records only. */
	step = o->nsides == 2 ? verdict_two(ctx, o, run, &co, q) :
	       verdict_levels(ctx, o, run, &co, q);
	rc = rc ? rc : step;
out:
	for (i = 0; i < XVBD_AB_LEVELS_MAX; i++)
		free(q->d[i]);
	free(q);
	return rc;
}
