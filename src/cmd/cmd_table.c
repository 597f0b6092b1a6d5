/*
 * cmd_table.c - finding a command in the command table (one word, or two
 * for a group such as "ab record") and the usage texts.  Pure: unit-tested
 * with a table of its own (tests/unit/test_cmd_table.c).
 */
#include <stdio.h>
#include <string.h>

#include "xvbd/cmd/cmd_opt.h"
#include "xvbd/cmd/cmd_table.h"
#include "xvbd/base/util.h"

/* Length of a table name's first word ("ab" of "ab record"). */
static size_t first_word_len(const char *name)
{
	const char *sp = strchr(name, ' ');

	return sp ? (size_t)(sp - name) : strlen(name);
}

/*
 * Match word against one word position of the table: the first word of
 * every name (group == NULL), or the second word of the names of group.
 * Exact match first, else a unique prefix; names sharing a first word
 * count once.  Returns an entry carrying the matched word.
 */
static const struct xvbd_cmd *match_word(const struct xvbd_cmd *cmds,
					 size_t ncmds, const char *group,
					 const char *word, bool *ambiguous)
{
	const struct xvbd_cmd *hit = NULL;
	const char *hit_word = NULL;
	size_t i, len = strlen(word), glen = group ? strlen(group) : 0;
	size_t hit_len = 0;

	*ambiguous = false;
	if (!len || strchr(word, ' '))
		return NULL;
	for (i = 0; i < ncmds; i++) {
		const char *w = cmds[i].name;
		size_t wlen;

		if (group) {
			if (strncmp(w, group, glen) || w[glen] != ' ')
				continue;
			w += glen + 1;
		}
		wlen = first_word_len(w);
		if (wlen < len || strncmp(w, word, len))
			continue;
		if (wlen == len)
			return &cmds[i];	/* exact */
		if (hit && (hit_len != wlen || strncmp(hit_word, w, wlen)))
			*ambiguous = true;	/* unless an exact one follows */
		if (!hit) {
			hit = &cmds[i];
			hit_word = w;
			hit_len = wlen;
		}
	}
	return *ambiguous ? NULL : hit;
}

const struct xvbd_cmd *xvbd_cmd_find(const struct xvbd_cmd *cmds,
				     size_t ncmds, int argc, char **argv,
				     int *nwords, bool *ambiguous,
				     const char **group)
{
	const struct xvbd_cmd *hit;
	char word[XVBD_CMD_NAME_MAX];
	size_t len;

	*nwords = 0;
	*group = NULL;
	if (argc < 1)
		return NULL;
	hit = match_word(cmds, ncmds, NULL, argv[0], ambiguous);
	if (!hit)
		return NULL;
	*nwords = 1;
	if (!strchr(hit->name, ' '))
		return hit;
	/* A group: the subcommand is the next word. */
	len = first_word_len(hit->name);
	if (len >= sizeof(word))
		return NULL;
	memcpy(word, hit->name, len);
	word[len] = '\0';
	*group = hit->name;
	if (argc < 2 || argv[1][0] == '-')
		return NULL;
	hit = match_word(cmds, ncmds, word, argv[1], ambiguous);
	if (hit)
		*nwords = 2;
	return hit;
}

/* ---- help ---- */

/*
 * text wrapped into lines of at most XVBD_HELP_COLUMNS: the first after
 * first_indent columns already printed, the others indented by indent.
 * Breaks at blanks outside [ ] and ( ) when it can.
 */
static void wrap(FILE *stream, const char *text, int first_col, int indent)
{
	int col = first_col, width = XVBD_HELP_COLUMNS;
	const char *p = text;

	while (*p) {
		const char *brk = NULL, *inner = NULL, *q;
		int depth = 0, room = width - col;

		/* the last blank at depth 0 within room, else the last one */
		for (q = p; *q && q - p <= room; q++) {
			if (*q == '[' || *q == '(')
				depth++;
			else if ((*q == ']' || *q == ')') && depth)
				depth--;
			else if (*q == ' ' && !depth)
				brk = q;
			else if (*q == ' ')
				inner = q;
		}
		if (!brk)
			brk = inner;
		if (!*q && q - p <= room) {
			fprintf(stream, "%s", p);
			break;
		}
		if (!brk) {	/* one word longer than the room */
			brk = strchr(p, ' ');
			if (!brk) {
				fprintf(stream, "%s", p);
				break;
			}
		}
		fprintf(stream, "%.*s\n%*s", (int)(brk - p), p, indent, "");
		col = indent;
		p = brk + 1;
	}
	fputc('\n', stream);
}

