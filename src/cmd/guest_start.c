/*
 * guest_start.c - a guest created the way `xvbd start` does it (see
 * guest_start.h): the config and overrides checked first, then xl create
 * -p, every override in the paused window, unpause, verify.
 * A negotiated key can only be lowered, and only in that window: blkfront
 * reads max-ring-page-order and multi-queue-max-queues when the backend
 * reaches InitWait, feature-max-indirect-segments at connect.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "xvbd/base/journal.h"
#include "xvbd/base/sha256.h"
#include "xvbd/cmd/guest_start.h"
#include "xvbd/base/sig.h"
#include "xvbd/vbd/vbd.h"

#define CFG_SIZE_MAX		(1 << 20)
/* Warn when the rings pin this share of the guest's memory or more. */
#define COST_WARN_DIVISOR	4

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

/* text into a new private file (0600, a fresh name); its path in *out. */
static int write_private(const char *text, char **out, char *why, size_t len)
{
	char path[] = "/tmp/xvbd-start-XXXXXX.cfg";
	size_t n = strlen(text);
	int fd, rc;

	fd = mkstemps(path, 4);
	if (fd < 0) {
		rc = -errno;
		snprintf(why, len, "temporary config: %s", strerror(-rc));
		return rc;
	}
	rc = write(fd, text, n) == (ssize_t)n ? 0 : -EIO;
	if (close(fd))
		rc = -EIO;
	if (!rc) {
		*out = strdup(path);
		rc = *out ? 0 : -ENOMEM;
	}
	if (rc) {
		snprintf(why, len, "writing %s failed", path);
		unlink(path);
	}
	return rc;
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
	char *path = NULL;
	struct xvbd_xlcfg check;
	int rc;
	const char *got;

	if (!text)
		return -EIO;
	rc = xvbd_cfgtext_set_string(text, key, cmdline, &edited, why, len);
	free(text);
	if (rc)
		return rc;
	rc = write_private(edited, &path, why, len);
	free(edited);
	if (rc)
		return rc;
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
		free(path);
		return -EINVAL;
	}
	*tmp_path = path;
	return 0;
}

/*
 * req->pin: the file read once, its hash, and the private copy every run
 * is created from, with the guest's end actions set so that it never
 * comes back under a new domid (xl's monitor would re-create a rebooting
 * guest, unnamed by the experiment) and a reboot or crash stays visible
 * as the domain's shutdown reason until the run destroys it.
 */
static const char *const pinned_actions[][2] = {
	{ "on_poweroff", "destroy" },
	{ "on_reboot", "preserve" },
	{ "on_watchdog", "preserve" },
	{ "on_crash", "preserve" },
	{ "on_soft_reset", "preserve" },
};

static int pin_cfg(const char *cfg_path, struct xvbd_start_plan *plan,
		   char *why, size_t len)
{
	char *text = read_text(cfg_path, why, len), *edited;
	size_t i;
	int rc = 0;

	if (!text)
		return -EIO;
	xvbd_sha256_hex(text, strlen(text), plan->cfg_sha256);
	for (i = 0; i < sizeof(pinned_actions) / sizeof(pinned_actions[0]) &&
	     !rc; i++) {
		rc = xvbd_cfgtext_set_string(text, pinned_actions[i][0],
					     pinned_actions[i][1], &edited,
					     why, len);
		if (!rc) {
			free(text);
			text = edited;
		}
	}
	if (!rc)
		rc = write_private(text, &plan->pin_cfg, why, len);
	free(text);
	return rc;
}

