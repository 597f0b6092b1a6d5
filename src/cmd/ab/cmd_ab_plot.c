/*
 * cmd_ab_plot.c - xvbd ab plot A B [C...] -o FILE.svg [--metric M]...
 *		   [--test welch|mwu] [--baseline L] [--dir DIR]
 *
 * Two labels: their runs and one run's time series each (ab_plot.c).
 * Three or more, a sweep's levels: each metric against the levels, the
 * baseline (the first, or --baseline) marked (ab_plot_levels.c).  The
 * picture is the ab layer's; this writes it atomically:
 * a temporary file beside FILE (O_EXCL), fsync, rename over FILE, fsync
 * of the directory.  A reader sees the old picture or the new one.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "xvbd/ab/ab.h"
#include "xvbd/ab/ab_plot.h"
#include "xvbd/ab/ab_sweep.h"
#include "xvbd/cmd/cmd.h"
#include "xvbd/cmd/ab/cmd_ab.h"
#include "xvbd/base/util.h"

/* The whiskers of the levels' picture: each mean's t interval. */
#define PLOT_CONFIDENCE	0.95

struct plot_opts {
	const char *out;
	const char *dir;
	bool shown[XVBD_AB_NMETRICS];
	bool some_metric;
	enum xvbd_ab_test test;
	const char *baseline;
	char **ops;
	size_t nops, base;
};

/* FILE: a name ending in ".svg", not a directory or a device; "-". */
static int check_out(const struct xvbd_cmd *cmd, const char *path)
{
	const char *base = strrchr(path, '/');
	size_t len = strlen(path);
	struct stat st;

	if (!strcmp(path, "-"))
		return XVBD_EXIT_OK;
	base = base ? base + 1 : path;
	if (len >= PATH_MAX - 16 || strlen(base) <= 4 ||
	    strcmp(path + len - 4, ".svg"))
		return xvbd_usage_error(cmd, "-o: expected a file name ending "
					"in .svg, or - for stdout");
	if (!lstat(path, &st) && !S_ISREG(st.st_mode))
		return xvbd_usage_error(cmd, "-o: \"%s\" exists and is not a "
					"regular file", path);
	return XVBD_EXIT_OK;
}

enum { O_OUTPUT, O_METRIC, O_TEST, O_DIR, O_BASELINE };

const struct xvbd_cmdopt cmd_ab_plot_opts[] = {
	[O_OUTPUT] = XVBD_OPT_STR("output", 'o', "FILE.svg", 0,
		"the SVG file to write (replaced); -: stdout"),
	[O_METRIC] = XVBD_AB_ROW_METRIC("the metrics to draw (default: "
					"the main ones)"),
	[O_TEST] = XVBD_AB_ROW_TEST,
	[O_DIR] = XVBD_AB_ROW_DIR,
	[O_BASELINE] = XVBD_AB_ROW_BASELINE,
	XVBD_OPT_END,
};

static int parse_opts(struct xvbd_ctx *ctx, int argc, char **argv,
		      struct plot_opts *po, int *first)
{
	const struct xvbd_cmdline *cl = ctx->cl;
	size_t i;
	int rc;

	po->dir = XVBD_AB_DIR_DEFAULT;
	po->test = XVBD_AB_TEST_WELCH;
	for (i = 0; i < cl->ngiven; i++) {
		const struct xvbd_optval *v = &cl->given[i];

		switch (v->id) {
		case O_OUTPUT:
			rc = check_out(ctx->cmd, v->arg);
			if (rc)
				return rc;
			po->out = v->arg;
			break;
		case O_METRIC:
			rc = xvbd_ab_cli_metrics(ctx->cmd, v->arg, po->shown);
			if (rc)
				return rc;
			po->some_metric = true;
			break;
		case O_TEST:
			rc = xvbd_ab_cli_test(ctx->cmd, v->arg, &po->test);
			if (rc)
				return rc;
			break;
		case O_DIR:
			rc = xvbd_ab_cli_dir(ctx->cmd, v->arg);
			if (rc)
				return rc;
			po->dir = v->arg;
			break;
		case O_BASELINE:
			po->baseline = v->arg;
			break;
		}
	}
	*first = 0;
	if (!po->out)
		return xvbd_usage_error(ctx->cmd, "-o FILE.svg is needed");
	/* stdout is the picture's: no room for the summary's JSON */
	if (!strcmp(po->out, "-") && ctx->opts->json)
		return xvbd_usage_error(ctx->cmd, "-o - writes the SVG on "
					"stdout: --json has no room there");
	po->ops = &argv[*first];
	po->nops = (size_t)(argc - *first);
	return xvbd_ab_cli_levels(ctx->cmd, po->ops, po->nops, po->baseline,
				  "plotted", &po->base);
}

/* Temporary beside path, fsync, rename over it, fsync the directory. */
static int write_atomic(const char *path, const char *buf, size_t len)
{
	char tmp[PATH_MAX], dir[PATH_MAX];
	const char *slash = strrchr(path, '/');
	int fd, dfd, rc = 0;

	if (slash)
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path) ?
			 (int)(slash - path) : 1, path);
	else
		snprintf(dir, sizeof(dir), ".");
	if ((size_t)snprintf(tmp, sizeof(tmp), "%s/.%s.XXXXXX", dir,
			     slash ? slash + 1 : path) >= sizeof(tmp))
		return -ENAMETOOLONG;
	fd = mkostemp(tmp, O_CLOEXEC);	/* O_EXCL, 0600 */
	if (fd < 0)
		return -errno;
	if (fchmod(fd, 0644))
		rc = -errno;
	if (!rc)
		rc = xvbd_write_all(fd, buf, len);
	if (!rc && fsync(fd))
		rc = -errno;
	if (close(fd) && !rc)
		rc = -errno;
	if (!rc && rename(tmp, path))
		rc = -errno;
	if (rc) {
		unlink(tmp);
		return rc;
	}
	/* A directory that cannot be opened: the rename stands all the same. */
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0) {
		if (fsync(dfd))
			rc = -errno;
		close(dfd);
	}
	return rc;
}

