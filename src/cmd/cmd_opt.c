/*
 * cmd_opt.c - the one command-line parser (cmd_opt.h): global options
 * and the command's, anywhere on the line, read through the value
 * grammar (optval.h) by the kinds the tables declare.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xvbd/base/optval.h"
#include "xvbd/base/util.h"
#include "xvbd/cmd/cmd_opt.h"
#include "xvbd/cmd/cmd_table.h"

const struct xvbd_cmdopt xvbd_global_opts[] = {
	[XVBD_G_VERBOSE] = XVBD_OPT_F("verbose", 'v',
		"more detail on stderr: libxl's log, timings (repeatable)"),
	[XVBD_G_QUIET] = XVBD_OPT_F("quiet", 'q',
		"no hints or notices on stderr"),
	[XVBD_G_JSON] = XVBD_OPT_F("json", 'j',
		"one JSON object on stdout, also when the command fails"),
	[XVBD_G_DRY_RUN] = XVBD_OPT_F("dry-run", 'N',
		"say what would be done, change nothing"),
	[XVBD_G_HELP] = XVBD_OPT_F("help", 'h', "this help"),
	[XVBD_G_VERSION] = XVBD_OPT_F("version", 0, "print the version"),
	XVBD_OPT_END,
};

size_t xvbd_edit_distance(const char *a, const char *b, size_t cap)
{
	size_t la = strlen(a), lb = strlen(b), i, j;
	size_t d[3][65];	/* rows i-2, i-1 and i, by i % 3 */

	if (la > 64 || lb > 64 || (la > lb ? la - lb : lb - la) > cap)
		return cap + 1;
	for (j = 0; j <= lb; j++)
		d[0][j] = j;
	for (i = 1; i <= la; i++) {
		size_t *cur = d[i % 3], *prev = d[(i - 1) % 3];
		size_t *prev2 = d[(i + 1) % 3];

		cur[0] = i;
		for (j = 1; j <= lb; j++) {
			size_t v = prev[j - 1] + (a[i - 1] != b[j - 1]);

			if (prev[j] + 1 < v)
				v = prev[j] + 1;
			if (cur[j - 1] + 1 < v)
				v = cur[j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] &&
			    a[i - 2] == b[j - 1] && prev2[j - 2] + 1 < v)
				v = prev2[j - 2] + 1;
			cur[j] = v;
		}
	}
	return d[la % 3][lb] > cap ? cap + 1 : d[la % 3][lb];
}

size_t xvbd_suggest_cap(const char *word)
{
	size_t len = strlen(word);

	/* git's spirit: close enough to be a slip, not another word */
	return len <= 3 ? 1 : len <= 8 ? 2 : 3;
}

/* ---- the parse ---- */

struct parse {
	const struct xvbd_cmd *cmds;
	size_t ncmds;
	struct xvbd_cmdline *cl;
	const struct xvbd_cmdopt *copts;	/* the command's table, or NULL */
	size_t cap_given, cap_globals;
	const char *group_word;		/* "ab" as written */
};

static void fail(struct parse *p, const char *hint, const char *fmt, ...)
	XVBD_PRINTF(3, 4);

static void fail(struct parse *p, const char *hint, const char *fmt, ...)
{
	struct xvbd_cmdline *cl = p->cl;
	va_list ap;
	int n = 0;

	if (cl->rc)
		return;		/* the first mistake is the one to name */
	cl->rc = XVBD_EXIT_USAGE;
	if (cl->cmd)
		n = snprintf(cl->err, sizeof(cl->err), "%s: ", cl->cmd->name);
	va_start(ap, fmt);
	vsnprintf(cl->err + n, sizeof(cl->err) - (size_t)n, fmt, ap);
	va_end(ap);
	snprintf(cl->hint, sizeof(cl->hint), "%s", hint ? hint : "");
}

