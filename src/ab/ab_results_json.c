/*
 * ab_results_json.c - a record's "results": what the --run command
 * printed, read (xvbd/workload/workload.h), in the record's JSON and
 * back.  One table of fields per struct serves the writer and the
 * reader, so the two cannot drift; the reader is as strict as the rest
 * of the record's (ab_json.c): every key known, each of its type and
 * range, within the workload layer's limits, bins in order.
 *
 *	"results": { "mode": "auto", "format": "fio" | "benchfmt" |
 *		"absent", "why": "...", "quiet": false, "output_bytes": N,
 *		"fio": { "version", "timestamp_ms", "global_options":
 *			[[k, v]...], "jobs": [...], "bins": [...],
 *			"disks": [...] },
 *		"benchfmt": { "config", "units", "lines", "refused",
 *			"first_refused" } }
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yajl/yajl_gen.h>
#include <yajl/yajl_tree.h>

#include "xvbd/ab/ab.h"
#include "xvbd/ab/ab_record_impl.h"
#include "ab_json_impl.h"
#include "ab_results_impl.h"
#include "xvbd/workload/workload.h"

#define err_set xvbd_ab_err_set

#define FLD(st, k, t, m) { k, XVBD_AB_F_##t, offsetof(struct st, m) }
const struct xvbd_ab_field xvbd_ab_dir_fields[] = {
	FLD(xvbd_wl_dirstat, "io_bytes", U64, io_bytes),
	FLD(xvbd_wl_dirstat, "bw_bytes", U64, bw_bytes),
	FLD(xvbd_wl_dirstat, "iops", DBL, iops),
	FLD(xvbd_wl_dirstat, "runtime_ms", U64, runtime_ms),
	FLD(xvbd_wl_dirstat, "total_ios", U64, total_ios),
	FLD(xvbd_wl_dirstat, "short_ios", U64, short_ios),
	FLD(xvbd_wl_dirstat, "drop_ios", U64, drop_ios),
};
const struct xvbd_ab_field xvbd_ab_lat_fields[] = {
	FLD(xvbd_wl_lat, "n", U64, n),
	FLD(xvbd_wl_lat, "min_ns", U64, min_ns),
	FLD(xvbd_wl_lat, "max_ns", U64, max_ns),
	FLD(xvbd_wl_lat, "mean_ns", DBL, mean_ns),
	FLD(xvbd_wl_lat, "stddev_ns", DBL, stddev_ns),
};
const struct xvbd_ab_field xvbd_ab_job_fields[] = {
	FLD(xvbd_wl_job, "groupid", U32, groupid),
	FLD(xvbd_wl_job, "error", I32, error),
	FLD(xvbd_wl_job, "job_runtime_ms", U64, job_runtime_ms),
	FLD(xvbd_wl_job, "elapsed_s", U64, elapsed_s),
};
const struct xvbd_ab_field xvbd_ab_disk_fields[] = {
	FLD(xvbd_wl_disk, "read_ios", U64, read_ios),
	FLD(xvbd_wl_disk, "write_ios", U64, write_ios),
	FLD(xvbd_wl_disk, "read_merges", U64, read_merges),
	FLD(xvbd_wl_disk, "write_merges", U64, write_merges),
	FLD(xvbd_wl_disk, "read_ticks_ms", U64, read_ticks_ms),
	FLD(xvbd_wl_disk, "write_ticks_ms", U64, write_ticks_ms),
	FLD(xvbd_wl_disk, "in_queue_ms", U64, in_queue_ms),
	FLD(xvbd_wl_disk, "util_pct", DBL, util_pct),
};
#define N(a)	(sizeof(a) / sizeof((a)[0]))
const size_t xvbd_ab_ndir_fields = N(xvbd_ab_dir_fields);
const size_t xvbd_ab_nlat_fields = N(xvbd_ab_lat_fields);
const size_t xvbd_ab_njob_fields = N(xvbd_ab_job_fields);
const size_t xvbd_ab_ndisk_fields = N(xvbd_ab_disk_fields);

/* ---- out ---- */

#define TRY(x)	do { st = (x); if (st) return st; } while (0)



static yajl_gen_status fields_gen(yajl_gen g, const struct xvbd_ab_field *f,
				  size_t n, const void *base)
{
	const char *p = base;
	yajl_gen_status st;
	size_t i;

	for (i = 0; i < n; i++) {
		TRY(xvbd_ab_gen_str(g, f[i].key));
		switch (f[i].type) {
		case XVBD_AB_F_U64:
			TRY(xvbd_ab_gen_u64(g,
					    *(const uint64_t *)(p + f[i].off)));
			break;
		case XVBD_AB_F_U32:
			TRY(xvbd_ab_gen_u64(g,
					    *(const uint32_t *)(p + f[i].off)));
			break;
		case XVBD_AB_F_I32:
			TRY(yajl_gen_integer(g, *(const int32_t *)(p + f[i].off)));
			break;
		case XVBD_AB_F_DBL:
			TRY(yajl_gen_double(g, *(const double *)(p + f[i].off)));
			break;
		}
	}
	return yajl_gen_status_ok;
}

