/*
 * sysfs_parse.c - parsers of what sysfs.c reads: counters, a block stat
 * line, /proc/<pid>/stat and schedstat, device numbers, a block device's
 * queue and the filesystems in /proc/self/mountinfo.  Pure: the bytes
 * are the kernel's, yet bounded and checked as if they were not.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "xvbd/dom0/sysfs.h"

/* Linux dev_t: 12 bits of major, 20 of minor. */
#define DEV_MAJOR_MAX		0xfffu
#define DEV_MINOR_MAX		0xfffffu

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

/* ---- /proc and sysfs numbers ---- */

/* Strict decimal digits [p, end): no sign, at most UINT64_MAX. */
static int parse_digits(const char *p, const char *end, uint64_t *out)
{
	uint64_t v = 0;

	if (p == end)
		return -EINVAL;
	for (; p < end; p++) {
		unsigned d;

		if (*p < '0' || *p > '9')
			return -EINVAL;
		d = (unsigned)(*p - '0');
		if (v > (UINT64_MAX - d) / 10)
			return -ERANGE;
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

int xvbd_proc_parse_stat(const char *buf, size_t len, char *comm,
			 size_t comm_len, uint64_t *flags)
{
	const char *open = memchr(buf, '(', len), *close = NULL, *p;
	const char *end = buf + len;
	int field;

	/* The name may hold ')' and spaces: the last ')' ends it. */
	for (p = buf; p < end; p++)
		if (*p == ')')
			close = p;
	if (!open || !close || close < open ||
	    (size_t)(close - open - 1) >= comm_len)
		return -EINVAL;
	memcpy(comm, open + 1, (size_t)(close - open - 1));
	comm[close - open - 1] = '\0';
	/* After ") ": state (3), ppid, pgrp, session, tty, tpgid, flags. */
	p = close + 1;
	for (field = 3; field <= 9; field++) {
		const char *start;

		if (p >= end || *p != ' ')
			return -EINVAL;
		start = ++p;
		while (p < end && *p != ' ' && *p != '\n')
			p++;
		if (field == 9)
			return parse_digits(start, p, flags);
	}
	return -EINVAL;
}

int xvbd_proc_parse_schedstat(const char *buf, size_t len, uint64_t *run_ns,
			      uint64_t *slices)
{
	const char *end = buf + len, *p = buf, *start;
	uint64_t wait_ns;
	int rc;

	if (len && end[-1] == '\n')
		end--;
	start = p;
	while (p < end && *p != ' ')
		p++;
	rc = parse_digits(start, p, run_ns);
	if (rc || p == end)
		return rc ? rc : -EINVAL;
	start = ++p;
	while (p < end && *p != ' ')
		p++;
	rc = parse_digits(start, p, &wait_ns);
	if (rc || p == end)
		return rc ? rc : -EINVAL;
	return parse_digits(p + 1, end, slices);
}

int xvbd_sysfs_parse_counter(const char *buf, size_t len, uint64_t *out)
{
	if (len && buf[len - 1] == '\n')
		len--;
	return parse_digits(buf, buf + len, out);
}

int xvbd_sysfs_parse_blkstat(const char *buf, size_t len,
			     struct xvbd_blkstat *st)
{
	uint64_t *const fields[] = {
		&st->rd_ios, &st->rd_merges, &st->rd_sectors,
		&st->rd_ticks_ms, &st->wr_ios, &st->wr_merges,
		&st->wr_sectors, &st->wr_ticks_ms, &st->in_flight,
		&st->io_ticks_ms, &st->time_in_queue_ms, &st->ds_ios,
		&st->ds_merges, &st->ds_sectors, &st->ds_ticks_ms,
		&st->fl_ios, &st->fl_ticks_ms,
	};
	const size_t nmax = sizeof(fields) / sizeof(fields[0]);
	const char *p = buf, *end = buf + len;
	unsigned n = 0;
	int rc;

	memset(st, 0, sizeof(*st));
	for (;;) {
		const char *start;

		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		if (p == end || *p == '\n')
			break;
		start = p;
		while (p < end && *p >= '0' && *p <= '9')
			p++;
		if (p < end && *p != ' ' && *p != '\t' && *p != '\n')
			return -EINVAL;
		/* Fields a newer kernel appends are ignored. */
		if (n < nmax) {
			rc = parse_digits(start, p, fields[n]);
			if (rc)
				return rc;
		}
		n++;
	}
	if (p < end && (*p != '\n' || p + 1 != end))
		return -EINVAL;
	if (n < 11)
		return -EINVAL;
	st->nfields = n < nmax ? n : (unsigned)nmax;
	return 0;
}

static int parse_hex(const char *p, const char *end, uint64_t max,
		     unsigned *out)
{
	uint64_t v = 0;

	if (p == end || end - p > 8)
		return -EINVAL;
	for (; p < end; p++) {
		unsigned d;

		if (*p >= '0' && *p <= '9')
			d = (unsigned)(*p - '0');
		else if (*p >= 'a' && *p <= 'f')
			d = (unsigned)(*p - 'a' + 10);
		else if (*p >= 'A' && *p <= 'F')
			d = (unsigned)(*p - 'A' + 10);
		else
			return -EINVAL;
		v = v * 16 + d;
	}
	if (v > max)
		return -ERANGE;
	*out = (unsigned)v;
	return 0;
}

int xvbd_sysfs_parse_devnum(const char *s, unsigned *major, unsigned *minor)
{
	const char *colon = strchr(s, ':');
	unsigned ma, mi;
	int rc;

	if (!colon)
		return -EINVAL;
	rc = parse_hex(s, colon, DEV_MAJOR_MAX, &ma);
	if (!rc)
		rc = parse_hex(colon + 1, colon + 1 + strlen(colon + 1),
			       DEV_MINOR_MAX, &mi);
	if (rc)
		return rc;
	*major = ma;
	*minor = mi;
	return 0;
}
