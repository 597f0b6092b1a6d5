/*
 * attach_script.c - which hotplug script a disk gets, and its dom0 cache
 * mode (see include/xvbd/attach_script.h).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "xvbd/vbd/attach_script.h"

/* make install puts xvbd-block there, with its second name */
#define XVBD_BLOCK		XVBD_XEN_SCRIPT_DIR "/" XVBD_BLOCK_SCRIPT
#define XVBD_BLOCK_DIRECT	XVBD_XEN_SCRIPT_DIR "/" XVBD_BLOCK_DIRECT_SCRIPT

static bool installed_now(const char *script)
{
	struct stat st;

	return !stat(script, &st) && S_ISREG(st.st_mode) &&
	       !access(script, X_OK);
}

/* Why a disk does not get xvbd-block (NULL: it does, when installed). */
static const char *not_ours(const struct xvbd_tstack_disk_info *info,
			    bool file)
{
	if (info->script)
		return "the disk spec names its own hotplug script";
	if (info->is_cdrom)
		return "a cdrom";
	if (!info->backend_dom0)
		return "its backend is a driver domain";
	if (strcmp(info->format, "raw"))
		return "not a raw image";
	if (strcmp(info->backend, "unknown") && strcmp(info->backend, "phy"))
		return "its backendtype is not phy";
	if (!info->target || !file)
		return "not a regular file (blkback's I/O to a block device "
			"does not go through dom0's page cache)";
	return NULL;
}

/*
 * --cache none: only xvbd-block-direct binds a loop device with direct
 * I/O, and only for a file on a file system that can do it.  Checked
 * before libxl, so that nothing is half-added; xvbd-block-direct checks
 * the loop once more.
 */
static int check_none(const struct xvbd_tstack_disk_info *info,
		      const char *why_not, bool ours, char *why,
		      size_t why_len, const char **hint)
{
	char reason[256];
	struct stat st;

	if (why_not) {
		snprintf(why, why_len, "--cache none: %s", why_not);
		return -EINVAL;
	}
	if (!ours) {
		snprintf(why, why_len, "--cache none: %s is not installed",
			 XVBD_BLOCK_DIRECT);
		*hint = "make install puts it there (Xen's block script has "
			"no direct I/O)";
		return -EINVAL;
	}
	/* -N: an image still to be created or mounted is checked later. */
	if (stat(info->target, &st))
		return 0;
	if (xvbd_cache_check_direct(info->target, reason, sizeof(reason))) {
		snprintf(why, why_len, "--cache none: %s", reason);
		*hint = "attach it with --cache host, or keep the image on a "
			"file system with direct I/O";
		return -EINVAL;
	}
	return 0;
}

bool xvbd_script_installed(enum xvbd_cache want, int *installed)
{
	if (*installed < 0)
		*installed = installed_now(want == XVBD_CACHE_NONE ?
					   XVBD_BLOCK_DIRECT : XVBD_BLOCK);
	return *installed;
}

const char *xvbd_script_path(enum xvbd_cache want)
{
	return want == XVBD_CACHE_NONE ? XVBD_BLOCK_DIRECT : XVBD_BLOCK;
}

int xvbd_script_choose(const struct xvbd_tstack_disk_info *info, bool file,
		       enum xvbd_cache want, int *installed,
		       struct xvbd_script_choice *out, char *why,
		       size_t why_len, const char **hint)
{
	const char *script = want == XVBD_CACHE_NONE ? XVBD_BLOCK_DIRECT :
		XVBD_BLOCK, *why_not = not_ours(info, file);
	int err;

	*hint = NULL;
	if (!why_not && *installed < 0)
		*installed = installed_now(script);
	out->ours = !why_not && *installed;
	if (want == XVBD_CACHE_NONE) {
		err = check_none(info, why_not, out->ours, why, why_len, hint);
		if (err)
			return err;
	}
	out->script = out->ours ? script : info->script ? info->script :
		"block";
	/* Xen's block script binds a buffered loop device for a file. */
	out->cache = out->ours ? want : !why_not ? XVBD_CACHE_HOST :
		XVBD_CACHE_NA;
	return 0;
}
