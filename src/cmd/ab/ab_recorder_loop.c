/*
 * ab_recorder_loop.c - the run itself: the stats layer samples a guest's
 * VBDs and the CPU of the guest and dom0 from a baseline until the run's
 * end, and each sample's raw counters go into the record
 * (include/xvbd/ab_recorder_impl.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "xvbd/ab/ab.h"
#include "xvbd/ab/ab_lat.h"
#include "xvbd/ab/ab_record_impl.h"
#include "ab_recorder_impl.h"
#include "xvbd/base/sig.h"
#include "xvbd/base/spawn.h"
#include "xvbd/stats/stats.h"
#include "xvbd/dom0/sysfs.h"
#include "xvbd/xen/tstack.h"
#include "xvbd/base/util.h"

#define NS_PER_S		UINT64_C(1000000000)
/* How often the end conditions are looked at between samples. */
#define POLL_NS			UINT64_C(100000000)
#define DOM0_DOMID		0
#define SH			"/bin/sh"

struct recorder {
	struct xvbd_tstack *ts;
	struct xvbd_xs *xs;
	struct xvbd_ab_run *run;
	struct xvbd_ab_record *rec;
	struct xvbd_sysfs *sys;
	struct xvbd_stats *st;
	struct xvbd_stats_sample s;
	struct xvbd_ab_vbd_sample vbd_buf[XVBD_AB_VDEVS_MAX];
	uint64_t base_ns;		/* monotonic time of the baseline */
	size_t max_samples;		/* before the record gets thinned */
	uint64_t interval_ns;		/* doubles when it is thinned */
	pid_t child;			/* --run, while it runs; else 0 */
	sigset_t sigs;			/* blocked, taken by wait_until() */
	int sigfd;			/* ... from this signalfd */
	bool final;			/* the run's last sample: no read after */
	/* the devices holding loop-backed VBDs' files */
	struct xvbd_ab_filedev filedev[XVBD_AB_VDEVS_MAX];
	struct xvbd_ab_output out;	/* --run's stdout, when read */
	bool child_exited;		/* SIGCHLD arrived */
	/*
	 * --run and --until-shutdown sample at every poll: the newest
	 * complete sample not in the record is the shadow, the run's end
	 * if the counters are gone by the final sample (a guest that
	 * powers off at its workload's end takes them along: blkback
	 * frees its rings, its counters read 0).  Resets seen in samples
	 * not (yet) recorded wait for the next recorded one.
	 */
	struct xvbd_ab_sample shadow;
	struct xvbd_ab_vbd_sample shadow_vbds[XVBD_AB_VDEVS_MAX];
	bool have_shadow;
	/* The guest shut down to come back (reboot, crash...): Xen's word. */
	const char *restart_reason;
	bool pending_reset[XVBD_AB_VDEVS_MAX];
};

/* After a VBD went away, how long the guest may take to shut down. */
#define SHUTDOWN_WAIT_NS	(10 * NS_PER_S)

/* Running (not shut down, not dying): 1; ended: 0; -errno. */
static int guest_running(struct recorder *r)
{
	struct xvbd_dominfo info;
	int err = xvbd_tstack_domain_info(r->ts, r->run->domid, &info);

	if (err == -ENOENT)
		return 0;
	if (err)
		return err;
	/* A guest that ends to restart is no end of its workload. */
	if (info.shutdown_reason && strcmp(info.shutdown_reason, "poweroff") &&
	    strcmp(info.shutdown_reason, "suspend"))
		r->restart_reason = info.shutdown_reason;
	return !(info.shutdown || info.dying);
}

/* ---- samples ---- */

/*
 * The record's view of a stats sample: the guest, dom0 and each recorded
 * VBD.  false when any of them is missing (gone, or not yet there).
 */
static bool convert(struct recorder *r, const struct xvbd_stats_sample *s,
		    struct xvbd_ab_sample *out, const char **missing)
{
	const struct xvbd_stats_dom *guest = NULL, *dom0 = NULL;
	size_t i, j;

