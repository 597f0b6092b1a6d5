/*
 * image.h - image files for file-backed VBDs: the decision (use, create,
 * refuse) is pure and unit-tested; creation is O_EXCL so an existing file
 * is never overwritten, and a file that could not be fully created is
 * removed again.  Plain libc only.
 *
 * Who decides which file is opened.  xvbd runs as root, so a path must
 * not lead it somewhere its owner did not mean:
 *   - an image on a share (XVBD_SHARE_DIR/<name>/...): the file server
 *     controls everything below the mount point, so the path is resolved
 *     beneath it with no symbolic link at all and no mount crossing
 *     (openat2 RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_XDEV, or
 *     the same rules walked one component at a time where openat2 is
 *     missing); the file must be a regular file on the share's own file
 *     system, mounted nosuid,nodev (share.c mounts with both and noexec);
 *   - any other path: a symbolic link is followed only if it lies in a
 *     directory that root owns and nobody else can write to; one in a
 *     directory another user can write to (/tmp, a user's home) is
 *     refused, since that user can point it at any dom0 file.
 * Every open is O_NONBLOCK (a FIFO must not block root) and O_NOFOLLOW on
 * the last component, and the opened descriptor is checked, not the path:
 * regular file, or refused.  xvbd attach and xvbd-block use the same
 * functions, so the hotplug script checks again what the command checked.
 */
#ifndef XVBD_IMAGE_H
#define XVBD_IMAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

/* Sizes are whole 512-byte sectors (blkif "sectors"). */
#define XVBD_SECTOR_BYTES	512
/* The sizes an image file may be given (attach --size, a plan's "size"):
 * a sector up to 1 EiB, a bound every filesystem is below. */
#define XVBD_IMAGE_SIZE_MIN	XVBD_SECTOR_BYTES
#define XVBD_IMAGE_SIZE_MAX	(UINT64_C(1) << 60)

enum xvbd_image_action {
	XVBD_IMAGE_USE,		/* exists with the right (or any) size */
	XVBD_IMAGE_CREATE,	/* missing, --size given */
};

/*
 * st: the file's stat, NULL if it does not exist.  have_size/want_bytes:
 * --size.  Refuses: missing without --size (-ENOENT), not a regular file
 * (-EINVAL), --size different from the existing size (-EEXIST: never
 * shrink or grow someone's image), a size that is 0 or not a multiple of
 * 512 (-EINVAL).  *size_bytes: the image's size after the action.
 */
int xvbd_image_plan(const struct stat *st, bool have_size,
		    uint64_t want_bytes, enum xvbd_image_action *action,
		    uint64_t *size_bytes, char *why, size_t why_len);

/* Stat path and plan (no side effect): what xvbd_image_prepare would do. */
int xvbd_image_check(const char *path, bool have_size, uint64_t want_bytes,
		     enum xvbd_image_action *action, uint64_t *size_bytes,
		     char *why, size_t why_len);

/*
 * Stat path, plan, and create it when the plan says so: O_CREAT|O_EXCL,
 * mode 0600, sparse (ftruncate) or fully allocated (posix_fallocate) with
 * prealloc.  *created tells the caller to unlink it if a later step fails.
 */
int xvbd_image_prepare(const char *path, bool have_size, uint64_t want_bytes,
		       bool prealloc, bool *created, uint64_t *size_bytes,
		       char *why, size_t why_len);

/*
 * Open the image at the absolute path under the rules above.  flags:
 * O_RDONLY or O_RDWR (O_CLOEXEC, O_NOCTTY added; O_NONBLOCK used for the
 * open and cleared after).  Returns the descriptor, or -errno with why
 * set: -ENOENT (missing), -ELOOP (a symbolic link the rules refuse),
 * -EINVAL (not a regular file, or a share mounted without nosuid,nodev),
 * -EXDEV (not on the share's file system), or the open's own error.  st
 * (may be NULL): the opened file's stat.
 */
int xvbd_image_open(const char *path, int flags, struct stat *st,
		    char *why, size_t why_len);

/*
 * Resolve rel (relative, no "..") beneath the directory dirfd with no
 * symbolic link and no mount crossing, and open it with flags (O_NOFOLLOW
 * and O_CLOEXEC added; mode for O_CREAT).  use_openat2: openat2(2) with
 * RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_XDEV |
 * RESOLVE_NO_MAGICLINKS, falling back to the walk when the kernel has no
 * openat2 (ENOSYS); false: the walk (unit tests check both).  fd or
 * -errno (-ELOOP: a symbolic link on the way, -EXDEV: a mount crossed).
 */
int xvbd_image_openat_beneath(int dirfd, const char *rel, int flags,
			      mode_t mode, bool use_openat2);

/*
 * Remove an image this process created (a later step failed), through the
 * same resolution as xvbd_image_open: never a file a link points to.
 */
int xvbd_image_remove(const char *path);
/*
 * The image this process created is a disk's now (added to a guest): its
 * journal entry is closed, so that no report of a later kill looks at
 * the file (on a share, a stat can hang with the server).
 */
void xvbd_image_handed_over(const char *path);

#endif /* XVBD_IMAGE_H */
