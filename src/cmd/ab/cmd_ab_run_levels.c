/*
 * cmd_ab_run_levels.c - ab run's levels in hot mode, before anything is
 * attached: the labels (the operands, two or more, the first the
 * baseline; or made by --sweep KEY=V1,V2,... as KEY-V1, KEY-V2, ...)
 * and each level's disk from the options that name it:
 *
 *	--disk LABEL=SPEC	--cache LABEL=host|none
 *	--vbd LABEL=VDEV:key=value,...
 *
 * Without "LABEL=" --disk and --cache are every level's; --disk-a/-b,
 * --cache-a/-b and --vbd-a/-b are the first and the second level's (the
 * two-level spelling).  "LABEL=" is a prefix when the text before the
 * first '=' is one of the levels' labels (a label has no ':', ',' or
 * '=', so a spec's "vdev=..." is a prefix only under a level named so).
 * Every error is a usage error: one line, exit 2.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cmd_ab_run_impl.h"
#include "xvbd/ab/ab_sweep.h"
#include "xvbd/base/util.h"

#define CMD	"ab run"

/* What --sweep may vary: the offers attach sets, and the page cache. */
static const char *const sweepable[] = {
	"ring-order", "queues", "indirect-segments", "discard", "trusted",
	"cache", NULL,
};

const char *ab_run_order_name(size_t k)
{
	return k == 2 ? "ABBA" : "Williams";
}

const char *ab_run_levels_given(const struct xvbd_ctx *ctx)
{
	size_t k;

	for (k = 0; k < ctx->cl->ngiven; k++) {
		const struct xvbd_optval *v = &ctx->cl->given[k];

		if (v->id == O_DISK || v->id == O_CACHE || v->id == O_SWEEP)
			return v->spelled;
	}
	return NULL;
}

/* The level arg names ("LABEL=..."), *rest after the '='; else -1. */
static int level_of(const struct run_opts *o, const char *arg,
		    const char **rest)
{
	const char *eq = strchr(arg, '=');
	size_t i;

	*rest = arg;
	if (!eq)
		return -1;
	for (i = 0; i < o->nsides; i++)
		if (strlen(o->side[i].label) == (size_t)(eq - arg) &&
		    !strncmp(o->side[i].label, arg, (size_t)(eq - arg))) {
			*rest = eq + 1;
			return (int)i;
		}
	return -1;
}

/* KEY=V1,V2,...: its key, one level a value, labelled KEY-V. */
static int sweep_levels(struct run_opts *o)
{
	const char *eq = strchr(o->sweep, '='), *v, *end;
	size_t i, klen = eq ? (size_t)(eq - o->sweep) : 0;

	if (!klen || klen >= sizeof(o->sweep_key)) {
		xvbd_err(CMD, "--sweep", "\"%s\": expected KEY=V1,V2,... (such "
			 "as ring-order=0,1,2)", o->sweep);
		return XVBD_EXIT_USAGE;
	}
	for (i = 0; i < klen; i++)	/* one name: '_' is '-' */
		o->sweep_key[i] = o->sweep[i] == '_' ? '-' : o->sweep[i];
	o->sweep_key[klen] = '\0';
	for (i = 0; sweepable[i] && strcmp(sweepable[i], o->sweep_key); i++)
		;
	if (!sweepable[i]) {
		xvbd_err(CMD, "--sweep", "\"%s\": not a setting a level can "
			 "sweep (ring-order, queues, indirect-segments, "
			 "discard, trusted, cache)", o->sweep_key);
		return XVBD_EXIT_USAGE;
	}
	for (v = eq + 1; ; v = end + 1) {
		char *label = o->sweep_label[o->nsides];
		int n;

		end = strchrnul(v, ',');
		if (end == v) {
			xvbd_err(CMD, "--sweep", "\"%s\": an empty value (the "
				 "values are separated by ',')", o->sweep);
			return XVBD_EXIT_USAGE;
		}
		if (o->nsides == XVBD_AB_LEVELS_MAX) {
			xvbd_err(CMD, "--sweep", "more than %d values: split "
				 "the sweep", XVBD_AB_LEVELS_MAX);
			return XVBD_EXIT_USAGE;
		}
		n = snprintf(label, XVBD_AB_LABEL_MAX + 1, "%s-%.*s",
			     o->sweep_key, (int)(end - v), v);
		if (n > XVBD_AB_LABEL_MAX || !xvbd_ab_label_valid(label)) {
			xvbd_err(CMD, "--sweep", "\"%.*s\": not a value of %s "
				 "(letters, digits, '.', '_' and '-' only)",
				 (int)(end - v), v, o->sweep_key);
			return XVBD_EXIT_USAGE;
		}
		o->side[o->nsides].label = label;
		o->hot.side[o->nsides].sweep_key = o->sweep_key;
		o->hot.side[o->nsides].sweep_value = label + klen + 1;
		o->nsides++;
		if (!*end)
			break;
	}
	if (o->nsides < 2) {
		xvbd_err(CMD, "--sweep", "\"%s\": one value: a sweep compares "
			 "two or more (the first is the baseline)", o->sweep);
		return XVBD_EXIT_USAGE;
	}
	return 0;
}

