/*
 * cmd_attach.c - xvbd attach <Domain> [<DiskSpec>] [options]: add disks
 * to a running guest and wait until their frontends are Connected.
 *
 * Steps, each a function, in this order (the files are named below):
 *   1. parse_args      options -> struct attach_args (usage errors: 2)
 *   2. check_items     one item per disk: xl spec parsed by libxlutil, or
 *                      a shorthand (--file, --phy, --share) turned into one;
 *                      every path/URL/option validated, before connecting;
 *      plan_items      then links, a target given twice, vdevs allocated
 *   3. prepare_items   side effects before libxl: share mounts, image
 *                      files (undone by cleanup_items on failure); the
 *                      hotplug script (choose_script: xvbd-block for
 *                      raw image files when it is installed, its
 *                      xvbd-block-direct name for --cache none)
 *   4. add_items       all disks added concurrently (libxl async ops);
 *                      with overrides (--ring-order ...) the guest is
 *                      paused first (pause_guest), so that its blkfront
 *                      cannot read blkback's offer before xvbd lowers it
 *   5. backends_ready  the backends have finished hotplug (InitWait): the
 *                      overrides, one transaction; then resume_guest
 *                      unpauses (always, also on error or Ctrl-C)
 *   6. wait_items      until backend and frontend are Connected (--wait),
 *                      then what the frontends chose (verify_overrides)
 *   7. render
 *
 * Files: this one (1, 7 and cmd_attach), attach_plan.c (2),
 * attach_prepare.c (3), attach_add.c (4-6); attach_impl.h between them.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "xvbd/base/optval.h"
#include "xvbd/vbd/attach_script.h"
#include "xvbd/vbd/vbd.h"
#include "xvbd/xen/blkif.h"
#include "xvbd/dom0/cache.h"
#include "xvbd/cmd/attach.h"
#include "xvbd/cmd/cmd.h"
#include "xvbd/dom0/image.h"
#include "xvbd/base/lock.h"
#include "xvbd/dom0/loop.h"
#include "xvbd/dom0/modparam.h"
#include "xvbd/vbd/override.h"
#include "xvbd/vbd/override_run.h"
#include "xvbd/dom0/share.h"
#include "xvbd/base/sig.h"
#include "xvbd/dom0/sysfs.h"
#include "attach_impl.h"

/* ---- 1. arguments ---- */

enum {
	OPT_FILE, OPT_PHY, OPT_SHARE, OPT_CREDENTIALS, OPT_SHARE_OPTS,
	OPT_SIZE, OPT_PREALLOC, OPT_CACHE, OPT_VDEV, OPT_ACCESS, OPT_SPEC,
	OPT_WAIT, OPT_NO_WAIT, OPT_TIMEOUT, OPT_JOBS, OPT_RING_ORDER,
	OPT_QUEUES, OPT_INDIRECT, OPT_DISCARD, OPT_TRUSTED,
};

