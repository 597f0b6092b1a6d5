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
#include "xvbd/base/vocab.h"
#include "xvbd/stats/stats.h"
#include "xvbd/dom0/sysfs.h"
#include "stats_impl.h"

#define NS_PER_S		UINT64_C(1000000000)
#define BYTES_PER_MB		1e6	/* MB/s: 10^6 bytes */
#define LIVE_CLEAR		"\033[H\033[2J"

/* ---- one render path: the out layer's modes ---- */


/*
 * CSV: one header, one row per domain and per VBD ("type" tells which);
 * cells that do not apply are empty.  Columns are the JSON names: the
 * vocabulary's (vocab.h) for quantities, the key for the rest.
 */
static const struct {
	int q;			/* enum xvbd_q, or -1: key, no quantity */
	const char *key;
} csv_spec[] = {
	{ -1, "time" }, { -1, "seq" }, { XVBD_Q_INTERVAL_S, NULL },
	{ -1, "type" }, { -1, "domid" }, { -1, "domain" },
	{ XVBD_Q_VCPUS, NULL }, { XVBD_Q_MEM_BYTES, NULL },
	{ XVBD_Q_CPU_NS, NULL }, { XVBD_Q_CPU_PCT, NULL },
	{ -1, "cpu_interval" }, { XVBD_Q_VCPU_PCT, NULL },
	{ -1, "vdev" }, { -1, "devid" },
	{ XVBD_Q_RD_REQ, NULL }, { XVBD_Q_WR_REQ, NULL },
	{ XVBD_Q_RD_SECT, NULL }, { XVBD_Q_WR_SECT, NULL },
	{ XVBD_Q_F_REQ, NULL }, { XVBD_Q_DS_REQ, NULL },
	{ XVBD_Q_OO_REQ, NULL }, { -1, "interval" }, { -1, "reset" },
	{ XVBD_Q_READ_IOPS, NULL }, { XVBD_Q_WRITE_IOPS, NULL },
	{ XVBD_Q_READ_MB_PER_S, NULL }, { XVBD_Q_WRITE_MB_PER_S, NULL },
	{ XVBD_Q_FLUSH_IOPS, NULL }, { XVBD_Q_DISCARD_IOPS, NULL },
	{ XVBD_Q_OO_REQ_PER_S, NULL }, { -1, "backing" },
	{ XVBD_Q_READ_LAT_MS, NULL }, { XVBD_Q_WRITE_LAT_MS, NULL },
	{ XVBD_Q_QUEUE_DEPTH, NULL }, { XVBD_Q_BACKEND_CPU_NS, NULL },
	{ -1, "backend_interval" }, { XVBD_Q_BACKEND_CPU_PCT, NULL },
	{ XVBD_Q_BACKEND_US_PER_REQ, NULL },
	{ XVBD_Q_READ_KIB_PER_REQ, NULL }, { XVBD_Q_WRITE_KIB_PER_REQ, NULL },
	{ XVBD_Q_CEILING_SEGMENTS, NULL }, { XVBD_Q_CEILING_KIB, NULL },
	{ XVBD_Q_READ_CEILING_PCT, NULL }, { XVBD_Q_WRITE_CEILING_PCT, NULL },
	{ XVBD_Q_READ_P50_MS, NULL }, { XVBD_Q_READ_P99_MS, NULL },
	{ XVBD_Q_READ_P99_9_MS, NULL }, { XVBD_Q_READ_MAX_MS, NULL },
	{ XVBD_Q_WRITE_P50_MS, NULL }, { XVBD_Q_WRITE_P99_MS, NULL },
	{ XVBD_Q_WRITE_P99_9_MS, NULL }, { XVBD_Q_WRITE_MAX_MS, NULL },
	{ -1, "lat_state" },
};
#define NCSV	(sizeof(csv_spec) / sizeof(csv_spec[0]))
static const char *csv_columns[NCSV];

/*
 * The labels of "key: value" lines and of the table columns of keys that
 * are no quantity (a quantity's column header: its abbreviation in
 * vocab.h); the first key, interval_s, is filled in from the vocabulary.
 */
