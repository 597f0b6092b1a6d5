/*
 * ab.h - the A/B layer: records of labelled runs, their environment
 * fingerprints, run summaries and the comparison of two labels.
 *
 * A record is one run: raw cumulative counters sampled by the stats layer
 * (never rates: every number `ab compare` prints is recomputed from them)
 * plus a fingerprint of the environment, read from the system.  One JSON
 * file per record (yajl), written atomically: a temporary file in the
 * same directory, fsync, rename, fsync of the directory.  A reader
 * rejects anything it did not write (format, version, types, ranges) with
 * one line naming the file.
 *
 *	src/ab_record.c		the record model, JSON write/read, the store
 *				(directory of records: list, find by label/id)
 *	src/ab_summary.c	run summaries from raw counters
 *	src/ab_fp.c		fingerprint facts, diff, confounder texts
 *	src/ab_compare.c	two labels -> per-metric verdicts + warnings
 *	src/ab_verdict.c	... one metric's decision (xvbd/ab_verdict.h)
 *	src/ab_compare_pair.c	... paired, equivalence, runs needed
 *	src/ab_compare_words.c	... a verdict and its numbers in words
 *	src/ab_compare_render.c	... rendered through the out layer
 *	src/ab_plot.c		two labels' runs as SVG (xvbd/ab_plot.h)
 *	src/ab_sys.c		fingerprint collection from the running system
 *				(xenstore, libxl, sysfs: the only ab file that
 *				talks to them)
 *	src/ab_stat.c, ab_stat_dist.c, ab_stat_fieller.c,
 *	ab_stat_pair.c, ab_seq.c
 *				the statistics (xvbd/ab_stat.h)
 *
 * Functions return 0 or a negative errno.  Those that can fail on outside
 * input take a struct xvbd_ab_err for a one-line reason.
 */
#ifndef XVBD_AB_H
#define XVBD_AB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "xvbd/ab/ab_verdict.h"
#include "xvbd/base/vocab.h"
#include "xvbd/dom0/sysfs.h"
#include "xvbd/workload/workload.h"

#define XVBD_AB_FORMAT		"xvbd-ab-record"
#define XVBD_AB_VERSION		1
#define XVBD_AB_DIR_DEFAULT	"/var/lib/xvbd/ab"
#define XVBD_AB_LABEL_MAX	64
#define XVBD_AB_ID_MAX		128
#define XVBD_AB_PAIR_MAX	100000
/* Levels of one experiment (ab_sweep.h); a run's position in its block. */
#define XVBD_AB_LEVELS_MAX	16

struct xvbd_ab_lat;

struct xvbd_ab_err {
	char msg[512];
};

/* ---- fingerprint: facts read from the system ---- */

/*
 * A fingerprint is a set of facts "key" -> "value", kept sorted by key.
 * Keys (dotted, lower case) and what xvbd records under them:
 *	xen.version		"4.17.7" (libxl version info)
 *	host.cpus		physical CPUs
 *	dom0.kernel		uname release and version
 *	dom0.vcpus, dom0.mem_bytes, dom0.pinning ("all" or a CPU list)
 *	dom0.clocksource	current_clocksource
 *	guest.type		"pv", "pvh", "hvm"
 *	guest.vcpus, guest.mem_bytes, guest.pinning
 *	blkback.<param>		each xen_blkback module parameter
 *	vbd.<vdev>.backend	"phy", "file via loop", "qdisk", ...
 *	vbd.<vdev>.target	the backend's params
 *	vbd.<vdev>.size_bytes	sectors x sector-size from the backend
 *	vbd.<vdev>.dom0_cache	"host" (dom0's page cache can serve its
 *				I/O: loop without direct I/O, or a file served
 *				by qdisk with caching), "none" (direct I/O),
 *				"n/a" (phy of a real device)
 *	vbd.<vdev>.ring_pages, .queues, .indirect_segments,
 *	vbd.<vdev>.persistent_grants, .discard	negotiated (both sides)
 *	vbd.<vdev>.offer.ring_order, .offer.queues, .offer.indirect_segments,
 *	vbd.<vdev>.offer.persistent_grants, .offer.discard	the backend's
 *				offers; .offer.overridden: one below blkback's
 *	vbd.<vdev>.dev.number, .dev.logical_block_size,
 *	vbd.<vdev>.dev.physical_block_size, .dev.rotational, .dev.scheduler,
 *	vbd.<vdev>.dev.fstype	the device the data lives on
 *	guest.cmdline, guest.blkfront.<name>	the guest kernel's command
 *				line and each xen_blkfront.<name> on it
 *	vbd.<vdev>.path		"pv" (frontend Connected) or how it stands
 *	workload		the command, or "duration 30s", ...
 *	xvbd.version
 * Values are printable ASCII (control bytes escaped on the way in).
 */
struct xvbd_ab_fact {
	char *key;
	char *value;
};

struct xvbd_ab_fp {
	struct xvbd_ab_fact *facts;
	size_t n, cap;
};

/*
 * The SHA-256 of the xl config file an ab run's guest was created from
 * (its bytes as read at the experiment's start).  A and B may differ in
 * it by design (what differs in the guest is recorded as its own facts);
 * runs of one label may not.
 */
#define XVBD_AB_FP_CONFIG_KEY	"guest.config_sha256"

/* Set (replace) a fact; the value is formatted. */
int xvbd_ab_fp_set(struct xvbd_ab_fp *fp, const char *key,
		   const char *fmt, ...) __attribute__((format(printf, 3, 4)));
