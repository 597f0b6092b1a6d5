/*
 * cmd_ab_run_seq.c - what `ab run --until-confident` says about its
 * sequential procedure (ab_seq.c): the noise the cap can settle before
 * the first run, the warning once the first pairs show more noise, the
 * effect the cap could have shown when it ends exhausted, and the
 * decision in the output.
 *
 * The lab's paired runs have an sd of ln(B/A) of 0.2-0.5, where the
 * default 20 pairs settle nothing near 5 %: the user is told before the
 * runs are spent, and told what was within reach after.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "cmd_ab_run_impl.h"
#include "xvbd/ab/ab_stat.h"
#include "xvbd/ab/ab_sweep.h"

/* The estimate and the sequence's interval so far, as % of the baseline. */
static void render_effect(struct xvbd_out *out,
			  const struct xvbd_seq_state *st)
{
	xvbd_out_fixed_opt(out, "effect_pct", st->n > 0,
			   (exp(st->mean) - 1) * 100, 2);
	xvbd_out_fixed_opt(out, "effect_lo_pct", isfinite(st->lo),
			   (exp(st->lo) - 1) * 100, 2);
	xvbd_out_fixed_opt(out, "effect_hi_pct", isfinite(st->hi),
			   (exp(st->hi) - 1) * 100, 2);
}

void ab_run_seq_render(struct xvbd_out *out, int metric,
		       const struct xvbd_seq_params *sp,
		       const struct xvbd_seq_state *st)
{
	xvbd_out_obj_begin(out, "sequential");
	xvbd_out_str(out, "metric", xvbd_ab_metric_name(metric));
	xvbd_out_str(out, "procedure", "always-valid confidence sequence "
		     "(mixture e-value, safe t-test) on ln(B/A) of ABBA pairs");
	xvbd_out_uint(out, "pairs", st->n);
	xvbd_out_str(out, "decision", xvbd_seq_decision_name(st->decision));
	render_effect(out, st);
	xvbd_out_fixed_opt(out, "min_effect_pct", true, sp->min_effect * 100,
			   2);
	/* "equivalent" meant inside +-this (--equivalence), when given */
	xvbd_out_fixed_opt(out, "equivalence_pct", sp->equivalence > 0,
			   sp->equivalence * 100, 2);
	xvbd_out_obj_end(out);
}

/* Before the first run: the noise the cap can settle, against which the
 * user can hold what they know of their host. */
void ab_run_seq_say_cap(const struct xvbd_seq_params *sp)
{
	fprintf(stderr, "xvbd: ab run: --max-runs %zu settles +-%g %% only if "
		"the sd of ln(B/A) between paired runs is below %.3f; with "
		"more noise expect \"exhausted\" (raise --max-runs or "
		"--min-effect)\n", sp->max_pairs, sp->min_effect * 100,
		xvbd_seq_sd_settles(sp));
}

/* One bound of the sequence as B/A %: the first pairs' radius is
 * infinite (no bound yet), which is said in words, not as "+inf %". */
static void say_bound(double x)
{
	if (isinf(x) && x > 0)
		fputs("unbounded", stderr);
	else
		fprintf(stderr, "%+.2f %%", (exp(x) - 1) * 100);
}

/* "[lo %, hi %]" */
static void say_interval(const struct xvbd_seq_state *st)
{
	fputc('[', stderr);
	say_bound(st->lo);
	fputs(", ", stderr);
	say_bound(st->hi);
	fputc(']', stderr);
}

/* After each pair: the decision so far and the sequence's interval (none
 * from one pair: its spread is unknown). */
void ab_run_seq_say_pair(int metric, const struct xvbd_seq_state *st)
{
	fprintf(stderr, "xvbd: ab run: %zu pair%s: %s %s, B/A %+.2f %% ",
		st->n, st->n == 1 ? "" : "s", xvbd_ab_metric_name(metric),
		xvbd_seq_decision_name(st->decision),
		(exp(st->mean) - 1) * 100);
	if (isnan(st->lo) || isnan(st->hi)) {
		fputs("(no interval from one pair)\n", stderr);
		return;
	}
	say_interval(st);
	fputc('\n', stderr);
}

/* "about 208 pairs", or more than the sizing looks at. */
static void say_pairs(size_t need)
{
	if (need == SIZE_MAX)
		fprintf(stderr, "more than %d pairs", XVBD_SEQ_SETTLE_MAX);
	else
		fprintf(stderr, "about %zu pairs", need);
}

