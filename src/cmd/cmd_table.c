/*
 * cmd_table.c - finding a command in the command table (one word, or two
 * for a group such as "ab record") and the usage texts.  Pure: unit-tested
 * with a table of its own (tests/unit/test_cmd_table.c).
 */
#include <stdio.h>
#include <string.h>

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

/*
 * A usage text on stderr explains a usage error; with -q the error is its
 * one line and the text is left out (help on stdout is always printed).
 */
static bool usage_quiet;

void xvbd_usage_quiet(bool quiet)
{
	usage_quiet = quiet;
}

void xvbd_cmd_group_usage(const struct xvbd_cmd *cmds, size_t ncmds,
			  const char *group, FILE *stream)
{
	size_t i, glen = first_word_len(group);

	if (stream == stderr && usage_quiet)
		return;

	fprintf(stream, "Usage: xvbd %.*s <subcommand> [args]\n\n"
		"Subcommands:\n", (int)glen, group);
	for (i = 0; i < ncmds; i++)
		if (!strncmp(cmds[i].name, group, glen) &&
		    cmds[i].name[glen] == ' ')
			fprintf(stream, "  %-11s %s\n", cmds[i].name,
				cmds[i].summary);
	fprintf(stream, "\nSee \"xvbd help %.*s <subcommand>\".\n",
		(int)glen, group);
}

int xvbd_cmd_not_found(const struct xvbd_cmd *cmds, size_t ncmds, int argc,
		       char **argv, int nwords, bool ambiguous,
		       const char *group, const char *who)
{
	size_t glen;

	if (!group) {
		xvbd_err(who, NULL, "%s command \"%s\": try \"xvbd help\"",
			 ambiguous ? "ambiguous" : "unknown", argv[0]);
		return XVBD_EXIT_USAGE;
	}
	glen = first_word_len(group);
	if (argc > nwords && (!strcmp(argv[nwords], "-h") ||
			      !strcmp(argv[nwords], "--help"))) {
		xvbd_cmd_group_usage(cmds, ncmds, group, stdout);
		return XVBD_EXIT_OK;
	}
	if (argc <= nwords || argv[nwords][0] == '-') {
		fprintf(stderr, "xvbd: %.*s: a subcommand is needed\n",
			(int)glen, group);
		xvbd_cmd_group_usage(cmds, ncmds, group, stderr);
		return XVBD_EXIT_USAGE;
	}
	xvbd_err(who, NULL, "%s command \"%.*s %s\": try \"xvbd help %.*s\"",
		 ambiguous ? "ambiguous" : "unknown", (int)glen, group,
		 argv[nwords], (int)glen, group);
	return XVBD_EXIT_USAGE;
}

void xvbd_cmd_usage(const struct xvbd_cmd *cmd, FILE *stream)
{
	if (stream == stderr && usage_quiet)
		return;
	fprintf(stream, "Usage: xvbd [-v] [-q] [-j] %s%s %s\n\n%s\n",
		cmd->flags & CMD_CAN_DRY_RUN ? "[-N] " : "", cmd->name,
		cmd->usage, cmd->summary);
}

void xvbd_global_usage(const struct xvbd_cmd *cmds, size_t ncmds,
		       FILE *stream)
{
	size_t i;

	if (stream == stderr && usage_quiet)
		return;
	fprintf(stream,
		"Usage: xvbd [options] <command> [args]\n\n"
		"Options:\n"
		"  -v, --verbose   more libxl logging (repeatable)\n"
		"  -q, --quiet     no hints or notices on stderr\n"
		"  -j, --json      JSON output\n"
		"  -N, --dry-run   show what would be written, write nothing\n"
		"  -h, --help      this help\n"
		"      --version   print the version\n\n"
		"Commands:\n");
	for (i = 0; i < ncmds; i++)
		fprintf(stream, "  %-11s %s\n", cmds[i].name, cmds[i].summary);
	fprintf(stream, "\nSee \"xvbd help <command>\" and xvbd(1).\n");
}

