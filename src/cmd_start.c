/*
 * cmd_start.c - xvbd start <xl.cfg> [--vbd VDEV:key=value[,...]]...
 *		 [--guest-limits] [--timeout S]
 *
 * Create the guest paused (xl create -p), wait until every tuned backend
 * has probed (InitWait), write all overrides in one xenstore transaction,
 * unpause, wait for Connected, and check what the frontend chose.
 * A negotiated key can only be lowered, and only in that window: blkfront
 * reads max-ring-page-order and multi-queue-max-queues when the backend
 * reaches InitWait, feature-max-indirect-segments at connect.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "xvbd/cmd.h"
#include "xvbd/modparam.h"
#include "xvbd/override.h"
#include "xvbd/override_run.h"
#include "xvbd/vbd.h"

#define START_MAX_DEVS		16
#define START_TIMEOUT_S		120
#define START_TIMEOUT_MAX_S	3600
#define CFG_SIZE_MAX		(1 << 20)
/* Warn when the rings pin this share of the guest's memory or more. */
#define COST_WARN_DIVISOR	4

struct start_opts {
	const char *cfg_path;
	struct xvbd_ovr_set sets[START_MAX_DEVS];
	size_t nsets;
	bool guest_limits;
	int timeout_s;
};

static int parse_opts(struct xvbd_ctx *ctx, int argc, char **argv,
		      struct start_opts *so)
{
	static const struct option longopts[] = {
		{ "vbd", required_argument, NULL, 'b' },
		{ "guest-limits", no_argument, NULL, 'g' },
		{ "timeout", required_argument, NULL, 't' },
		{ NULL, 0, NULL, 0 },
	};
	char why[256];
	uint64_t v;
	size_t i;
	int c;

	so->timeout_s = START_TIMEOUT_S;
	xvbd_getopt_begin();
	while ((c = xvbd_getopt(argc, argv, ":", longopts)) != -1) {
		switch (c) {
		case 'b':
			/* A bad value is one line, not the whole usage. */
			if (so->nsets == START_MAX_DEVS) {
				xvbd_err("start", "--vbd", "more than %d "
					 "devices", START_MAX_DEVS);
				return XVBD_EXIT_USAGE;
			}
			if (xvbd_override_parse_vbd(&so->sets[so->nsets],
						    optarg, why,
						    sizeof(why))) {
				xvbd_err("start", "--vbd", "%s", why);
				return XVBD_EXIT_USAGE;
			}
			for (i = 0; i < so->nsets; i++) {
				if (so->sets[i].devid !=
				    so->sets[so->nsets].devid)
					continue;
				xvbd_err("start", "--vbd", "%s given twice: "
					 "combine its keys with ','",
					 so->sets[i].vdev);
				return XVBD_EXIT_USAGE;
			}
			so->nsets++;
			break;
		case 'g':
			so->guest_limits = true;
			break;
		case 't':
			if (xvbd_parse_uint(optarg, START_TIMEOUT_MAX_S, &v) ||
			    v == 0) {
				xvbd_err("start", "--timeout", "\"%s\": expected "
					 "seconds 1..%d", optarg,
					 START_TIMEOUT_MAX_S);
				return XVBD_EXIT_USAGE;
			}
			so->timeout_s = (int)v;
			break;
		default:
			return xvbd_getopt_error(ctx->cmd, argv, c);
		}
	}
	i = (size_t)xvbd_getopt_index();
	if (i + 1 != (size_t)argc)
		return xvbd_usage_error(ctx->cmd, i >= (size_t)argc ?
					"missing the xl config file" :
					"too many arguments");
	so->cfg_path = argv[i];
	return XVBD_EXIT_OK;
}

static char *read_text(const char *path, char *why, size_t len)
{
	struct stat st;
	char *buf;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		snprintf(why, len, "%s", strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) ||
	    st.st_size > CFG_SIZE_MAX) {
		snprintf(why, len, "not a regular file of at most 1 MiB");
		close(fd);
		return NULL;
	}
	buf = calloc(1, (size_t)st.st_size + 1);
	n = buf ? read(fd, buf, (size_t)st.st_size) : -1;
	close(fd);
	if (n != st.st_size || memchr(buf, '\0', (size_t)n)) {
		snprintf(why, len, "cannot read it as text");
		free(buf);
		return NULL;
	}
	return buf;
}

