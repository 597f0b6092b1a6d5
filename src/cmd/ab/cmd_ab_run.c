/*
 * cmd_ab_run.c - xvbd ab run LABEL_A CONFIG_A LABEL_B CONFIG_B
 *		  [--vbd-a VDEV:key=value,...]... [--vbd-b ...]... [--vdev V]...
 *		  (--duration S | --run CMD | --until-shutdown)
 *		  [--interval S] [--warmup S]
 *		  [--runs N | --until-confident [--min-effect P] [--max-runs N]]
 *		  [--equivalence P] [--metric M] [--confidence P] [--dir DIR]
 *		  [--timeout S] [--fail-if-worse P]
 *		  [--json]
 *
 * The whole experiment: runs of A and B alternate in ABBA order (A B, B A,
 * A B, ...) so that a slow drift of the host weighs on both alike; each
 * run is a fresh guest created the way `xvbd start` does it (the
 * guest_start layer: xl create -p, the --vbd overrides in the paused
 * window, unpause, verify), recorded the way `ab record` does it (the
 * recorder layer), then destroyed.  A run whose overrides did not take
 * effect ends the experiment: its variable would not be under test.
 *
 * The unit of evidence is a pair of adjacent runs: d = ln(B / A) of one
 * metric's run summaries.  --runs N stops after N pairs; --until-confident
 * after every pair asks the sequential procedure (ab_seq.c: an always-
 * valid confidence sequence for the mean of d, safe under looking after
 * every pair) and stops when it excludes "no difference" or lies inside
 * +-min effect (+-P % with --equivalence P), or at --max-runs pairs.
 * Every record carries the experiment's id and its pair's index, so the
 * verdict at the end, `ab compare`'s on this experiment's records, and
 * any later `ab compare` of them are paired (ab_compare_pair.c).
 *
 * A guest is never left behind by a run that ends: interrupted (SIGINT,
 * SIGTERM, SIGHUP) it is destroyed; killed with SIGKILL, its journal
 * (journal.h) names it, and the next xvbd says so with the command that
 * removes it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "xvbd/base/journal.h"
#include "xvbd/ab/ab.h"
#include "xvbd/cmd/ab/ab_recorder.h"
#include "ab_recorder_impl.h"
#include "cmd_ab_run_impl.h"
#include "xvbd/ab/ab_stat.h"
#include "xvbd/ab/ab_sweep.h"
#include "xvbd/xen/blkif.h"
#include "xvbd/cmd/cmd.h"
#include "xvbd/cmd/ab/cmd_ab.h"
#include "xvbd/cmd/guest_start.h"
#include "xvbd/base/sig.h"
#include "xvbd/base/util.h"

#define CMD			"ab run"
#define NS_PER_S		UINT64_C(1000000000)
#define PAIRS_DEFAULT		3
#define MAX_PAIRS_DEFAULT	20
#define PAIRS_MAX		500
#define MIN_EFFECT_DEFAULT	XVBD_AB_MIN_EFFECT_DEFAULT
#define CONFIDENCE_DEFAULT	0.95
#define START_TIMEOUT_S		120
/* How long xl's monitor gets to destroy a guest that powered off. */
#define DESTROY_WAIT_TRIES	50
#define DESTROY_WAIT_US		100000
/* Where a running experiment names the guest it owns (kill -9 proof). */

/* ---- options ---- */

int ab_run_add_vbd(struct side *sd, const char *opt, const char *arg)
{
	char why[256];
	size_t i;

	if (sd->nsets == XVBD_START_MAX_DEVS) {
		xvbd_err(CMD, opt, "more than %d devices",
			 XVBD_START_MAX_DEVS);
		return XVBD_EXIT_USAGE;
	}
	if (xvbd_override_parse_vbd(&sd->sets[sd->nsets], arg, why,
				    sizeof(why))) {
		xvbd_err(CMD, opt, "%s", why);
		return XVBD_EXIT_USAGE;
	}
	for (i = 0; i < sd->nsets; i++) {
		if (sd->sets[i].devid != sd->sets[sd->nsets].devid)
			continue;
		xvbd_err(CMD, opt, "%s given twice: combine its keys with ','",
			 sd->sets[i].vdev);
		return XVBD_EXIT_USAGE;
	}
	sd->nsets++;
	return 0;
}

