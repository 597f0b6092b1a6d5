/*
 * attach_prepare.c - xvbd attach, step 3 (src/cmd_attach.c lists the steps):
 * side effects before libxl (share mounts, image files, the hotplug
 * script), their undoing (cleanup_items), and -N (dry_run).
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

#include "xvbd/vbd/attach_script.h"
#include "xvbd/vbd/vbd.h"
#include "xvbd/xen/blkif.h"
#include "xvbd/dom0/cache.h"
#include "xvbd/cmd/cmd.h"
#include "xvbd/dom0/image.h"
#include "xvbd/dom0/loop.h"
#include "xvbd/dom0/modparam.h"
#include "xvbd/vbd/override.h"
#include "xvbd/vbd/override_run.h"
#include "xvbd/dom0/share.h"
#include "xvbd/base/sig.h"
#include "xvbd/dom0/sysfs.h"
#include "attach_impl.h"

static const char *const kind_names[] = {
	[ITEM_SPEC] = "spec", [ITEM_FILE] = "file", [ITEM_PHY] = "phy",
	[ITEM_SHARE] = "share",
};

/* ---- 3. side effects before libxl ---- */

/* --credentials: a root-owned regular file nobody else can read (not a
 * symbolic link to one). */
static int check_credentials(const struct item *it, const char *path)
{
	const char *bad;
	struct stat st;

	if (xvbd_path_check(path, &bad)) {
		item_err(it, "--credentials %s: %s", path, bad);
		return XVBD_EXIT_USAGE;
	}
	/* lstat: a link could be re-pointed before the mount helper
	 * reads it. */
	if (lstat(path, &st)) {
		item_err(it, "--credentials %s: %s", path, strerror(errno));
		return XVBD_EXIT_FAIL;
	}
	if (!S_ISREG(st.st_mode) || st.st_uid != 0 || (st.st_mode & 077)) {
		item_err(it, "--credentials %s: must be a regular file owned "
			 "by root with mode 0600", path);
		return XVBD_EXIT_FAIL;
	}
	return 0;
}

/*
 * Does a domain's disk use the file or block device st describes?  From
 * what its backend published (physical-device, and the loop device's
 * backing inode), never a stat of its target: a share whose server died
 * would hang attach.
 */
static bool disk_uses(struct attach *at, const struct item *it,
		      const struct xvbd_disk *disk, const struct stat *st)
{
	struct xvbd_loop lo;
	unsigned major, minor;
	char *value;
	bool have;

	if (disk->target && !strcmp(disk->target, it->target))
		return true;
	value = disk->backend_path ?
		xvbd_xs_read_dir_key(at->ctx->xs, disk->backend_path,
				     "physical-device") : NULL;
	have = value && !xvbd_sysfs_parse_devnum(value, &major, &minor);
	free(value);
	if (!have)
		return false;
	/* A device: also the one the hotplug script put behind an image
	 * (its loop device), which blkback holds without excluding others. */
	if (S_ISBLK(st->st_mode))
		return major == major(st->st_rdev) && minor == minor(st->st_rdev);
	return xvbd_loop_find_dev(major, minor, &lo) && xvbd_loop_backs(&lo, st);
}

/*
 * A file or device another disk of any domain uses is refused unless
 * both are read-only (as Xen's block script shares them): two writers of
 * one image corrupt it.
 */
static int check_in_use(struct attach *at, const struct item *it,
			const struct stat *st)
{
	uint32_t *domids = NULL;
	size_t ndom = 0, d, k;
	int rc = 0;

	if (xvbd_tstack_domains(at->ctx->ts, &domids, &ndom)) {
		item_err(it, "cannot list domains");
		return XVBD_EXIT_FAIL;
	}
	for (d = 0; d < ndom && !rc; d++) {
		struct xvbd_disk *disks = NULL;
		size_t nd = 0;

		if (xvbd_tstack_disks(at->ctx->ts, domids[d], &disks, &nd))
			continue;
		for (k = 0; k < nd && !rc; k++) {
			if ((!it->readwrite && !disks[k].readwrite) ||
			    !disk_uses(at, it, &disks[k], st))
				continue;
			item_err(it, "in use: already attached to domain %u as "
				 "%s%s", domids[d], disks[k].vdev,
				 disks[k].readwrite ? "" : " (read-only)");
			rc = XVBD_EXIT_FAIL;
		}
		xvbd_tstack_disks_free(disks, nd);
	}
	free(domids);
	return rc;
}

