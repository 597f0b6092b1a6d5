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
 *    block_rq_complete: per kind and direction (and per partition), a
 *      hist trigger whose onmatch() emits the synthetic event with the
 *      request's key vk, its completion time t, t modulo the cycle and
 *      the latency.  Its keys (dev, sector) are the issue's: that is how
 *      the kernel pairs the two events of one request.
 *  counting, on the synthetic event xvbd_<pid> (vk, t, cyc, lat):
 *    one hist trigger per group of octaves of lat, keyed by vk, the
 *    slot of the cycle (cyc.buckets=slot) and lat.buckets=2^(k-5): the
 *    count and the sum of each bucket, cumulative; one for lat from
 *    2^63 on (a difference that went negative); and the max trigger,
 *    keyed by vk and the absolute slot, with onmax().
 *
 * Why a cycle of slots: a hist trigger with variables can be neither
 * cleared nor paused (6.1: "Variable already defined"), and its entries
 * are never freed.  Keyed by the slot within a cycle of
 * XVBD_LAT_CYCLE_SLOTS, the counting triggers reuse their entries: a
 * slot's counts are the difference between two reads of its entries
 * one cycle apart, exact however long xvbd runs.  The maximum is not a
 * difference, so the max trigger keys by the absolute slot and is
 * replaced by a fresh one from time to time; the ingress triggers' maps
 * fill with every distinct sector, so they are replaced too (a new
 * generation, installed before a slot boundary, takes over from it).
 *
 * vk: a request's device, kind and direction, and its generation:
 *   whole devices (loop, disk): dev * 8 + gen * 4 + kind * 2 + dir
 *   a partition:   PART_BASE + id * 8 + gen * 4 + kind * 2 + dir
 */
#ifndef XVBD_LAT_TRACE_IMPL_H
#define XVBD_LAT_TRACE_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "xvbd/dom0/lat_trace.h"

#define LAT_PART_BASE		(UINT64_C(1) << 40)
#define LAT_VK_SUB		8	/* gen x kind x dir */
/* Groups of octaves per counting trigger: 3 (2^10..2^13 ns, ...). */
#define LAT_GROUP_OCTAVES	3
#define LAT_FIRST_OCTAVE	10		/* below: linear buckets */
#define LAT_LAST_OCTAVE		40		/* from here: exact values */
#define LAT_NEGATIVE_NS		(UINT64_C(1) << 63)
#define LAT_NGROUPS		((LAT_LAST_OCTAVE - LAT_FIRST_OCTAVE) / \
				 LAT_GROUP_OCTAVES)
/* Counting triggers: linear, the groups, exact beyond, backwards. */
#define LAT_NCOUNT		(LAT_NGROUPS + 3)
#define LAT_TRIGGER_MAX		4000	/* one trigger: a write of < a page */
#define LAT_NAME_MAX		48
/* Completion triggers of one generation: kinds x dirs x (1 + parts). */
#define LAT_UNITS_MAX		256

/* Spellings of the completion triggers' expressions (lat->style). */
#define LAT_STYLE_VK_CONST_LAST	1u	/* "N+dev*8", not "8*dev+N" */
#define LAT_STYLES		2u

/*
 * Slack after a slot's end before it is read: the triggers of a request
 * timestamped just before the end have run by then.  A tenth of the slot,
 * at most 100 ms: under emulation a vCPU can stall for milliseconds
 * between a request's timestamp and its triggers' update (1 ms left a
 * count for the next read in most 5 s runs, and with it a maximum the
 * counts did not hold).
 */
#define LAT_READ_GRACE_MAX_NS	UINT64_C(100000000)
#define LAT_READ_GRACE_NS(slot_ns) \
	((slot_ns) / 10 < LAT_READ_GRACE_MAX_NS ? (slot_ns) / 10 : \
	 LAT_READ_GRACE_MAX_NS)