const struct xvbd_cmdopt cmd_attach_opts[] = {
	[OPT_FILE] = XVBD_OPT_STR("file", 0, "PATH", 0, "a raw image file "
		"(created with --size when missing)"),
	[OPT_PHY] = XVBD_OPT_STR("phy", 0, "DEV", 0, "a block device or "
		"partition of dom0"),
	[OPT_SHARE] = XVBD_OPT_STR("share", 0, "URL", 0, "an image file on "
		"an NFS or SMB share (nfs://srv/export/f.img, smb://...)"),
	[OPT_CREDENTIALS] = XVBD_OPT_STR("credentials", 0, "FILE", 0,
		"SMB credentials file (mode 0600)"),
	[OPT_SHARE_OPTS] = XVBD_OPT_STR("share-opts", 0, "OPTS", 0,
		"more mount options for --share"),
	[OPT_SIZE] = XVBD_OPT_SZ("size", 0, XVBD_IMAGE_SIZE_MIN,
		XVBD_IMAGE_SIZE_MAX, "create or grow the image to this size"),
	[OPT_PREALLOC] = XVBD_OPT_F("prealloc", 0, "allocate the new "
		"image's blocks (fallocate) instead of a sparse file"),
	[OPT_CACHE] = XVBD_OPT_W("cache", 0, "host|none", "dom0's page cache "
		"for an image file: host (buffered) or none (direct I/O)"),
	[OPT_VDEV] = XVBD_OPT_STR("vdev", 0, "VDev|auto", 0, "the guest's "
		"device name (default: the first free xvd)"),
	[OPT_ACCESS] = XVBD_OPT_STR("access", 0, "rw|ro", 0,
		"read-write (default) or read-only"),
	[OPT_SPEC] = XVBD_OPT_STR("spec", 0, "DiskSpec", XVBD_OPT_REPEAT,
		"one more disk in xl's disk spec syntax"),
	[OPT_WAIT] = XVBD_OPT_F("wait", 0, "wait until the frontends are "
		"Connected (the default)"),
	[OPT_NO_WAIT] = XVBD_OPT_F("no-wait", 0, "return once the backends "
		"are set up"),
	[OPT_TIMEOUT] = XVBD_OPT_S("timeout", 0, 1, 86400, "how long to wait "
		"(default 120s)"),
	[OPT_JOBS] = XVBD_OPT_N("jobs", 0, "N", 1, MAX_ITEMS, "hotplug "
		"scripts at once (default: one per CPU)"),
	[OPT_RING_ORDER] = XVBD_OPT_STR("ring-order", 0, "N", 0, "offer "
		"rings of 2^N pages (blkif max-ring-page-order)"),
	[OPT_QUEUES] = XVBD_OPT_STR("queues", 0, "N", 0, "offer at most N "
		"queues (blkif multi-queue-max-queues)"),
	[OPT_INDIRECT] = XVBD_OPT_STR("indirect-segments", 0, "N", 0, "offer "
		"N indirect segments (blkif feature-max-indirect-segments)"),
	[OPT_DISCARD] = XVBD_OPT_B("discard", 0, "let the guest discard "
		"(blkif discard-enable)"),
	[OPT_TRUSTED] = XVBD_OPT_B("trusted", 0, "trust the guest with "
		"flushes on a shared device (blkif trusted)"),
	XVBD_OPT_END,
};

static int add_spec(struct attach_args *a, const struct xvbd_cmd *cmd,
		    const char *spec)
{
	if (a->nspecs == MAX_ITEMS)
		return xvbd_usage_error(cmd, "at most %d disks per call",
					MAX_ITEMS);
	a->specs[a->nspecs++] = spec;
	return 0;
}

/*
 * --ring-order N etc. as "key=value" of the override layer; the syntax
 * and range are checked now (on a scratch set), the device's real caps
 * once the disks are known.  on|off for the booleans.
 */
static const struct {
	int opt;
	enum xvbd_ovr_id id;
	const char *name;
} override_options[] = {
	{ OPT_RING_ORDER, XVBD_OVR_RING_ORDER, "--ring-order" },
	{ OPT_QUEUES, XVBD_OVR_QUEUES, "--queues" },
	{ OPT_INDIRECT, XVBD_OVR_INDIRECT, "--indirect-segments" },
	{ OPT_DISCARD, XVBD_OVR_DISCARD, "--discard" },
	{ OPT_TRUSTED, XVBD_OVR_TRUSTED, "--trusted" },
};

static int add_override(struct attach_args *a, int opt, const char *value)
{
	const struct xvbd_ovr_key *key = NULL;
	struct xvbd_ovr_set scratch;
	enum xvbd_ovr_id id = XVBD_OVR_RING_ORDER;
	const char *name = "";
	char why[WHY_MAX];
	size_t i;

	for (i = 0; i < sizeof(override_options) /
		    sizeof(override_options[0]); i++)
		if (override_options[i].opt == opt) {
			id = override_options[i].id;
			name = override_options[i].name;
			key = &xvbd_ovr_keys[id];
		}
	if (!key)
		return XVBD_EXIT_FAIL;

	if (id == XVBD_OVR_DISCARD || id == XVBD_OVR_TRUSTED) {
		bool on;

		if (xvbd_optval_bool(value, &on, why, sizeof(why))) {
			xvbd_err(CMD, name, "\"%.24s\": %s", value, why);
			return XVBD_EXIT_USAGE;
		}
		value = on ? "1" : "0";
	}
	snprintf(a->ovr_kv[id], sizeof(a->ovr_kv[id]), "%s=%.24s", key->name,
		 value);
	if (xvbd_override_set_init(&scratch, "xvda", why, sizeof(why)) ||
	    xvbd_override_parse_kv(&scratch, a->ovr_kv[id], why,
				   sizeof(why))) {
		xvbd_err(CMD, name, "%s", why);
		return XVBD_EXIT_USAGE;
	}
	a->have_ovr = true;
	return 0;
}

