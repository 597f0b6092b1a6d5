/*
 * stats.h - the sampler: per-domain CPU, per-VBD blkback counters and
 * the backing block device's statistics, turned into per-second rates.
 *
 *	st = xvbd_stats_open(&source, sys, &opts);
 *	xvbd_stats_sample(st, &s);	(baseline: rates unknown)
 *	xvbd_stats_sample(st, &s);	(rates over the interval since)
 *	xvbd_stats_sample_free(&s); xvbd_stats_close(st);
 *
 * Samples are plain structs: the A/B recorder and `xvbd stats` read the
 * same ones.  Where domain facts and the VBD list come from is a small
 * callback interface (struct xvbd_stats_source): xvbd_stats_sys_source()
 * gives the real one (libxl, xenstore watch), unit tests feed fakes.
 * Counter files are read through the sysfs layer.
 *
 * Cost per sample, by design: one domain-list call, one pread per
 * blkback counter (7 per VBD) and one per backing device stat file.  The
 * VBD list is re-read only when the source says it changed (a xenstore
 * watch on the backend directory).
 *
 * Truth: an interval whose counters went backwards, whose VBD was
 * re-attached or whose domain was replaced is marked XVBD_IV_RESET and
 * carries no rate; a first sight is XVBD_IV_NEW.  A domain whose CPU time
 * grew faster than its vCPUs can run is XVBD_IV_IMPOSSIBLE (a time-base
 * problem) and carries no CPU%.  Rates are never negative.
 */
#ifndef XVBD_STATS_H
#define XVBD_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "xvbd/dom0/lat_trace.h"
#include "xvbd/dom0/sysfs.h"

/* A domain's name in a sample (longer ones are cut: the filter still
 * compares the whole name). */
#define XVBD_STATS_NAME_MAX	256
#define XVBD_STATS_VDEV_MAX	16
#define XVBD_SECTOR_BYTES	512u
/* Domains Xen can run at once: domids below DOMID_FIRST_RESERVED. */
#define XVBD_STATS_DOMAINS_MAX	0x7ff0u

/* ---- what a source provides ---- */

struct xvbd_stats_dominfo {
	uint32_t domid;
	uint8_t uuid[16];	/* identity: same domid, new uuid = new domain */
	uint64_t cpu_ns;	/* cumulative CPU time of all vCPUs */
	uint32_t vcpus_online;
	uint64_t mem_bytes;	/* current allocation */
};

struct xvbd_stats_vbdinfo {
	uint32_t domid;
	uint32_t devid;
	char vdev[XVBD_STATS_VDEV_MAX];
	bool has_blkdev;	/* dom0 block device behind it (phy, loop) */
	unsigned blk_major, blk_minor;
	/*
	 * Bumped by the source whenever the backend's state changed (a
	 * frontend that disconnects and reconnects: blkback frees its rings
	 * and starts their counters again at 0 while the sysfs device stays,
	 * so a later value can pass the old one and a delta would silently
	 * under-count).  Another value than at the last look: reset.
	 */
	uint64_t connect_gen;
	/*
	 * blkback's ring thread name without "-<ring>": "<domid>.<dev>"
	 * from the backend's dom0-owned "dev" key; "" when unknown (then
	 * backend CPU is unknown, never 0).
	 */
	char thread_prefix[XVBD_COMM_MAX];
	bool connected;		/* backend state Connected at the look */
	/* The backend's feature-max-indirect-segments (0: none offered). */
	bool indirect_known;
	uint32_t indirect_segments;
};

struct xvbd_stats_source {
	/*
	 * All domains in one call.  Fill at most cap entries; if there are
	 * more (or may be), return -ENOSPC with *n set to the number to
	 * offer next (a hint: the sampler grows to at least double).
	 */
	int (*domains)(void *arg, struct xvbd_stats_dominfo *buf, size_t cap,
		       size_t *n);
	/* A domain's name; called once per newly seen domain. */
	int (*domain_name)(void *arg, uint32_t domid, char *buf, size_t len);
	/* The VBDs dom0's blkback serves; *vbds malloc'd, caller frees. */
	int (*vbds)(void *arg, struct xvbd_stats_vbdinfo **vbds, size_t *n);
	/*
	 * Has the VBD set changed since the last vbds() call?  Must be
	 * cheap: no system call when nothing happened.
	 */
	bool (*vbds_changed)(void *arg);
	/* Optional: cumulative time of each vCPU (same rules as domains). */
	int (*vcpus)(void *arg, uint32_t domid, uint64_t *cpu_ns, size_t cap,
		     size_t *n);
	void (*close)(void *arg);	/* optional */
	void *arg;
};

