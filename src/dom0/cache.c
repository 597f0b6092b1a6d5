/*
 * cache.c - dom0 page cache modes of file-backed VBDs (see
 * include/xvbd/cache.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "xvbd/dom0/cache.h"

static const char *const cache_names[] = {
	[XVBD_CACHE_HOST] = "host",
	[XVBD_CACHE_NONE] = "none",
	[XVBD_CACHE_NA] = "n/a",
};

int xvbd_cache_parse(const char *s, enum xvbd_cache *out)
{
	if (!strcmp(s, "host"))
		*out = XVBD_CACHE_HOST;
	else if (!strcmp(s, "none"))
		*out = XVBD_CACHE_NONE;
	else
		return -EINVAL;
	return 0;
}

const char *xvbd_cache_name(enum xvbd_cache c)
{
	if ((unsigned)c >= sizeof(cache_names) / sizeof(cache_names[0]))
		c = XVBD_CACHE_NA;
	return cache_names[c];
}

enum xvbd_cache xvbd_cache_of_script(const char *path)
{
	const char *base = path ? strrchr(path, '/') : NULL;

	if (!path)
		return XVBD_CACHE_NA;
	base = base ? base + 1 : path;
	if (!strcmp(base, XVBD_BLOCK_SCRIPT))
		return XVBD_CACHE_HOST;
	if (!strcmp(base, XVBD_BLOCK_DIRECT_SCRIPT))
		return XVBD_CACHE_NONE;
	return XVBD_CACHE_NA;
}

enum xvbd_cache xvbd_cache_of_device(struct xvbd_sysfs *sys,
				     const char *physical_device)
{
	unsigned major, minor;
	bool dio;

	if (!sys || !physical_device ||
	    xvbd_sysfs_parse_devnum(physical_device, &major, &minor) ||
	    xvbd_sysfs_loop_dio(sys, major, minor, &dio))
		return XVBD_CACHE_NA;
	return dio ? XVBD_CACHE_NONE : XVBD_CACHE_HOST;
}

int xvbd_cache_check_direct(const char *path, char *why, size_t len)
{
	int fd, err;

	/* open(2) refuses O_DIRECT with EINVAL where the file system has
	 * no direct I/O (FMODE_CAN_ODIRECT), which is what the loop driver
	 * checks before it turns direct I/O on. */
	fd = open(path, O_RDONLY | O_DIRECT | O_CLOEXEC | O_NOCTTY);
	if (fd >= 0) {
		close(fd);
		return 0;
	}
	err = errno;
	if (err == EINVAL)
		snprintf(why, len, "its file system cannot do direct I/O "
			 "(O_DIRECT)");
	else
		snprintf(why, len, "%s", strerror(err));
	return -err;
}
