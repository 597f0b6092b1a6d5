/*
 * attach_script.h - the hotplug script libxl runs for a disk that xvbd
 * attach adds, and the dom0 cache mode that comes with it (--cache).
 *
 * Raw image files get xvbd-block, xvbd's hotplug program, instead of
 * Xen's bash "block" script when it is installed: the same checks and
 * loop device, without a dozen forked tools per disk and their time under
 * the script's global lock (bench/README.md, attach-8); by its
 * xvbd-block-direct name for --cache none (xvbd/cache.h).  Named by its
 * absolute path in XEN_SCRIPT_DIR, which may differ from the directory
 * libxl resolves relative names in.  A script the user named, cdroms
 * (media changes are libxl's business), other formats and backends, and
 * driver domains (the script runs there) keep what libxl would run.
 */
#ifndef XVBD_ATTACH_SCRIPT_H
#define XVBD_ATTACH_SCRIPT_H

#include <stdbool.h>
#include <stddef.h>

#include "xvbd/dom0/cache.h"
#include "xvbd/xen/tstack.h"

struct xvbd_script_choice {
	/* ours: set it as the disk's script; else what libxl runs */
	const char *script;
	bool ours;
	enum xvbd_cache cache;	/* the loop's mode; n/a without a loop */
};

/*
 * Choose for the disk info describes.  file: its target is (or, for a -N
 * plan, will be) a regular file.  want: --cache.  *installed caches
 * whether the program for want is installed (-1: not looked at yet).
 * --cache none that cannot be had (not an image file, xvbd-block-direct
 * missing, a file system without O_DIRECT: an existing target is opened
 * with it): -EINVAL, a reason in why and a fix in *hint (or NULL).
 */
int xvbd_script_choose(const struct xvbd_tstack_disk_info *info, bool file,
		       enum xvbd_cache want, int *installed,
		       struct xvbd_script_choice *out, char *why,
		       size_t why_len, const char **hint);

/*
 * Whether xvbd's program for want (xvbd-block, or xvbd-block-direct for
 * --cache none) is installed; *installed caches it as above.  A share's
 * image needs it: Xen's block script opens the image again by path, later,
 * and follows the links and device nodes the share's server puts there;
 * xvbd-block checks what it opened.
 */
bool xvbd_script_installed(enum xvbd_cache want, int *installed);
/* Its absolute path, for messages. */
const char *xvbd_script_path(enum xvbd_cache want);

#endif /* XVBD_ATTACH_SCRIPT_H */
