/*
 * cmd_ab_compare.c - xvbd ab compare L1 L2 [L3...] [--baseline L]
 *		      [--fail-if-worse P] [--confidence P] [--metric M]...
 *		      [--test welch|mwu] [--unpaired] [--equivalence P]
 *		      [--min-effect P] [--interference-cpu P] [--no-adjust]
 *		      [--dir DIR] [--json]
 *
 * Each operand selects records (a label: all its runs; an id; a record
 * file).  Two: per metric the centres of A and B with their intervals,
 * the difference absolute and in %, and a verdict naming the test (the
 * paired t when the runs are the pairs of one ab run experiment, unless
 * --unpaired); with --equivalence P whether A and B are the same within
 * +-P %; for an unsettled verdict the runs that would detect
 * --min-effect; then the fingerprint differences and every warning (a
 * run other domains or another user of its backing device interfered
 * with among them).  --baseline L2 makes L2 the A side.  More than two:
 * the sweep (ab_sweep.c): each level against the baseline (the first,
 * or --baseline), benchstat's table, Holm over levels x metrics.
 *
 * Exit 0 whatever the verdicts, 1 when a record cannot be read, 2 on
 * usage errors; with --fail-if-worse P, 3 when a metric of a level is
 * worse than the baseline by at least P % and proven so (the gate,
 * ab_gate.c), its lines and the "not proven" ones on stderr.  The
 * statistics and the texts are the ab layer's.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xvbd/ab/ab.h"
#include "xvbd/ab/ab_sweep.h"
#include "xvbd/cmd/cmd.h"
#include "xvbd/cmd/ab/cmd_ab.h"
#include "xvbd/base/util.h"

#define CONFIDENCE_DEFAULT	0.95

struct compare_opts {
	struct xvbd_ab_compare_opts cmp;
	bool shown[XVBD_AB_NMETRICS];
	bool some_metric;
	bool no_adjust;
	const char *dir;
	const char *baseline;		/* --baseline; NULL: the first */
	double gate_pct;		/* --fail-if-worse; 0: no gate */
	char **ops;			/* the operands */
	size_t nops;
	size_t base;			/* index of the baseline operand */
};

enum {
	O_CONFIDENCE, O_METRIC, O_TEST, O_UNPAIRED, O_EQUIVALENCE,
	O_MIN_EFFECT, O_INTERFERENCE_CPU, O_NO_ADJUST, O_DIR, O_BASELINE,
	O_FAIL_IF_WORSE,
};

const struct xvbd_cmdopt cmd_ab_compare_opts[] = {
	[O_CONFIDENCE] = XVBD_AB_ROW_CONFIDENCE,
	[O_METRIC] = XVBD_AB_ROW_METRIC("the metrics to show (default: "
					"all)"),
	[O_TEST] = XVBD_AB_ROW_TEST,
	[O_UNPAIRED] = XVBD_OPT_F("unpaired", 0, "compare the runs as two "
		"groups, also when ab run paired them"),
	[O_EQUIVALENCE] = XVBD_AB_ROW_EQUIVALENCE,
	[O_MIN_EFFECT] = XVBD_AB_ROW_MIN_EFFECT,
	[O_INTERFERENCE_CPU] = XVBD_AB_ROW_INTERFERENCE_CPU,
	[O_NO_ADJUST] = XVBD_OPT_F("no-adjust", 0, "no Holm adjustment "
		"for testing several metrics"),
	[O_DIR] = XVBD_AB_ROW_DIR,
	[O_BASELINE] = XVBD_AB_ROW_BASELINE,
	[O_FAIL_IF_WORSE] = XVBD_AB_ROW_FAIL_IF_WORSE,
	XVBD_OPT_END,
};

static int parse_opts(struct xvbd_ctx *ctx, int argc, char **argv,
		      struct compare_opts *co)
{
	const struct xvbd_cmdline *cl = ctx->cl;
	size_t i;
	int rc;

	co->cmp.confidence = CONFIDENCE_DEFAULT;
	co->cmp.test = XVBD_AB_TEST_WELCH;
	co->dir = XVBD_AB_DIR_DEFAULT;
	for (i = 0; i < cl->ngiven; i++) {
		const struct xvbd_optval *v = &cl->given[i];

		switch (v->id) {
		case O_CONFIDENCE:
			co->cmp.confidence = v->fraction;
			break;
		case O_METRIC:
			rc = xvbd_ab_cli_metrics(ctx->cmd, v->arg, co->shown);
			if (rc)
				return rc;
			co->some_metric = true;
			break;
		case O_TEST:
			rc = xvbd_ab_cli_test(ctx->cmd, v->arg, &co->cmp.test);
			if (rc)
				return rc;
			break;
		case O_UNPAIRED:
			co->cmp.unpaired = true;
			break;
		case O_EQUIVALENCE:
			co->cmp.equivalence = v->fraction;
			break;
		case O_MIN_EFFECT:
			co->cmp.min_effect = v->fraction;
			break;
		case O_INTERFERENCE_CPU:
			co->cmp.interference_cpu = v->fraction;
			break;
		case O_NO_ADJUST:
			co->no_adjust = true;
			break;
		case O_DIR:
			rc = xvbd_ab_cli_dir(ctx->cmd, v->arg);
			if (rc)
				return rc;
			co->dir = v->arg;
			break;
		case O_BASELINE:
			co->baseline = v->arg;
			break;
		case O_FAIL_IF_WORSE:
			/* in %, as the gate compares it with the % column */
			co->gate_pct = v->fraction * 100;
			break;
		}
	}
	co->ops = argv;
	co->nops = (size_t)argc;
	return xvbd_ab_cli_levels(ctx->cmd, co->ops, co->nops, co->baseline,
				  "compared", &co->base);
}

