/*
 * main.c - global options and the command table.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xvbd/cmd.h"
#include "xvbd/util.h"

#ifndef XVBD_VERSION
#define XVBD_VERSION "0.1.0"
#endif

static const struct xvbd_cmd commands[] = {
	{ "list", cmd_list,
	  CMD_NEEDS_ROOT | CMD_NEEDS_XS | CMD_NEEDS_LIBXL, 0, CMD_ARGS_ANY,
	  "list the VBDs of all or the given domains",
	  "[Domain...]" },
	{ "show", cmd_show,
	  CMD_NEEDS_ROOT | CMD_NEEDS_XS | CMD_NEEDS_LIBXL, 2, 2,
	  "show one VBD's blkif keys, negotiation and warnings",
	  "<Domain> <VDev>" },
	{ "help", cmd_help, 0, 0, 1,
	  "show help for all commands or one",
	  "[command]" },
};

static const struct option long_options[] = {
	{ "verbose", no_argument, NULL, 'v' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "json", no_argument, NULL, 'j' },
	{ "dry-run", no_argument, NULL, 'N' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

int main(int argc, char **argv)
{
	const size_t ncmds = sizeof(commands) / sizeof(commands[0]);
	struct xvbd_opts opts = { 0 };
	struct xvbd_ctx ctx = {
		.opts = &opts, .cmds = commands, .ncmds = ncmds,
	};
	bool ambiguous = false;
	int c, rc = -1;

	/* '+': stop at the command name; its arguments are its own. */
	while ((c = getopt_long(argc, argv, "+vqjNh", long_options,
				NULL)) != -1) {
		switch (c) {
		case 'v':
			opts.verbose++;
			break;
		case 'q':
			opts.quiet = true;
			break;
		case 'j':
			opts.json = true;
			break;
		case 'N':
			opts.dry_run = true;
			break;
		case 'h':
			xvbd_global_usage(commands, ncmds, stdout);
			rc = XVBD_EXIT_OK;
			goto out;
		case 'V':
			printf("xvbd %s\n", XVBD_VERSION);
			rc = XVBD_EXIT_OK;
			goto out;
		default:
			xvbd_global_usage(commands, ncmds, stderr);
			return XVBD_EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		xvbd_global_usage(commands, ncmds, stderr);
		return XVBD_EXIT_USAGE;
	}
	ctx.cmd = xvbd_cmd_find(commands, ncmds, argv[optind], &ambiguous);
	if (!ctx.cmd) {
		xvbd_err(NULL, NULL, "%s command \"%s\": try \"xvbd help\"",
			 ambiguous ? "ambiguous" : "unknown", argv[optind]);
		return XVBD_EXIT_USAGE;
	}
	rc = xvbd_cmd_run(&ctx, argc - optind - 1, argv + optind + 1);
out:
	/* Like git: output that never reached its reader is a failure. */
	if (fclose(stdout) && rc == XVBD_EXIT_OK) {
		xvbd_err(ctx.cmd ? ctx.cmd->name : NULL, "stdout",
			 "write failed");
		rc = XVBD_EXIT_FAIL;
	}
	return rc;
}
