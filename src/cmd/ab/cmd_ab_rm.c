/*
 * cmd_ab_rm.c - xvbd [-N] ab rm [--dir DIR] [-N] ID|LABEL|FILE...
 *
 * Removes records from the store.  Only records: every file is read and
 * validated first, must lie in the store directory itself and be named
 * by its id; nothing is removed unless all operands pass.  -N lists what
 * would go.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "xvbd/ab/ab.h"
#include "xvbd/cmd/cmd.h"
#include "xvbd/cmd/ab/cmd_ab.h"
#include "xvbd/base/util.h"

static const struct xvbd_out_label rm_labels[] = {
	{ "id", "ID" },
	{ "label", "LABEL" },
	{ "path", "FILE" },
	{ "action", "ACTION" },
	{ NULL, NULL },
};

/*
 * rec->path names dirfd's entry "<id>.json" (same file, not via another
 * directory or a link elsewhere).  Returns 0 or a reason.
 */
static const char *not_in_store(int dirfd, const struct xvbd_ab_record *rec,
				char *name, size_t len)
{
	struct stat in_store, named;

	if ((size_t)snprintf(name, len, "%s.json", rec->id) >= len)
		return "its id is too long";
	if (fstatat(dirfd, name, &in_store, AT_SYMLINK_NOFOLLOW))
		return "it is not in the store directory";
	if (!S_ISREG(in_store.st_mode))
		return "it is not a regular file";
	if (lstat(rec->path, &named) || named.st_dev != in_store.st_dev ||
	    named.st_ino != in_store.st_ino)
		return "it is not the store's file of that id";
	return NULL;
}

enum { O_DIR };

const struct xvbd_cmdopt cmd_ab_rm_opts[] = {
	[O_DIR] = XVBD_AB_ROW_DIR,
	XVBD_OPT_END,
};

int cmd_ab_rm(struct xvbd_ctx *ctx, int argc, char **argv)
{
	const struct xvbd_optval *v = xvbd_opt(ctx, O_DIR);
	const char *dir = XVBD_AB_DIR_DEFAULT;
	bool dry_run = ctx->opts->dry_run;
	struct xvbd_ab_record *recs = NULL;
	char name[XVBD_AB_ID_MAX + 8];
	size_t n = 0, i;
	int first = 0, rc, dirfd = -1, i_arg;

	if (v) {
		rc = xvbd_ab_cli_dir(ctx->cmd, v->arg);
		if (rc)
			return rc;
		dir = v->arg;
	}
	if (first >= argc)
		return xvbd_usage_error(ctx->cmd, "nothing to remove");
	for (i_arg = first; i_arg < argc; i_arg++) {
		rc = xvbd_ab_cli_operand(ctx->cmd, argv[i_arg]);
		if (rc)
			return rc;
	}
	rc = xvbd_cmd_connect(ctx);
	if (!rc)
		rc = xvbd_ab_cli_select(ctx->cmd, dir, &argv[first],
					argc - first, &recs, &n);
	if (rc)
		return rc;
	dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0) {
		xvbd_err(ctx->cmd->name, dir, "%s", strerror(errno));
		rc = XVBD_EXIT_FAIL;
		goto out;
	}
	/* All or nothing: every record checked before the first unlink. */
	for (i = 0; i < n; i++) {
		const char *why = not_in_store(dirfd, &recs[i], name,
					       sizeof(name));

		if (why) {
			xvbd_err(ctx->cmd->name, recs[i].path, "not removed: "
				 "%s (%s)", why, dir);
			rc = XVBD_EXIT_FAIL;
			goto out;
		}
	}
	xvbd_out_labels(ctx->out, rm_labels);
	xvbd_out_arr_begin(ctx->out, NULL);
	for (i = 0; i < n; i++) {
		const char *action = "would remove";

		snprintf(name, sizeof(name), "%s.json", recs[i].id);
		if (!dry_run) {
			if (unlinkat(dirfd, name, 0)) {
				xvbd_err(ctx->cmd->name, recs[i].path, "%s",
					 strerror(errno));
				rc = XVBD_EXIT_FAIL;
				break;
			}
			action = "removed";
		}
		xvbd_out_obj_begin(ctx->out, NULL);
		xvbd_out_str(ctx->out, "id", recs[i].id);
		xvbd_out_str(ctx->out, "label", recs[i].label);
		xvbd_out_str(ctx->out, "path", recs[i].path);
		xvbd_out_str(ctx->out, "action", action);
		xvbd_out_obj_end(ctx->out);
	}
	xvbd_out_arr_end(ctx->out);
	/* The removals last across a crash like the writes do. */
	if (!dry_run && fsync(dirfd) && !rc) {
		xvbd_err(ctx->cmd->name, dir, "fsync: %s", strerror(errno));
		rc = XVBD_EXIT_FAIL;
	}
out:
	if (dirfd >= 0)
		close(dirfd);
	xvbd_ab_records_free(recs, n);
	return rc;
}
