/*
 * ab_recorder_ready.c - readiness before a run's warmup
 * (ab_recorder_impl.h): a fixed wait is either too short for a guest
 * that boots slowly under load or idle time for one that is quick, so the
 * run begins when the disks it records (and the disk under test) are
 * Connected and the user's --ready command says the workload can start.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ab_recorder_impl.h"
#include "xvbd/ab/ab_record_impl.h"
#include "xvbd/base/sig.h"
#include "xvbd/base/spawn.h"
#include "xvbd/base/util.h"
#include "xvbd/stats/stats.h"
#include "xvbd/xen/blkif.h"
#include "xvbd/xen/tstack.h"
#include "xvbd/xen/xs.h"

#define NS_PER_S	UINT64_C(1000000000)
/* How often the states are read and a failed --ready is tried again. */
#define STEP_NS		UINT64_C(100000000)

struct ready {
	struct xvbd_ab_run *run;
	sigset_t sigs;
	uint64_t deadline_ns;
	bool child_exited;
};

/* Wait until deadline (or a signal); false when one ends the run. */
static bool pause_until(struct ready *rd, uint64_t until_ns)
{
	uint64_t now = xvbd_stats_now_ns(), left;
	struct timespec ts;
	int sig;

	left = until_ns > now ? until_ns - now : 0;
	ts.tv_sec = (time_t)(left / NS_PER_S);
	ts.tv_nsec = (long)(left % NS_PER_S);
	for (;;) {
		sig = sigtimedwait(&rd->sigs, NULL, &ts);
		if (sig < 0 && errno == EINTR)
			continue;
		if (sig < 0)
			break;
		if (sig == SIGCHLD)
			rd->child_exited = true;
		else
			rd->run->stop_signal = sig;
		ts.tv_sec = 0;
		ts.tv_nsec = 0;
	}
	return !rd->run->stop_signal;
}

/*
 * The devids the run waits for: those it records, and the disk under
 * test once (it is usually one of them).  Returns how many.
 */
static size_t waited_devids(const struct xvbd_ab_run *run,
			    uint32_t ids[XVBD_AB_VDEVS_MAX + 1])
{
	size_t n = 0, i;
	bool under_test = run->has_under_test;

	for (i = 0; i < run->ndevids && n < XVBD_AB_VDEVS_MAX; i++) {
		ids[n++] = run->devids[i];
		if (under_test && run->devids[i] == run->under_test_devid)
			under_test = false;
	}
	if (under_test)
		ids[n++] = run->under_test_devid;
	return n;
}

/*
 * The disks the run waits for: backend and frontend Connected?  1, 0
 * (which names the first that is not), -errno.
 */
static int all_connected(struct xvbd_tstack *ts, struct xvbd_xs *xs,
			 const struct xvbd_ab_run *run, char *which,
			 size_t len)
{
	struct xvbd_disk *disks = NULL;
	uint32_t ids[XVBD_AB_VDEVS_MAX + 1];
	size_t nids = waited_devids(run, ids), n = 0, i;
	uint64_t bs, fs;
	int err, rc = 1;

	err = xvbd_tstack_disks_of(ts, run->domid, ids, nids, &disks, &n);
	if (err)
		return err;
	for (i = 0; i < n && rc == 1; i++) {
		if (!disks[i].backend_path || !disks[i].frontend_path ||
		    xvbd_xs_read_dir_uint(xs, disks[i].backend_path, "state",
					  XVBD_STATE_MAX, &bs) ||
		    xvbd_xs_read_dir_uint(xs, disks[i].frontend_path,
					  "state", XVBD_STATE_MAX, &fs))
			bs = fs = 0;
		if (bs == XVBD_STATE_CONNECTED && fs == XVBD_STATE_CONNECTED)
			continue;
		snprintf(which, len, "%s (backend %s, frontend %s)",
			 disks[i].vdev, xvbd_state_name(bs),
			 xvbd_state_name(fs));
		rc = 0;
	}
	xvbd_tstack_disks_free(disks, n);
	return rc;
}

static int wait_connected(struct ready *rd, struct xvbd_tstack *ts,
			  struct xvbd_xs *xs, uint64_t timeout_ns)
{
	char which[128] = "";
	int got;

