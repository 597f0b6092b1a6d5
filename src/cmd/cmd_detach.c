/*
 * cmd_detach.c - xvbd [-N] detach <Domain> <VDev> [--force]: remove a
 * disk from a guest; unmount the share its image lived on when it was the
 * last disk using it.  -N reports the same without changing anything.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "xvbd/xen/blkif.h"
#include "xvbd/cmd/cmd.h"
#include "xvbd/base/journal.h"
#include "xvbd/base/lock.h"
#include "xvbd/dom0/share.h"
#include "xvbd/base/sig.h"

#define CMD	"detach"

enum { O_FORCE };

const struct xvbd_cmdopt cmd_detach_opts[] = {
	[O_FORCE] = XVBD_OPT_F("force", 0, "remove the disk without the "
		"guest's cooperation (it may lose what it has not written)"),
	XVBD_OPT_END,
};

static const struct xvbd_out_label labels[] = {
	{ "domain", "DOMAIN" }, { "vdev", "VDEV" }, { "devid", "DEVID" },
	{ "target", "TARGET" }, { "forced", "FORCED" },
	{ "share_unmounted", "UNMOUNTED" }, { "dry_run", "DRY-RUN" },
	{ NULL, NULL },
};

/* -N: the same fields, said as what would happen. */
static const struct xvbd_out_label dry_labels[] = {
	{ "domain", "DOMAIN" }, { "vdev", "WOULD REMOVE" },
	{ "devid", "DEVID" }, { "target", "TARGET" }, { "forced", "FORCED" },
	{ "share_unmounted", "WOULD UNMOUNT" }, { "dry_run", "DRY-RUN" },
	{ NULL, NULL },
};

/*
 * After the disk is gone: unmount its share if no disk of any domain
 * uses it any more.  Called with the share lock held.  1 unmounted, 0 not,
 * -1 failed (reported).  dry_run: the disk is still there, so it is the
 * share's last user when it is the only one; nothing is unmounted, 1 says
 * it would be.
 */
static int release_share(struct xvbd_ctx *ctx, const char *name,
			 bool dry_run)
{
	char point[XVBD_PATH_MAX], why[512];
	size_t users = 0;
	int err;

	snprintf(point, sizeof(point), "%s/%s", XVBD_SHARE_DIR, name);
	err = xvbd_tstack_targets_under(ctx->ts, point, &users);
	if (err) {
		xvbd_err(CMD, point, "cannot count its users: %s",
			 strerror(-err));
		return -1;
	}
	if (dry_run)
		return users <= 1;
	if (users)
		return 0;
	err = xvbd_share_umount(name, why, sizeof(why));
	if (err) {
		xvbd_err(CMD, point, "cannot unmount: %s",
			 why[0] ? why : strerror(-err));
		return -1;
	}
	return 1;
}

