/*
 * disk_detach.c - remove the disk a handle names (xvbd/disk/disk.h):
 * exactly that one (the domain it was attached to, its backend, its
 * target, its loop device), then its share's mount when it was the
 * share's last disk; and, when asked, what is left of it afterwards,
 * from xenstore and that loop device alone.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "xvbd/base/journal.h"
#include "xvbd/base/lock.h"
#include "xvbd/base/sig.h"
#include "xvbd/dom0/loop.h"
#include "xvbd/xen/xs.h"
#include "disk_impl.h"

/* How often the leftovers are looked at while they go. */
#define GONE_STEP_US	100000

/* The same binding of the same loop device (and file)? */
static bool same_loop(const struct xvbd_disk_loop *a,
		      const struct xvbd_disk_loop *b)
{
	if (a->nr != b->nr || a->major != b->major || a->minor != b->minor ||
	    a->file_major != b->file_major || a->file_minor != b->file_minor ||
	    a->file_ino != b->file_ino)
		return false;
	/* The same file bound again (losetup, another guest's disk) has
	 * another sequence number where the kernel keeps one. */
	return !a->diskseq || !b->diskseq || a->diskseq == b->diskseq;
}

/* The handle's loop device still bound as it was: 1, not: 0. */
static int loop_still_bound(const struct xvbd_disk_handle *h)
{
	struct xvbd_disk_loop now;
	struct xvbd_loop lo;

	if (!h->have_loop || xvbd_loop_status(h->loop.nr, &lo))
		return 0;
	disk_loop_from(&lo, &now);
	return same_loop(&h->loop, &now);
}

/*
 * Is the disk at h's devid now the one h names?  The domain (a domid is
 * reused), libxl's backend, the target, and the loop device behind it.
 * 0: it is; 1: another (why says what is there); -ENOENT: no disk there.
 */
static int check_same(const struct xvbd_disk_env *env,
		      const struct xvbd_disk_handle *h,
		      struct xvbd_disk_handle *now, char *why, size_t len)
{
	struct xvbd_disk_dom dom = { .domid = h->domid, .lock_fd = -1 };
	struct xvbd_dominfo info;
	int err;

	err = xvbd_tstack_domain_info(env->ts, h->domid, &info);
	if (err)
		return err == -ENOENT ? -ENOENT : err;
	if (memcmp(info.uuid, h->dom_uuid, sizeof(info.uuid))) {
		snprintf(why, len, "domain %u is not %s any more (another "
			 "guest got its id)", h->domid, h->domain);
		return 1;
	}
	memcpy(dom.uuid, info.uuid, sizeof(dom.uuid));
	snprintf(dom.name, sizeof(dom.name), "%s", h->domain);
	err = xvbd_disk_find(env, &dom, h->devid, now);
	if (err)
		return err;
	if (strcmp(now->backend_path, h->backend_path) ||
	    strcmp(now->target, h->target)) {
		snprintf(why, len, "%s of %s is another disk now (target %s)",
			 h->vdev, h->domain, now->target[0] ? now->target :
			 "none");
		return 1;
	}
	if (h->have_loop && (!now->have_loop ||
			     !same_loop(&h->loop, &now->loop))) {
		snprintf(why, len, "%s of %s has another loop device behind "
			 "it now", h->vdev, h->domain);
		return 1;
	}
	return 0;
}

/*
 * After the disk is gone: unmount its share if no disk of any domain
 * uses it any more.  Called with the share lock held.  1 unmounted, 0 not,
 * -1 failed (reported).  dry_run: the disk is still there, so it is the
 * share's last user when it is the only one; nothing is unmounted, 1 says
 * it would be.
 */
static int release_share(const struct xvbd_disk_env *env, const char *name,
			 bool dry_run)
{
	char point[XVBD_PATH_MAX], why[512];
	size_t users = 0;
	int err;

	snprintf(point, sizeof(point), "%s/%s", XVBD_SHARE_DIR, name);
	err = xvbd_tstack_targets_under(env->ts, point, &users);
	if (err) {
		xvbd_report_err(env->rep, point, "cannot count its users: %s",
				strerror(-err));
		return -1;
	}
	if (dry_run)
		return users <= 1;
	if (users)
		return 0;
	err = xvbd_share_umount(name, why, sizeof(why));
	if (err) {
		xvbd_report_err(env->rep, point, "cannot unmount: %s",
				why[0] ? why : strerror(-err));
		return -1;
	}
	return 1;
}

static int share_lock(const struct xvbd_disk_env *env, int *fd)
{
	*fd = xvbd_share_lock_cb(XVBD_LOCK_WAIT_S, disk_waiting, env->rep);
	if (*fd == -EINTR)
		xvbd_report_err(env->rep, "interrupted", "by %s while waiting "
				"for the lock of %s: nothing removed",
				xvbd_sig_name(xvbd_interrupted()),
				XVBD_SHARE_DIR);
	else if (*fd == -ETIMEDOUT)
		xvbd_report_err(env->rep, XVBD_SHARE_DIR, "another xvbd attach "
				"or detach held its lock for %u s; nothing "
				"removed", XVBD_LOCK_WAIT_S);
	else if (*fd < 0)
		xvbd_report_err(env->rep, XVBD_SHARE_DIR, "cannot lock: %s",
				strerror(-*fd));
	return *fd < 0 ? XVBD_EXIT_FAIL : 0;
}