static int gate(struct xvbd_ctx *ctx, const struct compare_opts *co,
		const struct xvbd_ab_comparison *const *cmp, size_t n)
{
	return xvbd_ab_cli_gate(ctx->cmd, cmp, n, co->some_metric ? co->shown :
				NULL, co->gate_pct, co->cmp.confidence, NULL,
				NULL);
}

/* Two labels: ab compare as it has always been, A the baseline. */
static int compare_two(struct xvbd_ctx *ctx, const struct compare_opts *co,
		       const struct xvbd_ab_level *lv)
{
	const struct xvbd_ab_level *a = &lv[co->base], *b = &lv[1 - co->base];
	struct xvbd_ab_comparison cmp = { .variable = -1 };
	const struct xvbd_ab_comparison *one = &cmp;
	int rc = XVBD_EXIT_OK, err;

	err = xvbd_ab_compare_with(a->recs, a->n, b->recs, b->n, &co->cmp,
				   &cmp);
	if (!err)
		err = xvbd_ab_compare_adjust(&cmp, co->some_metric ?
					     co->shown : NULL, !co->no_adjust);
	if (err) {
		xvbd_err(ctx->cmd->name, "compare", "%s", strerror(-err));
		return XVBD_EXIT_FAIL;
	}
	xvbd_ab_comparison_render(ctx->out, NULL, &cmp,
				  co->some_metric ? co->shown : NULL);
	if (co->gate_pct > 0)
		rc = gate(ctx, co, &one, 1);
	xvbd_ab_comparison_free(&cmp);
	return rc;
}

static int compare_sweep(struct xvbd_ctx *ctx, const struct compare_opts *co,
			 const struct xvbd_ab_level *lv)
{
	struct xvbd_ab_sweep_opts so = {
		.cmp = co->cmp, .no_adjust = co->no_adjust,
		.shown = co->some_metric ? co->shown : NULL,
	};
	const struct xvbd_ab_comparison *cmp[XVBD_AB_LEVELS_MAX];
	struct xvbd_ab_sweep *s = calloc(1, sizeof(*s));
	size_t i;
	int rc = XVBD_EXIT_OK, err;

	if (!s) {
		xvbd_err(ctx->cmd->name, "compare", "%s", strerror(ENOMEM));
		return XVBD_EXIT_FAIL;
	}
	err = xvbd_ab_sweep_compare(lv, co->nops, co->base, &so, s);
	if (err) {
		xvbd_err(ctx->cmd->name, "compare", "%s", strerror(-err));
		free(s);
		return XVBD_EXIT_FAIL;
	}
	xvbd_ab_sweep_render(ctx->out, NULL, s, so.shown);
	for (i = 0; i < co->nops; i++)
		cmp[i] = i == co->base ? NULL : &s->cmp[i];
	if (co->gate_pct > 0)
		rc = gate(ctx, co, cmp, co->nops);
	xvbd_ab_sweep_free(s);
	free(s);
	return rc;
}

int cmd_ab_compare(struct xvbd_ctx *ctx, int argc, char **argv)
{
	struct compare_opts co = { 0 };
	struct xvbd_ab_level lv[XVBD_AB_LEVELS_MAX] = { { 0 } };
	struct xvbd_ab_record *recs[XVBD_AB_LEVELS_MAX] = { NULL };
	size_t i;
	int rc;

	rc = parse_opts(ctx, argc, argv, &co);
	if (rc)
		return rc;
	rc = xvbd_cmd_connect(ctx);	/* nothing to open; root if asked */
	if (rc)
		return rc;
	rc = xvbd_ab_cli_select_levels(ctx->cmd, co.dir, co.ops, co.nops, lv,
				       recs);
	if (!rc)
		xvbd_ab_cli_default_metrics(lv, co.nops, co.shown,
					    &co.some_metric);
	if (!rc)
		rc = co.nops == 2 ? compare_two(ctx, &co, lv) :
		     compare_sweep(ctx, &co, lv);
	for (i = 0; i < co.nops; i++)
		xvbd_ab_records_free(recs[i], lv[i].n);
	return rc;
}
