/*
 * pv_file.c - a guest's xl config read and parsed by libxlutil: what pv's
 * status and its on/off edit both start from (cmd_pv_status.c,
 * cmd_pv.c), so that neither file needs the other's.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "xvbd/base/cfgfile.h"
#include "xvbd/base/lock.h"
#include "xvbd/base/safepath.h"
#include "xvbd/base/util.h"
#include "xvbd/cmd/cmd_pv.h"
#include "xvbd/xen/tstack.h"

void pv_edit_free(struct pv_edit *e)
{
	xvbd_pv_plan_free(&e->plan);
	xvbd_tstack_pvcfg_free(&e->cfg);
	xvbd_cfgfile_free(&e->file);
	free(e->new_text);
	free(e->diff);
	free(e->backup);
	memset(e, 0, sizeof(*e));
}

/*
 * Read and parse the config: the facts status and the edit start from.
 * On failure e is freed.
 */
int pv_load(const char *path, struct pv_edit *e)
{
	char why[512];
	int rc;

	rc = xvbd_cfgfile_read(path, XVBD_CFGFILE_MAX_BYTES, &e->file, why,
			       sizeof(why));
	if (!rc)
		rc = xvbd_tstack_pvcfg_parse(path, e->file.data, e->file.len,
					     &e->cfg, why, sizeof(why));
	if (rc) {
		xvbd_err("pv", path, "%s", why);
		pv_edit_free(e);
		return XVBD_EXIT_FAIL;
	}
	return XVBD_EXIT_OK;
}

int pv_lock(struct xvbd_ctx *ctx, const char *path, struct pv_lock *lk)
{
	struct xvbd_safe_why why;

	lk->fd = -1;
	lk->real = NULL;
	if (xvbd_path_check_safe(path, XVBD_SAFE_FILE, &why)) {
		xvbd_safe_why_free(&why);
		return XVBD_EXIT_OK;
	}
	lk->real = why.real;
	lk->fd = xvbd_file_lock("pv", lk->real, XVBD_LOCK_WAIT_S,
				!ctx->opts->quiet && isatty(STDERR_FILENO));
	if (lk->fd >= 0)
		return XVBD_EXIT_OK;
	pv_unlock(lk);
	return XVBD_EXIT_FAIL;
}

void pv_unlock(struct pv_lock *lk)
{
	xvbd_file_unlock(lk->real, lk->fd);
	free(lk->real);
	lk->real = NULL;
	lk->fd = -1;
}
