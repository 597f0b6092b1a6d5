/*
 * main.c - the command table, and the one parse of the command line
 * (cmd_opt.c) that everything else gets from it.
 */
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
	  "[<Domain>...]", NULL, "xvbd list web1" },
	{ "show", cmd_show,
	  CMD_NEEDS_ROOT | CMD_NEEDS_XS | CMD_NEEDS_LIBXL | CMD_LATE_CONNECT,
	  2, 2,
	  "show one VBD's blkif keys, negotiation and warnings",
	  "<Domain> <VDev>", NULL, "xvbd show web1 xvdb" },
	{ "start", cmd_start,
	  CMD_CATCHES_SIGNALS |
	  CMD_NEEDS_ROOT | CMD_NEEDS_XS | CMD_NEEDS_LIBXL | CMD_WRITES_XS |
	  CMD_CAN_DRY_RUN | CMD_LATE_CONNECT, 1, 1,
	  "create a guest paused, override blkif keys per VBD, verify",
	  "<xl.cfg> [--vbd VDEV:key=value[,key=value]...]... [options]",
	  cmd_start_opts,
	  "xvbd start /etc/xen/web1.cfg --vbd xvdb:ring-order=2,queues=2" },
	{ "tune", cmd_tune,
	  CMD_CATCHES_SIGNALS |
	  CMD_NEEDS_ROOT | CMD_NEEDS_XS | CMD_NEEDS_LIBXL | CMD_WRITES_XS |
	  CMD_CAN_DRY_RUN | CMD_LATE_CONNECT, 3, CMD_ARGS_ANY,
	  "set per-device blkif keys of an existing VBD",
	  "<Domain> <VDev> key=value...", NULL,
	  "xvbd tune web1 xvdb discard=on" },
	{ "defaults", cmd_defaults,
	  CMD_CATCHES_SIGNALS |
	  CMD_NEEDS_ROOT | CMD_NEEDS_LIBXL | CMD_CAN_DRY_RUN |
	  CMD_LATE_CONNECT, 0, CMD_ARGS_ANY,
	  "show or change dom0's xen_blkback module parameters",
	  "[param=value...] [options]", cmd_defaults_opts,
	  "xvbd defaults max_ring_page_order=2 --persist" },
	{ "attach", cmd_attach,
	  CMD_CATCHES_SIGNALS |
	  CMD_NEEDS_ROOT | CMD_NEEDS_XS | CMD_NEEDS_LIBXL | CMD_WRITES_XS |
	  CMD_CAN_DRY_RUN | CMD_LATE_CONNECT,
	  0, CMD_ARGS_ANY,
	  "add disks to a running guest and wait until they are connected",
	  "<Domain> (<DiskSpec>... | --file PATH | --phy DEV | --share URL) "
	  "[options]", cmd_attach_opts,
	  "xvbd attach web1 --file /srv/xen/web1-data.img --size 10G" },
	{ "apply", cmd_apply,
	  CMD_CATCHES_SIGNALS |
	  CMD_NEEDS_ROOT | CMD_NEEDS_XS | CMD_NEEDS_LIBXL | CMD_WRITES_XS |
	  CMD_CAN_DRY_RUN | CMD_LATE_CONNECT, 0, CMD_ARGS_ANY,
	  "make a guest's disks what a plan file says (idempotent)",
	  "<PLAN|-> [options]", cmd_apply_opts,
	  "xvbd apply /etc/xvbd/web1.json --json" },
	{ "detach", cmd_detach,
	  CMD_CATCHES_SIGNALS |
	  CMD_NEEDS_ROOT | CMD_NEEDS_XS | CMD_NEEDS_LIBXL | CMD_CAN_DRY_RUN |
	  CMD_LATE_CONNECT,
	  2, CMD_ARGS_ANY,
	  "remove a disk from a guest (and unmount its unused share)",
	  "<Domain> <VDev> [options]", cmd_detach_opts,
	  "xvbd detach web1 xvdb" },
	{ "stats", cmd_stats,
	  CMD_NEEDS_ROOT | CMD_NEEDS_XS | CMD_NEEDS_LIBXL | CMD_LATE_CONNECT,
	  0, CMD_ARGS_ANY,
	  "sample CPU% per domain and I/O rates per VBD (xentop for disks)",
	  "[<Domain>...] [options]", cmd_stats_opts,
	  "xvbd stats web1 -d 2 -n 10" },
	{ "advise", cmd_advise,
	  CMD_NEEDS_ROOT | CMD_NEEDS_XS | CMD_NEEDS_LIBXL | CMD_LATE_CONNECT,
	  0, 2,
	  "sample VBDs and name what limits them, with the A/B that tests it",
	  "[<Domain> [<VDev>]] [options]", cmd_advise_opts,
	  "xvbd advise web1 xvdb -d 30s" },
	{ "ab run", cmd_ab_run,
	  CMD_NEEDS_ROOT | CMD_NEEDS_XS | CMD_NEEDS_LIBXL | CMD_WRITES_XS |
	  CMD_CAN_DRY_RUN | CMD_LATE_CONNECT, 0, CMD_ARGS_ANY,
	  "run an experiment: 2 to 16 levels, each a fresh guest or one "
	  "running guest's disk under test, in balanced blocks, recorded, "
	  "until settled",
	  "(<LabelA> <xl.cfg> <LabelB> <xl.cfg> [<Label> <xl.cfg>]... | "
	  "<Label>... --domain "
	  "<Domain> --disk [<Label>=]<DiskSpec>... | --domain <Domain> "
	  "--disk <DiskSpec> --sweep KEY=V1,V2[,...]) "
	  "(--duration S | --run CMD | --until-shutdown) [options]",
	  cmd_ab_run_opts,
	  "xvbd ab run base a.cfg ring4 b.cfg --duration 60s --runs 3" },
	{ "ab record", cmd_ab_record,
	  CMD_NEEDS_ROOT | CMD_NEEDS_XS | CMD_NEEDS_LIBXL | CMD_LATE_CONNECT,
	  0, CMD_ARGS_ANY,
	  "record one labelled run: raw counters + the environment's "
	  "fingerprint",
	  "<Label> --domain <Domain> (--duration S | --run CMD | "
	  "--until-shutdown) [options]", cmd_ab_record_opts,
	  "xvbd ab record base --domain web1 --vdev xvdb --duration 60s" },
	{ "ab compare", cmd_ab_compare, CMD_LATE_CONNECT, 2, CMD_ARGS_ANY,
	  "compare two labels' runs, or levels against a baseline: "
	  "verdicts, confounders, warnings, a gate",
	  "<A> <B> [<C>...] [options]", cmd_ab_compare_opts,
	  "xvbd ab compare base ring4 --metric read_iops" },
	{ "ab list", cmd_ab_list, CMD_LATE_CONNECT, 0, CMD_ARGS_ANY,
	  "list recorded runs",
	  "[<Label|Id|File>...] [options]", cmd_ab_list_opts,
	  "xvbd ab list base" },
	{ "ab show", cmd_ab_show, CMD_LATE_CONNECT, 0, CMD_ARGS_ANY,
	  "show one run: summary, left-out intervals, interference, "
	  "fingerprint, notes",
	  "<Id|File> [options]", cmd_ab_show_opts,
	  "xvbd ab show base-20240501T120001-0001" },
	{ "ab rm", cmd_ab_rm, CMD_LATE_CONNECT | CMD_CAN_DRY_RUN, 0,
	  CMD_ARGS_ANY,
	  "remove recorded runs (records only; -N: list them)",
	  "<Label|Id|File>... [options]", cmd_ab_rm_opts,
	  "xvbd ab rm base" },
	{ "ab export", cmd_ab_export, CMD_LATE_CONNECT, 0, CMD_ARGS_ANY,
	  "one row per run: summary metrics and facts, CSV or JSON",
	  "[<Label|Id|File>...] [options]", cmd_ab_export_opts,
	  "xvbd ab export --csv base ring4 > runs.csv" },
	{ "ab plot", cmd_ab_plot, CMD_LATE_CONNECT, 2, CMD_ARGS_ANY,
	  "draw two labels' runs and time series, or a metric against "
	  "levels, into an SVG file",
	  "<A> <B> [<C>...] -o FILE.svg [options]", cmd_ab_plot_opts,
	  "xvbd ab plot base ring4 -o base-ring4.svg" },
	{ "pv", cmd_pv,
	  CMD_CATCHES_SIGNALS |
	  CMD_NEEDS_ROOT | CMD_NEEDS_XS | CMD_NEEDS_LIBXL | CMD_CAN_DRY_RUN |
	  CMD_LATE_CONNECT, 0, 2,
	  "PV drivers on/off per guest; which disk path a guest uses",
	  "<Domain|CONFIG_FILE> [status|on|off] [options]", cmd_pv_opts,
	  "xvbd pv win10 off --config /etc/xen/win10.cfg --reboot" },
	{ "help", cmd_help, 0, 0, 2,
	  "show help for all commands or one",
	  "[<command> [<subcommand>]]", cmd_help_opts,
	  "xvbd help ab compare" },
};