const char *xvbd_ab_fp_get(const struct xvbd_ab_fp *fp, const char *key);
void xvbd_ab_fp_free(struct xvbd_ab_fp *fp);

/* One fact that differs between two fingerprints (NULL: absent). */
struct xvbd_ab_fpdiff {
	const char *key;
	const char *a, *b;
	const char *distorts;	/* what it may distort, from the table */
	/*
	 * Set by xvbd_ab_fp_relate().  follows: the key of another
	 * difference this one is a consequence of (a frontend's choice of a
	 * changed offer, a command line whose xen_blkfront.* words
	 * changed), NULL when it stands on its own.
	 */
	const char *follows;
	/*
	 * An offer (vbd.<vdev>.offer.*) that differs while the frontend's
	 * choice is the same on both sides: the change did not take effect.
	 * choice is that value, refused_by the side that refused it
	 * ("frontend"), parameter what would let it (NULL: none exists).
	 */
	bool not_taken;
	const char *choice;
	const char *refused_by;
	const char *parameter;
};

/*
 * Differences between fingerprints a and b, sorted by key; *out
 * malloc'd (free it), pointers into a, b and the static table.
 */
int xvbd_ab_fp_diff(const struct xvbd_ab_fp *a, const struct xvbd_ab_fp *b,
		    struct xvbd_ab_fpdiff **out, size_t *n);
/* The confounder text for a key ("guest vCPUs differ: ..."). */
const char *xvbd_ab_fp_distorts(const char *key);
/*
 * One line for a difference: "vbd.xvdb.dom0_cache: A host (dom0's page
 * cache can serve reads), B n/a (phy): <what it may distort>".  -ENOSPC
 * when cut to fit buf.
 */
int xvbd_ab_fp_diff_text(const struct xvbd_ab_fpdiff *d, char *buf,
			 size_t len);
/*
 * Mark how the differences d[n] of fingerprints a and b hang together
 * (follows, not_taken; src/ab_fp_offer.c).  Returns how many stand on
 * their own.
 */
size_t xvbd_ab_fp_relate(const struct xvbd_ab_fp *a,
			 const struct xvbd_ab_fp *b,
			 struct xvbd_ab_fpdiff *d, size_t n);
/*
 * For a not_taken difference, one sentence: "vbd.xvda.offer.ring_order:
 * B offered ring order 2 (A 0); the frontend chose 1 ring page on both
 * sides: its limit, the guest kernel's xen_blkfront.max_ring_page_order,
 * refused it: the change never took effect".  -EINVAL when d is not
 * not_taken, -ENOSPC when cut to fit buf.
 */
int xvbd_ab_fp_not_taken_text(const struct xvbd_ab_fpdiff *d, char *buf,
			      size_t len);

/* ---- the record ---- */

/* One VBD at one sample: cumulative counters as read. */
struct xvbd_ab_vbd_sample {
	struct xvbd_blkback_counters c;	/* blkback's statistics */
	/* The stats layer saw a new counter instance since the previous
	 * sample (re-attach, re-connect): its deltas are not usable. */
	bool reset;
	bool has_blk;			/* backing device stat seen */
	uint64_t blk_rd_ios, blk_wr_ios;
	uint64_t blk_rd_ticks_ms, blk_wr_ticks_ms;	/* 32-bit, wrap */
	/*
	 * The backing device's busy time (io_ticks, ms, 32-bit): it tells
	 * the busy span that a request dispatched in one interval was still
	 * being served in the next.  Absent from older records.
	 */
	bool has_io_ticks;
	uint64_t blk_io_ticks_ms;
	/*
	 * The backing device's sectors read and written (512 bytes, as
	 * blkback's rd_sect/wr_sect): unlike its I/O counts they are not
	 * changed by the block layer merging or splitting requests, so they
	 * tell another user of the device from merges.  Absent from older
	 * records.
	 */
	bool has_blk_sect;
	uint64_t blk_rd_sect, blk_wr_sect;
	/*
	 * A file via loop: the sectors the device holding the file read
	 * and wrote (its stat; shared with whatever else that filesystem
	 * serves).  The loop device counts every request; this one only
	 * what dom0's page cache did not serve.  Absent for other backends
	 * and from older records.
	 */
	bool has_file_dev;
	uint64_t file_dev_rd_sect, file_dev_wr_sect;
	/*
	 * blkback's ring threads: their CPU time summed (ns, schedstat);
	 * has_be false when none was found (unknown, not 0).  be_reset:
	 * the set of threads changed since the previous sample (a ring
	 * went or came), so this interval's backend delta is not usable.
	 */
	bool has_be;
	uint64_t be_cpu_ns;
	bool be_reset;
};

struct xvbd_ab_sample {
	uint64_t t_ns;			/* monotonic, since the baseline */
	uint64_t guest_cpu_ns;		/* cumulative, all vCPUs */
	uint64_t dom0_cpu_ns;
	uint32_t guest_vcpus, dom0_vcpus;	/* online at this sample */
	struct xvbd_ab_vbd_sample *vbds;	/* record's nvdevs entries */
	/*
	 * Every other domain (not dom0, not the guest): their CPU time
	 * summed since the recorder's first look (ns, cumulative; each
	 * domain over the time it was seen) and how many there were at
	 * this sample.  has_others false: unknown (records written before
	 * it), never 0.
	 */
	bool has_others;
	uint64_t others_cpu_ns;
	uint32_t others_doms;
};

