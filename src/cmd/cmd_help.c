/*
 * cmd_help.c - xvbd help [command [subcommand]]
 */
#include <stdbool.h>

#include "xvbd/cmd/cmd.h"
#include "xvbd/base/util.h"

int cmd_help(struct xvbd_ctx *ctx, int argc, char **argv)
{
	const struct xvbd_cmd *cmd;
	const char *group;
	bool ambiguous;
	int nwords;

	if (argc == 0) {
		xvbd_global_usage(ctx->cmds, ctx->ncmds, stdout);
		return XVBD_EXIT_OK;
	}
	cmd = xvbd_cmd_find(ctx->cmds, ctx->ncmds, argc, argv, &nwords,
			    &ambiguous, &group);
	if (!cmd && group && argc == 1) {
		/* "xvbd help ab": the group's commands. */
		xvbd_cmd_group_usage(ctx->cmds, ctx->ncmds, group, stdout);
		return XVBD_EXIT_OK;
	}
	if (!cmd)
		return xvbd_cmd_not_found(ctx->cmds, ctx->ncmds, argc, argv,
					  nwords, ambiguous, group, "help");
	if (argc > nwords)
		return xvbd_usage_error(ctx->cmd, "too many arguments");
	xvbd_cmd_usage(cmd, stdout);
	return XVBD_EXIT_OK;
}