/*
 * A usage text on stderr explains a usage error; with -q the error is its
 * one line and the text is left out (help on stdout is always printed).
 */
static bool usage_quiet;

void xvbd_usage_quiet(bool quiet)
{
	usage_quiet = quiet;
}

bool xvbd_usage_is_quiet(void)
{
	return usage_quiet;
}

void xvbd_cmd_group_usage(const struct xvbd_cmd *cmds, size_t ncmds,
			  const char *group, FILE *stream)
{
	size_t i, glen = first_word_len(group);

	if (stream == stderr && usage_quiet)
		return;

	fprintf(stream, "usage: xvbd %.*s <subcommand> [args]\n\n"
		"subcommands:\n", (int)glen, group);
	for (i = 0; i < ncmds; i++)
		if (!strncmp(cmds[i].name, group, glen) &&
		    cmds[i].name[glen] == ' ')
		{
			fprintf(stream, "  %-11s ", cmds[i].name);
			wrap(stream, cmds[i].summary, 14, 14);
		}
	fprintf(stream, "\nSee \"xvbd help %.*s <subcommand>\".\n",
		(int)glen, group);
}

/* The words the table has at a position: first words, or group's. */
static size_t words_at(const struct xvbd_cmd *cmds, size_t ncmds,
		       const char *group, const char **words, size_t *lens,
		       size_t max)
{
	size_t i, j, n = 0, glen = group ? strlen(group) : 0;

	for (i = 0; i < ncmds; i++) {
		const char *w = cmds[i].name;
		size_t wlen;

		if (group) {
			if (strncmp(w, group, glen) || w[glen] != ' ')
				continue;
			w += glen + 1;
		}
		wlen = first_word_len(w);
		for (j = 0; j < n; j++)
			if (lens[j] == wlen && !strncmp(words[j], w, wlen))
				break;
		if (j == n && n < max) {
			words[n] = w;
			lens[n++] = wlen;
		}
	}
	return n;
}

void xvbd_cmd_name_error(const struct xvbd_cmd *cmds, size_t ncmds,
			 const char *group, const char *word, bool ambiguous,
			 char *err, size_t err_len, char *hint,
			 size_t hint_len)
{
	const char *words[64];
	size_t lens[64], n, i, cap, best, hits = 0, wl = strlen(word);
	char prefix[XVBD_CMD_NAME_MAX + 2] = "", name[XVBD_CMD_NAME_MAX];

	if (group)
		snprintf(prefix, sizeof(prefix), "%s ", group);
	n = words_at(cmds, ncmds, group, words, lens, 64);
	hint[0] = '\0';
	if (ambiguous) {
		int used = snprintf(err, err_len, "ambiguous command \"%s%.40s\": ",
				    prefix, word);

		for (i = 0; i < n && used > 0 && (size_t)used < err_len; i++) {
			if (lens[i] < wl || strncmp(words[i], word, wl))
				continue;
			used += snprintf(err + used, err_len - (size_t)used,
					 "%s%s%.*s", hits++ ? ", " : "", prefix,
					 (int)lens[i], words[i]);
		}
		return;
	}
	snprintf(err, err_len, "unknown command \"%s%.40s\"", prefix, word);
	cap = xvbd_suggest_cap(word);
	best = cap + 1;
	for (i = 0; i < n; i++) {
		size_t d;

		snprintf(name, sizeof(name), "%.*s", (int)lens[i], words[i]);
		d = xvbd_edit_distance(word, name, cap);
		best = d < best ? d : best;
	}
	if (best > cap) {
		snprintf(hint, hint_len, "see \"xvbd help%s%s\"",
			 group ? " " : "", group ? group : "");
		return;
	}
	for (i = 0; i < n; i++) {
		size_t used = strlen(hint);

		snprintf(name, sizeof(name), "%.*s", (int)lens[i], words[i]);
		if (xvbd_edit_distance(word, name, cap) != best)
			continue;
		snprintf(hint + used, hint_len - used, "%s\"%s%s\"",
			 hits++ ? " or " : "did you mean ", prefix, name);
	}
	if (strlen(hint) + 2 < hint_len)
		strcat(hint, "?");
}