static yajl_gen_status opts_gen(yajl_gen g, const char *key,
				const struct xvbd_wl_opt *o, size_t n)
{
	yajl_gen_status st;
	size_t i;

	TRY(xvbd_ab_gen_str(g, key));
	TRY(yajl_gen_array_open(g));
	for (i = 0; i < n; i++) {
		TRY(yajl_gen_array_open(g));
		TRY(xvbd_ab_gen_str(g, o[i].key));
		TRY(xvbd_ab_gen_str(g, o[i].value));
		TRY(yajl_gen_array_close(g));
	}
	return yajl_gen_array_close(g);
}

static yajl_gen_status lat_gen(yajl_gen g, const struct xvbd_wl_lat *l)
{
	yajl_gen_status st;
	size_t i;

	TRY(yajl_gen_map_open(g));
	TRY(fields_gen(g, xvbd_ab_lat_fields, xvbd_ab_nlat_fields, l));
	TRY(xvbd_ab_gen_str(g, "percentiles"));
	TRY(yajl_gen_array_open(g));
	for (i = 0; i < l->npcts; i++) {
		TRY(yajl_gen_array_open(g));
		TRY(yajl_gen_double(g, l->pcts[i].pct));
		TRY(xvbd_ab_gen_u64(g, l->pcts[i].value_ns));
		TRY(yajl_gen_array_close(g));
	}
	TRY(yajl_gen_array_close(g));
	return yajl_gen_map_close(g);
}

static bool dir_active(const struct xvbd_wl_dirstat *d)
{
	return d->total_ios || d->io_bytes || d->lat[XVBD_WL_CLAT].n ||
	       d->lat[XVBD_WL_LAT].n || d->lat[XVBD_WL_SLAT].n;
}

static yajl_gen_status job_gen(yajl_gen g, const struct xvbd_wl_job *j)
{
	yajl_gen_status st;
	int d, k;

	TRY(yajl_gen_map_open(g));
	TRY(xvbd_ab_gen_str(g, "name"));
	TRY(xvbd_ab_gen_str(g, j->name ? j->name : ""));
	TRY(fields_gen(g, xvbd_ab_job_fields, xvbd_ab_njob_fields, j));
	TRY(opts_gen(g, "options", j->opts, j->nopts));
	/* Directions without I/O and latencies without samples: left out
	 * (all zero, as fio prints them). */
	for (d = 0; d < XVBD_WL_NDIRS; d++) {
		if (!dir_active(&j->dir[d]))
			continue;
		TRY(xvbd_ab_gen_str(g, xvbd_wl_dir_name(d)));
		TRY(yajl_gen_map_open(g));
		TRY(fields_gen(g, xvbd_ab_dir_fields, xvbd_ab_ndir_fields,
				      &j->dir[d]));
		for (k = 0; k < XVBD_WL_NLATS; k++) {
			if (!j->dir[d].lat[k].n)
				continue;
			TRY(xvbd_ab_gen_str(g, xvbd_wl_lat_name(k)));
			TRY(lat_gen(g, &j->dir[d].lat[k]));
		}
		TRY(yajl_gen_map_close(g));
	}
	return yajl_gen_map_close(g);
}

/* "bins": [{"dir": "read", "lat": "clat_ns", "bins": [[v, n]...]}] */
static yajl_gen_status bins_gen(yajl_gen g, const struct xvbd_wl_fio *f)
{
	yajl_gen_status st;
	size_t i;
	int d, k;

	TRY(xvbd_ab_gen_str(g, "bins"));
	TRY(yajl_gen_array_open(g));
	for (d = 0; d < XVBD_WL_NDIRS; d++) {
		for (k = 0; k < XVBD_WL_NLATS; k++) {
			const struct xvbd_wl_hist *h = &f->hist[d][k];

			if (!h->n)
				continue;
			TRY(yajl_gen_map_open(g));
			TRY(xvbd_ab_gen_str(g, "dir"));
			TRY(xvbd_ab_gen_str(g, xvbd_wl_dir_name(d)));
			TRY(xvbd_ab_gen_str(g, "lat"));
			TRY(xvbd_ab_gen_str(g, xvbd_wl_lat_name(k)));
			TRY(xvbd_ab_gen_str(g, "bins"));
			TRY(yajl_gen_array_open(g));
			for (i = 0; i < h->n; i++) {
				TRY(yajl_gen_array_open(g));
				TRY(xvbd_ab_gen_u64(g, h->bins[i].value_ns));
				TRY(xvbd_ab_gen_u64(g, h->bins[i].count));
				TRY(yajl_gen_array_close(g));
			}
			TRY(yajl_gen_array_close(g));
			TRY(yajl_gen_map_close(g));
		}
	}
	return yajl_gen_array_close(g);
}