static int parse_args(struct xvbd_ctx *ctx, int argc, char **argv,
		      struct attach_args *a)
{
	const struct xvbd_cmdline *cl = ctx->cl;
	const struct xvbd_cmd *cmd = ctx->cmd;
	int i, rc, shorthands;
	size_t k;

	memset(a, 0, sizeof(*a));
	a->readwrite = true;
	a->wait = true;
	a->timeout_s = DEFAULT_TIMEOUT_S;
	/* Hotplug scripts are CPU-bound in dom0: one per CPU at a time. */
	a->jobs = sysconf(_SC_NPROCESSORS_ONLN) > 0 ?
		(unsigned)sysconf(_SC_NPROCESSORS_ONLN) : 1;
	for (k = 0; k < cl->ngiven; k++) {
		const struct xvbd_optval *v = &cl->given[k];
		const char *optarg = v->arg;

		switch (v->id) {
		case OPT_FILE:
			a->file = optarg;
			break;
		case OPT_PHY:
			a->phy = optarg;
			break;
		case OPT_SHARE:
			a->share = optarg;
			break;
		case OPT_CREDENTIALS:
			a->credentials = optarg;
			break;
		case OPT_SHARE_OPTS:
			a->share_opts = optarg;
			break;
		case OPT_SIZE:
			a->size_bytes = v->u;
			a->have_size = true;
			break;
		case OPT_PREALLOC:
			a->prealloc = true;
			break;
		case OPT_CACHE:
			if (xvbd_cache_parse(optarg, &a->cache))
				return xvbd_usage_error(cmd, "--cache: host or "
							"none, not \"%s\"",
							optarg);
			a->have_cache = true;
			break;
		case OPT_VDEV:
			a->vdev = strcmp(optarg, "auto") ? optarg : NULL;
			break;
		case OPT_ACCESS:
			/* xl's spellings too (w, r) */
			if (!strcmp(optarg, "rw") || !strcmp(optarg, "w"))
				a->readwrite = true;
			else if (!strcmp(optarg, "ro") || !strcmp(optarg, "r"))
				a->readwrite = false;
			else
				return xvbd_usage_error(cmd, "--access: rw or "
							"ro, not \"%s\"",
							optarg);
			break;
		case OPT_SPEC:
			rc = add_spec(a, cmd, optarg);
			if (rc)
				return rc;
			break;
		case OPT_WAIT:
			a->wait = true;
			break;
		case OPT_NO_WAIT:
			a->wait = false;
			break;
		case OPT_TIMEOUT:
			/* whole seconds: a fraction rounds up */
			a->timeout_s = (unsigned)((v->u + XVBD_NS_PER_S - 1) /
						  XVBD_NS_PER_S);
			break;
		case OPT_JOBS:
			a->jobs = (unsigned)v->u;
			break;
		case OPT_DISCARD:
		case OPT_TRUSTED:
			/* the grammar read it: hand on its one spelling */
			optarg = v->u ? "1" : "0";
			/* fall through */
		case OPT_RING_ORDER:
		case OPT_QUEUES:
		case OPT_INDIRECT:
			rc = add_override(a, v->id, optarg);
			if (rc)
				return rc;
			break;
		}
	}
	i = 0;
	if (i >= argc)
		return xvbd_usage_error(cmd, "missing domain");
	a->domain = argv[i++];
	for (; i < argc; i++) {
		rc = add_spec(a, cmd, argv[i]);
		if (rc)
			return rc;
	}
	shorthands = !!a->file + !!a->phy + !!a->share;
	if (shorthands > 1)
		return xvbd_usage_error(cmd, "--file, --phy and --share are "
					"one disk each: give one");
	if (shorthands && a->nspecs)
		return xvbd_usage_error(cmd, "a disk spec and --%s: give one",
					a->file ? "file" : a->phy ? "phy" :
					"share");
	if (!shorthands && !a->nspecs)
		return xvbd_usage_error(cmd, "no disk: give a disk spec, "
					"--spec, --file, --phy or --share");
	if (!shorthands && (a->vdev || a->have_size || a->prealloc ||
			    !a->readwrite))
		return xvbd_usage_error(cmd, "--vdev, --size, --prealloc and "
					"--access go with --file, --phy or "
					"--share (a disk spec says them "
					"itself)");
	if (a->phy && (a->have_size || a->prealloc || a->have_cache))
		return xvbd_usage_error(cmd, "--size, --prealloc and --cache "
					"are for image files, not --phy");
	if ((a->credentials || a->share_opts) && !a->share)
		return xvbd_usage_error(cmd, "--credentials and --share-opts "
					"go with --share");
	return 0;
}

