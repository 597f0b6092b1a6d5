/*
 * cmd_report.c - what a layer reports, on stderr in the command's name
 * (xvbd/cmd/cmd_report.h).
 */
#include <stdlib.h>

#include "xvbd/cmd/cmd_report.h"

void xvbd_cmd_report_print(void *arg, enum xvbd_say kind, const char *what,
			   const char *text)
{
	const struct xvbd_ctx *ctx = arg;
	const char *cmd = ctx->cmd ? ctx->cmd->name : NULL;

	switch (kind) {
	case XVBD_SAY_ERROR:
		xvbd_err(cmd, what, "%s", text);
		break;
	case XVBD_SAY_HINT:
		if (!ctx->opts->quiet)
			xvbd_hint("%s", text);
		break;
	case XVBD_SAY_NOTE:
		if (!ctx->opts->quiet)
			xvbd_err(cmd, what, "%s", text);
		break;
	case XVBD_SAY_VERBOSE:
		if (ctx->opts->verbose)
			xvbd_err(cmd, what, "%s", text);
		break;
	}
}

void xvbd_cmd_report_init(struct xvbd_ctx *ctx, struct xvbd_report *rep)
{
	xvbd_report_init(rep, xvbd_cmd_report_print, ctx);
}

int xvbd_cmd_disk_domain(struct xvbd_ctx *ctx, const char *spec,
			 struct xvbd_report *rep, struct xvbd_disk_env *env,
			 struct xvbd_disk_dom *dom)
{
	uint32_t domid;
	char *name = NULL;
	int rc;

	rc = xvbd_cmd_connect(ctx);
	if (!rc)
		rc = xvbd_cmd_domain_lookup(ctx, spec, &domid, &name);
	if (rc)
		return rc;
	xvbd_cmd_report_init(ctx, rep);
	*env = (struct xvbd_disk_env){ ctx->ts, ctx->xs, rep };
	rc = xvbd_disk_dom_init(env, domid, name, dom);
	free(name);
	return rc;
}