	for (i = 0; i < s->ndoms; i++) {
		if (s->doms[i].domid == r->run->domid)
			guest = &s->doms[i];
		else if (s->doms[i].domid == DOM0_DOMID)
			dom0 = &s->doms[i];
	}
	if (!guest || !dom0) {
		*missing = guest ? "dom0" : "the guest";
		return false;
	}
	memset(out, 0, sizeof(*out));
	out->t_ns = s->mono_ns - r->base_ns;
	out->guest_cpu_ns = guest->cpu_ns;
	out->dom0_cpu_ns = dom0->cpu_ns;
	out->guest_vcpus = guest->vcpus;
	out->dom0_vcpus = dom0->vcpus;
	/* The sampler keeps the guest and dom0: the rest are the others. */
	out->has_others = true;
	out->others_cpu_ns = s->left_out_cpu_ns;
	out->others_doms = s->left_out_doms > UINT32_MAX ? UINT32_MAX :
			   (uint32_t)s->left_out_doms;
	out->vbds = r->vbd_buf;
	for (j = 0; j < r->rec->nvdevs; j++) {
		const struct xvbd_stats_vbd *v = NULL;
		struct xvbd_ab_vbd_sample *o = &r->vbd_buf[j];

		for (i = 0; i < s->nvbds && !v; i++)
			if (s->vbds[i].domid == r->run->domid &&
			    s->vbds[i].devid == r->run->devids[j])
				v = &s->vbds[i];
		if (!v) {
			*missing = r->rec->vdevs[j];
			return false;
		}
		memset(o, 0, sizeof(*o));
		o->c = v->raw;
		o->reset = v->iv == XVBD_IV_RESET;
		o->has_be = v->be_known;
		o->be_cpu_ns = v->be_cpu_ns;
		o->be_reset = v->be_iv == XVBD_IV_RESET;
		o->has_blk = v->has_blk;
		if (v->has_blk) {
			o->blk_rd_ios = v->blk_raw.rd_ios;
			o->blk_wr_ios = v->blk_raw.wr_ios;
			/* 32-bit in the kernel ("%u"): keep them so. */
			o->blk_rd_ticks_ms = v->blk_raw.rd_ticks_ms &
					     UINT32_MAX;
			o->blk_wr_ticks_ms = v->blk_raw.wr_ticks_ms &
					     UINT32_MAX;
			o->has_io_ticks = true;
			o->blk_io_ticks_ms = v->blk_raw.io_ticks_ms &
					     UINT32_MAX;
			o->has_blk_sect = true;
			o->blk_rd_sect = v->blk_raw.rd_sectors;
			o->blk_wr_sect = v->blk_raw.wr_sectors;
		}
		xvbd_ab_filedev_sample(&r->filedev[j], r->sys, v, o);
	}
	return true;
}

/*
 * Past max_samples the record would outgrow what a reader accepts: drop
 * every other sample (counters are cumulative, so no I/O is lost; a
 * reset inside a merged interval moves to its end) and sample half as
 * often from now on.
 */
static void thin(struct recorder *r)
{
	struct xvbd_ab_record *rec = r->rec;
	size_t rd, wr = 1, j;

	for (rd = 1; rd < rec->nsamples; rd++) {
		struct xvbd_ab_sample *s = &rec->samples[rd];

		if (rd % 2 && rd + 1 < rec->nsamples) {
			for (j = 0; j < rec->nvdevs; j++)
				rec->samples[rd + 1].vbds[j].reset |=
					s->vbds[j].reset;
			for (j = 0; j < rec->nvdevs; j++)
				rec->samples[rd + 1].vbds[j].be_reset |=
					s->vbds[j].be_reset ||
					!s->vbds[j].has_be;
			free(s->vbds);
			continue;
		}
		rec->samples[wr++] = *s;
	}
	rec->nsamples = wr;
	if (r->interval_ns <= XVBD_AB_INTERVAL_MAX_NS / 2)
		r->interval_ns *= 2;
	rec->interval_ns = r->interval_ns;
	xvbd_ab_record_note(rec, "the record reached its size limit after "
			    "%.3f s: every other sample dropped, the interval "
			    "is now %.3f s",
			    (double)rec->samples[wr - 1].t_ns / NS_PER_S,
			    (double)r->interval_ns / NS_PER_S);
}

static int add_sample(struct recorder *r, const struct xvbd_ab_sample *as)
{
	int err;

	if (r->rec->nsamples &&
	    as->t_ns <= r->rec->samples[r->rec->nsamples - 1].t_ns)
		return 0;	/* same instant: nothing new */
	if (r->rec->nsamples >= r->max_samples)
		thin(r);
	err = xvbd_ab_record_add(r->rec, as);
	if (err)
		xvbd_err(r->run->cmd, "sample", "%s", strerror(-err));
	return err;
}

