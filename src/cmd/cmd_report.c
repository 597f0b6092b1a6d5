/*
 * cmd_report.c - what a layer reports, on stderr in the command's name
 * (xvbd/cmd/cmd_report.h).
 */
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