static yajl_gen_status fio_gen(yajl_gen g, const struct xvbd_wl_fio *f)
{
	yajl_gen_status st;
	size_t i;

	TRY(yajl_gen_map_open(g));
	TRY(xvbd_ab_gen_str(g, "version"));
	TRY(xvbd_ab_gen_str(g, f->version ? f->version : ""));
	TRY(xvbd_ab_gen_str(g, "timestamp_ms"));
	TRY(xvbd_ab_gen_u64(g, f->timestamp_ms));
	TRY(opts_gen(g, "global_options", f->global_opts, f->nglobal_opts));
	TRY(xvbd_ab_gen_str(g, "jobs"));
	TRY(yajl_gen_array_open(g));
	for (i = 0; i < f->njobs; i++)
		TRY(job_gen(g, &f->jobs[i]));
	TRY(yajl_gen_array_close(g));
	TRY(bins_gen(g, f));
	TRY(xvbd_ab_gen_str(g, "disks"));
	TRY(yajl_gen_array_open(g));
	for (i = 0; i < f->ndisks; i++) {
		TRY(yajl_gen_map_open(g));
		TRY(xvbd_ab_gen_str(g, "name"));
		TRY(xvbd_ab_gen_str(g, f->disks[i].name ?
				    f->disks[i].name : ""));
		TRY(fields_gen(g, xvbd_ab_disk_fields, xvbd_ab_ndisk_fields,
				      &f->disks[i]));
		TRY(yajl_gen_map_close(g));
	}
	TRY(yajl_gen_array_close(g));
	return yajl_gen_map_close(g);
}

static yajl_gen_status bench_gen(yajl_gen g, const struct xvbd_wl_bench *b)
{
	yajl_gen_status st;
	size_t i, k;

	TRY(yajl_gen_map_open(g));
	TRY(opts_gen(g, "config", b->config, b->nconfig));
	TRY(xvbd_ab_gen_str(g, "units"));
	TRY(yajl_gen_array_open(g));
	for (i = 0; i < b->nunits; i++) {
		TRY(yajl_gen_array_open(g));
		TRY(xvbd_ab_gen_str(g, b->units[i].unit));
		TRY(xvbd_ab_gen_str(g, b->units[i].better ==
				    XVBD_WL_HIGHER_BETTER ? "higher" : "lower"));
		TRY(yajl_gen_array_close(g));
	}
	TRY(yajl_gen_array_close(g));
	TRY(xvbd_ab_gen_str(g, "lines"));
	TRY(yajl_gen_array_open(g));
	for (i = 0; i < b->nlines; i++) {
		const struct xvbd_wl_bench_line *l = &b->lines[i];

		TRY(yajl_gen_map_open(g));
		TRY(xvbd_ab_gen_str(g, "name"));
		TRY(xvbd_ab_gen_str(g, l->name));
		TRY(xvbd_ab_gen_str(g, "iterations"));
		TRY(xvbd_ab_gen_u64(g, l->iterations));
		TRY(xvbd_ab_gen_str(g, "values"));
		TRY(yajl_gen_array_open(g));
		for (k = 0; k < l->nvalues; k++) {
			TRY(yajl_gen_array_open(g));
			TRY(yajl_gen_double(g, l->values[k].value));
			TRY(xvbd_ab_gen_str(g, l->values[k].unit));
			TRY(yajl_gen_array_close(g));
		}
		TRY(yajl_gen_array_close(g));
		TRY(yajl_gen_map_close(g));
	}
	TRY(yajl_gen_array_close(g));
	TRY(xvbd_ab_gen_str(g, "refused"));
	TRY(xvbd_ab_gen_u64(g, b->nbad));
	TRY(xvbd_ab_gen_str(g, "first_refused"));
	TRY(xvbd_ab_gen_str(g, b->first_bad));
	return yajl_gen_map_close(g);
}

yajl_gen_status xvbd_ab_results_gen(yajl_gen g,
				    const struct xvbd_wl_results *r)
{
	yajl_gen_status st;

	TRY(yajl_gen_map_open(g));
	TRY(xvbd_ab_gen_str(g, "mode"));
	TRY(xvbd_ab_gen_str(g, xvbd_wl_results_mode_name(r->mode)));
	TRY(xvbd_ab_gen_str(g, "format"));
	TRY(xvbd_ab_gen_str(g, xvbd_wl_format_name(r->format)));
	if (r->format == XVBD_WL_ABSENT) {
		TRY(xvbd_ab_gen_str(g, "why"));
		TRY(xvbd_ab_gen_str(g, r->why));
		TRY(xvbd_ab_gen_str(g, "quiet"));
		TRY(yajl_gen_bool(g, r->quiet));
	}
	TRY(xvbd_ab_gen_str(g, "output_bytes"));
	TRY(xvbd_ab_gen_u64(g, r->output_bytes));
	if (r->format == XVBD_WL_FIO) {
		TRY(xvbd_ab_gen_str(g, "fio"));
		TRY(fio_gen(g, &r->fio));
	} else if (r->format == XVBD_WL_BENCHFMT) {
		TRY(xvbd_ab_gen_str(g, "benchfmt"));
		TRY(bench_gen(g, &r->bench));
	}
	return yajl_gen_map_close(g);
}
