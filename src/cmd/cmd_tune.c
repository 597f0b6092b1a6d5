/*
 * cmd_tune.c - xvbd tune <Domain> <VDev> key=value...: per-device keys
 * of an existing VBD.
 *
 * Toolstack-owned keys (discard-enable, trusted, direct-io-safe) are
 * written at once; they are read at connect, so on a Connected device
 * they take effect at its next connect.  Negotiated keys (ring order,
 * queues, indirect segments) are only accepted in the window where
 * blkfront has not read them yet: backend InitWait, frontend not past
 * Initialising, guest paused (e.g. created with xl create -p).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "xvbd/cmd/cmd.h"
#include "xvbd/base/lock.h"
#include "xvbd/base/sig.h"
#include "xvbd/dom0/modparam.h"
#include "xvbd/vbd/override.h"
#include "xvbd/vbd/vbd.h"

static const char *state_of(struct xvbd_opt s)
{
	return s.known ? xvbd_state_name(s.v) : "absent";
}

/* The first negotiated key of the set, for messages. */
static const struct xvbd_ovr *first_negotiated(const struct xvbd_ovr_set *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (s->items[i].key->cls == XVBD_OVR_NEGOTIATED)
			return &s->items[i];
	return NULL;
}

/*
 * Negotiated keys need the window before blkfront reads them.  0 if
 * open, else an error was printed.
 */
static int check_window(struct xvbd_ctx *ctx, const char *domain,
			uint32_t domid, const struct xvbd_dominfo *info,
			const struct xvbd_ovr_set *set,
			const struct xvbd_vbd_view *view)
{
	const struct xvbd_ovr *o = first_negotiated(set);
	const struct xvbd_blkif_eval *ev = &view->eval;
	bool be_initwait = ev->backend_state.known &&
			   ev->backend_state.v == XVBD_STATE_INITWAIT;
	bool fe_early = !ev->frontend_state.known ||
			ev->frontend_state.v <= XVBD_STATE_INITIALISING;

	if (!o)
		return 0;
	if (be_initwait && fe_early && info->paused)
		return 0;
	if (be_initwait && fe_early) {
		xvbd_err("tune", set->vdev, "%s=%llu: domain %s is running: "
			 "blkfront may read %s at any moment (a racing write "
			 "lost 3 of 3 times in the lab)", o->key->name,
			 (unsigned long long)o->value, domain, o->key->xs_key);
		if (!ctx->opts->quiet)
			xvbd_hint("pause it first (xl pause %u), tune, then "
				  "xl unpause %u", domid, domid);
		return -EBUSY;
	}
	xvbd_err("tune", set->vdev, "%s=%llu: the device is %s (frontend "
		 "%s): %s is read by %s, so it cannot change now",
		 o->key->name, (unsigned long long)o->value,
		 state_of(ev->backend_state), state_of(ev->frontend_state),
		 o->key->xs_key, o->key->read_by);
	if (!ctx->opts->quiet)
		xvbd_hint("restart the guest with \"xvbd start CFG --vbd "
			  "%s:%s=%llu\", or detach the disk and attach it "
			  "again with the override", set->vdev, o->key->name,
			  (unsigned long long)o->value);
	return -EBUSY;
}

static void render(struct xvbd_out *o, const char *domain, uint32_t domid,
		   const struct xvbd_ovr_set *set,
		   const struct xvbd_ovr_result *res)
{
	size_t i;

	xvbd_out_obj_begin(o, NULL);
	xvbd_out_str(o, "domain", domain);
	xvbd_out_uint(o, "domid", domid);
	xvbd_out_arr_begin(o, "overrides");
	for (i = 0; i < set->n; i++)
		xvbd_override_result_render(o, set->vdev, &res[i]);
	xvbd_out_arr_end(o);
	xvbd_out_obj_end(o);
}

