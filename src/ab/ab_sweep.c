/*
 * ab_sweep.c - k levels against a baseline (see ab_sweep.h).
 *
 * Each level is compared with the baseline by ab compare's own code
 * (xvbd_ab_compare_with: the same tests, intervals, fingerprint
 * differences and warnings as two labels get), then the k - 1
 * comparisons are judged as one family (ab_sweep_fam.c).  That is the
 * "many-to-one" design of Dunnett's problem solved with Holm instead of
 * Dunnett's joint t: valid whatever the correlation the shared baseline
 * brings, and free of an equal-variance assumption the lab's levels
 * (a page cache against a throttled disk) would break.
 *
 * Blocks: runs of one ab run experiment carry its id and their block's
 * index (the record's "pair"), so a level's run and the baseline's run
 * of the same block ran side by side and compare paired.  An experiment
 * stopped mid-block leaves a block without some level's run; that
 * block is left out of every comparison (the pairing needs each block
 * on both sides), said in a warning, rather than the whole experiment
 * losing its pairing.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ab_sweep_impl.h"

int ab_sweep_warn(struct xvbd_ab_sweep *s, const char *fmt, ...)
{
	char **w, *line;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&line, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -ENOMEM;
	w = realloc(s->warnings, (s->nwarnings + 1) * sizeof(*w));
	if (!w) {
		free(line);
		return -ENOMEM;
	}
	s->warnings = w;
	s->warnings[s->nwarnings++] = line;
	return 0;
}

void xvbd_ab_sweep_free(struct xvbd_ab_sweep *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->nlevels && i < XVBD_AB_LEVELS_MAX; i++)
		xvbd_ab_comparison_free(&s->cmp[i]);
	for (i = 0; i < s->nwarnings; i++)
		free(s->warnings[i]);
	free(s->warnings);
	memset(s, 0, sizeof(*s));
}

static int check_levels(const struct xvbd_ab_level *lv, size_t k,
			size_t baseline)
{
	size_t i, j, a, b;

	if (!lv || k < 2 || k > XVBD_AB_LEVELS_MAX || baseline >= k)
		return -EINVAL;
	for (i = 0; i < k; i++)
		if (!lv[i].recs || !lv[i].n || !lv[i].label)
			return -EINVAL;
	/* a run in two levels would be compared with itself */
	for (i = 0; i < k; i++)
		for (j = i + 1; j < k; j++)
			for (a = 0; a < lv[i].n; a++)
				for (b = 0; b < lv[j].n; b++)
					if (!strcmp(lv[i].recs[a].id,
						    lv[j].recs[b].id))
						return -EINVAL;
	return 0;
}

/* Every run of every level from one experiment: its id, else NULL. */
static const char *one_experiment(const struct xvbd_ab_level *lv, size_t k)
{
	const char *exp = lv[0].recs[0].experiment;
	size_t i, j;

	for (i = 0; exp && i < k; i++)
		for (j = 0; j < lv[i].n; j++)
			if (!lv[i].recs[j].experiment || !lv[i].recs[j].pair ||
			    strcmp(lv[i].recs[j].experiment, exp))
				return NULL;
	return exp;
}

/* How many runs of level l belong to block b. */
static size_t runs_in_block(const struct xvbd_ab_level *l, uint32_t b)
{
	size_t j, n = 0;

	for (j = 0; j < l->n; j++)
		n += l->recs[j].pair == b;
	return n;
}

static int u32_cmp(const void *x, const void *y)
{
	const uint32_t *p = x, *q = y;

	return (*p > *q) - (*p < *q);
}

/* The distinct blocks of the levels' runs, sorted; *n of them. */
static uint32_t *blocks_of(const struct xvbd_ab_level *lv, size_t k,
			   size_t *n)
{
	size_t i, j, total = 0, u = 0;
	uint32_t *b;

	for (i = 0; i < k; i++)
		total += lv[i].n;
	b = calloc(total, sizeof(*b));
	if (!b)
		return NULL;
	for (i = 0, total = 0; i < k; i++)
		for (j = 0; j < lv[i].n; j++)
			b[total++] = lv[i].recs[j].pair;
	qsort(b, total, sizeof(*b), u32_cmp);
	for (i = 0; i < total; i++)
		if (!u || b[u - 1] != b[i])
			b[u++] = b[i];
	*n = u;
	return b;
}