/*
 * A private copy of the config with the new kernel command line; the
 * rest byte for byte.  Re-read with libxlutil to prove the edit.
 */
static int write_cfg_copy(const char *cfg_path, const char *key,
			  const char *cmdline, const struct xvbd_xlcfg *cfg,
			  char **tmp_path, char *why, size_t len)
{
	char *text = read_text(cfg_path, why, len), *edited = NULL;
	char path[] = "/tmp/xvbd-start-XXXXXX.cfg";
	struct xvbd_xlcfg check;
	size_t n;
	int fd, rc;
	const char *got;

	if (!text)
		return -EIO;
	rc = xvbd_cfgtext_set_string(text, key, cmdline, &edited, why, len);
	free(text);
	if (rc)
		return rc;
	fd = mkstemps(path, 4);
	if (fd < 0) {
		snprintf(why, len, "temporary config: %s", strerror(errno));
		free(edited);
		return -errno;
	}
	n = strlen(edited);
	rc = write(fd, edited, n) == (ssize_t)n ? 0 : -EIO;
	if (close(fd))
		rc = -EIO;
	free(edited);
	if (rc) {
		snprintf(why, len, "writing %s failed", path);
		unlink(path);
		return rc;
	}
	rc = xvbd_tstack_xlcfg_read(path, &check);
	if (!rc) {
		got = !strcmp(key, "cmdline") ? check.cmdline : check.extra;
		if (!got || strcmp(got, cmdline) || !check.name ||
		    strcmp(check.name, cfg->name))
			rc = -EINVAL;
		xvbd_tstack_xlcfg_free(&check);
	}
	if (rc) {
		snprintf(why, len, "the edited copy %s does not read back "
			 "as intended", path);
		unlink(path);
		return -EINVAL;
	}
	*tmp_path = strdup(path);
	if (!*tmp_path) {
		unlink(path);
		return -ENOMEM;
	}
	return 0;
}

/* Is every --vbd device one of the config's disks? */
static int check_vdevs(const struct start_opts *so,
		       const struct xvbd_xlcfg *cfg, char *why, size_t len)
{
	size_t i, j;

	for (i = 0; i < so->nsets; i++) {
		bool found = false;

		for (j = 0; j < cfg->nvdevs && !found; j++) {
			uint32_t devid;

			found = !xvbd_vdev_parse(cfg->vdevs[j], &devid) &&
				devid == so->sets[i].devid;
		}
		if (!found) {
			snprintf(why, len, "%s is not a disk of %s (%zu disk%s"
				 "%s%s)", so->sets[i].vdev, cfg->name,
				 cfg->nvdevs, cfg->nvdevs == 1 ? "" : "s",
				 cfg->nvdevs ? ": " : "",
				 cfg->nvdevs ? cfg->vdevs[0] : "");
			return -ENOENT;
		}
	}
	return 0;
}

static uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

/*
 * Warn when a device's rings would pin a large share of the guest's
 * memory (lab: order 4 + 128 segments hung a 256 MiB guest).
 */