int cmd_tune(struct xvbd_ctx *ctx, int argc, char **argv)
{
	const char *dom_spec = argv[0];
	struct xvbd_ovr_result res[XVBD_OVR_NKEYS];
	struct xvbd_disk *disks = NULL, *disk = NULL;
	struct xvbd_modparams mp = { 0 };
	struct xvbd_ovr_caps caps = { 0 };
	struct xvbd_ovr_plan plan = { 0 };
	struct xvbd_ovr_target target;
	struct xvbd_ovr_set set;
	struct xvbd_dominfo info;
	struct xvbd_vbd_view view;
	bool have_view = false, connected;
	size_t ndisks = 0, i;
	char *domain = NULL, why[320];
	uint32_t domid;
	int rc = XVBD_EXIT_FAIL, err, lock_fd = -1;

	/* Input first: a bad key never gets as far as the toolstack. */
	if (xvbd_override_set_init(&set, argv[1], why, sizeof(why))) {
		xvbd_err("tune", "vdev", "%s", why);
		return XVBD_EXIT_USAGE;
	}
	for (i = 2; i < (size_t)argc; i++) {
		if (xvbd_override_parse_kv(&set, argv[i], why, sizeof(why))) {
			xvbd_err("tune", NULL, "%s", why);
			return XVBD_EXIT_USAGE;
		}
	}
	err = xvbd_cmd_domain_check(ctx, dom_spec);
	if (!err)
		err = xvbd_cmd_connect(ctx);	/* CMD_LATE_CONNECT: after the input */
	if (err)
		return err;

	err = xvbd_cmd_domain_lookup(ctx, dom_spec, &domid, &domain);
	if (err)
		return err;
	/* Not while an attach of this domain chooses or adds its disks
	 * (or another tune writes): one waits for the other. */
	if (!ctx->opts->dry_run) {
		lock_fd = xvbd_domain_lock("tune", domid, domain,
					   XVBD_LOCK_WAIT_S,
					   !ctx->opts->quiet &&
					   isatty(STDERR_FILENO));
		if (lock_fd < 0)
			goto out;
	}
	err = xvbd_tstack_domain_info(ctx->ts, domid, &info);
	if (err || info.dying || info.shutdown) {
		xvbd_err("tune", "domain", "%s: not running (%s)", domain,
			 err ? strerror(-err) : info.dying ? "dying" :
			 "shut down");
		goto out;
	}
	err = xvbd_tstack_disk_find(ctx->ts, domid, set.devid, &disks,
				    &ndisks, &disk);
	/* Without libxl's record of its paths there is nothing to tune. */
	if (!err && (!disk->backend_path || !disk->frontend_path))
		err = -ENOENT;
	if (err) {
		xvbd_cmd_disk_error(ctx, err, set.vdev, domain);
		goto out;
	}
	err = xvbd_vbd_load(ctx->xs, domid, disk, &view);
	if (err) {
		xvbd_err("tune", "reading xenstore", "%s", strerror(-err));
		goto out;
	}
	have_view = true;

	/* Lowering only: dom0's module parameters and the probe offers. */
	if (disk->backend_domid == 0 &&
	    !xvbd_modparam_list(XVBD_BLKBACK_MODULE, &mp))
		xvbd_override_caps_modparams(&caps, &mp);
	xvbd_override_caps_backend(&caps, &view.backend);
	if (xvbd_override_validate(&set, &caps, why, sizeof(why))) {
		xvbd_err("tune", "value", "%s", why);
		goto out;
	}
	if (check_window(ctx, domain, domid, &info, &set, &view))
		goto out;

	target.set = &set;
	target.backend_path = disk->backend_path;
	target.frontend_path = disk->frontend_path;
	if (ctx->opts->dry_run) {
		err = xvbd_override_plan(&plan, &set, disk->backend_path,
					 disk->frontend_path);
		if (err) {
			xvbd_err("tune", "plan", "%s", strerror(-err));
			goto out;
		}
		xvbd_out_obj_begin(ctx->out, NULL);
		xvbd_out_str(ctx->out, "domain", domain);
		xvbd_out_uint(ctx->out, "domid", domid);
		xvbd_override_plan_render(ctx->out, &plan);
		xvbd_out_obj_end(ctx->out);
		rc = XVBD_EXIT_OK;
		goto out;
	}
	/* Ctrl-C so far: nothing written (the write is one transaction). */
	xvbd_test_stop("tune-planned");
	if (xvbd_interrupted()) {
		xvbd_err("tune", "interrupted", "by %s: nothing written",
			 xvbd_sig_name(xvbd_interrupted()));
		goto out;
	}
	if (xvbd_override_apply_txn(ctx->xs, &target, 1, why, sizeof(why))) {
		xvbd_err("tune", set.vdev, "nothing written: %s", why);
		goto out;
	}
	connected = view.eval.frontend_state.known &&
		    view.eval.frontend_state.v >= XVBD_STATE_INITIALISED;
	for (i = 0; i < set.n; i++) {
		const struct xvbd_ovr *o = &set.items[i];

		memset(&res[i], 0, sizeof(res[i]));
		res[i].key = o->key;
		res[i].value = o->value;
		res[i].before = o->before;
		res[i].status = XVBD_OVR_WRITTEN;
		snprintf(res[i].why, sizeof(res[i].why), "read by %s: %s",
			 o->key->read_by, connected ?
			 "takes effect when the device next connects" :
			 "applies when the guest is unpaused");
	}
	render(ctx->out, domain, domid, &set, res);
	rc = XVBD_EXIT_OK;
out:
	xvbd_domain_unlock(domid, lock_fd);
	xvbd_override_plan_free(&plan);
	xvbd_modparams_free(&mp);
	if (have_view)
		xvbd_vbd_view_free(&view);
	xvbd_tstack_disks_free(disks, ndisks);
	free(domain);
	return rc;
}
