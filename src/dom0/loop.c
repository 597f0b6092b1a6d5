/*
 * loop.c - loop devices: bind, look up, unbind (see include/xvbd/loop.h).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <linux/fs.h>
#include <linux/loop.h>

/* linux/fs.h since 5.15; older headers build a binary that asks anyway */
#ifndef BLKGETDISKSEQ
#define BLKGETDISKSEQ	_IOR(0x12, 128, __u64)
#endif

#include "xvbd/dom0/loop.h"
#include "xvbd/base/util.h"

#define LOOP_CONTROL		"/dev/loop-control"
#define LOOP_NODE_FMT		"/dev/loop%u"
#define SYS_BLOCK		"/sys/block"
#define SYS_BACKING_FMT		"/sys/block/loop%u/loop/backing_file"
/* Concurrent binds racing for the same free device: each retry asks the
 * kernel for a free one again. */
#define BIND_RETRIES		64
#define LOOP_NR_MAX		(1u << 20)

int xvbd_loop_parse_node(const char *node, unsigned *nr)
{
	static const char prefix[] = "/dev/loop";
	uint64_t v;

	if (strncmp(node, prefix, sizeof(prefix) - 1) ||
	    xvbd_parse_uint(node + sizeof(prefix) - 1, LOOP_NR_MAX, &v))
		return -EINVAL;
	*nr = (unsigned)v;
	return 0;
}

void xvbd_loop_node(unsigned nr, char *buf, size_t len)
{
	snprintf(buf, len, LOOP_NODE_FMT, nr);
}

void xvbd_loop_decode_dev(uint64_t dev, unsigned *major_nr,
			  unsigned *minor_nr)
{
	/* new_decode_dev(): mmmM MMmm, 12 bits of major, 20 of minor */
	*major_nr = (unsigned)((dev & 0xfff00) >> 8);
	*minor_nr = (unsigned)((dev & 0xff) | ((dev >> 12) & 0xfff00));
}

bool xvbd_loop_backs(const struct xvbd_loop *lo, const struct stat *st)
{
	return lo->file_ino == (uint64_t)st->st_ino &&
	       lo->file_major == major(st->st_dev) &&
	       lo->file_minor == minor(st->st_dev);
}

static int read_backing(unsigned nr, char *buf, size_t len)
{
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), SYS_BACKING_FMT, nr);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -ENXIO : -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return errno == ENXIO ? -ENXIO : -errno;
	buf[n] = '\0';
	if (n > 0 && buf[n - 1] == '\n')
		buf[n - 1] = '\0';
	return 0;
}

/* Identity and flags of the open loop device fd. */
/* The device's disk sequence number; 0 where the kernel has none. */
static uint64_t diskseq_of(int fd)
{
	__u64 seq = 0;

	return ioctl(fd, BLKGETDISKSEQ, &seq) ? 0 : (uint64_t)seq;
}

static int describe(int fd, unsigned nr, struct xvbd_loop *lo)
{
	struct loop_info64 info;
	struct stat st;
	uint64_t seq;
	int tries;

	if (fstat(fd, &st))
		return -errno;
	if (!S_ISBLK(st.st_mode))
		return -ENOTBLK;
	/* The status and its sequence number from one binding: read the
	 * number around the status, again if it moved meanwhile. */
	for (tries = 0; tries < 3; tries++) {
		seq = diskseq_of(fd);
		memset(&info, 0, sizeof(info));
		if (ioctl(fd, LOOP_GET_STATUS64, &info))
			return -errno;
		lo->diskseq = diskseq_of(fd);
		if (lo->diskseq == seq)
			break;
	}
	if (tries == 3)
		return -EBUSY;
	if (ioctl(fd, BLKGETSIZE64, &lo->size_bytes))
		lo->size_bytes = 0;
	lo->nr = nr;
	lo->major = major(st.st_rdev);
	lo->minor = minor(st.st_rdev);
	xvbd_loop_decode_dev(info.lo_device, &lo->file_major,
			     &lo->file_minor);
	lo->file_ino = info.lo_inode;
	lo->read_only = info.lo_flags & LO_FLAGS_READ_ONLY;
	lo->direct_io = info.lo_flags & LO_FLAGS_DIRECT_IO;
	return 0;
}