/*
 * --latency: the slots this sample took, of each recorded VBD's backing
 * device, into the run's histograms (every sample after the baseline:
 * the run is the slots that ended between it and the last sample).
 */
static int take_latency(struct recorder *r, struct xvbd_stats_sample *s)
{
	size_t i, j;
	int err;

	if (!r->rec->lat)
		return 0;
	if (!s->lat_on) {
		/* Unavailable: said once, the run kept without it. */
		xvbd_ab_record_note(r->rec, "latency unavailable: %s",
				    s->lat_unavailable);
		xvbd_ab_lat_free(r->rec->lat);
		r->rec->lat = NULL;
		return 0;
	}
	for (j = 0; j < r->rec->nvdevs; j++) {
		for (i = 0; i < s->nvbds; i++) {
			if (s->vbds[i].domid != r->run->domid ||
			    s->vbds[i].devid != r->run->devids[j])
				continue;
			/* The first interval not whole, said with its reason. */
			if (s->lat[i].state != XVBD_LAT_OK &&
			    r->rec->lat->vbds[j].state == XVBD_LAT_OK)
				xvbd_ab_record_note(r->rec, "latency of %s not "
					"complete from %.1f s on: %s",
					r->rec->vdevs[j],
					(double)(s->mono_ns - r->base_ns) / 1e9,
					s->lat[i].why ? s->lat[i].why :
					xvbd_lat_state_name(s->lat[i].state));
			err = xvbd_ab_lat_add(r->rec->lat, j, &s->lat[i]);
			if (err)
				return err;
			break;
		}
	}
	return 0;
}

/* One stats sample into *as: 1 complete, 0 something missing, -errno. */
static int sample_now(struct recorder *r, struct xvbd_ab_sample *as,
		      const char **missing)
{
	int err;

	err = xvbd_stats_sample(r->st, &r->s);
	if (!err)
		err = take_latency(r, &r->s);
	if (err) {
		xvbd_err(r->run->cmd, "sampling", "%s", strerror(-err));
		return err;
	}
	return convert(r, &r->s, as, missing) ? 1 : 0;
}

/* Into the record, with every reset since the last recorded sample. */
static int keep(struct recorder *r, struct xvbd_ab_sample *as)
{
	size_t j;

	for (j = 0; j < r->rec->nvdevs; j++) {
		as->vbds[j].reset |= r->pending_reset[j];
		r->pending_reset[j] = false;
	}
	r->have_shadow = false;
	return add_sample(r, as);
}

static void keep_as_shadow(struct recorder *r, const struct xvbd_ab_sample *as)
{
	size_t j;

	/* A newer shadow may replace this one: its resets must stay. */
	for (j = 0; j < r->rec->nvdevs; j++)
		r->pending_reset[j] |= as->vbds[j].reset;
	r->shadow = *as;
	memcpy(r->shadow_vbds, as->vbds,
	       r->rec->nvdevs * sizeof(*r->shadow_vbds));
	r->shadow.vbds = r->shadow_vbds;
	r->have_shadow = true;
}

/*
 * The record's last sample when the counters are gone: the shadow, if
 * there is one newer than the record's last.
 */
static int end_at_shadow(struct recorder *r)
{
	return r->have_shadow ? keep(r, &r->shadow) : 0;
}

/*
 * A sample whose counters restarted while the guest no longer runs: its
 * VBDs were torn down with it (the counters read 0), so it says nothing
 * about the run and the record ends before it.
 */
static bool torn_down(struct recorder *r, const struct xvbd_ab_sample *as)
{
	bool restarted = false;
	size_t j;

	for (j = 0; j < r->rec->nvdevs; j++)
		restarted |= as->vbds[j].reset;
	return restarted && guest_running(r) == 0;
}

static double last_t(const struct recorder *r)
{
	return (double)r->rec->samples[r->rec->nsamples - 1].t_ns / NS_PER_S;
}

/* ---- the progress line (a terminal only) ---- */