/*
 * --vdev V: record only these disks (a guest's trigger or boot disk
 * would otherwise add its I/O to the workload's).
 */
static int add_vdev(struct run_opts *o, const char *arg)
{
	uint32_t devid, other;
	size_t i;

	if (xvbd_vdev_parse(arg, &devid)) {
		xvbd_err(CMD, "--vdev", "\"%s\": expected a virtual device "
			 "such as xvda", arg);
		return XVBD_EXIT_USAGE;
	}
	for (i = 0; i < o->nvdevs; i++) {
		xvbd_vdev_parse(o->vdevs[i], &other);
		if (other == devid) {
			xvbd_err(CMD, "--vdev", "%s given twice", arg);
			return XVBD_EXIT_USAGE;
		}
	}
	if (o->nvdevs == XVBD_START_MAX_DEVS) {
		xvbd_err(CMD, "--vdev", "more than %d devices",
			 XVBD_START_MAX_DEVS);
		return XVBD_EXIT_USAGE;
	}
	o->vdevs[o->nvdevs++] = arg;
	return 0;
}

/* --vbd-a or --vbd-b as spelled, if given. */
static const char *ab_vbd_ab_given(const struct xvbd_ctx *ctx)
{
	size_t k;

	for (k = 0; k < ctx->cl->ngiven; k++)
		if (ctx->cl->given[k].id == O_VBD_A ||
		    ctx->cl->given[k].id == O_VBD_B)
			return ctx->cl->given[k].spelled;
	return NULL;
}

/*
 * Fresh guests (LABEL CONFIG pairs) or hot (--domain, two labels or
 * more, or --sweep's).
 */
static int check_mode(struct xvbd_ctx *ctx, struct run_opts *o, int nargs,
		      char **argv)
{
	const char *hot_only = o->hot.side[0].spec ? "--disk-a" :
			       o->hot.side[1].spec ? "--disk-b" :
			       o->hot.side[0].cache ? "--cache-a" :
			       o->hot.side[1].cache ? "--cache-b" :
			       ab_run_levels_given(ctx);
	const char *ab = ab_vbd_ab_given(ctx);

	if (!o->hot.domain) {
		if (hot_only) {
			xvbd_err(CMD, hot_only, "goes with --domain (a hot "
				 "experiment on a running guest)");
			return XVBD_EXIT_USAGE;
		}
		if (ab && nargs > 4) {
			xvbd_err(CMD, ab, "with more than two levels, name the "
				 "level: --vbd LABEL=VDEV:key=value,...");
			return XVBD_EXIT_USAGE;
		}
		return ab_run_fresh_levels(ctx, o, nargs, argv);
	}
	if (o->guest_limits) {
		xvbd_err(CMD, "--guest-limits", "goes with fresh guests, not "
			 "--domain");
		return XVBD_EXIT_USAGE;
	}
	return ab_run_levels(ctx, o, nargs, argv);
}

