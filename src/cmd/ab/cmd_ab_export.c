/*
 * cmd_ab_export.c - xvbd ab export [--csv|--json] [--dir DIR] [SELECTION...]
 *
 * One row per run for a spreadsheet or a notebook: what the run was, its
 * summary metrics (recomputed from the raw counters, units in the column
 * names), the intervals left out, and every fingerprint fact as a column
 * "fp.<key>" (the union over the runs; empty where a run lacks it).  CSV
 * (RFC 4180) by default, or one JSON array with a "facts" object per run.
 * No selection: every record of the store.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xvbd/ab/ab.h"
#include "xvbd/cmd/cmd.h"
#include "xvbd/cmd/ab/cmd_ab.h"
#include "xvbd/base/util.h"
#include "xvbd/base/vocab.h"


/*
 * The columns: what the run was, then its metrics and its rates over the
 * whole window, each under its name in the vocabulary (vocab.h), which
 * --metric takes too.  busy_s is a metric (the busy span) and a head
 * column at once: it is printed once, as the head column.
 */
static const struct {
	int q;			/* enum xvbd_q, or -1: key, no quantity */
	const char *key;
} head_cols[] = {
	{ -1, "id" }, { -1, "label" }, { -1, "started" },
	{ XVBD_Q_DURATION_S, NULL }, { -1, "domain" }, { -1, "vdevs" },
	{ -1, "mode" }, { -1, "workload" }, { -1, "workload_status" },
	{ -1, "complete" }, { XVBD_Q_INTERVALS, NULL },
	{ XVBD_Q_INTERVALS_RESET, NULL }, { XVBD_Q_INTERVALS_FLAGGED, NULL },
	{ XVBD_Q_USED_S, NULL }, { XVBD_Q_BUSY_S, NULL },
};
#define NHEAD	(sizeof(head_cols) / sizeof(head_cols[0]))

/* The rates over the whole window, after the metrics (busy span). */
static const struct {
	enum xvbd_ab_metric m;
	enum xvbd_q col;
} window_cols[] = {
	{ XVBD_AB_RD_IOPS, XVBD_Q_READ_IOPS_WINDOW },
	{ XVBD_AB_WR_IOPS, XVBD_Q_WRITE_IOPS_WINDOW },
	{ XVBD_AB_RD_MBS, XVBD_Q_READ_MB_PER_S_WINDOW },
	{ XVBD_AB_WR_MBS, XVBD_Q_WRITE_MB_PER_S_WINDOW },
};
#define NWINDOW	(sizeof(window_cols) / sizeof(window_cols[0]))
#define NMETRIC_COLS	(XVBD_AB_NMETRICS - 1)	/* all but busy_s */
#define NFIXED	(NHEAD + NMETRIC_COLS + NWINDOW)

/* The fact keys of all runs, sorted, each once (pointers into recs). */
static int fact_keys(const struct xvbd_ab_record *recs, size_t n,
		     const char ***keys, size_t *nkeys)
{
	const char **k = NULL;
	size_t cap = 0, nk = 0, i, j, l;

	for (i = 0; i < n; i++) {
		for (j = 0; j < recs[i].fp.n; j++) {
			const char *key = recs[i].fp.facts[j].key;

			for (l = 0; l < nk && strcmp(k[l], key); l++)
				;
			if (l < nk)
				continue;
			if (nk == cap) {
				const char **grown;

				cap = cap ? cap * 2 : 64;
				grown = realloc(k, cap * sizeof(*k));
				if (!grown) {
					free(k);
					return -ENOMEM;
				}
				k = grown;
			}
			/* Insert sorted. */
			for (l = nk; l > 0 && strcmp(k[l - 1], key) > 0; l--)
				k[l] = k[l - 1];
			k[l] = key;
			nk++;
		}
	}
	*keys = k;
	*nkeys = nk;
	return 0;
}

/*
 * CSV's columns: the head, the metrics, then "fp.<key>" per fact key of
 * any run (allocated: free_columns()).  *n short of the full count: no
 * memory.
 */