int xvbd_cmd_not_found(const struct xvbd_cmd *cmds, size_t ncmds, int argc,
		       char **argv, int nwords, bool ambiguous,
		       const char *group, const char *who)
{
	char err[512], hint[256], gword[XVBD_CMD_NAME_MAX];
	size_t glen;

	if (!group) {
		xvbd_cmd_name_error(cmds, ncmds, NULL, argv[0], ambiguous, err,
				    sizeof(err), hint, sizeof(hint));
		xvbd_err(who, NULL, "%s%s%s", err, hint[0] ? ": " : "", hint);
		return XVBD_EXIT_USAGE;
	}
	glen = first_word_len(group);
	snprintf(gword, sizeof(gword), "%.*s", (int)glen, group);
	if (argc > nwords && (!strcmp(argv[nwords], "-h") ||
			      !strcmp(argv[nwords], "--help"))) {
		xvbd_cmd_group_usage(cmds, ncmds, group, stdout);
		return XVBD_EXIT_OK;
	}
	if (argc <= nwords || argv[nwords][0] == '-') {
		xvbd_err(gword, NULL, "a subcommand is needed: see \"xvbd "
			 "help %s\"", gword);
		return XVBD_EXIT_USAGE;
	}
	xvbd_cmd_name_error(cmds, ncmds, gword, argv[nwords], ambiguous, err,
			    sizeof(err), hint, sizeof(hint));
	xvbd_err(who, NULL, "%s%s%s", err, hint[0] ? ": " : "", hint);
	return XVBD_EXIT_USAGE;
}

#define HELP_TEXT_COL	26

static void option_line(FILE *stream, const struct xvbd_cmdopt *o)
{
	char left[96];
	int n;

	if (o->letter)
		n = snprintf(left, sizeof(left), "  -%c, --%s%s%s", o->letter,
			     o->name, o->arg ? " " : "", o->arg ? o->arg : "");
	else
		n = snprintf(left, sizeof(left), "      --%s%s%s", o->name,
			     o->arg ? " " : "", o->arg ? o->arg : "");
	fprintf(stream, "%s", left);
	if (n >= HELP_TEXT_COL - 1) {
		fprintf(stream, "\n%*s", HELP_TEXT_COL, "");
		n = HELP_TEXT_COL;
	} else {
		fprintf(stream, "%*s", HELP_TEXT_COL - n, "");
		n = HELP_TEXT_COL;
	}
	if (o->flags & XVBD_OPT_REPEAT) {
		char text[512];

		snprintf(text, sizeof(text), "%s (repeatable)", o->help);
		wrap(stream, text, n, HELP_TEXT_COL);
	} else {
		wrap(stream, o->help, n, HELP_TEXT_COL);
	}
}

void xvbd_cmd_usage(const struct xvbd_cmd *cmd, FILE *stream)
{
	const struct xvbd_cmdopt *o;
	char head[64], globals[200];
	int n;

	if (stream == stderr && usage_quiet)
		return;
	n = snprintf(head, sizeof(head), "usage: xvbd %s ", cmd->name);
	fprintf(stream, "%s", head);
	wrap(stream, cmd->usage, n, n);
	fputc('\n', stream);
	wrap(stream, cmd->summary, 0, 0);
	if (cmd->opts && cmd->opts->name) {
		fprintf(stream, "\noptions:\n");
		for (o = cmd->opts; o->name; o++)
			if (!(o->flags & XVBD_OPT_HIDDEN))
				option_line(stream, o);
	}
	snprintf(globals, sizeof(globals), "global options, also after the "
		 "command: -j/--json, %s-q/--quiet, -v/--verbose (see \"xvbd "
		 "-h\")", cmd->flags & CMD_CAN_DRY_RUN ? "-N/--dry-run, " : "");
	fputc('\n', stream);
	wrap(stream, globals, 0, 2);
	if (cmd->example)
		fprintf(stream, "\nexample:\n  %s\n", cmd->example);
}

void xvbd_global_usage(const struct xvbd_cmd *cmds, size_t ncmds,
		       FILE *stream)
{
	const struct xvbd_cmdopt *o;
	size_t i;

	if (stream == stderr && usage_quiet)
		return;
	fprintf(stream, "usage: xvbd [options] <command> [args] [options]\n\n"
		"options (before or after the command):\n");
	for (o = xvbd_global_opts; o->name; o++)
		option_line(stream, o);
	fprintf(stream, "\ncommands:\n");
	for (i = 0; i < ncmds; i++)
	{
		fprintf(stream, "  %-11s ", cmds[i].name);
		wrap(stream, cmds[i].summary, 14, 14);
	}
	fprintf(stream, "\nSee \"xvbd help <command>\" and xvbd(1).\n");
}
