/*
 * sysfs_parse.c - parsers of what sysfs.c reads about a block device's
 * queue and the filesystems in /proc/self/mountinfo.  Pure: the bytes
 * are the kernel's, yet bounded and checked as if they were not.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "xvbd/dom0/sysfs.h"

/* A name of the kernel's: [a-z0-9._-], non-empty, fits out. */
static int copy_name(const char *p, size_t n, char *out, size_t len)
{
	size_t i;

	if (!n || n >= len)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		char c = p[i];

		if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
		      c == '_' || c == '-' || c == '.'))
			return -EINVAL;
	}
	memcpy(out, p, n);
	out[n] = '\0';
	return 0;
}

int xvbd_sysfs_parse_scheduler(const char *buf, size_t len, char *out,
			       size_t out_len)
{
	const char *open_b = memchr(buf, '[', len), *close_b;

	while (len && (buf[len - 1] == '\n' || buf[len - 1] == ' '))
		len--;
	if (!open_b)	/* "none": a queue without an elevator choice */
		return copy_name(buf, len, out, out_len);
	close_b = memchr(open_b, ']', len - (size_t)(open_b - buf));
	if (!close_b)
		return -EINVAL;
	return copy_name(open_b + 1, (size_t)(close_b - open_b - 1), out,
			 out_len);
}

/* The n-th (0-based) space-separated field of line..end. */
static const char *field(const char *line, const char *end, unsigned n,
			 size_t *flen)
{
	const char *p = line, *q;

	for (;;) {
		q = memchr(p, ' ', (size_t)(end - p));
		if (!q)
			q = end;
		if (!n--) {
			*flen = (size_t)(q - p);
			return p;
		}
		if (q == end)
			return NULL;
		p = q + 1;
	}
}

/*
 * proc(5): "36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root
 * rw": field 3 the device, then optional fields up to "-", then the
 * filesystem type.
 */
static int mount_line(const char *line, const char *end, unsigned major,
		      unsigned minor, char *out, size_t len)
{
	char dev[32], want[32];
	const char *f, *sep;
	size_t flen;

	f = field(line, end, 2, &flen);
	if (!f || flen >= sizeof(dev))
		return -ENOENT;
	memcpy(dev, f, flen);
	dev[flen] = '\0';
	snprintf(want, sizeof(want), "%u:%u", major, minor);
	if (strcmp(dev, want))
		return -ENOENT;
	sep = line;
	while ((sep = memmem(sep, (size_t)(end - sep), " - ", 3)) &&
	       sep < f)
		sep += 3;
	if (!sep)
		return -EINVAL;
	f = field(sep + 3, end, 0, &flen);
	return f ? copy_name(f, flen, out, len) : -EINVAL;
}

int xvbd_proc_parse_mountinfo_fstype(const char *buf, size_t len,
				     unsigned major, unsigned minor,
				     char *out, size_t out_len)
{
	const char *p = buf, *end = buf + len, *nl;
	int rc;

	while (p < end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			nl = end;
		rc = mount_line(p, nl, major, minor, out, out_len);
		if (rc != -ENOENT)
			return rc;
		p = nl + 1;
	}
	return -ENOENT;
}
