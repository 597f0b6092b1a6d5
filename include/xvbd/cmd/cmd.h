/*
 * cmd.h - what main() hands to a command (the context), the central
 * checks that run it, and the helpers every command's parser shares.
 * The table's entries themselves: cmd_table.h.
 */
#ifndef XVBD_CMD_H
#define XVBD_CMD_H

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdint.h>

#include "xvbd/base/out.h"
#include "xvbd/cmd/cmd_table.h"
#include "xvbd/xen/tstack.h"
#include "xvbd/xen/xs.h"

/* The parsed global options: the only program-wide state. */
struct xvbd_opts {
	int verbose;
	bool quiet;
	bool json;
	bool dry_run;
};

struct xvbd_ctx {
	const struct xvbd_opts *opts;
	const struct xvbd_cmd *cmd;
	const struct xvbd_cmd *cmds;	/* the table, for help */
	size_t ncmds;
	struct xvbd_xs *xs;		/* NULL unless CMD_NEEDS_XS */
	struct xvbd_tstack *ts;		/* NULL unless CMD_NEEDS_LIBXL */
	struct xvbd_out *out;
};

/* "xvbd: <cmd>: <msg>" + usage on stderr (not with -q); returns
 * XVBD_EXIT_USAGE. */
int xvbd_usage_error(const struct xvbd_cmd *cmd, const char *fmt, ...)
	XVBD_PRINTF(2, 3);
/*
 * Check root and open what the command's flags ask for (xenstore, libxl)
 * into ctx; a second call opens nothing again.  The dispatcher calls it before the handler,
 * except for CMD_OWN_OPTIONS commands: they call it after parsing, so that
 * a usage error is reported as such even where xenstore is missing.
 * Prints the error; returns the exit code.
 */
int xvbd_cmd_connect(struct xvbd_ctx *ctx);
/*
 * Option parsing for CMD_OWN_OPTIONS commands: getopt_long over the
 * command's own arguments (argc, argv as the handler got them; argv[-1],
 * the command name, stands in for getopt's program name), with getopt's
 * own messages off and its state reset by xvbd_getopt_begin():
 *
 *	xvbd_getopt_begin();
 *	while ((c = xvbd_getopt(argc, argv, ":d:", longopts)) != -1) {
 *		switch (c) {
 *		case 'd':
 *			... optarg ...
 *			break;
 *		default:
 *			return xvbd_getopt_error(ctx->cmd, argv, c);
 *		}
 *	}
 *	operands: argv[xvbd_getopt_index()] .. argv[argc - 1]
 *
 * Start shortopts with ':' to tell a missing value from an unknown option.
 * xvbd_getopt_error() takes getopt's ':' or '?' (any other value counts as
 * '?') and prints the usage error "<opt> needs a value" or
 * "unknown option \"<opt>\""; it returns XVBD_EXIT_USAGE.
 */
void xvbd_getopt_begin(void);
int xvbd_getopt(int argc, char **argv, const char *shortopts,
		const struct option *longopts);
int xvbd_getopt_error(const struct xvbd_cmd *cmd, char **argv, int c);
int xvbd_getopt_index(void);
/*
 * The loop above as one statement, as xl's SWITCH_FOREACH_OPT: getopt's
 * own errors ('?', ':') end the parser with the usage error, so that the
 * switch that follows holds only the command's options (and a default
 * for codes it hands on).  _WHILE stops at the first option for which
 * cond turns false (an error code set by a case).
 *
 *	XVBD_FOREACH_OPT(c, ctx->cmd, argc, argv, ":d:", longopts) {
 *	case 'd':
 *		...
 *		break;
 *	}
 */
#define XVBD_FOREACH_OPT_WHILE(cond, c, cmd, argc, argv, shortopts,	\
			       longopts)				\
	for (xvbd_getopt_begin();					\
	     (cond) && ((c) = xvbd_getopt((argc), (argv), (shortopts),	\
					  (longopts))) != -1;)		\
		if ((c) == '?' || (c) == ':')				\
			return xvbd_getopt_error((cmd), (argv), (c));	\
		else							\
			switch (c)
#define XVBD_FOREACH_OPT(c, cmd, argc, argv, shortopts, longopts)	\
	XVBD_FOREACH_OPT_WHILE(1, c, cmd, argc, argv, shortopts, longopts)
