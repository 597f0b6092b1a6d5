/*
 * ab_sweep.h - experiments over k >= 2 levels of one setting: the order
 * their runs take, the comparison of every level with a baseline, the
 * gate a pipeline can fail on, the sequential stop over the k - 1
 * comparisons, and the picture of a metric against the levels.  Pure:
 * no I/O (unit-tested).
 *
 *	src/ab/ab_order.c	the balanced order (a Williams design)
 *	src/ab/ab_sweep.c	k labels -> k - 1 comparisons with a
 *				baseline, Holm over levels x metrics
 *	src/ab/ab_sweep_fam.c	... the family: Holm, runs needed,
 *				blocks, geometric mean of the rates
 *	src/ab/ab_sweep_render.c ... through the out layer (benchstat's
 *				layout, wrapped to 100 columns; JSON)
 *	src/ab/ab_sweep_seq.c	--until-confident over k - 1 comparisons
 *	src/ab/ab_gate.c	--fail-if-worse
 *	src/ab/ab_plot_levels.c	a metric against the levels, SVG
 *
 * Two levels are today's A/B: the order is ABBA, the comparison is
 * xvbd_ab_compare_with()'s; a sweep of k levels is k - 1 such
 * comparisons, each level against the baseline's runs of the same
 * blocks, their verdicts judged as one family.
 */
#ifndef XVBD_AB_SWEEP_H
#define XVBD_AB_SWEEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "xvbd/ab/ab.h"
#include "xvbd/ab/ab_stat.h"

/*
 * XVBD_AB_LEVELS_MAX (ab.h), 16: it keeps Holm's family (15 comparisons
 * x the metrics) within xvbd_stat_holm()'s bound and a block's runs
 * within a quarter of an hour at the lab's 30-60 s per run.
 */

/* ---- the order of the runs (src/ab/ab_order.c) ---- */

/*
 * Runs go in blocks; each block runs every level once.  Block b (from
 * 0) runs the levels in the order of row b mod R of a Williams design:
 * over R blocks each level is at each position equally often (R / k
 * times) and follows each other level equally often (R / k times for k
 * even: R = k; twice over 2k rows for k odd, the rows and their
 * mirrors).  So a drift of the host over the experiment and the
 * carry-over of one run into the next (dom0's page cache, a device's
 * write-back) weigh on every level alike.  k = 2 is ABBA: A B, B A.
 * Row 0 is 0, 1, k-1, 2, k-2, ...; row r adds r to each entry mod k.
 */
size_t xvbd_ab_order_rows(size_t k);
/*
 * The levels of block b in run order: order[pos] is the level (index
 * into the experiment's levels) run at position pos.  k in 2 ..
 * XVBD_AB_LEVELS_MAX; -EINVAL otherwise.
 */
int xvbd_ab_order(size_t k, size_t block, size_t *order);

/* ---- comparison with a baseline (src/ab/ab_sweep.c) ---- */

/* One level: its label and the runs it selected. */
struct xvbd_ab_level {
	const char *label;
	const struct xvbd_ab_record *recs;
	size_t n;
};

struct xvbd_ab_sweep_opts {
	struct xvbd_ab_compare_opts cmp;	/* as ab compare's */
	const bool *shown;	/* [XVBD_AB_NMETRICS] in the family; NULL:
				   all */
	bool no_adjust;		/* each verdict at the confidence alone
				   (no Holm) */
};

/*
 * The geometric mean of the rates (IO/s and MB/s shown, known and above
 * 0 at every level's centre), benchstat's "geomean" row: per level the
 * geometric mean of its centres and, against the baseline, the
 * geometric mean of the ratios with, when the levels are paired, the
 * paired t interval of the per-block mean log-ratio.  Descriptive: no
 * verdict, not in the family.
 */
struct xvbd_ab_geomean {
	size_t nmetrics;		/* 0: no row */
	bool metric[XVBD_AB_NMETRICS];	/* the metrics in it */
	double centre[XVBD_AB_LEVELS_MAX];
	double pct[XVBD_AB_LEVELS_MAX];	/* against the baseline */
	double pct_lo[XVBD_AB_LEVELS_MAX];	/* NAN: no interval */
	double pct_hi[XVBD_AB_LEVELS_MAX];
};

