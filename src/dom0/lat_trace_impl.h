/*
 * lat_trace_impl.h - the latency tracker's insides (lat_trace.h), shared
 * by lat_trace.c (set-up, generations, removal), lat_trace_spec.c (the
 * trigger texts, pure) and lat_trace_read.c (reading the kernel's
 * histograms into lathists).
 *
 * The kernel side, all in instance xvbd-<pid>:
 *
 *  ingress, one "generation" at a time (two while one hands over):
 *    block_rq_issue:    hist:keys=dev,sector:ts<g>=common_timestamp
 *    block_rq_insert:   hist:keys=dev,sector:tq<g>=common_timestamp
 *    block_rq_complete: per kind (and per partition), a hist trigger
 *      whose onmatch() emits the synthetic event with the request's key
 *      vk, its completion time t, the latency and its rwbs.  i2c only
 *      for devices whose queue has an I/O scheduler.  Its
 *      keys (dev, sector) are the issue's: that is how the kernel pairs
 *      the two events of one request.
 *  the synthetic event xvbd_<pid> (vk, t, lat, rwbs), enabled in the
 *  instance: written into its ring buffer, one small record per
 *  request, which xvbd reads a page at a time from each CPU's
 *  trace_pipe_raw and counts into the slot of t.
 *
 * Why not count in the kernel too (hist triggers on the synthetic
 * event, as this did before): a hist file is rendered as text, sorted,
 * every entry every read; with the slots kept apart that was thousands
 * of lines a second, and its rendering cost more of dom0's CPU than the
 * requests' tracing itself (a third of a CPU at 2,000 requests/s under
 * the lab's emulation).  A record is 36 bytes and read in pages: the
 * reading costs next to nothing, the maximum is exact, and a request's
 * slot is its own completion time's.  The kernel still pairs each
 * request's two events (no user-space wake-up per request).
 *
 * The ingress triggers' maps fill with every distinct sector (a hist
 * trigger with variables can be neither cleared nor paused, and its
 * entries are never freed), so they are replaced from time to time: a
 * new generation, installed before a slot boundary, takes over from it.
 *
 * vk: a request's device and kind, and its generation (the direction
 * is in the record's rwbs):
 *   whole devices (loop, disk): dev * 4 + gen * 2 + kind
 *   a partition:   PART_BASE + id * 4 + gen * 2 + kind
 */
#ifndef XVBD_LAT_TRACE_IMPL_H
#define XVBD_LAT_TRACE_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "xvbd/dom0/lat_trace.h"

#define LAT_PART_BASE		(UINT64_C(1) << 40)
#define LAT_VK_SUB		4	/* gen x kind */
#define LAT_NEGATIVE_NS		(UINT64_C(1) << 63)
#define LAT_TRIGGER_MAX		4000	/* one trigger: a write of < a page */
#define LAT_NAME_MAX		48
/* Completion triggers of one generation: kinds x dirs x (1 + parts). */
#define LAT_UNITS_MAX		256
/* Slots a unit holds counts of before they are taken (see lat_hold). */
#define LAT_HOLD_SLOTS		4
/* Each CPU's ring buffer: 1 MiB, ~29,000 requests between two reads. */
#define LAT_RING_KB		1024
/* A ring buffer page, at most (the kernel's PAGE_SIZE). */
#define LAT_PAGE_MAX		(64u << 10)

/* Spellings of the completion triggers' expressions (lat->style). */
#define LAT_STYLE_VK_CONST_LAST	1u	/* "N+dev*8", not "8*dev+N" */
#define LAT_STYLES		2u

/*
 * Slack after a slot's end before it is read: the record of a request
 * timestamped just before the end is in the ring buffer by then.  A
 * tenth of the slot, at most 100 ms: under emulation a vCPU can stall
 * for milliseconds between a request's timestamp and its record.
 */
#define LAT_READ_GRACE_MAX_NS	UINT64_C(100000000)
#define LAT_READ_GRACE_NS(slot_ns) \
	((slot_ns) / 10 < LAT_READ_GRACE_MAX_NS ? (slot_ns) / 10 : \
	 LAT_READ_GRACE_MAX_NS)

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
	uint32_t part_id;		/* vk's id for a partition */
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

/* One ingress generation: its triggers, in the order to remove them. */
struct lat_gen {
	bool installed;
	unsigned bit;			/* vk's gen bit: 0 or 1 */
	uint64_t first_slot, last_slot;	/* the slots it answers for */
	uint64_t completions;		/* counted since installed */
	size_t ncmds;
	char (*cmds)[LAT_TRIGGER_MAX];	/* "event\ttrigger text" */
};