enum xvbd_ab_mode {
	XVBD_AB_MODE_DURATION,		/* --duration S */
	XVBD_AB_MODE_RUN,		/* --run CMD */
	XVBD_AB_MODE_UNTIL_SHUTDOWN,	/* --until-shutdown */
};
const char *xvbd_ab_mode_name(enum xvbd_ab_mode m);

struct xvbd_ab_record {
	char *id;			/* file name without ".json" */
	char *label;
	int64_t started_unix_ns;	/* wall clock at the baseline */
	char *domain;			/* name at record time */
	char **vdevs;
	size_t nvdevs;
	enum xvbd_ab_mode mode;
	char *workload;			/* command or "duration 30s" */
	int workload_status;		/* --run: exit status; else 0 */
	uint64_t interval_ns, warmup_ns;
	bool complete;			/* ended as planned */
	struct xvbd_ab_fp fp;
	struct xvbd_ab_sample *samples;	/* [0] is the baseline */
	size_t nsamples, cap_samples;
	char **notes;			/* recorder's warnings */
	size_t nnotes;
	/*
	 * ab run: the experiment this run belongs to (an id made at its
	 * start, shared by all its levels' runs) and its block, from 1
	 * (JSON "pair": with two levels a block is an ABBA pair): the
	 * runs of one block ran next to each other, so their ratio is
	 * free of the drift between blocks (ab compare's paired
	 * analysis).  NULL and 0 for a run recorded alone (ab record).
	 * position: where in its block it ran, from 1 (the balanced
	 * order, ab_sweep.h); 0 in records written before it.
	 */
	char *experiment;
	uint32_t pair;			/* 1..XVBD_AB_PAIR_MAX */
	uint32_t position;		/* 0, or 1..XVBD_AB_LEVELS_MAX */
	char *path;			/* where it was read from / written */
	/* With --latency: the VBDs' backing devices' latency (ab_lat.h);
	 * NULL in a run recorded without, and in older records. */
	struct xvbd_ab_lat *lat;
	/*
	 * --run: what the command printed on stdout, read: fio's report,
	 * benchmark lines, or why there are none (xvbd/workload/
	 * workload.h).  NULL for the other modes and for records written
	 * before it was kept.
	 */
	struct xvbd_wl_results *results;
	/*
	 * Read from a path named on purpose that is not root's alone (a
	 * directory, link or the file someone else could change): why,
	 * with the file's owner, for the caller's warning.  Else NULL.
	 */
	char *untrusted;
};

/* Labels and ids: [A-Za-z0-9._-], 1..64 bytes, not led by '.' or '-'. */
bool xvbd_ab_label_valid(const char *label);
/* "<label>-<UTC yyyymmddThhmmss>-<4 hex>"; buf XVBD_AB_ID_MAX. */
int xvbd_ab_make_id(const char *label, int64_t unix_ns, char *buf,
		    size_t len);

/* Append a sample (deep copy of s->vbds, rec->nvdevs entries). */
int xvbd_ab_record_add(struct xvbd_ab_record *rec,
		       const struct xvbd_ab_sample *s);
