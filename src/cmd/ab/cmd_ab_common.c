/*
 * cmd_ab_common.c - what the `xvbd ab` commands that read records share:
 * operand and option checks (before any file is touched), selecting
 * records through the store, and small formatters.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "xvbd/ab/ab.h"
#include "xvbd/ab/ab_sweep.h"
#include "xvbd/base/out.h"
#include "xvbd/cmd/ab/cmd_ab.h"
#include "xvbd/base/util.h"

static bool printable(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f)
			return false;
	return true;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t ls = strlen(s), lx = strlen(suffix);

	return ls >= lx && !strcmp(s + ls - lx, suffix);
}

int xvbd_ab_cli_operand(const struct xvbd_cmd *cmd, const char *op)
{
	size_t len = strlen(op), i;

	if (strchr(op, '/') || ends_with(op, ".json")) {
		if (len < PATH_MAX && printable(op))
			return XVBD_EXIT_OK;
	} else if (len && len < XVBD_AB_ID_MAX && op[0] != '.' &&
		   op[0] != '-') {
		for (i = 0; i < len; i++)
			if (!strchr("abcdefghijklmnopqrstuvwxyz"
				    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-",
				    op[i]))
				break;
		if (i == len)
			return XVBD_EXIT_OK;
	}
	/* %s of an unprintable operand would copy it to the terminal. */
	return xvbd_usage_error(cmd, "\"%.80s\": not a label, record id or "
				"record file (.json)",
				printable(op) ? op : "(unprintable)");
}

int xvbd_ab_cli_dir(const struct xvbd_cmd *cmd, const char *dir)
{
	if (!*dir || strlen(dir) >= PATH_MAX - XVBD_AB_ID_MAX - 8 ||
	    !printable(dir))
		return xvbd_usage_error(cmd, "--dir: not a directory name");
	return XVBD_EXIT_OK;
}

int xvbd_ab_cli_metric(const char *cmd_name, const char *name)
{
	bool old;
	int m = xvbd_ab_metric_find(name, &old);

	/* read with a note: scripts written before the table go on working */
	if (m >= 0 && old && !xvbd_usage_is_quiet())
		xvbd_err(cmd_name, "warning", "--metric %s: now called %s; "
			 "the old name is still read", name,
			 xvbd_ab_metric_name(m));
	return m;
}

int xvbd_ab_cli_metrics(const struct xvbd_cmd *cmd, const char *arg,
			bool *shown)
{
	char *copy = strdup(arg), *tok, *save = NULL;
	int m, rc = XVBD_EXIT_OK, named = 0;

	if (!copy) {
		xvbd_err(cmd->name, "--metric", "%s", strerror(ENOMEM));
		return XVBD_EXIT_FAIL;
	}
	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		m = xvbd_ab_cli_metric(cmd->name, tok);
		if (m < 0) {
			char names[1536] = "";
			size_t at = 0;

			/* Bounded: the list grows with the metrics. */
			for (m = 0; m < XVBD_AB_NMETRICS && at < sizeof(names);
			     m++)
				at += (size_t)snprintf(names + at,
						       sizeof(names) - at,
						       "%s%s", m ? ", " : "",
						       xvbd_ab_metric_name(m));
			rc = xvbd_usage_error(cmd, "--metric: \"%.40s\": "
					      "unknown metric (%s)",
					      printable(tok) ? tok : "?",
					      names);
			break;
		}
		shown[m] = true;
		named++;
	}
	if (!rc && !named)
		rc = xvbd_usage_error(cmd, "--metric: no metric named");
	free(copy);
	return rc;
}

void xvbd_ab_cli_default_metrics(const struct xvbd_ab_level *lv, size_t n,
				 bool *shown, bool *some)
{
	bool all[XVBD_AB_NMETRICS], part[XVBD_AB_NMETRICS], cut = false;
	size_t i;
	int m;

	if (*some)
		return;
	for (m = 0; m < XVBD_AB_NMETRICS; m++)
		all[m] = false;
	for (i = 0; i < n; i++) {
		xvbd_ab_metrics_default(lv[i].recs, lv[i].n, part);
		for (m = 0; m < XVBD_AB_NMETRICS; m++)
			all[m] |= part[m];
	}
	for (m = 0; m < XVBD_AB_NMETRICS; m++)
		cut |= !all[m];
	if (!cut)
		return;
	memcpy(shown, all, sizeof(all));
	*some = true;
}