/* What is still there of h: "" when nothing. */
static void leftover(const struct xvbd_disk_env *env,
		     const struct xvbd_disk_handle *h, char *what, size_t len)
{
	char *paths[3], *v;
	int i;

	what[0] = '\0';
	paths[0] = h->backend_path[0] ? strdup(h->backend_path) : NULL;
	paths[1] = xvbd_xs_path_frontend_vbd(h->domid, h->devid);
	paths[2] = xvbd_xs_path_libxl_vbd(h->domid, h->devid);
	for (i = 0; i < 3; i++) {
		v = paths[i] ? xvbd_xs_read(env->xs, paths[i]) : NULL;
		if (v && !what[0])
			snprintf(what, len, "xenstore %s", paths[i]);
		free(v);
		free(paths[i]);
	}
	if (!what[0] && loop_still_bound(h))
		snprintf(what, len, "/dev/loop%u over its image", h->loop.nr);
}

static void wait_gone(const struct xvbd_disk_env *env,
		      const struct xvbd_disk_handle *h, unsigned timeout_ms,
		      char *what, size_t len)
{
	int64_t deadline = xvbd_now_ms() + timeout_ms;

	for (;;) {
		leftover(env, h, what, len);
		if (!what[0] || xvbd_now_ms() >= deadline)
			return;
		usleep(GONE_STEP_US);
	}
}

/* The removal itself, noted in the journal while it runs. */
static int remove_disk(const struct xvbd_disk_env *env,
		       const struct xvbd_disk_handle *h, bool force)
{
	int err;

	xvbd_journal_note(XVBD_J_DETACH, "%u %u %s %s", h->domid, h->devid,
			  h->vdev, h->domain);
	if (h->share_name[0])
		xvbd_journal_note(XVBD_J_MOUNT, "%s/%s", XVBD_SHARE_DIR,
				  h->share_name);
	err = xvbd_tstack_disk_remove(env->ts, h->domid, h->vdev, force);
	xvbd_journal_done(XVBD_J_DETACH, "%u %u %s %s", h->domid, h->devid,
			  h->vdev, h->domain);
	if (!err)
		return 0;
	xvbd_report_err(env->rep, h->vdev, "libxl could not remove it from "
			"domain %s%s", h->domain, err == -ENOENT ?
			": no such disk" : " (see libxl's messages above)");
	if (!force)
		xvbd_report_hint(env->rep, "--force tears it down without the "
				 "guest's cooperation");
	return XVBD_EXIT_FAIL;
}

int xvbd_disk_detach(const struct xvbd_disk_env *env,
		     const struct xvbd_disk_handle *h,
		     const struct xvbd_disk_detach_opts *opts,
		     struct xvbd_disk_detach_result *res)
{
	struct xvbd_disk_handle *now = calloc(1, sizeof(*now));
	char why[2 * XVBD_PATH_MAX];
	int rc = XVBD_EXIT_FAIL, err, lock_fd = -1, released = 0;

	memset(res, 0, sizeof(*res));
	if (!now) {
		xvbd_report_err(env->rep, NULL, "%s", strerror(ENOMEM));
		return XVBD_EXIT_FAIL;
	}
	err = check_same(env, h, now, why, sizeof(why));
	if (err == -ENOENT) {
		/* Gone already (the guest's domain, or the disk): nothing of
		 * it to remove; the caller says whether that is news. */
		res->was_gone = true;
		rc = 0;
		if (opts->gone_timeout_ms)
			wait_gone(env, h, opts->gone_timeout_ms, res->left,
				  sizeof(res->left));
		goto out;
	}
	if (err) {
		if (err > 0)
			xvbd_report_err(env->rep, h->vdev, "not removed: %s",
					why);
		else
			xvbd_report_err(env->rep, "disks", "domain %s: %s",
					h->domain, strerror(-err));
		goto out;
	}
	res->found = true;
	/* A dry run takes no lock: it changes nothing another detach or
	 * attach could race with, and reads what is there now. */
	if (h->share_name[0] && !opts->dry_run && share_lock(env, &lock_fd))
		goto out;
	xvbd_test_stop("detach-found");
	if (xvbd_interrupted()) {
		xvbd_report_err(env->rep, "interrupted", "by %s: nothing "
				"removed", xvbd_sig_name(xvbd_interrupted()));
		goto out;
	}
	/* From here a signal lets the removal (and the unmount) finish;
	 * a SIGKILL leaves it to the next run to name. */
	if (!opts->dry_run && remove_disk(env, h, opts->force))
		goto out;
	res->removed = !opts->dry_run;
	rc = 0;
	if (h->share_name[0]) {
		released = release_share(env, h->share_name, opts->dry_run);
		if (released < 0)
			rc = XVBD_EXIT_FAIL;
		res->share_unmounted = released > 0;
	}
	if (res->removed && opts->gone_timeout_ms)
		wait_gone(env, h, opts->gone_timeout_ms, res->left,
			  sizeof(res->left));
out:
	xvbd_share_unlock(lock_fd);
	free(now);
	return rc;
}