int xvbd_ab_record_note(struct xvbd_ab_record *rec, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void xvbd_ab_record_free(struct xvbd_ab_record *rec);

/* JSON, one document (the file's content). *json malloc'd. */
int xvbd_ab_record_to_json(const struct xvbd_ab_record *rec, char **json,
			   size_t *len);
/* Parse and validate; e->msg says what is wrong ("samples[3].t_ns: ..."). */
int xvbd_ab_record_from_json(const char *json, size_t len,
			     struct xvbd_ab_record *rec,
			     struct xvbd_ab_err *e);

/* ---- the store: a directory of records ---- */

/*
 * A store is trusted as root trusts a path (xvbd/base/safepath.h): the
 * directory, every directory on the way and every link owned by root (or
 * the user xvbd runs as) and not writable by group or others (no sticky
 * /tmp either: anyone could add records there); each record file in it
 * root's and not writable by others, never a symbolic link.  Writing and
 * reading by id, label or list refuse a store or record that is not.  A
 * record file named by its path is read anyway, as asked, with
 * rec->untrusted saying why it may be someone else's.
 */
/* Create dir (0700, parents as needed) when missing; check it. */
int xvbd_ab_store_ensure(const char *dir, struct xvbd_ab_err *e);
/*
 * Write rec as dir/<id>.json atomically (O_EXCL temporary beside it,
 * fsync, rename without replacing an existing record, fsync dir).
 * Sets rec->path.
 */
int xvbd_ab_store_write(const char *dir, struct xvbd_ab_record *rec,
			struct xvbd_ab_err *e);
/*
 * Read one file; e names the file and the problem.  in_store: a path
 * xvbd_ab_store_list gave (the store was checked): the file must be
 * trusted.  Else a path named on purpose: see rec->untrusted.
 */
int xvbd_ab_store_read(const char *path, bool in_store,
		       struct xvbd_ab_record *rec, struct xvbd_ab_err *e);
/*
 * The record files of dir (names ending ".json", not hidden), sorted by
 * start time then id.  Temporary files of an interrupted write are not
 * records.  *paths malloc'd, each entry too.
 */
int xvbd_ab_store_list(const char *dir, char ***paths, size_t *n,
		       struct xvbd_ab_err *e);
/*
 * What a command-line operand names: a record file path, a record id, or
 * a label (every record with that label), in that order.  Reads them.
 * -ENOENT with e->msg when nothing matches.
 */
int xvbd_ab_store_select(const char *dir, const char *what,
			 struct xvbd_ab_record **recs, size_t *n,
			 struct xvbd_ab_err *e);
void xvbd_ab_records_free(struct xvbd_ab_record *recs, size_t n);

/* ---- run summaries ---- */

enum xvbd_ab_metric {
	XVBD_AB_RD_IOPS,	/* read requests / s (blkback rd_req) */
	XVBD_AB_WR_IOPS,
	XVBD_AB_RD_MBS,		/* MB/s = 10^6 bytes / s (rd_sect x 512) */
	XVBD_AB_WR_MBS,
	XVBD_AB_RD_LAT_MS,	/* backing device: rd_ticks / rd_ios */
	XVBD_AB_WR_LAT_MS,
	XVBD_AB_GUEST_CPU,	/* % of one CPU (xentop's CPU(%)) */
	XVBD_AB_DOM0_CPU,
	XVBD_AB_BE_CPU,		/* blkback's ring threads, % of one CPU */
	XVBD_AB_BE_US_PER_REQ,	/* their CPU time per request, all kinds */
	XVBD_AB_RD_KIB_PER_REQ,	/* rd_sect x 512 / rd_req, KiB */
	XVBD_AB_WR_KIB_PER_REQ,
	/*
	 * How long the work took, the honest figure for fixed-size work:
	 * the run itself (--run: baseline to the command's end;
	 * --until-shutdown: to the shutdown; unknown for --duration, whose
	 * length is chosen) and its busy span (below).
	 */
	XVBD_AB_SECONDS,
	XVBD_AB_BUSY_SECONDS,
	/*
	 * With --latency (ab_lat.h): the run's backing devices' service
	 * time (d2c) of every request, all recorded VBDs merged: its p50,
	 * p99 and maximum, per direction (ms).
	 */
	XVBD_AB_RD_P50_MS,
	XVBD_AB_RD_P99_MS,
	XVBD_AB_RD_MAX_MS,
	XVBD_AB_WR_P50_MS,
	XVBD_AB_WR_P99_MS,
	XVBD_AB_WR_MAX_MS,
	/*
	 * The guest's own figures, from the workload's results (--run's
	 * stdout: xvbd/workload/workload.h; src/ab/ab_guest.c), unknown
	 * in runs without them.  fio: IO/s and MB/s over its jobs (fio's
	 * own with one job), completion latency in ms: the mean, p50, p99,
	 * p99.9 (each run's own summary) and the largest.
	 */
	XVBD_AB_G_RD_IOPS,
	XVBD_AB_G_WR_IOPS,
	XVBD_AB_G_RD_MBS,
	XVBD_AB_G_WR_MBS,
	XVBD_AB_G_RD_CLAT,
	XVBD_AB_G_RD_P50,
	XVBD_AB_G_RD_P99,
	XVBD_AB_G_RD_P999,
	XVBD_AB_G_RD_CLAT_MAX,
	XVBD_AB_G_WR_CLAT,
	XVBD_AB_G_WR_P50,
	XVBD_AB_G_WR_P99,
	XVBD_AB_G_WR_P999,
	XVBD_AB_G_WR_CLAT_MAX,
	/*
	 * benchfmt: each benchmark's unit is a metric, in a slot of its
	 * direction (xvbd_wl_bench_better), the first ones the output names
	 * first; xvbd_ab_bench_slot() says which benchmark and unit.
	 */
	XVBD_AB_BENCH_LOWER1,
	XVBD_AB_BENCH_LOWER2,
	XVBD_AB_BENCH_LOWER3,
	XVBD_AB_BENCH_LOWER4,
	XVBD_AB_BENCH_HIGHER1,
	XVBD_AB_BENCH_HIGHER2,
	XVBD_AB_BENCH_HIGHER3,
	XVBD_AB_BENCH_HIGHER4,
	XVBD_AB_NMETRICS,
};
#define XVBD_AB_BENCH_SLOTS	4	/* per direction */
/* The guest's own metrics (results), fio's and benchfmt's. */
bool xvbd_ab_metric_is_guest(enum xvbd_ab_metric m);
/* IO/s and MB/s: the metrics that have a busy-span and a window form. */
bool xvbd_ab_metric_is_rate(enum xvbd_ab_metric m);
/*
 * The latency metrics: only in runs recorded with --latency, so left
 * out of a comparison's default set when no run has them.
 */
bool xvbd_ab_metric_is_latency(enum xvbd_ab_metric m);
/*
 * The metrics shown when none is named: all, but the latency ones only
 * when a run of recs[0..n) has latency.
 */
void xvbd_ab_metrics_default(const struct xvbd_ab_record *recs, size_t n,
			     bool *shown);

/*
 * A metric is a quantity of the vocabulary (xvbd/base/vocab.h: its name,
 * which --metric takes and every document prints, and its unit) with
 * what a comparison needs to know of it.
 */
struct xvbd_ab_metric_info {
	enum xvbd_q q;
	bool higher_is_better;
	int decimals;		/* in text */
};
extern const struct xvbd_ab_metric_info xvbd_ab_metrics[XVBD_AB_NMETRICS];

static inline const char *xvbd_ab_metric_name(int m)
{
	return xvbd_q_name(xvbd_ab_metrics[m].q);
}

static inline const char *xvbd_ab_metric_unit(int m)
{
	return xvbd_q_unit(xvbd_ab_metrics[m].q);
}

/*
 * By name, or by an earlier name of its quantity (*old true then, for a
 * deprecation note; old may be NULL); -1 when neither names a metric.
 */
int xvbd_ab_metric_find(const char *name, bool *old);

/*
 * The busy span of a run: the intervals counted from the first to the
 * last one in which a VBD of the record had requests (flush and discard
 * included) or its backing device was busy (io_ticks grew: blkback
 * counts a request when it takes it off the ring, and a slow one is
 * still being served in the intervals after), at the record's sampling
 * step.  It is what a fixed-size workload's rate is taken over: a rate
 * over the whole window falls with every idle second the recording
 * waited around the work.  Not the io_ticks themselves: they leave out
 * the time requests spend in blkfront, on the ring and in blkback, which
 * the guest waits for too, so they would overstate the rate the guest
 * sees (a page-cache hit takes the loop device microseconds).
 */
struct xvbd_ab_summary {
	/* IO/s and MB/s over the busy span; the rest over the window */
	double value[XVBD_AB_NMETRICS];
	bool known[XVBD_AB_NMETRICS];	/* no I/O of a kind: latency unknown */
	/* Every metric over the window (the intervals counted). */
	double window[XVBD_AB_NMETRICS];
	uint64_t used_ns;		/* time of the intervals counted */
	uint64_t busy_ns;		/* the busy span; 0: no I/O */
	size_t nintervals, nflagged;	/* flagged: left out */
	size_t nreset;			/* counters went back / new instance */
};

/*
 * Summarise a run: per metric, Delta counter / Delta time over the
 * record's intervals, summed (never a mean of per-sample rates).  An
 * interval is left out when any VBD's counter went back or was reset,
 * and when a domain's CPU time outran wall time x its vCPUs (flagged: a
 * time-base problem makes every rate of that interval wrong).
 */
int xvbd_ab_summarize(const struct xvbd_ab_record *rec,
		      struct xvbd_ab_summary *out);

/*
 * One interval of a record, samples[i - 1] .. samples[i] (1 <= i <
 * nsamples), as xvbd_ab_summarize() judges it: its rates (same units as
 * the summary) for `ab plot`'s time series.  XVBD_AB_IV_RESET and
 * _FLAGGED intervals carry no rates; why says what happened.
 */
enum xvbd_ab_iv {
	XVBD_AB_IV_OK,
	XVBD_AB_IV_RESET,	/* counters went back / new instance */
	XVBD_AB_IV_FLAGGED,	/* CPU time beyond wall x vCPUs, or time
				   did not advance */
};

struct xvbd_ab_interval {
	enum xvbd_ab_iv status;
	const char *why;		/* static text; NULL when OK */
	uint64_t t_ns;			/* end of the interval */
	uint64_t dt_ns;
	double value[XVBD_AB_NMETRICS];
	bool known[XVBD_AB_NMETRICS];
};

int xvbd_ab_interval_get(const struct xvbd_ab_record *rec, size_t i,
			 struct xvbd_ab_interval *out);

/* ---- the guest's own figures (src/ab/ab_guest.c) ---- */

/*
 * The guest metrics of a run from its results (XVBD_AB_G_*, the bench
 * slots): known only where the results hold them; the same over the
 * busy span and the window (the guest measured its own time).
 */
void xvbd_ab_guest_summarize(const struct xvbd_ab_record *rec,
			     struct xvbd_ab_summary *out);
/*
 * The benchmark a bench slot m holds in rec: its name and unit, and the
 * mean of its values over the lines that give it (go test -count=N
 * prints N).  false when the slot is empty.
 */
bool xvbd_ab_bench_slot(const struct xvbd_ab_record *rec,
			enum xvbd_ab_metric m, const char **name,
			const char **unit, double *mean);
/*
 * The workload's own facts into fp (XVBD_AB_FP_WORKLOAD_PREFIX...):
 * fio's version and each job's options that shape its I/O (rw,
 * bs/bssplit, iodepth, numjobs, ioengine, direct, size, filename,
 * rwmixread, runtime, time_based; a job's own over the global ones),
 * the benchmarks in their slots and benchfmt's configuration.
 */
#define XVBD_AB_FP_WORKLOAD_PREFIX	"workload."
int xvbd_ab_fp_add_results(struct xvbd_ab_fp *fp,
			   const struct xvbd_wl_results *r);
/*
 * One line for the workload facts that differ between a and b: "fio's
 * jobs differ: A ran rw=randread bs=1k, B rw=randread bs=4k: ...".
 * -ENOENT when none differs, -ENOSPC when cut.
 */
int xvbd_ab_workload_diff_text(const struct xvbd_ab_fp *a,
			       const struct xvbd_ab_fp *b, char *buf,
			       size_t len);
/*
 * JSON+'s completion latency bins of direction dir, summed over the
 * runs recs[n] (a label's merged distribution): *out (free it with
 * xvbd_wl_hist_free), *nruns the runs that had bins.
 */
int xvbd_ab_merged_clat(const struct xvbd_ab_record *recs, size_t n,
			enum xvbd_wl_dir dir, struct xvbd_wl_hist *out,
			size_t *nruns);

/* ---- where each I/O went (src/ab/ab_account.c) ---- */

/*
 * A run's I/O counted three times, over its intervals that were not
 * reset and summed over its VBDs: by the guest's workload (fio's bytes
 * and I/Os, from the results), by blkback (requests and 512-byte
 * sectors), by the backing device (its sectors, where recorded); and
 * the two clocks: fio's runtime (the guest's) and the command's life in
 * dom0's time.  Bytes decide, not request counts, which merges and splits
 * change.  Flags (each a line of xvbd_ab_account_text):
 *	elsewhere	a fio job's /dev/xvdX is no recorded VBD
 *	cached		the device read less than blkback served, by more
 *			than 10 % and 1 MiB: dom0's page cache served it
 *	guest_more	fio counted more bytes than blkback saw (another
 *			disk, the guest's page cache)
 *	blkback_more	blkback saw more bytes than fio (other I/O)
 *	clock_fast	fio's runtime longer than the command's life in
 *			dom0 by more than 5 % and 0.5 s
 */
struct xvbd_ab_account {
	bool guest_known;		/* fio's results */
	uint64_t guest_rd_bytes, guest_wr_bytes, guest_rd_ios, guest_wr_ios;
	uint64_t bb_rd_bytes, bb_wr_bytes, bb_rd_req, bb_wr_req;
	bool dev_known;			/* device sectors in every interval */
	uint64_t dev_rd_bytes, dev_wr_bytes;
	bool dev_is_file_dev;		/* the disk holding a loop's file */
	double guest_runtime_s;		/* fio's, its groups in turn */
	bool clock_known;
	double window_s;		/* the command's life, dom0's clock */
	char elsewhere[64];		/* a job's /dev/ file, or "" */
	bool cached, guest_more, blkback_more, clock_fast;
	double cached_pct;		/* of blkback's reads */
	double ratio;			/* guest/blkback or blkback/guest */
	double clock_ratio;		/* fio's runtime / the command's life */
};

int xvbd_ab_account(const struct xvbd_ab_record *rec,
		    struct xvbd_ab_account *a);
/* The k-th flag's line (from 0); -ENOENT past the last. */
int xvbd_ab_account_text(const struct xvbd_ab_account *a, size_t k,
			 char *buf, size_t len);
struct xvbd_out;
/* The figures and flags as an object under key. */
void xvbd_ab_account_render(struct xvbd_out *o, const char *key,
			    const struct xvbd_ab_account *a);

/* ---- interference: what else used the host during a run ---- */

/*
 * Another domain's CPU and another user of the backing device make a
 * run slower for reasons that are not the variable under test
 * (src/ab_interf.c).  Per run, over the window (first to last sample)
 * and over the busy span (ab.h, xvbd_ab_summary):
 *  - the CPU time of every domain but dom0 and the guest, as % of one
 *    CPU and of the host's physical CPUs (fingerprint host.cpus); the
 *    run is flagged when either span's share of the host is above the
 *    threshold (XVBD_AB_INTERF_CPU_DEFAULT, --interference-cpu);
 *  - the backing device's I/O beyond the VBD's own: its sectors read and
 *    written against blkback's rd_sect + wr_sect (merges and splits
 *    change I/O counts, never sectors), or in records without them its
 *    I/Os against rd_req + wr_req (more I/Os than requests: another
 *    user, or requests split); flagged when more than
 *    XVBD_AB_INTERF_DEV_SHARE of the device's and at least the minimum.
 * Discard and flush are counted apart by the kernel: neither side
 * includes them.  A loop device's I/O is its one VBD's: for a
 * file-backed VBD this says nothing about other users of the disk under
 * the file.
 */
#define XVBD_AB_INTERF_CPU_DEFAULT	0.10	/* of the host's CPUs */
#define XVBD_AB_INTERF_CPU_MIN_PCT	0.1	/* --interference-cpu */
#define XVBD_AB_INTERF_CPU_MAX_PCT	100
#define XVBD_AB_INTERF_DEV_SHARE	0.10	/* of the device's I/O */
#define XVBD_AB_INTERF_DEV_MIN_IOS	100
#define XVBD_AB_INTERF_DEV_MIN_SECT	2048	/* 1 MiB */

struct xvbd_ab_interf_span {
	bool known;
	double cpu_pct;			/* others, % of one CPU */
	bool host_known;		/* host.cpus known */
	double host_pct;		/* % of the host's CPUs */
};

struct xvbd_ab_interf {
	/* Other domains: known when every sample has them. */
	bool cpu_known;
	uint32_t others_doms;		/* the most at one sample */
	uint32_t host_cpus;		/* 0: unknown */
	struct xvbd_ab_interf_span window, busy;
	double cpu_threshold;		/* fraction of the host's CPUs */
	bool cpu_flagged;
	/* The backing devices (every VBD of the record, added up). */
	bool dev_known;			/* some interval with both counts */
	uint64_t dev_ios, vbd_req, foreign_ios;
	bool sect_known;		/* sectors on both sides throughout */
	uint64_t dev_sect, vbd_sect, foreign_sect;
	double foreign_pct;		/* of the device's sectors, else I/Os */
	bool dev_flagged;
};

/* threshold: a fraction of the host's CPUs (0: the default). */
int xvbd_ab_interference(const struct xvbd_ab_record *rec, double threshold,
			 struct xvbd_ab_interf *out);
/*
 * The flag's line for other domains' CPU ("interference: other domains
 * used 12.5 % of the host's CPUs (2 domains) ...") and for the backing
 * device; 0 written, -ENOENT when not flagged, -ENOSPC when cut.
 */
int xvbd_ab_interf_cpu_text(const struct xvbd_ab_interf *f, char *buf,
			    size_t len);
int xvbd_ab_interf_dev_text(const struct xvbd_ab_interf *f, size_t nvdevs,
			    char *buf, size_t len);
struct xvbd_out;
/* The figures as an object under key, unknown as null. */
void xvbd_ab_interf_render(struct xvbd_out *o, const char *key,
			   const struct xvbd_ab_interf *f);

/* ---- comparison of two labels ---- */

enum xvbd_ab_test {
	XVBD_AB_TEST_WELCH,
	XVBD_AB_TEST_MWU,
	/*
	 * Not asked for: what a Welch comparison becomes when every run
	 * is one side of a pair of one ab run experiment (the paired t on
	 * the per-pair log-ratios ln(B_i / A_i)).
	 */
	XVBD_AB_TEST_PAIRED,
};

enum xvbd_ab_verdict {
	XVBD_AB_V_BETTER,	/* B better, proven at the confidence */
	XVBD_AB_V_WORSE,	/* B worse, proven */
	XVBD_AB_V_NO_DIFF,	/* no difference proven */
	XVBD_AB_V_WEAK,		/* too few runs or pairs: see weak */
	XVBD_AB_V_UNKNOWN,	/* metric unknown on a side (no I/O) */
};

/* The equivalence verdict of one metric (--equivalence). */
enum xvbd_ab_equiv {
	XVBD_AB_EQ_NOT_ASKED,
	XVBD_AB_EQ_SAME,	/* the 1 - 2 alpha interval inside +-margin */
	XVBD_AB_EQ_NOT_SHOWN,	/* not shown to be the same */
	XVBD_AB_EQ_UNKNOWN,	/* no test possible (no runs, values <= 0) */
};

struct xvbd_ab_metric_cmp {
	enum xvbd_ab_metric metric;
	enum xvbd_ab_test test;		/* the test behind this verdict */
	size_t na, nb;			/* runs with the metric known */
	size_t npairs;			/* paired: pairs with it known */
	struct xvbd_stat_cmp_view {
		/*
		 * Centres on the test's scale: means (Welch), medians
		 * (Mann-Whitney), over the pairs used (paired: geometric
		 * means on the ratio scale).  Half-widths: the larger side
		 * where the interval is not symmetric; NAN unknown.
		 */
		double centre_a, half_a, centre_b, half_b;
		double diff;		/* B - A, in the metric's unit */
		struct xvbd_ab_ci diff_ci;
		double pct;		/* relative to A's centre, % */
		struct xvbd_ab_ci pct_ci;
		double p;
		double stat, df;	/* Welch's t and df; MWU's U */
		double p_adj;		/* Holm over the family; NAN */
	} s;
	enum xvbd_ab_verdict verdict;
	enum xvbd_ab_scale scale;
	/*
	 * The sign of the tested estimate: +1 B higher, -1 B lower, 0
	 * none (Welch: B - A; paired on ratios: mean ln(B/A); Mann-Whitney:
	 * U against half its range).  A verdict better or worse is this
	 * direction in the metric's sense.
	 */
	int direction;
	enum xvbd_ab_weak weak;
	const char *unknown_why;	/* UNKNOWN: static text */
	bool holm;			/* a difference undone by Holm */
	/*
	 * Paired on ratios: the pairs' raw differences B_i - A_i, their
	 * mean with its t interval, and whether it points the other way
	 * from the test (the pairs differ in size and the largest decide
	 * the raw mean).
	 */
	double raw_diff;
	struct xvbd_ab_ci raw_ci;
	bool raw_disagrees;
	/* --equivalence: the two one-sided tests, in % of A */
	enum xvbd_ab_equiv equiv;
	double eq_p;			/* NAN unknown */
	struct xvbd_ab_ci eq_ci;
	/*
	 * The runs per side (pairs, when paired) that would detect
	 * min_effect at the power with the variance seen (0: unknown,
	 * SIZE_MAX: beyond the cap), whatever the verdict; runs_status
	 * says which applies to it.  runs_made: what the test had.
	 */
	size_t runs_needed, runs_made;
	enum xvbd_ab_runs runs_status;
};

struct xvbd_ab_comparison {
	const char *label_a, *label_b;
	size_t runs_a, runs_b;		/* records given */
	double confidence;		/* 0.95 */
	enum xvbd_ab_test test;
	struct xvbd_ab_metric_cmp m[XVBD_AB_NMETRICS];
	/* Facts differing between the labels (first record of each). */
	struct xvbd_ab_fpdiff *diffs;
	size_t ndiffs;
	/* One difference: the variable under test (index into diffs),
	 * else -1 and every difference is a confounder. */
	long variable;
	char **warnings;		/* every confounder and data problem */
	size_t nwarnings;
	/* Multiplicity (xvbd_ab_compare_adjust): metrics with a p-value
	 * in the family, and whether verdicts use Holm's adjusted p. */
	size_t family;
	bool adjusted;
	/*
	 * The levels whose metrics the family spans (a sweep's k - 1; 1
	 * or 0: this comparison's metrics alone), for the words.
	 */
	size_t family_levels;
	/* The runs were stopped by ab run's sequential procedure: these
	 * fixed-N verdicts are descriptive (note_sequential). */
	bool sequential_stop;
	/* Paired: every run had its pair (test PAIRED); how many, and
	 * the experiment (a string of the records).  Else 0 and NULL. */
	size_t pairs;
	const char *experiment;
	double equivalence;		/* margin, relative; 0: not asked */
	double min_effect;		/* of runs_needed, relative */
	double power;			/* of runs_needed */
	/* The runs flagged for interference, each with its figures. */
	struct xvbd_ab_run_interf {
		const char *side;	/* "A", "B" */
		const char *id;		/* the record's */
		struct xvbd_ab_interf f;
	} *interf;
	size_t ninterf;
	double interference_cpu;	/* the threshold used */
};

#define XVBD_AB_MIN_EFFECT_DEFAULT	0.05
#define XVBD_AB_POWER			0.8

struct xvbd_ab_compare_opts {
	double confidence;		/* 0.95 */
	/* WELCH: the paired t instead when every run of A and B is one
	 * side of a pair of one experiment, unless unpaired. */
	enum xvbd_ab_test test;
	bool unpaired;
	double equivalence;		/* margin, relative (0.02); 0: none */
	double min_effect;		/* 0: XVBD_AB_MIN_EFFECT_DEFAULT */
	double interference_cpu;	/* fraction; 0: the default */
};

/*
 * Compare records of label A with records of label B.  Also warns when
 * runs within one label differ in a fact, when intervals were flagged or
 * reset, and when a side has fewer than 3 runs.
 */
int xvbd_ab_compare(const struct xvbd_ab_record *a, size_t na,
		    const struct xvbd_ab_record *b, size_t nb,
		    double confidence, enum xvbd_ab_test test,
		    struct xvbd_ab_comparison *out);
/* The same with every option; xvbd_ab_compare() takes the defaults. */
int xvbd_ab_compare_with(const struct xvbd_ab_record *a, size_t na,
			 const struct xvbd_ab_record *b, size_t nb,
			 const struct xvbd_ab_compare_opts *opts,
			 struct xvbd_ab_comparison *out);
void xvbd_ab_comparison_free(struct xvbd_ab_comparison *c);
/*
 * Whether every run of a and b is one side of a pair of one ab run
 * experiment: same experiment id, as many runs of A as of B, each pair
 * index once on each side.  Then *experiment is the id.
 */
bool xvbd_ab_records_paired(const struct xvbd_ab_record *a, size_t na,
			    const struct xvbd_ab_record *b, size_t nb,
			    const char **experiment);
/*
 * One pair's d of metric m: ln(B / A), the unit of ab run's sequential
 * procedure and of the paired comparison; false when either side lacks
 * the metric or it is not above 0.
 */
bool xvbd_ab_pair_logratio(const struct xvbd_ab_record *a,
			   const struct xvbd_ab_record *b,
			   enum xvbd_ab_metric m, double *d);
bool xvbd_ab_summary_logratio(const struct xvbd_ab_summary *a,
			      const struct xvbd_ab_summary *b,
			      enum xvbd_ab_metric m, double *d);
/*
 * Holm-Bonferroni over the metrics shown (NULL: all) that have a
 * p-value: each gets p_adj; when adjust and more than one is in the
 * family, a "better"/"worse" whose adjusted p is not below 1 -
 * confidence becomes "no difference proven" and says why.
 */
int xvbd_ab_compare_adjust(struct xvbd_ab_comparison *c,
			   const bool *shown_metrics, bool adjust);
/*
 * After `ab run --until-confident`: a warning that only the sequential
 * decision on metric m carries the always-valid guarantee; the fixed-N
 * verdicts on the runs it stopped at are descriptive.  Sets
 * sequential_stop, which the JSON form carries.
 */
int xvbd_ab_comparison_note_sequential(struct xvbd_ab_comparison *c,
				       enum xvbd_ab_metric m,
				       const char *decision);
/* "Welch's t", "Mann-Whitney U", "paired t" */
const char *xvbd_ab_test_name(enum xvbd_ab_test t);
/* Which way B went, in the metric's words: "B faster", "B uses more CPU". */
const char *xvbd_ab_direction(enum xvbd_ab_metric m, bool b_higher);

struct xvbd_out;
/*
 * Text or JSON, through the out layer (src/ab/ab_compare_render.c), as
 * the object key (NULL: the document); shown_metrics [XVBD_AB_NMETRICS],
 * NULL: all.  Text (ab_compare_text.c): three lines on what was compared
 * and how (the out layer's verbose: each in full), the table of the
 * metrics with data, those without named below it, every line within
 * XVBD_AB_TEXT_COLS.
 */
#define XVBD_AB_TEXT_COLS	100
void xvbd_ab_comparison_render(struct xvbd_out *o, const char *key,
			       const struct xvbd_ab_comparison *c,
			       const bool *shown_metrics);

/* ---- the fingerprint of the running system (src/ab_sys.c) ---- */

struct xvbd_tstack;
struct xvbd_xs;

/*
 * Read the facts of domain domid and its VBDs vdevs (all of the domain's
 * disks when nvdevs == 0) into fp, plus "workload".  Facts that cannot be
 * read are recorded as "unknown (<why>)", never left out silently.
 */
int xvbd_ab_fingerprint(struct xvbd_tstack *ts, struct xvbd_xs *xs,
			uint32_t domid, const char *const *vdevs,
			size_t nvdevs, const char *workload,
			struct xvbd_ab_fp *fp, struct xvbd_ab_err *e);

#endif /* XVBD_AB_H */