const struct xvbd_cmdopt cmd_ab_run_opts[] = {
	[O_VBD_A] = XVBD_OPT_STR("vbd-a", 0, "VDEV:k=v[,...]",
		XVBD_OPT_REPEAT, "A's blkif keys for one VBD (as start --vbd)"),
	[O_VBD_B] = XVBD_OPT_STR("vbd-b", 0, "VDEV:k=v[,...]",
		XVBD_OPT_REPEAT, "B's blkif keys for one VBD"),
	[O_GUEST_LIMITS] = XVBD_OPT_F("guest-limits", 0, "fresh guests: set "
		"their blkfront parameters to match (as start)"),
	[O_VDEV] = XVBD_OPT_STR("vdev", 0, "VDev", XVBD_OPT_REPEAT,
		"a disk to record (default: all the guest's)"),
	[O_DURATION] = XVBD_AB_ROW_DURATION,
	[O_RUN] = XVBD_AB_ROW_RUN,
	[O_UNTIL_SHUTDOWN] = XVBD_AB_ROW_UNTIL_SHUTDOWN,
	[O_INTERVAL] = XVBD_AB_ROW_INTERVAL,
	[O_WARMUP] = XVBD_AB_ROW_WARMUP,
	[O_RESULTS] = XVBD_AB_ROW_RESULTS,
	[O_LATENCY] = XVBD_AB_ROW_LATENCY,
	[O_RUNS] = XVBD_OPT_N("runs", 0, "N", 1, PAIRS_MAX, "blocks of runs, "
		"each level once a block (two levels: pairs) (default 3)"),
	[O_UNTIL_CONFIDENT] = XVBD_OPT_F("until-confident", 0, "run blocks "
		"until the sequential test settles each level's verdict"),
	[O_MIN_EFFECT] = XVBD_AB_ROW_MIN_EFFECT,
	[O_EQUIVALENCE] = XVBD_AB_ROW_EQUIVALENCE,
	[O_MAX_RUNS] = XVBD_OPT_N("max-runs", 0, "N", 2, PAIRS_MAX, "with "
		"--until-confident: blocks at most (default 20)"),
	[O_METRIC] = XVBD_OPT_STR("metric", 0, "M", 0, "the metric that "
		"decides (default: chosen after the first block)"),
	[O_CONFIDENCE] = XVBD_AB_ROW_CONFIDENCE,
	[O_DIR] = XVBD_AB_ROW_DIR,
	[O_TIMEOUT] = XVBD_OPT_S("timeout", 0, 1, 3600, "how long a guest "
		"may take to start, a disk to attach (default 120s)"),
	[O_DOMAIN] = XVBD_OPT_STR("domain", 0, "Domain", 0, "hot: the "
		"running guest whose disk under test is swapped"),
	[O_DISK_A] = XVBD_OPT_STR("disk-a", 0, "DiskSpec", 0, "hot: A's "
		"disk (xl disk spec; --disk A=SPEC)"),
	[O_DISK_B] = XVBD_OPT_STR("disk-b", 0, "DiskSpec", 0, "hot: B's "
		"disk"),
	[O_CACHE_A] = XVBD_OPT_STR("cache-a", 0, "host|none", 0, "hot: A's "
		"dom0 page cache"),
	[O_CACHE_B] = XVBD_OPT_STR("cache-b", 0, "host|none", 0, "hot: B's "
		"dom0 page cache"),
	[O_READY] = XVBD_OPT_STR("ready", 0, "CMD", 0, "a dom0 command that "
		"exits 0 once the workload can start (instead of a warmup)"),
	[O_DISK] = XVBD_OPT_STR("disk", 0, "[LABEL=]DiskSpec", XVBD_OPT_REPEAT,
		"hot: a level's disk (without LABEL=: every level's)"),
	[O_CACHE] = XVBD_OPT_STR("cache", 0, "[LABEL=]host|none",
		XVBD_OPT_REPEAT, "hot: a level's dom0 page cache"),
	[O_VBD] = XVBD_OPT_STR("vbd", 0, "LABEL=VDEV:k=v[,...]",
		XVBD_OPT_REPEAT, "a level's blkif keys (as start --vbd; hot: "
		"the disk under test's offers)"),
	[O_SWEEP] = XVBD_OPT_STR("sweep", 0, "KEY=V1,V2[,...]", 0, "hot: one "
		"level per value of an offer, labels KEY-V"),
	[O_PLAN] = XVBD_OPT_STR("plan", 0, "FILE", 0, "the experiment "
		"from a JSON plan (- for stdin)"),
	[O_FAIL_IF_WORSE] = XVBD_AB_ROW_FAIL_IF_WORSE,
	XVBD_OPT_END,
};
_Static_assert(O_RUN - O_DURATION == XVBD_AB_REC_RUN &&
	       O_UNTIL_SHUTDOWN - O_DURATION == XVBD_AB_REC_UNTIL_SHUTDOWN &&
	       O_INTERVAL - O_DURATION == XVBD_AB_REC_INTERVAL &&
	       O_WARMUP - O_DURATION == XVBD_AB_REC_WARMUP &&
	       O_RESULTS - O_DURATION == XVBD_AB_REC_RESULTS &&
	       O_LATENCY - O_DURATION == XVBD_AB_REC_LATENCY,
	       "the recording's rows in xvbd_ab_rec_row's order");