/*
 * xvbd_tstack_domain_lookup() of the <Domain> argument spec.  On failure
 * "xvbd: <cmd>: domain: \"<spec>\": <why>" and, for an unknown domain, a
 * hint; returns the exit code (XVBD_EXIT_OK when found).
 */
int xvbd_cmd_domain_lookup(const struct xvbd_ctx *ctx, const char *spec,
			   uint32_t *domid, char **name);
/*
 * The same refusal for what the lookup would refuse on syntax alone, for
 * a command to make before it connects: a usage error is found on the
 * command line.  XVBD_EXIT_OK or XVBD_EXIT_USAGE.
 */
int xvbd_cmd_domain_check(const struct xvbd_ctx *ctx, const char *spec);
/*
 * Report an xvbd_tstack_disk_find() error for the disk vdev of domain:
 * "xvbd: <cmd>: vdev: ... has no such disk" and a hint for -ENOENT, else
 * "xvbd: <cmd>: disks: ...".  Returns XVBD_EXIT_FAIL.
 */
int xvbd_cmd_disk_error(const struct xvbd_ctx *ctx, int err, const char *vdev,
			const char *domain);
/*
 * Option values in the one grammar (xvbd/base/optval.h): 0, or the usage
 * error "xvbd: <cmd>: <opt>: \"<arg>\": expected ..." printed and
 * XVBD_EXIT_USAGE returned.  Whole seconds: the seconds grammar, a
 * fraction rounded up (timeouts count whole seconds).
 */
int xvbd_opt_seconds(const struct xvbd_cmd *cmd, const char *opt,
		     const char *arg, uint64_t min_ns, uint64_t max_s,
		     uint64_t *ns);
int xvbd_opt_whole_seconds(const struct xvbd_cmd *cmd, const char *opt,
			   const char *arg, uint64_t min_s, uint64_t max_s,
			   uint64_t *s);
int xvbd_opt_percent(const struct xvbd_cmd *cmd, const char *opt,
		     const char *arg, double lo, double hi, double *fraction);
int xvbd_opt_confidence(const struct xvbd_cmd *cmd, const char *opt,
			const char *arg, double *level);
int xvbd_opt_count(const struct xvbd_cmd *cmd, const char *opt,
		   const char *arg, uint64_t min, uint64_t max, uint64_t *out);
int xvbd_opt_size(const struct xvbd_cmd *cmd, const char *opt,
		  const char *arg, uint64_t min, uint64_t max, uint64_t *bytes);
/* Run the command: the central checks, then cmd->fn.  Exit code. */
int xvbd_cmd_run(struct xvbd_ctx *ctx, int argc, char **argv);

/* Handlers, one file each. */
int cmd_help(struct xvbd_ctx *ctx, int argc, char **argv);
int cmd_list(struct xvbd_ctx *ctx, int argc, char **argv);
int cmd_show(struct xvbd_ctx *ctx, int argc, char **argv);
int cmd_stats(struct xvbd_ctx *ctx, int argc, char **argv);
int cmd_advise(struct xvbd_ctx *ctx, int argc, char **argv);
int cmd_attach(struct xvbd_ctx *ctx, int argc, char **argv);
int cmd_detach(struct xvbd_ctx *ctx, int argc, char **argv);
int cmd_apply(struct xvbd_ctx *ctx, int argc, char **argv);
int cmd_start(struct xvbd_ctx *ctx, int argc, char **argv);
int cmd_tune(struct xvbd_ctx *ctx, int argc, char **argv);
int cmd_defaults(struct xvbd_ctx *ctx, int argc, char **argv);
int cmd_ab_compare(struct xvbd_ctx *ctx, int argc, char **argv);
int cmd_ab_list(struct xvbd_ctx *ctx, int argc, char **argv);
int cmd_ab_show(struct xvbd_ctx *ctx, int argc, char **argv);
int cmd_ab_rm(struct xvbd_ctx *ctx, int argc, char **argv);
int cmd_ab_export(struct xvbd_ctx *ctx, int argc, char **argv);
int cmd_ab_plot(struct xvbd_ctx *ctx, int argc, char **argv);
int cmd_pv(struct xvbd_ctx *ctx, int argc, char **argv);
int cmd_ab_record(struct xvbd_ctx *ctx, int argc, char **argv);
int cmd_ab_run(struct xvbd_ctx *ctx, int argc, char **argv);

#endif /* XVBD_CMD_H */