/* Once the noise is seen (3 pairs): warn when the cap will not do. */
void ab_run_seq_warn_cap(const struct xvbd_seq_params *sp,
			 const struct xvbd_seq_state *st)
{
	size_t need = xvbd_seq_pairs_to_settle(sp, st->sd);

	if (st->n != 3 || st->decision != XVBD_SEQ_CONTINUE ||
	    need <= sp->max_pairs)
		return;
	fprintf(stderr, "xvbd: ab run: warning: at the noise of the first 3 "
		"pairs (sd of ln(B/A) %.3f) settling +-%g %% takes ", st->sd,
		sp->min_effect * 100);
	say_pairs(need);
	fprintf(stderr, ", more than --max-runs %zu: expect \"exhausted\" "
		"unless the effect is beyond +-%.1f %% (interrupt keeps the "
		"runs; raise --max-runs or --min-effect)\n", sp->max_pairs,
		(exp(xvbd_seq_radius_at_cap(sp, st->sd)) - 1) * 100);
}

/*
 * Exhausted: at the noise of all the pairs, the smallest effect the cap
 * could have shown (the sequence's radius there) and what settling
 * +-min effect would take, so that the next experiment is sized.
 */
void ab_run_seq_say_exhausted(const struct xvbd_seq_params *sp,
			      const struct xvbd_seq_state *st)
{
	if (st->decision != XVBD_SEQ_EXHAUSTED || !isfinite(st->sd))
		return;
	fprintf(stderr, "xvbd: ab run: exhausted after %zu pairs: at their "
		"noise (sd of ln(B/A) %.3f) %zu pairs show a difference only "
		"beyond about +-%.1f %%, and settling +-%g %% takes ", st->n,
		st->sd, sp->max_pairs,
		(exp(xvbd_seq_radius_at_cap(sp, st->sd)) - 1) * 100,
		sp->min_effect * 100);
	say_pairs(xvbd_seq_pairs_to_settle(sp, st->sd));
	fprintf(stderr, " (raise --max-runs or --min-effect, or reduce the "
		"noise)\n");
}

/*
 * More than two levels: after each block, each level's decision so far
 * against the baseline, its estimate and (after the first block) its
 * sequence's interval, on one line.
 */
void ab_run_seq_say_block(int metric, const struct xvbd_ab_sweep_seq *ss,
			  const char *const *labels)
{
	size_t i;

	fprintf(stderr, "xvbd: ab run: %zu block%s: %s against %s:",
		ss->blocks, ss->blocks == 1 ? "" : "s",
		xvbd_ab_metric_name(metric), labels[ss->baseline]);
	for (i = 0; i < ss->nlevels; i++) {
		const struct xvbd_seq_state *st = &ss->st[i];

		if (i == ss->baseline)
			continue;
		fprintf(stderr, " %s %s %+.2f %%", labels[i],
			xvbd_seq_decision_name(st->decision),
			(exp(st->mean) - 1) * 100);
		if (isnan(st->lo) || isnan(st->hi))
			continue;
		fputc(' ', stderr);
		say_interval(st);
	}
	fprintf(stderr, " (%s)\n", xvbd_ab_sweep_stop_name(ss->stop));
}

void ab_run_seq_render_levels(struct xvbd_out *out, int metric,
			      const struct xvbd_ab_sweep_seq *ss,
			      const struct xvbd_ab_level *lv)
{
	size_t i;

	xvbd_out_obj_begin(out, "sequential");
	xvbd_out_str(out, "metric", xvbd_ab_metric_name(metric));
	xvbd_out_str(out, "procedure", "always-valid confidence sequences "
		     "(mixture e-value, safe t-test) on ln(level / baseline) "
		     "of each block, each at alpha / (k - 1) (Bonferroni)");
	xvbd_out_uint(out, "blocks", ss->blocks);
	xvbd_out_str(out, "stop", xvbd_ab_sweep_stop_name(ss->stop));
	xvbd_out_arr_begin(out, "levels");
	for (i = 0; i < ss->nlevels; i++) {
		const struct xvbd_seq_state *st = &ss->st[i];

		if (i == ss->baseline)
			continue;
		xvbd_out_obj_begin(out, NULL);
		xvbd_out_str(out, "label", lv[i].label);
		xvbd_out_str(out, "decision",
			     xvbd_seq_decision_name(st->decision));
		xvbd_out_uint(out, "decided_at_block", ss->decided_at[i]);
		render_effect(out, st);
		xvbd_out_obj_end(out);
	}
	xvbd_out_arr_end(out);
	xvbd_out_obj_end(out);
}