	for (;;) {
		got = all_connected(ts, xs, rd->run, which, sizeof(which));
		if (got < 0) {
			xvbd_err(rd->run->cmd, "disks", "domain %s: %s",
				 rd->run->domain, strerror(-got));
			return XVBD_EXIT_FAIL;
		}
		if (got)
			return 0;
		if (xvbd_stats_now_ns() >= rd->deadline_ns) {
			xvbd_err(rd->run->cmd, "--timeout", "%s of domain %s "
				 "not Connected within %" PRIu64 " s: nothing "
				 "recorded", which, rd->run->domain,
				 timeout_ns / NS_PER_S);
			return XVBD_EXIT_FAIL;
		}
		if (!pause_until(rd, xvbd_stats_now_ns() + STEP_NS))
			return XVBD_EXIT_FAIL;
	}
}

/* End a --ready command that is still running, with its group. */
static void end_child(pid_t pid)
{
	int status, tries;

	kill(-pid, SIGTERM);
	for (tries = 0; tries < XVBD_AB_KILL_GRACE_MS / 20; tries++) {
		if (xvbd_spawn_reap(pid, false, &status) != 0)
			return;
		usleep(20000);
	}
	kill(-pid, SIGKILL);
	xvbd_spawn_reap(pid, true, &status);
}

/* One try: its exit status, or -1 when the run must end (reported). */
static int try_once(struct ready *rd, const char *cmd, int *status)
{
	pid_t pid;
	int err = xvbd_ab_run_sh(rd->run, cmd, &pid);

	if (err) {
		xvbd_err(rd->run->cmd, "--ready", "cannot start /bin/sh: %s",
			 strerror(-err));
		return -1;
	}
	for (;;) {
		if (xvbd_spawn_reap(pid, false, status) == 1)
			return *status;
		if (xvbd_stats_now_ns() >= rd->deadline_ns ||
		    !pause_until(rd, xvbd_stats_now_ns() + STEP_NS / 4)) {
			end_child(pid);
			*status = -1;	/* ended by us */
			return -1;
		}
	}
}

int xvbd_ab_recorder_ready(struct xvbd_tstack *ts, struct xvbd_xs *xs,
			   struct xvbd_ab_run *run, const char *ready_cmd,
			   uint64_t timeout_ns)
{
	struct ready rd = { .run = run };
	int status = -1, last = -1, rc;

	sigemptyset(&rd.sigs);
	sigaddset(&rd.sigs, SIGINT);
	sigaddset(&rd.sigs, SIGTERM);
	sigaddset(&rd.sigs, SIGHUP);
	sigaddset(&rd.sigs, SIGCHLD);
	run->stop_signal = 0;
	rd.deadline_ns = xvbd_stats_now_ns() + timeout_ns;
	run->at_baseline_done = false;
	rc = wait_connected(&rd, ts, xs, timeout_ns);
	while (!rc && ready_cmd) {
		if (try_once(&rd, ready_cmd, &status) == 0)
			break;
		if (status >= 0)
			last = status;
		/*
		 * The disks are Connected and the guest is not ready yet:
		 * the fingerprint (half a second under load) is taken in
		 * that wait rather than after it, where the run would wait
		 * for it: what it reads is settled once the disks connect.
		 */
		if (status >= 0 && run->at_baseline && !run->at_baseline_done) {
			if (run->at_baseline(run->arg)) {
				rc = XVBD_EXIT_FAIL;
				break;
			}
			run->at_baseline_done = true;
			continue;
		}
		if (!run->stop_signal &&
		    xvbd_stats_now_ns() < rd.deadline_ns &&
		    pause_until(&rd, xvbd_stats_now_ns() + STEP_NS))
			continue;
		rc = XVBD_EXIT_FAIL;
		if (run->stop_signal)
			break;
		if (last >= 0)
			xvbd_err(run->cmd, "--ready", "\"%s\" did not exit 0 "
				 "within --timeout %" PRIu64 " s (last exit "
				 "status %d): nothing recorded", ready_cmd,
				 timeout_ns / NS_PER_S, last);
		else
			xvbd_err(run->cmd, "--ready", "\"%s\" did not end "
				 "within --timeout %" PRIu64 " s: nothing "
				 "recorded", ready_cmd, timeout_ns / NS_PER_S);
	}
	if (run->stop_signal)
		xvbd_err(run->cmd, "interrupted", "by %s while waiting for the "
			 "guest to be ready: nothing recorded",
			 xvbd_sig_name(run->stop_signal));
	return rc;
}