/* The operands: two labels or more, each once. */
static int label_levels(struct xvbd_ctx *ctx, struct run_opts *o, int nargs,
			char **argv)
{
	size_t i, j;

	if (nargs < 2)
		return xvbd_usage_error(ctx->cmd, "with --domain: expected two "
					"labels or more (each level's disk is "
					"--disk LABEL=SPEC)");
	/* (fresh guests: ab_run_fresh_levels checked the count) */
	if (nargs > XVBD_AB_LEVELS_MAX)
		return xvbd_usage_error(ctx->cmd, "%d labels: at most %d "
					"levels (split the experiment)",
					nargs, XVBD_AB_LEVELS_MAX);
	for (i = 0; i < (size_t)nargs; i++) {
		if (!xvbd_ab_label_valid(argv[i])) {
			xvbd_err(CMD, "label", "\"%s\": use letters, digits, "
				 "'.', '_' and '-', not leading '.' or '-'",
				 argv[i]);
			return XVBD_EXIT_USAGE;
		}
		for (j = 0; j < i; j++)
			if (!strcmp(argv[i], argv[j])) {
				xvbd_err(CMD, "label", "\"%s\" given twice: "
					 "give each level its own label",
					 argv[i]);
				return XVBD_EXIT_USAGE;
			}
		o->side[i].label = argv[i];
	}
	o->nsides = (size_t)nargs;
	return 0;
}

/*
 * Fresh guests: LABEL CONFIG pairs, two levels or more, each label once;
 * --vbd LABEL=VDEV:key=value,... to its level (the configs come later,
 * from cmd_ab_run.c).
 */
int ab_run_fresh_levels(struct xvbd_ctx *ctx, struct run_opts *o, int nargs,
			char **argv)
{
	char *labels[XVBD_AB_LEVELS_MAX];
	size_t i, k;
	int rc;

	if (nargs < 4 || nargs % 2)
		return xvbd_usage_error(ctx->cmd, "expected LABEL CONFIG "
					"pairs, two or more (or two labels or "
					"more with --domain)");
	if (nargs > 2 * XVBD_AB_LEVELS_MAX)
		return xvbd_usage_error(ctx->cmd, "%d levels: at most %d "
					"(split the experiment)", nargs / 2,
					XVBD_AB_LEVELS_MAX);
	for (i = 0; i < (size_t)nargs / 2; i++)
		labels[i] = argv[2 * i];
	rc = label_levels(ctx, o, nargs / 2, labels);
	for (k = 0; k < ctx->cl->ngiven && !rc; k++) {
		const struct xvbd_optval *v = &ctx->cl->given[k];
		const char *rest;
		int lv;

		if (v->id != O_VBD)
			continue;
		lv = level_of(o, v->arg, &rest);
		if (lv < 0) {
			xvbd_err(CMD, v->spelled, "\"%s\": name the level: "
				 "--vbd LABEL=VDEV:key=value,...", v->arg);
			return XVBD_EXIT_USAGE;
		}
		rc = ab_run_add_vbd(&o->side[lv], v->spelled, rest);
	}
	return rc;
}

/* One value for a level, or for every level (*common). */
static int put(const struct run_opts *o, const struct xvbd_optval *v,
	       const char **own, const char **own_opt, const char **common,
	       const char *rest, int lv)
{
	const char *what = v->id == O_DISK ? "disk" : "cache";

	if (lv < 0 && *common) {
		xvbd_err(CMD, v->spelled, "given twice for every level: name "
			 "the level (%s LABEL=...)", v->spelled);
		return XVBD_EXIT_USAGE;
	}
	if (lv < 0) {
		*common = rest;
		return 0;
	}
	if (*own) {
		xvbd_err(CMD, v->spelled, "level \"%s\"'s %s given twice (%s "
			 "and %s)", o->side[lv].label, what, *own_opt,
			 v->spelled);
		return XVBD_EXIT_USAGE;
	}
	*own = rest;
	*own_opt = v->spelled;
	return 0;
}

