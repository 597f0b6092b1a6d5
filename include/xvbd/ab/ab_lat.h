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
