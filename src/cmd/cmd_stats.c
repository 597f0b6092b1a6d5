/*
 * cmd_stats.c - xvbd stats [Domain...] [-d S] [-n N] [--vcpus]
 *		 [--latency] [--json|--csv|--prometheus FILE]
 *
 * Renders the samples of the stats layer: per domain CPU%, vCPUs and
 * memory; per VBD request and byte rates, flushes, discards, oo_req, and
 * the backing device's latency and queue depth; with --latency, its
 * requests' latency distribution (dom0/lat_trace.h), whose intervals
 * then end where the kernel's slots do.  One render function
 * describes a sample; text, JSON (one object per line) and CSV all come
 * from it, so their numbers are the same digits.  Prometheus textfile
 * output is written atomically (temporary file + rename).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "xvbd/cmd/cmd.h"
#include "xvbd/stats/stats.h"
#include "xvbd/dom0/sysfs.h"

#define NS_PER_S		UINT64_C(1000000000)
#define INTERVAL_DEFAULT_NS	NS_PER_S
#define INTERVAL_MAX_S		86400ull
#define COUNT_MAX		100000000ull

/* The first three are enum xvbd_stats_fmt's values. */
enum fmt {
	FMT_TEXT = XVBD_STATS_TEXT,
	FMT_JSON = XVBD_STATS_JSON,
	FMT_CSV = XVBD_STATS_CSV,
	FMT_PROM,
};

struct stats_opts {
	uint64_t interval_ns;
	uint64_t count;		/* samples shown; 0: until interrupted */
	enum fmt fmt;
	const char *prom_path;
	bool vcpus;
	bool latency;
	bool live;		/* text on a terminal: refresh in place */
	char **domains;		/* resolved names */
	size_t ndomains;
};

/* Set by SIGINT/SIGTERM: the sampling loop ends cleanly. */
static volatile sig_atomic_t stop_requested;

static void on_stop_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

/* ---- option parsing ---- */

/* The file must be somewhere a rename can replace it atomically. */
static int check_prom_path(const char *path, char *why, size_t len)
{
	const char *base = strrchr(path, '/');
	struct stat st;

	base = base ? base + 1 : path;
	if (!*path || strlen(path) >= PATH_MAX || !*base ||
	    !strcmp(base, ".") || !strcmp(base, "..")) {
		snprintf(why, len, "\"%s\" is not a file name", path);
		return -EINVAL;
	}
	if (!stat(path, &st) && !S_ISREG(st.st_mode)) {
		snprintf(why, len, "\"%s\" exists and is not a regular file",
			 path);
		return -EINVAL;
	}
	return 0;
}

enum { O_INTERVAL, O_COUNT, O_VCPUS, O_LATENCY, O_CSV, O_PROMETHEUS };

const struct xvbd_cmdopt cmd_stats_opts[] = {
	[O_INTERVAL] = XVBD_OPT_S("interval", 'd', 0.01, INTERVAL_MAX_S,
		"sampling interval (default 1s)"),
	[O_COUNT] = XVBD_OPT_N("count", 'n', "N", 1, COUNT_MAX,
		"samples to show, then exit (default: until interrupted)"),
	[O_VCPUS] = XVBD_OPT_F("vcpus", 0, "each vCPU's time too"),
	[O_LATENCY] = XVBD_OPT_F("latency", 0, "each VBD's request latency "
		"(p50, p99, p99.9, max) from the block layer's tracepoints"),
	[O_CSV] = XVBD_OPT_F("csv", 0, "CSV, a header then a row per VBD "
			     "and sample"),
	[O_PROMETHEUS] = XVBD_OPT_STR("prometheus", 0, "FILE", 0,
		"node_exporter textfile, replaced atomically per sample"),
	XVBD_OPT_END,
};

