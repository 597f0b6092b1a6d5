/*
 * lat_trace.h - per-request latency of block devices, from the block
 * layer's request tracepoints (block_rq_insert, block_rq_issue,
 * block_rq_complete), enabled in a tracefs instance of the process's own
 * and filtered in the kernel to the devices timed; xvbd reads their
 * records a page at a time, pairs each completion with its request's
 * start by (dev, sector) in time order across CPUs, and counts each
 * request into log-linear buckets (lathist.h).  No request wakes user
 * space: the buffers are read once per sampling interval, and more
 * often by a sampler that drains them.
 *
 * What is timed, per device ("unit": a loop device, a disk, or a
 * partition told apart by its sector range on its disk, since the
 * request tracepoints name the whole disk with absolute sectors) and
 * per direction (reads; writes, with or without a preflush or FUA):
 *   d2c  issue to the driver -> completion: the device's service time
 *   i2c  insertion into the I/O scheduler -> completion: queue plus
 *        service, timed on devices whose queue has a scheduler (with
 *        "none" most requests are issued directly, never inserted: not
 *        timed there, which spares tracing the insertions)
 * Flushes without data and discards are not timed.
 *
 * The clock: the kernel's "mono" trace clock (ktime_get_mono_fast_ns),
 * the clock of CLOCK_MONOTONIC, which the timekeeping core keeps
 * monotonic across CPUs, so a request issued on one CPU and completed on
 * another cannot come out negative (the "local" default is per CPU).
 * Being CLOCK_MONOTONIC, its time is also the sampler's: each request
 * is counted into the interval ("slot") of its completion, and slots end
 * where the sampler's intervals end.  A difference that came
 * out negative anyway would be counted as such ("backwards"), never as
 * a latency.
 *
 * Clean: everything is in the process's own tracefs instance
 * (instances/xvbd-<pid>), noted in the journal before it is made and
 * removed by xvbd_lat_close(); two processes never share anything.
 */
#ifndef XVBD_LAT_TRACE_H
#define XVBD_LAT_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "xvbd/base/lathist.h"

struct xvbd_sysfs;
struct xvbd_tracefs;

enum xvbd_lat_kind { XVBD_LAT_D2C, XVBD_LAT_I2C, XVBD_LAT_NKINDS };
enum xvbd_lat_dir { XVBD_LAT_READ, XVBD_LAT_WRITE, XVBD_LAT_NDIRS };

const char *xvbd_lat_kind_name(enum xvbd_lat_kind k);	/* "d2c" */
const char *xvbd_lat_dir_name(enum xvbd_lat_dir d);	/* "read" */

/* A device to time, as the VBD's backing device names it. */
struct xvbd_lat_dev {
	unsigned major, minor;
};

struct xvbd_lat;

/*
 * Set up tracking with slots of slot_ns (the sampling interval).  tf is
 * kept (not owned).  On failure *why says what is missing.
 */
int xvbd_lat_open(struct xvbd_tracefs *tf, struct xvbd_sysfs *sys,
		  uint64_t slot_ns, struct xvbd_lat **out, char *why,
		  size_t why_len);
/* Remove everything it made (NULL ok).  Safe after a failed call. */
void xvbd_lat_close(struct xvbd_lat *lat);
/*
 * The shell command that removes what a tracker left (a killed
 * process's instance; an older xvbd's synthetic event too: either NULL
 * when gone, synth "-" for none).
 */
void xvbd_lat_remedy(const struct xvbd_tracefs *tf, const char *inst,
		     const char *synth, char *buf, size_t len);
/* The journal's synthetic event of a tracker: none (older xvbds made one). */
#define XVBD_LAT_NO_SYNTH	"-"

/*
 * The devices to time (replacing the last set).  A device that cannot
 * be timed (device-mapper, md: their requests are the devices' below)
 * is skipped and says why through xvbd_lat_dev_state().  Takes effect
 * from a slot boundary: no request is counted twice or half.
 */
int xvbd_lat_set_devs(struct xvbd_lat *lat, const struct xvbd_lat_dev *devs,
		      size_t n, char *why, size_t why_len);

/*
 * Count the records of the slots that ended by now_ns (CLOCK_MONOTONIC)
 * into each device's pending histograms.  0 or -errno.  Each CPU's ring
 * buffer holds LAT_RING_KB (lat_trace_impl.h) of records between reads:
 * a sampler with long intervals drains it in between; a buffer that
 * overflowed marks the interval incomplete.
 */
int xvbd_lat_read(struct xvbd_lat *lat, uint64_t now_ns);
/* Read the records the buffers hold now (held until their slot ends). */
int xvbd_lat_drain(struct xvbd_lat *lat);
/*
 * The first time from t on at which a read takes every slot that ended
 * (a slot end plus the reader's slack), and when the first slot that
 * the devices are counted in whole began (plus the slack): a sampler
 * whose baseline is then and whose deadlines are slot ends reads each
 * interval's requests exactly.  0 before any device was set.
 */
uint64_t xvbd_lat_deadline_ns(const struct xvbd_lat *lat, uint64_t t);
uint64_t xvbd_lat_start_ns(const struct xvbd_lat *lat);
/*
 * When every device now tracked is counted in whole slots: the start of
 * the slot the last of them joined at, plus the reader's slack (a device
 * joins from the slot after it was set: a baseline taken before then
 * would make its first interval incomplete).  0 with no device.
 */
uint64_t xvbd_lat_whole_from_ns(const struct xvbd_lat *lat);

/* What a device's histograms since the last take hold. */
enum xvbd_lat_state {
	XVBD_LAT_OK,		/* complete over the slots taken */
	XVBD_LAT_NOT_TRACKED,	/* not in the set, or not live yet */
	XVBD_LAT_UNSUPPORTED,	/* a stacked device: no requests of its own */
	XVBD_LAT_INCOMPLETE,	/* the kernel lost records, tracking began
				 * within, or a record came late */
};
const char *xvbd_lat_state_name(enum xvbd_lat_state s);

struct xvbd_lat_result {
	enum xvbd_lat_state state;
	struct xvbd_lathist h[XVBD_LAT_NKINDS][XVBD_LAT_NDIRS];
	/* Requests whose completion came before their start on the
	 * clock: never counted as latencies (0 on a sound clock). */
	uint64_t backwards;
	/* Why not ok (a static string), NULL when ok. */
	const char *why;
	/* i2c timed: the device's queue has an I/O scheduler. */
	bool i2c_timed;
};

/*
 * Move a device's counts since the last take into r (merged into its
 * histograms, which the caller initialised and frees); r->state is set.
 */
enum xvbd_lat_state xvbd_lat_take(struct xvbd_lat *lat, unsigned major,
				  unsigned minor, struct xvbd_lat_result *r);

/* The trace clock in use ("mono"), for the output's statement. */
#define XVBD_LAT_CLOCK		"mono"

#endif /* XVBD_LAT_TRACE_H */
