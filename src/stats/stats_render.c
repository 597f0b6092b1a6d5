/*
 * stats_render.c - one sample, rendered: text (a table per sample, or a
 * live screen), JSON Lines, CSV, and the Prometheus textfile format.
 *
 * One function describes a sample (render_dom, render_vbd) through the
 * out layer, in each of its modes: text, JSON, CSV (a row per domain and
 * VBD, columns named like the JSON fields) and Prometheus (metric
 * families read from the same fields).  Numbers are formatted once
 * ("%.*f"), so all carry the same digits.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "xvbd/base/out.h"
#include "xvbd/stats/stats.h"
#include "xvbd/dom0/sysfs.h"
#include "stats_impl.h"

#define NS_PER_S		UINT64_C(1000000000)
#define BYTES_PER_MB		1e6	/* MB/s in text: 10^6 bytes */
#define LIVE_CLEAR		"\033[H\033[2J"

/* ---- one render path: the out layer's modes ---- */

/*
 * CSV: one header, one row per domain and per VBD ("type" tells which);
 * cells that do not apply are empty.  Columns are the JSON names.
 */
static const char *const csv_columns[] = {
	"time", "seq", "interval_s", "type", "domid", "domain",
	"vcpus", "mem_bytes", "cpu_ns", "cpu_pct", "cpu_interval",
	"vcpu_pct",
	"vdev", "devid", "rd_req", "wr_req", "rd_sect", "wr_sect", "f_req",
	"ds_req", "oo_req", "interval", "reset",
	"rd_req_per_s", "wr_req_per_s", "rd_bytes_per_s", "wr_bytes_per_s",
	"f_req_per_s", "ds_req_per_s", "oo_req_per_s",
	"backing", "rd_lat_ms", "wr_lat_ms", "queue_depth",
	"backend_cpu_ns", "backend_interval", "backend_cpu_pct",
	"backend_us_per_req", "rd_kib_per_req", "wr_kib_per_req",
	"ceiling_segments", "ceiling_kib", "rd_ceiling_pct", "wr_ceiling_pct",
	"rd_p50_ms", "rd_p99_ms", "rd_p999_ms", "rd_max_ms",
	"wr_p50_ms", "wr_p99_ms", "wr_p999_ms", "wr_max_ms", "lat_state",
};
#define NCSV	(sizeof(csv_columns) / sizeof(csv_columns[0]))

static const struct xvbd_out_label stats_labels[] = {
	{ "time", "time (UTC)" },
	{ "interval_s", "interval (s)" },
	{ "domid", "ID" },
	{ "domain", "DOMAIN" },
	{ "vcpus", "VCPUS" },
	{ "mem_bytes", "MEM" },
	{ "cpu_pct", "CPU%" },
	{ "cpu_interval", "NOTE" },
	{ "vcpu_pct", "VCPU%" },
	{ "vdev", "VDEV" },
	{ "rd_req_per_s", "RD/s" },
	{ "wr_req_per_s", "WR/s" },
	{ "rd_mb_per_s", "RD-MB/s" },
	{ "wr_mb_per_s", "WR-MB/s" },
	{ "f_req_per_s", "FLUSH/s" },
	{ "ds_req_per_s", "DISCARD/s" },
	{ "oo_req_per_s", "OO/s" },
	{ "rd_lat_ms", "RD-LAT(ms)" },
	{ "wr_lat_ms", "WR-LAT(ms)" },
	{ "queue_depth", "QDEPTH" },
	{ "backing", "BACKING" },
	{ "backend_cpu_pct", "BE-CPU%" },
	{ "backend_us_per_req", "BE-US/REQ" },
	{ "rd_kib_per_req", "RD-KiB/REQ" },
	{ "wr_kib_per_req", "WR-KiB/REQ" },
	{ "ceiling_kib", "MAX-KiB" },
	{ "interval", "NOTE" },
	{ "rd_p50_ms", "RD-P50(ms)" },
	{ "rd_p99_ms", "RD-P99" },
	{ "rd_p999_ms", "RD-P99.9" },
	{ "rd_max_ms", "RD-MAX" },
	{ "wr_p50_ms", "WR-P50(ms)" },
	{ "wr_p99_ms", "WR-P99" },
	{ "wr_p999_ms", "WR-P99.9" },
	{ "wr_max_ms", "WR-MAX" },
	{ "lat_state", "LATENCY" },
	{ "latency_unavailable", "latency" },
	{ "latency_clock", "latency clock" },
	{ "latency_relative_error", "latency error" },
	{ NULL, NULL },
};