static int parse_opts(struct xvbd_ctx *ctx, struct stats_opts *so)
{
	const struct xvbd_cmdline *cl = ctx->cl;
	char why[PATH_MAX + 64];
	int nfmt = ctx->opts->json;
	size_t i;

	so->interval_ns = INTERVAL_DEFAULT_NS;
	so->fmt = ctx->opts->json ? FMT_JSON : FMT_TEXT;
	for (i = 0; i < cl->ngiven; i++) {
		const struct xvbd_optval *v = &cl->given[i];

		switch (v->id) {
		case O_INTERVAL:
			so->interval_ns = v->u;
			break;
		case O_COUNT:
			so->count = v->u;
			break;
		case O_CSV:
			nfmt += so->fmt != FMT_CSV;
			so->fmt = FMT_CSV;
			break;
		case O_PROMETHEUS:
			nfmt++;
			so->fmt = FMT_PROM;
			so->prom_path = v->arg;
			if (check_prom_path(v->arg, why, sizeof(why)))
				return xvbd_usage_error(ctx->cmd,
							"--prometheus: %s",
							why);
			break;
		case O_VCPUS:
			so->vcpus = true;
			break;
		case O_LATENCY:
			so->latency = true;
			break;
		}
	}
	if (nfmt > 1)
		return xvbd_usage_error(ctx->cmd, "--json, --csv and "
					"--prometheus exclude each other");
	so->live = so->fmt == FMT_TEXT && isatty(STDOUT_FILENO);
	return XVBD_EXIT_OK;
}

static int resolve_domains(struct xvbd_ctx *ctx, int argc, char **argv,
			   struct stats_opts *so)
{
	uint32_t domid;
	int i, err;

	if (!argc)
		return XVBD_EXIT_OK;
	so->domains = calloc((size_t)argc, sizeof(*so->domains));
	if (!so->domains) {
		xvbd_err("stats", "domains", "%s", strerror(ENOMEM));
		return XVBD_EXIT_FAIL;
	}
	for (i = 0; i < argc; i++) {
		err = xvbd_cmd_domain_lookup(ctx, argv[i], &domid,
					     &so->domains[i]);
		if (err)
			return err;
		so->ndomains++;
	}
	return XVBD_EXIT_OK;
}

/* ---- the loop ---- */

static void print_warnings(const struct xvbd_stats *st)
{
	size_t i;

	for (i = 0; i < xvbd_stats_nwarnings(st); i++)
		xvbd_err("stats", "warning", "%s", xvbd_stats_warning(st, i));
}

/*
 * Sleep until the absolute monotonic deadline; false when stopped.
 * With latency, woken on the way to read the kernel's records
 * (xvbd_stats_wake_ns), whatever the interval.
 */
static bool sleep_until(struct xvbd_stats *st, uint64_t deadline_ns)
{
	while (!stop_requested) {
		uint64_t now = xvbd_stats_now_ns(), to;
		struct timespec ts;
		int rc;

		if (now >= deadline_ns)
			return true;
		to = xvbd_stats_wake_ns(st, now, deadline_ns);
		ts.tv_sec = (time_t)(to / NS_PER_S);
		ts.tv_nsec = (long)(to % NS_PER_S);
		rc = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
		if (rc && rc != EINTR)
			return false;
		if (!rc && to < deadline_ns)
			xvbd_stats_lat_drain(st);
	}
	return false;
}

