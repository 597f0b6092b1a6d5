/*
 * disk_prepare.c - attach, step 2 (disk_attach.c lists the steps): the
 * side effects before libxl (share mounts, image files, the hotplug
 * script), their undoing (cleanup_items), and -N (dry_run_items).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "xvbd/base/sig.h"
#include "xvbd/dom0/image.h"
#include "xvbd/dom0/loop.h"
#include "xvbd/dom0/sysfs.h"
#include "xvbd/vbd/attach_script.h"
#include "xvbd/vbd/vbd.h"
#include "disk_impl.h"

/* credentials: a root-owned regular file nobody else can read (not a
 * symbolic link to one); its path was checked with the description. */
static int check_credentials(struct attach *at, const struct item *it)
{
	const char *path = it->desc->credentials;
	struct stat st;

	/* lstat: a link could be re-pointed before the mount helper
	 * reads it. */
	if (lstat(path, &st)) {
		item_err(at, it, "--credentials %s: %s", path,
			 strerror(errno));
		return XVBD_EXIT_FAIL;
	}
	if (!S_ISREG(st.st_mode) || st.st_uid != 0 || (st.st_mode & 077)) {
		item_err(at, it, "--credentials %s: must be a regular file "
			 "owned by root with mode 0600", path);
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
		xvbd_xs_read_dir_key(at->env->xs, disk->backend_path,
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

	if (xvbd_tstack_domains(at->env->ts, &domids, &ndom)) {
		item_err(at, it, "cannot list domains");
		return XVBD_EXIT_FAIL;
	}
	for (d = 0; d < ndom && !rc; d++) {
		struct xvbd_disk *disks = NULL;
		size_t nd = 0;

		if (xvbd_tstack_disks(at->env->ts, domids[d], &disks, &nd))
			continue;
		for (k = 0; k < nd && !rc; k++) {
			if ((!it->readwrite && !disks[k].readwrite) ||
			    !disk_uses(at, it, &disks[k], st))
				continue;
			item_err(at, it, "in use: already attached to domain "
				 "%u as %s%s", domids[d], disks[k].vdev,
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
		item_err(at, it, "%s", strerror(errno));
		return XVBD_EXIT_FAIL;
	}
	if (!S_ISBLK(st.st_mode)) {
		item_err(at, it, "not a block device");
		xvbd_report_hint(at->rep, "use --file for image files");
		return XVBD_EXIT_FAIL;
	}
	if (xvbd_mount_find_dev(major(st.st_rdev), minor(st.st_rdev), where,
				sizeof(where)) == 1) {
		item_err(at, it, "mounted in dom0 on %s", where);
		return XVBD_EXIT_FAIL;
	}
	rc = check_in_use(at, it, &st);
	if (rc)
		return rc;
	/* Overlaps count too: a partition of a disk in use, a loop of the
	 * same file (vbd.c, from what backends published: no stat). */
	rc = xvbd_vbd_phy_user(at->env->ts, at->env->xs, major(st.st_rdev),
			       minor(st.st_rdev), &user);
	if (rc < 0) {
		item_err(at, it, "cannot list the guests' disks: %s",
			 strerror(-rc));
		return XVBD_EXIT_FAIL;
	}
	if (rc > 0) {
		item_err(at, it, "already attached to domain %u as %s%s",
			 user.domid, user.vdev, user.how);
		return XVBD_EXIT_FAIL;
	}
	/* Held by anything else (a mounted partition of this disk, LVM,
	 * a loop device): the kernel refuses an exclusive open. */
	fd = open(it->target, O_RDONLY | O_EXCL | O_CLOEXEC);
	if (fd < 0) {
		item_err(at, it, "in use in dom0: %s", strerror(errno));
		return XVBD_EXIT_FAIL;
	}
	close(fd);
	return 0;
}

static int prepare_image(struct attach *at, struct item *it)
{
	const struct xvbd_disk_desc *d = it->desc;
	char why[WHY_MAX];
	int fd;

	if (xvbd_image_prepare(it->target, d->have_size, d->size_bytes,
			       d->prealloc, &it->created, &it->size_bytes,
			       why, sizeof(why))) {
		item_err(at, it, "%s", why);
		return XVBD_EXIT_FAIL;
	}
	it->size_known = true;
	/* A read-only share or file must not be attached writable: the
	 * block script would quietly fall back to a read-only loop. */
	if (it->readwrite) {
		fd = xvbd_image_open(it->target, O_RDWR, NULL, why,
				     sizeof(why));
		if (fd < 0) {
			item_err(at, it, "not writable (%s)%s", strerror(-fd),
				 d->kind == XVBD_DISK_SHARE ?
				 ": a read-only share?" : "");
			xvbd_report_hint(at->rep, "attach it with --access ro");
			return XVBD_EXIT_FAIL;
		}
		close(fd);
	}
	return 0;
}

/*
 * What a share needs before it is mounted, none of it a side effect: the
 * credentials file and the mount options.
 */
static int check_share(struct attach *at, struct item *it, char *opts,
		       size_t opts_len)
{
	const struct xvbd_disk_desc *d = it->desc;
	int err;

	/* Refused before anything is mounted (attach_script.h says why). */
	if (!xvbd_script_installed(d->cache, INSTALLED(at, d->cache))) {
		item_err(at, it, "a share's image needs %s, which is not "
			 "installed (Xen's block script follows links and "
			 "device nodes on the share)",
			 xvbd_script_path(d->cache));
		xvbd_report_hint(at->rep, "make install puts it there");
		return XVBD_EXIT_FAIL;
	}
	if (d->url.proto == XVBD_SHARE_SMB) {
		err = check_credentials(at, it);
		if (err)
			return err;
	}
	if (xvbd_share_build_opts(d->url.proto, d->share_opts,
				  d->credentials[0] ? d->credentials : NULL,
				  opts, opts_len)) {
		item_err(at, it, "mount options too long");
		return XVBD_EXIT_USAGE;
	}
	return 0;
}

static int mount_share(struct attach *at, struct item *it)
{
	char opts[MOUNT_OPTS_MAX], why[WHY_MAX];
	unsigned timeout_s = at->opts->timeout_s;
	int err;

	err = check_share(at, it, opts, sizeof(opts));
	if (err)
		return err;
	if (at->lock_fd < 0) {
		at->lock_fd = xvbd_share_lock_cb(timeout_s, at->opts->tell ?
						 disk_waiting : NULL, at->rep);
		/* Ctrl-C while waiting: undo_if_interrupted says it, once. */
		if (at->lock_fd == -EINTR)
			return XVBD_EXIT_FAIL;
		if (at->lock_fd == -ETIMEDOUT) {
			item_err(at, it, "%s: another xvbd attach or detach "
				 "held its lock for %u s; nothing is mounted",
				 XVBD_SHARE_DIR, timeout_s);
			return XVBD_EXIT_FAIL;
		}
		if (at->lock_fd < 0) {
			item_err(at, it, "lock %s: %s", XVBD_SHARE_DIR,
				 strerror(-at->lock_fd));
			return XVBD_EXIT_FAIL;
		}
	}
	err = xvbd_share_mount(&it->desc->url, opts, MOUNT_TIMEOUT_MS,
			       &(bool){ false }, why, sizeof(why));
	if (err) {
		item_err(at, it, "mount %s: %s", it->desc->url.source,
			 why[0] ? why : strerror(-err));
		return XVBD_EXIT_FAIL;
	}
	/* Reused or not, cleanup_items decides by the disks using it. */
	it->mounted_now = true;
	return 0;
}

/* The xl spec of a shorthand; target= last (it takes the rest). */
static int build_spec(struct attach *at, struct item *it)
{
	char spec[SPEC_MAX], why[WHY_MAX];
	int n, err;

	n = snprintf(spec, sizeof(spec), "format=raw,vdev=%s,access=%s,"
		     "target=%s", it->vdev, it->readwrite ? "rw" : "ro",
		     it->target);
	if (n < 0 || (size_t)n >= sizeof(spec)) {
		item_err(at, it, "disk spec too long");
		return XVBD_EXIT_FAIL;
	}
	err = xvbd_tstack_disk_parse(spec, &it->disk, why, sizeof(why));
	if (err) {
		item_err(at, it, "%s", why);
		return XVBD_EXIT_FAIL;
	}
	return 0;
}

/* A spec the user wrote, read by libxlutil again (described already). */
static int parse_spec(struct attach *at, struct item *it)
{
	char why[WHY_MAX];

	if (xvbd_tstack_disk_parse(it->desc->arg, &it->disk, why,
				   sizeof(why))) {
		item_err(at, it, "%s", why);
		return XVBD_EXIT_FAIL;
	}
	if (it->auto_vdev && xvbd_tstack_disk_set_vdev(it->disk, it->vdev)) {
		item_err(at, it, "%s", strerror(ENOMEM));
		return XVBD_EXIT_FAIL;
	}
	return 0;
}

/* The hotplug script (xvbd/vbd/attach_script.h says which), on the disk. */
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
	if (xvbd_script_choose(&info, file, it->desc->cache,
			       INSTALLED(at, it->desc->cache),
			       &ch, why, sizeof(why), &hint)) {
		item_err(at, it, "%s", why);
		if (hint)
			xvbd_report_hint(at->rep, "%s", hint);
		return XVBD_EXIT_FAIL;
	}
	/* check_share's rule, whatever happened since */
	if (it->desc->kind == XVBD_DISK_SHARE && !ch.ours) {
		item_err(at, it, "a share's image gets no hotplug script but "
			 "%s", xvbd_script_path(it->desc->cache));
		return XVBD_EXIT_FAIL;
	}
	if (ch.ours && xvbd_tstack_disk_set_script(it->disk, ch.script)) {
		item_err(at, it, "%s", strerror(ENOMEM));
		return XVBD_EXIT_FAIL;
	}
	it->hotplug = ch.script;
	it->cache = ch.cache;
	xvbd_report_say(at->rep, XVBD_SAY_VERBOSE, it->vdev, "hotplug script "
			"%s%s", it->hotplug, ch.ours || info.script ? "" :
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
		item_err(at, it, "target %s: %s", it->target, strerror(errno));
		return XVBD_EXIT_FAIL;
	}
	rc = check_target_free(at, it);
	if (!rc)
		rc = parse_spec(at, it);
	return rc;
}

static bool is_image(const struct item *it)
{
	return it->desc->kind == XVBD_DISK_FILE ||
	       it->desc->kind == XVBD_DISK_SHARE;
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
		switch (it->desc->kind) {
		case XVBD_DISK_FILE:
			rc = check_target_free(at, it);
			if (!rc)
				rc = prepare_image(at, it);
			break;
		case XVBD_DISK_PHY:
			rc = check_phy(at, it);
			break;
		case XVBD_DISK_SHARE:
			rc = mount_share(at, it);
			if (!rc)
				rc = check_target_free(at, it);
			if (!rc)
				rc = prepare_image(at, it);
			break;
		default:
			rc = prepare_spec(at, it);
		}
		if (!rc && it->desc->kind != XVBD_DISK_SPEC)
			rc = build_spec(at, it);
		/* A file checked by image.c: never re-looked at by path. */
		if (!rc)
			rc = choose_script(at, it, is_image(it));
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
	const struct xvbd_disk_desc *d = it->desc;
	enum xvbd_image_action act;
	char why[WHY_MAX], opts[MOUNT_OPTS_MAX];
	int rc;

	switch (d->kind) {
	case XVBD_DISK_FILE:
		if (xvbd_image_check(it->target, d->have_size, d->size_bytes,
				     &act, &it->size_bytes, why,
				     sizeof(why))) {
			item_err(at, it, "%s", why);
			return XVBD_EXIT_FAIL;
		}
		it->size_known = true;
		rc = check_target_free(at, it);
		if (rc)
			return rc;
		it->action = act == XVBD_IMAGE_USE ? "add" : d->prealloc ?
			"create the image (allocated), add" :
			"create the image (sparse), add";
		rc = build_spec(at, it);
		break;
	case XVBD_DISK_PHY:
		it->action = "add";
		rc = check_phy(at, it);
		if (!rc)
			rc = build_spec(at, it);
		break;
	case XVBD_DISK_SHARE:
		it->action = "mount the share (or reuse its mount), create "
			"or use the image, add";
		rc = check_share(at, it, opts, sizeof(opts));
		if (rc)
			return rc;
		it->size_known = d->have_size;
		it->size_bytes = d->size_bytes;
		rc = build_spec(at, it);
		break;
	default:
		it->action = "add";
		rc = prepare_spec(at, it);
	}
	if (!rc)
		rc = choose_script(at, it, is_image(it));
	return rc;
}

int dry_run_items(struct attach *at)
{
	size_t i;
	int rc;

	for (i = 0; i < at->n; i++) {
		rc = dry_run_item(at, &at->items[i]);
		if (rc)
			return rc;
	}
	return 0;
}

/*
 * Undo what this call did for disks that were not added: image files it
 * created, share mounts nobody uses.
 */
void cleanup_items(struct attach *at)
{
	char name[128], why[WHY_MAX], point[XVBD_PATH_MAX];
	size_t i, users;
	int err;

	for (i = 0; i < at->n; i++) {
		struct item *it = &at->items[i];

		if (it->added) {
			if (it->created)
				xvbd_image_handed_over(it->target);
			continue;
		}
		err = it->created ? xvbd_image_remove(it->target) : 0;
		if (err && err != -ENOENT)
			xvbd_report_err(at->rep, it->target, "cannot remove "
					"the image this call created: %s",
					strerror(-err));
		it->created = false;
	}
	for (i = 0; i < at->n; i++) {
		struct item *it = &at->items[i];

		if (it->added || !it->mounted_now ||
		    xvbd_share_mountpoint(&it->desc->url, point,
					  sizeof(point)) ||
		    xvbd_tstack_targets_under(at->env->ts, point, &users) ||
		    users)
			continue;
		snprintf(name, sizeof(name), "%s", it->desc->url.name);
		if (xvbd_share_umount(name, why, sizeof(why)))
			xvbd_report_err(at->rep, point, "cannot unmount: %s",
					why);
	}
}
