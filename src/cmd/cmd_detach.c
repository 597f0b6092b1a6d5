/*
 * cmd_detach.c - xvbd [-N] detach <Domain> <VDev> [--force]: remove a
 * disk from a guest; unmount the share its image lived on when it was the
 * last disk using it.  -N reports the same without changing anything.
 * The disk at VDev is found and removed by the disk layer
 * (xvbd/disk/disk.h: xvbd_disk_find, xvbd_disk_detach).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xvbd/base/sig.h"
#include "xvbd/cmd/cmd.h"
#include "xvbd/cmd/cmd_report.h"
#include "xvbd/disk/disk.h"
#include "xvbd/xen/blkif.h"

#define CMD	"detach"

static const struct option detach_options[] = {
	{ "force", no_argument, NULL, 'f' },
	{ NULL, 0, NULL, 0 },
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

static void render(struct xvbd_ctx *ctx, const struct xvbd_disk_handle *h,
		   bool force, const struct xvbd_disk_detach_result *res)
{
	xvbd_out_labels(ctx->out, ctx->opts->dry_run ? dry_labels : labels);
	xvbd_out_obj_begin(ctx->out, NULL);
	xvbd_out_str(ctx->out, "domain", h->domain);
	xvbd_out_str(ctx->out, "vdev", h->vdev);
	xvbd_out_uint(ctx->out, "devid", h->devid);
	xvbd_out_str(ctx->out, "target", h->target[0] ? h->target : NULL);
	xvbd_out_bool(ctx->out, "forced", force);
	xvbd_out_bool(ctx->out, "share_unmounted", res->share_unmounted);
	xvbd_out_bool(ctx->out, "dry_run", ctx->opts->dry_run);
	xvbd_out_obj_end(ctx->out);
}

int cmd_detach(struct xvbd_ctx *ctx, int argc, char **argv)
{
	struct xvbd_disk_detach_result res;
	struct xvbd_disk_detach_opts opts = { .dry_run = ctx->opts->dry_run };
	struct xvbd_disk_handle *h = NULL;
	struct xvbd_disk_dom dom;
	struct xvbd_report rep;
	struct xvbd_disk_env env;
	const char *dom_spec, *vdev;
	uint32_t devid;
	int c, first, rc, err;

	xvbd_getopt_begin();
	while ((c = xvbd_getopt(argc, argv, "", detach_options)) != -1) {
		if (c != 'f')
			return xvbd_getopt_error(ctx->cmd, argv, c);
		opts.force = true;
	}
	first = xvbd_getopt_index();
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
	rc = xvbd_cmd_disk_domain(ctx, dom_spec, &rep, &env, &dom);
	if (rc)
		return rc;
	h = calloc(1, sizeof(*h));
	if (!h) {
		xvbd_err(CMD, NULL, "%s", strerror(ENOMEM));
		return XVBD_EXIT_FAIL;
	}
	err = xvbd_disk_find(&env, &dom, devid, h);
	if (err) {
		rc = xvbd_cmd_disk_error(ctx, err, vdev, dom.name);
		goto out;
	}
	rc = xvbd_disk_detach(&env, h, &opts, &res);
	if (!rc && res.was_gone) {
		xvbd_err(CMD, h->vdev, "libxl could not remove it from domain "
			 "%s: no such disk", dom.name);
		rc = XVBD_EXIT_FAIL;
	}
	if (!res.found || (!res.removed && !opts.dry_run))
		goto out;
	render(ctx, h, opts.force, &res);
	if (xvbd_interrupted()) {
		xvbd_err(CMD, "interrupted", "by %s: %s was removed all the "
			 "same%s", xvbd_sig_name(xvbd_interrupted()), h->vdev,
			 res.share_unmounted ? " (its share unmounted)" : "");
		rc = XVBD_EXIT_FAIL;
	}
	/* What was done is still told (cmd.c ends only a 0's). */
	if (rc)
		xvbd_out_finish(ctx->out);
out:
	free(h);
	return rc;
}