/* --metric M that a sequential stop cannot decide on. */
static void bad_metric(const char *arg)
{
	xvbd_err(CMD, "--metric", "\"%s\": expected one of %s, %s, %s, %s, "
		 "%s, %s, ...", arg, xvbd_ab_metric_name(XVBD_AB_RD_IOPS),
		 xvbd_ab_metric_name(XVBD_AB_WR_IOPS),
		 xvbd_ab_metric_name(XVBD_AB_RD_MBS),
		 xvbd_ab_metric_name(XVBD_AB_WR_MBS),
		 xvbd_ab_metric_name(XVBD_AB_RD_LAT_MS),
		 xvbd_ab_metric_name(XVBD_AB_WR_LAT_MS));
}

static int parse_opts(struct xvbd_ctx *ctx, int argc, char **argv,
		      struct run_opts *o)
{
	const struct xvbd_cmdline *cl = ctx->cl;
	bool have_runs = false, have_seq_opt = false;
	int rc = 0, first = 0, i;
	size_t k;

	o->pairs = PAIRS_DEFAULT;
	o->max_pairs = MAX_PAIRS_DEFAULT;
	o->min_effect = MIN_EFFECT_DEFAULT;
	o->confidence = CONFIDENCE_DEFAULT;
	o->metric = -1;
	o->timeout_s = START_TIMEOUT_S;
	o->dir = XVBD_AB_DIR_DEFAULT;
	for (k = 0; k < cl->ngiven && !rc; k++) {
		const struct xvbd_optval *v = &cl->given[k];
		const char *optarg = v->arg;

		switch (v->id) {
		case O_VBD_A:
		case O_VBD_B:
			rc = ab_run_add_vbd(&o->side[v->id == O_VBD_B], v->spelled,
				     optarg);
			break;
		case O_GUEST_LIMITS:
			o->guest_limits = true;
			break;
		case O_VDEV:
			rc = add_vdev(o, optarg);
			break;
		case O_RUNS:
			o->pairs = (size_t)v->u;
			have_runs = true;
			break;
		case O_UNTIL_CONFIDENT:
			o->until_confident = true;
			break;
		case O_MIN_EFFECT:
			o->min_effect = v->fraction;
			have_seq_opt = true;
			break;
		case O_EQUIVALENCE:
			o->equivalence = v->fraction;
			break;
		case O_MAX_RUNS:
			o->max_pairs = (size_t)v->u;
			have_seq_opt = true;
			break;
		case O_METRIC:
			o->metric = xvbd_ab_metric_find(optarg, NULL);
			if (o->metric < 0 ||
			    o->metric == XVBD_AB_GUEST_CPU ||
			    o->metric == XVBD_AB_DOM0_CPU) {
				bad_metric(optarg);
				rc = XVBD_EXIT_USAGE;
			} else {
				/* an old name: its warning */
				xvbd_ab_cli_metric(CMD, optarg);
			}
			break;
		case O_CONFIDENCE:
			o->confidence = v->fraction;
			break;
		case O_FAIL_IF_WORSE:
			/* in %, as the gate compares it with the % column */
			o->gate_pct = v->fraction * 100;
			break;
		case O_DIR:
			rc = xvbd_ab_cli_dir(ctx->cmd, optarg);
			o->dir = optarg;
			break;
		case O_DOMAIN:
			o->hot.domain = optarg;
			break;
		case O_DISK_A:
		case O_DISK_B:
			o->hot.side[v->id == O_DISK_B].spec = optarg;
			o->hot.side[v->id == O_DISK_B].spec_opt = v->spelled;
			break;
		case O_CACHE_A:
		case O_CACHE_B:
			o->hot.side[v->id == O_CACHE_B].cache = optarg;
			o->hot.side[v->id == O_CACHE_B].cache_opt = v->spelled;
			break;
		case O_SWEEP:
			o->sweep = optarg;
			break;
		case O_PLAN:
			/* read before: ctx->cl is the plan's command line */
			break;
		case O_DISK:
		case O_CACHE:
		case O_VBD:
			/* by level, once the levels are known */
			break;
		case O_READY:
			if (!*optarg) {
				xvbd_err(CMD, "--ready", "an empty command");
				rc = XVBD_EXIT_USAGE;
			}
			o->rec.ready_cmd = optarg;
			break;
		case O_TIMEOUT:
			/* whole seconds: a fraction rounds up */
			o->timeout_s = (int)((v->u + NS_PER_S - 1) / NS_PER_S);
			break;
		default:
			/* the recording's rows, in their enum's order */
			rc = xvbd_ab_rec_value(ctx->cmd, (enum xvbd_ab_rec_row)
					       (v->id - O_DURATION), v,
					       &o->rec, &o->mode_given);
		}
	}
	if (rc)
		return rc;
	rc = check_mode(ctx, o, argc - first, argv + first);
	if (rc)
		return rc;
	for (i = 0; i < (int)o->nsides && !o->hot.domain; i++) {
		struct side *sd = &o->side[i];

		sd->req = (struct xvbd_start_req){
			.cfg_path = argv[first + 2 * i + 1],
			.sets = sd->sets, .nsets = sd->nsets,
			.guest_limits = o->guest_limits,
			.timeout_s = o->timeout_s,
			.pin = true,
		};
	}
	if (!o->mode_given)
		return xvbd_usage_error(ctx->cmd, "how long? --duration S, "
					"--run CMD or --until-shutdown");
	rc = xvbd_ab_rec_opts_check(ctx->cmd, &o->rec);
	if (rc)
		return rc;
	if (o->until_confident && have_runs) {
		xvbd_err(CMD, "--runs", "--runs and --until-confident exclude "
			 "each other (--max-runs bounds the latter)");
		return XVBD_EXIT_USAGE;
	}
	if (!o->until_confident && have_seq_opt) {
		xvbd_err(CMD, "--min-effect", "--min-effect and --max-runs "
			 "go with --until-confident");
		return XVBD_EXIT_USAGE;
	}
	o->rec.dir = o->dir;
	o->rec.ready_timeout_ns = (uint64_t)o->timeout_s * NS_PER_S;
	o->hot.timeout_s = (unsigned)o->timeout_s;
	o->rec.vdev_args = o->vdevs;
	o->rec.nvdev_args = o->nvdevs;
	return 0;
}

