/*
 * vbd.c - gather one VBD: toolstack record + xenstore + blkif model.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "xvbd/vbd.h"

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
