/*
 * sysfs.h - the kernel files xvbd reads under /sys; every sysfs path of
 * xvbd is spelled in src/dom0/sysfs.c and nowhere else (the parsers of
 * a queue's and mountinfo's text: src/dom0/sysfs_parse.c).
 *
 *  - blkback's counters of one VBD, cumulative since the backend device
 *    was created (xen-blkback's "statistics" group):
 *	/sys/bus/xen-backend/devices/vbd-<domid>-<devid>/statistics/<name>
 *  - a block device's I/O statistics (Documentation/block/stat.rst):
 *	/sys/dev/block/<major>:<minor>/stat
 *  - a loop device's direct-I/O state: .../<major>:<minor>/loop/dio
 *  - dom0's clock source (what every sample's timestamp rests on)
 *  - a block device's queue attributes, and the filesystem type mounted
 *    from a device (/proc/self/mountinfo)
 *  - blkback's ring threads in /proc (their names and CPU time):
 *	/proc/<pid>/stat, /proc/<pid>/schedstat
 *
 * Sampling must not disturb what it measures: files are opened once and
 * re-read with pread(2), one system call per file per sample.  Paths are
 * relative to a root directory ("/sys" normally) so that unit tests can
 * feed a fake tree.  Functions return 0 / negative errno.
 */
#ifndef XVBD_SYSFS_H
#define XVBD_SYSFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct xvbd_sysfs;

/*
 * root NULL means "/sys" (and "/proc" for the ring threads); another
 * root is a fake tree whose "proc" subdirectory, when there, stands for
 * /proc.  NULL + errno on error.
 */
struct xvbd_sysfs *xvbd_sysfs_open(const char *root);
void xvbd_sysfs_close(struct xvbd_sysfs *sys);		/* NULL ok */

/* ---- blkback counters (64-bit in the kernel: they do not wrap) ---- */

struct xvbd_blkback_counters {
	uint64_t rd_req;	/* read requests */
	uint64_t wr_req;	/* write requests */
	uint64_t rd_sect;	/* 512-byte sectors read */
	uint64_t wr_sect;	/* 512-byte sectors written */
	uint64_t f_req;		/* flush / barrier requests */
	uint64_t ds_req;	/* discard requests */
	uint64_t oo_req;	/* "out of requests": ring had no free slot */
};

/* The sysfs file names, in struct order, with their offsets. */
struct xvbd_blkback_field {
	const char *name;
	size_t offset;
};
#define XVBD_BLKBACK_NFIELDS	7
extern const struct xvbd_blkback_field
	xvbd_blkback_fields[XVBD_BLKBACK_NFIELDS];

struct xvbd_sysfs_vbd;

/* -ENOENT when blkback has no such device (yet, or any more). */
int xvbd_sysfs_vbd_open(struct xvbd_sysfs *sys, uint32_t domid,
			uint32_t devid, struct xvbd_sysfs_vbd **out);
/*
 * One pread per counter.  -ENODEV / -ENOENT when the device went away
 * (a detached device's open files read as ENODEV).
 */
int xvbd_sysfs_vbd_read(struct xvbd_sysfs_vbd *v,
			struct xvbd_blkback_counters *c);
/* Identity of the device instance opened (inode of its directory). */
uint64_t xvbd_sysfs_vbd_instance(const struct xvbd_sysfs_vbd *v);
/*
 * Identity of the instance there now (one fstatat): differs from
 * xvbd_sysfs_vbd_instance() after a detach and re-attach.
 */
int xvbd_sysfs_vbd_probe(struct xvbd_sysfs *sys, uint32_t domid,
			 uint32_t devid, uint64_t *instance);
void xvbd_sysfs_vbd_close(struct xvbd_sysfs_vbd *v);	/* NULL ok */

/* ---- block device statistics ---- */