/* Is every --vbd device one of the config's disks? */
static int check_vdevs(const struct xvbd_start_req *req,
		       const struct xvbd_xlcfg *cfg, char *why, size_t len)
{
	size_t i, j;

	for (i = 0; i < req->nsets; i++) {
		bool found = false;

		for (j = 0; j < cfg->nvdevs && !found; j++) {
			uint32_t devid;

			found = !xvbd_vdev_parse(cfg->vdevs[j], &devid) &&
				devid == req->sets[i].devid;
		}
		if (!found) {
			snprintf(why, len, "%s is not a disk of %s (%zu disk%s"
				 "%s%s)", req->sets[i].vdev, cfg->name,
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
static void warn_cost(struct xvbd_ctx *ctx, const struct xvbd_start_req *req,
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
	for (i = 0; i < req->nsets; i++) {
		const struct xvbd_ovr_set *s = &req->sets[i];
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
		xvbd_err(ctx->cmd->name, "warning", "%s: rings need about %" PRIu64
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

int xvbd_start_prepare(struct xvbd_ctx *ctx, const struct xvbd_start_req *req,
		       struct xvbd_start_plan *plan)
{
	const char *name = ctx->cmd->name;
	struct xvbd_ovr_caps caps = { 0 };
	const char *limits_from;
	char why[320];
	uint32_t domid;
	size_t i;
	int rc, err;

	memset(plan, 0, sizeof(*plan));
	plan->cfg_path = req->cfg_path;
	if (req->pin && pin_cfg(req->cfg_path, plan, why, sizeof(why))) {
		xvbd_err(name, req->cfg_path, "cannot pin a private copy: %s",
			 why);
		return XVBD_EXIT_FAIL;
	}
	if (plan->pin_cfg)
		plan->cfg_path = plan->pin_cfg;
	err = xvbd_tstack_xlcfg_read(plan->cfg_path, &plan->cfg);
	if (err) {
		xvbd_err(name, req->cfg_path, "cannot read the xl config: %s",
			 err == -EINVAL ? plan->cfg.error : strerror(-err));
		return XVBD_EXIT_FAIL;
	}
	plan->have_cfg = true;
	if (!plan->cfg.name) {
		xvbd_err(name, req->cfg_path, "the config has no name=");
		return XVBD_EXIT_FAIL;
	}
	if (check_vdevs(req, &plan->cfg, why, sizeof(why))) {
		xvbd_err(name, "--vbd", "%s", why);
		return XVBD_EXIT_USAGE;
	}
	rc = xvbd_cmd_connect(ctx);
	if (rc)
		return rc;
	if (!xvbd_tstack_name_to_domid(ctx->ts, plan->cfg.name, &domid)) {
		xvbd_err(name, plan->cfg.name, "a domain of that name is "
			 "running (domid %u)", domid);
		if (!ctx->opts->quiet)
			xvbd_hint("for a running guest see \"xvbd tune\"");
		return XVBD_EXIT_FAIL;
	}

	/* What dom0's blkback can offer at all, before anything exists. */
	err = xvbd_modparam_list(XVBD_BLKBACK_MODULE, &plan->mp);
	if (err && req->nsets) {
		xvbd_err(name, XVBD_BLKBACK_MODULE, "cannot read its "
			 "parameters: %s", err == -ENOENT ?
			 "module not loaded" : strerror(-err));
		return XVBD_EXIT_FAIL;
	}
	xvbd_override_caps_modparams(&caps, &plan->mp);
	xvbd_override_caps_blkback_model(&caps);
	for (i = 0; i < req->nsets; i++) {
		if (xvbd_override_validate(&req->sets[i], &caps, why,
					   sizeof(why))) {
			xvbd_err(name, "--vbd", "%s", why);
			if (!ctx->opts->quiet &&
			    caps.cap[XVBD_OVR_RING_ORDER].known)
				xvbd_hint("see \"xvbd defaults\" for dom0's "
					  "xen_blkback limits");
			return XVBD_EXIT_FAIL;
		}
	}

	limits_from = plan->cfg.cmdline ? plan->cfg.cmdline : plan->cfg.extra;
	if (req->guest_limits) {
		if (!xvbd_tstack_xlcfg_is_pv_direct(&plan->cfg)) {
			xvbd_err(name, "--guest-limits", "%s is not a PV "
				 "guest with kernel=: xvbd cannot set its "
				 "xen_blkfront parameters", plan->cfg.name);
			if (!ctx->opts->quiet)
				xvbd_hint("set xen_blkfront.* on the guest's "
					  "own kernel command line");
			return XVBD_EXIT_FAIL;
		}
		/* xl ignores extra= when cmdline= is set. */
		plan->cmd_key = plan->cfg.cmdline ? "cmdline" : "extra";
		if (xvbd_override_guest_cmdline(limits_from, req->sets,
						req->nsets, &plan->cmdline,
						why, sizeof(why))) {
			xvbd_err(name, "--guest-limits", "%s", why);
			return XVBD_EXIT_FAIL;
		}
		limits_from = plan->cmdline;
	}
	warn_cost(ctx, req, &plan->cfg, limits_from, &plan->mp);
	if (ctx->opts->dry_run || !plan->cmd_key)
		return XVBD_EXIT_OK;
	if (write_cfg_copy(plan->cfg_path, plan->cmd_key, plan->cmdline,
			   &plan->cfg, &plan->tmp_cfg, why, sizeof(why))) {
		xvbd_err(name, "--guest-limits", "%s", why);
		return XVBD_EXIT_FAIL;
	}
	return XVBD_EXIT_OK;
}

const char *xvbd_start_plan_cfg(const struct xvbd_start_plan *plan)
{
	return plan->tmp_cfg ? plan->tmp_cfg : plan->cfg_path;
}

void xvbd_start_plan_free(struct xvbd_start_plan *plan)
{
	if (plan->tmp_cfg)
		unlink(plan->tmp_cfg);
	free(plan->tmp_cfg);
	if (plan->pin_cfg)
		unlink(plan->pin_cfg);
	free(plan->pin_cfg);
	free(plan->cmdline);
	xvbd_modparams_free(&plan->mp);
	if (plan->have_cfg)
		xvbd_tstack_xlcfg_free(&plan->cfg);
	memset(plan, 0, sizeof(*plan));
}

/*
 * xl killed by a signal (someone's kill of xl itself) may leave the domain
 * it was building, paused, under the config's name; xl's own failures
 * destroy it themselves.  The name was free when start began
 * (xvbd_start_prepare), so a domain of that name now is xl's.
 */
static void destroy_half_built(struct xvbd_ctx *ctx, const char *dom_name)
{
	const char *name = ctx->cmd->name;
	uint32_t domid;
	int err;

	if (xvbd_tstack_name_to_domid(ctx->ts, dom_name, &domid))
		return;
	err = xvbd_tstack_domain_destroy(ctx->ts, domid);
	if (err && err != -ENOENT) {
		xvbd_err(name, dom_name, "cannot destroy the domain xl left "
			 "half-built (domid %u): %s", domid, strerror(-err));
		if (!ctx->opts->quiet)
			xvbd_hint("xl destroy %u", domid);
		return;
	}
	xvbd_err(name, dom_name, "the domain xl left half-built (domid %u) "
		 "was destroyed", domid);
}

int xvbd_start_run(struct xvbd_ctx *ctx, const struct xvbd_start_req *req,
		   const struct xvbd_start_plan *plan,
		   struct xvbd_start_result *res)
{
	const char *name = ctx->cmd->name;
	const struct xvbd_xlcfg *cfg = &plan->cfg;
	char why[256];
	int err, xl_status;
	int timeout_ms = req->timeout_s * 1000;
	bool interrupted = false;
	int64_t t0 = xvbd_now_ms(), t_created, t_unpaused;
	sigset_t old;
	size_t i;

	memset(res, 0, sizeof(*res));
	res->ndevs = req->nsets;
	for (i = 0; i < req->nsets; i++)
		res->devs[i].target.set = &req->sets[i];

	if (xvbd_interrupted()) {
		xvbd_err(name, "interrupted", "by %s: nothing created",
			 xvbd_sig_name(xvbd_interrupted()));
		return XVBD_EXIT_FAIL;
	}
	/*
	 * Ctrl-C must not leave a paused guest behind: held until unpause.
	 * xl runs in its own process group (spawn.h), so a terminal's
	 * Ctrl-C does not reach it either.
	 */
	xvbd_sig_hold(&old);
	/* SIGKILL: xl finishes on its own and leaves the domain paused. */
	xvbd_journal_note(XVBD_J_CREATED, "-1 %s", cfg->name);
	err = xvbd_tstack_create_paused(ctx->ts, xvbd_start_plan_cfg(plan),
					cfg->name, &res->domid, &xl_status);
	if (err) {
		if (err == -EIO)
			xvbd_err(name, "xl create -p", "failed (exit "
				 "status %d, see above)", xl_status);
		else
			xvbd_err(name, "xl create -p", "%s", strerror(-err));
		if (err == -EIO && xl_status > 128)
			destroy_half_built(ctx, cfg->name);
		sigprocmask(SIG_SETMASK, &old, NULL);
		return XVBD_EXIT_FAIL;
	}
	res->created = true;
	xvbd_journal_note(XVBD_J_CREATED, "%u %s", res->domid, cfg->name);
	xvbd_journal_done(XVBD_J_CREATED, "-1 %s", cfg->name);
	t_created = xvbd_now_ms();
	/* From here to the unpause nothing may return early. */
	why[0] = '\0';
	xvbd_ovr_run_apply(ctx->ts, ctx->xs, res->domid, res->devs,
			   res->ndevs, &res->disks, &res->ndisks, timeout_ms,
			   why, sizeof(why));
	xvbd_test_stop("start-paused");
	err = xvbd_tstack_unpause(ctx->ts, res->domid);
	if (!err)
		xvbd_journal_done(XVBD_J_CREATED, "%u %s", res->domid,
				  cfg->name);
	t_unpaused = xvbd_now_ms();
	interrupted = xvbd_sig_held_pending();
	if (err) {
		xvbd_err(name, "unpause", "domain %s (%u): %s", cfg->name,
			 res->domid, strerror(-err));
		if (!ctx->opts->quiet)
			xvbd_hint("the guest is still paused: xl unpause %u",
				  res->domid);
		return XVBD_EXIT_FAIL;
	}
	if (interrupted) {
		xvbd_err(name, "interrupted", "guest %s (%u) is running; "
			 "overrides %s, not verified", cfg->name, res->domid,
			 why[0] ? "not written" : "written");
		return XVBD_EXIT_FAIL;
	}
	sigprocmask(SIG_SETMASK, &old, NULL);

	xvbd_ovr_run_verify(ctx->xs, res->domid, res->devs, res->ndevs,
			    timeout_ms);
	if (xvbd_interrupted()) {
		xvbd_err(name, "interrupted", "by %s: guest %s (%u) is running; "
			 "overrides %s, not verified",
			 xvbd_sig_name(xvbd_interrupted()), cfg->name,
			 res->domid, why[0] ? "not written" : "written");
		return XVBD_EXIT_FAIL;
	}
	if (ctx->opts->verbose)
		fprintf(stderr, "xvbd: %s: timing: xl create -p %.1f s, "
			"paused window %.1f s, Connected "
			"%.1f s after unpause\n", name,
			(t_created - t0) / 1000.0,
			(t_unpaused - t_created) / 1000.0,
			(xvbd_now_ms() - t_unpaused) / 1000.0);
	res->not_applied = xvbd_ovr_run_verdict(res->devs, res->ndevs, NULL,
						res->verdict,
						sizeof(res->verdict));
	return XVBD_EXIT_OK;
}

void xvbd_start_result_free(struct xvbd_start_result *res)
{
	xvbd_ovr_run_free(res->devs, res->ndevs);
	xvbd_tstack_disks_free(res->disks, res->ndisks);
	res->disks = NULL;
	res->ndisks = 0;
	res->ndevs = 0;
}