/* ---- 7. output ---- */

/* -v: where the time went (hot-attach speed is what xvbd is for). */
static void print_timing(const struct attach *at)
{
	fprintf(stderr, "xvbd: attach: timing: plan %.1f s, add (libxl and "
		"hotplug scripts, %zu disks, --jobs %u) %.1f s",
		(at->t_planned - at->t_start) / 1000.0, at->n, at->a.jobs,
		(at->t_added - at->t_planned) / 1000.0);
	if (at->t_connected)
		fprintf(stderr, ", Connected %.1f s later",
			(at->t_connected - at->t_added) / 1000.0);
	fputc('\n', stderr);
}

static const struct xvbd_out_label labels[] = {
	{ "domain", "DOMAIN" }, { "vdev", "VDEV" }, { "devid", "DEVID" },
	{ "kind", "KIND" }, { "target", "TARGET" }, { "access", "ACCESS" },
	{ "size_bytes", "SIZE" }, { "created", "CREATED" },
	{ "share", "SHARE" }, { "backend_state", "BACKEND" },
	{ "frontend_state", "FRONTEND" }, { "overrides", "OVERRIDES" },
	{ NULL, NULL },
};

static bool waited(const struct attach *at)
{
	return at->a.wait && !at->was_paused;
}

/*
 * Per disk: "applied", "not applied: why", "written, not verified",
 * "not written" (another disk failed first), or null (no overrides).
 */
static void render_overrides(struct attach *at, size_t i)
{
	const struct xvbd_ovr_dev *d = &at->devs[i];
	struct xvbd_out *o = at->ctx->out;
	char verdict[320];

	if (!at->a.have_ovr) {
		xvbd_out_null(o, "overrides");
		return;
	}
	if (!at->ovr_why[0] && !at->ovr_verified) {
		xvbd_out_str(o, "overrides", at->ovr_written ?
			     "written, not verified" : "not written");
		return;
	}
	xvbd_ovr_run_verdict(at->devs, at->n, d, verdict, sizeof(verdict));
	xvbd_out_str(o, "overrides", verdict);
}

static void render(struct attach *at)
{
	struct xvbd_out *o = at->ctx->out;
	size_t i;

	xvbd_out_labels(o, labels);
	xvbd_out_arr_begin(o, NULL);
	for (i = 0; i < at->n; i++) {
		const struct item *it = &at->items[i];

		if (!it->added)
			continue;
		xvbd_out_obj_begin(o, NULL);
		render_disk(at, it);
		xvbd_out_bool(o, "created", it->created);
		xvbd_out_str(o, "share", it->kind == ITEM_SHARE ?
			     it->url.source : NULL);
		xvbd_out_str(o, "backend_state", waited(at) ?
			     xvbd_state_name(it->bstate) : NULL);
		xvbd_out_str(o, "frontend_state", waited(at) ?
			     xvbd_state_name(it->fstate) : NULL);
		render_overrides(at, i);
		xvbd_out_obj_end(o);
	}
	xvbd_out_arr_end(o);
}

static int refuse_dom0(void)
{
	xvbd_err(CMD, "domain", "dom0 gets no VBDs from xvbd");
	return XVBD_EXIT_USAGE;
}