/* ---- the journal: which guest this experiment owns ---- */

/* The guest entry open in the journal ("DOMID NAME"), or "". */
static char guest_entry[300];

/* Noted before xl create (domid -1: found by its name), then its domid. */
static int state_write(const char *name, long domid)
{
	char entry[sizeof(guest_entry)];
	int err;

	snprintf(entry, sizeof(entry), "%ld %s", domid, name);
	err = xvbd_journal_note(XVBD_J_GUEST, "%s", entry);
	if (err)
		return err;
	if (guest_entry[0])
		xvbd_journal_done(XVBD_J_GUEST, "%s", guest_entry);
	snprintf(guest_entry, sizeof(guest_entry), "%s", entry);
	return 0;
}

static void state_clear(void)
{
	if (guest_entry[0])
		xvbd_journal_done(XVBD_J_GUEST, "%s", guest_entry);
	guest_entry[0] = '\0';
}

/* ---- one run ---- */

/*
 * libxl forks hotplug scripts (xvbd-block remove at a destroy) and
 * learns of their exit from SIGCHLD: the recorder blocks it in every
 * thread for its run, so outside the run it must be open again, or libxl
 * times the script out and the destroy never returns.
 */
static void open_sigchld(void)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
}

static void destroy_guest(struct xvbd_ctx *ctx, const char *name,
			  uint32_t domid)
{
	struct xvbd_dominfo now;
	int err, tries;

	open_sigchld();
	/*
	 * The guest was created by `xl create`, whose monitor destroys a
	 * guest that powered itself off: let it finish (a destroy racing it
	 * makes libxl print errors about a domain that is merely gone).
	 */
	for (tries = 0; tries < DESTROY_WAIT_TRIES; tries++) {
		err = xvbd_tstack_domain_info(ctx->ts, domid, &now);
		if (err == -ENOENT) {
			state_clear();
			return;
		}
		/* Rebooted or crashed: kept for us (the pinned config). */
		if (err || !(now.shutdown || now.dying) ||
		    (now.shutdown_reason &&
		     strcmp(now.shutdown_reason, "poweroff")))
			break;
		usleep(DESTROY_WAIT_US);
	}
	err = xvbd_tstack_domain_destroy(ctx->ts, domid);
	/*
	 * A guest that powered itself off (--until-shutdown) is destroyed
	 * by xl's own monitor of it: gone, or going, is what we want.
	 */
	if (err) {
		struct xvbd_dominfo info;
		int gone = xvbd_tstack_domain_info(ctx->ts, domid, &info);

		if (gone == -ENOENT || (!gone && info.dying))
			err = 0;
	}

	if (err && err != -ENOENT) {
		xvbd_err(CMD, "destroy", "guest %s (domid %u): %s", name,
			 domid, strerror(-err));
		xvbd_hint("remove it with: xl destroy %u", domid);
		return;
	}
	state_clear();
}

