/*
 * cmd_tune.c - xvbd tune <Domain> <VDev> key=value...: per-device keys
 * of an existing VBD.
 *
 * Toolstack-owned keys (discard-enable, trusted, direct-io-safe) are
 * written at once; they are read at connect, so on a Connected device
 * they take effect at its next connect.  Negotiated keys (ring order,
 * queues, indirect segments) are only accepted in the window where
 * blkfront has not read them yet: backend InitWait, frontend not past
 * Initialising, guest paused (e.g. created with xl create -p).  The act
 * is the disk layer's (xvbd/disk/disk.h: xvbd_disk_tune).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "xvbd/cmd/cmd.h"
#include "xvbd/cmd/cmd_report.h"
#include "xvbd/disk/disk.h"
#include "xvbd/vbd/override.h"

static void render(struct xvbd_out *o, const char *domain, uint32_t domid,
		   const struct xvbd_ovr_set *set,
		   const struct xvbd_ovr_result *res)
{
	size_t i;

	xvbd_out_obj_begin(o, NULL);
	xvbd_out_str(o, "domain", domain);
	xvbd_out_uint(o, "domid", domid);
	xvbd_out_arr_begin(o, "overrides");
	for (i = 0; i < set->n; i++)
		xvbd_override_result_render(o, set->vdev, &res[i]);
	xvbd_out_arr_end(o);
	xvbd_out_obj_end(o);
}

static void render_plan(struct xvbd_out *o, const char *domain,
			uint32_t domid, const struct xvbd_ovr_plan *plan)
{
	xvbd_out_obj_begin(o, NULL);
	xvbd_out_str(o, "domain", domain);
	xvbd_out_uint(o, "domid", domid);
	xvbd_override_plan_render(o, plan);
	xvbd_out_obj_end(o);
}

int cmd_tune(struct xvbd_ctx *ctx, int argc, char **argv)
{
	const char *dom_spec = argv[0];
	struct xvbd_disk_tune_opts opts = {
		.dry_run = ctx->opts->dry_run,
		.tell = !ctx->opts->quiet && isatty(STDERR_FILENO),
	};
	struct xvbd_disk_tune_result *res = NULL;
	struct xvbd_ovr_set set;
	struct xvbd_disk_dom dom;
	struct xvbd_report rep;
	struct xvbd_disk_env env;
	char why[320];
	size_t i;
	int rc;

	/* Input first: a bad key never gets as far as the toolstack. */
	if (xvbd_override_set_init(&set, argv[1], why, sizeof(why))) {
		xvbd_err("tune", "vdev", "%s", why);
		return XVBD_EXIT_USAGE;
	}
	for (i = 2; i < (size_t)argc; i++) {
		if (xvbd_override_parse_kv(&set, argv[i], why, sizeof(why))) {
			xvbd_err("tune", NULL, "%s", why);
			return XVBD_EXIT_USAGE;
		}
	}
	rc = xvbd_cmd_domain_check(ctx, dom_spec);
	/* CMD_LATE_CONNECT: the connection after the input */
	if (!rc)
		rc = xvbd_cmd_disk_domain(ctx, dom_spec, &rep, &env, &dom);
	if (rc)
		return rc;
	res = calloc(1, sizeof(*res));
	if (!res) {
		xvbd_err("tune", NULL, "%s", strerror(ENOMEM));
		return XVBD_EXIT_FAIL;
	}
	rc = xvbd_disk_tune(&env, &dom, NULL, &set, &opts, res);
	if (!rc && ctx->opts->dry_run)
		render_plan(ctx->out, dom.name, dom.domid, &res->plan);
	else if (!rc)
		render(ctx->out, dom.name, dom.domid, &res->set, res->res);
	xvbd_disk_tune_free(res);
	free(res);
	return rc;
}