/* A device being timed. */
struct lat_unit {
	unsigned major, minor;		/* as the caller named it */
	uint32_t kdev;			/* kernel dev_t the requests carry */
	uint64_t first_sector, end_sector;	/* on kdev: [first, end) */
	bool partition;
	bool unsupported;		/* stacked: no requests of its own */
	uint32_t part_id;		/* vk's id for a partition */
	bool wanted;			/* in the current set */
	uint64_t live_from_slot;	/* counted from this slot on */
	bool live;
	struct xvbd_lathist pend[XVBD_LAT_NKINDS][XVBD_LAT_NDIRS];
	uint64_t pend_max[XVBD_LAT_NKINDS][XVBD_LAT_NDIRS];
	uint64_t backwards;
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

/* One max trigger (replaced from time to time). */
struct lat_maxtrig {
	bool installed;
	unsigned id;			/* its variable: mx<id> */
	uint64_t first_slot, last_slot;
	uint64_t entries;		/* at the last read */
	char cmd[LAT_TRIGGER_MAX];
};

/* The last value read of one counting entry (cumulative). */
struct lat_seen {
	uint64_t vk, cyc, lat;		/* the key; lat: a bucket's low end */
	uint64_t hits, sum;
	bool used;
};

struct xvbd_lat {
	struct xvbd_tracefs *tf;
	struct xvbd_sysfs *sys;
	char inst[LAT_NAME_MAX];	/* "xvbd-<pid>" */
	char synth[LAT_NAME_MAX];	/* "xvbd_<pid>" */
	bool journaled, instance_made, synth_made;
	uint64_t slot_ns;
	char count_cmds[LAT_NCOUNT][LAT_TRIGGER_MAX];
	size_t ncount;
	struct lat_maxtrig maxt[2];
	unsigned next_max_id;
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
	bool stalled;			/* the last read was a cycle behind */
	uint64_t dropped;		/* the counting triggers' at last read */
	/* Cumulative counts of the counting triggers' entries. */
	struct lat_seen *seen;
	size_t seen_cap, seen_used;
	size_t ingress_size, count_size, max_size;	/* map entries */
	int hist_fd;		/* the synthetic event's hist, kept open */
};

/* ---- lat_trace_spec.c: trigger texts (pure) ---- */

uint64_t lat_vk(const struct lat_unit *u, unsigned gen_bit,
		enum xvbd_lat_kind k, enum xvbd_lat_dir d);
/* The unit, kind, direction and generation of a vk; NULL if none. */
struct lat_unit *lat_vk_unit(struct xvbd_lat *lat, uint64_t vk,
			     unsigned *gen_bit, enum xvbd_lat_kind *k,
			     enum xvbd_lat_dir *d);
/* The counting triggers' texts into lat->count_cmds. */
void lat_spec_count(struct xvbd_lat *lat);
void lat_spec_max(const struct xvbd_lat *lat, unsigned id, char *buf,
		  size_t len);
/*
 * The ingress triggers of generation g over the wanted units, appended
 * to g->cmds ("system/event\ttext", in install order).  0, -E2BIG (a
 * filter too long for one trigger), -ENOMEM.
 */
int lat_spec_gen(struct xvbd_lat *lat, struct lat_gen *g);

/* ---- lat_trace.c ---- */

int lat_new_gen(struct xvbd_lat *lat, char *why, size_t len);
int lat_new_max(struct xvbd_lat *lat, char *why, size_t len);
void lat_retire(struct xvbd_lat *lat);
size_t lat_counted_units(const struct xvbd_lat *lat);

/* ---- lat_trace_read.c ---- */

struct lat_unit *lat_unit_find(struct xvbd_lat *lat, unsigned major,
			       unsigned minor);

/* What one read saw, for the upkeep after it. */
struct lat_read_stats {
	uint64_t completions[2];	/* per generation bit */
	uint64_t max_entries[2];	/* per max trigger (maxt[]) */
};
/*
 * The counts in a hist file's text, read at now (CLOCK_MONOTONIC): the
 * slots that ended by then go into the units' pending histograms.  The
 * trigger upkeep is the caller's.  0 or -errno.
 */
int lat_read_text(struct xvbd_lat *lat, uint64_t now, const char *text,
		  size_t len, struct lat_read_stats *out);
void lat_seen_free(struct xvbd_lat *lat);

#endif /* XVBD_LAT_TRACE_IMPL_H */