/*
 * Create side sd's guest, record it, destroy it.  Exit code; the record
 * joins sd->recs when the run was complete.
 */
int ab_run_one(struct xvbd_ctx *ctx, struct run_opts *o, struct side *sd,
	       const char **stopped_by)
{
	struct xvbd_start_result res;
	struct xvbd_ab_rec_opts ro = o->rec;
	struct xvbd_ab_record rec;
	const char *name = sd->plan.cfg.name;
	char domspec[16];
	struct xvbd_ab_record *grown;
	int rc, err;

	memset(&rec, 0, sizeof(rec));
	/*
	 * Held since the start: a Ctrl-C during the last run's destroy or
	 * between runs waits here, before a guest is created (minutes under
	 * emulation), not after.
	 */
	if (xvbd_sig_held_pending())
		return XVBD_EXIT_FAIL;
	if (o->hot.domain) {
		ro.label = sd->label;
		rc = ab_hot_run(ctx, &o->hot, (int)(sd - o->side), &ro, &rec,
				stopped_by);
		goto keep;
	}
	err = state_write(name, -1);
	if (err) {
		xvbd_err(CMD, XVBD_JOURNAL_DIR, "%s", strerror(-err));
		return XVBD_EXIT_FAIL;
	}
	rc = xvbd_start_run(ctx, &sd->req, &sd->plan, &res);
	if (res.created)
		state_write(name, (long)res.domid);
	if (!rc && res.not_applied) {
		xvbd_err(CMD, sd->label, "%s: %s", name, res.verdict);
		xvbd_hint("the variable under test did not take effect: the "
			  "experiment stops");
		rc = XVBD_EXIT_FAIL;
	}
	if (!rc && xvbd_sig_held_pending())
		rc = XVBD_EXIT_FAIL;
	if (!rc) {
		snprintf(domspec, sizeof(domspec), "%u", res.domid);
		ro.label = sd->label;
		ro.domain_spec = domspec;
		ro.config_sha256 = sd->plan.cfg_sha256;
		rc = xvbd_ab_recorder_run(ctx, &ro, false, &rec, stopped_by);
	}
	if (res.created)
		destroy_guest(ctx, name, res.domid);
	else
		state_clear();
	xvbd_start_result_free(&res);
keep:
	if (rc || !rec.path || !rec.complete) {
		xvbd_ab_record_free(&rec);
		return rc ? rc : XVBD_EXIT_FAIL;
	}
	grown = realloc(sd->recs, (sd->nrecs + 1) * sizeof(*sd->recs));
	if (!grown) {
		xvbd_ab_record_free(&rec);
		return XVBD_EXIT_FAIL;
	}
	sd->recs = grown;
	sd->recs[sd->nrecs++] = rec;
	return XVBD_EXIT_OK;
}

