/*
 * cmd_ab_compare.c - xvbd ab compare A B [--confidence P] [--metric M]...
 *		      [--test welch|mwu] [--unpaired] [--equivalence P]
 *		      [--min-effect P] [--interference-cpu P] [--no-adjust]
 *		      [--dir DIR] [--json]
 *
 * A and B each select records (a label: all its runs; an id; a record
 * file).  Per metric: the centres of A and B with their intervals, the
 * difference absolute and in %, and a verdict naming the test (the
 * paired t when the runs are the pairs of one ab run experiment, unless
 * --unpaired); with --equivalence P whether A and B are the same within
 * +-P %; for an unsettled verdict the runs that would detect
 * --min-effect; then the fingerprint differences and every warning (a
 * run other domains or another user of its backing device interfered
 * with among them).  Exit 0 whatever the
 * verdict, 1 when a record cannot be read, 2 on usage errors.  The
 * statistics and the texts are the ab layer's (ab_compare.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "xvbd/ab/ab.h"
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
};

enum {
	O_CONFIDENCE, O_METRIC, O_TEST, O_UNPAIRED, O_EQUIVALENCE,
	O_MIN_EFFECT, O_INTERFERENCE_CPU, O_NO_ADJUST, O_DIR,
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
	XVBD_OPT_END,
};

static int parse_opts(struct xvbd_ctx *ctx, int argc, char **argv,
		      struct compare_opts *co, int *first)
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
		}
	}
	*first = 0;
	if (argc - *first != 2)
		return xvbd_usage_error(ctx->cmd, argc - *first < 2 ?
					"missing A or B" :
					"too many arguments (A and B only)");
	rc = xvbd_ab_cli_operand(ctx->cmd, argv[*first]);
	if (!rc)
		rc = xvbd_ab_cli_operand(ctx->cmd, argv[*first + 1]);
	if (!rc && !strcmp(argv[*first], argv[*first + 1]))
		rc = xvbd_usage_error(ctx->cmd, "A and B are the same: \"%s\"",
				      argv[*first]);
	return rc;
}

/* A run on both sides would compare a run with itself. */
static const char *overlap(const struct xvbd_ab_record *a, size_t na,
			   const struct xvbd_ab_record *b, size_t nb)
{
	size_t i, j;

	for (i = 0; i < na; i++)
		for (j = 0; j < nb; j++)
			if (!strcmp(a[i].id, b[j].id))
				return a[i].id;
	return NULL;
}

int cmd_ab_compare(struct xvbd_ctx *ctx, int argc, char **argv)
{
	struct compare_opts co = { 0 };
	struct xvbd_ab_record *a = NULL, *b = NULL;
	struct xvbd_ab_comparison cmp = { .variable = -1 };
	size_t na = 0, nb = 0;
	const char *both;
	int first = 0, rc, err;

	rc = parse_opts(ctx, argc, argv, &co, &first);
	if (rc)
		return rc;
	rc = xvbd_cmd_connect(ctx);	/* nothing to open; root if asked */
	if (rc)
		return rc;
	rc = xvbd_ab_cli_select(ctx->cmd, co.dir, &argv[first], 1, &a, &na);
	if (!rc)
		rc = xvbd_ab_cli_select(ctx->cmd, co.dir, &argv[first + 1], 1,
					&b, &nb);
	if (rc)
		goto out;
	both = overlap(a, na, b, nb);
	if (both) {
		xvbd_err(ctx->cmd->name, NULL, "run %s is selected by both A "
			 "and B", both);
		rc = XVBD_EXIT_FAIL;
		goto out;
	}
	err = xvbd_ab_compare_with(a, na, b, nb, &co.cmp, &cmp);
	if (!err)
		err = xvbd_ab_compare_adjust(&cmp, co.some_metric ? co.shown :
					     NULL, !co.no_adjust);
	if (err) {
		xvbd_err(ctx->cmd->name, "compare", "%s", strerror(-err));
		rc = XVBD_EXIT_FAIL;
		goto out;
	}
	xvbd_ab_comparison_render(ctx->out, NULL, &cmp,
				  co.some_metric ? co.shown : NULL);
	rc = XVBD_EXIT_OK;
out:
	xvbd_ab_comparison_free(&cmp);
	xvbd_ab_records_free(a, na);
	xvbd_ab_records_free(b, nb);
	return rc;
}
