/*
 * disk_tune.c - per-device keys of a disk that is attached
 * (xvbd/disk/disk.h).  Toolstack-owned keys (discard-enable, trusted,
 * direct-io-safe) are written at once; they are read at connect, so on a
 * Connected device they take effect at its next connect.  Negotiated keys
 * (ring order, queues, indirect segments) are only accepted in the window
 * where blkfront has not read them yet: backend InitWait, frontend not
 * past Initialising, guest paused (e.g. created with xl create -p).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xvbd/base/lock.h"
#include "xvbd/base/sig.h"
#include "xvbd/dom0/modparam.h"
#include "xvbd/vbd/vbd.h"
#include "disk_impl.h"

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

/* Negotiated keys need the window before blkfront reads them. */
static int check_window(const struct xvbd_disk_env *env,
			const struct xvbd_disk_dom *dom,
			const struct xvbd_dominfo *info,
			const struct xvbd_ovr_set *set,
			const struct xvbd_vbd_view *view)
{
	const struct xvbd_ovr *o = first_negotiated(set);
	const struct xvbd_blkif_eval *ev = &view->eval;
	bool be_initwait = ev->backend_state.known &&
			   ev->backend_state.v == XVBD_STATE_INITWAIT;
	bool fe_early = !ev->frontend_state.known ||
			ev->frontend_state.v <= XVBD_STATE_INITIALISING;

	if (!o || (be_initwait && fe_early && info->paused))
		return 0;
	if (be_initwait && fe_early) {
		xvbd_report_err(env->rep, set->vdev, "%s=%llu: domain %s is "
				"running: blkfront may read %s at any moment "
				"(a racing write lost 3 of 3 times in the lab)",
				o->key->name, (unsigned long long)o->value,
				dom->name, o->key->xs_key);
		xvbd_report_hint(env->rep, "pause it first (xl pause %u), "
				 "tune, then xl unpause %u", dom->domid,
				 dom->domid);
		return XVBD_EXIT_FAIL;
	}
	xvbd_report_err(env->rep, set->vdev, "%s=%llu: the device is %s "
			"(frontend %s): %s is read by %s, so it cannot change "
			"now", o->key->name, (unsigned long long)o->value,
			state_of(ev->backend_state),
			state_of(ev->frontend_state), o->key->xs_key,
			o->key->read_by);
	xvbd_report_hint(env->rep, "restart the guest with \"xvbd start CFG "
			 "--vbd %s:%s=%llu\", or detach the disk and attach "
			 "it again with the override", set->vdev, o->key->name,
			 (unsigned long long)o->value);
	return XVBD_EXIT_FAIL;
}

/* The disk set names, and (with h) still h's. */
static int find_disk(const struct xvbd_disk_env *env,
		     const struct xvbd_disk_dom *dom,
		     const struct xvbd_disk_handle *h,
		     const struct xvbd_ovr_set *set, struct xvbd_disk **disks,
		     size_t *ndisks, struct xvbd_disk **disk)
{
	int err;

	err = xvbd_tstack_disk_find(env->ts, dom->domid, set->devid, disks,
				    ndisks, disk);
	/* Without libxl's record of its paths there is nothing to tune. */
	if (!err && (!(*disk)->backend_path || !(*disk)->frontend_path))
		err = -ENOENT;
	if (err == -ENOENT) {
		xvbd_report_err(env->rep, "vdev", "\"%s\": domain %s has no "
				"such disk", set->vdev, dom->name);
		xvbd_report_hint(env->rep, "see \"xvbd list %s\"", dom->name);
	} else if (err) {
		xvbd_report_err(env->rep, "disks", "domain %s: %s", dom->name,
				strerror(-err));
	} else if (h && (strcmp((*disk)->backend_path, h->backend_path) ||
			 strcmp((*disk)->target ? (*disk)->target : "",
				h->target))) {
		xvbd_report_err(env->rep, set->vdev, "not tuned: %s of %s is "
				"another disk now", set->vdev, dom->name);
		err = -ESTALE;
	}
	return err ? XVBD_EXIT_FAIL : 0;
}

/* Lowering only: dom0's module parameters and the probe offers. */
static int validate(const struct xvbd_disk_env *env,
		    const struct xvbd_disk *disk,
		    const struct xvbd_vbd_view *view, struct xvbd_ovr_set *set)
{
	struct xvbd_modparams mp = { 0 };
	struct xvbd_ovr_caps caps = { 0 };
	char why[320];
	int rc = 0;

	if (disk->backend_domid == 0 &&
	    !xvbd_modparam_list(XVBD_BLKBACK_MODULE, &mp))
		xvbd_override_caps_modparams(&caps, &mp);
	xvbd_override_caps_backend(&caps, &view->backend);
	if (xvbd_override_validate(set, &caps, why, sizeof(why))) {
		xvbd_report_err(env->rep, "value", "%s", why);
		rc = XVBD_EXIT_FAIL;
	}
	xvbd_modparams_free(&mp);
	return rc;
}

