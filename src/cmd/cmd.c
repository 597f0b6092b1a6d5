/*
 * cmd.c - command lookup, usage text, and the central precondition
 * checks every command goes through (flags of the command table).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "xvbd/cmd/cmd.h"
#include "xvbd/cmd/journal_report.h"
#include "xvbd/base/journal.h"
#include "xvbd/base/util.h"

void xvbd_usage_hint(const struct xvbd_cmd *cmd)
{
	if (xvbd_usage_is_quiet())
		return;
	if (cmd)
		xvbd_hint("see \"xvbd %s -h\"", cmd->name);
	else
		xvbd_hint("see \"xvbd -h\"");
}

int xvbd_usage_error(const struct xvbd_cmd *cmd, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	xvbd_verr(cmd->name, NULL, fmt, ap);
	va_end(ap);
	xvbd_usage_hint(cmd);
	return XVBD_EXIT_USAGE;
}

const struct xvbd_optval *xvbd_opt(const struct xvbd_ctx *ctx, int id)
{
	return ctx->cl ? xvbd_cmdline_get(ctx->cl, id) : NULL;
}

int xvbd_cmd_domain_lookup(const struct xvbd_ctx *ctx, const char *spec,
			   uint32_t *domid, char **name)
{
	int err = xvbd_tstack_domain_lookup(ctx->ts, spec, domid, name);

	if (!err)
		return XVBD_EXIT_OK;
	xvbd_err(ctx->cmd->name, "domain", "\"%s\": %s", spec,
		 xvbd_tstack_lookup_why(err));
	if (err == -ENOENT && !ctx->opts->quiet)
		xvbd_hint("see \"xl list\"");
	return xvbd_tstack_lookup_exit(err);
}

int xvbd_cmd_domain_check(const struct xvbd_ctx *ctx, const char *spec)
{
	int err = xvbd_tstack_domain_spec_check(spec);

	if (!err)
		return XVBD_EXIT_OK;
	xvbd_err(ctx->cmd->name, "domain", "\"%s\": %s", spec,
		 xvbd_tstack_lookup_why(err));
	return xvbd_tstack_lookup_exit(err);
}

int xvbd_cmd_disk_error(const struct xvbd_ctx *ctx, int err, const char *vdev,
			const char *domain)
{
	const char *name = ctx->cmd->name;

	if (err != -ENOENT) {
		xvbd_err(name, "disks", "domain %s: %s", domain, strerror(-err));
		return XVBD_EXIT_FAIL;
	}
	xvbd_err(name, "vdev", "\"%s\": domain %s has no such disk", vdev,
		 domain);
	if (!ctx->opts->quiet)
		xvbd_hint("see \"xvbd list %s\"", domain);
	return XVBD_EXIT_FAIL;
}

/*
 * The operand counts of the table; a dash-led word reaches a command
 * only after "--" (the parser took every option).
 */
static int check_args(const struct xvbd_cmd *cmd, int argc)
{
	if (argc < cmd->min_args)
		return xvbd_usage_error(cmd, "missing arguments");
	if (cmd->max_args != CMD_ARGS_ANY && argc > cmd->max_args)
		return xvbd_usage_error(cmd, "too many arguments");
	return XVBD_EXIT_OK;
}

static void needs(const struct xvbd_cmd *cmd, char *buf, size_t len)
{
	bool xs = cmd->flags & CMD_NEEDS_XS;
	bool xl = cmd->flags & CMD_NEEDS_LIBXL;

	snprintf(buf, len, "%s%s%s", xs ? "xenstore" : "",
		 xs && xl ? " and " : "", xl ? "libxl" : "");
}

int xvbd_cmd_connect(struct xvbd_ctx *ctx)
{
	const struct xvbd_cmd *cmd = ctx->cmd;
	char what[32];

	if ((cmd->flags & CMD_NEEDS_ROOT) && geteuid() != 0) {
		needs(cmd, what, sizeof(what));
		xvbd_err(cmd->name, NULL, "must run as root in dom0 (needs %s)",
			 what);
		return XVBD_EXIT_FAIL;
	}
	if ((cmd->flags & CMD_NEEDS_XS) && !ctx->xs) {
		/* Read-only commands get a handle that refuses writes. */
		ctx->xs = xvbd_xs_open(cmd->flags & CMD_WRITES_XS);
		if (!ctx->xs) {
			xvbd_err(cmd->name, "cannot open xenstore", "%s",
				 strerror(errno));
			if (!ctx->opts->quiet)
				xvbd_hint("run this in dom0 with xenstored "
					  "running");
			return XVBD_EXIT_FAIL;
		}
	}
	if ((cmd->flags & CMD_NEEDS_LIBXL) && !ctx->ts) {
		ctx->ts = xvbd_tstack_open(ctx->opts->verbose);
		if (!ctx->ts) {
			xvbd_err(cmd->name, "cannot initialise libxl",
				 "see the messages above");
			if (!ctx->opts->quiet)
				xvbd_hint("is this dom0 with /dev/xen "
					  "(xenfs, privcmd) available?");
			return XVBD_EXIT_FAIL;
		}
		/* What a killed xvbd left, said by the next one. */
		xvbd_journal_report(ctx);
	}
	return XVBD_EXIT_OK;
}

int xvbd_cmd_run(struct xvbd_ctx *ctx, int argc, char **argv)
{
	const struct xvbd_cmd *cmd = ctx->cmd;
	int rc;

	ctx->out = xvbd_out_new(stdout, ctx->opts->json);
	if (!ctx->out) {
		xvbd_err(cmd->name, "output", "%s", strerror(ENOMEM));
		return XVBD_EXIT_FAIL;
	}
	xvbd_out_set_verbose(ctx->out, ctx->opts->verbose);
	rc = check_args(cmd, argc);
	if (!rc && ctx->opts->dry_run && !(cmd->flags & CMD_CAN_DRY_RUN))
		rc = xvbd_usage_error(cmd, "-N (dry run) is not supported "
				      "by this command");
	if (rc)
		goto out;
	/* Commands with their own options or operand checks connect
	 * after them. */
	if (!(cmd->flags & CMD_LATE_CONNECT)) {
		rc = xvbd_cmd_connect(ctx);
		if (rc)
			goto out;
	}
	xvbd_journal_begin(cmd->name);
	rc = cmd->fn(ctx, argc, argv);
	/* Whatever its exit code, it has said itself what it left. */
	xvbd_journal_end();
out:
	/* A command that rendered nothing (help) has no document to end;
	 * under --json a failure is one object (out.h). */
	if (xvbd_out_finish_rc(ctx->out, rc) && rc == XVBD_EXIT_OK) {
		xvbd_err(cmd->name, "stdout", "write failed");
		rc = XVBD_EXIT_FAIL;
	}
	xvbd_tstack_close(ctx->ts);
	xvbd_xs_close(ctx->xs);
	xvbd_out_free(ctx->out);
	ctx->ts = NULL;
	ctx->xs = NULL;
	ctx->out = NULL;
	return rc;
}
