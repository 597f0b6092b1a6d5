/*
 * ab_recorder_impl.h - for the recorder's own files (ab_recorder*.c) and
 * the ab commands that run it (cmd_ab_record.c, cmd_ab_run.c) only: the
 * run itself, once the domain, its VBDs and the record's head (label,
 * domain, vdevs, mode, workload, interval, warmup, fingerprint) are
 * settled, and the signals its wait takes.
 */
#ifndef XVBD_AB_RECORDER_IMPL_H
#define XVBD_AB_RECORDER_IMPL_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "xvbd/ab/ab.h"

struct xvbd_tstack;
struct xvbd_xs;
struct xvbd_wl_capture;
struct xvbd_sysfs;
struct xvbd_sysfs_blk;
struct xvbd_stats_vbd;

struct xvbd_ab_run {
	/* in */
	const char *cmd;		/* error prefix: "ab record" */
	const char *label;
	uint32_t domid;
	const char *domain;		/* its name (the stats filter) */
	const uint32_t *devids;		/* of rec->vdevs, in that order */
	size_t ndevids;
	/* readiness also waits for it: the hot run's disk under test */
	bool has_under_test;
	uint32_t under_test_devid;
	enum xvbd_ab_mode mode;
	uint64_t duration_ns;		/* XVBD_AB_MODE_DURATION */
	const char *run_cmd;		/* XVBD_AB_MODE_RUN: for /bin/sh -c */
	uint64_t interval_ns, warmup_ns;
	bool latency;			/* --latency (stats' opts.latency) */
	bool progress;			/* a progress line on stderr */
	/*
	 * Called at the baseline (after the warmup: a fresh guest has
	 * connected its disks by then): the fingerprint.  Just before it,
	 * or just after when a workload already runs (the loop says why);
	 * or earlier, once the disks are Connected, while --ready says
	 * the guest is not ready yet (at_baseline_done then).
	 * Non-zero: nothing is recorded (it has printed its error).
	 */
	int (*at_baseline)(void *arg);
	void *arg;
	bool at_baseline_done;
	/*
	 * --run: its stdout goes to capture (NULL: to stderr, unread),
	 * and is echoed to stderr when echo_output.
	 */
	struct xvbd_wl_capture *capture;
	bool echo_output;
	/* out */
	int stop_signal;		/* the signal that ended it, or 0 */
	bool sampling_failed;		/* the record ends where it failed */
};

/*
 * Sample from the baseline to the run's end into rec: + id,
 * started_unix_ns, samples, complete, workload_status, notes.  0: rec
 * holds a record to write (complete or not: its notes say why); -errno:
 * nothing was recorded (the error has been printed).
 */
int xvbd_ab_recorder_loop(struct xvbd_tstack *ts, struct xvbd_xs *xs,
			  struct xvbd_ab_run *run, struct xvbd_ab_record *rec);

/*
 * Block the signals the recorder's wait takes (SIGINT, SIGTERM, SIGHUP,
 * SIGCHLD) now, in the calling thread and every thread started
 * after it (libxl's, libxenstore's): call it before connecting, so that a
 * signal sent to the process waits for the run instead of meeting a
 * thread that does not block it (and its default action).  Never undone
 * here: a pending SIGINT would kill the caller before it writes.
 */
void xvbd_ab_recorder_block_signals(void);

/*
 * Start cmd with /bin/sh -c the way --run is started: its own process
 * group, stdin /dev/null, output on stderr, the fixed environment (PATH,
 * HOME, LC_ALL=C, XVBD_AB_LABEL/DOMAIN/DOMID of run).  0 or -errno.
 */
int xvbd_ab_run_sh(const struct xvbd_ab_run *run, const char *cmd,
		   pid_t *pid);

/*
 * Before the warmup (ab_recorder_ready.c): the recorded VBDs (run->devids)
 * and the disk under test Connected (backend and frontend), then
 * --ready's command until it exits 0, each within timeout_ns of the call.
 * The guest's other disks are not its business: a PV cdrom that blkfront
 * never connects, a disk served by a driver domain or qdisk.  0: ready;
 * else the exit code, its one-line error printed (an interrupting signal
 * is left in run->stop_signal).  Nothing of it runs on.
 */
int xvbd_ab_recorder_ready(struct xvbd_tstack *ts, struct xvbd_xs *xs,
			   struct xvbd_ab_run *run, const char *ready_cmd,
			   uint64_t timeout_ns);

/* xvbd_ab_run_sh() with the command's stdout to out_fd. */
int xvbd_ab_run_sh_out(const struct xvbd_ab_run *run, const char *cmd,
		       int out_fd, pid_t *pid);

/*
 * The --run command's stdout (ab_recorder_cmd.c): the read end of its
 * pipe, non-blocking; each piece read goes to capture and, with echo, to
 * stderr.
 */
struct xvbd_ab_output {
	int fd;				/* -1: none, or closed at EOF */
	struct xvbd_wl_capture *capture;
	bool echo;
	uint64_t bytes;
};
/* The pipe: o->fd ours, *child_fd the command's stdout (close it once
 * the command has it).  0 or -errno. */
int xvbd_ab_output_open(struct xvbd_ab_output *o, int *child_fd);
/* What is there now (a bounded amount); at EOF the fd is closed. */
void xvbd_ab_output_read(struct xvbd_ab_output *o);
/* After the command: on to EOF, for at most timeout_ms; true at EOF. */
bool xvbd_ab_output_drain(struct xvbd_ab_output *o, int timeout_ms);
void xvbd_ab_output_close(struct xvbd_ab_output *o);
/* At the run's end: drained (a note in rec when it stayed open), closed. */
void xvbd_ab_output_finish(struct xvbd_ab_output *o,
			   struct xvbd_ab_record *rec);
/* How long a command's stdout may stay open after it ended. */
#define XVBD_AB_OUTPUT_DRAIN_MS	2000

/*
 * The device holding a loop-backed VBD's file (ab_recorder_filedev.c):
 * found at the first sample that has the backing device, then its
 * sectors into each sample (has_file_dev).
 */
struct xvbd_ab_filedev {
	bool tried;
	struct xvbd_sysfs_blk *blk;	/* NULL: none (not a loop, gone) */
};
void xvbd_ab_filedev_sample(struct xvbd_ab_filedev *f,
			    struct xvbd_sysfs *sys,
			    const struct xvbd_stats_vbd *v,
			    struct xvbd_ab_vbd_sample *o);
void xvbd_ab_filedev_close(struct xvbd_ab_filedev *f);

/* A --run command that ignores SIGTERM this long gets SIGKILL. */
#define XVBD_AB_KILL_GRACE_MS	3000

#endif /* XVBD_AB_RECORDER_IMPL_H */
