/*
 * vbd.c - gather one VBD: toolstack record + xenstore + blkif model.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "xvbd/dom0/loop.h"

#include "xvbd/vbd/vbd.h"

/*
 * Bounds for a directory snapshot.  The frontend side is guest-written:
 * a 16-queue, 16-page ring needs under 300 keys, so 1024 is generous.
 */
#define VBD_TREE_DEPTH	1
#define VBD_MAX_KEYS	1024

static void load_dir(struct xvbd_xs *xs, const char *path, const char *side,
		     struct xvbd_kvmap *map, struct xvbd_blkif_eval *ev)
{
	int rc = xvbd_xs_read_tree(xs, path, VBD_TREE_DEPTH, VBD_MAX_KEYS,
				   map);

	if (rc == 1)
		xvbd_blkif_warn(ev, "%s directory has more than %d keys: "
				"truncated", side, VBD_MAX_KEYS);
	else if (rc == -ENOENT)
		xvbd_blkif_warn(ev, "%s directory %s is missing", side, path);
	else if (rc < 0)
		xvbd_blkif_warn(ev, "%s directory %s: %s", side, path,
				strerror(-rc));
}

int xvbd_vbd_load(struct xvbd_xs *xs, uint32_t domid,
		  const struct xvbd_disk *disk, struct xvbd_vbd_view *view)
{
	struct xvbd_blkif_input in = { 0 };
	struct xvbd_blkif_eval pre = { 0 };
	struct xvbd_xs_be_path be;
	struct xvbd_sysfs *sys;
	char *error_path = NULL;
	const char *params;
	bool be_ok = false;
	size_t i;

	memset(view, 0, sizeof(*view));
	view->domid = domid;
	view->disk = disk;
	view->frontend_path = xvbd_xs_path_frontend_vbd(domid, disk->devid);
	if (!view->frontend_path)
		return -ENOMEM;

	/* The backend path is the toolstack's, checked for shape. */
	if (!disk->backend_path)
		xvbd_blkif_warn(&pre, "toolstack has no backend record");
	else if (xvbd_xs_parse_backend_path(disk->backend_path, &be) ||
		 be.fe_domid != domid || be.devid != disk->devid)
		xvbd_blkif_warn(&pre, "toolstack backend path %.80s does not "
				"match domain %u device %u",
				disk->backend_path, domid, disk->devid);
	else
		be_ok = true;

	if (be_ok) {
		load_dir(xs, disk->backend_path, "backend", &view->backend,
			 &pre);
		error_path = xvbd_xs_path_backend_error(&be);
		if (!error_path)
			return -ENOMEM;
		view->error_text = xvbd_xs_read(xs, error_path);
		free(error_path);
	}
	load_dir(xs, view->frontend_path, "frontend", &view->frontend, &pre);

	/*
	 * What the loop does, not what xvbd asked for at attach.  Never a
	 * stat of params: on a share whose server stopped answering it
	 * would hang list and show (the loop device says it all).
	 */
	sys = xvbd_sysfs_open(NULL);
	view->dom0_cache = xvbd_cache_of_device(sys,
		xvbd_kvmap_get(&view->backend, "physical-device"));
	xvbd_sysfs_close(sys);
	/*
	 * type=phy backed by a loop device: the hotplug script's file.
	 * Before the script ran (no physical-device yet), a params path
	 * outside /dev names a file: by its spelling, without a look.
	 */
	params = xvbd_kvmap_get(&view->backend, "params");
	if (!params)
		params = disk->target;
	view->kind = xvbd_be_kind(xvbd_kvmap_get(&view->backend, "type"),
				  xvbd_kvmap_get(&view->backend, "node"),
				  view->dom0_cache != XVBD_CACHE_NA ||
				  (params && params[0] == '/' &&
				   strncmp(params, "/dev/", 5)));

	in.backend = &view->backend;
	in.frontend = &view->frontend;
	in.error_text = view->error_text;
	xvbd_blkif_evaluate(&in, &view->eval);
	for (i = 0; i < pre.nwarnings; i++)
		xvbd_blkif_warn(&view->eval, "%s", pre.warnings[i]);
	return 0;
}

void xvbd_vbd_view_free(struct xvbd_vbd_view *view)
{
	free(view->frontend_path);
	free(view->error_text);
	xvbd_kvmap_free(&view->backend);
	xvbd_kvmap_free(&view->frontend);
	memset(view, 0, sizeof(*view));
}

/* The device a disk's backend uses: physical-device, else a /dev target. */
static bool disk_dev(struct xvbd_xs *xs, const struct xvbd_disk *disk,
		     unsigned *major_nr, unsigned *minor_nr)
{
	char *pd = disk->backend_path ?
		xvbd_xs_read_dir_key(xs, disk->backend_path,
				     "physical-device") : NULL;
	struct stat st;
	int rc = pd ? xvbd_sysfs_parse_devnum(pd, major_nr, minor_nr) : -1;

	free(pd);
	if (!rc)
		return true;
	/* Not published yet: only a device node is looked at (devtmpfs). */
	if (disk->target && !strncmp(disk->target, "/dev/", 5) &&
	    !stat(disk->target, &st) && S_ISBLK(st.st_mode)) {
		*major_nr = major(st.st_rdev);
		*minor_nr = minor(st.st_rdev);
		return true;
	}
	return false;
}

int xvbd_vbd_phy_user(struct xvbd_tstack *ts, struct xvbd_xs *xs,
		      unsigned major_nr, unsigned minor_nr,
		      struct xvbd_vbd_user *user)
{
	struct xvbd_sysfs *sys = xvbd_sysfs_open(NULL);
	struct xvbd_loop mine, other;
	uint32_t *domids = NULL;
	size_t ndom = 0, d, k;
	unsigned wma, wmi, oma, omi, owma, owmi;
	bool is_loop;
	int rc;

	if (!sys)
		return -errno;
	xvbd_sysfs_blk_whole(sys, major_nr, minor_nr, &wma, &wmi);
	is_loop = xvbd_loop_find_dev(major_nr, minor_nr, &mine);
	rc = xvbd_tstack_domains(ts, &domids, &ndom);
	for (d = 0; d < ndom && !rc; d++) {
		struct xvbd_disk *disks = NULL;
		size_t nd = 0;

		if (xvbd_tstack_disks(ts, domids[d], &disks, &nd))
			continue;
		for (k = 0; k < nd && !rc; k++) {
			const char *how = NULL;

			if (!disk_dev(xs, &disks[k], &oma, &omi))
				continue;
			xvbd_sysfs_blk_whole(sys, oma, omi, &owma, &owmi);
			if (oma == major_nr && omi == minor_nr)
				how = "";
			else if (owma == major_nr && owmi == minor_nr)
				how = " (a partition of this disk)";
			else if (wma == oma && wmi == omi)
				how = " (the disk this is a partition of)";
			else if (is_loop && xvbd_loop_find_dev(oma, omi, &other) &&
				 other.file_major == mine.file_major &&
				 other.file_minor == mine.file_minor &&
				 other.file_ino == mine.file_ino)
				how = " (a loop device of the same file)";
			if (!how)
				continue;
			user->domid = domids[d];
			snprintf(user->vdev, sizeof(user->vdev), "%s",
				 disks[k].vdev ? disks[k].vdev : "?");
			user->how = how;
			rc = 1;
		}
		xvbd_tstack_disks_free(disks, nd);
	}
	free(domids);
	xvbd_sysfs_close(sys);
	return rc;
}
