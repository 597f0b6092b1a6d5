/*
 * ab_recorder.h - one recorded run: what `ab record` does short of
 * parsing its command line and rendering its report; `ab run` records
 * each of its runs through it too.
 *
 *	lookup the domain and its VBDs -> fingerprint -> [warmup] ->
 *	baseline -> samples until the end -> write the record atomically
 *
 * Signals: SIGINT, SIGTERM, SIGHUP and SIGCHLD are blocked while
 * recording and taken with sigtimedwait(); an interrupting signal ends the
 * run early (the record is kept, marked incomplete) and is reported in
 * *stopped_by.  They stay blocked on return: the caller decides.  One
 * already pending when the run starts (taken, so sigpending() no longer
 * shows it) records nothing and is reported in *stopped_by too.
 *
 * The run (src/ab_recorder_loop.c): the end is --duration's time, a
 * --run command exiting (sampled the moment its SIGCHLD arrives), or the
 * guest shutting down (its state and counters read every 0.1 s: when a
 * PV guest powers off, blkfront closes its devices and blkback's counters
 * go away with the domain, so the record ends at the last sample that had
 * them).  A --run command runs with /bin/sh -c in its own process group
 * (ended with it: SIGTERM, SIGKILL after XVBD_AB_KILL_GRACE_MS), stdin
 * /dev/null, its output on stderr, a fixed environment.
 */
#ifndef XVBD_AB_RECORDER_H
#define XVBD_AB_RECORDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "xvbd/ab/ab.h"
#include "xvbd/cmd/cmd.h"
#include "xvbd/workload/workload.h"

struct xvbd_ab_rec_opts {
	const char *label;
	const char *domain_spec;	/* name or domid */
	const char **vdev_args;		/* none: all the domain's disks */
	size_t nvdev_args;
	enum xvbd_ab_mode mode;
	uint64_t duration_ns;		/* XVBD_AB_MODE_DURATION */
	const char *run_cmd;		/* XVBD_AB_MODE_RUN */
	/* interval_ns 0: the mode's default (XVBD_AB_INTERVAL_*). */
	uint64_t interval_ns, warmup_ns;
	/*
	 * ab run: before the warmup, wait (at most ready_timeout_ns) until
	 * the recorded VBDs and under_test_vdev (NULL: none) are Connected
	 * and then ready_cmd (NULL: none) exits 0; the warmup counts from
	 * there.  0: no wait.
	 */
	uint64_t ready_timeout_ns;
	const char *ready_cmd;
	const char *under_test_vdev;
	const char *dir;
	bool json;
	/* ab run: the hash of the config its guest was created from */
	const char *config_sha256;
	/* ab run: the experiment's id, this run's block (from 1) and its
	 * position in the block (from 1; 0: not recorded) */
	const char *experiment;
	uint32_t pair;
	uint32_t position;
	/* --latency: the backing devices' request latency in the record */
	bool latency;
	/*
	 * --run: which reader takes the command's stdout (--results;
	 * default auto).  Kept as the record's results; echoed to stderr
	 * unless the global -q.
	 */
	enum xvbd_wl_results_mode results_mode;
	bool results_given;
};

/*
 * The recording's options, which ab record and ab run share: their rows
 * of the option tables (below) and one handler, so that both take the
 * same values with the same words.
 */
#define XVBD_AB_SECONDS_MAX		UINT64_C(86400)
/* Below 10 ms the sampler's own reads dominate an interval. */
#define XVBD_AB_INTERVAL_MIN_NS		UINT64_C(10000000)
#define XVBD_AB_DURATION_MIN_NS		XVBD_AB_INTERVAL_MIN_NS
#define XVBD_AB_INTERVAL_DEFAULT_NS	UINT64_C(1000000000)
/*
 * --run's default: the busy span (xvbd/ab/ab.h) is taken at the sampling
 * step, and a fixed-size workload may last a fraction of a second.
 */
#define XVBD_AB_INTERVAL_RUN_NS		UINT64_C(100000000)
/*
 * The same options as table rows (cmd_opt.h) and their one handler:
 * which is the row's meaning, v the value the parser read.  A command's
 * table has the six rows together in this order (its row minus the
 * first's is which).
 */
enum xvbd_ab_rec_row {
	XVBD_AB_REC_DURATION, XVBD_AB_REC_RUN, XVBD_AB_REC_UNTIL_SHUTDOWN,
	XVBD_AB_REC_INTERVAL, XVBD_AB_REC_WARMUP, XVBD_AB_REC_RESULTS,
	XVBD_AB_REC_LATENCY,
};
#define XVBD_AB_ROW_DURATION						\
	XVBD_OPT_S("duration", 0, 0.01, XVBD_AB_SECONDS_MAX,		\
		   "record for this long")
#define XVBD_AB_ROW_RUN							\
	XVBD_OPT_STR("run", 0, "CMD", 0, "record while this command runs "\
		     "in dom0 (sh -c), its exit status kept")
#define XVBD_AB_ROW_UNTIL_SHUTDOWN					\
	XVBD_OPT_F("until-shutdown", 0, "record until the guest shuts "	\
		   "down by itself")
#define XVBD_AB_ROW_INTERVAL						\
	XVBD_OPT_S("interval", 0, 0.01, XVBD_AB_SECONDS_MAX,		\
		   "time between samples (default 1s; 100ms with --run)")
#define XVBD_AB_ROW_WARMUP						\
	XVBD_OPT_S("warmup", 0, 0, XVBD_AB_SECONDS_MAX,			\
		   "time before the baseline, not recorded (default 0)")
#define XVBD_AB_ROW_RESULTS						\
	XVBD_OPT_W("results", 0, "auto|fio|benchfmt|none", "read --run's "\
		   "output as the guest's results (default auto)")
#define XVBD_AB_ROW_LATENCY						\
	XVBD_OPT_F("latency", 0, "each run's request latency "		\
		   "distributions (tracefs) into its record")
int xvbd_ab_rec_value(const struct xvbd_cmd *cmd, enum xvbd_ab_rec_row which,
		      const struct xvbd_optval *v, struct xvbd_ab_rec_opts *o,
		      bool *have_mode);

/*
 * The recording options together, once all are parsed: --results only
 * with --run.  The exit code (usage error printed).
 */
int xvbd_ab_rec_opts_check(const struct xvbd_cmd *cmd,
			   const struct xvbd_ab_rec_opts *o);

/*
 * Record one run.  Prints its own errors (under ctx->cmd's name) and, if
 * report, the record's report into ctx->out.  Returns the exit code;
 * *rec receives the record whenever one was written (rec->path set), also
 * with a non-zero exit code (interrupted, incomplete, the --run command
 * failed); free it with xvbd_ab_record_free().  *stopped_by: the name of
 * the signal that ended it early, else NULL.
 */
int xvbd_ab_recorder_run(struct xvbd_ctx *ctx,
			 const struct xvbd_ab_rec_opts *o, bool report,
			 struct xvbd_ab_record *rec, const char **stopped_by);

#endif /* XVBD_AB_RECORDER_H */
