/*
 * cfgfile.h - editing a configuration file in place, safely.
 *
 * Read it whole once (the bytes every later check compares with); write
 * the new text to a temporary file beside it with the file's owner and
 * mode, keep the old bytes in FILE<suffix>, and rename over the file only
 * if it is still what was read: same inode, size, modification time and
 * bytes.  A symbolic link is followed: the file it names is edited, but
 * only when the whole way to it is root's (safepath.h: every directory,
 * link and the file owned by root, none writable by group or others).
 * Plain libc: unit-tested with real files.
 *
 * Functions return 0 or a negative errno and fill a why buffer that fits
 * "xvbd: <cmd>: <what>: <why>".
 */
#ifndef XVBD_CFGFILE_H
#define XVBD_CFGFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

/* xl config files are small; anything bigger is not one. */
#define XVBD_CFGFILE_MAX_BYTES	(1 << 20)

struct xvbd_cfgfile {
	char *real;		/* resolved: the file read and written */
	char *data;		/* its bytes, NUL-terminated */
	size_t len;
	struct stat st;		/* at the read */
};

/*
 * -ENOENT missing, -EINVAL not a regular text file up to max_bytes,
 * -EPERM a component of the path is not safe for root (why names it).
 */
int xvbd_cfgfile_read(const char *path, size_t max_bytes,
		      struct xvbd_cfgfile *f, char *why, size_t why_len);
void xvbd_cfgfile_free(struct xvbd_cfgfile *f);

/*
 * Would replacing it work and keep what it is?  -EACCES: read-only (no
 * write bit in its mode, or not writable for this user); -EMLINK: more
 * than one hard link (the rename would split them).
 */
int xvbd_cfgfile_check_writable(const struct xvbd_cfgfile *f, char *why,
				size_t why_len);

/*
 * Replace f's file with data: temporary file beside it (owner, group and
 * mode of the file), fsync, the old bytes to f->real + backup_suffix
 * (atomically too), then before_commit(arg) if given (tests change the
 * file there), then the re-check, the rename and an fsync of the
 * directory.  -ESTALE: the file changed since the read (nothing is
 * written, the old backup stays); -EINTR: a caught signal (sig.h) came
 * before the renames (nothing written, no temporary left; after them the
 * replace completes).  *backup_path malloc'd on success.
 */
int xvbd_cfgfile_replace(const struct xvbd_cfgfile *f, const char *data,
			 size_t len, const char *backup_suffix,
			 void (*before_commit)(void *arg), void *arg,
			 char **backup_path, char *why, size_t why_len);

#endif /* XVBD_CFGFILE_H */
