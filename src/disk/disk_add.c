/*
 * disk_add.c - attach, steps 3-5 (disk_attach.c lists the steps): the
 * add (the guest paused around it when there are offers), the offers once
 * the backends are ready, the wait for Connected.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xvbd/base/journal.h"
#include "xvbd/base/sig.h"
#include "xvbd/xen/xs.h"
#include "disk_impl.h"

/* ---- 3. add ---- */

/*
 * With offers the guest must not run between blkback's probe and xvbd's
 * writes: blkfront reads the offer as soon as it sees InitWait.  Ctrl-C
 * is held from here to the unpause.  A guest paused by someone else stays
 * paused (and nobody waits for its frontends).
 */
int pause_guest(struct attach *at)
{
	const char *name = at->dom->name;
	struct xvbd_dominfo info;
	int err;

	err = xvbd_tstack_domain_info(at->env->ts, at->dom->domid, &info);
	if (err) {
		xvbd_report_err(at->rep, "domain", "%s: %s", name,
				err == -ENOENT ? "gone" : strerror(-err));
		return XVBD_EXIT_FAIL;
	}
	at->was_paused = info.paused;
	if (!at->have_ovr || at->was_paused)
		return 0;
	xvbd_sig_hold(&at->old_mask);
	xvbd_journal_note(XVBD_J_PAUSED, "%u %s", at->dom->domid, name);
	err = xvbd_tstack_pause(at->env->ts, at->dom->domid);
	if (err) {
		xvbd_sig_release(&at->old_mask);
		xvbd_report_err(at->rep, "pause", "domain %s: %s", name,
				strerror(-err));
		return XVBD_EXIT_FAIL;
	}
	at->paused_by_us = true;
	xvbd_report_say(at->rep, XVBD_SAY_NOTE, NULL, "domain %s paused while "
			"its new disks are set up", name);
	return 0;
}

/* Always called: undoes pause_guest, whatever happened in between. */
int resume_guest(struct attach *at)
{
	uint32_t domid = at->dom->domid;
	const char *name = at->dom->name;
	int err;

	if (!at->paused_by_us)
		return 0;
	err = xvbd_tstack_unpause(at->env->ts, domid);
	at->interrupted = xvbd_sig_held_pending();
	at->paused_by_us = false;
	if (!err)
		xvbd_journal_done(XVBD_J_PAUSED, "%u %s", domid, name);
	if (err) {
		xvbd_sig_release(&at->old_mask);
		xvbd_report_err(at->rep, "unpause", "domain %s (%u): %s", name,
				domid, strerror(-err));
		xvbd_report_hint(at->rep, "the guest is still paused: xl "
				 "unpause %u", domid);
		return XVBD_EXIT_FAIL;
	}
	xvbd_report_say(at->rep, XVBD_SAY_NOTE, NULL, "domain %s unpaused",
			name);
	if (at->interrupted) {
		/* The held signal is acted on by the caller, not delivered. */
		xvbd_report_err(at->rep, "interrupted", "domain %s is running; "
				"disks added, overrides %s, not verified",
				name, at->ovr_why[0] ? "not written" :
				"written");
		return XVBD_EXIT_FAIL;
	}
	xvbd_sig_release(&at->old_mask);
	return 0;
}

/*
 * Is the device at disk this call's own half-added one?  It was not
 * there when the vdevs were chosen, and libxl's record has this item's
 * target.  Anything else at the devid belongs to someone who got there
 * first (an `xl block-attach` takes no xvbd lock: libxl refuses the
 * second add of a devid, and that device must survive our cleanup).
 */
static bool ours(const struct attach *at, const struct item *it,
		 const struct xvbd_disk *disk)
{
	size_t i;

	for (i = 0; i < at->ndevids_before; i++)
		if (at->devids_before[i] == disk->devid)
			return false;
	return !strcmp(disk->target ? disk->target : "", it->target);
}

/*
 * A failed add can leave its device behind (libxl gives up on a hotplug
 * script that outlives its timeout, and the script then finishes): tear
 * such devices down so that nothing half-added stays in xenstore; only
 * this call's (ours above), never another caller's disk at that devid.
 */
