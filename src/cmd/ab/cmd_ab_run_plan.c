/*
 * cmd_ab_run_plan.c - ab run --plan FILE: an experiment kept in a file
 * (JSON), so that it can be reviewed and run again.  The plan is turned
 * into the command line it stands for (--domain G, the labels, --disk
 * LABEL=SPEC, --cache LABEL=MODE, --vbd LABEL=VDEV:k=v, --sweep, the
 * workload and the stop rule) and that command line is parsed by the
 * option table, so every value goes through the same grammar and the
 * same checks as when it is typed, and what runs is the same.  A disk
 * given as apply's disk object is read by apply's own reader
 * (plan_disk.h) and stands for the spec of what it describes.  The file
 * is read with apply's rules (plan_json.h): root's alone, bounded, yajl.
 *
 *	{ "domain": "NAME" | ID,	(hot; without it: fresh guests)
 *	  "levels": [ { "label": "L",
 *			"config": "XL CONFIG",	(fresh guests: no disk, cache)
 *			"disk": "XL DISK SPEC" | { apply's disk object },
 *			"cache": "host" | "none",
 *			"vbd": "VDEV:key=value,..." | [ ... ] }, ... ],
 *	| "sweep": "KEY=V1,V2,...",
 *	  "disk": SPEC | { ... }, "cache": MODE,	(every level's)
 *	  "baseline": "L",		(default: the first level)
 *	  "run": CMD, "ready": CMD, "duration": S, "interval": S,
 *	  "results": FILE, "runs": N, "until_confident": BOOL,
 *	  "max_runs": N, "min_effect": P, "metric": M, "confidence": P,
 *	  "fail_if_worse": P }
 *
 * An option the plan has a key for is refused beside --plan (two values,
 * one experiment: which one ran would not be in the file); the others
 * (--dir, --timeout, --warmup, --vdev, ...) may be given.  Every error
 * before the connection names the plan's path: those of the plan's
 * shape here with the place in it ("levels[2].cahce: unknown key"),
 * those of its values through xvbd_err_context.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd_ab_run_impl.h"
#include "xvbd/cmd/plan_disk.h"
#include "xvbd/cmd/plan_json.h"
#include "xvbd/base/util.h"

#define CMD		"ab run"
/* An experiment plan is a short text. */
#define PLAN_MAX	(64 * 1024)
/* root, levels, level, vbd's array */
#define PLAN_DEPTH_MAX	4
#define WORD_MAX	4096

/* A top-level key: the option it stands for (NULL: handled here). */
static const struct {
	const char *key;
	const char *opt;
	int row;		/* the option's row, refused beside --plan */
} top_keys[] = {
	{ "domain", "--domain", O_DOMAIN },
	{ "levels", NULL, -1 },
	{ "sweep", NULL, O_SWEEP },
	{ "disk", "--disk", O_DISK },
	{ "cache", "--cache", O_CACHE },
	{ "baseline", NULL, -1 },
	{ "run", "--run", O_RUN },
	{ "ready", "--ready", O_READY },
	{ "duration", "--duration", O_DURATION },
	{ "interval", "--interval", O_INTERVAL },
	{ "results", "--results", O_RESULTS },
	{ "runs", "--runs", O_RUNS },
	{ "until_confident", NULL, O_UNTIL_CONFIDENT },
	{ "guest_limits", NULL, O_GUEST_LIMITS },
	{ "max_runs", "--max-runs", O_MAX_RUNS },
	{ "min_effect", "--min-effect", O_MIN_EFFECT },
	{ "metric", "--metric", O_METRIC },
	{ "confidence", "--confidence", O_CONFIDENCE },
	{ "fail_if_worse", "--fail-if-worse", O_FAIL_IF_WORSE },
};
#define NTOP	(sizeof(top_keys) / sizeof(top_keys[0]))

/* The rows a plan's "levels" set. */
static const int plan_rows[] = {
	O_DISK_A, O_DISK_B, O_CACHE_A, O_CACHE_B, O_VBD_A, O_VBD_B, O_VBD,
};

/* The command line being built: "ab run" and the plan's words. */
struct words {
	char **v;
	int n, cap;
};