struct xvbd_ab_sweep {
	size_t nlevels;
	size_t baseline;		/* index of the baseline level */
	const char *label[XVBD_AB_LEVELS_MAX];
	size_t runs[XVBD_AB_LEVELS_MAX];	/* records given */
	/*
	 * cmp[i]: level i (B) against the baseline (A); cmp[baseline] is
	 * empty (variable -1, no metrics compared).
	 */
	struct xvbd_ab_comparison cmp[XVBD_AB_LEVELS_MAX];
	double confidence;
	/*
	 * Every run is one of complete blocks of one experiment (each
	 * block with one run of every level): the comparisons are paired
	 * by block.  blocks: how many; dropped: blocks left out for
	 * missing a level's run (an experiment stopped mid-block).
	 */
	const char *experiment;
	size_t blocks, dropped;
	/*
	 * Holm over the levels x metrics with a p-value (family), when
	 * adjusted; alpha_runs is the level the runs needed are sized at:
	 * Bonferroni's alpha / family, at which every step of Holm's is at
	 * least as lenient, so the runs needed keep their power after it.
	 */
	size_t family;
	bool adjusted;
	double alpha_runs;
	struct xvbd_ab_geomean geomean;
	/* The experiment's own warnings (blocks left out, ...). */
	char **warnings;
	size_t nwarnings;
};

/*
 * Compare every level of lv[k] with lv[baseline] (k in 2 ..
 * XVBD_AB_LEVELS_MAX, every level with a run, no run in two levels:
 * -EINVAL) and judge the verdicts as one family.  Runs of one
 * experiment in whole blocks are compared pairwise by block (paired t on
 * ln(level / baseline)) unless opts->cmp.unpaired; blocks missing a
 * level's run are left out of every comparison then, with a warning.
 */
int xvbd_ab_sweep_compare(const struct xvbd_ab_level *lv, size_t k,
			  size_t baseline,
			  const struct xvbd_ab_sweep_opts *opts,
			  struct xvbd_ab_sweep *out);
void xvbd_ab_sweep_free(struct xvbd_ab_sweep *s);

struct xvbd_out;
/*
 * Text: benchstat's layout, one row per metric, per level its centre
 * +- the interval's half-width in % of it, and for each level but the
 * baseline "vs <baseline>": the % with its interval and the verdict;
 * level columns wrap into further tables so that a line fits 100
 * columns.  JSON: every cell as numbers, and each comparison in full
 * (xvbd_ab_comparison_render()'s object).  As the object key (NULL: the
 * document); shown: as in opts.
 */
#define XVBD_AB_SWEEP_TEXT_COLS	100
void xvbd_ab_sweep_render(struct xvbd_out *o, const char *key,
			  const struct xvbd_ab_sweep *s, const bool *shown);

/* ---- the gate (src/ab/ab_gate.c) ---- */

/*
 * `--fail-if-worse P`: a metric shown of a level is a failure when its
 * estimate is worse than the baseline's by at least P % (rates lower,
 * latency, CPU and time higher: the metric's own better direction) and
 * its verdict is "worse" at the comparison's confidence (after the
 * family's adjustment).  Worse by P % but not proven is "not proven":
 * told, never a failure.
 */
#define XVBD_AB_GATE_EXIT	3	/* the exit code of a failure */

struct xvbd_ab_gate_hit {
	const char *level;		/* its label */
	const char *baseline;
	enum xvbd_ab_metric metric;
	double pct, pct_lo, pct_hi;	/* level against baseline, % */
	bool proven;			/* verdict "worse" */
	enum xvbd_ab_verdict verdict;
};

struct xvbd_ab_gate {
	double threshold_pct;
	size_t nfailed, nunproven;
	/* the failures, then the others */
	struct xvbd_ab_gate_hit *hits;
	size_t nhits;
};

/*
 * Judge comparisons cmp[n] (NULL entries skipped: a sweep's baseline)
 * at threshold_pct (> 0) over the metrics shown (NULL: all).
 */