static void render_dom(struct xvbd_out *o, const struct xvbd_stats_dom *d)
{
	bool ok = d->cpu_iv == XVBD_IV_OK, human = xvbd_out_is_text(o);
	size_t i;

	if (xvbd_out_mode(o) == XVBD_OUT_CSV)
		xvbd_out_str(o, "type", "domain");
	xvbd_out_uint(o, "domid", d->domid);
	xvbd_out_str(o, "domain", d->name);
	xvbd_out_uint(o, "vcpus", d->vcpus);
	xvbd_out_size_opt(o, "mem_bytes", true, d->mem_bytes);
	if (!human)
		xvbd_out_uint(o, "cpu_ns", d->cpu_ns);
	xvbd_out_fixed_opt(o, "cpu_pct", ok, d->cpu_pct, 2);
	if (d->nvcpu && xvbd_out_is_json(o)) {
		xvbd_out_arr_begin(o, "vcpu_ns");
		for (i = 0; i < d->nvcpu; i++)
			xvbd_out_uint(o, NULL, d->vcpu_ns[i]);
		xvbd_out_arr_end(o);
		xvbd_out_arr_begin(o, "vcpu_pct");
		for (i = 0; i < d->nvcpu; i++)
			xvbd_out_fixed_opt(o, NULL, d->vcpu_pct_known[i],
					   d->vcpu_pct[i], 2);
		xvbd_out_arr_end(o);
	} else if (d->nvcpu) {
		/* Text and CSV: one cell, "12.00 99.50" ("-" unknown). */
		char buf[512];
		size_t used = 0;

		buf[0] = '\0';
		for (i = 0; i < d->nvcpu && used + 16 < sizeof(buf); i++) {
			if (d->vcpu_pct_known[i])
				used += (size_t)snprintf(buf + used,
							 sizeof(buf) - used,
							 "%s%.2f",
							 i ? " " : "",
							 d->vcpu_pct[i]);
			else
				used += (size_t)snprintf(buf + used,
							 sizeof(buf) - used,
							 "%s-", i ? " " : "");
		}
		xvbd_out_str(o, "vcpu_pct", buf);
	}
	xvbd_out_str(o, "cpu_interval", xvbd_stats_iv_name(d->cpu_iv));
}

/* Per ring, in JSON only: a table cell cannot hold a list. */
static void render_rings(struct xvbd_out *o, const struct xvbd_stats_vbd *v)
{
	size_t i;

	if (!v->be_known) {
		xvbd_out_null(o, "rings");
		return;
	}
	xvbd_out_arr_begin(o, "rings");
	for (i = 0; i < v->nrings; i++) {
		const struct xvbd_stats_ring *r = &v->rings[i];

		xvbd_out_obj_begin(o, NULL);
		xvbd_out_uint(o, "ring", r->ring);
		xvbd_out_uint(o, "pid", (uint64_t)r->pid);
		xvbd_out_uint(o, "cpu_ns", r->cpu_ns);
		xvbd_out_fixed_opt(o, "cpu_pct", r->iv == XVBD_IV_OK,
				   r->cpu_pct, 2);
		xvbd_out_obj_end(o);
	}
	xvbd_out_arr_end(o);
}

/* What the VBD costs dom0, and the size of its requests. */
static void render_cost(struct xvbd_out *o, const struct xvbd_stats_vbd *v)
{
	bool be = v->be_known && v->be_iv == XVBD_IV_OK;
	bool human = xvbd_out_is_text(o);

	if (!human) {
		xvbd_out_uint_opt(o, "backend_cpu_ns", v->be_known,
				  v->be_cpu_ns);
		xvbd_out_str(o, "backend_interval",
			     v->be_known || v->be_iv == XVBD_IV_RESET ?
			     xvbd_stats_iv_name(v->be_iv) : "unknown");
	}
	xvbd_out_fixed_opt(o, "backend_cpu_pct", be, v->be_cpu_pct, 2);
	xvbd_out_fixed_opt(o, "backend_us_per_req",
			   be && v->be_us_per_req_known, v->be_us_per_req, 1);
	xvbd_out_fixed_opt(o, "rd_kib_per_req", v->rd_kib_known,
			   v->rd_kib_per_req, 1);
	xvbd_out_fixed_opt(o, "wr_kib_per_req", v->wr_kib_known,
			   v->wr_kib_per_req, 1);
	if (!human)
		xvbd_out_uint_opt(o, "ceiling_segments", v->ceiling_known,
				  v->ceiling_segments);
	xvbd_out_fixed_opt(o, "ceiling_kib", v->ceiling_known, v->ceiling_kib,
			   0);
	if (!human) {
		xvbd_out_fixed_opt(o, "rd_ceiling_pct", v->ceiling_known &&
				   v->rd_kib_known, v->rd_ceiling_pct, 1);
		xvbd_out_fixed_opt(o, "wr_ceiling_pct", v->ceiling_known &&
				   v->wr_kib_known, v->wr_ceiling_pct, 1);
	}
	if (xvbd_out_is_json(o))
		render_rings(o, v);
}