static void warn_cost(struct xvbd_ctx *ctx, const struct start_opts *so,
		      const struct xvbd_xlcfg *cfg, const char *cmdline,
		      const struct xvbd_modparams *mp)
{
	struct xvbd_guest_limits gl;
	uint64_t mem_bytes = cfg->memory_mib << 20, order_offer = 0;
	uint64_t queue_offer = 1, vcpus = cfg->vcpus ? cfg->vcpus : 1;
	bool persistent = true;
	size_t i;

	if (ctx->opts->quiet || !mem_bytes)
		return;
	xvbd_override_guest_limits(cmdline, &gl);
	xvbd_modparam_get_uint(mp, "max_ring_page_order", &order_offer);
	if (xvbd_modparam_get_uint(mp, "max_queues", &queue_offer) ||
	    queue_offer == 0)
		queue_offer = vcpus;
	/* Without persistent grants blkfront does not pin these pages. */
	if (!xvbd_modparam_get_bool(mp, "feature_persistent", &persistent) &&
	    !persistent)
		return;
	for (i = 0; i < so->nsets; i++) {
		const struct xvbd_ovr_set *s = &so->sets[i];
		const struct xvbd_ovr *o;
		struct xvbd_ovr_cost cost;
		uint64_t order = order_offer, queues = queue_offer;
		uint64_t segs = XVBD_BLKBACK_INDIRECT_SEGMENTS;

		if ((o = xvbd_override_get(s, XVBD_OVR_RING_ORDER)))
			order = o->value;
		if ((o = xvbd_override_get(s, XVBD_OVR_QUEUES)))
			queues = o->value;
		if ((o = xvbd_override_get(s, XVBD_OVR_INDIRECT)))
			segs = o->value;
		order = min_u64(order, xvbd_override_guest_limit(
					&gl, XVBD_OVR_RING_ORDER));
		queues = min_u64(min_u64(queues, vcpus),
				 xvbd_override_guest_limit(&gl,
							   XVBD_OVR_QUEUES));
		segs = min_u64(segs, xvbd_override_guest_limit(
				       &gl, XVBD_OVR_INDIRECT));
		xvbd_override_ring_cost((unsigned)order, queues ? queues : 1,
					segs, &cost);
		if (cost.bytes * COST_WARN_DIVISOR < mem_bytes)
			continue;
		xvbd_err("start", "warning", "%s: rings need about %" PRIu64
			 " MiB of the guest's %" PRIu64 " MiB with persistent "
			 "grants (%" PRIu64 " ring%s x %" PRIu64 " requests x %"
			 PRIu64 " pages)", s->vdev, cost.bytes >> 20,
			 cfg->memory_mib, cost.rings, cost.rings == 1 ? "" : "s",
			 cost.requests_per_ring, cost.pages_per_request);
		xvbd_hint("order 4 with 128 segments hung a 256 MiB guest in "
			  "the lab: lower ring-order or indirect-segments, or "
			  "give the guest more memory");
	}
}

static void render_plan(struct xvbd_ctx *ctx, const struct start_opts *so,
			const struct xvbd_xlcfg *cfg, const char *cmd_key,
			const char *cmdline)
{
	struct xvbd_ovr_plan plan = { 0 };
	struct xvbd_out *o = ctx->out;
	char be[64], fe[64];
	size_t i;

	for (i = 0; i < so->nsets; i++) {
		/* The directories exist once the domain does. */
		snprintf(be, sizeof(be), "<backend of %s>", so->sets[i].vdev);
		snprintf(fe, sizeof(fe), "<frontend of %s>", so->sets[i].vdev);
		if (xvbd_override_plan(&plan, &so->sets[i], be, fe))
			break;
	}
	xvbd_out_obj_begin(o, NULL);
	xvbd_out_str(o, "domain", cfg->name);
	xvbd_out_str(o, "config", so->cfg_path);
	xvbd_out_str(o, "create", "xl create -p (paused), unpause after "
		     "the writes");
	if (cmd_key)
		xvbd_out_str(o, cmd_key, cmdline);
	xvbd_override_plan_render(o, &plan);
	xvbd_out_obj_end(o);
	xvbd_override_plan_free(&plan);
}

static void render_result(struct xvbd_ctx *ctx, uint32_t domid,
			  const struct xvbd_xlcfg *cfg,
			  const struct xvbd_ovr_dev *devs, size_t n,
			  const char *verdict)
{
	struct xvbd_out *o = ctx->out;

	xvbd_out_obj_begin(o, NULL);
	xvbd_out_str(o, "domain", cfg->name);
	xvbd_out_uint(o, "domid", domid);
	xvbd_out_str(o, "result", verdict);
	xvbd_ovr_run_render(o, devs, n);
	xvbd_out_obj_end(o);
}

