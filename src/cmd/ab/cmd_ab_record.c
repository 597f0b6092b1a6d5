/*
 * cmd_ab_record.c - xvbd ab record Label --domain D [--vdev V]...
 *		     (--duration S | --run CMD | --until-shutdown)
 *		     [--results auto|fio|benchfmt|none]
 *		     [--interval S] [--warmup S] [--latency] [--dir DIR] [--json]
 *
 * One run = one record.  The stats layer samples (no second sampler):
 * per-VBD blkback counters and backing-device statistics, the guest's and
 * dom0's CPU time.  The record keeps the raw cumulative counters of every
 * sample, never rates, plus the fingerprint of the environment taken at
 * the start while the guest runs.
 *
 *	parse -> connect -> domain, VBDs -> store directory -> fingerprint
 *	-> the run (src/ab_recorder.c) -> write -> report
 *
 * SIGINT/SIGTERM/SIGHUP end the run early: the record is still written,
 * marked incomplete, and the exit code is 1.  Nothing is written before
 * the run ends: a kill -9 leaves no record (at most a hidden temporary).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xvbd/ab/ab.h"
#include "xvbd/ab/ab_record_impl.h"
#include "xvbd/cmd/ab/ab_recorder.h"
#include "ab_recorder_impl.h"
#include "xvbd/xen/blkif.h"
#include "xvbd/cmd/cmd.h"
#include "xvbd/cmd/ab/cmd_ab.h"

#define CMD			"ab record"

/* ---- options ---- */

enum {
	O_DOMAIN, O_VDEV, O_DURATION, O_RUN, O_UNTIL_SHUTDOWN, O_INTERVAL,
	O_WARMUP, O_RESULTS, O_LATENCY, O_DIR,
};

const struct xvbd_cmdopt cmd_ab_record_opts[] = {
	[O_DOMAIN] = XVBD_OPT_STR("domain", 0, "Domain", 0,
		"the running guest to record (name or id)"),
	[O_VDEV] = XVBD_OPT_STR("vdev", 0, "VDev", XVBD_OPT_REPEAT,
		"a disk to record (default: all the guest's blkback disks)"),
	[O_DURATION] = XVBD_AB_ROW_DURATION,
	[O_RUN] = XVBD_AB_ROW_RUN,
	[O_UNTIL_SHUTDOWN] = XVBD_AB_ROW_UNTIL_SHUTDOWN,
	[O_INTERVAL] = XVBD_AB_ROW_INTERVAL,
	[O_WARMUP] = XVBD_AB_ROW_WARMUP,
	[O_RESULTS] = XVBD_AB_ROW_RESULTS,
	[O_LATENCY] = XVBD_AB_ROW_LATENCY,
	[O_DIR] = XVBD_AB_ROW_DIR,
	XVBD_OPT_END,
};
_Static_assert(O_RUN - O_DURATION == XVBD_AB_REC_RUN &&
	       O_UNTIL_SHUTDOWN - O_DURATION == XVBD_AB_REC_UNTIL_SHUTDOWN &&
	       O_INTERVAL - O_DURATION == XVBD_AB_REC_INTERVAL &&
	       O_WARMUP - O_DURATION == XVBD_AB_REC_WARMUP &&
	       O_RESULTS - O_DURATION == XVBD_AB_REC_RESULTS &&
	       O_LATENCY - O_DURATION == XVBD_AB_REC_LATENCY,
	       "the recording's rows in xvbd_ab_rec_row's order");

static int parse_opts(struct xvbd_ctx *ctx, int argc, char **argv,
		      struct xvbd_ab_rec_opts *o)
{
	const struct xvbd_cmdline *cl = ctx->cl;
	const struct xvbd_cmd *cmd = ctx->cmd;
	bool have_mode = false;
	uint32_t devid;
	size_t i;
	int rc = 0;

	o->dir = XVBD_AB_DIR_DEFAULT;
	o->json = ctx->opts->json;
	o->vdev_args = calloc(cl->ngiven + 1, sizeof(*o->vdev_args));
	if (!o->vdev_args) {
		xvbd_err(CMD, "options", "%s", strerror(ENOMEM));
		return XVBD_EXIT_FAIL;
	}
	for (i = 0; i < cl->ngiven && !rc; i++) {
		const struct xvbd_optval *v = &cl->given[i];

		switch (v->id) {
		case O_DOMAIN:
			o->domain_spec = v->arg;
			break;
		case O_VDEV:
			if (xvbd_vdev_parse(v->arg, &devid))
				return xvbd_usage_error(cmd, "--vdev: \"%s\": "
					"not a virtual device name", v->arg);
			o->vdev_args[o->nvdev_args++] = v->arg;
			break;
		case O_DIR:
			if (!v->arg[0])
				return xvbd_usage_error(cmd, "--dir: empty");
			o->dir = v->arg;
			break;
		default:
			/* the recording's rows, in their enum's order */
			rc = xvbd_ab_rec_value(cmd, (enum xvbd_ab_rec_row)
					       (v->id - O_DURATION), v, o,
					       &have_mode);
		}
	}
	if (rc)
		return rc;
	if (argc != 1)
		return xvbd_usage_error(cmd, argc == 0 ? "<Label> missing" :
					"one <Label>, not %d", argc);
	o->label = argv[0];
	if (!xvbd_ab_label_valid(o->label))
		return xvbd_usage_error(cmd, "label \"%s\": expected 1 to %d "
					"of A-Z a-z 0-9 . _ -, not led by . "
					"or -", o->label, XVBD_AB_LABEL_MAX);
	if (!o->domain_spec)
		return xvbd_usage_error(cmd, "--domain missing");
	if (!have_mode)
		return xvbd_usage_error(cmd, "how long? --duration S, --run "
					"CMD or --until-shutdown");
	rc = xvbd_ab_rec_opts_check(cmd, o);
	if (rc)
		return rc;
	if (o->nvdev_args > XVBD_AB_VDEVS_MAX)
		return xvbd_usage_error(cmd, "more than %d --vdev",
					XVBD_AB_VDEVS_MAX);
	for (i = 0; i < o->nvdev_args; i++) {
		uint32_t a, b;
		size_t j;

		xvbd_vdev_parse(o->vdev_args[i], &a);
		for (j = 0; j < i; j++) {
			xvbd_vdev_parse(o->vdev_args[j], &b);
			if (a == b)
				return xvbd_usage_error(cmd, "--vdev %s: "
					"given twice", o->vdev_args[i]);
		}
	}
	return XVBD_EXIT_OK;
}

/* ---- the command ---- */

int cmd_ab_record(struct xvbd_ctx *ctx, int argc, char **argv)
{
	struct xvbd_ab_rec_opts o = { 0 };
	struct xvbd_ab_record rec = { 0 };
	const char *stopped_by = NULL;
	int rc;

	rc = parse_opts(ctx, argc, argv, &o);
	if (!rc) {
		/* Before libxl and libxenstore start threads. */
		xvbd_ab_recorder_block_signals();
		rc = xvbd_cmd_connect(ctx);
	}
	/* The report stands also when the exit code says "failed": the
	 * run's end (cmd.c) prints it, and under --json adds the failure. */
	if (!rc)
		rc = xvbd_ab_recorder_run(ctx, &o, true, &rec, &stopped_by);
	xvbd_ab_record_free(&rec);
	free(o.vdev_args);
	return rc;
}