/* ---- samples ---- */

enum xvbd_stats_iv {
	XVBD_IV_OK,		/* rates valid */
	XVBD_IV_NEW,		/* first sight: no previous value */
	XVBD_IV_RESET,		/* counters went back / re-attached */
	XVBD_IV_IMPOSSIBLE,	/* CPU time beyond 100% x vCPUs x wall */
};
const char *xvbd_stats_iv_name(enum xvbd_stats_iv iv);

struct xvbd_stats_dom {
	uint32_t domid;
	char name[XVBD_STATS_NAME_MAX];
	uint32_t vcpus;
	uint64_t mem_bytes;
	uint64_t cpu_ns;		/* cumulative */
	enum xvbd_stats_iv cpu_iv;
	double cpu_pct;			/* valid if cpu_iv == XVBD_IV_OK */
	/* Only with opts.vcpus: per-vCPU (NULL/0 otherwise). */
	size_t nvcpu;
	uint64_t *vcpu_ns;
	double *vcpu_pct;
	bool *vcpu_pct_known;
};

/* Rings of one VBD followed at most (blkback: max_queues, one per vCPU). */
#define XVBD_STATS_RINGS_MAX	32
/* BLKIF_MAX_SEGMENTS_PER_REQUEST of 4 KiB pages: no indirect descriptors. */
#define XVBD_BLKIF_DIRECT_SEGMENTS	11
#define XVBD_BLKIF_SEGMENT_KIB		4

/* One ring's kernel thread (blkback's xenblkd "<domid>.<dev>-<ring>"). */
struct xvbd_stats_ring {
	uint32_t ring;
	int pid;
	uint64_t cpu_ns;		/* cumulative run time (schedstat) */
	enum xvbd_stats_iv iv;
	double cpu_pct;			/* % of one CPU, valid if OK */
};

struct xvbd_stats_vbd {
	uint32_t domid;
	char domain[XVBD_STATS_NAME_MAX];
	char vdev[XVBD_STATS_VDEV_MAX];
	uint32_t devid;
	struct xvbd_blkback_counters raw;	/* cumulative */
	enum xvbd_stats_iv iv;
	/* Per second over the interval; valid if iv == XVBD_IV_OK. */
	double rd_req_s, wr_req_s, f_req_s, ds_req_s, oo_req_s;
	double rd_bytes_s, wr_bytes_s;
	/* Backing block device (phy, loop-backed file), when visible. */
	bool has_blk;
	unsigned blk_major, blk_minor;
	struct xvbd_blkstat blk_raw;		/* cumulative */
	enum xvbd_stats_iv blk_iv;
	bool rd_lat_known, wr_lat_known;	/* no I/O: unknown */
	double rd_lat_ms, wr_lat_ms;		/* average per I/O */
	double queue_depth;			/* average requests queued */
	/*
	 * Backend CPU: blkback's ring threads.  be_known: threads found
	 * (be_cpu_ns is their cumulative sum); be_iv says whether the
	 * interval's rates are valid (a ring whose thread went or came is
	 * a reset).  Per request over all kinds (rd+wr+flush+discard).
	 */
	bool be_known;
	size_t nrings;
	struct xvbd_stats_ring rings[XVBD_STATS_RINGS_MAX];
	uint64_t be_cpu_ns;
	enum xvbd_stats_iv be_iv;
	double be_cpu_pct;
	bool be_us_per_req_known;
	double be_us_per_req;
	/* KiB per request over the interval (no request: unknown). */
	bool rd_kib_known, wr_kib_known;
	double rd_kib_per_req, wr_kib_per_req;
	/*
	 * The largest request the backend's offer allows: 11 x 4 KiB
	 * without indirect descriptors, the offered segments x 4 KiB with
	 * them (blkfront may use fewer: its limit is not published).
	 */
	bool ceiling_known;
	uint32_t ceiling_segments;
	double ceiling_kib;
	double rd_ceiling_pct, wr_ceiling_pct;	/* share used, if known */
	/* Latency of the backing device's requests: see sample.lat. */
	enum xvbd_lat_state lat_state;
};

