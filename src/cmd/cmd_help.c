/*
 * cmd_help.c - xvbd help [command [subcommand] | metrics]
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "xvbd/ab/ab.h"
#include "xvbd/cmd/cmd.h"
#include "xvbd/base/util.h"
#include "xvbd/base/vocab.h"

enum { O_TABLE };

const struct xvbd_cmdopt cmd_help_opts[] = {
	/* what tests/cmdtable.sh reads, as git's --git-completion-helper */
	[O_TABLE] = { "table", 0, XVBD_OPT_FLAG, NULL, XVBD_OPT_HIDDEN, 0, 0,
		      "the commands and their options, one a line" },
	XVBD_OPT_END,
};

static void table_opts(const char *who, const struct xvbd_cmdopt *opts)
{
	const struct xvbd_cmdopt *o;
	const char *v;

	for (o = opts; o && o->name; o++) {
		if (o->flags & XVBD_OPT_HIDDEN)
			continue;
		v = o->kind == XVBD_OPT_FLAG ? "" : "=";
		if (o->letter)
			printf("opt %s -%c%s\n", who, o->letter, v);
		printf("opt %s --%s%s\n", who, o->name, v);
	}
}

/* "cmd NAME" per command, "opt NAME --long[=]" per option ("=": it
 * takes a value), NAME "xvbd" for the global options. */
static void table(const struct xvbd_ctx *ctx)
{
	size_t i;

	for (i = 0; i < ctx->ncmds; i++)
		printf("cmd %s\n", ctx->cmds[i].name);
	table_opts("xvbd", xvbd_global_opts);
	for (i = 0; i < ctx->ncmds; i++)
		table_opts(ctx->cmds[i].name, ctx->cmds[i].opts);
}

/*
 * "xvbd help metrics": the vocabulary (vocab.h), every quantity's name
 * with its text abbreviation, unit, meaning, Prometheus family and old
 * names, and whether ab's --metric takes it: what man xvbd(1)'s METRICS
 * says, from the table itself.
 */
static void metrics(struct xvbd_out *o)
{
	static const struct xvbd_out_label labels[] = {
		{ "abbrev", "TEXT" },
		{ "metric", "--METRIC" },
		{ NULL, NULL },
	};
	int q;

	xvbd_out_labels(o, labels);
	xvbd_out_arr_begin(o, NULL);
	for (q = 0; q < XVBD_Q_N; q++) {
		const struct xvbd_quantity *v = &xvbd_quantities[q];
		bool old;

		xvbd_out_obj_begin(o, NULL);
		xvbd_out_str(o, "name", v->name);
		xvbd_out_str(o, "abbrev", v->abbrev);
		xvbd_out_str(o, "unit", v->unit);
		xvbd_out_bool(o, "metric",
			      xvbd_ab_metric_find(v->name, &old) >= 0);
		if (xvbd_out_is_json(o)) {
			xvbd_out_str(o, "prometheus", v->prom);
			xvbd_out_str(o, "old", v->old);
		}
		xvbd_out_str(o, "meaning", v->meaning);
		xvbd_out_obj_end(o);
	}
	xvbd_out_arr_end(o);
}

int cmd_help(struct xvbd_ctx *ctx, int argc, char **argv)
{
	const struct xvbd_cmd *cmd;
	const char *group;
	bool ambiguous;
	int nwords;

	if (xvbd_opt(ctx, O_TABLE)) {
		table(ctx);
		return XVBD_EXIT_OK;
	}
	if (argc == 0) {
		xvbd_global_usage(ctx->cmds, ctx->ncmds, stdout);
		return XVBD_EXIT_OK;
	}
	if (argc == 1 && !strcmp(argv[0], "metrics")) {
		metrics(ctx->out);
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