static void remove_leftovers(struct attach *at)
{
	struct xvbd_disk *disks = NULL;
	size_t nd = 0, i, k;

	if (xvbd_tstack_disks(at->env->ts, at->dom->domid, &disks, &nd))
		return;
	for (i = 0; i < at->n; i++) {
		struct item *it = &at->items[i];

		if (it->added)
			continue;
		for (k = 0; k < nd; k++) {
			if (disks[k].devid != it->devid)
				continue;
			if (!ours(at, it, &disks[k])) {
				xvbd_report_hint(at->rep, "%s is another "
						 "disk's (target %s), added "
						 "meanwhile: left alone",
						 disks[k].vdev,
						 disks[k].target ?
						 disks[k].target : "none");
				continue;
			}
			if (xvbd_tstack_disk_remove(at->env->ts,
						    at->dom->domid,
						    disks[k].vdev, true))
				xvbd_report_err(at->rep, it->vdev, "cannot "
						"remove the half-added device: "
						"see libxl's messages above");
		}
	}
	xvbd_tstack_disks_free(disks, nd);
}

int add_items(struct attach *at)
{
	struct xvbd_tstack_disk **disks = calloc(at->n, sizeof(*disks));
	int *errs = calloc(at->n, sizeof(*errs));
	size_t i;
	int rc = 0;

	if (!disks || !errs) {
		free(disks);
		free(errs);
		xvbd_report_err(at->rep, NULL, "%s", strerror(ENOMEM));
		return XVBD_EXIT_FAIL;
	}
	for (i = 0; i < at->n; i++)
		disks[i] = at->items[i].disk;
	xvbd_tstack_disks_add(at->env->ts, at->dom->domid, disks, at->n,
			      at->opts->jobs, errs);
	for (i = 0; i < at->n; i++) {
		struct item *it = &at->items[i];

		if (!errs[i]) {
			it->added = true;
			continue;
		}
		item_err(at, it, "libxl could not add %s to domain %s (see "
			 "libxl's messages above)", it->vdev, at->dom->name);
		rc = XVBD_EXIT_FAIL;
	}
	free(disks);
	free(errs);
	if (rc)
		remove_leftovers(at);
	return rc;
}

/*
 * Ctrl-C, SIGTERM or SIGHUP before the disks were in the guest (the add
 * itself finishes: libxl and the hotplug scripts are not cut off half-way):
 * this call's disks are removed again, and cleanup_items then removes the
 * images it created and the mounts nobody uses, so that the host is as it
 * was.  In the paused window (offers) the signal is held instead, and
 * resume_guest reports it with the disks kept.
 */
int undo_if_interrupted(struct attach *at)
{
	int sig = xvbd_interrupted();
	size_t i, removed = 0, kept = 0;

	if (!sig || at->paused_by_us)
		return 0;
	at->interrupted = true;
	for (i = 0; i < at->n; i++) {
		struct item *it = &at->items[i];

		if (!it->added)
			continue;
		if (xvbd_tstack_disk_remove(at->env->ts, at->dom->domid,
					    it->vdev, true)) {
			item_err(at, it, "cannot remove %s again (see libxl's "
				 "messages above)", it->vdev);
			xvbd_report_hint(at->rep, "xvbd detach --force %s %s",
					 at->dom->name, it->vdev);
			kept++;
			continue;
		}
		it->added = false;
		removed++;
	}
	xvbd_report_err(at->rep, "interrupted", "by %s: %s",
			xvbd_sig_name(sig), kept ? "some disks could not be "
			"removed again" : removed ? "the disks added were "
			"removed again: nothing is left" : "nothing added, "
			"nothing is left");
	return XVBD_EXIT_FAIL;
}

/* ---- 4. backends ready ---- */

/*
 * Every added disk's backend has run its hotplug script (InitWait or
 * later) and the guest is paused: the offers, all disks in one
 * transaction.
 */
int backends_ready(struct attach *at)
{
	if (!at->have_ovr)
		return 0;
	xvbd_ovr_run_apply(at->env->ts, at->env->xs, at->dom->domid, at->devs,
			   at->n, &at->disks, &at->ndisks,
			   (int)at->opts->timeout_s * 1000, at->ovr_why,
			   sizeof(at->ovr_why));
	if (!at->ovr_why[0]) {
		at->ovr_written = true;
		return 0;
	}
	xvbd_report_err(at->rep, "overrides", "not written: %s", at->ovr_why);
	return XVBD_EXIT_FAIL;
}

/* ---- 5. wait for Connected ---- */

/*
 * Only the state key: this runs on every watch event of every disk, and
 * under TCG each xenstore round trip counts (a whole directory was ~30).
 */
static uint64_t read_state(struct xvbd_xs *xs, const char *dir)
{
	uint64_t state;

	if (!dir || xvbd_xs_read_dir_uint(xs, dir, "state", XVBD_STATE_MAX,
					  &state))
		return XVBD_STATE_UNKNOWN;
	return state;
}

struct wait_arg {
	struct item *it;
	const char *frontend;
};

