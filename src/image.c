/*
 * image.c - create or check image files for file-backed VBDs.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "xvbd/image.h"
#include "xvbd/util.h"

int xvbd_image_plan(const struct stat *st, bool have_size,
		    uint64_t want_bytes, enum xvbd_image_action *action,
		    uint64_t *size_bytes, char *why, size_t why_len)
{
	char have[32], want[32];

	if (have_size && (!want_bytes || want_bytes % XVBD_SECTOR_BYTES)) {
		snprintf(why, why_len, "--size must be a non-zero multiple of "
			 "%u bytes", XVBD_SECTOR_BYTES);
		return -EINVAL;
	}
	if (!st) {
		if (!have_size) {
			snprintf(why, why_len, "does not exist (give --size "
				 "to create it)");
			return -ENOENT;
		}
		*action = XVBD_IMAGE_CREATE;
		*size_bytes = want_bytes;
		return 0;
	}
	if (!S_ISREG(st->st_mode)) {
		snprintf(why, why_len, "not a regular file");
		return -EINVAL;
	}
	if (have_size && (uint64_t)st->st_size != want_bytes) {
		xvbd_fmt_size((uint64_t)st->st_size, have, sizeof(have));
		xvbd_fmt_size(want_bytes, want, sizeof(want));
		snprintf(why, why_len, "exists with %s (%" PRIu64 " bytes), "
			 "not the %s asked for: refusing to %s it", have,
			 (uint64_t)st->st_size, want,
			 want_bytes < (uint64_t)st->st_size ? "shrink" :
			 "resize");
		return -EEXIST;
	}
	if (!st->st_size || st->st_size % XVBD_SECTOR_BYTES) {
		snprintf(why, why_len, "size %" PRIu64 " is not a non-zero "
			 "multiple of %u bytes", (uint64_t)st->st_size,
			 XVBD_SECTOR_BYTES);
		return -EINVAL;
	}
	*action = XVBD_IMAGE_USE;
	*size_bytes = (uint64_t)st->st_size;
	return 0;
}

static int create(const char *path, uint64_t size, bool prealloc, char *why,
		  size_t why_len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	int err = 0;

	if (fd < 0) {
		err = -errno;
		snprintf(why, why_len, "cannot create: %s", strerror(-err));
		return err;
	}
	if (prealloc)
		err = posix_fallocate(fd, 0, (off_t)size);
	else if (ftruncate(fd, (off_t)size))
		err = errno;
	if (!err && fsync(fd))
		err = errno;
	if (close(fd) && !err)
		err = errno;
	if (err) {
		snprintf(why, why_len, "cannot %s: %s",
			 prealloc ? "allocate" : "size", strerror(err));
		unlink(path);
		return -err;
	}
	return 0;
}

int xvbd_image_check(const char *path, bool have_size, uint64_t want_bytes,
		     enum xvbd_image_action *action, uint64_t *size_bytes,
		     char *why, size_t why_len)
{
	struct stat st;
	bool exists = true;
	int err;

	if (stat(path, &st)) {
		if (errno != ENOENT) {
			err = -errno;
			snprintf(why, why_len, "%s", strerror(-err));
			return err;
		}
		exists = false;
	}
	return xvbd_image_plan(exists ? &st : NULL, have_size, want_bytes,
			       action, size_bytes, why, why_len);
}

int xvbd_image_prepare(const char *path, bool have_size, uint64_t want_bytes,
		       bool prealloc, bool *created, uint64_t *size_bytes,
		       char *why, size_t why_len)
{
	enum xvbd_image_action action;
	int err;

	*created = false;
	err = xvbd_image_check(path, have_size, want_bytes, &action,
			       size_bytes, why, why_len);
	if (err || action == XVBD_IMAGE_USE)
		return err;
	err = create(path, want_bytes, prealloc, why, why_len);
	if (!err)
		*created = true;
	return err;
}