#ifdef XVBD_TEST_HOOKS
/*
 * XVBD_TEST_ARGS_DUMP=1: print what the parser made of the command line
 * and stop (tests/cli-anywhere.sh compares the dumps of one command line
 * with its global options before and after the command).
 */
static bool dump_args(const struct xvbd_cmdline *cl,
		      const struct xvbd_opts *opts)
{
	const char *env = getenv("XVBD_TEST_ARGS_DUMP");
	size_t i;
	int j;

	if (!env || strcmp(env, "1") || cl->rc || cl->help || !cl->cmd)
		return false;
	printf("command %s\nglobal verbose=%d quiet=%d json=%d dry_run=%d\n",
	       cl->cmd->name, opts->verbose, opts->quiet, opts->json,
	       opts->dry_run);
	for (i = 0; i < cl->ngiven; i++) {
		const struct xvbd_optval *v = &cl->given[i];

		printf("opt --%s=%s u=%llu f=%.6f\n", cl->cmd->opts[v->id].name,
		       v->arg ? v->arg : "", (unsigned long long)v->u,
		       v->fraction);
	}
	for (j = 0; j < cl->noperands; j++)
		printf("operand %s\n", cl->operands[j]);
	return true;
}
#endif

static void take_globals(const struct xvbd_cmdline *cl, struct xvbd_opts *o)
{
	size_t i;

	for (i = 0; i < cl->nglobals; i++) {
		switch (cl->globals[i].id) {
		case XVBD_G_VERBOSE:
			o->verbose++;
			break;
		case XVBD_G_QUIET:
			o->quiet = true;
			break;
		case XVBD_G_JSON:
			o->json = true;
			break;
		case XVBD_G_DRY_RUN:
			o->dry_run = true;
			break;
		}
	}
	o->json |= cl->json_seen;
}

