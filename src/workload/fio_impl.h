/*
 * fio_impl.h - one fio JSON document being read (fio_json.c), for the
 * reader that finds documents in a stream (fio_frame.c).
 */
#ifndef XVBD_WL_FIO_IMPL_H
#define XVBD_WL_FIO_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <yajl/yajl_parse.h>

#include "xvbd/workload/workload.h"

/* Where a value sits: what the map or array being read holds. */
enum fio_ctx {
	CTX_ROOT,
	CTX_JOBS,		/* "jobs" */
	CTX_JOB,
	CTX_JOB_OPTS,		/* "job options" */
	CTX_GLOBAL_OPTS,	/* "global options" */
	CTX_DIR,		/* "read", "write", "trim" */
	CTX_LAT,		/* "slat_ns", "clat_ns", "lat_ns" */
	CTX_PCT,		/* "percentile" */
	CTX_BINS,		/* "bins" (JSON+) */
	CTX_DISKS,		/* "disk_util" */
	CTX_DISK,
	CTX_SKIP,		/* anything else: read past, not kept */
};

/* Our keys are short: a longer one is kept only to be named in errors. */
#define FIO_KEY_MAX	256

struct fio_doc {
	yajl_handle h;
	struct xvbd_wl_fio f;
	int depth;
	enum fio_ctx stack[XVBD_WL_DEPTH_MAX + 1];
	char key[FIO_KEY_MAX];		/* the pending map key */
	bool key_long;
	bool seen_version, seen_jobs;
	enum xvbd_wl_dir dir;		/* of CTX_DIR and below */
	enum xvbd_wl_lat_kind kind;	/* of CTX_LAT and below */
	/* Per job: which latencies' percentile and bins maps were read (a
	 * second one would count the same I/Os twice). */
	uint32_t seen_maps;
	int rc;				/* why a callback stopped the parse */
	char why[XVBD_WL_WHY_MAX];
};

/* 0 or -ENOMEM. */
int fio_doc_begin(struct fio_doc *d);
/*
 * Parse buf[len] (the next part of the document): 0, -EINVAL with
 * d->why, -ENOMEM.
 */
int fio_doc_feed(struct fio_doc *d, const char *buf, size_t len);
/* The document's last byte was fed: complete and check it. */
int fio_doc_end(struct fio_doc *d);
/* Free the handle; the document into *out (0) or freed (NULL out). */
void fio_doc_close(struct fio_doc *d, struct xvbd_wl_fio *out);

#endif /* XVBD_WL_FIO_IMPL_H */