static int run(struct xvbd_ctx *ctx, const struct stats_opts *so)
{
	struct xvbd_stats_opts opts = {
		.domains = (const char *const *)so->domains,
		.ndomains = so->ndomains,
		.vcpus = so->vcpus,
		.latency = so->latency,
		.interval_ns = so->interval_ns,
	};
	struct xvbd_stats_sample s = { 0 };
	struct xvbd_stats_source src;
	struct xvbd_stats *st = NULL;
	struct xvbd_sysfs *sys = NULL;
	uint64_t shown = 0, next;
	int rc = XVBD_EXIT_OK, err;

	sys = xvbd_sysfs_open(NULL);
	if (!sys) {
		xvbd_err("stats", "cannot open /sys", "%s", strerror(errno));
		return XVBD_EXIT_FAIL;
	}
	err = xvbd_stats_sys_source(ctx->ts, ctx->xs, &src);
	if (err) {
		xvbd_err("stats", "watching xenstore for VBD changes", "%s",
			 strerror(-err));
		xvbd_sysfs_close(sys);
		return XVBD_EXIT_FAIL;
	}
	err = xvbd_stats_open(&src, sys, &opts, &st);
	if (err) {
		xvbd_err("stats", "listing VBDs", "%s", strerror(-err));
		src.close(src.arg);
		xvbd_sysfs_close(sys);
		return XVBD_EXIT_FAIL;
	}
	/*
	 * The baseline: counters now, rates from the next sample on.  With
	 * latency, at the start of the first slot the kernel counts whole,
	 * so that every interval is whole slots.
	 */
	next = xvbd_stats_lat_start_ns(st, xvbd_stats_now_ns());
	if (next > xvbd_stats_now_ns() && !sleep_until(st, next))
		goto out;
	err = xvbd_stats_sample(st, &s);
	next = xvbd_stats_lat_deadline_ns(st, s.mono_ns);
	if (!err && so->fmt == FMT_PROM) {
		err = xvbd_stats_prom_write(so->prom_path, &s);
		if (err) {
			xvbd_err("stats", so->prom_path, "%s", strerror(-err));
			rc = XVBD_EXIT_FAIL;
			goto out;
		}
	}
	while (!err && (!so->count || shown < so->count)) {
		next += so->interval_ns;
		/* Fell behind (the sample took longer): do not catch up. */
		if (next < s.mono_ns)
			next = xvbd_stats_lat_deadline_ns(st, s.mono_ns);
		if (!sleep_until(st, next))
			break;
		err = xvbd_stats_sample(st, &s);
		if (err)
			break;
		print_warnings(st);
		if (so->fmt == FMT_PROM)
			err = xvbd_stats_prom_write(so->prom_path, &s);
		else if (xvbd_stats_render(stdout, so->live ? XVBD_STATS_LIVE :
					   (enum xvbd_stats_fmt)so->fmt, &s,
					   shown == 0))
			err = -EIO;
		if (err == -EIO) {
			xvbd_err("stats", "stdout", "write failed");
			rc = XVBD_EXIT_FAIL;
			goto out;
		} else if (err) {
			xvbd_err("stats", so->prom_path, "%s",
				 strerror(-err));
			rc = XVBD_EXIT_FAIL;
			goto out;
		}
		shown++;
	}
	if (err) {
		xvbd_err("stats", "sampling", "%s", strerror(-err));
		rc = XVBD_EXIT_FAIL;
	}
out:
	xvbd_stats_sample_free(&s);
	xvbd_stats_close(st);
	xvbd_sysfs_close(sys);
	return rc;
}

int cmd_stats(struct xvbd_ctx *ctx, int argc, char **argv)
{
	struct stats_opts so = { 0 };
	struct sigaction sa = { .sa_handler = on_stop_signal }, old_hup;
	int rc;
	size_t i;

	rc = parse_opts(ctx, &so);
	if (!rc)
		rc = xvbd_cmd_connect(ctx);
	if (rc)
		return rc;
	rc = resolve_domains(ctx, argc, argv, &so);
	if (!rc) {
		/* No SA_RESTART: the sleep returns and the loop ends.  A
		 * hangup or quit, too: --latency's tracing is removed on
		 * the way out. */
		sigemptyset(&sa.sa_mask);
		sigaction(SIGINT, &sa, NULL);
		sigaction(SIGTERM, &sa, NULL);
		sigaction(SIGQUIT, &sa, NULL);
		/* nohup xvbd stats ...: a hangup ignored stays ignored. */
		if (!sigaction(SIGHUP, NULL, &old_hup) &&
		    old_hup.sa_handler != SIG_IGN)
			sigaction(SIGHUP, &sa, NULL);
		/* One write per sample (and per live frame). */
		static char buf[1 << 16];

		setvbuf(stdout, buf, _IOFBF, sizeof(buf));
		rc = run(ctx, &so);
	}
	for (i = 0; i < so.ndomains; i++)
		free(so.domains[i]);
	free(so.domains);
	return rc;
}
