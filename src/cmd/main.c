/*
 * main.c - global options and the command table.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xvbd/cmd/cmd.h"
#include "xvbd/base/sig.h"
#include "xvbd/base/util.h"

#ifndef XVBD_VERSION
#define XVBD_VERSION "0.1.0"
#endif

static const struct xvbd_cmd commands[] = {
	{ "list", cmd_list,
	  CMD_NEEDS_ROOT | CMD_NEEDS_XS | CMD_NEEDS_LIBXL | CMD_LATE_CONNECT,
	  0, CMD_ARGS_ANY,
	  "list the VBDs of all or the given domains",
	  "[Domain...]" },
	{ "show", cmd_show,
	  CMD_NEEDS_ROOT | CMD_NEEDS_XS | CMD_NEEDS_LIBXL | CMD_LATE_CONNECT,
	  2, 2,
	  "show one VBD's blkif keys, negotiation and warnings",
	  "<Domain> <VDev>" },
	{ "start", cmd_start,
	  CMD_CATCHES_SIGNALS |
	  CMD_NEEDS_ROOT | CMD_NEEDS_XS | CMD_NEEDS_LIBXL | CMD_WRITES_XS |
	  CMD_CAN_DRY_RUN | CMD_OWN_OPTIONS, 1, CMD_ARGS_ANY,
	  "create a guest paused, override blkif keys per VBD, verify",
	  "<xl.cfg> [--vbd VDEV:key=value[,key=value]...]... "
	  "[--guest-limits] [--timeout S]" },
	{ "tune", cmd_tune,
	  CMD_CATCHES_SIGNALS |
	  CMD_NEEDS_ROOT | CMD_NEEDS_XS | CMD_NEEDS_LIBXL | CMD_WRITES_XS |
	  CMD_CAN_DRY_RUN | CMD_LATE_CONNECT, 3, CMD_ARGS_ANY,
	  "set per-device blkif keys of an existing VBD",
	  "<Domain> <VDev> key=value..." },
	{ "defaults", cmd_defaults,
	  CMD_CATCHES_SIGNALS |
	  CMD_NEEDS_ROOT | CMD_NEEDS_LIBXL | CMD_CAN_DRY_RUN |
	  CMD_OWN_OPTIONS, 0, CMD_ARGS_ANY,
	  "show or change dom0's xen_blkback module parameters",
	  "[--reload] [--persist] [param=value...]" },
	{ "attach", cmd_attach,
	  CMD_CATCHES_SIGNALS |
	  CMD_NEEDS_ROOT | CMD_NEEDS_XS | CMD_NEEDS_LIBXL | CMD_WRITES_XS |
	  CMD_CAN_DRY_RUN | CMD_OWN_OPTIONS,
	  1, CMD_ARGS_ANY,
	  "add disks to a running guest and wait until they are connected",
	  "<Domain> [<DiskSpec>] [--spec S]... | --file PATH [--size N] "
	  "[--prealloc] | --phy DEV | --share URL [--credentials FILE] "
	  "[--share-opts O]  [--vdev V|auto] [--access rw|ro] "
	  "[--cache host|none] "
	  "[--no-wait] [--timeout S] [--jobs N]  [--ring-order N] "
	  "[--queues N] [--indirect-segments N] [--discard on|off] "
	  "[--trusted on|off]" },
	{ "apply", cmd_apply,
	  CMD_CATCHES_SIGNALS |
	  CMD_NEEDS_ROOT | CMD_NEEDS_XS | CMD_NEEDS_LIBXL | CMD_WRITES_XS |
	  CMD_CAN_DRY_RUN | CMD_OWN_OPTIONS, 1, CMD_ARGS_ANY,
	  "make a guest's disks what a plan file says (idempotent)",
	  "<PLAN|-> [--check|-N] [--diff] [--prune]" },
	{ "detach", cmd_detach,
	  CMD_CATCHES_SIGNALS |
	  CMD_NEEDS_ROOT | CMD_NEEDS_XS | CMD_NEEDS_LIBXL | CMD_CAN_DRY_RUN |
	  CMD_OWN_OPTIONS,
	  2, CMD_ARGS_ANY,
	  "remove a disk from a guest (and unmount its unused share)",
	  "<Domain> <VDev> [--force]" },
	{ "stats", cmd_stats,
	  CMD_NEEDS_ROOT | CMD_NEEDS_XS | CMD_NEEDS_LIBXL | CMD_OWN_OPTIONS,
	  0, CMD_ARGS_ANY,
	  "sample CPU% per domain and I/O rates per VBD (xentop for disks)",
	  "[Domain...] [-d SECONDS] [-n COUNT] [--vcpus] "
	  "[--json|--csv|--prometheus FILE]" },
	{ "advise", cmd_advise,
	  CMD_NEEDS_ROOT | CMD_NEEDS_XS | CMD_NEEDS_LIBXL | CMD_OWN_OPTIONS,
	  0, CMD_ARGS_ANY,
	  "sample VBDs and name what limits them, with the A/B that tests it",
	  "[<Domain> [<VDev>]] [-d SECONDS] [--json]" },
	{ "ab run", cmd_ab_run,
	  CMD_NEEDS_ROOT | CMD_NEEDS_XS | CMD_NEEDS_LIBXL | CMD_WRITES_XS |
	  CMD_CAN_DRY_RUN | CMD_OWN_OPTIONS, 0, CMD_ARGS_ANY,
	  "run an A/B experiment: fresh guests (or one running guest's "
	  "disk under test) in ABBA order, recorded, until settled",
	  "(<LabelA> <xl.cfg> <LabelB> <xl.cfg> | <LabelA> <LabelB> "
	  "--domain G --disk-a SPEC --disk-b SPEC [--cache-a M] "
	  "[--cache-b M]) [--vbd-a VDEV:k=v,...]... "
	  "[--vbd-b ...]... [--vdev VDEV]... (--duration S | --run CMD | "
	  "--until-shutdown) [--ready CMD] [--interval S] [--warmup S] [--runs N | --until-confident "
	  "[--min-effect P] [--max-runs N]] [--equivalence P] [--metric M] "
	  "[--confidence P] [--guest-limits] [--dir DIR] [--timeout S] "
	  "[--json]" },
	{ "ab record", cmd_ab_record,
	  CMD_NEEDS_ROOT | CMD_NEEDS_XS | CMD_NEEDS_LIBXL | CMD_OWN_OPTIONS,
	  0, CMD_ARGS_ANY,
	  "record one labelled run: raw counters + the environment's "
	  "fingerprint",
	  "<Label> --domain <Domain> [--vdev <VDev>]... (--duration S | "
	  "--run CMD | --until-shutdown) [--interval S] [--warmup S] "
	  "[--dir DIR] [--json]" },
	{ "ab compare", cmd_ab_compare, CMD_OWN_OPTIONS, 2, CMD_ARGS_ANY,
	  "compare two labels' runs, or levels against a baseline: "
	  "verdicts, confounders, warnings, a gate",
	  "<A> <B> [<C>...] [--baseline L] [--fail-if-worse P] "
	  "[--confidence P] [--metric M]... [--test welch|mwu] "
	  "[--unpaired] [--equivalence P] [--min-effect P] "
	  "[--interference-cpu P] [--no-adjust] [--dir DIR] [--json]" },
	{ "ab list", cmd_ab_list, CMD_OWN_OPTIONS, 0, CMD_ARGS_ANY,
	  "list recorded runs",
	  "[--dir DIR] [<Label|Id|File>...]" },
	{ "ab show", cmd_ab_show, CMD_OWN_OPTIONS, 1, CMD_ARGS_ANY,
	  "show one run: summary, left-out intervals, interference, "
	  "fingerprint, notes",
	  "<Id|File> [--interference-cpu P] [--dir DIR]" },
	{ "ab rm", cmd_ab_rm, CMD_OWN_OPTIONS | CMD_CAN_DRY_RUN, 1,
	  CMD_ARGS_ANY,
	  "remove recorded runs (records only; -N: list them)",
	  "<Label|Id|File>... [--dir DIR] [-N]" },
	{ "ab export", cmd_ab_export, CMD_OWN_OPTIONS, 0, CMD_ARGS_ANY,
	  "one row per run: summary metrics and facts, CSV or JSON",
	  "[--csv|--json] [--dir DIR] [<Label|Id|File>...]" },
	{ "ab plot", cmd_ab_plot, CMD_OWN_OPTIONS, 2, CMD_ARGS_ANY,
	  "draw two labels' runs and time series, or a metric against "
	  "levels, into an SVG file",
	  "<A> <B> [<C>...] -o FILE.svg [--metric M]... [--test welch|mwu] "
	  "[--baseline L] [--dir DIR]" },
	{ "pv", cmd_pv,
	  CMD_CATCHES_SIGNALS |
	  CMD_NEEDS_ROOT | CMD_NEEDS_XS | CMD_NEEDS_LIBXL | CMD_CAN_DRY_RUN |
	  CMD_OWN_OPTIONS, 1, CMD_ARGS_ANY,
	  "PV drivers on/off per guest; which disk path a guest uses",
	  "<Domain|CONFIG_FILE> [status|on|off] [--config FILE] "
	  "[--linux-unplug] [--reboot] [--timeout S] [--settle S] "
	  "[--json]" },
	{ "help", cmd_help, 0, 0, 2,
	  "show help for all commands or one",
	  "[command [subcommand]]" },
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
	const char *group = NULL;
	char bad_opt[64] = "";
	int c, rc = -1, nwords = 0;

	/* A reader that went away is a write error, not a death. */
	xvbd_sig_setup(false);
	/* '+': stop at the command name; its arguments are its own.  An
	 * unknown option is reported after the loop, once -q is known. */
	opterr = 0;
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
			if (bad_opt[0])
				break;
			/* A long option as written ("--json=1"), else the
			 * letter of a short one ("-x" of "-qx"). */
			if (!strncmp(argv[optind - 1], "--", 2) || !optopt)
				snprintf(bad_opt, sizeof(bad_opt), "%.60s",
					 argv[optind - 1]);
			else
				snprintf(bad_opt, sizeof(bad_opt), "-%c",
					 optopt);
			break;
		}
	}
	xvbd_usage_quiet(opts.quiet);
	if (bad_opt[0] || optind >= argc) {
		if (bad_opt[0])
			xvbd_err(NULL, NULL, "unknown option \"%s\"", bad_opt);
		else
			xvbd_err(NULL, NULL, "no command: try \"xvbd help\"");
		xvbd_global_usage(commands, ncmds, stderr);
		return XVBD_EXIT_USAGE;
	}
	ctx.cmd = xvbd_cmd_find(commands, ncmds, argc - optind, argv + optind,
				&nwords, &ambiguous, &group);
	if (!ctx.cmd)
		return xvbd_cmd_not_found(commands, ncmds, argc - optind,
					  argv + optind, nwords, ambiguous,
					  group, NULL);
	if (ctx.cmd->flags & CMD_CATCHES_SIGNALS)
		xvbd_sig_setup(true);
	rc = xvbd_cmd_run(&ctx, argc - optind - nwords, argv + optind + nwords);
out:
	/* Like git: output that never reached its reader is a failure. */
	if (fclose(stdout) && rc == XVBD_EXIT_OK) {
		xvbd_err(ctx.cmd ? ctx.cmd->name : NULL, "stdout",
			 "write failed");
		rc = XVBD_EXIT_FAIL;
	}
	return rc;
}