int xvbd_ab_cli_test(const struct xvbd_cmd *cmd, const char *arg,
		     enum xvbd_ab_test *test)
{
	if (!strcmp(arg, "welch"))
		*test = XVBD_AB_TEST_WELCH;
	else if (!strcmp(arg, "mwu"))
		*test = XVBD_AB_TEST_MWU;
	else
		return xvbd_usage_error(cmd, "--test: expected welch or mwu");
	return XVBD_EXIT_OK;
}

/* Move the records of more[] onto *recs, a record already there freed. */
static int append_unique(struct xvbd_ab_record **recs, size_t *n,
			 struct xvbd_ab_record *more, size_t nmore)
{
	struct xvbd_ab_record *grown;
	size_t i, j;

	grown = realloc(*recs, (*n + nmore + 1) * sizeof(*grown));
	if (!grown) {
		xvbd_ab_records_free(more, nmore);
		return -ENOMEM;
	}
	*recs = grown;
	for (i = 0; i < nmore; i++) {
		for (j = 0; j < *n; j++)
			if (!strcmp(grown[j].id, more[i].id))
				break;
		if (j < *n) {
			xvbd_ab_record_free(&more[i]);
			continue;
		}
		grown[(*n)++] = more[i];
	}
	free(more);
	return 0;
}

int xvbd_ab_cli_select(const struct xvbd_cmd *cmd, const char *dir,
		       char **ops, int nops, struct xvbd_ab_record **recs,
		       size_t *n)
{
	struct xvbd_ab_err e = { "" };
	struct xvbd_ab_record *got;
	char **paths = NULL;
	size_t ngot, npaths = 0, i;
	int k, rc = 0;

	*recs = NULL;
	*n = 0;
	for (k = 0; k < nops && !rc; k++) {
		rc = xvbd_ab_store_select(dir, ops[k], &got, &ngot, &e);
		if (!rc)
			rc = append_unique(recs, n, got, ngot);
	}
	if (!nops) {
		rc = xvbd_ab_store_list(dir, &paths, &npaths, &e);
		for (i = 0; i < npaths && !rc; i++) {
			got = calloc(1, sizeof(*got));
			if (!got) {
				rc = -ENOMEM;
				break;
			}
			rc = xvbd_ab_store_read(paths[i], true, got, &e);
			if (rc) {
				free(got);
				break;
			}
			rc = append_unique(recs, n, got, 1);
		}
		for (i = 0; i < npaths; i++)
			free(paths[i]);
		free(paths);
	}
	if (!rc) {
		/* Named on purpose, read as asked: but said. */
		for (i = 0; i < *n; i++)
			if ((*recs)[i].untrusted)
				xvbd_err(cmd->name, "warning", "%s: %s",
					 (*recs)[i].path,
					 (*recs)[i].untrusted);
		return XVBD_EXIT_OK;
	}
	/* One line: the store's message names the file and the problem. */
	if (rc == -ENOMEM && !e.msg[0])
		xvbd_err(cmd->name, "records", "%s", strerror(ENOMEM));
	else
		xvbd_err(cmd->name, NULL, "%s", e.msg[0] ? e.msg :
			 strerror(-rc));
	xvbd_ab_records_free(*recs, *n);
	*recs = NULL;
	*n = 0;
	return XVBD_EXIT_FAIL;
}

void xvbd_ab_cli_time(int64_t unix_ns, char *buf, size_t len)
{
	time_t t = (time_t)(unix_ns / 1000000000);
	struct tm tm;

	if (unix_ns < 0 || !gmtime_r(&t, &tm) ||
	    !strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm))
		snprintf(buf, len, "-");
}

