/*
 * override_run.c - apply, verify and report per-VBD overrides on a
 * paused guest (start and attach share it; see override_run.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xvbd/vbd/override_run.h"

/* Every override of dev not applied, for one reason. */
static void fail_dev(struct xvbd_ovr_dev *dev, const char *why)
{
	const struct xvbd_ovr_set *set = dev->target.set;
	size_t j;

	snprintf(dev->why, sizeof(dev->why), "%s", why);
	for (j = 0; j < set->n; j++) {
		struct xvbd_ovr_result *r = &dev->res[j];

		memset(r, 0, sizeof(*r));
		r->key = set->items[j].key;
		r->value = set->items[j].value;
		r->before = set->items[j].before;
		r->status = XVBD_OVR_NOT_APPLIED;
		snprintf(r->why, sizeof(r->why), "%s", why);
	}
}

static int bind_and_wait(struct xvbd_xs *xs, struct xvbd_ovr_dev *devs,
			 size_t n, const struct xvbd_disk *disks,
			 size_t ndisks, int timeout_ms, char *why, size_t len)
{
	size_t i, j;
	char w[200];

	for (i = 0; i < n; i++) {
		struct xvbd_ovr_dev *d = &devs[i];

		d->disk = NULL;
		for (j = 0; j < ndisks && !d->disk; j++)
			if (disks[j].devid == d->target.set->devid)
				d->disk = &disks[j];
		if (!d->disk || !d->disk->backend_path ||
		    !d->disk->frontend_path) {
			snprintf(why, len, "%s: the toolstack has no record "
				 "of it", d->target.set->vdev);
			return -ENOENT;
		}
		d->target.backend_path = d->disk->backend_path;
		d->target.frontend_path = d->disk->frontend_path;
	}
	for (i = 0; i < n; i++) {
		int rc = xvbd_override_wait_initwait(
			xs, devs[i].target.backend_path, timeout_ms, w,
			sizeof(w));

		if (rc) {
			snprintf(why, len, "%s: %s", devs[i].target.set->vdev,
				 w);
			return rc;
		}
	}
	return 0;
}

int xvbd_ovr_run_apply(struct xvbd_tstack *ts, struct xvbd_xs *xs,
		       uint32_t domid, struct xvbd_ovr_dev *devs, size_t n,
		       struct xvbd_disk **disks, size_t *ndisks,
		       int timeout_ms, char *why, size_t len)
{
	struct xvbd_ovr_target *targets;
	size_t i;
	int rc;

	why[0] = '\0';
	rc = xvbd_tstack_disks(ts, domid, disks, ndisks);
	if (rc)
		snprintf(why, len, "listing the disks: %s", strerror(-rc));
	else
		rc = bind_and_wait(xs, devs, n, *disks, *ndisks, timeout_ms,
				   why, len);
	if (!rc) {
		targets = calloc(n ? n : 1, sizeof(*targets));
		if (!targets) {
			snprintf(why, len, "%s", strerror(ENOMEM));
			rc = -ENOMEM;
		} else {
			for (i = 0; i < n; i++)
				targets[i] = devs[i].target;
			/* Re-validated inside against blkback's probe. */
			rc = xvbd_override_apply_txn(xs, targets, n, why, len);
			/* ->before was recorded in the shared sets. */
			free(targets);
		}
	}
	if (rc)
		for (i = 0; i < n; i++)
			fail_dev(&devs[i], why);
	return rc;
}

void xvbd_ovr_run_verify(struct xvbd_xs *xs, uint32_t domid,
			 struct xvbd_ovr_dev *devs, size_t n, int timeout_ms)
{
	size_t i;

	for (i = 0; i < n; i++) {
		struct xvbd_ovr_dev *d = &devs[i];
		struct xvbd_xs_be_path bp;
		char *error_path = NULL, w[220];
		int err;

		if (d->why[0] || !d->disk)
			continue;
		if (!xvbd_xs_parse_backend_path(d->target.backend_path, &bp))
			error_path = xvbd_xs_path_backend_error(&bp);
		err = xvbd_override_wait_connected(xs, &d->target, error_path,
						   timeout_ms, w, sizeof(w));
		free(error_path);
		if (err) {
			fail_dev(d, w);
			continue;
		}
		err = xvbd_vbd_load(xs, domid, d->disk, &d->view);
		if (err) {
			fail_dev(d, strerror(-err));
			continue;
		}
		d->verified = true;
		xvbd_override_verify(d->target.set, &d->view.backend,
				     &d->view.frontend, d->res);
	}
}

size_t xvbd_ovr_run_verdict(const struct xvbd_ovr_dev *devs, size_t n,
			    const struct xvbd_ovr_dev *only, char *buf,
			    size_t len)
{
	size_t i, j, failed = 0;

	for (i = 0; i < n; i++) {
		const struct xvbd_ovr_set *set = devs[i].target.set;

		if (only && &devs[i] != only)
			continue;
		for (j = 0; j < set->n; j++) {
			const struct xvbd_ovr_result *r = &devs[i].res[j];

			if (r->status != XVBD_OVR_NOT_APPLIED)
				continue;
			if (!failed++)
				snprintf(buf, len, "not applied: %s %s: %s",
					 set->vdev, r->key->name, r->why);
		}
	}
	if (!failed)
		snprintf(buf, len, "applied");
	return failed;
}

void xvbd_ovr_run_render(struct xvbd_out *o, const struct xvbd_ovr_dev *devs,
			 size_t n)
{
	size_t i, j;

	xvbd_out_arr_begin(o, "overrides");
	for (i = 0; i < n; i++)
		for (j = 0; j < devs[i].target.set->n; j++)
			xvbd_override_result_render(o, devs[i].target.set->vdev,
						    &devs[i].res[j]);
	xvbd_out_arr_end(o);
	xvbd_out_arr_begin(o, "negotiated");
	for (i = 0; i < n; i++) {
		const struct xvbd_blkif_eval *ev = &devs[i].view.eval;

		if (!devs[i].verified)
			continue;
		for (j = 0; j < XVBD_NEGO_COUNT; j++) {
			const struct xvbd_nego *ng = &ev->nego[j];

			xvbd_out_obj_begin(o, NULL);
			xvbd_out_str(o, "vdev", devs[i].target.set->vdev);
			xvbd_out_str(o, "key", ng->key);
			xvbd_out_uint_opt(o, "offer", ng->offer.known,
					  ng->offer.v);
			xvbd_out_uint_opt(o, "choice", ng->choice.known,
					  ng->choice.v);
			xvbd_out_uint_opt(o, "effective", ng->effective.known,
					  ng->effective.v);
			xvbd_out_obj_end(o);
		}
	}
	xvbd_out_arr_end(o);
}

void xvbd_ovr_run_free(struct xvbd_ovr_dev *devs, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (devs[i].verified) {
			xvbd_vbd_view_free(&devs[i].view);
			devs[i].verified = false;
		}
}
