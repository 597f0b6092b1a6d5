/*
 * cmd_opt.h - the command line as tables say it (git's OPT_* arrays):
 * each command declares its options once (long name, short letter, the
 * value's name and kind from the one value grammar, bounds, repeatable or
 * once, a one-line description), the command table (main.c) points at
 * them, and one parser reads the global options and the command's in any
 * order, before or after the operands, up to "--".  The command gets what
 * was given, values already read and checked, in command-line order; its
 * own code holds only its own decisions (which options exclude which).
 * Help, "did you mean", completions and the manual's synopsis come from
 * the same tables.  Pure: unit-tested (tests/unit/test_cmd_opt.c).
 */
#ifndef XVBD_CMD_OPT_H
#define XVBD_CMD_OPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum xvbd_opt_kind {
	XVBD_OPT_FLAG,		/* no value */
	XVBD_OPT_STRING,	/* any text: the command checks it */
	XVBD_OPT_WORD,		/* one of the words of arg ("host|none") */
	XVBD_OPT_BOOL,		/* on|off|yes|no|true|false|1|0 -> u */
	XVBD_OPT_SECONDS,	/* a duration, min..max ns -> u (ns) */
	XVBD_OPT_COUNT,		/* min..max -> u */
	XVBD_OPT_SIZE,		/* min..max bytes -> u (bytes) */
	XVBD_OPT_PERCENT,	/* min..max thousandths of a percent ->
				 * fraction (95 -> 0.95) */
};

/* It may be given more than once, each value kept (else a value given
 * twice is a usage error: which one was meant?  A flag may repeat). */
#define XVBD_OPT_REPEAT		(1u << 0)
/* Not in help, completion or the manual: for the tests' tools. */
#define XVBD_OPT_HIDDEN		(1u << 1)

struct xvbd_cmdopt {
	const char *name;	/* long name without "--"; NULL ends */
	char letter;		/* short option, 0 for none */
	enum xvbd_opt_kind kind;
	const char *arg;	/* the value's name in help: "S", "DIR" */
	unsigned flags;
	uint64_t min, max;	/* the kind's bounds, in its unit */
	const char *help;	/* one line: what it does, its default */
};

/* Percent bounds in the table's unit (thousandths of a percent). */
#define XVBD_PCT(p)	((uint64_t)((p) * 1000 + 0.5))
#define XVBD_SEC(s)	((uint64_t)((s) * 1e9 + 0.5))

/*
 * Table rows, one per option (field order above):
 *	[O_DIR] = XVBD_OPT_STR("dir", 0, "DIR", 0, "the record store"),
 */
#define XVBD_OPT_F(name, letter, help)					\
	{ name, letter, XVBD_OPT_FLAG, NULL, 0, 0, 0, help }
#define XVBD_OPT_STR(name, letter, arg, flags, help)			\
	{ name, letter, XVBD_OPT_STRING, arg, flags, 0, 0, help }
#define XVBD_OPT_W(name, letter, words, help)				\
	{ name, letter, XVBD_OPT_WORD, words, 0, 0, 0, help }
#define XVBD_OPT_B(name, letter, help)					\
	{ name, letter, XVBD_OPT_BOOL, "on|off", 0, 0, 1, help }
#define XVBD_OPT_S(name, letter, min_s, max_s, help)			\
	{ name, letter, XVBD_OPT_SECONDS, "S", 0, XVBD_SEC(min_s),	\
	  XVBD_SEC(max_s), help }
#define XVBD_OPT_N(name, letter, arg, min, max, help)			\
	{ name, letter, XVBD_OPT_COUNT, arg, 0, min, max, help }
#define XVBD_OPT_SZ(name, letter, min, max, help)			\
	{ name, letter, XVBD_OPT_SIZE, "SIZE", 0, min, max, help }
#define XVBD_OPT_P(name, letter, lo, hi, help)				\
	{ name, letter, XVBD_OPT_PERCENT, "P", 0, XVBD_PCT(lo),	\
	  XVBD_PCT(hi), help }
#define XVBD_OPT_END	{ NULL, 0, XVBD_OPT_FLAG, NULL, 0, 0, 0, NULL }

/* One option as given. */
struct xvbd_optval {
	int id;			/* its row in the command's table */
	bool global;		/* a row of the global table */
	const char *arg;	/* the value as written; NULL for a flag */
	uint64_t u;		/* BOOL, SECONDS, COUNT, SIZE */
	double fraction;	/* PERCENT */
	char spelled[40];	/* "-d" or "--interval": for messages */
};

#define XVBD_CMDLINE_ERR_MAX	512

/* What the parser made of a command line. */
struct xvbd_cmdline {
	const struct xvbd_cmd *cmd;	/* NULL: none (help, version, error) */
	const char *group;		/* "ab" named without a subcommand */
	struct xvbd_optval *given;	/* the command's options, in order */
	size_t ngiven;
	struct xvbd_optval *globals;	/* the global options, in order */
	size_t nglobals;
	char **operands;
	int noperands;
	bool help;			/* -h/--help anywhere */
	int rc;				/* 0, or 2 with err set */
	char err[XVBD_CMDLINE_ERR_MAX];	/* one line, without "xvbd: " */
	char hint[XVBD_CMDLINE_ERR_MAX];	/* "did you mean ..." or "" */
	bool json_seen;			/* --json/-j somewhere (also when
					 * the line has an error) */
};

struct xvbd_cmd;

/* The global options, by row. */
extern const struct xvbd_cmdopt xvbd_global_opts[];
enum {
	XVBD_G_VERBOSE, XVBD_G_QUIET, XVBD_G_JSON, XVBD_G_DRY_RUN,
	XVBD_G_HELP, XVBD_G_VERSION,
};

/*
 * Parse argv[0..argc) (after the program name).  Returns cl->rc; the
 * arrays are malloc'd (xvbd_cmdline_free), operands point into argv.
 * On ENOMEM rc is 1 with err set.
 */
int xvbd_cmdline_parse(const struct xvbd_cmd *cmds, size_t ncmds, int argc,
		       char **argv, struct xvbd_cmdline *cl);
void xvbd_cmdline_free(struct xvbd_cmdline *cl);
/* The last value of option id given, or NULL. */
const struct xvbd_optval *xvbd_cmdline_get(const struct xvbd_cmdline *cl,
					   int id);
/*
 * Edit distance (optimal string alignment: a transposition is one edit),
 * capped: values above cap come back as cap + 1.
 */
size_t xvbd_edit_distance(const char *a, const char *b, size_t cap);
/* The most the suggestion for a word of this length may differ. */
size_t xvbd_suggest_cap(const char *word);

#endif /* XVBD_CMD_OPT_H */