static int run(struct xvbd_ctx *ctx, struct start_opts *so,
	       const struct xvbd_xlcfg *cfg, const char *create_path)
{
	struct xvbd_ovr_dev devs[START_MAX_DEVS];
	struct xvbd_disk *disks = NULL;
	size_t ndisks = 0, i, failed;
	char why[256], verdict[320];
	int rc = XVBD_EXIT_OK, err, xl_status;
	int timeout_ms = so->timeout_s * 1000;
	bool interrupted = false;
	int64_t t0 = xvbd_now_ms(), t_created, t_unpaused;
	sigset_t old;
	uint32_t domid;

	memset(devs, 0, sizeof(devs));
	for (i = 0; i < so->nsets; i++)
		devs[i].target.set = &so->sets[i];

	/* Ctrl-C must not leave a paused guest behind: held until unpause. */
	xvbd_guard_signals(&old);
	err = xvbd_tstack_create_paused(ctx->ts, create_path, cfg->name,
					&domid, &xl_status);
	if (err) {
		if (err == -EIO)
			xvbd_err("start", "xl create -p", "failed (exit "
				 "status %d, see above)", xl_status);
		else
			xvbd_err("start", "xl create -p", "%s",
				 strerror(-err));
		sigprocmask(SIG_SETMASK, &old, NULL);
		return XVBD_EXIT_FAIL;
	}
	t_created = xvbd_now_ms();
	/* From here to the unpause nothing may return early. */
	xvbd_ovr_run_apply(ctx->ts, ctx->xs, domid, devs, so->nsets, &disks,
			   &ndisks, timeout_ms, why, sizeof(why));
	err = xvbd_tstack_unpause(ctx->ts, domid);
	t_unpaused = xvbd_now_ms();
	interrupted = xvbd_guard_signals_pending();
	if (err) {
		xvbd_err("start", "unpause", "domain %s (%u): %s", cfg->name,
			 domid, strerror(-err));
		if (!ctx->opts->quiet)
			xvbd_hint("the guest is still paused: xl unpause %u",
				  domid);
		rc = XVBD_EXIT_FAIL;
		goto out;
	}
	if (interrupted) {
		xvbd_err("start", "interrupted", "guest %s (%u) is running; "
			 "overrides %s, not verified", cfg->name, domid,
			 why[0] ? "not written" : "written");
		rc = XVBD_EXIT_FAIL;
		goto out;
	}
	sigprocmask(SIG_SETMASK, &old, NULL);

	xvbd_ovr_run_verify(ctx->xs, domid, devs, so->nsets, timeout_ms);
	if (ctx->opts->verbose)
		fprintf(stderr, "xvbd: start: timing: xl create -p %.1f s, "
			"paused window %.1f s, Connected "
			"%.1f s after unpause\n", (t_created - t0) / 1000.0,
			(t_unpaused - t_created) / 1000.0,
			(xvbd_now_ms() - t_unpaused) / 1000.0);
	failed = xvbd_ovr_run_verdict(devs, so->nsets, NULL, verdict,
				      sizeof(verdict));
	render_result(ctx, domid, cfg, devs, so->nsets, verdict);
	if (failed) {
		xvbd_err("start", cfg->name, "%s", verdict);
		if (!ctx->opts->quiet)
			xvbd_hint("the guest is left running (domain %u): "
				  "\"xvbd show %u VDEV\" shows what it "
				  "negotiated", domid, domid);
		rc = XVBD_EXIT_FAIL;
	}
out:
	xvbd_ovr_run_free(devs, so->nsets);
	xvbd_tstack_disks_free(disks, ndisks);
	return rc;
}

