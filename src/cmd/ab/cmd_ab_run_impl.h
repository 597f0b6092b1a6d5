/*
 * cmd_ab_run_impl.h - between cmd_ab_run.c (the options, the fresh-guest
 * runs), cmd_ab_run_levels.c (the hot levels: labels, --disk LABEL=,
 * --sweep), cmd_ab_run_exp.c (the runs in blocks, the verdict),
 * cmd_ab_run_hot.c (the hot runs: one running guest, the disk under
 * test attached and detached for each run) and cmd_ab_run_seq.c (what
 * --until-confident says about its sequential procedure).  Internal to
 * ab run.
 */
#ifndef XVBD_CMD_AB_RUN_IMPL_H
#define XVBD_CMD_AB_RUN_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "xvbd/ab/ab.h"
#include "xvbd/ab/ab_stat.h"
#include "xvbd/ab/ab_sweep.h"
#include "xvbd/base/out.h"
#include "xvbd/cmd/ab/ab_recorder.h"
#include "xvbd/cmd/cmd.h"
#include "xvbd/cmd/cmd_opt.h"
#include "xvbd/cmd/guest_start.h"
#include "xvbd/disk/disk.h"
#include "xvbd/vbd/override.h"

/*
 * One level's disk under test as given: --disk LABEL=SPEC (or --disk
 * SPEC for every level, --disk-a/-b for the first two), its cache the
 * same way, and with --sweep KEY=v1,v2,... its value of KEY.  The
 * options that gave them name them in errors.
 */
struct ab_hot_side {
	const char *spec;		/* an xl disk spec */
	const char *spec_opt;		/* "--disk-a", "--disk" */
	const char *cache;		/* host | none; NULL */
	const char *cache_opt;
	const char *vbd_opt;		/* the option of its --vbd set */
	const char *sweep_key;		/* --sweep: the key, its value */
	const char *sweep_value;
};

/*
 * The hot experiment: its guest, the vdev every level shares, each
 * level's disk as the disk layer describes it (spec, cache, the --vbd
 * offers, the --sweep value), and the guest's domain lock, held from the
 * check that the vdev is free to the end: no other xvbd attach takes
 * the vdev between runs.
 */
struct ab_hot {
	const char *domain;		/* --domain; NULL: fresh guests */
	size_t nlevels;
	struct ab_hot_side side[XVBD_AB_LEVELS_MAX];
	struct xvbd_disk_desc *desc;	/* [nlevels]: ab_hot_check's */
	uint32_t domid;
	char *name;
	char vdev[32];
	uint32_t devid;
	unsigned timeout_s;
	struct xvbd_report rep;		/* the disk layer's, in ab run's name */
	struct xvbd_disk_env env;
	struct xvbd_disk_dom dom;	/* its lock_fd: held */
};

/*
 * After the options: each of h->nlevels levels' disk through the disk
 * layer's parser (its spec by libxlutil, --cache, the --vbd set of its
 * vdev, its --sweep value), one named vdev for all, offers only of the
 * keys attach sets; --sweep's values each a different disk.  Usage
 * errors: 2, printed.
 */
int ab_hot_check(struct ab_hot *h, struct xvbd_ovr_set *const sets[],
		 const size_t nsets[]);
/*
 * Connected: the guest runs, its domain lock is taken (not with -N) and
 * kept to ab_hot_free, and the vdev is free on it.  Exit code.
 */
int ab_hot_prepare(struct xvbd_ctx *ctx, struct ab_hot *h);
/* -N: the plan of level i. */
void ab_hot_render_plan(struct xvbd_ctx *ctx, const struct ab_hot *h,
			int i);
/*
 * One run of level i: attach its disk (the disk layer, with its offers),
 * record (ro), detach exactly what this attach added (its handle), check
 * that nothing of it is left.  Exit code; *rec as xvbd_ab_recorder_run()
 * gives it.
 */
int ab_hot_run(struct xvbd_ctx *ctx, struct ab_hot *h, int i,
	       struct xvbd_ab_rec_opts *ro, struct xvbd_ab_record *rec,
	       const char **stopped_by);
void ab_hot_free(struct ab_hot *h);

/* ---- the options and the experiment (cmd_ab_run*.c) ---- */

/* The option table's rows (cmd_ab_run.c). */
enum {
	O_VBD_A, O_VBD_B, O_GUEST_LIMITS, O_VDEV, O_DURATION, O_RUN,
	O_UNTIL_SHUTDOWN, O_INTERVAL, O_WARMUP, O_RESULTS, O_LATENCY, O_RUNS,
	O_UNTIL_CONFIDENT,
	O_MIN_EFFECT, O_EQUIVALENCE, O_MAX_RUNS, O_METRIC, O_CONFIDENCE,
	O_DIR, O_TIMEOUT, O_DOMAIN, O_DISK_A, O_DISK_B, O_CACHE_A, O_CACHE_B,
	O_READY, O_DISK, O_CACHE, O_VBD, O_SWEEP, O_PLAN, O_FAIL_IF_WORSE,
};

/* One level: fresh guests have two (A, B), hot experiments 2 to 16. */
struct side {
	const char *label;
	struct xvbd_ovr_set sets[XVBD_START_MAX_DEVS];
	size_t nsets;
	struct xvbd_start_req req;
	struct xvbd_start_plan plan;
	bool prepared;
	struct xvbd_ab_record *recs;	/* this experiment's runs */
	size_t nrecs;
};