struct xvbd_stats_sample {
	uint64_t seq;			/* 0 for the baseline */
	uint64_t mono_ns;		/* CLOCK_MONOTONIC of the sample */
	uint64_t interval_ns;		/* since the previous; 0 baseline */
	int64_t realtime_ns;		/* CLOCK_REALTIME, for timestamps */
	struct xvbd_stats_dom *doms;
	size_t ndoms;
	struct xvbd_stats_vbd *vbds;
	size_t nvbds;
	/*
	 * The domains the filter leaves out (opts.domains): how many are in
	 * this sample's domain list, and their CPU time since the first
	 * sample, summed over the intervals each was seen at both ends of
	 * (one that came counts from its first sight, one replaced under
	 * its domid starts over, one that went keeps what it used).  From
	 * the same one call as the rest: no cost of its own.
	 */
	size_t left_out_doms;
	uint64_t left_out_cpu_ns;
	/* Set when the VBD list was re-read before this sample. */
	bool rediscovered;
	/*
	 * Latency (opts.latency): lat[i] is vbds[i]'s backing device's
	 * requests over the interval's slots (lat_trace.h); lat_on false
	 * and lat_unavailable saying why when it could not be set up.
	 */
	bool lat_asked, lat_on;
	char lat_unavailable[192];
	struct xvbd_lat_result *lat;
	/* The same devices' requests since tracking began (Prometheus'
	 * cumulative histograms). */
	struct xvbd_lat_result *lat_total;
	size_t cap_doms, cap_vbds, cap_lat;	/* internal: allocated */
};

void xvbd_stats_sample_free(struct xvbd_stats_sample *s);

/* ---- the sampler ---- */

struct xvbd_stats_opts {
	/* Domain names to keep; ndomains 0 keeps all (dom0 included). */
	const char *const *domains;
	size_t ndomains;
	bool vcpus;			/* per-vCPU times (costs a call each) */
	/*
	 * Per-request latency of the backing devices, in the kernel
	 * (lat_trace.h), over slots of interval_ns.  Unavailable (no
	 * tracefs, no root...) is no error: the sample says why.
	 */
	bool latency;
	uint64_t interval_ns;
};

struct xvbd_stats;

/*
 * Takes ownership of nothing: src and sys must outlive the handle.  The
 * VBD list is read here (-errno if the source fails).
 */
int xvbd_stats_open(const struct xvbd_stats_source *src,
		    struct xvbd_sysfs *sys, const struct xvbd_stats_opts *opts,
		    struct xvbd_stats **out);
/*
 * Take one sample into s (arrays reused across calls).  0 or -errno;
 * a VBD whose files vanish is dropped from the sample, not an error.
 */
int xvbd_stats_sample(struct xvbd_stats *st, struct xvbd_stats_sample *s);
/* Monotonic clock as used for samples. */
uint64_t xvbd_stats_now_ns(void);
/*
 * With latency: when the first interval that latency covers whole may
 * begin (its first slot, plus the reader's slack), and the deadline of
 * the sample after t (the end of the slot t is in): a sampler that
 * samples then gets each interval's slots exactly.  Without: t itself.
 */
uint64_t xvbd_stats_lat_start_ns(const struct xvbd_stats *st, uint64_t t);
uint64_t xvbd_stats_lat_deadline_ns(const struct xvbd_stats *st, uint64_t t);
/*
 * When a sampler waiting for deadline (CLOCK_MONOTONIC ns) wakes first:
 * the deadline, or with latency at most 250 ms from now, to read the
 * kernel's records so far with xvbd_stats_lat_drain() (held for their
 * interval), so that its buffers never fill between two samples.
 * st may be NULL (the deadline).
 */
uint64_t xvbd_stats_wake_ns(const struct xvbd_stats *st, uint64_t now,
			    uint64_t deadline);
void xvbd_stats_lat_drain(struct xvbd_stats *st);
/*
 * With latency: when every VBD's device tracked so far is counted in
 * whole slots (one that joined at the last sample, a disk hot-attached
 * after the session began, is counted from the slot after it); 0
 * without latency or device.
 */