static bool settled(struct xvbd_xs *xs, void *arg)
{
	struct wait_arg *w = arg;

	w->it->bstate = read_state(xs, w->it->backend_path);
	w->it->fstate = read_state(xs, w->frontend);
	if (w->it->bstate >= XVBD_STATE_CLOSING)
		return true;	/* failed: no point waiting */
	return w->it->bstate == XVBD_STATE_CONNECTED &&
	       w->it->fstate == XVBD_STATE_CONNECTED;
}

/*
 * The backend path from libxl's record (never the frontend's key), the
 * key libxl_device_disk_getinfo reads too, checked for shape; one read
 * per disk instead of listing every disk through libxl.
 */
int find_backends(struct attach *at)
{
	struct xvbd_xs_be_path be;
	size_t i;

	for (i = 0; i < at->n; i++) {
		struct item *it = &at->items[i];
		char *record, *path;

		if (!it->added || it->backend_path)
			continue;
		record = xvbd_xs_path_libxl_vbd(at->dom->domid, it->devid);
		if (!record)
			return -ENOMEM;
		path = xvbd_xs_read_dir_key(at->env->xs, record, "backend");
		free(record);
		if (path && (xvbd_xs_parse_backend_path(path, &be) ||
			     be.fe_domid != at->dom->domid ||
			     be.devid != it->devid)) {
			free(path);
			path = NULL;
		}
		it->backend_path = path;
	}
	return 0;
}

int wait_items(struct attach *at)
{
	int64_t deadline = xvbd_now_ms() +
			   (int64_t)at->opts->timeout_s * 1000;
	const char *name = at->dom->name;
	size_t i;
	int rc = 0;

	if (find_backends(at)) {
		xvbd_report_err(at->rep, "disks", "domain %s: cannot list",
				name);
		return XVBD_EXIT_FAIL;
	}
	for (i = 0; i < at->n; i++) {
		struct item *it = &at->items[i];
		struct wait_arg w = { it, NULL };
		int64_t left = deadline - xvbd_now_ms();
		int err;

		if (!it->added)
			continue;
		w.frontend = xvbd_xs_path_frontend_vbd(at->dom->domid,
						       it->devid);
		if (!w.frontend) {
			rc = XVBD_EXIT_FAIL;
			continue;
		}
		err = xvbd_xs_watch_wait(at->env->xs, w.frontend,
					 left > 0 ? (int)left : 0, settled, &w);
		free((char *)w.frontend);
		if (!err && it->bstate == XVBD_STATE_CONNECTED)
			continue;
		rc = XVBD_EXIT_FAIL;
		if (err == -EINTR) {
			/* Added and working on it: the guest keeps them. */
			at->interrupted = true;
			xvbd_report_err(at->rep, "interrupted", "by %s: the "
					"disks are added to domain %s, not "
					"waited for", xvbd_sig_name(
					xvbd_interrupted()), name);
			xvbd_report_hint(at->rep, "\"xvbd list %s\" shows "
					 "them; \"xvbd detach\" removes one",
					 name);
			break;
		}
		item_err(at, it, "%s attached but not connected%s: backend "
			 "%s, frontend %s", it->vdev, err == -ETIMEDOUT ?
			 " after --timeout" : "", xvbd_state_name(it->bstate),
			 xvbd_state_name(it->fstate));
		xvbd_report_hint(at->rep, "is blkfront loaded in the guest?  "
				 "\"xvbd show %s %s\" shows both sides; "
				 "\"xvbd detach\" removes it", name, it->vdev);
	}
	return rc;
}

/*
 * Both sides Connected: what did the frontends choose?  Without --wait,
 * or for a guest someone else keeps paused, nothing can be verified yet.
 */
int verify_overrides(struct attach *at)
{
	char verdict[320];
	size_t failed;

	if (!at->have_ovr || at->ovr_why[0])
		return 0;
	if (!at->opts->wait || at->was_paused) {
		xvbd_report_hint(at->rep, "overrides written, not verified "
				 "(%s): \"xvbd show %s VDEV\" shows what the "
				 "frontend chose", at->was_paused ?
				 "the guest is paused" : "--no-wait",
				 at->dom->name);
		return 0;
	}
	xvbd_ovr_run_verify(at->env->xs, at->dom->domid, at->devs, at->n,
			    (int)at->opts->timeout_s * 1000);
	at->ovr_verified = true;
	failed = xvbd_ovr_run_verdict(at->devs, at->n, NULL, verdict,
				      sizeof(verdict));
	if (!failed)
		return 0;
	xvbd_report_err(at->rep, at->dom->name, "%s", verdict);
	return XVBD_EXIT_FAIL;
}