/* How many levels have a run in block b. */
static size_t levels_in_block(const struct xvbd_ab_level *lv, size_t k,
			      uint32_t b)
{
	size_t i, have = 0;

	for (i = 0; i < k; i++)
		have += runs_in_block(&lv[i], b) > 0;
	return have;
}

/*
 * Blocks with one run of every level into used[] (shallow copies: the
 * records stay the caller's); the rest dropped with a warning.  A level
 * with two runs in one block is no block design: nothing is dropped and
 * the comparisons fall back to unpaired tests on their own.
 */
static int keep_blocks(struct xvbd_ab_sweep *s, const struct xvbd_ab_level *lv,
		       size_t k, struct xvbd_ab_level *used,
		       struct xvbd_ab_record **copies)
{
	size_t i, j, nblocks = 0, full = 0;
	uint32_t *blocks;
	int rc = 0;

	for (i = 0; i < k; i++)
		for (j = 0; j < lv[i].n; j++)
			if (runs_in_block(&lv[i], lv[i].recs[j].pair) > 1)
				return 0;
	blocks = blocks_of(lv, k, &nblocks);
	if (!blocks)
		return -ENOMEM;
	for (j = 0; j < nblocks; j++)
		full += levels_in_block(lv, k, blocks[j]) == k;
	/* below 2 whole blocks nothing pairs: keep every run, unpaired */
	for (j = 0; j < nblocks && full >= 2 && !rc; j++) {
		size_t have = levels_in_block(lv, k, blocks[j]);

		if (have < k)
			rc = ab_sweep_warn(s, "block %u of experiment %s lacks "
					   "%zu of the %zu levels' runs (an "
					   "experiment stopped mid-block): its "
					   "runs are left out of the paired "
					   "comparisons", blocks[j],
					   s->experiment, k - have, k);
	}
	free(blocks);
	if (rc || full == nblocks || full < 2)
		return rc;
	s->dropped = nblocks - full;
	for (i = 0; i < k; i++) {
		copies[i] = calloc(lv[i].n, sizeof(*copies[i]));
		if (!copies[i])
			return -ENOMEM;
		used[i].recs = copies[i];
		used[i].n = 0;
		for (j = 0; j < lv[i].n; j++)
			if (levels_in_block(lv, k, lv[i].recs[j].pair) == k)
				copies[i][used[i].n++] = lv[i].recs[j];
	}
	return 0;
}

int xvbd_ab_sweep_compare(const struct xvbd_ab_level *lv, size_t k,
			  size_t baseline,
			  const struct xvbd_ab_sweep_opts *opts,
			  struct xvbd_ab_sweep *out)
{
	struct xvbd_ab_level used[XVBD_AB_LEVELS_MAX];
	struct xvbd_ab_record *copies[XVBD_AB_LEVELS_MAX] = { NULL };
	size_t i;
	int rc;

	memset(out, 0, sizeof(*out));
	if (!opts || check_levels(lv, k, baseline))
		return -EINVAL;
	out->nlevels = k;
	out->baseline = baseline;
	out->confidence = opts->cmp.confidence;
	for (i = 0; i < k; i++) {
		out->label[i] = lv[i].label;
		out->runs[i] = lv[i].n;
		out->cmp[i].variable = -1;
		used[i] = lv[i];
	}
	out->experiment = opts->cmp.unpaired ? NULL : one_experiment(lv, k);
	rc = out->experiment ? keep_blocks(out, lv, k, used, copies) : 0;
	for (i = 0; i < k && !rc; i++) {
		if (i == baseline)
			continue;
		rc = xvbd_ab_compare_with(used[baseline].recs,
					  used[baseline].n, used[i].recs,
					  used[i].n, &opts->cmp, &out->cmp[i]);
	}
	if (!rc && out->experiment) {
		i = baseline ? 0 : 1;
		out->blocks = out->cmp[i].test == XVBD_AB_TEST_PAIRED ?
			      out->cmp[i].pairs : 0;
		if (!out->blocks)
			out->experiment = NULL;
	}
	if (!rc)
		rc = ab_sweep_family(out, used, opts);
	if (!rc)
		rc = ab_sweep_geomean(out, used, opts->shown);
	for (i = 0; i < k; i++)
		free(copies[i]);
	if (rc)
		xvbd_ab_sweep_free(out);
	return rc;
}