static int push(struct words *w, const char *a, const char *b)
{
	char **grown;
	int len;

	if (w->n + 1 >= w->cap) {
		grown = realloc(w->v, (size_t)(w->cap + 32) * sizeof(*grown));
		if (!grown)
			return -ENOMEM;
		w->v = grown;
		w->cap += 32;
	}
	len = b ? asprintf(&w->v[w->n], "%s=%s", a, b) :
		  asprintf(&w->v[w->n], "%s", a);
	if (len < 0)
		return -ENOMEM;
	w->v[++w->n] = NULL;
	return 0;
}

/* An option and its value. */
static int push_opt(struct words *w, const char *opt, const char *value)
{
	int err = push(w, opt, NULL);

	return err ? err : push(w, value, NULL);
}

/* An option and a level's value of it: --disk LABEL=SPEC. */
static int push_level(struct words *w, const char *opt, const char *label,
		      const char *value)
{
	int err = push(w, opt, NULL);

	return err ? err : push(w, label, value);
}

static bool known_top(const char *k)
{
	size_t i;

	for (i = 0; i < NTOP; i++)
		if (!strcmp(top_keys[i].key, k))
			return true;
	return false;
}

static bool known_level(const char *k)
{
	return !strcmp(k, "label") || !strcmp(k, "disk") ||
	       !strcmp(k, "cache") || !strcmp(k, "vbd") ||
	       !strcmp(k, "config");
}

/*
 * Fresh guests (no "domain"): each level a guest started from its own xl
 * config, as LABEL CONFIG operands; the keys of a hot experiment's disk
 * under test have no place there, nor a config in a hot one.
 */
static int mode_keys(struct xvbd_plan_err *e, const char *where, yajl_val obj,
		     bool fresh, const char *const *hot_keys)
{
	size_t i;

	if (!fresh && xvbd_plan_member(obj, "config"))
		return xvbd_plan_fail(e, where, "config", "a fresh guest's xl "
				      "config: leave out \"domain\" (a hot "
				      "experiment swaps a disk of the running "
				      "guest)");
	for (i = 0; fresh && hot_keys[i]; i++)
		if (xvbd_plan_member(obj, hot_keys[i]))
			return xvbd_plan_fail(e, where, hot_keys[i], "goes with "
					      "\"domain\" (a hot experiment on "
					      "a running guest); a fresh "
					      "guest's disks are its config's");
	return 0;
}

static const char *const level_hot_keys[] = { "disk", "cache", NULL };
static const char *const top_hot_keys[] = { "disk", "cache", "sweep", NULL };

/*
 * What apply's disk object may say that an experiment's disk may not:
 * ab run attaches an image or device that exists (the spec it stands for
 * names no share, creates no image).
 */
static const char *const not_for_levels[] = {
	"share", "credentials", "share_opts", "size", "prealloc", NULL,
};

/*
 * apply's disk object (where: "levels[1].disk", "disk") through the
 * shared reader (plan_disk.h, apply's own), into the options it stands
 * for: its spec (an xl disk spec of what the disk layer describes: the
 * same level description as the spec written out), --cache when it says
 * one, and its offers as a --vbd set of its vdev.  label NULL: every
 * level's, which takes no offers (a --vbd set names its level).
 */
