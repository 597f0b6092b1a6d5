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
	bool json;
};

static int parse_opts(struct xvbd_ctx *ctx, int argc, char **argv,
		      struct compare_opts *co, int *first)
{
	static const struct option longopts[] = {
		{ "confidence", required_argument, NULL, 'c' },
		{ "metric", required_argument, NULL, 'm' },
		{ "test", required_argument, NULL, 't' },
		{ "dir", required_argument, NULL, 'd' },
		{ "json", no_argument, NULL, 'j' },
		{ "no-adjust", no_argument, NULL, 'n' },
		{ "unpaired", no_argument, NULL, 'u' },
		{ "equivalence", required_argument, NULL, 'e' },
		{ "min-effect", required_argument, NULL, 'E' },
		{ "interference-cpu", required_argument, NULL, 'I' },
		{ NULL, 0, NULL, 0 },
	};
	int c, rc;

	co->cmp.confidence = CONFIDENCE_DEFAULT;
	co->cmp.test = XVBD_AB_TEST_WELCH;
	co->dir = XVBD_AB_DIR_DEFAULT;
	co->json = ctx->opts->json;
	XVBD_FOREACH_OPT(c, ctx->cmd, argc, argv, ":", longopts) {
	case 'c':
		if (xvbd_opt_confidence(ctx->cmd, "--confidence",
					optarg, &co->cmp.confidence))
			return XVBD_EXIT_USAGE;
		break;
	case 'm':
		rc = xvbd_ab_cli_metrics(ctx->cmd, optarg, co->shown);
		if (rc)
			return rc;
		co->some_metric = true;
		break;
	case 't':
		rc = xvbd_ab_cli_test(ctx->cmd, optarg, &co->cmp.test);
		if (rc)
			return rc;
		break;
	case 'u':
		co->cmp.unpaired = true;
		break;
	case 'e':
		if (xvbd_ab_cli_equivalence(ctx->cmd, optarg,
					    &co->cmp.equivalence))
			return XVBD_EXIT_USAGE;
		break;
	case 'E':
		if (xvbd_ab_cli_min_effect(ctx->cmd, optarg,
					   &co->cmp.min_effect))
			return XVBD_EXIT_USAGE;
		break;
	case 'I':
		if (xvbd_ab_cli_interference_cpu(ctx->cmd, optarg,
						 &co->cmp.interference_cpu))
			return XVBD_EXIT_USAGE;
		break;
	case 'd':
		rc = xvbd_ab_cli_dir(ctx->cmd, optarg);
		if (rc)
			return rc;
		co->dir = optarg;
		break;
	case 'j':
		co->json = true;
		break;
	case 'n':
		co->no_adjust = true;
		break;
	}
	*first = xvbd_getopt_index();
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
	if (co.json != ctx->opts->json) {
		/* --json after the command: the document is JSON. */
		xvbd_out_free(ctx->out);
		ctx->out = xvbd_out_new(stdout, true);
		if (!ctx->out) {
			xvbd_err(ctx->cmd->name, "output", "%s",
				 strerror(ENOMEM));
			return XVBD_EXIT_FAIL;
		}
	}
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