uint64_t xvbd_ab_cli_duration_ns(const struct xvbd_ab_record *rec)
{
	return rec->nsamples ? rec->samples[rec->nsamples - 1].t_ns : 0;
}

/* buf += prefix value, bounded; nothing when the value is absent. */
static void put(char *buf, size_t len, const char *prefix, const char *v)
{
	size_t used = strlen(buf);

	if (v && used < len)
		snprintf(buf + used, len - used, "%s%s", prefix, v);
}

void xvbd_ab_cli_key_facts(const struct xvbd_ab_record *rec, char *buf,
			   size_t len)
{
	static const char *const sub[] = {
		"backend", "dom0_cache", "ring_pages", "queues",
	};
	static const char *const prefix[] = {
		" ", " cache ", " ring ", " queues ",
	};
	char key[XVBD_AB_ID_MAX + 32];
	size_t i, k;

	buf[0] = '\0';
	put(buf, len, "vcpus ", xvbd_ab_fp_get(&rec->fp, "guest.vcpus"));
	for (i = 0; i < rec->nvdevs; i++) {
		put(buf, len, *buf ? "; " : "", rec->vdevs[i]);
		for (k = 0; k < sizeof(sub) / sizeof(sub[0]); k++) {
			snprintf(key, sizeof(key), "vbd.%s.%s", rec->vdevs[i],
				 sub[k]);
			put(buf, len, prefix[k], xvbd_ab_fp_get(&rec->fp, key));
		}
	}
	if (!*buf)
		snprintf(buf, len, "-");
}

int xvbd_ab_cli_levels(const struct xvbd_cmd *cmd, char **ops, size_t nops,
		       const char *baseline, const char *what, size_t *base)
{
	size_t i, j;
	int rc;

	if (nops < 2)
		return xvbd_usage_error(cmd, "missing A or B: give two labels "
					"or more");
	if (nops > XVBD_AB_LEVELS_MAX)
		return xvbd_usage_error(cmd, "%zu labels: at most %d (split "
					"the sweep)", nops,
					XVBD_AB_LEVELS_MAX);
	for (i = 0; i < nops; i++) {
		rc = xvbd_ab_cli_operand(cmd, ops[i]);
		if (rc)
			return rc;
		for (j = 0; j < i; j++)
			if (!strcmp(ops[i], ops[j]))
				return xvbd_usage_error(cmd, "\"%s\" given "
							"twice: each label "
							"once", ops[i]);
	}
	*base = 0;
	if (!baseline)
		return XVBD_EXIT_OK;
	rc = xvbd_ab_cli_operand(cmd, baseline);
	if (rc)
		return rc;
	for (i = 0; i < nops; i++)
		if (!strcmp(ops[i], baseline)) {
			*base = i;
			return XVBD_EXIT_OK;
		}
	return xvbd_usage_error(cmd, "--baseline %s: not one of the labels "
				"%s (give it among them)", baseline, what);
}

/* A run selected by two operands, said; XVBD_EXIT_FAIL, else OK. */
static int levels_overlap(const struct xvbd_cmd *cmd, char **ops, size_t n,
			  const struct xvbd_ab_level *lv)
{
	size_t i, j, a, b;

	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++)
			for (a = 0; a < lv[i].n; a++)
				for (b = 0; b < lv[j].n; b++) {
					if (strcmp(lv[i].recs[a].id,
						   lv[j].recs[b].id))
						continue;
					xvbd_err(cmd->name, NULL, "run %s is "
						 "selected by both %s and %s",
						 lv[i].recs[a].id, ops[i],
						 ops[j]);
					return XVBD_EXIT_FAIL;
				}
	return XVBD_EXIT_OK;
}

int xvbd_ab_cli_select_levels(const struct xvbd_cmd *cmd, const char *dir,
			      char **ops, size_t nops,
			      struct xvbd_ab_level *lv,
			      struct xvbd_ab_record **recs)
{
	size_t i;
	int rc = XVBD_EXIT_OK;