/* lock_held: the caller holds the domain's lock (xvbd/cmd/attach.h). */
static int attach_main(struct xvbd_ctx *ctx, int argc, char **argv,
		       bool lock_held)
{
	struct attach *at = calloc(1, sizeof(*at));
	size_t i;
	int rc, err;

	if (!at) {
		xvbd_err(CMD, NULL, "%s", strerror(ENOMEM));
		return XVBD_EXIT_FAIL;
	}
	at->ctx = ctx;
	at->lock_fd = -1;
	at->domain_lock_fd = -1;
	at->xvbd_block = -1;
	rc = parse_args(ctx, argc, argv, &at->a);
	/*
	 * Usage errors on the command line alone, before any connection.
	 * dom0 by its id or the name xencommons gives it (no guest can take
	 * it: libxl refuses a name in use); by any other name, after the
	 * lookup below.
	 */
	if (!rc)
		rc = xvbd_cmd_domain_check(ctx, at->a.domain);
	if (!rc && (!strcmp(at->a.domain, "0") ||
		    !strcmp(at->a.domain, "Domain-0")))
		rc = refuse_dom0();
	if (!rc)
		rc = check_items(at);
	if (!rc)
		rc = xvbd_cmd_connect(ctx);
	if (rc)
		goto out;
	rc = xvbd_cmd_domain_lookup(ctx, at->a.domain, &at->domid,
				    &at->domain);
	if (rc)
		goto out;
	if (at->domid == 0) {
		rc = refuse_dom0();
		goto out;
	}
	/* The vdev choice and the add, one step for xvbd callers. */
	if (!ctx->opts->dry_run && !lock_held) {
		at->domain_lock_fd = xvbd_domain_lock(CMD, at->domid,
						      at->domain,
						      at->a.timeout_s,
						      !quiet(at) &&
						      isatty(STDERR_FILENO));
		if (at->domain_lock_fd < 0) {
			rc = XVBD_EXIT_FAIL;
			goto out;
		}
	}
	at->t_start = xvbd_now_ms();
	rc = plan_items(at);
	if (!rc)
		rc = plan_overrides(at);
	if (!rc && ctx->opts->dry_run) {
		rc = dry_run(at);
		goto out;
	}
	if (!rc)
		rc = prepare_items(at);
	xvbd_test_stop("attach-prepared");
	/* (Once paused, the signals are held: the flag stays as it is.) */
	if (!rc && !xvbd_interrupted())
		rc = pause_guest(at);
	at->t_planned = xvbd_now_ms();
	if (!rc && !xvbd_interrupted())
		rc = add_items(at);
	at->t_added = xvbd_now_ms();
	xvbd_test_stop("attach-added");
	/* Ctrl-C so far: nothing stays (also when the add never began). */
	err = undo_if_interrupted(at);
	if (!rc)
		rc = err;
	cleanup_items(at);	/* disks not added: images, unused mounts */
	xvbd_share_unlock(at->lock_fd);
	at->lock_fd = -1;
	if (!rc)
		rc = backends_ready(at);
	err = resume_guest(at);
	if (!rc)
		rc = err;
	/* Added (or cleaned up): the next caller sees these disks. */
	xvbd_domain_unlock(at->domid, at->domain_lock_fd);
	at->domain_lock_fd = -1;
	if (at->interrupted)
		goto out;
	if (waited(at)) {
		err = wait_items(at);
		at->t_connected = xvbd_now_ms();
		if (!rc)
			rc = err;
	}
	if (!rc)
		rc = verify_overrides(at);
	if (ctx->opts->verbose)
		print_timing(at);
	/* What was added is reported even if another disk failed. */
	for (i = 0; i < at->n && !at->items[i].added; i++)
		;
	if (i < at->n)
		render(at);	/* also on failure: cmd.c ends it */
out:
	xvbd_share_unlock(at->lock_fd);
	xvbd_domain_unlock(at->domid, at->domain_lock_fd);
	free(at->devids_before);
	for (i = 0; i < at->n; i++) {
		xvbd_tstack_disk_free(at->items[i].disk);
		free(at->items[i].backend_path);
	}
	xvbd_ovr_run_free(at->devs, at->n);
	xvbd_tstack_disks_free(at->disks, at->ndisks);
	free(at->domain);
	free(at);
	return rc;
}

int cmd_attach(struct xvbd_ctx *ctx, int argc, char **argv)
{
	return attach_main(ctx, argc, argv, false);
}

int xvbd_attach_locked(struct xvbd_ctx *ctx, int argc, char **argv)
{
	return attach_main(ctx, argc, argv, true);
}