/* -N: what would run, in which order. */
static void render_plan(struct xvbd_ctx *ctx, const struct run_opts *o)
{
	size_t i;

	xvbd_out_obj_begin(ctx->out, NULL);
	/* two levels: "a" and "b", as always; more: "levels" */
	if (o->nsides > 2)
		xvbd_out_arr_begin(ctx->out, "levels");
	for (i = 0; i < o->nsides; i++) {
		xvbd_out_obj_begin(ctx->out, o->nsides > 2 ? NULL :
				   i ? "b" : "a");
		xvbd_out_str(ctx->out, "label", o->side[i].label);
		if (o->hot.domain) {
			ab_hot_render_plan(ctx, &o->hot, (int)i);
		} else {
			xvbd_out_str(ctx->out, "config",
				     o->side[i].req.cfg_path);
			xvbd_out_str(ctx->out, "guest",
				     o->side[i].plan.cfg.name);
		}
		xvbd_out_uint(ctx->out, "overrides", o->side[i].nsets);
		xvbd_out_obj_end(ctx->out);
	}
	if (o->nsides > 2)
		xvbd_out_arr_end(ctx->out);
	xvbd_out_str(ctx->out, "baseline", o->side[0].label);
	xvbd_out_str(ctx->out, "order", ab_run_order_name(o->nsides));
	xvbd_out_uint(ctx->out, o->until_confident ? "max_pairs" : "pairs",
		      o->until_confident ? o->max_pairs : o->pairs);
	if (o->gate_pct > 0)
		xvbd_out_double_opt(ctx->out, "fail_if_worse_pct", true,
				    o->gate_pct);
	ab_run_render_order(ctx, o);
	xvbd_out_obj_end(ctx->out);
}

/*
 * The options, from the command line or from the experiment plan that
 * stands for one (the plan's words parsed by the same table, so the same
 * run_opts either way).
 */
static int parse_opts_or_plan(struct xvbd_ctx *ctx, int argc, char **argv,
			      struct run_opts *o, struct ab_run_plan *plan)
{
	int rc;

	if (!xvbd_opt(ctx, O_PLAN))
		return parse_opts(ctx, argc, argv, o);
	rc = ab_run_plan_load(ctx, argc, plan);
	if (!rc)
		rc = parse_opts(ctx, plan->cl.noperands, plan->cl.operands, o);
	/* the plan's command line is parsed: errors are the connection's */
	xvbd_err_context(NULL);
	return rc;
}

int cmd_ab_run(struct xvbd_ctx *ctx, int argc, char **argv)
{
	struct run_opts *o = calloc(1, sizeof(*o));
	struct ab_run_plan plan = { 0 };
	size_t i, j;
	int rc;

	if (!o) {
		xvbd_err(CMD, NULL, "%s", strerror(ENOMEM));
		return XVBD_EXIT_FAIL;
	}
	rc = parse_opts_or_plan(ctx, argc, argv, o, &plan);
	if (rc)
		goto out;
	/*
	 * Held for the whole experiment, in every thread libxl and
	 * libxenstore start: taken between steps and by the recorder, so a
	 * Ctrl-C ends the experiment with its guest destroyed.
	 */
	xvbd_ab_recorder_block_signals();
	rc = xvbd_cmd_connect(ctx);
	if (rc)
		goto out;
	open_sigchld();
	if (o->hot.domain)
		rc = ab_hot_prepare(ctx, &o->hot);
	for (i = 0; i < o->nsides && !rc && !o->hot.domain; i++) {
		rc = xvbd_start_prepare(ctx, &o->side[i].req,
					&o->side[i].plan);
		o->side[i].prepared = true;
	}
	if (!rc && ctx->opts->dry_run)
		render_plan(ctx, o);
	else if (!rc)
		rc = ab_run_experiment(ctx, o);
out:
	for (i = 0; i < XVBD_AB_LEVELS_MAX; i++) {
		if (o->side[i].prepared)
			xvbd_start_plan_free(&o->side[i].plan);
		for (j = 0; j < o->side[i].nrecs; j++)
			xvbd_ab_record_free(&o->side[i].recs[j]);
		free(o->side[i].recs);
	}
	ab_hot_free(&o->hot);
	free(o);
	ab_run_plan_free(ctx, &plan);
	return rc;
}