static void progress(struct recorder *r, uint64_t now_ns, bool done)
{
	double elapsed = (double)(now_ns - r->base_ns) / NS_PER_S;
	double iops = 0, bytes = 0;
	char left[48] = "";
	size_t i, j;

	if (!r->run->progress)
		return;
	if (done) {
		fputs("\r\033[K", stderr);
		return;
	}
	for (i = 0; i < r->s.nvbds; i++) {
		const struct xvbd_stats_vbd *v = &r->s.vbds[i];

		if (v->domid != r->run->domid || v->iv != XVBD_IV_OK)
			continue;
		for (j = 0; j < r->rec->nvdevs; j++) {
			if (v->devid != r->run->devids[j])
				continue;
			iops += v->rd_req_s + v->wr_req_s;
			bytes += v->rd_bytes_s + v->wr_bytes_s;
		}
	}
	if (r->run->mode == XVBD_AB_MODE_DURATION)
		snprintf(left, sizeof(left), ", %.0f s left",
			 (double)r->run->duration_ns / NS_PER_S - elapsed);
	fprintf(stderr, "\rxvbd: ab record: %s: %.0f s%s, %.0f IO/s, "
		"%.1f MB/s\033[K", r->run->label, elapsed, left, iops,
		bytes / 1e6);
	fflush(stderr);
}

/* ---- the run ---- */

/* Every signal pending on r->sigfd, noted in r. */
static void take_signals(struct recorder *r)
{
	struct signalfd_siginfo si;

	for (;;) {
		ssize_t n = read(r->sigfd, &si, sizeof(si));

		if (n < 0 && errno == EINTR)
			continue;
		if (n != (ssize_t)sizeof(si))
			return;		/* EAGAIN: no more */
		if (si.ssi_signo == SIGCHLD)
			r->child_exited = true;
		else
			r->run->stop_signal = (int)si.ssi_signo;
	}
}

/*
 * Until deadline, or until a signal of r->sigs arrives (noted in r; what
 * else is pending is taken too).  Meanwhile the --run command's stdout,
 * when it is read, is read as it comes: a command blocked on a full pipe
 * would never end.
 */