static int push(struct parse *p, bool global, const struct xvbd_optval *v)
{
	struct xvbd_cmdline *cl = p->cl;
	struct xvbd_optval **arr = global ? &cl->globals : &cl->given;
	size_t *n = global ? &cl->nglobals : &cl->ngiven;
	size_t *cap = global ? &p->cap_globals : &p->cap_given;

	if (*n == *cap) {
		size_t ncap = *cap ? *cap * 2 : 8;
		struct xvbd_optval *a = realloc(*arr, ncap * sizeof(*a));

		if (!a)
			return -ENOMEM;
		*arr = a;
		*cap = ncap;
	}
	(*arr)[(*n)++] = *v;
	return 0;
}

/* Is word one of the '|'-separated words of list? */
static bool word_in(const char *word, const char *list)
{
	size_t len = strlen(word);
	const char *p = list;

	while (p && *p) {
		const char *bar = strchr(p, '|');
		size_t wl = bar ? (size_t)(bar - p) : strlen(p);

		if (wl == len && !strncmp(p, word, len))
			return true;
		p = bar ? bar + 1 : NULL;
	}
	return false;
}

/* The value of option o through the grammar of its kind. */
static void take_value(struct parse *p, const struct xvbd_cmdopt *o,
		       struct xvbd_optval *v)
{
	char why[XVBD_OPTVAL_WHY_MAX] = "";
	const char *s = v->arg;
	bool b = false;	/* read below also when the value is refused */
	int err = 0;

	switch (o->kind) {
	case XVBD_OPT_FLAG:
	case XVBD_OPT_STRING:
		return;
	case XVBD_OPT_WORD:
		if (word_in(s, o->arg))
			return;
		snprintf(why, sizeof(why), "expected one of %s", o->arg);
		err = -EINVAL;
		break;
	case XVBD_OPT_BOOL:
		err = xvbd_optval_bool(s, &b, why, sizeof(why));
		v->u = b;
		break;
	case XVBD_OPT_SECONDS:
		err = xvbd_optval_seconds(s, o->min, o->max, &v->u, why,
					  sizeof(why));
		break;
	case XVBD_OPT_COUNT:
		err = xvbd_optval_count(s, o->min, o->max, &v->u, why,
					sizeof(why));
		break;
	case XVBD_OPT_SIZE:
		err = xvbd_optval_size(s, o->min, o->max, &v->u, why,
				       sizeof(why));
		break;
	case XVBD_OPT_PERCENT:
		err = xvbd_optval_percent(s, (double)o->min / 1000.0,
					  (double)o->max / 1000.0,
					  &v->fraction, why, sizeof(why));
		break;
	}
	if (err)
		fail(p, NULL, "%s: \"%s\": %s", v->spelled, s, why);
}

/* A value given twice where one is expected: which one was meant? */
static void check_once(struct parse *p, const struct xvbd_cmdopt *o,
		       const struct xvbd_optval *v)
{
	const struct xvbd_cmdline *cl = p->cl;
	const struct xvbd_optval *arr = v->global ? cl->globals : cl->given;
	size_t n = v->global ? cl->nglobals : cl->ngiven, i;

	if (o->kind == XVBD_OPT_FLAG || (o->flags & XVBD_OPT_REPEAT))
		return;
	for (i = 0; i < n; i++)
		if (arr[i].id == v->id) {
			fail(p, NULL, "%s given twice", v->spelled);
			return;
		}
}

static int record(struct parse *p, const struct xvbd_cmdopt *table, bool global,
		  int row, bool letter, const char *arg)
{
	const struct xvbd_cmdopt *o = &table[row];
	struct xvbd_optval v = { .id = row, .global = global, .arg = arg };

	if (letter)
		snprintf(v.spelled, sizeof(v.spelled), "-%c", o->letter);
	else
		snprintf(v.spelled, sizeof(v.spelled), "--%.*s",
			 (int)sizeof(v.spelled) - 3, o->name);

	check_once(p, o, &v);
	take_value(p, o, &v);
	if (global && row == XVBD_G_JSON)
		p->cl->json_seen = true;
	if (global && row == XVBD_G_HELP)
		p->cl->help = true;
	return push(p, global, &v);
}

