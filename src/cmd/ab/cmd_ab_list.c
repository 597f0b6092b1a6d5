/*
 * cmd_ab_list.c - xvbd ab list [--dir DIR] [SELECTION...]
 *
 * One row per record: id, label, start (UTC), length, domain, mode,
 * whether it ended as planned, and the facts that tell runs apart.  A
 * file that is not a readable record gets its one-line error on stderr;
 * the others are still listed, and the exit code is 1.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "xvbd/ab/ab.h"
#include "xvbd/cmd/cmd.h"
#include "xvbd/cmd/ab/cmd_ab.h"
#include "xvbd/base/util.h"
#include "xvbd/base/vocab.h"

static const struct xvbd_out_label list_labels[] = {
	{ "id", "ID" },
	{ "label", "LABEL" },
	{ "started", "STARTED" },
	{ "domain", "DOMAIN" },
	{ "mode", "MODE" },
	{ "complete", "COMPLETE" },
	{ "facts", "FACTS" },
	{ NULL, NULL },
};

static void render_row(struct xvbd_out *o, const struct xvbd_ab_record *r)
{
	char buf[512];
	size_t i;

	xvbd_out_obj_begin(o, NULL);
	xvbd_out_str(o, "id", r->id);
	xvbd_out_str(o, "label", r->label);
	xvbd_ab_cli_time(r->started_unix_ns, buf, sizeof(buf));
	xvbd_out_str(o, "started", buf);
	xvbd_out_fixed_opt(o, XVBD_QN(DURATION_S), true,
			   (double)xvbd_ab_cli_duration_ns(r) / 1e9, 1);
	xvbd_out_str(o, "domain", r->domain);
	xvbd_out_str(o, "mode", xvbd_ab_mode_name(r->mode));
	xvbd_out_bool(o, "complete", r->complete);
	if (xvbd_out_is_json(o)) {
		/* every fact, an object as ab export and ab show give them */
		xvbd_out_obj_begin(o, "facts");
		for (i = 0; i < r->fp.n; i++)
			xvbd_out_str(o, r->fp.facts[i].key,
				     r->fp.facts[i].value);
		xvbd_out_obj_end(o);
	} else {
		/* a table cell: the facts that tell runs apart */
		xvbd_ab_cli_key_facts(r, buf, sizeof(buf));
		xvbd_out_str(o, "facts", buf);
	}
	xvbd_out_obj_end(o);
}

enum { O_DIR };

const struct xvbd_cmdopt cmd_ab_list_opts[] = {
	[O_DIR] = XVBD_AB_ROW_DIR,
	XVBD_OPT_END,
};

static int parse_opts(struct xvbd_ctx *ctx, int argc, char **argv,
		      const char **dir, int *first)
{
	const struct xvbd_optval *v = xvbd_opt(ctx, O_DIR);
	int i, rc;

	*dir = XVBD_AB_DIR_DEFAULT;
	if (v) {
		rc = xvbd_ab_cli_dir(ctx->cmd, v->arg);
		if (rc)
			return rc;
		*dir = v->arg;
	}
	*first = 0;
	for (i = *first; i < argc; i++) {
		rc = xvbd_ab_cli_operand(ctx->cmd, argv[i]);
		if (rc)
			return rc;
	}
	return XVBD_EXIT_OK;
}

int cmd_ab_list(struct xvbd_ctx *ctx, int argc, char **argv)
{
	struct xvbd_ab_err e = { "" };
	struct xvbd_ab_record *recs = NULL, rec;
	char **paths = NULL;
	size_t n = 0, npaths = 0, i;
	const char *dir;
	int first = 0, rc, bad = 0;

	rc = parse_opts(ctx, argc, argv, &dir, &first);
	if (rc)
		return rc;
	rc = xvbd_cmd_connect(ctx);
	if (rc)
		return rc;
	xvbd_out_labels(ctx->out, list_labels);
	if (first < argc) {
		/* Named records: all must be readable (one line if not). */
		rc = xvbd_ab_cli_select(ctx->cmd, dir, &argv[first],
					argc - first, &recs, &n);
		if (rc)
			return rc;
		xvbd_out_arr_begin(ctx->out, NULL);
		for (i = 0; i < n; i++)
			render_row(ctx->out, &recs[i]);
		xvbd_out_arr_end(ctx->out);
		xvbd_ab_records_free(recs, n);
		return XVBD_EXIT_OK;
	}
	rc = xvbd_ab_store_list(dir, &paths, &npaths, &e);
	/* Nothing recorded yet on this host: an empty list.  A --dir
	 * that does not exist is more likely a typo: an error. */
	if (rc && !(rc == -ENOENT && !strcmp(dir, XVBD_AB_DIR_DEFAULT))) {
		xvbd_err(ctx->cmd->name, NULL, "%s", e.msg);
		return XVBD_EXIT_FAIL;
	}
	xvbd_out_arr_begin(ctx->out, NULL);
	for (i = 0; i < npaths; i++) {
		if (xvbd_ab_store_read(paths[i], true, &rec, &e)) {
			xvbd_err(ctx->cmd->name, NULL, "%s", e.msg);
			bad++;
		} else {
			render_row(ctx->out, &rec);
			xvbd_ab_record_free(&rec);
		}
		free(paths[i]);
	}
	free(paths);
	xvbd_out_arr_end(ctx->out);
	if (!bad)
		return XVBD_EXIT_OK;
	/* The readable records are still shown (cmd.c ends the document);
	 * the exit code tells. */
	return XVBD_EXIT_FAIL;
}