static void wait_until(struct recorder *r, uint64_t deadline_ns)
{
	for (;;) {
		uint64_t now = xvbd_stats_now_ns();
		uint64_t left = deadline_ns > now ? deadline_ns - now : 0;
		/* With latency, woken on the way to read its records. */
		uint64_t wake = xvbd_stats_wake_ns(r->st, now, deadline_ns);
		bool part = wake < deadline_ns;
		uint64_t wait = part ? wake - now : left;
		struct timespec ts = { .tv_sec = (time_t)(wait / NS_PER_S),
				       .tv_nsec = (long)(wait % NS_PER_S) };
		struct pollfd p[2] = {
			{ .fd = r->sigfd, .events = POLLIN },
			{ .fd = r->out.fd, .events = POLLIN },
		};
		int n = ppoll(p, r->out.fd >= 0 ? 2 : 1, &ts, NULL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return;
		if (n > 0 && r->out.fd >= 0 && p[1].revents)
			xvbd_ab_output_read(&r->out);
		if (n > 0 && p[0].revents) {
			take_signals(r);
			return;
		}
		if (n == 0 && part) {
			xvbd_stats_lat_drain(r->st);
			continue;
		}
		if (n == 0 || !left)
			return;		/* the deadline */
	}
}

static int start_workload(struct recorder *r)
{
	int out_fd = STDERR_FILENO, err = 0;

	/* Its stdout read as results: a pipe of ours; else on stderr. */
	if (r->run->capture) {
		r->out.capture = r->run->capture;
		r->out.echo = r->run->echo_output;
		err = xvbd_ab_output_open(&r->out, &out_fd);
	}
	if (!err)
		err = xvbd_ab_run_sh_out(r->run, r->run->run_cmd, out_fd,
					 &r->child);
	if (out_fd != STDERR_FILENO)
		close(out_fd);
	if (err) {
		r->child = 0;
		xvbd_err(r->run->cmd, "--run", "cannot start %s: %s", SH,
			 strerror(-err));
	}
	return err;
}

/* The command has ended: its status into the record. */
static bool workload_ended(struct recorder *r)
{
	int status;

	if (!r->child || xvbd_spawn_reap(r->child, false, &status) != 1)
		return false;
	r->child = 0;
	r->rec->workload_status = status;
	return true;
}

/* End the command and everything it started (its process group). */
static void stop_workload(struct recorder *r, const char *why)
{
	int64_t deadline = xvbd_now_ms() + XVBD_AB_KILL_GRACE_MS;
	int status = 0;

	if (!r->child)
		return;
	kill(-r->child, SIGTERM);
	while (xvbd_spawn_reap(r->child, false, &status) == 0) {
		if (xvbd_now_ms() >= deadline) {
			kill(-r->child, SIGKILL);
			xvbd_spawn_reap(r->child, true, &status);
			break;
		}
		usleep(20000);
	}
	r->child = 0;
	r->rec->workload_status = status;
	xvbd_ab_record_note(r->rec, "the command was ended (%s): exit "
			    "status %d", why, status);
}

/* Warmup: time passes, nothing is kept.  false when the run ended. */
static bool warmup(struct recorder *r)
{
	uint64_t end = xvbd_stats_now_ns() + r->run->warmup_ns;

	while (xvbd_stats_now_ns() < end) {
		uint64_t next = xvbd_stats_now_ns() + POLL_NS;

		wait_until(r, next < end ? next : end);
		/*
		 * Sampled and dropped: the sampler keeps up with what the
		 * guest's boot changed (its backends' xenstore events, a
		 * re-read of the VBD list that takes a second under load),
		 * so the baseline at the warmup's end is prompt.  A failure
		 * here shows again, and stops the run, at the baseline.
		 */
		(void)xvbd_stats_sample(r->st, &r->s);
		if (r->run->stop_signal) {
			xvbd_err(r->run->cmd, "interrupted", "by %s during "
				 "the warmup: nothing recorded",
				 xvbd_sig_name(r->run->stop_signal));
			return false;
		}
		if (workload_ended(r)) {
			xvbd_err(r->run->cmd, "--run", "the command ended "
				 "during the warmup (exit status %d): nothing "
				 "recorded",
				 r->rec->workload_status);
			return false;
		}
		if (r->run->mode == XVBD_AB_MODE_UNTIL_SHUTDOWN &&
		    guest_running(r) == 0) {
			xvbd_err(r->run->cmd, "domain", "%s shut down during "
				 "the warmup: nothing recorded",
				 r->run->domain);
			return false;
		}
	}
	return true;
}

/*
 * The last sample, at the end: kept if complete, else the record ends at
 * the newest complete one and says why.
 */
static int final_sample(struct recorder *r, const char *when)
{
	const char *missing = NULL;
	struct xvbd_ab_sample as;
	bool had_shadow;
	int got;

	r->final = true;
	got = sample_now(r, &as, &missing);
	if (got < 0)
		return got;
	if (got && !torn_down(r, &as))
		return keep(r, &as);
	had_shadow = r->have_shadow;
	got = end_at_shadow(r);
	if (got)
		return got;
	/*
	 * A guest that powered off at its workload's end took its counters
	 * along: the newest sample, at most a poll before, is the end.  A
	 * normal end, not a note that ab compare would turn into a warning.
	 */
	if (!missing && had_shadow)
		return 0;
	if (missing)
		xvbd_ab_record_note(r->rec, "no final sample %s: %s was "
				    "already gone; the record ends at the "
				    "last sample that had it, %.3f s after "
				    "the baseline", when, missing, last_t(r));
	else
		xvbd_ab_record_note(r->rec, "no final sample %s: the VBDs' "
				    "counters went with the guest; the record "
				    "ends at the last sample that had them, "
				    "%.3f s after the baseline", when,
				    last_t(r));
	return 0;
}

/*
 * Something went away mid-run (a VBD's counters, the guest): the run is
 * over.  For --until-shutdown that is how a guest's end may look first
 * (blkfront closes its devices before the guest powers off): complete if
 * the guest then shuts down.  For --run, a guest that powers off at its
 * workload's end may go a moment before the command that waited for it:
 * complete if the guest shut down and the command then ends by itself.
 */
static int went_away(struct recorder *r, const char *missing, uint64_t now)
{
	bool until = r->run->mode == XVBD_AB_MODE_UNTIL_SHUTDOWN;
	uint64_t t = now - r->base_ns, deadline = now + SHUTDOWN_WAIT_NS;
	bool cmd_ended = false;
	int running, err;

	err = end_at_shadow(r);
	if (err)
		return err;
	running = guest_running(r);
	while (until && running > 0 && !r->run->stop_signal &&
	       xvbd_stats_now_ns() < deadline) {
		wait_until(r, xvbd_stats_now_ns() + POLL_NS);
		running = guest_running(r);
	}
	while (r->run->mode == XVBD_AB_MODE_RUN && running == 0 &&
	       !r->run->stop_signal && !cmd_ended &&
	       xvbd_stats_now_ns() < deadline) {
		wait_until(r, xvbd_stats_now_ns() + POLL_NS);
		cmd_ended = workload_ended(r);
	}
	r->rec->complete = running == 0 && (until || cmd_ended);
	/* --run's normal end when the guest powers off first: as above. */
	if (cmd_ended)
		return 0;
	xvbd_ab_record_note(r->rec, "%s went away after %.3f s%s; the record "
			    "ends at the last sample that had it, %.3f s "
			    "after the baseline", missing,
			    (double)t / NS_PER_S, running == 0 ?
			    " (the guest shut down)" :
			    " (the guest still runs)", last_t(r));
	stop_workload(r, "the run ended early");
	return 0;
}

static int record_loop(struct recorder *r)
{
	const struct xvbd_ab_run *o = r->run;
	uint64_t next = r->base_ns + r->interval_ns;
	uint64_t end = r->base_ns + o->duration_ns;
	const char *missing = NULL;
	struct xvbd_ab_sample as;
	int got, running;

	for (;;) {
		uint64_t now = xvbd_stats_now_ns(), wake;

		wake = now + POLL_NS < next ? now + POLL_NS : next;
		if (o->mode == XVBD_AB_MODE_DURATION && end < wake)
			wake = end;
		wait_until(r, wake);
		now = xvbd_stats_now_ns();
		if (r->run->stop_signal) {
			const char *sig = xvbd_sig_name(r->run->stop_signal);

			stop_workload(r, sig);
			xvbd_ab_record_note(r->rec, "interrupted by %s after "
					    "%.3f s", sig,
					    (double)(now - r->base_ns) /
					    NS_PER_S);
			return final_sample(r, "at the interruption");
		}
		if (o->mode == XVBD_AB_MODE_RUN && r->child_exited) {
			r->child_exited = false;
			if (workload_ended(r)) {
				r->rec->complete = true;
				return final_sample(r, "when the command "
						    "ended");
			}
		}
		if (o->mode == XVBD_AB_MODE_DURATION && now >= end) {
			r->rec->complete = true;
			return final_sample(r, "at the end");
		}
		if (o->mode == XVBD_AB_MODE_UNTIL_SHUTDOWN) {
			running = guest_running(r);
			if (running < 0) {
				xvbd_err(r->run->cmd, "domain", "%s: %s",
					 r->run->domain, strerror(-running));
				return running;
			}
			if (!running) {
				r->rec->complete = true;
				xvbd_ab_record_note(r->rec, "the guest shut "
						    "down after %.3f s",
						    (double)(now -
							     r->base_ns) /
						    NS_PER_S);
				return final_sample(r, "at the shutdown");
			}
		}
		/*
		 * --run, --until-shutdown: every poll, the last moment
		 * counts (the guest may take its counters along when it
		 * ends).
		 */
		if (now < next && o->mode == XVBD_AB_MODE_DURATION)
			continue;
		got = sample_now(r, &as, &missing);
		if (got < 0)
			return got;
		if (!got)
			return went_away(r, missing, now);
		if (torn_down(r, &as))
			return went_away(r, "the VBDs' counters", now);
		if (now < next) {
			keep_as_shadow(r, &as);
			continue;
		}
		got = keep(r, &as);
		if (got)
			return got;
		progress(r, r->s.mono_ns, false);
		next += r->interval_ns;
		/* Fell behind (a slow sample): no catching up. */
		if (next < r->s.mono_ns)
			next = r->s.mono_ns + r->interval_ns;
	}
}

/* At most this many samples before the baseline is taken as it is. */
#define BASELINE_TRIES	3

/* Did the last sample find a recorded VBD's latency not whole? */
static bool baseline_lat_partial(const struct recorder *r)
{
	size_t i, j;

	if (!r->run->latency || !r->s.lat_on)
		return false;
	for (j = 0; j < r->rec->nvdevs; j++)
		for (i = 0; i < r->s.nvbds; i++)
			if (r->s.vbds[i].domid == r->run->domid &&
			    r->s.vbds[i].devid == r->run->devids[j] &&
			    r->s.lat[i].state == XVBD_LAT_INCOMPLETE)
				return true;
	return false;
}

/* Baseline: the first sample, time 0; the record's start. */
static int baseline(struct recorder *r)
{
	struct xvbd_ab_sample as;
	const char *missing = NULL;
	char id[XVBD_AB_ID_MAX];
	uint64_t start;
	size_t j;
	int err, tries;

	/*
	 * --latency: at the start of the first slot the kernel counts its
	 * devices' requests in whole (at most an interval or two on), so
	 * that none of the run's is left out.
	 */
	start = xvbd_stats_lat_start_ns(r->st, xvbd_stats_now_ns());
	for (tries = 0; tries < BASELINE_TRIES; tries++) {
		if (start > xvbd_stats_now_ns())
			wait_until(r, start);
		if (r->run->stop_signal) {
			xvbd_err(r->run->cmd, "interrupted", "by %s before "
				 "the baseline: nothing recorded",
				 xvbd_sig_name(r->run->stop_signal));
			return -ECANCELED;
		}
		err = xvbd_stats_sample(r->st, &r->s);
		if (err) {
			xvbd_err(r->run->cmd, "sampling", "%s",
				 strerror(-err));
			return err;
		}
		/*
		 * A device this sample set (a disk attached after the
		 * session began: the hot run's) is counted from the next
		 * slot on, and a read that found the slots before it not
		 * whole (no read for a cycle: the fingerprint ran) marks
		 * the next read too: a baseline before either is over
		 * would leave the run's first interval, and so its whole
		 * latency, incomplete.  The baseline moves on a slot.
		 */
		start = xvbd_stats_lat_whole_from_ns(r->st);
		if (baseline_lat_partial(r))
			start = xvbd_stats_lat_deadline_ns(r->st,
							xvbd_stats_now_ns());
		if (start <= xvbd_stats_now_ns())
			break;
	}
	r->base_ns = r->s.mono_ns;
	if (!convert(r, &r->s, &as, &missing)) {
		xvbd_err(r->run->cmd, "baseline", "%s: no counters (backend "
			 "not connected yet, or gone)", missing);
		return -ENOENT;
	}
	/*
	 * No interval ends at the baseline: a reset the warmup's samples
	 * saw last (a fresh guest's disks connecting) is not the record's.
	 */
	for (j = 0; j < r->rec->nvdevs; j++)
		as.vbds[j].reset = false;
	r->rec->started_unix_ns = r->s.realtime_ns;
	err = xvbd_ab_make_id(r->run->label, r->rec->started_unix_ns, id,
			      sizeof(id));
	if (!err) {
		r->rec->id = strdup(id);
		if (!r->rec->id)
			err = -ENOMEM;
	}
	if (!err)
		err = add_sample(r, &as);
	if (err)
		xvbd_err(r->run->cmd, "baseline", "%s", strerror(-err));
	return err;
}


static int open_sampler(struct recorder *r)
{
	struct xvbd_stats_source src;
	char dom0[XVBD_STATS_NAME_MAX];
	const char *names[2] = { r->run->domain, dom0 };
	struct xvbd_stats_opts so = { .domains = names, .ndomains = 2,
				      .latency = r->run->latency,
				      .interval_ns = r->run->interval_ns };
	int err;

	err = xvbd_tstack_domain_name(r->ts, DOM0_DOMID, dom0,
				      sizeof(dom0));
	if (err) {
		xvbd_err(r->run->cmd, "dom0", "no name: %s", strerror(-err));
		return err;
	}
	r->sys = xvbd_sysfs_open(NULL);
	if (!r->sys) {
		err = -errno;
		xvbd_err(r->run->cmd, "cannot open /sys", "%s",
			 strerror(errno));
		return err;
	}
	err = xvbd_stats_sys_source(r->ts, r->xs, &src);
	if (err) {
		xvbd_err(r->run->cmd, "watching xenstore for VBD changes", "%s",
			 strerror(-err));
		return err;
	}
	err = xvbd_stats_open(&src, r->sys, &so, &r->st);
	if (err) {
		src.close(src.arg);
		xvbd_err(r->run->cmd, "listing VBDs", "%s", strerror(-err));
	}
	if (!err && r->run->latency) {
		r->rec->lat = xvbd_ab_lat_new(r->rec->nvdevs);
		if (!r->rec->lat)
			err = -ENOMEM;
	}
	return err;
}


static void run_signals(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGHUP);
	sigaddset(set, SIGCHLD);
}