/*
 * A metric named that no run has (0 or unknown in every one) is a wrong
 * request: exit 2, as any; nothing at all to draw is a failure (1).
 */
static int check_data(struct xvbd_ctx *ctx, const struct plot_opts *po,
		      const struct xvbd_ab_level *lv)
{
	bool seen[XVBD_AB_NMETRICS], any = false;
	int m, err;

	err = xvbd_ab_plot_seen(lv, po->nops, seen);
	if (err) {
		xvbd_err(ctx->cmd->name, "summary", "%s", strerror(-err));
		return XVBD_EXIT_FAIL;
	}
	for (m = 0; m < XVBD_AB_NMETRICS; m++) {
		if (po->some_metric && po->shown[m] && !seen[m])
			return xvbd_usage_error(ctx->cmd, "--metric %s: no "
						"run of %s has it above 0 "
						"(unknown or 0 in every run): "
						"nothing to draw",
						xvbd_ab_metric_name(m),
						po->nops > 2 ? "the levels" :
						"A or B");
		any |= seen[m];
	}
	if (any)
		return XVBD_EXIT_OK;
	xvbd_err(ctx->cmd->name, NULL, "nothing to draw: no metric is above 0 "
		 "in any run");
	return XVBD_EXIT_FAIL;
}

/* The picture: two labels' (A, B; the baseline is A) or the levels'. */
static int draw(const struct plot_opts *po, const struct xvbd_ab_level *lv,
		char **svg, size_t *len)
{
	struct xvbd_ab_plot_opts opts = {
		.metrics = po->some_metric ? po->shown : NULL,
		.test = po->test,
	};
	const struct xvbd_ab_level *a = &lv[po->base];

	if (po->nops > 2)
		return xvbd_ab_plot_levels_svg(lv, po->nops, po->base,
					       opts.metrics, PLOT_CONFIDENCE,
					       svg, len);
	return xvbd_ab_plot_svg(a->recs, a->n, lv[1 - po->base].recs,
				lv[1 - po->base].n, &opts, svg, len);
}

int cmd_ab_plot(struct xvbd_ctx *ctx, int argc, char **argv)
{
	struct plot_opts po = { 0 };
	struct xvbd_ab_level lv[XVBD_AB_LEVELS_MAX] = { { 0 } };
	struct xvbd_ab_record *recs[XVBD_AB_LEVELS_MAX] = { NULL };
	size_t len = 0, i;
	char *svg = NULL;
	bool stdout_svg;
	int first = 0, rc, err;

	rc = parse_opts(ctx, argc, argv, &po, &first);
	if (rc)
		return rc;
	stdout_svg = !strcmp(po.out, "-");
	rc = xvbd_cmd_connect(ctx);
	if (!rc)
		rc = xvbd_ab_cli_select_levels(ctx->cmd, po.dir, po.ops,
					       po.nops, lv, recs);
	if (rc)
		goto out;
	/* before the default: a metric the user named */
	rc = check_data(ctx, &po, lv);
	if (rc)
		goto out;
	xvbd_ab_cli_default_metrics(lv, po.nops, po.shown, &po.some_metric);
	err = draw(&po, lv, &svg, &len);
	if (!err && stdout_svg)
		err = xvbd_write_all(STDOUT_FILENO, svg, len);
	else if (!err)
		err = write_atomic(po.out, svg, len);
	if (err) {
		xvbd_err(ctx->cmd->name, stdout_svg ? "stdout" : po.out, "%s",
			 strerror(-err));
		rc = XVBD_EXIT_FAIL;
		goto out;
	}
	if (stdout_svg)
		goto out;
	xvbd_out_obj_begin(ctx->out, NULL);
	xvbd_out_str(ctx->out, "file", po.out);
	if (po.nops == 2) {
		xvbd_out_str(ctx->out, "a", lv[po.base].label);
		xvbd_out_uint(ctx->out, "runs_a", lv[po.base].n);
		xvbd_out_str(ctx->out, "b", lv[1 - po.base].label);
		xvbd_out_uint(ctx->out, "runs_b", lv[1 - po.base].n);
	} else {
		xvbd_out_str(ctx->out, "baseline", lv[po.base].label);
		xvbd_out_arr_begin(ctx->out, "levels");
		for (i = 0; i < po.nops; i++) {
			xvbd_out_obj_begin(ctx->out, NULL);
			xvbd_out_str(ctx->out, "label", lv[i].label);
			xvbd_out_uint(ctx->out, "runs", lv[i].n);
			xvbd_out_obj_end(ctx->out);
		}
		xvbd_out_arr_end(ctx->out);
	}
	xvbd_out_obj_end(ctx->out);
out:
	free(svg);
	for (i = 0; i < po.nops; i++)
		xvbd_ab_records_free(recs[i], lv[i].n);
	return rc;
}