int xvbd_ab_gate_judge(const struct xvbd_ab_comparison *const *cmp,
		       size_t n, const bool *shown, double threshold_pct,
		       struct xvbd_ab_gate *out);
/* One line for a hit: "slow read_iops: -81.2 % (-84.0 to -78.1 %)
 * worse than host, at least 20 % and proven at 95 %". */
int xvbd_ab_gate_text(const struct xvbd_ab_gate *g,
		      const struct xvbd_ab_gate_hit *h, double confidence,
		      char *buf, size_t len);
void xvbd_ab_gate_free(struct xvbd_ab_gate *g);
/*
 * The gate as JSON under key: its threshold, whether it failed (and the
 * exit code that says so), and each hit (level, metric, % with its
 * interval, verdict, whether it fails the gate).
 */
void xvbd_ab_gate_render(struct xvbd_out *o, const char *key,
			 const struct xvbd_ab_gate *g);

/* ---- the sequential stop over k - 1 comparisons (ab_sweep_seq.c) ---- */

/*
 * ab run --until-confident over k levels: after every block, each
 * level's always-valid confidence sequence of the mean of
 * d = ln(level / baseline) of the blocks so far (xvbd_seq_decide()) at
 * alpha / (k - 1): by Bonferroni over Ville's inequality, the chance
 * that any of the k - 1 sequences ever misses its mean is at most
 * alpha, whenever the experiment stops.  A level's first decision
 * (different, equivalent) is kept; the experiment stops when every
 * level has one, when none of those left can settle within the cap at
 * the noise and effect seen (after 3 blocks: "futile"), or at the cap.
 */
enum xvbd_ab_sweep_stop {
	XVBD_AB_SWEEP_GO_ON,
	XVBD_AB_SWEEP_SETTLED,		/* every level decided */
	XVBD_AB_SWEEP_FUTILE,		/* none left can settle in time */
	XVBD_AB_SWEEP_CAP,		/* max blocks reached */
};
const char *xvbd_ab_sweep_stop_name(enum xvbd_ab_sweep_stop s);

struct xvbd_ab_sweep_seq {
	size_t nlevels, baseline;
	struct xvbd_seq_params each;	/* alpha / (k - 1) */
	struct xvbd_seq_state st[XVBD_AB_LEVELS_MAX];
	bool decided[XVBD_AB_LEVELS_MAX];
	size_t decided_at[XVBD_AB_LEVELS_MAX];	/* blocks when decided */
	size_t blocks;
	enum xvbd_ab_sweep_stop stop;
};

/* p: the family's alpha, min effect, equivalence and cap (blocks). */
int xvbd_ab_sweep_seq_init(struct xvbd_ab_sweep_seq *s, size_t k,
			   size_t baseline, const struct xvbd_seq_params *p);
/*
 * After a block: d[i][0..n-1] level i's log-ratios of the n blocks so
 * far (d[baseline] unused); n is s->blocks + 1.  Sets s->stop.
 */
int xvbd_ab_sweep_seq_step(struct xvbd_ab_sweep_seq *s,
			   const double *const *d, size_t n);

/* ---- a metric against the levels (src/ab/ab_plot_levels.c) ---- */

/*
 * One row per metric shown (metrics unknown or 0 in every run left
 * out): the levels in their order along x, each with every run as a
 * dot, its mean as a bar and the mean's confidence interval as a
 * whisker; the baseline's column marked and its mean drawn across the
 * row as a dashed line.  SVG 1.1 as ab_plot.h's.
 */
int xvbd_ab_plot_levels_svg(const struct xvbd_ab_level *lv, size_t k,
			    size_t baseline, const bool *metrics,
			    double confidence, char **svg, size_t *len);
/*
 * seen[XVBD_AB_NMETRICS]: the metrics some run of lv[k] has above 0,
 * those the pictures draw (-errno when a summary fails).  `ab plot`
 * refuses a metric named that has nothing to draw.
 */
int xvbd_ab_plot_seen(const struct xvbd_ab_level *lv, size_t k, bool *seen);

#endif /* XVBD_AB_SWEEP_H */