/*
 * Fields of /sys/dev/block/M:m/stat.  The *_ms and in_flight fields are
 * 32-bit in the kernel ("%u"): they wrap at 2^32.  Discard (Linux 4.18+)
 * and flush (5.5+) fields are 0 when nfields says they are absent.
 */
struct xvbd_blkstat {
	uint64_t rd_ios, rd_merges, rd_sectors, rd_ticks_ms;
	uint64_t wr_ios, wr_merges, wr_sectors, wr_ticks_ms;
	uint64_t in_flight, io_ticks_ms, time_in_queue_ms;
	uint64_t ds_ios, ds_merges, ds_sectors, ds_ticks_ms;
	uint64_t fl_ios, fl_ticks_ms;
	unsigned nfields;	/* 11, 15 or 17 */
};

struct xvbd_sysfs_blk;

int xvbd_sysfs_blk_open(struct xvbd_sysfs *sys, unsigned major,
			unsigned minor, struct xvbd_sysfs_blk **out);
int xvbd_sysfs_blk_read(struct xvbd_sysfs_blk *b, struct xvbd_blkstat *st);
void xvbd_sysfs_blk_close(struct xvbd_sysfs_blk *b);	/* NULL ok */

/* ---- loop devices ---- */

/*
 * Is loop device major:minor doing direct I/O (its "loop/dio" attribute:
 * 1 = the backing file is read and written with O_DIRECT, so dom0's page
 * cache does not serve it)?  -ENOENT when it is no loop device or
 * unbound.
 *	/sys/dev/block/<major>:<minor>/loop/dio
 */
/*
 * The whole disk a partition major:minor belongs to, or major:minor
 * itself when it is no partition (no "partition" attribute).
 *	/sys/dev/block/<major>:<minor>/partition, .../../dev
 */
int xvbd_sysfs_blk_whole(struct xvbd_sysfs *sys, unsigned major,
			 unsigned minor, unsigned *whole_major,
			 unsigned *whole_minor);

/*
 * Where a block device's requests are: its whole disk and, for a
 * partition, its first sector on it (the block layer's request
 * tracepoints name the disk and absolute sectors); its size; and whether
 * it is stacked (device-mapper, md), whose requests are those of the
 * devices below it.
 *	/sys/dev/block/<major>:<minor>/start, .../size, .../dm, .../md
 */
struct xvbd_blk_extent {
	unsigned disk_major, disk_minor;
	bool partition, stacked;
	uint64_t start_sector, sectors;
};
int xvbd_sysfs_blk_extent(struct xvbd_sysfs *sys, unsigned major,
			  unsigned minor, struct xvbd_blk_extent *x);

int xvbd_sysfs_loop_dio(struct xvbd_sysfs *sys, unsigned major,
			unsigned minor, bool *dio);

/* ---- a block device's queue, the filesystem on a device ---- */

/*
 * What a backing device's queue says, each attribute with its own
 * result (0 or -errno: -ENOENT for a partition, which has no queue of
 * its own: ask its whole disk, xvbd_sysfs_blk_whole()).
 *	/sys/dev/block/<major>:<minor>/queue/logical_block_size,
 *	.../physical_block_size, .../rotational, .../scheduler
 */
struct xvbd_blk_queue {
	int lbs_rc, pbs_rc, rot_rc, sched_rc;
	uint64_t logical_block_size, physical_block_size;	/* bytes */
	bool rotational;
	char scheduler[32];	/* the one in use: "mq-deadline", "none" */
};
void xvbd_sysfs_blk_queue(struct xvbd_sysfs *sys, unsigned major,
			  unsigned minor, struct xvbd_blk_queue *q);

/*
 * The type of the filesystem mounted from device major:minor (a file's
 * st_dev: "ext4", "xfs", "nfs4", "tmpfs"), from /proc/self/mountinfo,
 * read whole but at most 4 MiB (-EFBIG).  -ENOENT: not mounted.
 */
int xvbd_proc_mount_fstype(struct xvbd_sysfs *sys, unsigned major,
			   unsigned minor, char *buf, size_t len);

