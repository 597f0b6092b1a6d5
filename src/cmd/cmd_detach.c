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
	int first = 0, rc, err;

	opts.force = xvbd_opt(ctx, O_FORCE) != NULL;
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
		/* What was done is still told: cmd.c ends the document
		 * (under --json with the failure). */
		rc = XVBD_EXIT_FAIL;
	}
out:
	free(h);
	return rc;
}