/* An existing image or device target: not another disk's (above). */
static int check_target_free(struct attach *at, const struct item *it)
{
	struct stat st;

	if (!it->target[0] || it->script || stat(it->target, &st) ||
	    !(S_ISREG(st.st_mode) || S_ISBLK(st.st_mode)))
		return 0;	/* missing or odd: later checks say so */
	return check_in_use(at, it, &st);
}

/* A block device nobody uses: not mounted, not another guest's disk. */
static int check_phy(struct attach *at, const struct item *it)
{
	struct xvbd_vbd_user user;
	char where[XVBD_PATH_MAX];
	struct stat st;
	int fd, rc;

	if (stat(it->target, &st)) {
		item_err(it, "%s", strerror(errno));
		return XVBD_EXIT_FAIL;
	}
	if (!S_ISBLK(st.st_mode)) {
		item_err(it, "not a block device");
		if (!quiet(at))
			xvbd_hint("use --file for image files");
		return XVBD_EXIT_FAIL;
	}
	if (xvbd_mount_find_dev(major(st.st_rdev), minor(st.st_rdev), where,
				sizeof(where)) == 1) {
		item_err(it, "mounted in dom0 on %s", where);
		return XVBD_EXIT_FAIL;
	}
	rc = check_in_use(at, it, &st);
	if (rc)
		return rc;
	/* Overlaps count too: a partition of a disk in use, a loop of the
	 * same file (vbd.c, from what backends published: no stat). */
	rc = xvbd_vbd_phy_user(at->ctx->ts, at->ctx->xs, major(st.st_rdev),
			       minor(st.st_rdev), &user);
	if (rc < 0) {
		item_err(it, "cannot list the guests' disks: %s",
			 strerror(-rc));
		return XVBD_EXIT_FAIL;
	}
	if (rc > 0) {
		item_err(it, "already attached to domain %u as %s%s",
			 user.domid, user.vdev, user.how);
		return XVBD_EXIT_FAIL;
	}
	/* Held by anything else (a mounted partition of this disk, LVM,
	 * a loop device): the kernel refuses an exclusive open. */
	fd = open(it->target, O_RDONLY | O_EXCL | O_CLOEXEC);
	if (fd < 0) {
		item_err(it, "in use in dom0: %s", strerror(errno));
		return XVBD_EXIT_FAIL;
	}
	close(fd);
	return 0;
}

static int prepare_image(struct attach *at, struct item *it)
{
	const struct attach_args *a = &at->a;
	char why[WHY_MAX];
	int fd;

	if (xvbd_image_prepare(it->target, a->have_size, a->size_bytes,
			       a->prealloc, &it->created, &it->size_bytes,
			       why, sizeof(why))) {
		item_err(it, "%s", why);
		return XVBD_EXIT_FAIL;
	}
	it->size_known = true;
	/* A read-only share or file must not be attached writable: the
	 * block script would quietly fall back to a read-only loop. */
	if (it->readwrite) {
		fd = xvbd_image_open(it->target, O_RDWR, NULL, why,
				     sizeof(why));
		if (fd < 0) {
			item_err(it, "not writable (%s)%s", strerror(-fd),
				 it->kind == ITEM_SHARE ?
				 ": a read-only share?" : "");
			if (!quiet(at))
				xvbd_hint("attach it with --access ro");
			return XVBD_EXIT_FAIL;
		}
		close(fd);
	}
	return 0;
}

/*
 * What a share needs before it is mounted, none of it a side effect: the
 * credentials file, the mount options, and the image's path under xvbd's
 * mount point for the share (it->target).
 */