static int disk_object(struct xvbd_plan_err *e, const char *where,
		       yajl_val obj, const char *label, struct words *w)
{
	struct xvbd_disk_desc *d = calloc(1, sizeof(*d));
	char spec[XVBD_DISK_ARG_MAX + 64], offers[WORD_MAX];
	size_t i, n;
	int err;

	if (!d)
		return -ENOMEM;
	err = xvbd_plan_disk_keys(e, where, obj);
	for (i = 0; !err && not_for_levels[i]; i++)
		if (xvbd_plan_member(obj, not_for_levels[i]))
			err = xvbd_plan_fail(e, where, not_for_levels[i],
					     "not for an experiment's disk: ab "
					     "run attaches an image or device "
					     "that exists (\"file\" or \"phy\"; "
					     "apply and attach create images "
					     "and mount shares)");
	if (!err && !xvbd_plan_member(obj, "vdev"))
		err = xvbd_plan_fail(e, where, "vdev", "missing: every level "
				     "is the same disk of the guest (\"xvdb\")");
	if (!err)
		err = xvbd_plan_disk_desc(e, where, obj,
					  XVBD_DISK_SOURCE(XVBD_DISK_FILE) |
					  XVBD_DISK_SOURCE(XVBD_DISK_PHY), d);
	if (!err && d->auto_vdev)
		err = xvbd_plan_fail(e, where, "vdev", "\"auto\": name it "
				     "(\"xvdb\"): every level is the same disk "
				     "of the guest");
	n = (size_t)snprintf(offers, sizeof(offers), "%s:", d->vdev);
	for (i = 0; !err && i < XVBD_OVR_NKEYS; i++)
		if (d->offer_kv[i][0])
			n += (size_t)snprintf(offers + n, sizeof(offers) - n,
					      "%s%s", offers[n - 1] == ':' ?
					      "" : ",", d->offer_kv[i]);
	if (!err && !label && offers[n - 1] != ':')
		err = xvbd_plan_fail(e, where, NULL, "offers for every level: "
				     "give them in each level's disk (or "
				     "sweep one)");
	snprintf(spec, sizeof(spec), "format=raw,vdev=%s,access=%s,target=%s",
		 d->vdev, d->readwrite ? "rw" : "ro", d->target);
	if (!err)
		err = label ? push_level(w, "--disk", label, spec) :
			      push_opt(w, "--disk", spec);
	if (!err && d->have_cache)
		err = label ? push_level(w, "--cache", label,
					 xvbd_cache_name(d->cache)) :
			      push_opt(w, "--cache", xvbd_cache_name(d->cache));
	if (!err && label && offers[n - 1] != ':')
		err = push_level(w, "--vbd", label, offers);
	free(d);
	return err;
}

/* A level's "cache" or "vbd" beside its disk object's own. */
static int said_twice(struct xvbd_plan_err *e, const char *where,
		      yajl_val lv, yajl_val disk)
{
	size_t i;

	if (!YAJL_IS_OBJECT(disk))
		return 0;
	if (xvbd_plan_member(lv, "cache") && xvbd_plan_member(disk, "cache"))
		return xvbd_plan_fail(e, where, "cache", "also in its disk "
				      "object: give it once");
	for (i = 0; i < XVBD_OVR_NKEYS && xvbd_plan_member(lv, "vbd"); i++) {
		const char *k = xvbd_plan_disk_offer_name((enum xvbd_ovr_id)i);

		if (k && xvbd_plan_member(disk, k))
			return xvbd_plan_fail(e, where, "vbd", "its disk "
					      "object has offers (%s): give "
					      "them in one place", k);
	}
	return 0;
}

/* One level's "vbd": a string, or an array of them. */
static int level_vbd(struct xvbd_plan_err *e, const char *where, yajl_val v,
		     const char *label, struct words *w)
{
	char word[WORD_MAX], at[64];
	size_t i, n = YAJL_IS_ARRAY(v) ? v->u.array.len : 1;
	int err;

	for (i = 0; i < n; i++) {
		yajl_val one = YAJL_IS_ARRAY(v) ? v->u.array.values[i] : v;

		if (YAJL_IS_ARRAY(v))
			snprintf(at, sizeof(at), "%s.vbd[%zu]", where, i);
		else
			snprintf(at, sizeof(at), "%s.vbd", where);
		err = xvbd_plan_str(e, at, NULL, one, word, sizeof(word));
		if (!err && !strchr(word, ':'))
			err = xvbd_plan_fail(e, at, NULL, "\"%.40s\": expected "
					     "VDEV:key=value,... (xvdb:ring-"
					     "order=1)", word);
		if (!err)
			err = push_level(w, "--vbd", label, word);
		if (err)
			return err;
	}
	return 0;
}

static int disk_type(struct xvbd_plan_err *e, const char *where,
		     const char *key)
{
	return xvbd_plan_fail(e, where, key, "an xl disk spec string "
			      "(\"format=raw,vdev=xvdb,access=ro,target=/srv/"
			      "t.img\") or apply's disk object ({\"vdev\": "
			      "\"xvdb\", \"file\": \"/srv/t.img\", ...})");
}

/* One level's disk, cache and vbd, as --disk/--cache/--vbd LABEL=... */
static int level_opts(struct xvbd_plan_err *e, yajl_val lv, size_t idx,
		      const char *label, bool common_disk, bool fresh,
		      struct words *w)
{
	char where[32], at[48], word[WORD_MAX];
	yajl_val v;
	int err = 0;

