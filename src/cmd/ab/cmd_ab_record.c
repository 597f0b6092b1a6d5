/*
 * cmd_ab_record.c - xvbd ab record Label --domain D [--vdev V]...
 *		     (--duration S | --run CMD | --until-shutdown)
 *		     [--results auto|fio|benchfmt|none]
 *		     [--interval S] [--warmup S] [--dir DIR] [--json]
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

#define CMD			"ab record"

/* ---- options ---- */

static int parse_opts(struct xvbd_ctx *ctx, int argc, char **argv,
		      struct xvbd_ab_rec_opts *o)
{
	enum { O_DOMAIN = 256, O_VDEV, O_DIR, O_JSON };
	static const struct option longopts[] = {
		{ "domain", required_argument, NULL, O_DOMAIN },
		{ "vdev", required_argument, NULL, O_VDEV },
		{ "duration", required_argument, NULL, XVBD_AB_OPT_DURATION },
		{ "run", required_argument, NULL, XVBD_AB_OPT_RUN },
		{ "until-shutdown", no_argument, NULL,
		  XVBD_AB_OPT_UNTIL_SHUTDOWN },
		{ "interval", required_argument, NULL, XVBD_AB_OPT_INTERVAL },
		{ "warmup", required_argument, NULL, XVBD_AB_OPT_WARMUP },
		{ "results", required_argument, NULL, XVBD_AB_OPT_RESULTS },
		{ "dir", required_argument, NULL, O_DIR },
		{ "json", no_argument, NULL, O_JSON },
		{ NULL, 0, NULL, 0 },
	};
	const struct xvbd_cmd *cmd = ctx->cmd;
	bool have_mode = false;
	uint32_t devid;
	size_t i;
	int c, rc = 0, first;

	o->dir = XVBD_AB_DIR_DEFAULT;
	o->json = ctx->opts->json;
	o->vdev_args = calloc((size_t)argc + 1, sizeof(*o->vdev_args));
	if (!o->vdev_args) {
		xvbd_err(CMD, "options", "%s", strerror(ENOMEM));
		return XVBD_EXIT_FAIL;
	}
	XVBD_FOREACH_OPT_WHILE(!rc, c, cmd, argc, argv, ":",
			       longopts) {
	case O_DOMAIN:
		if (o->domain_spec)
			return xvbd_usage_error(cmd, "--domain given "
						"twice");
		o->domain_spec = optarg;
		break;
	case O_VDEV:
		if (xvbd_vdev_parse(optarg, &devid))
			return xvbd_usage_error(cmd, "--vdev: \"%s\": "
				"not a virtual device name", optarg);
		o->vdev_args[o->nvdev_args++] = optarg;
		break;
	case O_DIR:
		if (!optarg[0])
			return xvbd_usage_error(cmd, "--dir: empty");
		o->dir = optarg;
		break;
	case O_JSON:
		o->json = true;
		break;
	default:
		rc = xvbd_ab_rec_opt(cmd, c, optarg, o, &have_mode);
		if (rc == 1)
			return xvbd_getopt_error(cmd, argv, c);
	}
	if (rc)
		return rc;
	first = xvbd_getopt_index();
	if (argc - first != 1)
		return xvbd_usage_error(cmd, argc == first ? "<Label> missing" :
					"one <Label>, not %d", argc - first);
	o->label = argv[first];
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
	if (!rc && o.json != ctx->opts->json) {
		/* --json after the command name: the same as before it. */
		xvbd_out_free(ctx->out);
		ctx->out = xvbd_out_new(stdout, o.json);
		if (!ctx->out) {
			xvbd_err(CMD, "output", "%s", strerror(ENOMEM));
			rc = XVBD_EXIT_FAIL;
		}
	}
	if (!rc) {
		rc = xvbd_ab_recorder_run(ctx, &o, true, &rec, &stopped_by);
		/* The report stands also when the exit code says "failed". */
		if (rc && rec.path && xvbd_out_finish(ctx->out))
			xvbd_err(CMD, "stdout", "write failed");
	}
	xvbd_ab_record_free(&rec);
	free(o.vdev_args);
	return rc;
}