/* The write, one transaction, and each key's result. */
static int write_keys(const struct xvbd_disk_env *env,
		      const struct xvbd_disk *disk,
		      const struct xvbd_vbd_view *view,
		      struct xvbd_disk_tune_result *res)
{
	struct xvbd_ovr_set *set = &res->set;
	struct xvbd_ovr_target target = {
		set, disk->backend_path, disk->frontend_path,
	};
	char why[320];
	bool connected;
	size_t i;

	/* Ctrl-C so far: nothing written (the write is one transaction). */
	xvbd_test_stop("tune-planned");
	if (xvbd_interrupted()) {
		xvbd_report_err(env->rep, "interrupted", "by %s: nothing "
				"written", xvbd_sig_name(xvbd_interrupted()));
		return XVBD_EXIT_FAIL;
	}
	if (xvbd_override_apply_txn(env->xs, &target, 1, why, sizeof(why))) {
		xvbd_report_err(env->rep, set->vdev, "nothing written: %s",
				why);
		return XVBD_EXIT_FAIL;
	}
	connected = view->eval.frontend_state.known &&
		    view->eval.frontend_state.v >= XVBD_STATE_INITIALISED;
	for (i = 0; i < set->n; i++) {
		const struct xvbd_ovr *o = &set->items[i];
		struct xvbd_ovr_result *r = &res->res[i];

		memset(r, 0, sizeof(*r));
		r->key = o->key;
		r->value = o->value;
		r->before = o->before;
		r->status = XVBD_OVR_WRITTEN;
		snprintf(r->why, sizeof(r->why), "read by %s: %s",
			 o->key->read_by, connected ?
			 "takes effect when the device next connects" :
			 "applies when the guest is unpaused");
	}
	return 0;
}

static int tune_locked(const struct xvbd_disk_env *env,
		       struct xvbd_disk_dom *dom,
		       const struct xvbd_disk_handle *h,
		       const struct xvbd_disk_tune_opts *opts,
		       struct xvbd_disk_tune_result *res)
{
	struct xvbd_disk *disks = NULL, *disk = NULL;
	struct xvbd_dominfo info;
	struct xvbd_vbd_view view;
	size_t ndisks = 0;
	int rc, err;

	err = xvbd_tstack_domain_info(env->ts, dom->domid, &info);
	if (err || info.dying || info.shutdown) {
		xvbd_report_err(env->rep, "domain", "%s: not running (%s)",
				dom->name, err ? strerror(-err) : info.dying ?
				"dying" : "shut down");
		return XVBD_EXIT_FAIL;
	}
	rc = find_disk(env, dom, h, &res->set, &disks, &ndisks, &disk);
	if (rc)
		goto out;
	err = xvbd_vbd_load(env->xs, dom->domid, disk, &view);
	if (err) {
		xvbd_report_err(env->rep, "reading xenstore", "%s",
				strerror(-err));
		rc = XVBD_EXIT_FAIL;
		goto out;
	}
	rc = validate(env, disk, &view, &res->set);
	if (!rc)
		rc = check_window(env, dom, &info, &res->set, &view);
	if (!rc && opts->dry_run) {
		err = xvbd_override_plan(&res->plan, &res->set,
					 disk->backend_path,
					 disk->frontend_path);
		if (err) {
			xvbd_report_err(env->rep, "plan", "%s",
					strerror(-err));
			rc = XVBD_EXIT_FAIL;
		}
	} else if (!rc) {
		rc = write_keys(env, disk, &view, res);
	}
	xvbd_vbd_view_free(&view);
out:
	xvbd_tstack_disks_free(disks, ndisks);
	return rc;
}

int xvbd_disk_tune(const struct xvbd_disk_env *env, struct xvbd_disk_dom *dom,
		   const struct xvbd_disk_handle *h,
		   const struct xvbd_ovr_set *set,
		   const struct xvbd_disk_tune_opts *opts,
		   struct xvbd_disk_tune_result *res)
{
	bool locked_here = false;
	int rc;

	memset(res, 0, sizeof(*res));
	res->set = *set;
	/* Not while an attach of this domain chooses or adds its disks
	 * (or another tune writes): one waits for the other. */
	if (!opts->dry_run && dom->lock_fd < 0) {
		rc = xvbd_disk_lock(env, dom, XVBD_LOCK_WAIT_S, opts->tell);
		if (rc)
			return rc;
		locked_here = true;
	}
	rc = tune_locked(env, dom, h, opts, res);
	if (locked_here)
		xvbd_disk_unlock(dom);
	return rc;
}

void xvbd_disk_tune_free(struct xvbd_disk_tune_result *res)
{
	xvbd_override_plan_free(&res->plan);
}