	snprintf(where, sizeof(where), "levels[%zu]", idx);
	err = mode_keys(e, where, lv, fresh, level_hot_keys);
	if (err || fresh)
		goto vbd;
	v = xvbd_plan_member(lv, "disk");
	if (!v && !common_disk)
		return xvbd_plan_fail(e, where, "disk", "missing: the level's "
				      "disk (an xl disk spec or apply's disk "
				      "object), or \"disk\" at the top for "
				      "every level");
	if (v && !YAJL_IS_STRING(v) && !YAJL_IS_OBJECT(v))
		return disk_type(e, where, "disk");
	err = v ? said_twice(e, where, lv, v) : 0;
	if (v && YAJL_IS_OBJECT(v) && !err) {
		snprintf(at, sizeof(at), "%s.disk", where);
		err = disk_object(e, at, v, label, w);
	} else if (v && !err) {
		err = xvbd_plan_str(e, where, "disk", v, word, sizeof(word));
		if (!err)
			err = push_level(w, "--disk", label, word);
	}
	v = xvbd_plan_member(lv, "cache");
	if (v && !err)
		err = xvbd_plan_str(e, where, "cache", v, word, sizeof(word));
	if (v && !err)
		err = push_level(w, "--cache", label, word);
vbd:
	v = xvbd_plan_member(lv, "vbd");
	if (v && !err)
		err = level_vbd(e, where, v, label, w);
	return err;
}

/* The levels' labels, checked, into labels[] (the plan's order). */
static int level_labels(struct xvbd_plan_err *e, yajl_val levels,
			char labels[][XVBD_AB_LABEL_MAX + 1])
{
	char where[32];
	size_t i, j, n = levels->u.array.len;
	int err;

	if (n < 2)
		return xvbd_plan_fail(e, "levels", NULL, "%s: an experiment "
				      "compares two levels or more (the "
				      "baseline first)", n ? "one level" :
				      "empty");
	if (n > XVBD_AB_LEVELS_MAX)
		return xvbd_plan_fail(e, "levels", NULL, "%zu levels: at most "
				      "%d (split the experiment)", n,
				      XVBD_AB_LEVELS_MAX);
	for (i = 0; i < n; i++) {
		yajl_val lv = levels->u.array.values[i];

		snprintf(where, sizeof(where), "levels[%zu]", i);
		if (!YAJL_IS_OBJECT(lv))
			return xvbd_plan_fail(e, where, NULL, "an object "
					      "{\"label\": ..., \"disk\": ...}");
		err = xvbd_plan_check_keys(e, where, lv, known_level,
					   "label, disk, cache, vbd, config");
		if (err)
			return err;
		if (!xvbd_plan_member(lv, "label"))
			return xvbd_plan_fail(e, where, "label", "missing: the "
					      "level's name in the records");
		err = xvbd_plan_str(e, where, "label",
				    xvbd_plan_member(lv, "label"), labels[i],
				    XVBD_AB_LABEL_MAX + 1);
		if (err)
			return err;
		if (!xvbd_ab_label_valid(labels[i]))
			return xvbd_plan_fail(e, where, "label", "\"%s\": use "
					      "letters, digits, '.', '_' and "
					      "'-', not leading '.' or '-'",
					      labels[i]);
		for (j = 0; j < i; j++)
			if (!strcmp(labels[i], labels[j]))
				return xvbd_plan_fail(e, where, "label", "\"%s\" "
						      "given twice (also levels"
						      "[%zu]): give each level "
						      "its own label",
						      labels[i], j);
	}
	return 0;
}

/* Fresh guests: level i's label and config, as the operands LABEL CONFIG. */
static int push_fresh(struct xvbd_plan_err *e, yajl_val levels, size_t i,
		      const char *label, struct words *w)
{
	yajl_val lv = levels->u.array.values[i];
	char where[32], cfg[XVBD_PATH_MAX];
	int err;

	snprintf(where, sizeof(where), "levels[%zu]", i);
	if (!xvbd_plan_member(lv, "config"))
		return xvbd_plan_fail(e, where, "config", "missing: the xl "
				      "config of the level's fresh guest (or "
				      "\"domain\" for a hot experiment)");
	err = xvbd_plan_str(e, where, "config", xvbd_plan_member(lv, "config"),
			    cfg, sizeof(cfg));
	if (!err && !cfg[0])
		err = xvbd_plan_fail(e, where, "config", "empty");
	if (!err)
		err = push(w, label, NULL);
	return err ? err : push(w, cfg, NULL);
}

