/*
 * ab_results_impl.h - a record's "results" in its JSON (ab_results_json.c
 * writes, ab_results_read.c reads): the field tables both use, so that
 * the two cannot drift.
 */
#ifndef XVBD_AB_RESULTS_IMPL_H
#define XVBD_AB_RESULTS_IMPL_H

#include <stddef.h>

#include <yajl/yajl_gen.h>
#include <yajl/yajl_tree.h>

#include "xvbd/ab/ab.h"
#include "xvbd/workload/workload.h"

enum xvbd_ab_ftype {
	XVBD_AB_F_U64,
	XVBD_AB_F_U32,
	XVBD_AB_F_I32,		/* fio's error: 0 .. INT32_MAX */
	XVBD_AB_F_DBL,		/* finite, >= 0 */
};

/* A number of a struct: its JSON key, kind and place. */
struct xvbd_ab_field {
	const char *key;
	enum xvbd_ab_ftype type;
	size_t off;
};

extern const struct xvbd_ab_field xvbd_ab_dir_fields[];
extern const size_t xvbd_ab_ndir_fields;
extern const struct xvbd_ab_field xvbd_ab_lat_fields[];
extern const size_t xvbd_ab_nlat_fields;
extern const struct xvbd_ab_field xvbd_ab_job_fields[];
extern const size_t xvbd_ab_njob_fields;
extern const struct xvbd_ab_field xvbd_ab_disk_fields[];
extern const size_t xvbd_ab_ndisk_fields;

/* The "results" object's value. */
yajl_gen_status xvbd_ab_results_gen(yajl_gen g,
				    const struct xvbd_wl_results *r);
/* v: "results"' value; *out malloc'd (free with xvbd_wl_results_free). */
int xvbd_ab_results_read(yajl_val v, struct xvbd_wl_results **out,
			 struct xvbd_ab_err *e);

#endif /* XVBD_AB_RESULTS_IMPL_H */
