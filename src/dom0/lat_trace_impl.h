/*
 * lat_trace_impl.h - the latency tracker's insides (lat_trace.h), shared
 * by lat_trace.c (set-up, the events' filters, removal), lat_trace_spec.c
 * (the filters' texts, pure), lat_trace_ring.c (ring buffer pages and
 * the events' formats, pure) and lat_trace_read.c (the records paired
 * into requests and counted into lathists).
 *
 * The kernel side, all in instance xvbd-<pid>, its trace clock "mono":
 *   block_rq_issue, block_rq_complete (and block_rq_insert where a
 *   timed device's queue has an I/O scheduler) enabled, each filtered in
 *   the kernel to the timed devices' reads and writes.  Each request
 *   leaves its records in the instance's per-CPU ring buffers; xvbd reads
 *   them a page at a time from each CPU's trace_pipe_raw, puts the
 *   records of all CPUs in time order and pairs each completion with its
 *   request's issue (and insertion) by (dev, sector).
 *
 * Why not pair in the kernel (hist triggers keyed by dev,sector and a
 * synthetic event per completion, as this did before): a hist map never
 * frees an entry, so every distinct sector takes one until the map is
 * replaced, and a map of 16,384 entries is made, preallocated, and freed
 * again every 8,192 requests - in the lab that churn cost xvbd 110-140
 * ms of dom0's CPU a second at 2,500 requests/s and more than 10 % of the
 * guest's IOPS, while the two raw events cost next to nothing beside it
 * (bench/latency-cost.sh).  A map also fills within one interval at a
 * native disk's rate of distinct sectors, losing requests unseen, and
 * each trigger with a timestamp resets the instance's ring buffer.  Raw
 * records have no such limit: the ring buffer says when it lost any.
 */
#ifndef XVBD_LAT_TRACE_IMPL_H
#define XVBD_LAT_TRACE_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "xvbd/dom0/lat_trace.h"

#define LAT_NEGATIVE_NS		(UINT64_C(1) << 63)
#define LAT_FILTER_MAX		4000	/* one filter: a write of < a page */
#define LAT_NAME_MAX		48
#define LAT_UNITS_MAX		256
/* Slots a unit holds counts of before they are taken (see lat_hold). */
#define LAT_HOLD_SLOTS		4
/*
 * Each CPU's ring buffer: 2 MiB, ~20,000 requests (an issue's record
 * and a completion's, ~100 bytes) between two reads.
 */
#define LAT_RING_KB		2048
/* A ring buffer page, at most (the kernel's PAGE_SIZE). */
#define LAT_PAGE_MAX		(64u << 10)
/* Records read and not yet paired, at most (~100 MiB): bounded memory. */
#define LAT_RECS_MAX		(UINT32_C(1) << 22)
/* Requests between their start and completion, at most. */
#define LAT_INFLIGHT_MAX	(UINT32_C(1) << 20)
/* A request not completed within this long is forgotten. */
#define LAT_STALE_NS		(UINT64_C(60) * 1000000000u)

/*
 * Slack after a time before the records up to it are taken as all read:
 * a record is timestamped when its event begins and written when it
 * ends, and under emulation a vCPU can stall for milliseconds between.
 * A tenth of the slot, at most 100 ms; records are paired in time order
 * up to it, and a slot is read once its end is that far behind.
 */
#define LAT_READ_GRACE_MAX_NS	UINT64_C(100000000)
#define LAT_READ_GRACE_NS(slot_ns) \
	((slot_ns) / 10 < LAT_READ_GRACE_MAX_NS ? (slot_ns) / 10 : \
	 LAT_READ_GRACE_MAX_NS)

/* The block layer's events read, in their order at one instant. */
enum lat_ev { LAT_EV_INSERT, LAT_EV_ISSUE, LAT_EV_COMPLETE, LAT_NEVS };

/* The counts of one slot not yet ended, read ahead of its end. */
struct lat_hold {
	bool used;
	uint64_t slot;
	struct xvbd_lathist h[XVBD_LAT_NKINDS][XVBD_LAT_NDIRS];
	uint64_t backwards;
};

/* A device being timed. */
struct lat_unit {
	unsigned major, minor;		/* as the caller named it */
	uint32_t kdev;			/* kernel dev_t the requests carry */
	uint64_t first_sector, end_sector;	/* on kdev: [first, end) */
	bool partition;
	bool unsupported;		/* stacked: no requests of its own */
	unsigned disk_major, disk_minor;	/* its queue's device */
	bool queued;			/* an I/O scheduler: i2c timed */
	bool wanted;			/* in the current set */
	uint64_t live_from_slot;	/* counted from this slot on */
	bool live;
	/* The slots that ended and were read, until taken. */
	struct xvbd_lathist pend[XVBD_LAT_NKINDS][XVBD_LAT_NDIRS];
	uint64_t backwards;
	struct lat_hold hold[LAT_HOLD_SLOTS];
	bool incomplete;
	const char *why;	/* the first reason of incomplete */
};

/* Where an event's fields are in its record (its format file). */
struct lat_ring_fmt {
	uint16_t id;			/* common_type */
	size_t off_dev, off_sector, off_rwbs, rwbs_len;
	size_t min_len;
};