/*
 * "levels": the labels as operands (the baseline first; with fresh
 * guests each followed by its config), their options.
 */
static int plan_levels(struct xvbd_plan_err *e, yajl_val root,
		       const char *baseline, bool fresh, struct words *w)
{
	char labels[XVBD_AB_LEVELS_MAX][XVBD_AB_LABEL_MAX + 1];
	yajl_val levels = xvbd_plan_member(root, "levels");
	size_t i, n, base = 0;
	int err;

	if (!YAJL_IS_ARRAY(levels))
		return xvbd_plan_fail(e, "levels", NULL, "an array of levels "
				      "[{\"label\": ..., \"disk\": ...}, ...]");
	err = level_labels(e, levels, labels);
	if (err)
		return err;
	n = levels->u.array.len;
	for (i = 0; baseline && i < n && strcmp(labels[i], baseline); i++)
		;
	if (baseline && i == n)
		return xvbd_plan_fail(e, "baseline", NULL, "\"%s\": not one of "
				      "the levels' labels", baseline);
	base = baseline ? i : 0;
	err = fresh ? push_fresh(e, levels, base, labels[base], w) :
		      push(w, labels[base], NULL);
	for (i = 0; i < n && !err; i++)
		if (i != base)
			err = fresh ? push_fresh(e, levels, i, labels[i], w) :
				      push(w, labels[i], NULL);
	for (i = 0; i < n && !err; i++)
		err = level_opts(e, levels->u.array.values[i], i, labels[i],
				 xvbd_plan_member(root, "disk") != NULL, fresh,
				 w);
	return err;
}

/* KEY-VALUE, as --sweep labels its levels ('_' in KEY as '-'). */
static bool is_label(const char *sweep, size_t klen, const char *v,
		     size_t vlen, const char *label)
{
	size_t i;

	if (strlen(label) != klen + 1 + vlen || label[klen] != '-' ||
	    strncmp(label + klen + 1, v, vlen))
		return false;
	for (i = 0; i < klen; i++)
		if (label[i] != (sweep[i] == '_' ? '-' : sweep[i]))
			return false;
	return true;
}

/*
 * "sweep": KEY=V1,V2,... as --sweep takes it, the baseline's value moved
 * first (the first level is the baseline).
 */
static int plan_sweep(struct xvbd_plan_err *e, const char *sweep,
		      const char *baseline, struct words *w)
{
	const char *eq = strchr(sweep, '='), *v, *end, *base = NULL;
	size_t klen = eq ? (size_t)(eq - sweep) : 0, blen = 0, n;
	char *out;
	int err;

	if (!baseline || !klen)
		return push_opt(w, "--sweep", sweep);
	for (v = eq + 1; !base; v = end + 1) {
		end = strchrnul(v, ',');
		if (is_label(sweep, klen, v, (size_t)(end - v), baseline)) {
			base = v;
			blen = (size_t)(end - v);
		} else if (!*end) {
			return xvbd_plan_fail(e, "baseline", NULL, "\"%s\": not "
					      "one of the sweep's labels "
					      "(KEY-VALUE)", baseline);
		}
	}
	out = malloc(strlen(sweep) + 2);
	if (!out)
		return -ENOMEM;
	n = (size_t)sprintf(out, "%.*s%.*s", (int)klen + 1, sweep, (int)blen,
			    base);
	for (v = eq + 1; ; v = end + 1) {
		end = strchrnul(v, ',');
		if (v != base)
			n += (size_t)sprintf(out + n, ",%.*s", (int)(end - v),
					     v);
		if (!*end)
			break;
	}
	err = push_opt(w, "--sweep", out);
	free(out);
	return err;
}

/* The top-level keys that are an option without a value. */
static const struct {
	const char *key, *opt;
} flags[] = {
	{ "until_confident", "--until-confident" },
	{ "guest_limits", "--guest-limits" },
};

/* The other top-level keys: one option each. */
static int plan_options(struct xvbd_plan_err *e, yajl_val root,
			struct words *w)
{
	char word[WORD_MAX];
	bool on;
	size_t i;
	int err = 0;