/*
 * At the end: a guest that rebooted or crashed inside the run (shut down
 * with that reason and kept so, ab run's pinned config) ends it as
 * incomplete, whatever ended the recording.
 */
static void check_restart(struct recorder *r)
{
	if (guest_running(r) < 0 || !r->restart_reason)
		return;
	r->rec->complete = false;
	xvbd_ab_record_note(r->rec, "the guest shut down to restart (Xen's "
			    "shutdown reason: %s) within %.3f s of the "
			    "baseline: the run is incomplete",
			    r->restart_reason, last_t(r));
}

/*
 * Blocked in the thread that calls and every thread started after it, so
 * that a signal sent to the process stays pending for wait_until()
 * instead of meeting a thread that does not block it (and its default
 * action).  Not restored: a pending SIGINT would then kill the caller
 * before it writes the record; spawned commands start unblocked.
 */
void xvbd_ab_recorder_block_signals(void)
{
	sigset_t set;

	run_signals(&set);
	sigprocmask(SIG_BLOCK, &set, NULL);
}

int xvbd_ab_recorder_loop(struct xvbd_tstack *ts, struct xvbd_xs *xs,
			  struct xvbd_ab_run *run, struct xvbd_ab_record *rec)
{
	/*
	 * out.fd -1: no pipe of ours until --run starts one.  Zero would be
	 * stdin: drained and closed after the first run, and the next run's
	 * first pipe (libxl's) read in its place and waited on forever.
	 */
	struct recorder r = { .ts = ts, .xs = xs, .run = run, .rec = rec,
			      .interval_ns = run->interval_ns,
			      .out = { .fd = -1 } };
	size_t per_sample, i;
	bool fp_first;
	int err;