uint64_t xvbd_stats_lat_whole_from_ns(const struct xvbd_stats *st);
/* Warnings collected by the last sample (impossible CPU%, ...). */
size_t xvbd_stats_nwarnings(const struct xvbd_stats *st);
const char *xvbd_stats_warning(const struct xvbd_stats *st, size_t i);
void xvbd_stats_close(struct xvbd_stats *st);		/* NULL ok */

/* ---- pure rate math (unit tested) ---- */

/*
 * Delta of a counter of the given bit width (64 or 32).  A 32-bit
 * counter that went back by less than half its range wrapped; anything
 * else that went back was reset.  Returns XVBD_IV_OK or XVBD_IV_RESET.
 */
enum xvbd_stats_iv xvbd_stats_delta(uint64_t prev, uint64_t cur,
				    unsigned bits, uint64_t *delta);
/* delta per second over interval_ns; 0 if interval_ns is 0. */
double xvbd_stats_per_s(uint64_t delta, uint64_t interval_ns);
/*
 * CPU% of a domain: cpu time delta / wall delta x 100.  slack_ns is how
 * uncertain the wall interval is (the time the two domain-list calls
 * took).  A value above 100 x vcpus that the slack explains is clamped
 * to 100 x vcpus; beyond it the interval is XVBD_IV_IMPOSSIBLE.
 */
enum xvbd_stats_iv xvbd_stats_cpu_pct(uint64_t prev_ns, uint64_t cur_ns,
				      uint64_t interval_ns, uint64_t slack_ns,
				      uint32_t vcpus, double *pct);
/* Blkback counters: all deltas at once, or XVBD_IV_RESET. */
enum xvbd_stats_iv xvbd_stats_vbd_rates(const struct xvbd_blkback_counters *a,
					const struct xvbd_blkback_counters *b,
					uint64_t interval_ns,
					struct xvbd_stats_vbd *out);
/* Backing device: latencies and queue depth, or XVBD_IV_RESET. */
enum xvbd_stats_iv xvbd_stats_blk_rates(const struct xvbd_blkstat *a,
					const struct xvbd_blkstat *b,
					uint64_t interval_ns,
					struct xvbd_stats_vbd *out);

/*
 * Request sizes and the ceiling share of v from the interval's deltas
 * (pure; unit tested): KiB/req = Delta sectors x 512 / Delta requests.
 */
void xvbd_stats_req_sizes(const struct xvbd_blkback_counters *a,
			  const struct xvbd_blkback_counters *b,
			  struct xvbd_stats_vbd *v);
/* The ceiling for an offer of segments (0: no indirect descriptors). */
uint32_t xvbd_stats_ceiling_segments(uint32_t indirect_offer);

/* ---- rendering (src/stats_render.c) ---- */

enum xvbd_stats_fmt {
	XVBD_STATS_TEXT,	/* a table per sample, blank line between */
	XVBD_STATS_JSON,	/* one JSON object per line (JSON Lines) */
	XVBD_STATS_CSV,		/* header once (first), a row per entry */
	XVBD_STATS_LIVE,	/* text, clearing the terminal first */
};

/*
 * Render one sample and flush f.  Text and JSON through the out layer;
 * all formats print the same digits for the same field.  0 or -1 when
 * writing failed.
 */
int xvbd_stats_render(FILE *f, enum xvbd_stats_fmt fmt,
		      const struct xvbd_stats_sample *s, bool first);
/*
 * What every latency figure rests on, stated once for every output: the
 * trace clock under clock_key, the percentiles' error under error_key
 * (JSON: the fraction; text: a sentence ending in what).
 */
struct xvbd_out;
void xvbd_stats_lat_statement(struct xvbd_out *o, const char *clock_key,
			      const char *error_key, const char *what);
/* node_exporter textfile format (counters + last-interval gauges). */
void xvbd_stats_prom_render(FILE *f, const struct xvbd_stats_sample *s);
/* Atomically: a temporary file beside path, then rename.  0 / -errno. */
int xvbd_stats_prom_write(const char *path,
			  const struct xvbd_stats_sample *s);

/* ---- the real source: libxl + xenstore (src/stats_sys.c) ---- */

struct xvbd_tstack;
struct xvbd_xs;

/* Fills src; 0 or -errno (e.g. the watch could not be set). */
int xvbd_stats_sys_source(struct xvbd_tstack *ts, struct xvbd_xs *xs,
			  struct xvbd_stats_source *src);

#endif /* XVBD_STATS_H */