static struct xvbd_out_label stats_labels[] = {
	{ "", "interval (s)" },
	{ "time", "time (UTC)" },
	{ "domid", "ID" },
	{ "domain", "DOMAIN" },
	{ "cpu_interval", "NOTE" },
	{ "vdev", "VDEV" },
	{ "backing", "BACKING" },
	{ "interval", "NOTE" },
	{ "lat_state", "LATENCY" },
	{ "latency_unavailable", "latency" },
	{ "latency_clock", "latency clock" },
	{ "latency_relative_error", "latency error" },
	{ NULL, NULL },
};

static void csv_columns_fill(void)
{
	size_t i;

	for (i = 0; i < NCSV; i++)
		csv_columns[i] = csv_spec[i].q >= 0 ?
				 xvbd_q_name(csv_spec[i].q) : csv_spec[i].key;
	stats_labels[0].key = XVBD_QN(INTERVAL_S);
}

static void render_dom(struct xvbd_out *o, const struct xvbd_stats_dom *d)
{
	bool ok = d->cpu_iv == XVBD_IV_OK, human = xvbd_out_is_text(o);
	size_t i;

	if (xvbd_out_mode(o) == XVBD_OUT_CSV)
		xvbd_out_str(o, "type", "domain");
	xvbd_out_uint(o, "domid", d->domid);
	xvbd_out_str(o, "domain", d->name);
	xvbd_out_uint(o, XVBD_QN(VCPUS), d->vcpus);
	xvbd_out_size_opt(o, XVBD_QN(MEM_BYTES), true, d->mem_bytes);
	if (!human)
		xvbd_out_uint(o, XVBD_QN(CPU_NS), d->cpu_ns);
	xvbd_out_fixed_opt(o, XVBD_QN(CPU_PCT), ok, d->cpu_pct, 2);
	if (d->nvcpu && xvbd_out_is_json(o)) {
		xvbd_out_arr_begin(o, XVBD_QN(VCPU_NS));
		for (i = 0; i < d->nvcpu; i++)
			xvbd_out_uint(o, NULL, d->vcpu_ns[i]);
		xvbd_out_arr_end(o);
		xvbd_out_arr_begin(o, XVBD_QN(VCPU_PCT));
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
		xvbd_out_str(o, XVBD_QN(VCPU_PCT), buf);
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
		xvbd_out_uint(o, XVBD_QN(CPU_NS), r->cpu_ns);
		xvbd_out_fixed_opt(o, XVBD_QN(CPU_PCT), r->iv == XVBD_IV_OK,
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
		xvbd_out_uint_opt(o, XVBD_QN(BACKEND_CPU_NS), v->be_known,
				  v->be_cpu_ns);
		xvbd_out_str(o, "backend_interval",
			     v->be_known || v->be_iv == XVBD_IV_RESET ?
			     xvbd_stats_iv_name(v->be_iv) : "unknown");
	}
	xvbd_out_fixed_opt(o, XVBD_QN(BACKEND_CPU_PCT), be, v->be_cpu_pct, 2);
	xvbd_out_fixed_opt(o, XVBD_QN(BACKEND_US_PER_REQ),
			   be && v->be_us_per_req_known, v->be_us_per_req, 1);
	xvbd_out_fixed_opt(o, XVBD_QN(READ_KIB_PER_REQ), v->rd_kib_known,
			   v->rd_kib_per_req, 1);
	xvbd_out_fixed_opt(o, XVBD_QN(WRITE_KIB_PER_REQ), v->wr_kib_known,
			   v->wr_kib_per_req, 1);
	if (!human)
		xvbd_out_uint_opt(o, XVBD_QN(CEILING_SEGMENTS),
				  v->ceiling_known, v->ceiling_segments);
	xvbd_out_fixed_opt(o, XVBD_QN(CEILING_KIB), v->ceiling_known,
			   v->ceiling_kib, 0);
	if (!human) {
		xvbd_out_fixed_opt(o, XVBD_QN(READ_CEILING_PCT),
				   v->ceiling_known && v->rd_kib_known,
				   v->rd_ceiling_pct, 1);
		xvbd_out_fixed_opt(o, XVBD_QN(WRITE_CEILING_PCT),
				   v->ceiling_known && v->wr_kib_known,
				   v->wr_ceiling_pct, 1);
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
	xvbd_out_fixed_opt(o, XVBD_QN(READ_IOPS), ok, v->rd_req_s, 2);
	xvbd_out_fixed_opt(o, XVBD_QN(WRITE_IOPS), ok, v->wr_req_s, 2);
	/* MB/s to the byte in machine output, the sectors' resolution */
	xvbd_out_fixed_opt(o, XVBD_QN(READ_MB_PER_S), ok,
			   v->rd_bytes_s / BYTES_PER_MB, human ? 2 : 6);
	xvbd_out_fixed_opt(o, XVBD_QN(WRITE_MB_PER_S), ok,
			   v->wr_bytes_s / BYTES_PER_MB, human ? 2 : 6);
	xvbd_out_fixed_opt(o, XVBD_QN(FLUSH_IOPS), ok, v->f_req_s, 2);
	xvbd_out_fixed_opt(o, XVBD_QN(DISCARD_IOPS), ok, v->ds_req_s, 2);
	xvbd_out_fixed_opt(o, XVBD_QN(OO_REQ_PER_S), ok, v->oo_req_s, 2);
	xvbd_out_fixed_opt(o, XVBD_QN(READ_LAT_MS), blk && v->rd_lat_known,
			   v->rd_lat_ms, 3);
	xvbd_out_fixed_opt(o, XVBD_QN(WRITE_LAT_MS), blk && v->wr_lat_known,
			   v->wr_lat_ms, 3);
	xvbd_out_fixed_opt(o, XVBD_QN(QUEUE_DEPTH), blk, v->queue_depth, 2);
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
	xvbd_out_fixed_opt(o, XVBD_QN(INTERVAL_S), true,
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
	if (!csv_columns[0])
		csv_columns_fill();
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

/*
 * The families, each read from one field: the quantity's (a histogram's
 * rows: their own keys, stats_render_lat.c), named by the vocabulary
 * (vocab.h); the help says what the sample is.
 */
static const struct {
	enum xvbd_q q;
	const char *row_key;	/* NULL: the quantity's name */
	const char *type, *help;
	enum xvbd_out_prom_unit unit;
	const char *suffix;
} prom_spec[] = {
	{ XVBD_Q_CPU_NS, NULL, "counter",
	  "CPU time used by all vCPUs of the domain", XVBD_PROM_NS_AS_S, NULL },
	{ XVBD_Q_CPU_PCT, NULL, "gauge",
	  "CPU time over the last interval / wall time x 100",
	  XVBD_PROM_AS_IS, NULL },
	{ XVBD_Q_VCPUS, NULL, "gauge", "online vCPUs",
	  XVBD_PROM_AS_IS, NULL },
	{ XVBD_Q_MEM_BYTES, NULL, "gauge",
	  "current memory allocation", XVBD_PROM_AS_IS, NULL },
	{ XVBD_Q_RD_REQ, NULL, "counter",
	  "blkback rd_req: read requests", XVBD_PROM_AS_IS, NULL },
	{ XVBD_Q_WR_REQ, NULL, "counter",
	  "blkback wr_req: write requests", XVBD_PROM_AS_IS, NULL },
	{ XVBD_Q_RD_SECT, NULL, "counter",
	  "blkback rd_sect x 512", XVBD_PROM_SECTORS_AS_BYTES, NULL },
	{ XVBD_Q_WR_SECT, NULL, "counter",
	  "blkback wr_sect x 512", XVBD_PROM_SECTORS_AS_BYTES, NULL },
	{ XVBD_Q_F_REQ, NULL, "counter",
	  "blkback f_req: flush and barrier requests", XVBD_PROM_AS_IS, NULL },
	{ XVBD_Q_DS_REQ, NULL, "counter",
	  "blkback ds_req: discard requests", XVBD_PROM_AS_IS, NULL },
	{ XVBD_Q_OO_REQ, NULL, "counter",
	  "blkback oo_req: times the ring had no free request",
	  XVBD_PROM_AS_IS, NULL },
	{ XVBD_Q_READ_LAT_MS, NULL, "gauge",
	  "backing device: average read time over the last interval",
	  XVBD_PROM_MS_AS_S, NULL },
	{ XVBD_Q_WRITE_LAT_MS, NULL, "gauge",
	  "backing device: average write time over the last interval",
	  XVBD_PROM_MS_AS_S, NULL },
	{ XVBD_Q_QUEUE_DEPTH, NULL, "gauge",
	  "backing device: average requests in queue over the last interval",
	  XVBD_PROM_FIXED6, NULL },
	{ XVBD_Q_BACKEND_CPU_NS, NULL, "counter",
	  "CPU time of blkback's kernel threads of the VBD's rings",
	  XVBD_PROM_NS_AS_S, NULL },
	{ XVBD_Q_BACKEND_CPU_PCT, NULL, "gauge",
	  "blkback's ring threads: CPU time over the last interval / wall "
	  "time x 100", XVBD_PROM_AS_IS, NULL },
	{ XVBD_Q_BACKEND_US_PER_REQ, NULL, "gauge",
	  "blkback's ring threads: CPU time per request (all kinds) over "
	  "the last interval", XVBD_PROM_AS_IS, NULL },
	{ XVBD_Q_READ_KIB_PER_REQ, NULL, "gauge",
	  "rd_sect x 512 / rd_req over the last interval, KiB",
	  XVBD_PROM_AS_IS, NULL },
	{ XVBD_Q_WRITE_KIB_PER_REQ, NULL, "gauge",
	  "wr_sect x 512 / wr_req over the last interval, KiB",
	  XVBD_PROM_AS_IS, NULL },
	{ XVBD_Q_D2C, "d2c_le_count", "histogram",
	  "backing device: time from a request's issue to the driver to its "
	  "completion (block_rq_issue to block_rq_complete), since xvbd "
	  "began; le bounds exact, in whole ns", XVBD_PROM_AS_IS, "_bucket" },
	{ XVBD_Q_D2C, "d2c_sum_ns", NULL, NULL,
	  XVBD_PROM_NS_AS_S, "_sum" },
	{ XVBD_Q_D2C, "d2c_count", NULL, NULL,
	  XVBD_PROM_AS_IS, "_count" },
	{ XVBD_Q_I2C, "i2c_le_count", "histogram",
	  "backing device: time from a request's insertion into the I/O "
	  "scheduler to its completion (block_rq_insert to "
	  "block_rq_complete), since xvbd began", XVBD_PROM_AS_IS,
	  "_bucket" },
	{ XVBD_Q_I2C, "i2c_sum_ns", NULL, NULL,
	  XVBD_PROM_NS_AS_S, "_sum" },
	{ XVBD_Q_I2C, "i2c_count", NULL, NULL,
	  XVBD_PROM_AS_IS, "_count" },
	{ XVBD_Q_CEILING_KIB, NULL, "gauge",
	  "largest request the backend's offer allows (11 or the indirect "
	  "segments offered, x 4 KiB)", XVBD_PROM_AS_IS, NULL },
};
#define NPROM	(sizeof(prom_spec) / sizeof(prom_spec[0]))
static struct xvbd_out_prom_metric prom_metrics[NPROM];

static void prom_metrics_fill(void)
{
	size_t i;

	for (i = 0; i < NPROM; i++)
		prom_metrics[i] = (struct xvbd_out_prom_metric){
			prom_spec[i].row_key ? prom_spec[i].row_key :
			xvbd_q_name(prom_spec[i].q),
			xvbd_quantities[prom_spec[i].q].prom, prom_spec[i].type,
			prom_spec[i].help, prom_spec[i].unit,
			prom_spec[i].suffix };
}

void xvbd_stats_prom_render(FILE *f, const struct xvbd_stats_sample *s)
{
	struct xvbd_out *o = xvbd_out_new_mode(f, XVBD_OUT_PROM);

	if (!o)
		return;
	if (!prom_metrics[0].key)
		prom_metrics_fill();
	xvbd_out_prom_metrics(o, prom_metrics, NPROM,
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

