/*
 * sysfs.c - blkback statistics, block device stat files and blkback's
 * ring threads in /proc; the only place sysfs and /proc paths are
 * spelled.
 *
 * Files are opened once (openat on a root directory descriptor) and read
 * with pread at offset 0: sysfs regenerates an attribute's text on every
 * read at offset 0, so one call gives a fresh value.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "xvbd/dom0/sysfs.h"
#include "xvbd/base/util.h"

#define SYSFS_ROOT		"/sys"
#define BLKBACK_STATS_FMT	"bus/xen-backend/devices/vbd-%u-%u/statistics"
#define BLOCK_STAT_FMT		"dev/block/%u:%u/stat"
/* A loop device's attributes (drivers/block/loop.c, "loop" group). */
#define LOOP_DIO_FMT		"dev/block/%u:%u/loop/dio"
/* A partition's attribute, and its disk's dev (the link's parent). */
#define BLK_PARTITION_FMT	"dev/block/%u:%u/partition"
#define BLK_PARENT_DEV_FMT	"dev/block/%u:%u/../dev"
#define BLK_ATTR_FMT		"dev/block/%u:%u/%s"
#define BLK_QUEUE_DIR		"queue/"
/* A partition's place on its disk, in 512-byte sectors. */
#define BLK_PART_START		"start"
#define BLK_SIZE		"size"
/* Stacked devices: device-mapper's and md's attribute groups. */
#define BLK_DM_DIR		"dm"
#define BLK_MD_DIR		"md"
#define MOUNTINFO_PATH		"self/mountinfo"	/* under /proc */
#define MOUNTINFO_MAX		(4u << 20)
#define PROC_ROOT		"/proc"
#define FAKE_PROC_DIR		"proc"	/* under a fake root */
#define PROC_STAT		"stat"
#define PROC_SCHEDSTAT		"schedstat"
#define CLOCKSOURCE_PATH	\
	"devices/system/clocksource/clocksource0/current_clocksource"

/* A counter is at most 20 digits; a stat line 17 fields of 20. */
#define COUNTER_BUF		32
#define STAT_BUF		512

/* Linux dev_t limits (MAJORBITS 12, MINORBITS 20). */
#define DEV_MAJOR_MAX		0xfffu
#define DEV_MINOR_MAX		0xfffffu

struct xvbd_sysfs {
	int root_fd;
	int proc_fd;		/* -1: no /proc (ring threads unknown) */
};

struct xvbd_proc_thread {
	int fd;
};


struct xvbd_sysfs_vbd {
	int fd[XVBD_BLKBACK_NFIELDS];
	uint64_t instance;
};

struct xvbd_sysfs_blk {
	int fd;
};

const struct xvbd_blkback_field xvbd_blkback_fields[XVBD_BLKBACK_NFIELDS] = {
	{ "rd_req", offsetof(struct xvbd_blkback_counters, rd_req) },
	{ "wr_req", offsetof(struct xvbd_blkback_counters, wr_req) },
	{ "rd_sect", offsetof(struct xvbd_blkback_counters, rd_sect) },
	{ "wr_sect", offsetof(struct xvbd_blkback_counters, wr_sect) },
	{ "f_req", offsetof(struct xvbd_blkback_counters, f_req) },
	{ "ds_req", offsetof(struct xvbd_blkback_counters, ds_req) },
	{ "oo_req", offsetof(struct xvbd_blkback_counters, oo_req) },
};

struct xvbd_sysfs *xvbd_sysfs_open(const char *root)
{
	struct xvbd_sysfs *sys = calloc(1, sizeof(*sys));