	for (i = 0; i < NTOP && !err; i++) {
		yajl_val v = xvbd_plan_member(root, top_keys[i].key);

		if (!v || !top_keys[i].opt)
			continue;
		if (top_keys[i].row == O_DISK && YAJL_IS_OBJECT(v)) {
			err = xvbd_plan_member(root, "cache") &&
			      xvbd_plan_member(v, "cache") ?
			      xvbd_plan_fail(e, "cache", NULL, "also in the "
					     "disk object: give it once") :
			      disk_object(e, "disk", v, NULL, w);
			continue;
		}
		if (top_keys[i].row == O_DISK && !YAJL_IS_STRING(v)) {
			err = disk_type(e, "disk", NULL);
			continue;
		}
		err = xvbd_plan_word(e, top_keys[i].key, NULL, v, word,
				     sizeof(word));
		if (!err)
			err = push_opt(w, top_keys[i].opt, word);
	}
	/* the flags: true gives the option, false leaves it out */
	for (i = 0; i < sizeof(flags) / sizeof(flags[0]) && !err; i++) {
		yajl_val v = xvbd_plan_member(root, flags[i].key);

		if (v)
			err = xvbd_plan_onoff(e, flags[i].key, NULL, v, &on);
		if (v && !err && on)
			err = push(w, flags[i].opt, NULL);
	}
	return err;
}

/* A level with a "config": the plan is one of fresh guests. */
static bool some_config(yajl_val root)
{
	yajl_val levels = xvbd_plan_member(root, "levels");
	size_t i;

	for (i = 0; YAJL_IS_ARRAY(levels) && i < levels->u.array.len; i++)
		if (YAJL_IS_OBJECT(levels->u.array.values[i]) &&
		    xvbd_plan_member(levels->u.array.values[i], "config"))
			return true;
	return false;
}

/* The plan's tree -> the words of its command line. */
static int plan_words(struct xvbd_plan_err *e, yajl_val root,
		      struct words *w)
{
	char baseline[XVBD_AB_LABEL_MAX + 1], sweep[WORD_MAX];
	bool fresh;
	yajl_val b;
	int err;

	if (!YAJL_IS_OBJECT(root))
		return xvbd_plan_fail(e, "plan", NULL, "an object {\"domain\": "
				      "..., \"levels\": [...]}");
	err = xvbd_plan_check_keys(e, "plan", root, known_top, "domain, "
				   "levels, sweep, disk, cache, baseline, run, "
				   "ready, duration, interval, results, runs, "
				   "until_confident, guest_limits, max_runs, "
				   "min_effect, metric, confidence, "
				   "fail_if_worse");
	if (err)
		return err;
	fresh = !xvbd_plan_member(root, "domain") && some_config(root);
	if (!fresh && !xvbd_plan_member(root, "domain"))
		return xvbd_plan_fail(e, "domain", NULL, "missing: the running "
				      "guest (its name or id), or each level's "
				      "\"config\" for fresh guests");
	err = mode_keys(e, "plan", root, fresh, top_hot_keys);
	if (err)
		return err;
	b = xvbd_plan_member(root, "baseline");
	err = xvbd_plan_str(e, "baseline", NULL, b, baseline,
			    sizeof(baseline));
	if (err)
		return err;
	if (xvbd_plan_member(root, "sweep")) {
		if (xvbd_plan_member(root, "levels"))
			return xvbd_plan_fail(e, "sweep", NULL, "\"levels\" and "
					      "\"sweep\" exclude each other (a "
					      "sweep makes the levels)");
		err = xvbd_plan_str(e, "sweep", NULL,
				    xvbd_plan_member(root, "sweep"), sweep,
				    sizeof(sweep));
		if (!err)
			err = plan_sweep(e, sweep, b ? baseline : NULL, w);
	} else if (!xvbd_plan_member(root, "levels")) {
		return xvbd_plan_fail(e, "levels", NULL, "missing: the levels "
				      "[{\"label\": ..., \"disk\": ...}, ...] "
				      "(or \"sweep\")");
	} else {
		err = plan_levels(e, root, b ? baseline : NULL, fresh, w);
	}
	return err ? err : plan_options(e, root, w);
}

