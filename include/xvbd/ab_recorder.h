/*
 * ab_recorder.h - one run of the A/B layer: sample a guest's VBDs and CPU
 * with the stats layer from a baseline until the run's end, into a
 * record (src/ab_recorder.c).  `ab record` runs it once; anything that
 * records runs in a row runs it again.
 *
 *	rec: head set by the caller (label, domain, vdevs, mode, workload,
 *	     interval, warmup, fingerprint)
 *	xvbd_ab_recorder_run(ts, xs, &run, &rec)
 *	rec: + id, started_unix_ns, samples, complete, workload_status,
 *	     notes; then xvbd_ab_store_write()
 *
 * The end: --duration's time, a --run command exiting (sampled the moment
 * its SIGCHLD arrives), or the guest shutting down (polled every 0.1 s:
 * when a PV guest powers off, blkback's counters vanish with the domain,
 * so the last sample must come first).  SIGINT, SIGTERM and SIGHUP end a
 * run early; they and SIGCHLD are blocked and taken with sigtimedwait(),
 * so none is lost between a check and a sleep.
 */
#ifndef XVBD_AB_RECORDER_H
#define XVBD_AB_RECORDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "xvbd/ab.h"

struct xvbd_tstack;
struct xvbd_xs;

/* A --run command that ignores SIGTERM this long gets SIGKILL. */
#define XVBD_AB_KILL_GRACE_MS	3000

struct xvbd_ab_run {
	/* in */
	const char *cmd;		/* error prefix: "ab record" */
	const char *label;
	uint32_t domid;
	const char *domain;		/* its name (the stats filter) */
	const uint32_t *devids;		/* of rec->vdevs, in that order */
	enum xvbd_ab_mode mode;
	uint64_t duration_ns;		/* XVBD_AB_MODE_DURATION */
	const char *run_cmd;		/* XVBD_AB_MODE_RUN: for /bin/sh -c */
	uint64_t interval_ns, warmup_ns;
	bool progress;			/* a progress line on stderr */
	/* out */
	int stop_signal;		/* the signal that ended it, or 0 */
	bool sampling_failed;		/* the record ends where it failed */
};

/*
 * Record one run into rec.  0: rec holds a record to write (complete or
 * not: its notes say why); -errno: nothing was recorded (the error has
 * been printed).
 */
int xvbd_ab_recorder_run(struct xvbd_tstack *ts, struct xvbd_xs *xs,
			 struct xvbd_ab_run *run, struct xvbd_ab_record *rec);
/*
 * Block those signals, before anything (libxl, libxenstore) starts a
 * thread that would otherwise take them: a caller does it before it
 * connects.  Never undone (a pending SIGINT would kill the caller before
 * it writes the record); a run started with one pending records nothing.
 */
void xvbd_ab_recorder_block_signals(void);
const char *xvbd_ab_signal_name(int sig);

#endif /* XVBD_AB_RECORDER_H */
