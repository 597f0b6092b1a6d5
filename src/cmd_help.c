/*
 * cmd_help.c - xvbd help [command]
 */
#include <stdbool.h>

#include "xvbd/cmd.h"
#include "xvbd/util.h"

int cmd_help(struct xvbd_ctx *ctx, int argc, char **argv)
{
	const struct xvbd_cmd *cmd;
	bool ambiguous;

	if (argc == 0) {
		xvbd_global_usage(ctx->cmds, ctx->ncmds, stdout);
		return XVBD_EXIT_OK;
	}
	cmd = xvbd_cmd_find(ctx->cmds, ctx->ncmds, argv[0], &ambiguous);
	if (!cmd) {
		xvbd_err("help", NULL, "%s command \"%s\": try \"xvbd help\"",
			 ambiguous ? "ambiguous" : "unknown", argv[0]);
		return XVBD_EXIT_USAGE;
	}
	xvbd_cmd_usage(cmd, stdout);
	return XVBD_EXIT_OK;
}
