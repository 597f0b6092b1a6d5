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
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

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
	OPT_FILE = 256, OPT_PHY, OPT_SHARE, OPT_CREDENTIALS, OPT_SHARE_OPTS,
	OPT_SIZE, OPT_PREALLOC, OPT_VDEV, OPT_ACCESS, OPT_SPEC, OPT_WAIT,
	OPT_NO_WAIT, OPT_TIMEOUT, OPT_JOBS, OPT_RING_ORDER, OPT_QUEUES,
	OPT_INDIRECT, OPT_DISCARD, OPT_TRUSTED, OPT_CACHE,
};

static const struct option attach_options[] = {
	{ "file", required_argument, NULL, OPT_FILE },
	{ "phy", required_argument, NULL, OPT_PHY },
	{ "share", required_argument, NULL, OPT_SHARE },
	{ "credentials", required_argument, NULL, OPT_CREDENTIALS },
	{ "share-opts", required_argument, NULL, OPT_SHARE_OPTS },
	{ "size", required_argument, NULL, OPT_SIZE },
	{ "prealloc", no_argument, NULL, OPT_PREALLOC },
	{ "cache", required_argument, NULL, OPT_CACHE },
	{ "vdev", required_argument, NULL, OPT_VDEV },
	{ "access", required_argument, NULL, OPT_ACCESS },
	{ "spec", required_argument, NULL, OPT_SPEC },
	{ "wait", no_argument, NULL, OPT_WAIT },
	{ "no-wait", no_argument, NULL, OPT_NO_WAIT },
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "jobs", required_argument, NULL, OPT_JOBS },
	{ "ring-order", required_argument, NULL, OPT_RING_ORDER },
	{ "queues", required_argument, NULL, OPT_QUEUES },
	{ "indirect-segments", required_argument, NULL, OPT_INDIRECT },
	{ "discard", required_argument, NULL, OPT_DISCARD },
	{ "trusted", required_argument, NULL, OPT_TRUSTED },
	{ NULL, 0, NULL, 0 },
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
		if (!strcmp(value, "on") || !strcmp(value, "1"))
			value = "1";
		else if (!strcmp(value, "off") || !strcmp(value, "0"))
			value = "0";
		else {
			xvbd_err(CMD, name, "\"%.24s\": on or off", value);
			return XVBD_EXIT_USAGE;
		}
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

/*
 * An option with a value given twice: which one was meant?  (--spec adds
 * a disk each time; the flags may repeat.)
 */
static int check_once(const struct xvbd_cmd *cmd, int opt, uint64_t *seen)
{
	const struct option *o;

	if (opt < OPT_FILE || opt == OPT_SPEC)
		return 0;
	for (o = attach_options; o->name; o++)
		if (o->val == opt)
			break;
	if (!o->name || o->has_arg == no_argument)
		return 0;
	if (*seen & (1ull << (opt - OPT_FILE)))
		return xvbd_usage_error(cmd, "--%s given twice", o->name);
	*seen |= 1ull << (opt - OPT_FILE);
	return 0;
}

static int parse_args(struct xvbd_ctx *ctx, int argc, char **argv,
		      struct attach_args *a)
{
	const struct xvbd_cmd *cmd = ctx->cmd;
	int c, i, rc, shorthands;
	uint64_t v, seen = 0;

	memset(a, 0, sizeof(*a));
	a->readwrite = true;
	a->wait = true;
	a->timeout_s = DEFAULT_TIMEOUT_S;
	/* Hotplug scripts are CPU-bound in dom0: one per CPU at a time. */
	a->jobs = sysconf(_SC_NPROCESSORS_ONLN) > 0 ?
		(unsigned)sysconf(_SC_NPROCESSORS_ONLN) : 1;
	xvbd_getopt_begin();
	while ((c = xvbd_getopt(argc, argv, ":", attach_options)) != -1) {
		rc = check_once(cmd, c, &seen);
		if (rc)
			return rc;
		switch (c) {
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
			/* What a file can be: off_t's range. */
			if (xvbd_opt_size(cmd, "--size", optarg,
					  XVBD_SECTOR_BYTES, INT64_MAX,
					  &a->size_bytes))
				return XVBD_EXIT_USAGE;
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
			if (xvbd_opt_whole_seconds(cmd, "--timeout", optarg, 1,
						   86400, &v))
				return XVBD_EXIT_USAGE;
			a->timeout_s = (unsigned)v;
			break;
		case OPT_JOBS:
			if (xvbd_opt_count(cmd, "--jobs", optarg, 1, MAX_ITEMS,
					   &v))
				return XVBD_EXIT_USAGE;
			a->jobs = (unsigned)v;
			break;
		case OPT_RING_ORDER:
		case OPT_QUEUES:
		case OPT_INDIRECT:
		case OPT_DISCARD:
		case OPT_TRUSTED:
			rc = add_override(a, c, optarg);
			if (rc)
				return rc;
			break;
		default:
			return xvbd_getopt_error(cmd, argv, c);
		}
	}
	i = xvbd_getopt_index();
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
	if (i < at->n) {
		render(at);
		if (rc && xvbd_out_finish(ctx->out) < 0)
			rc = XVBD_EXIT_FAIL;
	}
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