/* One record, as read. */
struct lat_rec {
	uint64_t ts;			/* the ring buffer's: mono clock */
	uint64_t sector;
	uint32_t dev;
	uint8_t ev;			/* enum lat_ev */
	uint8_t dir;			/* enum xvbd_lat_dir */
};

/* A request between its start and its completion. */
struct lat_req {
	uint64_t sector;
	uint32_t dev;
	bool used;
	uint64_t issue_ts, insert_ts;	/* 0: not seen */
};

struct xvbd_lat {
	struct xvbd_tracefs *tf;
	struct xvbd_sysfs *sys;
	char inst[LAT_NAME_MAX];	/* "xvbd-<pid>" */
	bool journaled, instance_made;
	uint64_t slot_ns;
	struct lat_unit *units;
	size_t nunits, capunits;
	uint64_t done_slot;		/* every slot up to it is taken */
	bool started;
	bool lost;			/* the ring buffer lost records */
	bool late;			/* a record came after its turn */
	bool full;			/* a request's start not kept */
	bool enabled[LAT_NEVS];		/* each event, as the kernel has it */
	/* Each CPU's trace_pipe_raw and the events' formats. */
	struct lat_ring_fmt fmt[LAT_NEVS];
	int *raw_fds;
	size_t nraw;
	unsigned char *page;
	size_t page_size;
	/* Records read, not yet paired: later than the slack allows. */
	struct lat_rec *recs;
	size_t nrecs, caprecs;
	uint64_t paired_to;		/* records up to it were paired */
	/* Requests started and not completed, by (dev, sector). */
	struct lat_req *reqs;
	size_t nreqs, capreqs;
	size_t reqs_max;		/* 0: LAT_INFLIGHT_MAX */
};

/* ---- lat_trace_spec.c: the filters' texts (pure) ---- */

/* A record's rwbs ("R", "WS", "FWFS"): its direction; NDIRS if neither. */
enum xvbd_lat_dir lat_rwbs_dir(const unsigned char *rwbs, size_t n);
/* Is the unit timed for kind k (d2c always; i2c with a scheduler)? */
bool lat_counted(const struct lat_unit *u, enum xvbd_lat_kind k);
/*
 * The filter of event ev over the wanted units (their reads and
 * writes) into buf: 0; -ENOENT when no unit is timed by it (the event
 * is then not wanted); -E2BIG when it does not fit.
 */
int lat_spec_filter(const struct xvbd_lat *lat, enum lat_ev ev, char *buf,
		    size_t len);
const char *lat_ev_name(enum lat_ev ev);	/* "block_rq_issue" */

/* ---- lat_trace.c ---- */

uint64_t lat_now_ns(void);		/* CLOCK_MONOTONIC, in ns */

size_t lat_counted_units(const struct xvbd_lat *lat);
/* The events' filters and enables after a change of units (their
 * schedulers read). */
int lat_apply(struct xvbd_lat *lat, char *why, size_t len);
/* The units' schedulers read again; the filters follow a change. */
void lat_recheck(struct xvbd_lat *lat);

/* ---- lat_trace_ring.c: ring buffer pages (pure) ---- */

/* 0 if events/header_page's text is the layout this reads; -EPROTO. */
int lat_ring_header_ok(const char *header_page);
/*
 * Each record of a page (len bytes, as one read of trace_pipe_raw gave
 * it) to on_data with its time stamp; *missed set when the kernel lost
 * records before it.  0, or -EPROTO for a page that is not one.
 */
int lat_ring_page(const unsigned char *page, size_t len,
		  void (*on_data)(void *arg, uint64_t ts,
				  const unsigned char *data, size_t n),
		  void *arg, bool *missed);
/* A block request event's id and fields from its format file. */
int lat_ring_format(const char *fmt, struct lat_ring_fmt *f);
/* A record's fields, if it is f's event (rwbs: f->rwbs_len bytes). */
bool lat_ring_event(const struct lat_ring_fmt *f, const unsigned char *data,
		    size_t n, uint32_t *dev, uint64_t *sector,
		    const unsigned char **rwbs);

/* ---- lat_trace_read.c ---- */

struct lat_unit *lat_unit_find(struct xvbd_lat *lat, unsigned major,
			       unsigned minor);
/* One request of unit u completed at t after ns: counted into t's slot. */
void lat_count(struct xvbd_lat *lat, struct lat_unit *u,
	       enum xvbd_lat_kind kind, enum xvbd_lat_dir dir, uint64_t t,
	       uint64_t ns);
/* A record read: kept until its time is past the slack, then paired. */
void lat_add_rec(struct xvbd_lat *lat, const struct lat_rec *r);
/* The records up to now minus the slack paired, in time order. */
void lat_pair_until(struct xvbd_lat *lat, uint64_t now);
/* Every record the CPUs' buffers hold now read and paired up to now. */
int lat_drain_at(struct xvbd_lat *lat, uint64_t now);
/* Slots that ended by now (CLOCK_MONOTONIC, minus the slack) taken. */
void lat_close_slots(struct xvbd_lat *lat, uint64_t now);
/* Is there a slot that ended and was not read? */
bool lat_due(const struct xvbd_lat *lat, uint64_t now);
void lat_units_free(struct xvbd_lat *lat);

#endif /* XVBD_LAT_TRACE_IMPL_H */
