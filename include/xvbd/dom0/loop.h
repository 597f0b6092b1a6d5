/*
 * loop.h - loop devices for file-backed VBDs: bind an image file to a
 * free loop device, find the loop devices a file backs, unbind.  The only
 * place /dev/loop* and /sys/block/loop* are spelled.  Plain libc and
 * Linux ioctls (LOOP_CONFIGURE: Linux >= 5.8).
 *
 * Functions return 0 / negative errno.
 */
#ifndef XVBD_LOOP_H
#define XVBD_LOOP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#define XVBD_LOOP_BACKING_MAX	4096

/* A bound loop device. */
struct xvbd_loop {
	unsigned nr;				/* /dev/loop<nr> */
	unsigned major, minor;			/* the loop block device */
	unsigned file_major, file_minor;	/* backing file's st_dev */
	uint64_t file_ino;
	bool read_only;
	bool direct_io;				/* LO_FLAGS_DIRECT_IO in effect */
	/*
	 * The disk sequence number (BLKGETDISKSEQ, Linux >= 5.15; 0 before):
	 * it changes at every bind and unbind, so the same number, device
	 * and file bound again by someone else is told apart.
	 */
	uint64_t diskseq;
	uint64_t size_bytes;			/* what it gives its users */
	/* sysfs loop/backing_file: the path, " (deleted)" when unlinked */
	char backing[XVBD_LOOP_BACKING_MAX];
};

/* "/dev/loopN" -> N (strict decimal); -EINVAL for anything else. */
int xvbd_loop_parse_node(const char *node, unsigned *nr);
/* N -> "/dev/loopN" */
void xvbd_loop_node(unsigned nr, char *buf, size_t len);
/* LOOP_GET_STATUS64's lo_device is the kernel's huge_encode_dev(). */
void xvbd_loop_decode_dev(uint64_t dev, unsigned *major, unsigned *minor);
/* Is lo backed by the file st describes (st_dev and st_ino)? */
bool xvbd_loop_backs(const struct xvbd_loop *lo, const struct stat *st);

/* -ENXIO: not bound (or being torn down). */
int xvbd_loop_status(unsigned nr, struct xvbd_loop *lo);
/* The bound loop device with block device number major:minor: true, *lo. */
bool xvbd_loop_find_dev(unsigned major, unsigned minor, struct xvbd_loop *lo);
/*
 * fn for every bound loop device, until it returns non-zero (returned).
 * A device that is unbound meanwhile is skipped.
 */
int xvbd_loop_each(int (*fn)(const struct xvbd_loop *lo, void *arg),
		   void *arg);

/*
 * Bind the open file file_fd to a free loop device (LOOP_CTL_GET_FREE,
 * LOOP_CONFIGURE, retried when another bind took the same device first).
 * read_only: LO_FLAGS_READ_ONLY.  direct_io: LO_FLAGS_DIRECT_IO, asked
 * for; the kernel quietly binds without it where the file cannot do
 * direct I/O, so the caller checks lo->direct_io.  Never autoclear: the
 * binding must outlive this process until blkback opens the device.  name
 * goes into lo_file_name (losetup's listing).  *lo describes the bound
 * device.
 */
int xvbd_loop_bind(int file_fd, bool read_only, bool direct_io,
		   const char *name, struct xvbd_loop *lo);
/* LOOP_CLR_FD: freed now, or on the last close if still open. */
int xvbd_loop_unbind(unsigned nr);

#endif /* XVBD_LOOP_H */