int cmd_start(struct xvbd_ctx *ctx, int argc, char **argv)
{
	struct start_opts so;
	struct xvbd_xlcfg cfg;
	struct xvbd_modparams mp = { 0 };
	struct xvbd_ovr_caps caps = { 0 };
	const char *cmd_key = NULL, *limits_from;
	char *cmdline = NULL, *tmp_cfg = NULL, why[320];
	bool have_cfg = false;
	uint32_t domid;
	size_t i;
	int rc, err;

	memset(&so, 0, sizeof(so));
	rc = parse_opts(ctx, argc, argv, &so);
	if (rc)
		return rc;
	err = xvbd_tstack_xlcfg_read(so.cfg_path, &cfg);
	if (err) {
		xvbd_err("start", so.cfg_path, "cannot read the xl config: %s",
			 err == -EINVAL ? "see the messages above" :
			 strerror(-err));
		return XVBD_EXIT_FAIL;
	}
	have_cfg = true;
	rc = XVBD_EXIT_FAIL;
	if (!cfg.name) {
		xvbd_err("start", so.cfg_path, "the config has no name=");
		goto out;
	}
	if (check_vdevs(&so, &cfg, why, sizeof(why))) {
		xvbd_err("start", "--vbd", "%s", why);
		rc = XVBD_EXIT_USAGE;
		goto out;
	}
	rc = xvbd_cmd_connect(ctx);
	if (rc)
		goto out;
	rc = XVBD_EXIT_FAIL;
	if (!xvbd_tstack_name_to_domid(ctx->ts, cfg.name, &domid)) {
		xvbd_err("start", cfg.name, "a domain of that name is running "
			 "(domid %u)", domid);
		if (!ctx->opts->quiet)
			xvbd_hint("for a running guest see \"xvbd tune\"");
		goto out;
	}

	/* What dom0's blkback can offer at all, before anything exists. */
	err = xvbd_modparam_list(XVBD_BLKBACK_MODULE, &mp);
	if (err && so.nsets) {
		xvbd_err("start", XVBD_BLKBACK_MODULE, "cannot read its "
			 "parameters: %s", err == -ENOENT ?
			 "module not loaded" : strerror(-err));
		goto out;
	}
	xvbd_override_caps_modparams(&caps, &mp);
	xvbd_override_caps_blkback_model(&caps);
	for (i = 0; i < so.nsets; i++) {
		if (xvbd_override_validate(&so.sets[i], &caps, why,
					   sizeof(why))) {
			xvbd_err("start", "--vbd", "%s", why);
			if (!ctx->opts->quiet &&
			    caps.cap[XVBD_OVR_RING_ORDER].known)
				xvbd_hint("see \"xvbd defaults\" for dom0's "
					  "xen_blkback limits");
			goto out;
		}
	}

	limits_from = cfg.cmdline ? cfg.cmdline : cfg.extra;
	if (so.guest_limits) {
		if (!xvbd_tstack_xlcfg_is_pv_direct(&cfg)) {
			xvbd_err("start", "--guest-limits", "%s is not a PV "
				 "guest with kernel=: xvbd cannot set its "
				 "xen_blkfront parameters", cfg.name);
			if (!ctx->opts->quiet)
				xvbd_hint("set xen_blkfront.* on the guest's "
					  "own kernel command line");
			goto out;
		}
		/* xl ignores extra= when cmdline= is set. */
		cmd_key = cfg.cmdline ? "cmdline" : "extra";
		if (xvbd_override_guest_cmdline(limits_from, so.sets,
						so.nsets, &cmdline, why,
						sizeof(why))) {
			xvbd_err("start", "--guest-limits", "%s", why);
			goto out;
		}
		limits_from = cmdline;
	}
	warn_cost(ctx, &so, &cfg, limits_from, &mp);

	if (ctx->opts->dry_run) {
		render_plan(ctx, &so, &cfg, cmd_key, cmdline);
		rc = XVBD_EXIT_OK;
		goto out;
	}
	if (cmd_key && write_cfg_copy(so.cfg_path, cmd_key, cmdline, &cfg,
				      &tmp_cfg, why, sizeof(why))) {
		xvbd_err("start", "--guest-limits", "%s", why);
		goto out;
	}
	rc = run(ctx, &so, &cfg, tmp_cfg ? tmp_cfg : so.cfg_path);
out:
	if (tmp_cfg)
		unlink(tmp_cfg);
	free(tmp_cfg);
	free(cmdline);
	xvbd_modparams_free(&mp);
	if (have_cfg)
		xvbd_tstack_xlcfg_free(&cfg);
	return rc;
}