	for (i = 0; i < nops && !rc; i++) {
		rc = xvbd_ab_cli_select(cmd, dir, &ops[i], 1, &recs[i],
					&lv[i].n);
		lv[i].recs = recs[i];
		lv[i].label = recs[i] ? recs[i][0].label : ops[i];
	}
	return rc ? rc : levels_overlap(cmd, ops, nops, lv);
}

/*
 * The gate on stderr: each metric worse by the threshold, failing or
 * not proven, then what it comes to.  Exit 3 on a failure (the output
 * is still printed: cmd.c ends every document).
 */
int xvbd_ab_cli_gate(const struct xvbd_cmd *cmd,
		     const struct xvbd_ab_comparison *const *cmp, size_t n,
		     const bool *shown, double gate_pct, double confidence,
		     struct xvbd_out *out, const char *key)
{
	struct xvbd_ab_gate g;
	char line[1024];
	size_t i;
	int err;

	err = xvbd_ab_gate_judge(cmp, n, shown, gate_pct, &g);
	if (err) {
		xvbd_err(cmd->name, "--fail-if-worse", "%s", strerror(-err));
		return XVBD_EXIT_FAIL;
	}
	for (i = 0; i < g.nhits; i++) {
		xvbd_ab_gate_text(&g, &g.hits[i], confidence, line,
				  sizeof(line));
		fprintf(stderr, "xvbd: %s: gate: %s\n", cmd->name, line);
	}
	if (g.nfailed)	/* an error: --json's msg */
		xvbd_err(cmd->name, "gate", "failed: %zu metric%s worse "
			 "than the baseline by at least %g %% and proven (exit "
			 "%d)", g.nfailed, g.nfailed == 1 ? "" : "s",
			 gate_pct, XVBD_AB_GATE_EXIT);
	else
		fprintf(stderr, "xvbd: %s: gate: passed: no metric proven "
			"worse than the baseline by %g %% or more%s\n",
			cmd->name, gate_pct, g.nunproven ?
			" (some worse by that much, not proven: see above)" :
			"");
	if (out && xvbd_out_is_json(out))
		xvbd_ab_gate_render(out, key, &g);
	err = g.nfailed ? XVBD_AB_GATE_EXIT : XVBD_EXIT_OK;
	xvbd_ab_gate_free(&g);
	return err;
}

int xvbd_ab_cli_gate_levels(const struct xvbd_cmd *cmd,
			    const struct xvbd_ab_level *lv, size_t n,
			    const struct xvbd_ab_compare_opts *co,
			    const bool *shown, double gate_pct,
			    struct xvbd_out *out, const char *key)
{
	struct xvbd_ab_sweep_opts so = { .cmp = *co, .shown = shown };
	const struct xvbd_ab_comparison *cmp[XVBD_AB_LEVELS_MAX] = { NULL };
	struct xvbd_ab_comparison two = { .variable = -1 };
	struct xvbd_ab_sweep *s = NULL;
	size_t i;
	int rc, err;

	if (n == 2) {
		err = xvbd_ab_compare_with(lv[0].recs, lv[0].n, lv[1].recs,
					   lv[1].n, co, &two);
		if (!err)
			err = xvbd_ab_compare_adjust(&two, shown, true);
		cmp[1] = &two;
	} else {
		s = calloc(1, sizeof(*s));
		err = s ? xvbd_ab_sweep_compare(lv, n, 0, &so, s) : -ENOMEM;
		for (i = 1; s && i < n; i++)
			cmp[i] = &s->cmp[i];
	}
	rc = err ? XVBD_EXIT_FAIL : xvbd_ab_cli_gate(cmd, cmp, n, shown,
						      gate_pct, co->confidence,
						      out, key);
	if (err)
		xvbd_err(cmd->name, "--fail-if-worse", "%s", strerror(-err));
	if (n == 2)
		xvbd_ab_comparison_free(&two);
	if (s)
		xvbd_ab_sweep_free(s);
	free(s);
	return rc;
}
