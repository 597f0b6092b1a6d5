/*
 * disk_attach.c - add disks to a running guest (xvbd/disk/disk.h), in
 * these steps, each a function:
 *   1. plan_items      (disk_plan.c) against the system, nothing changed:
 *                      links, a target given twice, the vdevs; the offers
 *                      against dom0's blkback (plan_overrides)
 *   2. prepare_items   (disk_prepare.c) side effects before libxl: share
 *                      mounts, image files (undone by cleanup_items for
 *                      a disk not added); the hotplug script (xvbd-block
 *                      for raw image files when installed, by its
 *                      xvbd-block-direct name for cache none)
 *   3. add_items       (disk_add.c) all disks added concurrently (libxl
 *                      async ops); with offers the guest is paused first
 *                      (pause_guest), so that its blkfront cannot read
 *                      blkback's offer before xvbd lowers it
 *   4. backends_ready  the backends have finished hotplug (InitWait): the
 *                      offers, one transaction; then resume_guest
 *                      unpauses (always, also on error or Ctrl-C)
 *   5. wait_items      until backend and frontend are Connected, then
 *                      what the frontends chose (verify_overrides)
 * and the handles of what was added (or, -N, what would be).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xvbd/base/sig.h"
#include "xvbd/xen/xs.h"
#include "disk_impl.h"

/* Items from the descriptions: what the plan starts from. */
static int make_items(struct attach *at, const struct xvbd_disk_desc *descs)
{
	size_t i;

	at->items = calloc(at->n ? at->n : 1, sizeof(*at->items));
	at->devs = calloc(at->n ? at->n : 1, sizeof(*at->devs));
	if (!at->items || !at->devs) {
		xvbd_report_err(at->rep, NULL, "%s", strerror(ENOMEM));
		return XVBD_EXIT_FAIL;
	}
	for (i = 0; i < at->n; i++) {
		const struct xvbd_disk_desc *d = &descs[i];
		struct item *it = &at->items[i];

		it->desc = d;
		it->arg = d->arg;
		it->readwrite = d->readwrite;
		it->auto_vdev = d->auto_vdev;
		it->script = d->script[0] != '\0';
		it->cache = XVBD_CACHE_NA;
		snprintf(it->target, sizeof(it->target), "%s", d->target);
		if (!d->auto_vdev) {
			snprintf(it->vdev, sizeof(it->vdev), "%s", d->vdev);
			it->devid = d->devid;
		}
		if (d->offers.n)
			at->have_ovr = true;
	}
	return 0;
}

/* The offers of a disk as one text: "ring-order=1,discard=0". */
static void offers_text(const struct xvbd_disk_desc *d, char *buf,
			size_t len)
{
	size_t k, n = 0;

	buf[0] = '\0';
	for (k = 0; k < XVBD_OVR_NKEYS && n < len; k++)
		if (d->offer_kv[k][0])
			n += (size_t)snprintf(buf + n, len - n, "%s%s",
					      n ? "," : "", d->offer_kv[k]);
}

/*
 * Per disk: "applied", "not applied: why", "written, not verified",
 * "not written" (another disk failed first), or "" (no offers).
 */
static void verdict(const struct attach *at, size_t i, char *buf,
		    size_t len)
{
	buf[0] = '\0';
	if (!at->items[i].ovr.n)
		return;
	if (!at->ovr_why[0] && !at->ovr_verified) {
		snprintf(buf, len, "%s", at->ovr_written ?
			 "written, not verified" : "not written");
		return;
	}
	xvbd_ovr_run_verdict(at->devs, at->n, &at->devs[i], buf, len);
}

/* What each disk is (planned with -N, or added): its handle. */
static void fill_handles(struct attach *at, struct xvbd_disk_handle *hs)
{
	size_t i;

	for (i = 0; i < at->n; i++) {
		const struct item *it = &at->items[i];
		struct xvbd_disk_handle *h = &hs[i];
		char *phys = NULL;

		memset(h, 0, sizeof(*h));
		h->domid = at->dom->domid;
		memcpy(h->dom_uuid, at->dom->uuid, sizeof(h->dom_uuid));
		snprintf(h->domain, sizeof(h->domain), "%s", at->dom->name);
		snprintf(h->vdev, sizeof(h->vdev), "%s", it->vdev);
		h->devid = it->devid;
		h->kind = it->desc->kind;
		snprintf(h->target, sizeof(h->target), "%s", it->target);
		h->readwrite = it->readwrite;
		h->added = it->added;
		h->size_known = it->size_known;
		h->size_bytes = it->size_bytes;
		h->created = it->created;
		snprintf(h->script, sizeof(h->script), "%s",
			 it->hotplug ? it->hotplug : "");
		h->cache = it->cache;
		h->action = it->action;
		offers_text(it->desc, h->offers, sizeof(h->offers));
		verdict(at, i, h->overrides, sizeof(h->overrides));
		h->bstate = it->bstate;
		h->fstate = it->fstate;
		if (it->desc->kind == XVBD_DISK_SHARE) {
			snprintf(h->share, sizeof(h->share), "%s",
				 it->desc->url.source);
			snprintf(h->share_name, sizeof(h->share_name), "%s",
				 it->desc->url.name);
		}
		if (!it->added || !it->backend_path)
			continue;
		snprintf(h->backend_path, sizeof(h->backend_path), "%s",
			 it->backend_path);
		/* The loop the hotplug script bound: what detach checks is
		 * gone, and nothing else. */
		phys = xvbd_xs_read_dir_key(at->env->xs, it->backend_path,
					    "physical-device");
		h->have_loop = disk_loop_of(phys, &h->loop);
		free(phys);
	}
}