int xvbd_loop_status(unsigned nr, struct xvbd_loop *lo)
{
	char node[32];
	int fd, err;

	memset(lo, 0, sizeof(*lo));
	err = read_backing(nr, lo->backing, sizeof(lo->backing));
	if (err)
		return err;
	xvbd_loop_node(nr, node, sizeof(node));
	fd = open(node, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -ENXIO : -errno;
	err = describe(fd, nr, lo);
	close(fd);
	return err;
}

int xvbd_loop_each(int (*fn)(const struct xvbd_loop *lo, void *arg),
		   void *arg)
{
	struct xvbd_loop lo;
	struct dirent *de;
	unsigned nr;
	char node[300];
	DIR *dir = opendir(SYS_BLOCK);
	int rc = 0;

	if (!dir)
		return -errno;
	while (!rc && (de = readdir(dir))) {
		snprintf(node, sizeof(node), "/dev/%s", de->d_name);
		if (xvbd_loop_parse_node(node, &nr))
			continue;
		rc = xvbd_loop_status(nr, &lo);
		if (rc == -ENXIO) {
			rc = 0;		/* not bound */
			continue;
		}
		if (!rc)
			rc = fn(&lo, arg);
	}
	closedir(dir);
	return rc;
}

int xvbd_loop_bind(int file_fd, bool read_only, bool direct_io,
		   const char *name, struct xvbd_loop *lo)
{
	struct loop_config cfg;
	char node[32];
	int ctl, fd, nr, attempt, err = -EBUSY;

	ctl = open(LOOP_CONTROL, O_RDWR | O_CLOEXEC);
	if (ctl < 0)
		return -errno;
	for (attempt = 0; attempt < BIND_RETRIES && err == -EBUSY;
	     attempt++) {
		nr = ioctl(ctl, LOOP_CTL_GET_FREE);
		if (nr < 0) {
			err = -errno;
			break;
		}
		xvbd_loop_node((unsigned)nr, node, sizeof(node));
		/* Writable: a loop device opened read-only is bound
		 * read-only whatever the flags say. */
		fd = open(node, O_RDWR | O_CLOEXEC);
		if (fd < 0) {
			err = -errno;
			break;
		}
		memset(&cfg, 0, sizeof(cfg));
		cfg.fd = (uint32_t)file_fd;
		cfg.info.lo_flags = (read_only ? LO_FLAGS_READ_ONLY : 0) |
			(direct_io ? LO_FLAGS_DIRECT_IO : 0);
		snprintf((char *)cfg.info.lo_file_name,
			 sizeof(cfg.info.lo_file_name), "%s", name);
		/* EBUSY: another bind configured this device first. */
		err = ioctl(fd, LOOP_CONFIGURE, &cfg) ? -errno : 0;
		if (!err) {
			memset(lo, 0, sizeof(*lo));
			err = describe(fd, (unsigned)nr, lo);
			if (!err)
				read_backing((unsigned)nr, lo->backing,
					     sizeof(lo->backing));
			else
				ioctl(fd, LOOP_CLR_FD, 0);
		}
		close(fd);
	}
	close(ctl);
	return err;
}

int xvbd_loop_unbind(unsigned nr)
{
	char node[32];
	int fd, err;

	xvbd_loop_node(nr, node, sizeof(node));
	fd = open(node, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	err = ioctl(fd, LOOP_CLR_FD, 0) ? -errno : 0;
	close(fd);
	return err;
}

/* The loop device major:minor's binding, if it is a bound loop device. */
struct loop_find {
	unsigned major, minor;
	struct xvbd_loop lo;
	bool found;
};

static int loop_match(const struct xvbd_loop *lo, void *arg)
{
	struct loop_find *f = arg;

	if (lo->major != f->major || lo->minor != f->minor)
		return 0;
	f->lo = *lo;
	f->found = true;
	return 1;
}

bool xvbd_loop_find_dev(unsigned major, unsigned minor, struct xvbd_loop *lo)
{
	struct loop_find f = { .major = major, .minor = minor };

	xvbd_loop_each(loop_match, &f);
	*lo = f.lo;
	return f.found;
}