	run->stop_signal = 0;
	run->sampling_failed = false;
	if (!rec->nvdevs || rec->nvdevs > XVBD_AB_VDEVS_MAX)
		return -EINVAL;
	/* A sample's JSON: ~150 bytes plus ~260 per VBD; stay well below. */
	per_sample = 150 + 260 * rec->nvdevs;
	r.max_samples = XVBD_AB_FILE_MAX / 2 / per_sample;
	err = open_sampler(&r);
	if (err)
		goto out;
	run_signals(&r.sigs);
	xvbd_ab_recorder_block_signals();
	r.sigfd = signalfd(-1, &r.sigs, SFD_NONBLOCK | SFD_CLOEXEC);
	if (r.sigfd < 0) {
		err = -errno;
		xvbd_err(run->cmd, "signalfd", "%s", strerror(errno));
		goto out;
	}
	/* A signal while the run was being set up: no run. */
	wait_until(&r, 0);
	err = -ECANCELED;
	if (run->stop_signal) {
		xvbd_err(run->cmd, "interrupted", "by %s before the baseline: "
			 "nothing recorded",
			 xvbd_sig_name(run->stop_signal));
		goto out;
	}
	if (run->mode == XVBD_AB_MODE_RUN && run->warmup_ns &&
	    start_workload(&r))
		goto out;
	if (run->warmup_ns && !warmup(&r))
		goto out;
	/*
	 * The fingerprint takes half a second or more under load.  With no
	 * workload of ours running yet it comes before the baseline, so the
	 * first interval is as short as the others and the busy span starts
	 * at the sampling step, not at the end of a long first interval.  A
	 * command started at the warmup's beginning (and timed to its end,
	 * the lab's GO) already runs: then it follows the baseline, or its
	 * work would fall before it (the counters are cumulative, so the
	 * first interval is only longer).
	 */
	fp_first = !r.child;
	if (fp_first && run->at_baseline && !run->at_baseline_done) {
		err = run->at_baseline(run->arg);
		if (err)
			goto out;	/* its error is printed */
	}
	err = baseline(&r);
	if (err)
		goto out;
	/* Right after the baseline: the record spans the command exactly. */
	if (run->mode == XVBD_AB_MODE_RUN && !r.child) {
		err = start_workload(&r);
		if (err)
			goto out;	/* the baseline alone is no run */
	}
	if (!fp_first && run->at_baseline && !run->at_baseline_done) {
		err = run->at_baseline(run->arg);
		if (err)
			goto out;	/* its error is printed */
	}
	err = record_loop(&r);
	if (!err)
		check_restart(&r);
	progress(&r, 0, true);
	if (err) {
		/* What was sampled until then is still worth keeping. */
		stop_workload(&r, "sampling failed");
		rec->complete = false;
		run->sampling_failed = true;
		xvbd_ab_record_note(rec, "sampling failed: %s",
				    strerror(-err));
		err = 0;
	}
out:
	if (r.child)
		stop_workload(&r, "the run could not go on");
	xvbd_ab_output_finish(&r.out, rec);
	if (r.sigfd >= 0)
		close(r.sigfd);
	for (i = 0; i < XVBD_AB_VDEVS_MAX; i++)
		xvbd_ab_filedev_close(&r.filedev[i]);
	xvbd_stats_sample_free(&r.s);
	xvbd_stats_close(r.st);
	xvbd_sysfs_close(r.sys);
	return err;
}