static int check_share(struct attach *at, struct item *it, char *opts,
		       size_t opts_len)
{
	char point[XVBD_PATH_MAX];
	int err, n;

	/* Refused before anything is mounted (attach_script.h says why). */
	if (!xvbd_script_installed(at->a.cache, &at->xvbd_block)) {
		item_err(it, "a share's image needs %s, which is not "
			 "installed (Xen's block script follows links and "
			 "device nodes on the share)",
			 xvbd_script_path(at->a.cache));
		if (!quiet(at))
			xvbd_hint("make install puts it there");
		return XVBD_EXIT_FAIL;
	}
	if (it->url.proto == XVBD_SHARE_SMB) {
		err = check_credentials(it, at->a.credentials);
		if (err)
			return err;
	}
	if (xvbd_share_build_opts(it->url.proto, at->a.share_opts,
				  at->a.credentials, opts, opts_len)) {
		item_err(it, "mount options too long");
		return XVBD_EXIT_USAGE;
	}
	n = xvbd_share_mountpoint(&it->url, point, sizeof(point)) ? -1 :
		snprintf(it->target, sizeof(it->target), "%s/%s", point,
			 it->url.image);
	if (n < 0 || (size_t)n >= sizeof(it->target)) {
		item_err(it, "image path too long");
		return XVBD_EXIT_FAIL;
	}
	return 0;
}

static int mount_share(struct attach *at, struct item *it)
{
	char opts[MOUNT_OPTS_MAX], why[WHY_MAX];
	int err;

	err = check_share(at, it, opts, sizeof(opts));
	if (err)
		return err;
	if (at->lock_fd < 0) {
		at->lock_fd = xvbd_share_lock(CMD, at->a.timeout_s,
					      !quiet(at) &&
					      isatty(STDERR_FILENO));
		/* Ctrl-C while waiting: undo_if_interrupted says it, once. */
		if (at->lock_fd == -EINTR)
			return XVBD_EXIT_FAIL;
		if (at->lock_fd == -ETIMEDOUT) {
			item_err(it, "%s: another xvbd attach or detach held "
				 "its lock for %u s; nothing is mounted",
				 XVBD_SHARE_DIR, at->a.timeout_s);
			return XVBD_EXIT_FAIL;
		}
		if (at->lock_fd < 0) {
			item_err(it, "lock %s: %s", XVBD_SHARE_DIR,
				 strerror(-at->lock_fd));
			return XVBD_EXIT_FAIL;
		}
	}
	err = xvbd_share_mount(&it->url, opts, MOUNT_TIMEOUT_MS,
			       &(bool){ false }, why, sizeof(why));
	if (err) {
		item_err(it, "mount %s: %s", it->url.source,
			 why[0] ? why : strerror(-err));
		return XVBD_EXIT_FAIL;
	}
	/* Reused or not, release_share decides by the disks using it. */
	it->mounted_now = true;
	return 0;
}

/* The xl spec of a shorthand; target= last (it takes the rest). */
static int build_spec(struct item *it)
{
	char spec[SPEC_MAX], why[WHY_MAX];
	int n, err;

	n = snprintf(spec, sizeof(spec), "format=raw,vdev=%s,access=%s,"
		     "target=%s", it->vdev, it->readwrite ? "rw" : "ro",
		     it->target);
	if (n < 0 || (size_t)n >= sizeof(spec)) {
		item_err(it, "disk spec too long");
		return XVBD_EXIT_FAIL;
	}
	err = xvbd_tstack_disk_parse(spec, &it->disk, why, sizeof(why));
	if (err) {
		item_err(it, "%s", why);
		return XVBD_EXIT_FAIL;
	}
	return 0;
}

/* The hotplug script (xvbd/attach_script.h says which), on the disk. */
static int choose_script(struct attach *at, struct item *it,
			 bool assume_file)
{
	struct xvbd_tstack_disk_info info;
	struct xvbd_script_choice ch;
	char why[WHY_MAX];
	const char *hint;
	struct stat st;
	bool file;

	xvbd_tstack_disk_describe(it->disk, &info);
	/* -N: an image that is still to be created (or mounted) will be a
	 * regular file, or the attach stops before the add. */
	file = assume_file || (info.target && !stat(info.target, &st) &&
			       S_ISREG(st.st_mode));
	if (xvbd_script_choose(&info, file, at->a.cache, &at->xvbd_block,
			       &ch, why, sizeof(why), &hint)) {
		item_err(it, "%s", why);
		if (hint && !quiet(at))
			xvbd_hint("%s", hint);
		return XVBD_EXIT_FAIL;
	}
	/* check_share's rule, whatever happened since */
	if (it->kind == ITEM_SHARE && !ch.ours) {
		item_err(it, "a share's image gets no hotplug script but %s",
			 xvbd_script_path(at->a.cache));
		return XVBD_EXIT_FAIL;
	}
	if (ch.ours && xvbd_tstack_disk_set_script(it->disk, ch.script)) {
		item_err(it, "%s", strerror(ENOMEM));
		return XVBD_EXIT_FAIL;
	}
	it->hotplug = ch.script;
	it->cache = ch.cache;
	if (at->ctx->opts->verbose)
		fprintf(stderr, "xvbd: attach: %s: hotplug script %s%s\n",
			it->vdev, it->hotplug, ch.ours || info.script ? "" :
			" (libxl's default)");
	return 0;
}

