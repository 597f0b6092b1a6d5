/*
 * cmd_ab_run_impl.h - between cmd_ab_run.c (the options, the experiment,
 * the fresh-guest runs), cmd_ab_run_hot.c (the hot runs: one running
 * guest, the disk under test attached and detached for each run) and
 * cmd_ab_run_seq.c (what --until-confident says about its sequential
 * procedure).  Internal to ab run.
 */
#ifndef XVBD_CMD_AB_RUN_IMPL_H
#define XVBD_CMD_AB_RUN_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "xvbd/ab/ab.h"
#include "xvbd/ab/ab_stat.h"
#include "xvbd/base/out.h"
#include "xvbd/cmd/ab/ab_recorder.h"
#include "xvbd/cmd/cmd.h"
#include "xvbd/disk/disk.h"
#include "xvbd/vbd/override.h"

/* One side's disk under test: --disk-a SPEC [--cache-a M]. */
struct ab_hot_side {
	const char *spec;		/* --disk-a: an xl disk spec */
	const char *cache;		/* --cache-a: host | none; NULL */
};

/*
 * The hot experiment: its guest, the vdev both sides share, each side's
 * disk as the disk layer describes it (spec, cache, the --vbd offers),
 * and the guest's domain lock, held from the check that the vdev is free
 * to the end: no other xvbd attach takes the vdev between runs.
 */
struct ab_hot {
	const char *domain;		/* --domain; NULL: fresh guests */
	struct ab_hot_side side[2];
	struct xvbd_disk_desc desc[2];
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
 * After the options: each side's disk through the disk layer's parser
 * (its spec by libxlutil, --cache, the --vbd set of its vdev), one named
 * vdev for both, offers only of the keys attach sets.  Usage errors: 2,
 * printed.
 */
int ab_hot_check(struct ab_hot *h, struct xvbd_ovr_set *const sets[2],
		 const size_t nsets[2]);
/*
 * Connected: the guest runs, its domain lock is taken (not with -N) and
 * kept to ab_hot_free, and the vdev is free on it.  Exit code.
 */
int ab_hot_prepare(struct xvbd_ctx *ctx, struct ab_hot *h);
/* -N: the plan of side i. */
void ab_hot_render_plan(struct xvbd_ctx *ctx, const struct ab_hot *h,
			int i);
/*
 * One run of side i: attach its disk (the disk layer, with its offers),
 * record (ro), detach exactly what this attach added (its handle), check
 * that nothing of it is left.  Exit code; *rec as xvbd_ab_recorder_run()
 * gives it.
 */
int ab_hot_run(struct xvbd_ctx *ctx, struct ab_hot *h, int i,
	       struct xvbd_ab_rec_opts *ro, struct xvbd_ab_record *rec,
	       const char **stopped_by);
void ab_hot_free(struct ab_hot *h);

/*
 * --until-confident on stderr (the caller leaves them out under -q):
 * before the first run, the noise --max-runs pairs can settle; after each
 * pair, the decision and the interval so far; after 3 pairs, a warning when their noise needs more pairs (printed even
 * under -q); when it ends exhausted, the effect the pairs could have
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

#endif