static bool version_asked(const struct xvbd_cmdline *cl)
{
	size_t i;

	for (i = 0; i < cl->nglobals; i++)
		if (cl->globals[i].id == XVBD_G_VERSION)
			return true;
	return false;
}

/* A command line that names no command to run: help, or its error. */
static int no_command(const struct xvbd_cmdline *cl)
{
	const size_t ncmds = sizeof(commands) / sizeof(commands[0]);

	if (cl->help) {
		if (cl->cmd)
			xvbd_cmd_usage(cl->cmd, stdout);
		else if (cl->group)
			xvbd_cmd_group_usage(commands, ncmds, cl->group, stdout);
		else
			xvbd_global_usage(commands, ncmds, stdout);
		return XVBD_EXIT_OK;
	}
	if (version_asked(cl)) {
		printf("xvbd %s\n", XVBD_VERSION);
		return XVBD_EXIT_OK;
	}
	if (cl->group) {
		/* "xvbd ab --dir D": the missing subcommand comes first */
		xvbd_err(NULL, NULL, "%.*s: a subcommand is needed",
			 (int)strcspn(cl->group, " "), cl->group);
		if (!xvbd_usage_is_quiet())
			xvbd_hint("see \"xvbd help %.*s\"",
				  (int)strcspn(cl->group, " "), cl->group);
		return XVBD_EXIT_USAGE;
	}
	if (cl->rc) {
		xvbd_err(NULL, NULL, "%s%s%s", cl->err, cl->hint[0] ? ": " : "",
			 cl->hint);
		if (cl->rc == XVBD_EXIT_USAGE)
			xvbd_usage_hint(cl->cmd);
		return cl->rc;
	}
	xvbd_err(NULL, NULL, "no command");
	xvbd_usage_hint(NULL);
	return XVBD_EXIT_USAGE;
}

/* Under --json, a command line that never reached a command fails with
 * the same one object as a command would (out.h). */
static void json_failure(int rc)
{
	struct xvbd_out *o = xvbd_out_new(stdout, true);

	if (o)
		xvbd_out_finish_rc(o, rc);
	xvbd_out_free(o);
}

int main(int argc, char **argv)
{
	const size_t ncmds = sizeof(commands) / sizeof(commands[0]);
	struct xvbd_opts opts = { 0 };
	struct xvbd_cmdline cl;
	struct xvbd_ctx ctx = {
		.opts = &opts, .cmds = commands, .ncmds = ncmds, .cl = &cl,
	};
	int rc;

	/* A reader that went away is a write error, not a death. */
	xvbd_sig_setup(false);
	xvbd_cmdline_parse(commands, ncmds, argc - 1, argv + 1, &cl);
	take_globals(&cl, &opts);
	xvbd_usage_quiet(opts.quiet);
	ctx.cmd = cl.cmd;
#ifdef XVBD_TEST_HOOKS
	if (dump_args(&cl, &opts)) {
		xvbd_cmdline_free(&cl);
		return XVBD_EXIT_OK;
	}
#endif
	if (cl.rc || cl.help || !cl.cmd || version_asked(&cl)) {
		rc = no_command(&cl);
		if (rc && opts.json)
			json_failure(rc);
		goto out;
	}
	if (cl.cmd->flags & CMD_CATCHES_SIGNALS)
		xvbd_sig_setup(true);
	rc = xvbd_cmd_run(&ctx, cl.noperands, cl.operands);
out:
	xvbd_cmdline_free(&cl);
	/* Like git: output that never reached its reader is a failure. */
	if (fclose(stdout) && rc == XVBD_EXIT_OK) {
		xvbd_err(ctx.cmd ? ctx.cmd->name : NULL, "stdout",
			 "write failed");
		rc = XVBD_EXIT_FAIL;
	}
	return rc;
}
