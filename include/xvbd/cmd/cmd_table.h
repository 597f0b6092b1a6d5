/*
 * cmd_table.h - the command table: each entry's name, handler,
 * preconditions and usage, found by name (unique prefixes) and printed
 * as usage.  Pure: no connection, no context beyond its type.
 *
 * Flags state each command's preconditions; main() checks them once:
 * argument counts, -N support, root, then opens xenstore (writable only
 * with CMD_WRITES_XS) and libxl only when asked.
 */
#ifndef XVBD_CMD_TABLE_H
#define XVBD_CMD_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define CMD_NEEDS_ROOT		(1u << 0)
#define CMD_NEEDS_XS		(1u << 1)
#define CMD_NEEDS_LIBXL		(1u << 2)
#define CMD_WRITES_XS		(1u << 3)
#define CMD_CAN_DRY_RUN		(1u << 4)
/* Operands or options to check before connecting (a vdev, key=value
 * words, a file name): the command calls xvbd_cmd_connect() itself,
 * after them, so that a usage error is one also where Xen is missing. */
#define CMD_LATE_CONNECT	(1u << 6)
/* The command changes the host in steps: SIGINT, SIGTERM and SIGHUP set a
 * flag (xvbd/sig.h) that it checks between them, cleans up, exits 1. */
#define CMD_CATCHES_SIGNALS	(1u << 7)

#define CMD_ARGS_ANY		(-1)

struct xvbd_ctx;
struct xvbd_cmdopt;

struct xvbd_cmd {
	const char *name;
	int (*fn)(struct xvbd_ctx *ctx, int argc, char **argv);
	unsigned flags;
	int min_args, max_args;		/* operands; CMD_ARGS_ANY: no limit */
	const char *summary;
	/* after "xvbd <name> ": the operands and the options a call must
	 * have ("<Label> --domain <Domain> [options]") */
	const char *usage;
	const struct xvbd_cmdopt *opts;	/* cmd_opt.h; NULL: none */
	const char *example;		/* one command line, for help */
};

/*
 * Names are one word ("attach") or two for a group ("ab record"): the
 * command line names a group's command with two words.  Each word matches
 * exactly, else as a unique prefix.  Returns the entry and in *nwords how
 * many of argv's words it took; NULL when none matches (*ambiguous set
 * on several hits; *group set to a group entry's name when the group
 * matched but its subcommand is missing or unknown).
 */
#define XVBD_CMD_NAME_MAX	32
const struct xvbd_cmd *xvbd_cmd_find(const struct xvbd_cmd *cmds,
				     size_t ncmds, int argc, char **argv,
				     int *nwords, bool *ambiguous,
				     const char **group);
/*
 * Report a failed xvbd_cmd_find() of argv (its outputs as given): an
 * unknown or ambiguous command, or a group without a valid subcommand
 * (then the group's usage; "-h" after the group prints it to stdout and
 * returns XVBD_EXIT_OK).  who: the command prefix of the message (NULL
 * for main, "help").  Returns the exit code.
 */
int xvbd_cmd_not_found(const struct xvbd_cmd *cmds, size_t ncmds, int argc,
		       char **argv, int nwords, bool ambiguous,
		       const char *group, const char *who);
/*
 * The error of a command word that names nothing (group: the group word
 * written before it, or NULL): "unknown command \"lsit\"" with the
 * suggestion "did you mean \"list\"?", or "ambiguous command \"s\":
 * show, start or stats".  Without the "xvbd: " prefix.
 */
void xvbd_cmd_name_error(const struct xvbd_cmd *cmds, size_t ncmds,
			 const char *group, const char *word, bool ambiguous,
			 char *err, size_t err_len, char *hint,
			 size_t hint_len);
/* "Usage: xvbd ab <subcommand>" and the group's commands. */
void xvbd_cmd_group_usage(const struct xvbd_cmd *cmds, size_t ncmds,
			  const char *group, FILE *stream);
/*
 * A command's help, every line within 80 columns: its usage, what it
 * does, one line per option (from its table), the global options and
 * an example.
 */
void xvbd_cmd_usage(const struct xvbd_cmd *cmd, FILE *stream);
#define XVBD_HELP_COLUMNS	80
/* -q: the usage functions print nothing on stderr (main() sets it). */
void xvbd_usage_quiet(bool quiet);
bool xvbd_usage_is_quiet(void);
void xvbd_global_usage(const struct xvbd_cmd *cmds, size_t ncmds,
		       FILE *stream);
#endif /* XVBD_CMD_TABLE_H */