static const char **csv_columns(const char **keys, size_t nkeys, size_t *n)
{
	const char **cols = calloc(NFIXED + nkeys + 1, sizeof(*cols));
	char *col;
	size_t i, c = 0;

	*n = 0;
	if (!cols)
		return NULL;
	for (i = 0; i < NHEAD; i++)
		cols[c++] = head_cols[i].q >= 0 ? xvbd_q_name(head_cols[i].q) :
			    head_cols[i].key;
	for (i = 0; i < XVBD_AB_NMETRICS; i++)
		if (i != XVBD_AB_BUSY_SECONDS)
			cols[c++] = xvbd_ab_metric_name((int)i);
	for (i = 0; i < NWINDOW; i++)
		cols[c++] = xvbd_q_name(window_cols[i].col);
	for (i = 0; i < nkeys; i++) {
		if (asprintf(&col, "fp.%s", keys[i]) < 0)
			break;
		cols[c++] = col;
	}
	*n = c;
	return cols;
}

static void free_columns(const char **cols, size_t n)
{
	size_t i;

	for (i = NFIXED; cols && i < n; i++)
		free((char *)cols[i]);
	free(cols);
}

/* A run's vdevs and facts: an array and an object in JSON, cells in CSV. */
static void export_vdevs(struct xvbd_out *o, const struct xvbd_ab_record *r)
{
	char buf[512];
	size_t k, used = 0;

	if (xvbd_out_mode(o) != XVBD_OUT_CSV) {
		xvbd_out_arr_begin(o, "vdevs");
		for (k = 0; k < r->nvdevs; k++)
			xvbd_out_str(o, NULL, r->vdevs[k]);
		xvbd_out_arr_end(o);
		return;
	}
	buf[0] = '\0';
	for (k = 0; k < r->nvdevs && used < 500; k++)
		used += (size_t)snprintf(buf + used, sizeof(buf) - used,
					 "%s%s", k ? " " : "", r->vdevs[k]);
	xvbd_out_str(o, "vdevs", buf);
}

static void export_facts(struct xvbd_out *o, const struct xvbd_ab_record *r)
{
	char key[XVBD_AB_ID_MAX * 4];
	bool csv = xvbd_out_mode(o) == XVBD_OUT_CSV;
	size_t k;

	if (!csv)
		xvbd_out_obj_begin(o, "facts");
	for (k = 0; k < r->fp.n; k++) {
		snprintf(key, sizeof(key), "%s%s", csv ? "fp." : "",
			 r->fp.facts[k].key);
		xvbd_out_str(o, key, r->fp.facts[k].value);
	}
	if (!csv)
		xvbd_out_obj_end(o);
}

/* The runs, one row each: JSON's array of objects, CSV's lines. */
static void export_runs(struct xvbd_out *o, const struct xvbd_ab_record *recs,
			const struct xvbd_ab_summary *sums, size_t n)
{
	char buf[64];
	size_t i, k;
	int m;

	xvbd_out_arr_begin(o, NULL);
	for (i = 0; i < n; i++) {
		const struct xvbd_ab_record *r = &recs[i];
		const struct xvbd_ab_summary *s = &sums[i];

		xvbd_out_obj_begin(o, NULL);
		xvbd_out_str(o, "id", r->id);
		xvbd_out_str(o, "label", r->label);
		xvbd_ab_cli_time(r->started_unix_ns, buf, sizeof(buf));
		xvbd_out_str(o, "started", buf);
		xvbd_out_fixed_opt(o, XVBD_QN(DURATION_S), true,
				   (double)xvbd_ab_cli_duration_ns(r) / 1e9, 3);
		xvbd_out_str(o, "domain", r->domain);
		export_vdevs(o, r);
		xvbd_out_str(o, "mode", xvbd_ab_mode_name(r->mode));
		xvbd_out_str(o, "workload", r->workload);
		xvbd_out_uint(o, "workload_status",
			      (uint64_t)r->workload_status);
		xvbd_out_bool(o, "complete", r->complete);
		xvbd_out_uint(o, XVBD_QN(INTERVALS), s->nintervals);
		xvbd_out_uint(o, XVBD_QN(INTERVALS_RESET), s->nreset);
		xvbd_out_uint(o, XVBD_QN(INTERVALS_FLAGGED), s->nflagged);
		xvbd_out_fixed_opt(o, XVBD_QN(USED_S), true,
				   (double)s->used_ns / 1e9, 3);
		xvbd_out_fixed_opt(o, XVBD_QN(BUSY_S), true,
				   (double)s->busy_ns / 1e9, 3);
		for (m = 0; m < XVBD_AB_NMETRICS; m++)
			if (m != XVBD_AB_BUSY_SECONDS)
				xvbd_out_fixed_opt(o, xvbd_ab_metric_name(m),
						   s->known[m], s->value[m],
						   xvbd_ab_metrics[m].decimals +
						   2);
		for (k = 0; k < NWINDOW; k++)
			xvbd_out_fixed_opt(o, xvbd_q_name(window_cols[k].col),
					   s->known[window_cols[k].m],
					   s->window[window_cols[k].m],
					   xvbd_ab_metrics[window_cols[k].m]
					   .decimals + 2);
		export_facts(o, r);
		xvbd_out_obj_end(o);
	}
	xvbd_out_arr_end(o);
}