/* ---- dom0's clock ---- */

/*
 * The clock source dom0's kernel reads time from ("xen", "tsc"), newline
 * stripped: a changed clock source changes what a measured interval
 * means.
 *	/sys/devices/system/clocksource/clocksource0/current_clocksource
 */
int xvbd_sysfs_clocksource(struct xvbd_sysfs *sys, char *buf, size_t len);

/* ---- blkback's ring threads (/proc) ---- */

/*
 * blkback runs one kernel thread per ring, named "<domid>.<dev>-<ring>"
 * (xen_blkif_schedule, started with kthread_run at connect) where <dev>
 * is the backend's "dev" key without "/dev/".  The kernel keeps 15 bytes
 * of a name (TASK_COMM_LEN).
 */
#define XVBD_COMM_MAX		16
/* PF_KTHREAD (include/linux/sched.h): no user process can set it. */
#define XVBD_PF_KTHREAD		0x00200000u

/*
 * Call fn for every kernel thread in /proc (pid, name).  One directory
 * scan plus one read of /proc/<pid>/stat per process: for discovery
 * only, never per sample.  -ENOENT when there is no /proc.
 */
int xvbd_proc_kthreads(struct xvbd_sysfs *sys,
		       void (*fn)(void *arg, int pid, const char *comm),
		       void *arg);

struct xvbd_proc_thread;

/*
 * Open a thread's CPU time file (/proc/<pid>/schedstat) and keep it;
 * comm is checked again through the same /proc/<pid> directory, so a
 * pid reused since the scan is refused (-ESRCH).
 */
int xvbd_proc_thread_open(struct xvbd_sysfs *sys, int pid, const char *comm,
			  struct xvbd_proc_thread **out);
/*
 * One pread: the thread's run time in ns (sum_exec_runtime).  -ESRCH
 * when the thread is gone (the file stays bound to it, never to a new
 * owner of the pid); -ENODATA when the kernel keeps no schedstat ("0 0
 * 0": a thread that ran has at least one timeslice).
 */
int xvbd_proc_thread_read(struct xvbd_proc_thread *t, uint64_t *run_ns);
void xvbd_proc_thread_close(struct xvbd_proc_thread *t);	/* NULL ok */

/* ---- parsers (pure) ---- */

/* /proc/<pid>/stat: the name between the first '(' and the last ')',
 * and the flags field (the 9th). */
int xvbd_proc_parse_stat(const char *buf, size_t len, char *comm,
			 size_t comm_len, uint64_t *flags);
/* /proc/<pid>/schedstat: "run_ns wait_ns timeslices". */
int xvbd_proc_parse_schedstat(const char *buf, size_t len, uint64_t *run_ns,
			      uint64_t *slices);

/* queue/scheduler: the bracketed name ("none [mq-deadline]"), or the
 * only one; [a-z0-9._-] (src/dom0/sysfs_parse.c). */
int xvbd_sysfs_parse_scheduler(const char *buf, size_t len, char *out,
			       size_t out_len);
/* mountinfo text: the fstype of the first mount of major:minor. */
int xvbd_proc_parse_mountinfo_fstype(const char *buf, size_t len,
				     unsigned major, unsigned minor,
				     char *out, size_t out_len);

/* One decimal counter with an optional trailing newline. */
int xvbd_sysfs_parse_counter(const char *buf, size_t len, uint64_t *out);
/* A whole stat line: at least 11 fields; -EINVAL otherwise. */
int xvbd_sysfs_parse_blkstat(const char *buf, size_t len,
			     struct xvbd_blkstat *st);
/*
 * A device number as the hotplug scripts write it into the backend's
 * physical-device key: lower-case hex "major:minor" ("7:0", "fe:11").
 */
int xvbd_sysfs_parse_devnum(const char *s, unsigned *major, unsigned *minor);

#endif /* XVBD_SYSFS_H */