	if (!sys)
		return NULL;
	sys->root_fd = open(root ? root : SYSFS_ROOT,
			    O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (sys->root_fd < 0) {
		int saved = errno;

		free(sys);
		errno = saved;
		return NULL;
	}
	if (root)
		sys->proc_fd = openat(sys->root_fd, FAKE_PROC_DIR,
				      O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	else
		sys->proc_fd = open(PROC_ROOT,
				    O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	return sys;
}

void xvbd_sysfs_close(struct xvbd_sysfs *sys)
{
	if (!sys)
		return;
	close(sys->root_fd);
	if (sys->proc_fd >= 0)
		close(sys->proc_fd);
	free(sys);
}

static int stats_dir(uint32_t domid, uint32_t devid, char *buf, size_t len)
{
	int n = snprintf(buf, len, BLKBACK_STATS_FMT, domid, devid);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

int xvbd_sysfs_vbd_probe(struct xvbd_sysfs *sys, uint32_t domid,
			 uint32_t devid, uint64_t *instance)
{
	char path[128];
	struct stat st;
	int rc = stats_dir(domid, devid, path, sizeof(path));

	if (rc)
		return rc;
	if (fstatat(sys->root_fd, path, &st, 0))
		return -errno;
	*instance = (uint64_t)st.st_ino;
	return 0;
}

int xvbd_sysfs_vbd_open(struct xvbd_sysfs *sys, uint32_t domid,
			uint32_t devid, struct xvbd_sysfs_vbd **out)
{
	struct xvbd_sysfs_vbd *v = NULL;
	char path[128];
	struct stat st;
	int dir_fd = -1, rc, i;

	rc = stats_dir(domid, devid, path, sizeof(path));
	if (rc)
		return rc;
	v = calloc(1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (i = 0; i < XVBD_BLKBACK_NFIELDS; i++)
		v->fd[i] = -1;
	dir_fd = openat(sys->root_fd, path,
			O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dir_fd < 0 || fstat(dir_fd, &st)) {
		rc = -errno;
		goto fail;
	}
	v->instance = (uint64_t)st.st_ino;
	for (i = 0; i < XVBD_BLKBACK_NFIELDS; i++) {
		v->fd[i] = openat(dir_fd, xvbd_blkback_fields[i].name,
				  O_RDONLY | O_CLOEXEC);
		if (v->fd[i] < 0) {
			rc = -errno;
			goto fail;
		}
	}
	close(dir_fd);
	*out = v;
	return 0;
fail:
	if (dir_fd >= 0)
		close(dir_fd);
	xvbd_sysfs_vbd_close(v);
	return rc;
}

static int pread_all(int fd, char *buf, size_t len, size_t *got)
{
	ssize_t n = pread(fd, buf, len - 1, 0);

	if (n < 0)
		return -errno;
	/* A value that fills the buffer is not one we know how to read. */
	if ((size_t)n >= len - 1)
		return -EOVERFLOW;
	buf[n] = '\0';
	*got = (size_t)n;
	return 0;
}

int xvbd_sysfs_vbd_read(struct xvbd_sysfs_vbd *v,
			struct xvbd_blkback_counters *c)
{
	char buf[COUNTER_BUF];
	size_t len = 0;
	int i, rc;

	for (i = 0; i < XVBD_BLKBACK_NFIELDS; i++) {
		uint64_t *field = (uint64_t *)((char *)c +
					       xvbd_blkback_fields[i].offset);

		rc = pread_all(v->fd[i], buf, sizeof(buf), &len);
		if (!rc)
			rc = xvbd_sysfs_parse_counter(buf, len, field);
		if (rc)
			return rc;
	}
	return 0;
}

uint64_t xvbd_sysfs_vbd_instance(const struct xvbd_sysfs_vbd *v)
{
	return v->instance;
}

void xvbd_sysfs_vbd_close(struct xvbd_sysfs_vbd *v)
{
	int i;

	if (!v)
		return;
	for (i = 0; i < XVBD_BLKBACK_NFIELDS; i++)
		if (v->fd[i] >= 0)
			close(v->fd[i]);
	free(v);
}

int xvbd_sysfs_blk_open(struct xvbd_sysfs *sys, unsigned major,
			unsigned minor, struct xvbd_sysfs_blk **out)
{
	struct xvbd_sysfs_blk *b;
	char path[64];
	int n;

	if (major > DEV_MAJOR_MAX || minor > DEV_MINOR_MAX)
		return -ERANGE;
	n = snprintf(path, sizeof(path), BLOCK_STAT_FMT, major, minor);
	if (n < 0 || (size_t)n >= sizeof(path))
		return -ENAMETOOLONG;
	b = calloc(1, sizeof(*b));
	if (!b)
		return -ENOMEM;
	b->fd = openat(sys->root_fd, path, O_RDONLY | O_CLOEXEC);
	if (b->fd < 0) {
		int rc = -errno;

		free(b);
		return rc;
	}
	*out = b;
	return 0;
}

int xvbd_sysfs_blk_read(struct xvbd_sysfs_blk *b, struct xvbd_blkstat *st)
{
	char buf[STAT_BUF];
	size_t len = 0;
	int rc = pread_all(b->fd, buf, sizeof(buf), &len);

	return rc ? rc : xvbd_sysfs_parse_blkstat(buf, len, st);
}

void xvbd_sysfs_blk_close(struct xvbd_sysfs_blk *b)
{
	if (!b)
		return;
	close(b->fd);
	free(b);
}

/* ---- loop devices ---- */

int xvbd_sysfs_loop_dio(struct xvbd_sysfs *sys, unsigned major,
			unsigned minor, bool *dio)
{
	char path[64], buf[COUNTER_BUF];
	size_t len = 0;
	uint64_t v;
	int n, fd, rc;

	if (major > DEV_MAJOR_MAX || minor > DEV_MINOR_MAX)
		return -ERANGE;
	n = snprintf(path, sizeof(path), LOOP_DIO_FMT, major, minor);
	if (n < 0 || (size_t)n >= sizeof(path))
		return -ENAMETOOLONG;
	fd = openat(sys->root_fd, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	rc = pread_all(fd, buf, sizeof(buf), &len);
	close(fd);
	if (!rc)
		rc = xvbd_sysfs_parse_counter(buf, len, &v);
	if (!rc && v > 1)
		rc = -EINVAL;
	if (!rc)
		*dio = v == 1;
	return rc;
}

int xvbd_sysfs_blk_whole(struct xvbd_sysfs *sys, unsigned major,
			 unsigned minor, unsigned *whole_major,
			 unsigned *whole_minor)
{
	char path[64], buf[COUNTER_BUF];
	size_t len = 0;
	int fd, rc;

	*whole_major = major;
	*whole_minor = minor;
	if (major > DEV_MAJOR_MAX || minor > DEV_MINOR_MAX)
		return -ERANGE;
	snprintf(path, sizeof(path), BLK_PARTITION_FMT, major, minor);
	if (faccessat(sys->root_fd, path, F_OK, 0))
		return errno == ENOENT ? 0 : -errno;
	snprintf(path, sizeof(path), BLK_PARENT_DEV_FMT, major, minor);
	fd = openat(sys->root_fd, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	rc = pread_all(fd, buf, sizeof(buf), &len);
	close(fd);
	if (rc)
		return rc;
	while (len && (buf[len - 1] == '\n' || buf[len - 1] == ' '))
		len--;
	buf[len < sizeof(buf) ? len : sizeof(buf) - 1] = '\0';
	/* decimal here ("8:0"), unlike physical-device's hex */
	if (sscanf(buf, "%u:%u", whole_major, whole_minor) != 2 ||
	    *whole_major > DEV_MAJOR_MAX || *whole_minor > DEV_MINOR_MAX)
		return -EINVAL;
	return 0;
}

int xvbd_sysfs_clocksource(struct xvbd_sysfs *sys, char *buf, size_t len)
{
	size_t got = 0, i;
	int fd, rc;

	if (len < 2)
		return -EINVAL;
	fd = openat(sys->root_fd, CLOCKSOURCE_PATH, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	rc = pread_all(fd, buf, len, &got);
	close(fd);
	if (rc)
		return rc;
	if (got && buf[got - 1] == '\n')
		got--;
	if (!got)
		return -EINVAL;
	/* A clock source name: [a-z0-9_-], nothing else. */
	for (i = 0; i < got; i++) {
		char c = buf[i];

		if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
		      c == '_' || c == '-'))
			return -EINVAL;
	}
	buf[got] = '\0';
	return 0;
}

/* ---- a block device's queue, the filesystem of a device ---- */

/* One small attribute of dev/block/M:m (name: "queue/x", "size"). */
static int read_blk_attr(struct xvbd_sysfs *sys, unsigned major,
			 unsigned minor, const char *name, char *buf,
			 size_t len, size_t *got)
{
	char path[96];
	int fd, rc;

	snprintf(path, sizeof(path), BLK_ATTR_FMT, major, minor, name);
	fd = openat(sys->root_fd, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	rc = pread_all(fd, buf, len - 1, got);
	close(fd);
	if (!rc)
		buf[*got] = '\0';
	return rc;
}

static int read_queue_attr(struct xvbd_sysfs *sys, unsigned major,
			   unsigned minor, const char *name, char *buf,
			   size_t len, size_t *got)
{
	char attr[64];

	snprintf(attr, sizeof(attr), BLK_QUEUE_DIR "%s", name);
	return read_blk_attr(sys, major, minor, attr, buf, len, got);
}

static int blk_uint(struct xvbd_sysfs *sys, unsigned major, unsigned minor,
		    const char *name, uint64_t *v)
{
	char buf[COUNTER_BUF];
	size_t got = 0;
	int rc = read_blk_attr(sys, major, minor, name, buf, sizeof(buf),
			       &got);

	return rc ? rc : xvbd_sysfs_parse_counter(buf, got, v);
}

static int queue_uint(struct xvbd_sysfs *sys, unsigned major,
		      unsigned minor, const char *name, uint64_t *v)
{
	char attr[64];

	snprintf(attr, sizeof(attr), BLK_QUEUE_DIR "%s", name);
	return blk_uint(sys, major, minor, attr, v);
}

int xvbd_sysfs_blk_extent(struct xvbd_sysfs *sys, unsigned major,
			  unsigned minor, struct xvbd_blk_extent *x)
{
	char path[96];
	int rc;

	memset(x, 0, sizeof(*x));
	if (major > DEV_MAJOR_MAX || minor > DEV_MINOR_MAX)
		return -ERANGE;
	rc = xvbd_sysfs_blk_whole(sys, major, minor, &x->disk_major,
				  &x->disk_minor);
	if (!rc)
		rc = blk_uint(sys, major, minor, BLK_SIZE, &x->sectors);
	x->partition = x->disk_major != major || x->disk_minor != minor;
	if (!rc && x->partition)
		rc = blk_uint(sys, major, minor, BLK_PART_START,
			      &x->start_sector);
	if (rc)
		return rc;
	snprintf(path, sizeof(path), BLK_ATTR_FMT, major, minor, BLK_DM_DIR);
	x->stacked = !faccessat(sys->root_fd, path, F_OK, 0);
	snprintf(path, sizeof(path), BLK_ATTR_FMT, major, minor, BLK_MD_DIR);
	x->stacked = x->stacked || !faccessat(sys->root_fd, path, F_OK, 0);
	return 0;
}

void xvbd_sysfs_blk_queue(struct xvbd_sysfs *sys, unsigned major,
			  unsigned minor, struct xvbd_blk_queue *q)
{
	char buf[STAT_BUF];
	uint64_t rot = 0;
	size_t got = 0;

	memset(q, 0, sizeof(*q));
	if (major > DEV_MAJOR_MAX || minor > DEV_MINOR_MAX) {
		q->lbs_rc = q->pbs_rc = q->rot_rc = q->sched_rc = -ERANGE;
		return;
	}
	q->lbs_rc = queue_uint(sys, major, minor, "logical_block_size",
			       &q->logical_block_size);
	q->pbs_rc = queue_uint(sys, major, minor, "physical_block_size",
			       &q->physical_block_size);
	q->rot_rc = queue_uint(sys, major, minor, "rotational", &rot);
	if (!q->rot_rc && rot > 1)
		q->rot_rc = -EINVAL;
	q->rotational = rot == 1;
	q->sched_rc = read_queue_attr(sys, major, minor, "scheduler", buf,
				      sizeof(buf), &got);
	if (!q->sched_rc)
		q->sched_rc = xvbd_sysfs_parse_scheduler(buf, got,
							 q->scheduler,
							 sizeof(q->scheduler));
}

int xvbd_proc_mount_fstype(struct xvbd_sysfs *sys, unsigned major,
			   unsigned minor, char *buf, size_t len)
{
	size_t got = 0, cap = 65536;
	char *text = NULL, *grown;
	ssize_t n;
	int fd, rc = 0;

	if (sys->proc_fd < 0)
		return -ENOENT;
	fd = openat(sys->proc_fd, MOUNTINFO_PATH, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* Read to the end, bounded: a proc file may change as it is read. */
	text = malloc(cap);
	if (!text)
		rc = -ENOMEM;
	while (!rc) {
		if (got + 1 >= cap) {
			if (cap >= MOUNTINFO_MAX) {
				rc = -EFBIG;
				break;
			}
			grown = realloc(text, cap * 2);
			if (!grown) {
				rc = -ENOMEM;
				break;
			}
			text = grown;
			cap *= 2;
		}
		n = read(fd, text + got, cap - 1 - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			rc = -errno;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	if (!rc)
		rc = xvbd_proc_parse_mountinfo_fstype(text, got, major, minor,
						      buf, len);
	free(text);
	return rc;
}

/* ---- blkback's ring threads ---- */

/* A /proc entry's name: a pid in decimal, nothing else. */
static int pid_of(const char *name)
{
	uint64_t v;

	if (xvbd_sysfs_parse_counter(name, strlen(name), &v) || !v || v > INT32_MAX)
		return -1;
	return (int)v;
}

/* comm and flags of /proc/<pid>/stat, read through its directory. */
static int read_stat(int dir_fd, char *comm, size_t comm_len,
		     uint64_t *flags)
{
	char buf[STAT_BUF * 2];
	size_t len = 0;
	int fd = openat(dir_fd, PROC_STAT, O_RDONLY | O_CLOEXEC), rc;

	if (fd < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	rc = pread_all(fd, buf, sizeof(buf), &len);
	close(fd);
	return rc ? rc : xvbd_proc_parse_stat(buf, len, comm, comm_len,
					      flags);
}

int xvbd_proc_kthreads(struct xvbd_sysfs *sys,
		       void (*fn)(void *arg, int pid, const char *comm),
		       void *arg)
{
	struct dirent *de;
	DIR *dir;
	int fd;

	if (sys->proc_fd < 0)
		return -ENOENT;
	fd = openat(sys->proc_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	dir = fdopendir(fd);
	if (!dir) {
		close(fd);
		return -ENOMEM;
	}
	while ((de = readdir(dir))) {
		char comm[XVBD_COMM_MAX];
		uint64_t flags;
		int pid = pid_of(de->d_name), pfd;

		if (pid < 0)
			continue;
		pfd = openat(sys->proc_fd, de->d_name,
			     O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (pfd < 0)
			continue;	/* exited meanwhile */
		if (!read_stat(pfd, comm, sizeof(comm), &flags) &&
		    (flags & XVBD_PF_KTHREAD))
			fn(arg, pid, comm);
		close(pfd);
	}
	closedir(dir);
	return 0;
}

int xvbd_proc_thread_open(struct xvbd_sysfs *sys, int pid, const char *comm,
			  struct xvbd_proc_thread **out)
{
	char name[24], now[XVBD_COMM_MAX];
	struct xvbd_proc_thread *t;
	uint64_t flags;
	int dir_fd, rc;

	if (sys->proc_fd < 0)
		return -ENOENT;
	snprintf(name, sizeof(name), "%d", pid);
	dir_fd = openat(sys->proc_fd, name, O_RDONLY | O_DIRECTORY |
			O_CLOEXEC);
	if (dir_fd < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	t = calloc(1, sizeof(*t));
	rc = t ? 0 : -ENOMEM;
	if (!rc)
		rc = read_stat(dir_fd, now, sizeof(now), &flags);
	/* The same thread as at the scan, still a kernel thread. */
	if (!rc && (strcmp(now, comm) || !(flags & XVBD_PF_KTHREAD)))
		rc = -ESRCH;
	if (!rc) {
		t->fd = openat(dir_fd, PROC_SCHEDSTAT, O_RDONLY | O_CLOEXEC);
		if (t->fd < 0)
			rc = errno == ENOENT ? -ESRCH : -errno;
	}
	close(dir_fd);
	if (rc) {
		free(t);
		return rc;
	}
	*out = t;
	return 0;
}

int xvbd_proc_thread_read(struct xvbd_proc_thread *t, uint64_t *run_ns)
{
	char buf[96];
	size_t len = 0;
	uint64_t slices;
	int rc = pread_all(t->fd, buf, sizeof(buf), &len);

	if (rc)
		return rc == -ENOENT ? -ESRCH : rc;
	/* A thread gone since reads as empty on some kernels. */
	if (!len)
		return -ESRCH;
	rc = xvbd_proc_parse_schedstat(buf, len, run_ns, &slices);
	if (!rc && !slices)
		rc = -ENODATA;
	return rc;
}

void xvbd_proc_thread_close(struct xvbd_proc_thread *t)
{
	if (!t)
		return;
	close(t->fd);
	free(t);
}
