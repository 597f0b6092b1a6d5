/*
 * ab_lat.h - a run's latency distributions in its record: for each
 * recorded VBD, its backing device's requests over the run (stats
 * --latency's histograms, dom0/lat_trace.h, merged over the run's
 * intervals: exact, lathist.h), per kind (d2c, i2c) and direction.
 *
 * In the record's JSON, before "samples" (absent from records made
 * without --latency, which read as they did):
 *
 *	"latency": { "clock": "mono", "relative_error": 0.015625,
 *	  "vbds": [ { "vdev": "xvdb", "state": "ok", "backwards": 0,
 *	    "d2c": { "read": { "count": N, "sum_ns": S, "max_ns": M,
 *	             "buckets": [[lower_ns, count], ...] }, "write": {...} },
 *	    "i2c": {...} }, ... ] }
 *
 * one entry per vdev of the record, in its order.  A reader checks every
 * bucket against the layout (a lower bound of lathist's, increasing, the
 * counts adding up, the maximum in the top bucket, the sum possible).
 */
#ifndef XVBD_AB_LAT_H
#define XVBD_AB_LAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "xvbd/base/lathist.h"
#include "xvbd/dom0/lat_trace.h"

struct xvbd_ab_record;
struct xvbd_ab_err;

struct xvbd_ab_lat_vbd {
	/* ok: every interval complete; else what the worst one was. */
	enum xvbd_lat_state state;
	uint64_t backwards;
	struct xvbd_lathist h[XVBD_LAT_NKINDS][XVBD_LAT_NDIRS];
};

struct xvbd_ab_lat {
	size_t n;			/* the record's nvdevs */
	struct xvbd_ab_lat_vbd *vbds;
};

/* For a record of n vdevs: every state ok and empty. */
struct xvbd_ab_lat *xvbd_ab_lat_new(size_t n);
void xvbd_ab_lat_free(struct xvbd_ab_lat *l);		/* NULL ok */

/*
 * One interval's result for vdev i merged in: its histograms, and a
 * state worse than ok kept (not tracked < incomplete < unsupported are
 * all "not ok"; the first bad one stays).
 */
int xvbd_ab_lat_add(struct xvbd_ab_lat *l, size_t i,
		    const struct xvbd_lat_result *r);

/* The run's histogram of kind and dir over all its VBDs (into *h). */
int xvbd_ab_lat_merged(const struct xvbd_ab_lat *l, enum xvbd_lat_kind k,
		       enum xvbd_lat_dir d, struct xvbd_lathist *h);
/* Is every VBD's latency complete?  (A run without latency: false.) */
bool xvbd_ab_lat_complete(const struct xvbd_ab_lat *l);

/* ---- ab show (src/ab/ab_lat_render.c) ---- */

/* VBDs shown by name, first seen first. */
#define XVBD_AB_LAT_VDEVS_SHOWN		64
struct xvbd_out;
/*
 * The runs' latency merged per vdev (by name), kind and direction: an
 * object under key with "clock", the error, and "vbds" (rows: vdev,
 * kind, direction, runs, incomplete, count, p50/p99/p999, max, sum in
 * JSON (ns); mean in text (ms)).
 */
void xvbd_ab_lat_render(struct xvbd_out *o, const char *key,
			const struct xvbd_ab_record *recs, size_t n);

/* ---- guest against device (src/ab/ab_pvsplit.c) ---- */

/* p50 and p99: the percentiles split. */
#define XVBD_AB_PV_NPCT		2

/* One direction over the runs whose guest and device sides match. */
struct xvbd_ab_pv_dir {
	bool known;			/* some run had both sides */
	bool guest_bins;		/* from JSON+ bins (else fio's own
					 * percentiles of the one run) */
	char vdev[16];			/* the VBD fio's jobs ran on */
	size_t runs;
	uint64_t guest_ios;		/* in the merged bins */
	uint64_t device_requests;	/* in the merged d2c histogram */
	double guest_ms[XVBD_AB_PV_NPCT];	/* fio's clat */
	double device_ms[XVBD_AB_PV_NPCT];	/* the backing device's d2c */
};

struct xvbd_ab_pv_split {
	struct xvbd_ab_pv_dir dir[XVBD_LAT_NDIRS];
};

/*
 * The guest's completion latency (fio) beside the backing device's
 * service time (d2c) of the VBD fio ran on, merged over the runs
 * recs[n] that have both, per direction.  A run counts when fio's jobs
 * all ran on one recorded VBD (or it recorded one and no job names
 * another) and that VBD's latency is complete.
 */
void xvbd_ab_pv_split(const struct xvbd_ab_record *recs, size_t n,
		      struct xvbd_ab_pv_split *out);
bool xvbd_ab_pv_split_any(const struct xvbd_ab_pv_split *s);
/*
 * "read p99: guest 4.100 ms, device 1.200 ms on xvdb: 2.900 ms (71 %) in
 * the PV path (...)"; a guest percentile below the device's says so
 * instead of a negative time.  -1 when unknown.
 */
int xvbd_ab_pv_split_text(const struct xvbd_ab_pv_dir *pd, int dir, int p,
			  char *buf, size_t len);
/* Under key: per direction its sides and difference, then "lines". */
void xvbd_ab_pv_split_render(struct xvbd_out *o, const char *key,
			     const struct xvbd_ab_pv_split *s);

/* ---- JSON (ab_json.c calls these for the record's "latency") ---- */

struct yajl_gen_t;
int xvbd_ab_lat_gen(struct yajl_gen_t *g, const struct xvbd_ab_record *rec);
/* A yajl_val; e->msg says what is wrong ("latency.vbds[0]..."). */
int xvbd_ab_lat_read(const void *yajl_val, struct xvbd_ab_record *rec,
		     struct xvbd_ab_err *e);
/*
 * Buckets one record's latency may hold, all histograms together (a
 * bound for a hostile file: a real run's use a few hundred each), and
 * the JSON values that makes (the head's bound, ab_json_read.c).
 */
#define XVBD_AB_LAT_BUCKETS_MAX		16384
#define XVBD_AB_LAT_VALUES_MAX(nvdevs) \
	(16 + (size_t)(nvdevs) * (16 + 12 * XVBD_LAT_NKINDS * \
				  XVBD_LAT_NDIRS) + \
	 3 * (size_t)XVBD_AB_LAT_BUCKETS_MAX)

#endif /* XVBD_AB_LAT_H */