static void render_vbd(struct xvbd_out *o, const struct xvbd_stats_sample *s,
		       size_t vi)
{
	const struct xvbd_stats_vbd *v = &s->vbds[vi];
	bool ok = v->iv == XVBD_IV_OK, blk = v->has_blk &&
		  v->blk_iv == XVBD_IV_OK, human = xvbd_out_is_text(o);
	char backing[24];
	size_t i;

	if (xvbd_out_mode(o) == XVBD_OUT_CSV)
		xvbd_out_str(o, "type", "vbd");
	xvbd_out_uint(o, "domid", v->domid);
	xvbd_out_str(o, "domain", v->domain);
	xvbd_out_str(o, "vdev", v->vdev);
	if (!human) {
		xvbd_out_uint(o, "devid", v->devid);
		/* The raw cumulative counters, under blkback's sysfs names. */
		for (i = 0; i < XVBD_BLKBACK_NFIELDS; i++)
			xvbd_out_uint(o, xvbd_blkback_fields[i].name,
				      *(const uint64_t *)((const char *)&v->raw +
					xvbd_blkback_fields[i].offset));
		xvbd_out_str(o, "interval", xvbd_stats_iv_name(v->iv));
		xvbd_out_bool(o, "reset", !ok);
	}
	xvbd_out_fixed_opt(o, "rd_req_per_s", ok, v->rd_req_s, 2);
	xvbd_out_fixed_opt(o, "wr_req_per_s", ok, v->wr_req_s, 2);
	if (human) {
		xvbd_out_fixed_opt(o, "rd_mb_per_s", ok,
				   v->rd_bytes_s / BYTES_PER_MB, 2);
		xvbd_out_fixed_opt(o, "wr_mb_per_s", ok,
				   v->wr_bytes_s / BYTES_PER_MB, 2);
	} else {
		xvbd_out_fixed_opt(o, "rd_bytes_per_s", ok, v->rd_bytes_s, 0);
		xvbd_out_fixed_opt(o, "wr_bytes_per_s", ok, v->wr_bytes_s, 0);
	}
	xvbd_out_fixed_opt(o, "f_req_per_s", ok, v->f_req_s, 2);
	xvbd_out_fixed_opt(o, "ds_req_per_s", ok, v->ds_req_s, 2);
	xvbd_out_fixed_opt(o, "oo_req_per_s", ok, v->oo_req_s, 2);
	xvbd_out_fixed_opt(o, "rd_lat_ms", blk && v->rd_lat_known,
			   v->rd_lat_ms, 3);
	xvbd_out_fixed_opt(o, "wr_lat_ms", blk && v->wr_lat_known,
			   v->wr_lat_ms, 3);
	xvbd_out_fixed_opt(o, "queue_depth", blk, v->queue_depth, 2);
	snprintf(backing, sizeof(backing), "%u:%u", v->blk_major,
		 v->blk_minor);
	xvbd_out_str(o, "backing", v->has_blk ? backing : NULL);
	render_cost(o, v);
	if (human)
		xvbd_out_str(o, "interval", xvbd_stats_iv_name(v->iv));
	stats_render_lat(o, s, vi);
}

static void fmt_time(int64_t realtime_ns, char *buf, size_t len)
{
	time_t secs = (time_t)(realtime_ns / (int64_t)NS_PER_S);
	struct tm tm;
	char base[32];

	if (!gmtime_r(&secs, &tm) ||
	    !strftime(base, sizeof(base), "%Y-%m-%dT%H:%M:%S", &tm)) {
		snprintf(buf, len, "?");
		return;
	}
	snprintf(buf, len, "%s.%03dZ", base,
		 (int)(realtime_ns % (int64_t)NS_PER_S / 1000000));
}

