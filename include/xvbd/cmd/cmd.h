/*
 * cmd.h - what main() hands to a command (the context), the central
 * checks that run it, and the helpers every command's parser shares.
 * The table's entries themselves: cmd_table.h.
 */
#ifndef XVBD_CMD_H
#define XVBD_CMD_H

#include <stdbool.h>
#include <stdio.h>
#include <stdint.h>

#include "xvbd/base/out.h"
#include "xvbd/cmd/cmd_opt.h"
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
	const struct xvbd_cmdline *cl;	/* the command's options, parsed */
	const struct xvbd_cmd *cmds;	/* the table, for help */
	size_t ncmds;
	struct xvbd_xs *xs;		/* NULL unless CMD_NEEDS_XS */
	struct xvbd_tstack *ts;		/* NULL unless CMD_NEEDS_LIBXL */
	struct xvbd_out *out;
};

/* "xvbd: <cmd>: <msg>" and, not with -q, where the help is ("see \"xvbd
 * <cmd> -h\""); returns XVBD_EXIT_USAGE. */
int xvbd_usage_error(const struct xvbd_cmd *cmd, const char *fmt, ...)
	XVBD_PRINTF(2, 3);
/* The pointer to a command's help that follows a usage error. */
void xvbd_usage_hint(const struct xvbd_cmd *cmd);
/*
 * The options the command was given (its table's rows): the last value
 * of row id, or NULL; all of them in order: ctx->cl->given[0..ngiven).
 */
const struct xvbd_optval *xvbd_opt(const struct xvbd_ctx *ctx, int id);
/*
 * Check root and open what the command's flags ask for (xenstore, libxl)
 * into ctx; a second call opens nothing again.  The dispatcher calls it
 * before the handler, except for CMD_LATE_CONNECT commands: they call it
 * after checking their options and operands, so that a usage error is
 * reported as such even where xenstore is missing.  Prints the error;
 * returns the exit code.
 */
int xvbd_cmd_connect(struct xvbd_ctx *ctx);
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
/* Run the command: the central checks, then cmd->fn.  Exit code. */
int xvbd_cmd_run(struct xvbd_ctx *ctx, int argc, char **argv);

/* Option tables (cmd_opt.h), each beside its command's parser. */
extern const struct xvbd_cmdopt cmd_start_opts[], cmd_defaults_opts[],
	cmd_stats_opts[], cmd_advise_opts[], cmd_pv_opts[],
	cmd_ab_record_opts[], cmd_ab_compare_opts[], cmd_ab_list_opts[],
	cmd_ab_show_opts[], cmd_ab_rm_opts[], cmd_ab_export_opts[],
	cmd_ab_plot_opts[], cmd_help_opts[], cmd_attach_opts[],
	cmd_detach_opts[], cmd_apply_opts[], cmd_ab_run_opts[];

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