/* Suggest the long names nearest to name, from both tables. */
static void suggest(struct parse *p, const char *name, char *hint,
		    size_t len)
{
	const struct xvbd_cmdopt *tables[2] = { p->copts, xvbd_global_opts };
	size_t cap = xvbd_suggest_cap(name), best = cap + 1, t, i, n = 0;

	hint[0] = '\0';
	for (t = 0; t < 2; t++)
		for (i = 0; tables[t] && tables[t][i].name; i++) {
			size_t d = xvbd_edit_distance(name, tables[t][i].name,
						      cap);

			best = d < best ? d : best;
		}
	if (best > cap)
		return;
	for (t = 0; t < 2; t++)
		for (i = 0; tables[t] && tables[t][i].name; i++) {
			size_t used = strlen(hint);

			if (xvbd_edit_distance(name, tables[t][i].name, cap) !=
			    best)
				continue;
			snprintf(hint + used, len - used, "%s--%s",
				 n++ ? " or " : "did you mean ",
				 tables[t][i].name);
		}
	if (n && strlen(hint) + 2 < len)
		strcat(hint, "?");
}

/* The row of --name (exact, else a unique prefix) in either table. */
static int find_long(struct parse *p, const char *name, size_t len,
		     bool *global)
{
	const struct xvbd_cmdopt *tables[2] = { p->copts, xvbd_global_opts };
	char list[256] = "", word[64];
	int hit = -1, nhits = 0;
	size_t t, i;

	for (t = 0; t < 2; t++)
		for (i = 0; tables[t] && tables[t][i].name; i++)
			if (strlen(tables[t][i].name) == len &&
			    !strncmp(tables[t][i].name, name, len)) {
				*global = t == 1;
				return (int)i;
			}
	for (t = 0; t < 2; t++)
		for (i = 0; tables[t] && tables[t][i].name; i++) {
			size_t used = strlen(list);

			if (strncmp(tables[t][i].name, name, len))
				continue;
			snprintf(list + used, sizeof(list) - used, "%s--%s",
				 nhits ? ", " : "", tables[t][i].name);
			nhits++;
			hit = (int)i;
			*global = t == 1;
		}
	if (nhits == 1)
		return hit;
	snprintf(word, sizeof(word), "%.*s", (int)(len < 60 ? len : 60), name);
	if (nhits > 1) {
		fail(p, NULL, "ambiguous option \"--%s\": %s", word, list);
	} else {
		char hint[XVBD_CMDLINE_ERR_MAX];

		suggest(p, word, hint, sizeof(hint));
		fail(p, hint, "unknown option \"--%s\"", word);
	}
	return -1;
}

/* One word that starts with "--".  Returns the words it took. */
static int parse_long(struct parse *p, int argc, char **argv, int i)
{
	const char *name = argv[i] + 2, *eq = strchr(name, '=');
	size_t len = eq ? (size_t)(eq - name) : strlen(name);
	const struct xvbd_cmdopt *table;
	bool global = false;
	int row;

	row = find_long(p, name, len, &global);
	if (row < 0)
		return 1;
	table = global ? xvbd_global_opts : p->copts;
	if (table[row].kind == XVBD_OPT_FLAG) {
		if (eq) {
			fail(p, NULL, "--%s takes no value", table[row].name);
			return 1;
		}
		return record(p, table, global, row, false, NULL) ? -1 : 1;
	}
	if (eq)		/* "--dir=DIR" */
		return record(p, table, global, row, false, eq + 1) ? -1 : 1;
	if (i + 1 >= argc) {
		fail(p, NULL, "--%s needs a value", table[row].name);
		return 1;
	}
	return record(p, table, global, row, false, argv[i + 1]) ? -1 : 2;
}

static int find_letter(const struct xvbd_cmdopt *table, char c)
{
	int i;

	for (i = 0; table && table[i].name; i++)
		if (table[i].letter == c)
			return i;
	return -1;
}