/* One sample: its time, then a row per domain and per VBD. */
static void render_sample(struct xvbd_out *o,
			  const struct xvbd_stats_sample *s)
{
	char time_str[48];
	size_t i;

	fmt_time(s->realtime_ns, time_str, sizeof(time_str));
	xvbd_out_obj_begin(o, NULL);
	xvbd_out_str(o, "time", time_str);
	xvbd_out_uint(o, "seq", s->seq);
	xvbd_out_fixed_opt(o, "interval_s", true,
			   (double)s->interval_ns / (double)NS_PER_S, 6);
	stats_render_lat_head(o, s);
	xvbd_out_arr_begin(o, "domains");
	for (i = 0; i < s->ndoms; i++) {
		xvbd_out_obj_begin(o, NULL);
		render_dom(o, &s->doms[i]);
		xvbd_out_obj_end(o);
	}
	xvbd_out_arr_end(o);
	xvbd_out_arr_begin(o, "vbds");
	for (i = 0; i < s->nvbds; i++) {
		xvbd_out_obj_begin(o, NULL);
		render_vbd(o, s, i);
		xvbd_out_obj_end(o);
	}
	xvbd_out_arr_end(o);
	stats_render_lat_prom(o, s);
	xvbd_out_obj_end(o);
}

int xvbd_stats_render(FILE *f, enum xvbd_stats_fmt fmt,
		      const struct xvbd_stats_sample *s, bool first)
{
	bool text = fmt == XVBD_STATS_TEXT || fmt == XVBD_STATS_LIVE;
	enum xvbd_out_mode mode = text ? XVBD_OUT_TEXT :
				  fmt == XVBD_STATS_CSV ? XVBD_OUT_CSV :
				  XVBD_OUT_JSON;
	struct xvbd_out *o;
	int rc;

	o = xvbd_out_new_mode(f, mode);
	if (!o)
		return -1;
	xvbd_out_labels(o, stats_labels);
	xvbd_out_csv_columns(o, csv_columns, NCSV, first);
	if (fmt == XVBD_STATS_LIVE)
		fputs(LIVE_CLEAR, f);
	else if (text && !first)
		fputc('\n', f);	/* a blank line between samples */
	render_sample(o, s);
	rc = xvbd_out_finish(o);	/* flushes: one write per sample */
	xvbd_out_free(o);
	return rc;
}

/* ---- Prometheus textfile: metric families read from the fields ---- */

static const char *const prom_labels[] = { "domid", "domain", "vdev",
					   "devid", "direction", "le" };