/* Beside --plan: no operand, no option the plan has a key for. */
static int check_beside(const struct xvbd_ctx *ctx, int nargs)
{
	size_t k, i;

	if (nargs)
		return xvbd_usage_error(ctx->cmd, "--plan names the levels: "
					"give no LABEL operands");
	for (k = 0; k < ctx->cl->ngiven; k++) {
		const struct xvbd_optval *v = &ctx->cl->given[k];
		const char *key = NULL;

		for (i = 0; i < NTOP && !key; i++)
			if (top_keys[i].row == v->id)
				key = top_keys[i].key;
		for (i = 0; !key && i < sizeof(plan_rows) /
		     sizeof(plan_rows[0]); i++)
			if (plan_rows[i] == v->id)
				key = "levels";
		if (!key)
			continue;
		xvbd_err(CMD, v->spelled, "beside --plan: the plan says it "
			 "(\"%s\"), so that the file is the whole experiment",
			 key);
		return XVBD_EXIT_USAGE;
	}
	return 0;
}

/* The command line's own options (those a plan has no key for). */
static int own_words(const struct xvbd_ctx *ctx, struct words *w)
{
	size_t k;
	int err = 0;

	for (k = 0; k < ctx->cl->ngiven && !err; k++) {
		const struct xvbd_optval *v = &ctx->cl->given[k];

		if (v->id == O_PLAN)
			continue;
		err = push(w, v->spelled, NULL);
		if (!err && v->arg)
			err = push(w, v->arg, NULL);
	}
	return err;
}

/* -v: the command line the plan stands for, to run or to compare. */
static void say_words(const char *path, const struct words *w)
{
	int i;

	fprintf(stderr, "xvbd: ab run: %s: as the command line:", path);
	for (i = 0; i < w->n; i++)
		if (w->v[i][strcspn(w->v[i], " \t\n'\"\\$`;&|<>(){}*?[]!#~")])
			fprintf(stderr, " '%s'", w->v[i]);
		else
			fprintf(stderr, " %s", w->v[i]);
	fputc('\n', stderr);
}

static int load_words(struct xvbd_ctx *ctx, const char *path, struct words *w)
{
	char *text = NULL, why[600];
	struct xvbd_plan_err e = { why, sizeof(why) };
	size_t len = 0;
	yajl_val root;
	int rc, err;

	rc = xvbd_plan_read(CMD, path, "root runs an experiment plan",
			    PLAN_MAX, &text, &len);
	if (rc)
		return rc;
	err = xvbd_plan_tree(text, len, PLAN_MAX, PLAN_DEPTH_MAX, &root, why,
			     sizeof(why));
	free(text);
	if (!err) {
		err = push_opt(w, "ab", "run");
		if (!err)
			err = plan_words(&e, root, w);
		if (!err)
			err = own_words(ctx, w);
		yajl_tree_free(root);
	}
	if (err == -ENOMEM) {
		xvbd_err(CMD, NULL, "%s", strerror(ENOMEM));
		return XVBD_EXIT_FAIL;
	}
	if (err) {
		xvbd_err(CMD, path, "%s", why);
		return XVBD_EXIT_USAGE;
	}
	if (ctx->opts->verbose)
		say_words(path, w);
	return 0;
}

int ab_run_plan_load(struct xvbd_ctx *ctx, int nargs, struct ab_run_plan *p)
{
	const struct xvbd_optval *plan = xvbd_opt(ctx, O_PLAN);
	struct words w = { 0 };
	int rc;

	memset(p, 0, sizeof(*p));
	p->path = plan->arg;
	rc = check_beside(ctx, nargs);
	if (!rc)
		rc = load_words(ctx, p->path, &w);
	p->argv = w.v;
	p->argc = w.n;
	if (rc)
		return rc;
	xvbd_err_context(p->path);
	xvbd_cmdline_parse(ctx->cmds, ctx->ncmds, p->argc, p->argv, &p->cl);
	if (p->cl.rc) {
		/* "ab run: --runs: ...": the command is said already */
		xvbd_err(CMD, NULL, "%s",
			 !strncmp(p->cl.err, CMD ": ", strlen(CMD ": ")) ?
			 p->cl.err + strlen(CMD ": ") : p->cl.err);
		return p->cl.rc;
	}
	p->saved = ctx->cl;
	ctx->cl = &p->cl;
	return 0;
}

void ab_run_plan_free(struct xvbd_ctx *ctx, struct ab_run_plan *p)
{
	int i;

	xvbd_err_context(NULL);
	if (p->saved)
		ctx->cl = p->saved;
	p->saved = NULL;
	xvbd_cmdline_free(&p->cl);
	for (i = 0; i < p->argc; i++)
		free(p->argv[i]);
	free(p->argv);
	p->argv = NULL;
	p->argc = 0;
}
