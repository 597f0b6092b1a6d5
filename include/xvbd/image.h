/*
 * image.h - image files for file-backed VBDs: the decision (use, create,
 * refuse) is pure and unit-tested; creation is O_EXCL so an existing file
 * is never overwritten, and a file that could not be fully created is
 * removed again.  Plain libc only.
 */
#ifndef XVBD_IMAGE_H
#define XVBD_IMAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

/* Sizes are whole 512-byte sectors (blkif "sectors"). */
#define XVBD_SECTOR_BYTES	512

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

#endif /* XVBD_IMAGE_H */