static const struct xvbd_out_prom_metric prom_metrics[] = {
	{ "cpu_ns", "xvbd_domain_cpu_seconds_total", "counter",
	  "CPU time used by all vCPUs of the domain", XVBD_PROM_NS_AS_S, NULL },
	{ "cpu_pct", "xvbd_domain_cpu_percent", "gauge",
	  "CPU time over the last interval / wall time x 100",
	  XVBD_PROM_AS_IS, NULL },
	{ "vcpus", "xvbd_domain_vcpus", "gauge", "online vCPUs",
	  XVBD_PROM_AS_IS, NULL },
	{ "mem_bytes", "xvbd_domain_memory_bytes", "gauge",
	  "current memory allocation", XVBD_PROM_AS_IS, NULL },
	{ "rd_req", "xvbd_vbd_read_requests_total", "counter",
	  "blkback rd_req: read requests", XVBD_PROM_AS_IS, NULL },
	{ "wr_req", "xvbd_vbd_write_requests_total", "counter",
	  "blkback wr_req: write requests", XVBD_PROM_AS_IS, NULL },
	{ "rd_sect", "xvbd_vbd_read_bytes_total", "counter",
	  "blkback rd_sect x 512", XVBD_PROM_SECTORS_AS_BYTES, NULL },
	{ "wr_sect", "xvbd_vbd_write_bytes_total", "counter",
	  "blkback wr_sect x 512", XVBD_PROM_SECTORS_AS_BYTES, NULL },
	{ "f_req", "xvbd_vbd_flush_requests_total", "counter",
	  "blkback f_req: flush and barrier requests", XVBD_PROM_AS_IS, NULL },
	{ "ds_req", "xvbd_vbd_discard_requests_total", "counter",
	  "blkback ds_req: discard requests", XVBD_PROM_AS_IS, NULL },
	{ "oo_req", "xvbd_vbd_out_of_requests_total", "counter",
	  "blkback oo_req: times the ring had no free request",
	  XVBD_PROM_AS_IS, NULL },
	{ "rd_lat_ms", "xvbd_vbd_read_latency_seconds", "gauge",
	  "backing device: average read time over the last interval",
	  XVBD_PROM_MS_AS_S, NULL },
	{ "wr_lat_ms", "xvbd_vbd_write_latency_seconds", "gauge",
	  "backing device: average write time over the last interval",
	  XVBD_PROM_MS_AS_S, NULL },
	{ "queue_depth", "xvbd_vbd_queue_depth", "gauge",
	  "backing device: average requests in queue over the last interval",
	  XVBD_PROM_FIXED6, NULL },
	{ "backend_cpu_ns", "xvbd_vbd_backend_cpu_seconds_total", "counter",
	  "CPU time of blkback's kernel threads of the VBD's rings",
	  XVBD_PROM_NS_AS_S, NULL },
	{ "backend_cpu_pct", "xvbd_vbd_backend_cpu_percent", "gauge",
	  "blkback's ring threads: CPU time over the last interval / wall "
	  "time x 100", XVBD_PROM_AS_IS, NULL },
	{ "backend_us_per_req", "xvbd_vbd_backend_cpu_microseconds_per_request",
	  "gauge", "blkback's ring threads: CPU time per request (all kinds) "
	  "over the last interval", XVBD_PROM_AS_IS, NULL },
	{ "rd_kib_per_req", "xvbd_vbd_read_kib_per_request", "gauge",
	  "rd_sect x 512 / rd_req over the last interval, KiB",
	  XVBD_PROM_AS_IS, NULL },
	{ "wr_kib_per_req", "xvbd_vbd_write_kib_per_request", "gauge",
	  "wr_sect x 512 / wr_req over the last interval, KiB",
	  XVBD_PROM_AS_IS, NULL },
	{ "d2c_le_count", "xvbd_vbd_backing_d2c_seconds", "histogram",
	  "backing device: time from a request's issue to the driver to its "
	  "completion (block_rq_issue to block_rq_complete), since xvbd "
	  "began; le bounds exact, in whole ns", XVBD_PROM_AS_IS, "_bucket" },
	{ "d2c_sum_ns", "xvbd_vbd_backing_d2c_seconds", NULL, NULL,
	  XVBD_PROM_NS_AS_S, "_sum" },
	{ "d2c_count", "xvbd_vbd_backing_d2c_seconds", NULL, NULL,
	  XVBD_PROM_AS_IS, "_count" },
	{ "i2c_le_count", "xvbd_vbd_backing_i2c_seconds", "histogram",
	  "backing device: time from a request's insertion into the I/O "
	  "scheduler to its completion (block_rq_insert to "
	  "block_rq_complete), since xvbd began", XVBD_PROM_AS_IS,
	  "_bucket" },
	{ "i2c_sum_ns", "xvbd_vbd_backing_i2c_seconds", NULL, NULL,
	  XVBD_PROM_NS_AS_S, "_sum" },
	{ "i2c_count", "xvbd_vbd_backing_i2c_seconds", NULL, NULL,
	  XVBD_PROM_AS_IS, "_count" },
	{ "ceiling_kib", "xvbd_vbd_request_ceiling_kib", "gauge",
	  "largest request the backend's offer allows (11 or the indirect "
	  "segments offered, x 4 KiB)", XVBD_PROM_AS_IS, NULL },
};

void xvbd_stats_prom_render(FILE *f, const struct xvbd_stats_sample *s)
{
	struct xvbd_out *o = xvbd_out_new_mode(f, XVBD_OUT_PROM);

	if (!o)
		return;
	xvbd_out_prom_metrics(o, prom_metrics,
			      sizeof(prom_metrics) / sizeof(prom_metrics[0]),
			      prom_labels,
			      sizeof(prom_labels) / sizeof(prom_labels[0]));
	render_sample(o, s);
	xvbd_out_finish(o);
	xvbd_out_free(o);
}

/*
 * Write the whole file beside the target, then rename it over: a scraper
 * sees the old file or the new one, never half of one.  The temporary
 * name does not end in .prom, so the collector ignores it.
 */
int xvbd_stats_prom_write(const char *path,
			  const struct xvbd_stats_sample *s)
{
	char tmp[PATH_MAX + 16];
	const char *slash = strrchr(path, '/');
	FILE *f = NULL;
	int fd, rc = 0, n;

	if (slash)
		n = snprintf(tmp, sizeof(tmp), "%.*s/.%s.XXXXXX",
			     (int)(slash - path), path, slash + 1);
	else
		n = snprintf(tmp, sizeof(tmp), ".%s.XXXXXX", path);
	if (n < 0 || (size_t)n >= sizeof(tmp))
		return -ENAMETOOLONG;
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fchmod(fd, 0644) || !(f = fdopen(fd, "w"))) {
		rc = -errno;
		close(fd);
		goto fail;
	}
	xvbd_stats_prom_render(f, s);
	if (fflush(f) || ferror(f))
		rc = -(errno ? errno : EIO);
	if (fclose(f) && !rc)
		rc = -(errno ? errno : EIO);
	if (!rc && rename(tmp, path))
		rc = -errno;
	if (!rc)
		return 0;
fail:
	unlink(tmp);
	return rc;
}