/*
 * Without a script the target must exist now: the block script's own
 * message would come later, after a half-made device.
 */
static int prepare_spec(struct attach *at, struct item *it)
{
	int rc;

	if (it->target[0] && !it->script && access(it->target, F_OK)) {
		item_err(it, "target %s: %s", it->target, strerror(errno));
		return XVBD_EXIT_FAIL;
	}
	rc = check_target_free(at, it);
	if (rc)
		return rc;
	if (it->auto_vdev && xvbd_tstack_disk_set_vdev(it->disk, it->vdev))
		return XVBD_EXIT_FAIL;
	return 0;
}

int prepare_items(struct attach *at)
{
	size_t i;
	int rc = 0;

	for (i = 0; i < at->n && !rc; i++) {
		struct item *it = &at->items[i];

		/* Ctrl-C: what was made so far is undone (cleanup_items). */
		if (xvbd_interrupted())
			return XVBD_EXIT_FAIL;
		switch (it->kind) {
		case ITEM_SPEC:
			rc = prepare_spec(at, it);
			break;
		case ITEM_FILE:
			rc = check_target_free(at, it);
			if (!rc)
				rc = prepare_image(at, it);
			if (!rc)
				rc = build_spec(it);
			break;
		case ITEM_PHY:
			rc = check_phy(at, it);
			if (!rc)
				rc = build_spec(it);
			break;
		case ITEM_SHARE:
			rc = mount_share(at, it);
			if (!rc)
				rc = check_target_free(at, it);
			if (!rc)
				rc = prepare_image(at, it);
			if (!rc)
				rc = build_spec(it);
			break;
		}
		/* A file checked by image.c: never re-looked at by path. */
		if (!rc)
			rc = choose_script(at, it, it->kind == ITEM_FILE ||
					   it->kind == ITEM_SHARE);
	}
	if (!rc && xvbd_interrupted())
		rc = XVBD_EXIT_FAIL;
	return rc;
}

/*
 * -N: every check that has no side effect (specs parsed, vdevs chosen,
 * images planned, partitions checked, the hotplug script chosen), and
 * what would be done; nothing is created, mounted or added.  A share's
 * image can only be looked at once it is mounted.
 */
static int dry_run_item(struct attach *at, struct item *it)
{
	const struct attach_args *a = &at->a;
	enum xvbd_image_action act;
	char why[WHY_MAX], opts[MOUNT_OPTS_MAX];
	int rc;

	switch (it->kind) {
	case ITEM_SPEC:
		it->action = "add";
		rc = prepare_spec(at, it);
		break;
	case ITEM_FILE:
		if (xvbd_image_check(it->target, a->have_size, a->size_bytes,
				     &act, &it->size_bytes, why,
				     sizeof(why))) {
			item_err(it, "%s", why);
			return XVBD_EXIT_FAIL;
		}
		it->size_known = true;
		rc = check_target_free(at, it);
		if (rc)
			return rc;
		it->action = act == XVBD_IMAGE_USE ? "add" : a->prealloc ?
			"create the image (allocated), add" :
			"create the image (sparse), add";
		rc = build_spec(it);
		break;
	case ITEM_PHY:
		it->action = "add";
		rc = check_phy(at, it);
		if (!rc)
			rc = build_spec(it);
		break;
	case ITEM_SHARE:
		it->action = "mount the share (or reuse its mount), create "
			"or use the image, add";
		rc = check_share(at, it, opts, sizeof(opts));
		if (rc)
			return rc;
		it->size_known = a->have_size;
		it->size_bytes = a->size_bytes;
		rc = build_spec(it);
		break;
	default:
		rc = XVBD_EXIT_FAIL;
	}
	if (!rc)
		rc = choose_script(at, it, it->kind == ITEM_FILE ||
				   it->kind == ITEM_SHARE);
	return rc;
}