/* CSV through its own out handle: the columns must outlive it. */
static int export_csv(const struct xvbd_ab_record *recs,
		      const struct xvbd_ab_summary *sums, size_t n,
		      const char **keys, size_t nkeys)
{
	struct xvbd_out *o;
	const char **cols;
	size_t ncols;
	int err = 0;

	cols = csv_columns(keys, nkeys, &ncols);
	o = xvbd_out_new_mode(stdout, XVBD_OUT_CSV);
	if (!cols || ncols != NFIXED + nkeys || !o) {
		err = -ENOMEM;
		goto out;
	}
	xvbd_out_csv_columns(o, cols, ncols, true);
	export_runs(o, recs, sums, n);
	if (xvbd_out_finish(o))
		err = -EIO;
out:
	xvbd_out_free(o);
	free_columns(cols, ncols);
	return err;
}

enum { O_CSV, O_DIR };

const struct xvbd_cmdopt cmd_ab_export_opts[] = {
	[O_CSV] = XVBD_OPT_F("csv", 0, "CSV, a header then a row per run "
		"(the default; --json: a JSON array)"),
	[O_DIR] = XVBD_AB_ROW_DIR,
	XVBD_OPT_END,
};

int cmd_ab_export(struct xvbd_ctx *ctx, int argc, char **argv)
{
	const char *dir = XVBD_AB_DIR_DEFAULT;
	bool json = ctx->opts->json, csv = xvbd_opt(ctx, O_CSV) != NULL;
	const struct xvbd_optval *v = xvbd_opt(ctx, O_DIR);
	struct xvbd_ab_record *recs = NULL;
	struct xvbd_ab_summary *sums = NULL;
	const char **keys = NULL;
	size_t n = 0, nkeys = 0, i;
	int first = 0, rc, err = 0;

	if (v) {
		rc = xvbd_ab_cli_dir(ctx->cmd, v->arg);
		if (rc)
			return rc;
		dir = v->arg;
	}
	if (csv && json)
		return xvbd_usage_error(ctx->cmd, "--csv and --json exclude "
					"each other");
	for (i = (size_t)first; i < (size_t)argc; i++) {
		rc = xvbd_ab_cli_operand(ctx->cmd, argv[i]);
		if (rc)
			return rc;
	}
	rc = xvbd_cmd_connect(ctx);
	if (!rc)
		rc = xvbd_ab_cli_select(ctx->cmd, dir, &argv[first],
					argc - first, &recs, &n);
	if (rc)
		return rc;
	sums = calloc(n ? n : 1, sizeof(*sums));
	if (!sums)
		err = -ENOMEM;
	for (i = 0; i < n && !err; i++)
		err = xvbd_ab_summarize(&recs[i], &sums[i]);
	if (err)
		goto out;
	if (json) {
		export_runs(ctx->out, recs, sums, n);
	} else {
		err = fact_keys(recs, n, &keys, &nkeys);
		if (!err)
			err = export_csv(recs, sums, n, keys, nkeys);
	}
out:
	if (err) {
		xvbd_err(ctx->cmd->name, err == -EIO ? "stdout" : "export",
			 "%s", err == -EIO ? "write failed" : strerror(-err));
		rc = XVBD_EXIT_FAIL;
	}
	free(keys);
	free(sums);
	xvbd_ab_records_free(recs, n);
	return rc;
}