struct run_opts {
	struct side side[XVBD_AB_LEVELS_MAX];	/* the baseline first */
	size_t nsides;
	struct xvbd_ab_rec_opts rec;	/* label/domain set per run */
	size_t pairs;			/* --runs: blocks */
	bool until_confident;
	size_t max_pairs;
	double min_effect;
	double equivalence;		/* --equivalence; 0: none */
	double confidence;
	double gate_pct;		/* --fail-if-worse, in %; 0: no gate */
	int metric;			/* -1: chosen after the first block */
	bool guest_limits;
	int timeout_s;
	const char *dir;
	bool mode_given;
	/* --vdev: the disks to record (none: all of the guest's) */
	const char *vdevs[XVBD_START_MAX_DEVS];
	size_t nvdevs;
	const char *sweep;	/* --sweep KEY=v1,v2,... */
	char sweep_key[XVBD_DISK_KV_LEN];	/* its KEY, '_' as '-' */
	/* its labels, "KEY-VALUE" */
	char sweep_label[XVBD_AB_LEVELS_MAX][XVBD_AB_LABEL_MAX + 1];
	struct ab_hot hot;	/* --domain: the hot experiment */
	/* in every record: ab compare pairs the levels' runs by it */
	char experiment[XVBD_AB_ID_MAX];
};

/* --vbd-a's and --vbd LABEL='s VDEV:key=value,... into sd (cmd_ab_run.c). */
int ab_run_add_vbd(struct side *sd, const char *opt, const char *arg);
/*
 * Hot: the levels from the operands (labels) or --sweep, each level's
 * --disk, --cache, --vbd and --sweep value, then ab_hot_check
 * (cmd_ab_run_levels.c).  Usage errors printed: 2.
 */
int ab_run_levels(struct xvbd_ctx *ctx, struct run_opts *o, int nargs,
		  char **argv);
/*
 * Fresh guests: the levels from LABEL CONFIG pairs and --vbd LABEL=
 * (cmd_ab_run_levels.c).  Usage errors printed: 2.
 */
int ab_run_fresh_levels(struct xvbd_ctx *ctx, struct run_opts *o, int nargs,
			char **argv);
/* The first of --disk, --cache, --sweep given (hot only), or NULL. */
const char *ab_run_levels_given(const struct xvbd_ctx *ctx);
/* "ABBA" for two levels, "Williams" beyond. */
const char *ab_run_order_name(size_t k);
/* -N: the runs in their order, block by block (cmd_ab_run_levels.c). */
void ab_run_render_order(struct xvbd_ctx *ctx, const struct run_opts *o);
/* One run of sd, recorded into sd->recs (cmd_ab_run.c).  Exit code. */
int ab_run_one(struct xvbd_ctx *ctx, struct run_opts *o, struct side *sd,
	       const char **stopped_by);
/* The runs in blocks, the verdict (cmd_ab_run_exp.c).  Exit code. */
int ab_run_experiment(struct xvbd_ctx *ctx, struct run_opts *o);

/*
 * --until-confident on stderr (the caller leaves them out under -q):
 * before the first run, the noise --max-runs pairs can settle; after each
 * pair, the decision and the interval so far; after 3 pairs, a warning
 * when their noise needs more pairs (printed even under -q); when it ends exhausted, the effect the pairs could have
 * shown at their noise and the pairs +-min effect would take.
 */
void ab_run_seq_say_cap(const struct xvbd_seq_params *sp);
void ab_run_seq_say_pair(int metric, const struct xvbd_seq_state *st);
void ab_run_seq_warn_cap(const struct xvbd_seq_params *sp,
			 const struct xvbd_seq_state *st);
void ab_run_seq_say_exhausted(const struct xvbd_seq_params *sp,
			      const struct xvbd_seq_state *st);
/* The output's "sequential" object: the decision on metric. */
void ab_run_seq_render(struct xvbd_out *out, int metric,
		       const struct xvbd_seq_params *sp,
		       const struct xvbd_seq_state *st);
/*
 * More than two levels (the k - 1 sequences of ab_sweep_seq.c): after
 * each block, one line of every level's decision so far; the output's
 * "sequential" object, each level's decision.
 */
void ab_run_seq_say_block(int metric, const struct xvbd_ab_sweep_seq *ss,
			  const char *const *labels);
void ab_run_seq_render_levels(struct xvbd_out *out, int metric,
			      const struct xvbd_ab_sweep_seq *ss,
			      const struct xvbd_ab_level *lv);

/*
 * --plan FILE (cmd_ab_run_plan.c): the experiment plan read, checked and
 * turned into the command line it stands for, parsed by the option table;
 * ctx->cl is that command line (and the options given beside --plan) and
 * every error names the plan until ab_run_plan_free.
 */
struct ab_run_plan {
	const char *path;
	char **argv;			/* "ab" "run" and the plan's words */
	int argc;
	struct xvbd_cmdline cl;		/* argv parsed */
	const struct xvbd_cmdline *saved;	/* the command line's own */
};

/*
 * Read and check the plan, then point ctx->cl at its command line.
 * nargs: the operands given (refused beside --plan).  Usage errors
 * printed, naming the plan: 2; 1 out of memory.
 */
int ab_run_plan_load(struct xvbd_ctx *ctx, int nargs, struct ab_run_plan *p);
/* ctx->cl back to the command line's; errors no longer name the plan. */
void ab_run_plan_free(struct xvbd_ctx *ctx, struct ab_run_plan *p);

#endif