/* --disk, --cache, --vbd: to their levels, or every level. */
static int assign(struct xvbd_ctx *ctx, struct run_opts *o,
		  const char **disk, const char **cache)
{
	size_t k;
	int rc = 0;

	for (k = 0; k < ctx->cl->ngiven && !rc; k++) {
		const struct xvbd_optval *v = &ctx->cl->given[k];
		const char *rest;
		int lv = level_of(o, v->arg ? v->arg : "", &rest);
		struct ab_hot_side *hs = lv >= 0 ? &o->hot.side[lv] : NULL;

		if (v->id == O_DISK) {
			rc = put(o, v, hs ? &hs->spec : NULL,
				 hs ? &hs->spec_opt : NULL, disk, rest, lv);
		} else if (v->id == O_CACHE) {
			if (lv < 0 && strchr(v->arg, '=')) {
				xvbd_err(CMD, v->spelled, "\"%.*s\": not one of "
					 "the levels' labels",
					 (int)strcspn(v->arg, "="), v->arg);
				return XVBD_EXIT_USAGE;
			}
			rc = put(o, v, hs ? &hs->cache : NULL,
				 hs ? &hs->cache_opt : NULL, cache, rest, lv);
		} else if (v->id == O_VBD) {
			if (lv < 0) {
				xvbd_err(CMD, v->spelled, "\"%s\": name the "
					 "level: --vbd LABEL=VDEV:key=value,...",
					 v->arg);
				return XVBD_EXIT_USAGE;
			}
			rc = ab_run_add_vbd(&o->side[lv], v->spelled, rest);
			hs->vbd_opt = v->spelled;
		}
	}
	return rc;
}

int ab_run_levels(struct xvbd_ctx *ctx, struct run_opts *o, int nargs,
		  char **argv)
{
	struct xvbd_ovr_set *sets[XVBD_AB_LEVELS_MAX];
	size_t nsets[XVBD_AB_LEVELS_MAX], i;
	const char *disk = NULL, *cache = NULL;
	int rc;

	if (o->sweep && nargs) {
		xvbd_err(CMD, "--sweep", "it makes the levels and their labels "
			 "(KEY-VALUE): give no LABEL operands");
		return XVBD_EXIT_USAGE;
	}
	rc = o->sweep ? sweep_levels(o) : label_levels(ctx, o, nargs, argv);
	if (!rc)
		rc = assign(ctx, o, &disk, &cache);
	if (rc)
		return rc;
	o->hot.nlevels = o->nsides;
	for (i = 0; i < o->nsides; i++) {
		struct ab_hot_side *hs = &o->hot.side[i];

		if (!hs->spec && disk) {
			hs->spec = disk;
			hs->spec_opt = "--disk";
		}
		if (!hs->spec) {
			xvbd_err(CMD, "--disk", "no disk for level \"%s\": give "
				 "--disk %s=SPEC, or --disk SPEC for every "
				 "level", o->side[i].label, o->side[i].label);
			return XVBD_EXIT_USAGE;
		}
		if (!hs->cache && cache) {
			hs->cache = cache;
			hs->cache_opt = "--cache";
		}
		if (!hs->vbd_opt)
			hs->vbd_opt = i == 0 ? "--vbd-a" : i == 1 ? "--vbd-b" :
				      "--vbd";
		sets[i] = o->side[i].sets;
		nsets[i] = o->side[i].nsets;
	}
	return ab_hot_check(&o->hot, sets, nsets);
}

void ab_run_render_order(struct xvbd_ctx *ctx, const struct run_opts *o)
{
	size_t blocks = o->until_confident ? o->max_pairs : o->pairs;
	size_t order[XVBD_AB_LEVELS_MAX], b, pos;

	xvbd_out_arr_begin(ctx->out, "runs");
	for (b = 0; b < blocks; b++) {
		if (xvbd_ab_order(o->nsides, b, order))
			break;
		for (pos = 0; pos < o->nsides; pos++) {
			xvbd_out_obj_begin(ctx->out, NULL);
			xvbd_out_uint(ctx->out, "block", b + 1);
			xvbd_out_uint(ctx->out, "position", pos + 1);
			xvbd_out_str(ctx->out, "label",
				     o->side[order[pos]].label);
			xvbd_out_obj_end(ctx->out);
		}
	}
	xvbd_out_arr_end(ctx->out);
}
