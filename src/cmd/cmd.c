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
#include "xvbd/base/optval.h"
#include "xvbd/base/util.h"

int xvbd_usage_error(const struct xvbd_cmd *cmd, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	xvbd_verr(cmd->name, NULL, fmt, ap);
	va_end(ap);
	xvbd_cmd_usage(cmd, stderr);
	return XVBD_EXIT_USAGE;
}

void xvbd_getopt_begin(void)
{
	optind = 0;	/* GNU: reinitialise (main() parsed with "+") */
	opterr = 0;
}

int xvbd_getopt(int argc, char **argv, const char *shortopts,
		const struct option *longopts)
{
	return getopt_long(argc + 1, argv - 1, shortopts, longopts, NULL);
}

int xvbd_getopt_error(const struct xvbd_cmd *cmd, char **argv, int c)
{
	/* getopt's optind counts argv[-1]: the option is argv[optind - 2]. */
	if (c == ':')
		return xvbd_usage_error(cmd, "%s needs a value",
					argv[optind - 2]);
	return xvbd_usage_error(cmd, "unknown option \"%s\"",
				argv[optind - 2]);
}

int xvbd_getopt_index(void)
{
	return optind - 1;
}

static int opt_refused(const struct xvbd_cmd *cmd, const char *opt,
		       const char *arg, const char *why)
{
	return xvbd_usage_error(cmd, "%s: \"%s\": %s", opt, arg, why);
}

int xvbd_opt_seconds(const struct xvbd_cmd *cmd, const char *opt,
		     const char *arg, uint64_t min_ns, uint64_t max_s,
		     uint64_t *ns)
{
	char why[XVBD_OPTVAL_WHY_MAX];

	if (xvbd_optval_seconds(arg, min_ns, max_s, ns, why, sizeof(why)))
		return opt_refused(cmd, opt, arg, why);
	return XVBD_EXIT_OK;
}

int xvbd_opt_whole_seconds(const struct xvbd_cmd *cmd, const char *opt,
			   const char *arg, uint64_t min_s, uint64_t max_s,
			   uint64_t *s)
{
	uint64_t ns;
	int rc;

	rc = xvbd_opt_seconds(cmd, opt, arg, min_s * XVBD_NS_PER_S, max_s,
			      &ns);
	if (!rc)
		*s = (ns + XVBD_NS_PER_S - 1) / XVBD_NS_PER_S;
	return rc;
}

int xvbd_opt_percent(const struct xvbd_cmd *cmd, const char *opt,
		     const char *arg, double lo, double hi, double *fraction)
{
	char why[XVBD_OPTVAL_WHY_MAX];

	if (xvbd_optval_percent(arg, lo, hi, fraction, why, sizeof(why)))
		return opt_refused(cmd, opt, arg, why);
	return XVBD_EXIT_OK;
}

int xvbd_opt_confidence(const struct xvbd_cmd *cmd, const char *opt,
			const char *arg, double *level)
{
	char why[XVBD_OPTVAL_WHY_MAX];

	if (xvbd_optval_confidence(arg, level, why, sizeof(why)))
		return opt_refused(cmd, opt, arg, why);
	return XVBD_EXIT_OK;
}

int xvbd_opt_count(const struct xvbd_cmd *cmd, const char *opt,
		   const char *arg, uint64_t min, uint64_t max, uint64_t *out)
{
	char why[XVBD_OPTVAL_WHY_MAX];

	if (xvbd_optval_count(arg, min, max, out, why, sizeof(why)))
		return opt_refused(cmd, opt, arg, why);
	return XVBD_EXIT_OK;
}

int xvbd_opt_size(const struct xvbd_cmd *cmd, const char *opt,
		  const char *arg, uint64_t min, uint64_t max, uint64_t *bytes)
{
	char why[XVBD_OPTVAL_WHY_MAX];

	if (xvbd_optval_size(arg, min, max, bytes, why, sizeof(why)))
		return opt_refused(cmd, opt, arg, why);
	return XVBD_EXIT_OK;
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

static bool wants_help(int argc, char **argv)
{
	int i;

	for (i = 0; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
			return true;
	return false;
}

/*
 * Unless the command parses options itself (getopt knows "--"), a
 * dash-led word is a mistake, and a first "--" ends that check and is
 * taken out, so "xvbd show -- -odd-name xvda" names a domain "-odd-name".
 */
static int check_args(const struct xvbd_cmd *cmd, int *argc, char **argv)
{
	int i;

	for (i = 0; i < *argc && !(cmd->flags & CMD_OWN_OPTIONS); i++) {
		if (!strcmp(argv[i], "--")) {
			memmove(&argv[i], &argv[i + 1],
				(size_t)(*argc - i) * sizeof(*argv));
			(*argc)--;
			break;
		}
		if (argv[i][0] == '-' && argv[i][1])
			return xvbd_usage_error(cmd, "unknown option \"%s\"",
						argv[i]);
	}
	if (*argc < cmd->min_args)
		return xvbd_usage_error(cmd, "missing arguments");
	if (cmd->max_args != CMD_ARGS_ANY && *argc > cmd->max_args)
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

	if (wants_help(argc, argv)) {
		xvbd_cmd_usage(cmd, stdout);
		return XVBD_EXIT_OK;
	}
	rc = check_args(cmd, &argc, argv);
	if (rc)
		return rc;
	if (ctx->opts->dry_run && !(cmd->flags & CMD_CAN_DRY_RUN))
		return xvbd_usage_error(cmd, "-N (dry run) is not supported "
					"by this command");
	ctx->out = xvbd_out_new(stdout, ctx->opts->json);
	if (!ctx->out) {
		xvbd_err(cmd->name, "output", "%s", strerror(ENOMEM));
		return XVBD_EXIT_FAIL;
	}
	/* Commands with their own options or operand checks connect
	 * after them. */
	if (!(cmd->flags & (CMD_OWN_OPTIONS | CMD_LATE_CONNECT))) {
		rc = xvbd_cmd_connect(ctx);
		if (rc)
			goto out;
	}
	xvbd_journal_begin(cmd->name);
	rc = cmd->fn(ctx, argc, argv);
	/* Whatever its exit code, it has said itself what it left. */
	xvbd_journal_end();
	/* A command that rendered nothing (help) has no document to end. */
	if (rc == XVBD_EXIT_OK && xvbd_out_finish(ctx->out)) {
		xvbd_err(cmd->name, "stdout", "write failed");
		rc = XVBD_EXIT_FAIL;
	}
out:
	xvbd_tstack_close(ctx->ts);
	xvbd_xs_close(ctx->xs);
	xvbd_out_free(ctx->out);
	ctx->ts = NULL;
	ctx->xs = NULL;
	ctx->out = NULL;
	return rc;
}