int cmd_detach(struct xvbd_ctx *ctx, int argc, char **argv)
{
	struct xvbd_disk *disks = NULL, *disk = NULL;
	size_t ndisks = 0;
	const char *dom_spec, *vdev;
	char share[128];
	bool force = xvbd_opt(ctx, O_FORCE) != NULL, on_share;
	bool dry_run = ctx->opts->dry_run;
	uint32_t domid, devid;
	char *domain = NULL;
	int first = 0, rc = XVBD_EXIT_OK, err, lock_fd = -1, released = 0;

	if (argc - first != 2)
		return xvbd_usage_error(ctx->cmd, argc - first < 2 ?
					"missing arguments" :
					"too many arguments");
	dom_spec = argv[first];
	vdev = argv[first + 1];
	if (xvbd_vdev_parse(vdev, &devid)) {
		xvbd_err(CMD, "vdev", "\"%s\": not a virtual device name",
			 vdev);
		return XVBD_EXIT_USAGE;
	}
	rc = xvbd_cmd_connect(ctx);
	if (rc)
		return rc;
	rc = xvbd_cmd_domain_lookup(ctx, dom_spec, &domid, &domain);
	if (rc)
		return rc;
	err = xvbd_tstack_disk_find(ctx->ts, domid, devid, &disks, &ndisks,
				    &disk);
	if (err) {
		rc = xvbd_cmd_disk_error(ctx, err, vdev, domain);
		goto out;
	}
	on_share = xvbd_share_of_target(disk->target, share,
					sizeof(share)) == 1;
	/* A dry run takes no lock: it changes nothing another detach or
	 * attach could race with, and reads what is there now. */
	if (on_share && !dry_run) {
		lock_fd = xvbd_share_lock(CMD, XVBD_LOCK_WAIT_S,
					  !ctx->opts->quiet &&
					  isatty(STDERR_FILENO));
		if (lock_fd == -EINTR)
			xvbd_err(CMD, "interrupted", "by %s while waiting for "
				 "the lock of %s: nothing removed",
				 xvbd_sig_name(xvbd_interrupted()),
				 XVBD_SHARE_DIR);
		else if (lock_fd == -ETIMEDOUT)
			xvbd_err(CMD, XVBD_SHARE_DIR, "another xvbd attach or "
				 "detach held its lock for %u s; nothing "
				 "removed", XVBD_LOCK_WAIT_S);
		else if (lock_fd < 0)
			xvbd_err(CMD, XVBD_SHARE_DIR, "cannot lock: %s",
				 strerror(-lock_fd));
		if (lock_fd < 0) {
			rc = XVBD_EXIT_FAIL;
			goto out;
		}
	}
	xvbd_test_stop("detach-found");
	if (xvbd_interrupted()) {
		xvbd_err(CMD, "interrupted", "by %s: nothing removed",
			 xvbd_sig_name(xvbd_interrupted()));
		rc = XVBD_EXIT_FAIL;
		goto out;
	}
	/* From here a signal lets the removal (and the unmount) finish;
	 * a SIGKILL leaves it to the next run to name. */
	if (!dry_run) {
		xvbd_journal_note(XVBD_J_DETACH, "%u %u %s %s", domid, devid,
				  disk->vdev, domain);
		if (on_share)
			xvbd_journal_note(XVBD_J_MOUNT, "%s/%s",
					  XVBD_SHARE_DIR, share);
	}
	err = dry_run ? 0 :
	      xvbd_tstack_disk_remove(ctx->ts, domid, disk->vdev, force);
	if (!dry_run)
		xvbd_journal_done(XVBD_J_DETACH, "%u %u %s %s", domid, devid,
				  disk->vdev, domain);
	if (err) {
		xvbd_err(CMD, disk->vdev, "libxl could not remove it from "
			 "domain %s%s", domain, err == -ENOENT ?
			 ": no such disk" : " (see libxl's messages above)");
		if (!force && !ctx->opts->quiet)
			xvbd_hint("--force tears it down without the guest's "
				  "cooperation");
		rc = XVBD_EXIT_FAIL;
		goto out;
	}
	if (on_share) {
		released = release_share(ctx, share, dry_run);
		if (released < 0)
			rc = XVBD_EXIT_FAIL;
	}
	xvbd_out_labels(ctx->out, dry_run ? dry_labels : labels);
	xvbd_out_obj_begin(ctx->out, NULL);
	xvbd_out_str(ctx->out, "domain", domain);
	xvbd_out_str(ctx->out, "vdev", disk->vdev);
	xvbd_out_uint(ctx->out, "devid", disk->devid);
	xvbd_out_str(ctx->out, "target", disk->target);
	xvbd_out_bool(ctx->out, "forced", force);
	xvbd_out_bool(ctx->out, "share_unmounted", released > 0);
	xvbd_out_bool(ctx->out, "dry_run", dry_run);
	xvbd_out_obj_end(ctx->out);
	if (xvbd_interrupted()) {
		xvbd_err(CMD, "interrupted", "by %s: %s was removed all the "
			 "same%s", xvbd_sig_name(xvbd_interrupted()),
			 disk->vdev, released > 0 ? " (its share unmounted)" :
			 "");
		/* What was done is still told: cmd.c ends the document
		 * (under --json with the failure). */
		rc = XVBD_EXIT_FAIL;
	}
out:
	xvbd_share_unlock(lock_fd);
	xvbd_tstack_disks_free(disks, ndisks);
	free(domain);
	return rc;
}