/* "-x", "-qj" (flags together), "-d1" or "-d 1". */
static int parse_short(struct parse *p, int argc, char **argv, int i)
{
	const char *w = argv[i] + 1;

	for (; *w; w++) {
		const struct xvbd_cmdopt *table = p->copts;
		bool global = false;
		int row = find_letter(table, *w);

		if (row < 0) {
			table = xvbd_global_opts;
			global = true;
			row = find_letter(table, *w);
		}
		if (row < 0) {
			fail(p, NULL, "unknown option \"-%c\"", *w);
			return 1;
		}
		if (table[row].kind == XVBD_OPT_FLAG) {
			if (record(p, table, global, row, true, NULL))
				return -1;
			continue;
		}
		if (w[1])	/* "-d1": the rest of the word is the value */
			return record(p, table, global, row, true, w + 1) ?
			       -1 : 1;
		if (i + 1 >= argc) {
			fail(p, NULL, "-%c needs a value", *w);
			return 1;
		}
		return record(p, table, global, row, true, argv[i + 1]) ?
		       -1 : 2;
	}
	return 1;
}

static void add_operand(struct parse *p, char *w)
{
	p->cl->operands[p->cl->noperands++] = w;
}

/* A word that is no option: the command, its subcommand, or an operand. */
static void command_word(struct parse *p, char *w)
{
	struct xvbd_cmdline *cl = p->cl;
	char *words[2];
	int nwords, nw;
	bool ambiguous;
	const char *group;

	if (cl->cmd) {
		add_operand(p, w);
		return;
	}
	if (cl->rc)
		return;		/* no command: the rest has no meaning */
	words[0] = p->group_word ? (char *)p->group_word : w;
	words[1] = w;
	nw = p->group_word ? 2 : 1;
	cl->cmd = xvbd_cmd_find(p->cmds, p->ncmds, nw, words, &nwords,
				&ambiguous, &group);
	if (cl->cmd) {
		p->copts = cl->cmd->opts;
		cl->group = NULL;
		return;
	}
	if (group && nw == 1) {
		p->group_word = w;	/* "ab": the subcommand follows */
		cl->group = group;
		return;
	}
	cl->group = NULL;	/* a subcommand was named: it is the error */
	xvbd_cmd_name_error(p->cmds, p->ncmds, p->group_word, w, ambiguous,
			    cl->err, sizeof(cl->err), cl->hint,
			    sizeof(cl->hint));
	cl->rc = XVBD_EXIT_USAGE;
}

int xvbd_cmdline_parse(const struct xvbd_cmd *cmds, size_t ncmds, int argc,
		       char **argv, struct xvbd_cmdline *cl)
{
	struct parse p = { .cmds = cmds, .ncmds = ncmds, .cl = cl };
	bool options_end = false;
	int i, took;

	memset(cl, 0, sizeof(*cl));
	cl->operands = calloc((size_t)argc + 1, sizeof(*cl->operands));
	if (!cl->operands)
		goto nomem;
	for (i = 0; i < argc; i += took) {
		char *w = argv[i];

		took = 1;
		if (options_end || w[0] != '-' || !w[1]) {
			command_word(&p, w);
			continue;
		}
		if (!strcmp(w, "--")) {
			options_end = true;
			continue;
		}
		took = w[1] == '-' ? parse_long(&p, argc, argv, i) :
				     parse_short(&p, argc, argv, i);
		if (took < 0)
			goto nomem;
	}
	return cl->rc;
nomem:
	cl->rc = XVBD_EXIT_FAIL;
	snprintf(cl->err, sizeof(cl->err), "command line: %s",
		 strerror(ENOMEM));
	return cl->rc;
}

void xvbd_cmdline_free(struct xvbd_cmdline *cl)
{
	free(cl->given);
	free(cl->globals);
	free(cl->operands);
	cl->given = cl->globals = NULL;
	cl->operands = NULL;
}

const struct xvbd_optval *xvbd_cmdline_get(const struct xvbd_cmdline *cl,
					   int id)
{
	size_t i;

	for (i = cl->ngiven; i > 0; i--)
		if (cl->given[i - 1].id == id)
			return &cl->given[i - 1];
	return NULL;
}