/* The columns a disk's row starts with, planned (-N) or added. */
void render_disk(const struct attach *at, const struct item *it)
{
	struct xvbd_out *o = at->ctx->out;

	xvbd_out_str(o, "domain", at->domain);
	xvbd_out_str(o, "vdev", it->vdev);
	xvbd_out_uint(o, "devid", it->devid);
	xvbd_out_str(o, "kind", kind_names[it->kind]);
	xvbd_out_str(o, "target", it->target[0] ? it->target : NULL);
	xvbd_out_str(o, "access", it->readwrite ? "rw" : "ro");
	xvbd_out_size_opt(o, "size_bytes", it->size_known, it->size_bytes);
}

static const struct xvbd_out_label dry_labels[] = {
	{ "domain", "DOMAIN" }, { "vdev", "VDEV" }, { "devid", "DEVID" },
	{ "kind", "KIND" },
	{ "target", "TARGET" }, { "access", "ACCESS" },
	{ "size_bytes", "SIZE" }, { "script", "SCRIPT" },
	{ "cache", "CACHE" },
	{ "overrides", "OVERRIDES" }, { "action", "WOULD" },
	{ NULL, NULL },
};

int dry_run(struct attach *at)
{
	struct xvbd_out *o = at->ctx->out;
	char ovr[XVBD_OVR_NKEYS * 48];
	size_t i, k, len = 0;
	int rc;

	for (i = 0; i < at->n; i++) {
		rc = dry_run_item(at, &at->items[i]);
		if (rc)
			return rc;
	}
	ovr[0] = '\0';
	for (k = 0; k < XVBD_OVR_NKEYS; k++)
		if (at->a.ovr_kv[k][0] && len < sizeof(ovr))
			len += snprintf(ovr + len, sizeof(ovr) - len, "%s%s",
					len ? "," : "", at->a.ovr_kv[k]);
	xvbd_out_labels(o, dry_labels);
	xvbd_out_arr_begin(o, NULL);
	for (i = 0; i < at->n; i++) {
		const struct item *it = &at->items[i];

		xvbd_out_obj_begin(o, NULL);
		render_disk(at, it);
		xvbd_out_str(o, "script", it->hotplug);
		xvbd_out_str(o, "cache", xvbd_cache_name(it->cache));
		xvbd_out_str(o, "overrides", ovr[0] ? ovr : NULL);
		xvbd_out_str(o, "action", it->action);
		xvbd_out_obj_end(o);
	}
	xvbd_out_arr_end(o);
	return XVBD_EXIT_OK;
}

/*
 * Undo what this call did for disks that were not added: image files it
 * created, share mounts nobody uses.
 */
void cleanup_items(struct attach *at)
{
	size_t i, users;
	int err;
	char name[128], why[WHY_MAX];

	for (i = 0; i < at->n; i++) {
		struct item *it = &at->items[i];

		if (it->added) {
			if (it->created)
				xvbd_image_handed_over(it->target);
			continue;
		}
		err = it->created ? xvbd_image_remove(it->target) : 0;
		if (err && err != -ENOENT)
			xvbd_err(CMD, it->target, "cannot remove the image "
				 "this call created: %s", strerror(-err));
		it->created = false;
	}
	for (i = 0; i < at->n; i++) {
		struct item *it = &at->items[i];
		char point[XVBD_PATH_MAX];

		if (it->added || !it->mounted_now ||
		    xvbd_share_mountpoint(&it->url, point, sizeof(point)) ||
		    xvbd_tstack_targets_under(at->ctx->ts, point, &users) ||
		    users)
			continue;
		snprintf(name, sizeof(name), "%s", it->url.name);
		if (xvbd_share_umount(name, why, sizeof(why)))
			xvbd_err(CMD, point, "cannot unmount: %s", why);
	}
}