/* -v: where the time went (hot-attach speed is what xvbd is for). */
static void say_timing(const struct attach *at)
{
	char connected[64] = "";

	if (at->t_connected)
		snprintf(connected, sizeof(connected), ", Connected %.1f s "
			 "later", (at->t_connected - at->t_added) / 1000.0);
	xvbd_report_say(at->rep, XVBD_SAY_VERBOSE, "timing", "plan %.1f s, "
			"add (libxl and hotplug scripts, %zu disks, --jobs "
			"%u) %.1f s%s", (at->t_planned - at->t_start) / 1000.0,
			at->n, at->opts->jobs,
			(at->t_added - at->t_planned) / 1000.0, connected);
}

/* Steps 2-4; the domain lock is released once the disks are added. */
static int add_all(struct attach *at)
{
	int rc, err;

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
	if (at->dom_locked_here)
		xvbd_disk_unlock(at->dom);
	at->dom_locked_here = false;
	return rc;
}

static int attach_run(struct attach *at, struct xvbd_disk_attach_result *res)
{
	int rc, err;

	if (at->dom->domid == 0) {
		xvbd_report_err(at->rep, "domain", "dom0 gets no VBDs from xvbd");
		return XVBD_EXIT_USAGE;
	}
	/* The vdev choice and the add, one step for xvbd callers. */
	if (!at->opts->dry_run && at->dom->lock_fd < 0) {
		rc = xvbd_disk_lock(at->env, at->dom, at->opts->timeout_s,
				    at->opts->tell);
		if (rc)
			return rc;
		at->dom_locked_here = true;
	}
	at->t_start = xvbd_now_ms();
	rc = plan_items(at);
	if (!rc)
		rc = plan_overrides(at);
	if (at->opts->dry_run)
		return rc ? rc : dry_run_items(at);
	if (!rc)
		rc = add_all(at);
	res->interrupted = at->interrupted;
	if (at->interrupted)
		return rc;
	res->waited = at->opts->wait && !at->was_paused;
	if (res->waited) {
		err = wait_items(at);
		at->t_connected = xvbd_now_ms();
		if (!rc)
			rc = err;
	} else if (find_backends(at) && !rc) {
		xvbd_report_err(at->rep, NULL, "%s", strerror(ENOMEM));
		rc = XVBD_EXIT_FAIL;
	}
	if (!rc)
		rc = verify_overrides(at);
	say_timing(at);
	return rc;
}

int xvbd_disk_attach(const struct xvbd_disk_env *env,
		     struct xvbd_disk_dom *dom,
		     const struct xvbd_disk_desc *descs, size_t n,
		     const struct xvbd_disk_attach_opts *opts,
		     struct xvbd_disk_handle *handles,
		     struct xvbd_disk_attach_result *res)
{
	struct attach *at = calloc(1, sizeof(*at));
	size_t i;
	int rc;

	memset(res, 0, sizeof(*res));
	memset(handles, 0, n * sizeof(*handles));
	if (!at) {
		xvbd_report_err(env->rep, NULL, "%s", strerror(ENOMEM));
		return XVBD_EXIT_FAIL;
	}
	at->env = env;
	at->rep = env->rep;
	at->dom = dom;
	at->opts = opts;
	at->n = n;
	at->lock_fd = -1;
	at->installed[0] = at->installed[1] = -1;
	rc = make_items(at, descs);
	if (!rc)
		rc = attach_run(at, res);
	res->have_offers = at->have_ovr;
	if (at->items)
		fill_handles(at, handles);
	xvbd_share_unlock(at->lock_fd);
	if (at->dom_locked_here)
		xvbd_disk_unlock(at->dom);
	free(at->devids_before);
	for (i = 0; at->items && i < at->n; i++) {
		xvbd_tstack_disk_free(at->items[i].disk);
		free(at->items[i].backend_path);
	}
	if (at->devs)
		xvbd_ovr_run_free(at->devs, at->n);
	xvbd_tstack_disks_free(at->disks, at->ndisks);
	free(at->items);
	free(at->devs);
	free(at);
	return rc;
}