/* Where the synthetic event's fields are in its record (its format). */
struct lat_ring_fmt {
	uint16_t id;			/* common_type */
	size_t off_vk, off_t, off_lat, off_rwbs, rwbs_len;
	size_t min_len;
};

struct xvbd_lat {
	struct xvbd_tracefs *tf;
	struct xvbd_sysfs *sys;
	char inst[LAT_NAME_MAX];	/* "xvbd-<pid>" */
	char synth[LAT_NAME_MAX];	/* "xvbd_<pid>" */
	bool journaled, instance_made, synth_made;
	uint64_t slot_ns;
	struct lat_gen gen[2];
	unsigned cur_gen;		/* index into gen[] answering now */
	unsigned next_trigger;		/* variable names' numbers */
	unsigned style;			/* LAT_STYLE_*: what the kernel took */
	bool style_known;
	struct lat_unit *units;
	size_t nunits, capunits;
	uint32_t next_part_id;
	uint64_t done_slot;		/* every slot up to it is taken */
	bool started;
	bool want_gen;			/* a new set waits for a handover */
	bool lost;			/* the ring buffer lost records */
	size_t ingress_size;		/* map entries */
	/* The synthetic event's records: each CPU's trace_pipe_raw. */
	struct lat_ring_fmt fmt;
	int *raw_fds;
	size_t nraw;
	unsigned char *page;
	size_t page_size;
	uint64_t completions[2];	/* records per generation bit, read */
};

/* ---- lat_trace_spec.c: trigger texts (pure) ---- */

uint64_t lat_vk(const struct lat_unit *u, unsigned gen_bit,
		enum xvbd_lat_kind k);
/* The unit, kind and generation of a vk; NULL if none. */
struct lat_unit *lat_vk_unit(struct xvbd_lat *lat, uint64_t vk,
			     unsigned *gen_bit, enum xvbd_lat_kind *k);
/* A record's rwbs ("R", "WS", "FWFS"): its direction; NDIRS if neither. */
enum xvbd_lat_dir lat_rwbs_dir(const unsigned char *rwbs, size_t n);
/*
 * The ingress triggers of generation g over the wanted units, appended
 * to g->cmds ("system/event\ttext", in install order).  0, -E2BIG (a
 * filter too long for one trigger), -ENOMEM.
 */
int lat_spec_gen(struct xvbd_lat *lat, struct lat_gen *g);

/* ---- lat_trace.c ---- */

int lat_new_gen(struct xvbd_lat *lat, char *why, size_t len);
void lat_retire(struct xvbd_lat *lat);
size_t lat_counted_units(const struct xvbd_lat *lat);

/* ---- lat_trace_ring.c: ring buffer pages (pure) ---- */

/* 0 if events/header_page's text is the layout this reads; -EPROTO. */
int lat_ring_header_ok(const char *header_page);
/*
 * Each record of a page (len bytes, as one read of trace_pipe_raw gave
 * it) to on_data; *missed set when the kernel lost records before it.
 * 0, or -EPROTO for a page that is not one.
 */
int lat_ring_page(const unsigned char *page, size_t len,
		  void (*on_data)(void *arg, const unsigned char *data,
				  size_t n),
		  void *arg, bool *missed);
/* The synthetic event's id and fields from its format file: 0, -EPROTO. */
int lat_ring_format(const char *fmt, struct lat_ring_fmt *f);
/* A record's fields, if it is the synthetic event's (rwbs: n bytes). */
bool lat_ring_event(const struct lat_ring_fmt *f, const unsigned char *data,
		    size_t n, uint64_t *vk, uint64_t *t, uint64_t *lat,
		    const unsigned char **rwbs);

/* ---- lat_trace_read.c ---- */

struct lat_unit *lat_unit_find(struct xvbd_lat *lat, unsigned major,
			       unsigned minor);
/*
 * One request's record: counted into the slot of t (held until that
 * slot is read), for its unit if it is live then.
 */
void lat_count(struct xvbd_lat *lat, uint64_t vk, enum xvbd_lat_dir dir,
	       uint64_t t, uint64_t ns);
/* Slots that ended by now (CLOCK_MONOTONIC, minus the slack) taken. */
void lat_close_slots(struct xvbd_lat *lat, uint64_t now);
/* Is there a slot that ended and was not read? */
bool lat_due(const struct xvbd_lat *lat, uint64_t now);
void lat_units_free(struct xvbd_lat *lat);

#endif /* XVBD_LAT_TRACE_IMPL_H */
