/*
 * stats_render.c - one sample, rendered: text (a table per sample, or a
 * live screen), JSON Lines, CSV, and the Prometheus textfile format.
 *
 * One function describes a sample (render_dom, render_vbd) through a
 * small sink; text and JSON go through the out layer, CSV through a row
 * of cells named like the JSON fields.  Numbers are formatted once
 * ("%.*f"), so the three carry the same digits.
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

#define NS_PER_S		UINT64_C(1000000000)
#define BYTES_PER_MB		1e6	/* MB/s in text: 10^6 bytes */
#define LIVE_CLEAR		"\033[H\033[2J"

/* ---- one render path: text / JSON through out, or a CSV row ---- */

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
};
#define NCSV	(sizeof(csv_columns) / sizeof(csv_columns[0]))

struct sink {
	FILE *f;
	struct xvbd_out *o;		/* text or JSON */
	bool human;			/* text: MB/s, no raw counters */
	bool csv;
	char *cell[NCSV];		/* CSV: the row being built */
	bool failed;
};

static void sink_cell(struct sink *k, const char *key, const char *text)
{
	size_t i;

	for (i = 0; i < NCSV; i++) {
		if (strcmp(csv_columns[i], key))
			continue;
		free(k->cell[i]);
		k->cell[i] = strdup(text);
		if (!k->cell[i])
			k->failed = true;
		return;
	}
}

static void sink_str(struct sink *k, const char *key, const char *v)
{
	if (k->csv)
		sink_cell(k, key, v ? v : "");
	else
		xvbd_out_str(k->o, key, v);
}

static void sink_uint(struct sink *k, const char *key, uint64_t v)
{
	char buf[24];

	if (!k->csv) {
		xvbd_out_uint(k->o, key, v);
		return;
	}
	snprintf(buf, sizeof(buf), "%" PRIu64, v);
	sink_cell(k, key, buf);
}

static void sink_uint_opt(struct sink *k, const char *key, bool known,
			  uint64_t v)
{
	if (known)
		sink_uint(k, key, v);
	else if (k->csv)
		sink_cell(k, key, "");
	else
		xvbd_out_null(k->o, key);
}

static void sink_bool(struct sink *k, const char *key, bool v)
{
	if (k->csv)
		sink_cell(k, key, v ? "true" : "false");
	else
		xvbd_out_bool(k->o, key, v);
}

/* Same digits everywhere: "%.*f", null / "-" / empty when unknown. */
static void sink_fixed(struct sink *k, const char *key, bool known, double v,
		       int decimals)
{
	char buf[64];

	if (!k->csv) {
		xvbd_out_fixed_opt(k->o, key, known, v, decimals);
		return;
	}
	if (known && v == v && v < 1e18 && v > -1e18)
		snprintf(buf, sizeof(buf), "%.*f", decimals, v);
	else
		buf[0] = '\0';
	sink_cell(k, key, buf);
}

static void sink_row_begin(struct sink *k)
{
	size_t i;

	if (!k->csv) {
		xvbd_out_obj_begin(k->o, NULL);
		return;
	}
	for (i = 0; i < NCSV; i++) {
		free(k->cell[i]);
		k->cell[i] = NULL;
	}
}

/* RFC 4180 quoting; control bytes become \xNN like the out layer's. */
static void csv_put(FILE *f, const char *s)
{
	bool quote = strpbrk(s, ",\"") != NULL;
	const unsigned char *p;

	if (quote)
		fputc('"', f);
	for (p = (const unsigned char *)s; *p; p++) {
		if (*p == '"')
			fputs("\"\"", f);
		else if (*p < 0x20 || *p >= 0x7f)
			fprintf(f, "\\x%02x", *p);
		else
			fputc(*p, f);
	}
	if (quote)
		fputc('"', f);
}

static void sink_row_end(struct sink *k, const char *time_str,
			 const char *seq, const char *interval)
{
	size_t i;

	if (!k->csv) {
		xvbd_out_obj_end(k->o);
		return;
	}
	sink_cell(k, "time", time_str);
	sink_cell(k, "seq", seq);
	sink_cell(k, "interval_s", interval);
	for (i = 0; i < NCSV; i++) {
		if (i)
			fputc(',', k->f);
		csv_put(k->f, k->cell[i] ? k->cell[i] : "");
	}
	fputc('\n', k->f);
}

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
	{ NULL, NULL },
};

static void render_dom(struct sink *k, const struct xvbd_stats_dom *d)
{
	bool ok = d->cpu_iv == XVBD_IV_OK;
	size_t i;

	sink_uint(k, "domid", d->domid);
	sink_str(k, "domain", d->name);
	sink_uint(k, "vcpus", d->vcpus);
	if (k->human && !k->csv)
		xvbd_out_size_opt(k->o, "mem_bytes", true, d->mem_bytes);
	else
		sink_uint(k, "mem_bytes", d->mem_bytes);
	if (!k->human)
		sink_uint(k, "cpu_ns", d->cpu_ns);
	sink_fixed(k, "cpu_pct", ok, d->cpu_pct, 2);
	if (d->nvcpu && !k->human && !k->csv) {
		xvbd_out_arr_begin(k->o, "vcpu_ns");
		for (i = 0; i < d->nvcpu; i++)
			xvbd_out_uint(k->o, NULL, d->vcpu_ns[i]);
		xvbd_out_arr_end(k->o);
		xvbd_out_arr_begin(k->o, "vcpu_pct");
		for (i = 0; i < d->nvcpu; i++)
			xvbd_out_fixed_opt(k->o, NULL, d->vcpu_pct_known[i],
					   d->vcpu_pct[i], 2);
		xvbd_out_arr_end(k->o);
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
		sink_str(k, "vcpu_pct", buf);
	}
	sink_str(k, "cpu_interval", xvbd_stats_iv_name(d->cpu_iv));
}

/* Per ring, in JSON only: a table cell cannot hold a list. */
static void render_rings(struct sink *k, const struct xvbd_stats_vbd *v)
{
	size_t i;

	if (!v->be_known) {
		xvbd_out_null(k->o, "rings");
		return;
	}
	xvbd_out_arr_begin(k->o, "rings");
	for (i = 0; i < v->nrings; i++) {
		const struct xvbd_stats_ring *r = &v->rings[i];

		xvbd_out_obj_begin(k->o, NULL);
		xvbd_out_uint(k->o, "ring", r->ring);
		xvbd_out_uint(k->o, "pid", (uint64_t)r->pid);
		xvbd_out_uint(k->o, "cpu_ns", r->cpu_ns);
		xvbd_out_fixed_opt(k->o, "cpu_pct", r->iv == XVBD_IV_OK,
				   r->cpu_pct, 2);
		xvbd_out_obj_end(k->o);
	}
	xvbd_out_arr_end(k->o);
}

/* What the VBD costs dom0, and the size of its requests. */
static void render_cost(struct sink *k, const struct xvbd_stats_vbd *v)
{
	bool be = v->be_known && v->be_iv == XVBD_IV_OK;

	if (!k->human) {
		sink_uint_opt(k, "backend_cpu_ns", v->be_known, v->be_cpu_ns);
		sink_str(k, "backend_interval",
			 v->be_known || v->be_iv == XVBD_IV_RESET ?
			 xvbd_stats_iv_name(v->be_iv) : "unknown");
	}
	sink_fixed(k, "backend_cpu_pct", be, v->be_cpu_pct, 2);
	sink_fixed(k, "backend_us_per_req", be && v->be_us_per_req_known,
		   v->be_us_per_req, 1);
	sink_fixed(k, "rd_kib_per_req", v->rd_kib_known, v->rd_kib_per_req,
		   1);
	sink_fixed(k, "wr_kib_per_req", v->wr_kib_known, v->wr_kib_per_req,
		   1);
	if (!k->human)
		sink_uint_opt(k, "ceiling_segments", v->ceiling_known,
			      v->ceiling_segments);
	sink_fixed(k, "ceiling_kib", v->ceiling_known, v->ceiling_kib, 0);
	if (!k->human) {
		sink_fixed(k, "rd_ceiling_pct", v->ceiling_known &&
			   v->rd_kib_known, v->rd_ceiling_pct, 1);
		sink_fixed(k, "wr_ceiling_pct", v->ceiling_known &&
			   v->wr_kib_known, v->wr_ceiling_pct, 1);
	}
	if (!k->human && !k->csv)
		render_rings(k, v);
}

static void render_vbd(struct sink *k, const struct xvbd_stats_vbd *v)
{
	bool ok = v->iv == XVBD_IV_OK, blk = v->has_blk &&
		  v->blk_iv == XVBD_IV_OK;
	char backing[24];
	size_t i;

	sink_uint(k, "domid", v->domid);
	sink_str(k, "domain", v->domain);
	sink_str(k, "vdev", v->vdev);
	if (!k->human) {
		sink_uint(k, "devid", v->devid);
		/* The raw cumulative counters, under blkback's sysfs names. */
		for (i = 0; i < XVBD_BLKBACK_NFIELDS; i++)
			sink_uint(k, xvbd_blkback_fields[i].name,
				  *(const uint64_t *)((const char *)&v->raw +
					xvbd_blkback_fields[i].offset));
		sink_str(k, "interval", xvbd_stats_iv_name(v->iv));
		sink_bool(k, "reset", !ok);
	}
	sink_fixed(k, "rd_req_per_s", ok, v->rd_req_s, 2);
	sink_fixed(k, "wr_req_per_s", ok, v->wr_req_s, 2);
	if (k->human) {
		sink_fixed(k, "rd_mb_per_s", ok, v->rd_bytes_s / BYTES_PER_MB,
			   2);
		sink_fixed(k, "wr_mb_per_s", ok, v->wr_bytes_s / BYTES_PER_MB,
			   2);
	} else {
		sink_fixed(k, "rd_bytes_per_s", ok, v->rd_bytes_s, 0);
		sink_fixed(k, "wr_bytes_per_s", ok, v->wr_bytes_s, 0);
	}
	sink_fixed(k, "f_req_per_s", ok, v->f_req_s, 2);
	sink_fixed(k, "ds_req_per_s", ok, v->ds_req_s, 2);
	sink_fixed(k, "oo_req_per_s", ok, v->oo_req_s, 2);
	sink_fixed(k, "rd_lat_ms", blk && v->rd_lat_known, v->rd_lat_ms, 3);
	sink_fixed(k, "wr_lat_ms", blk && v->wr_lat_known, v->wr_lat_ms, 3);
	sink_fixed(k, "queue_depth", blk, v->queue_depth, 2);
	snprintf(backing, sizeof(backing), "%u:%u", v->blk_major,
		 v->blk_minor);
	sink_str(k, "backing", v->has_blk ? backing : NULL);
	render_cost(k, v);
	if (k->human)
		sink_str(k, "interval", xvbd_stats_iv_name(v->iv));
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

int xvbd_stats_render(FILE *f, enum xvbd_stats_fmt fmt,
		      const struct xvbd_stats_sample *s, bool first)
{
	bool text = fmt == XVBD_STATS_TEXT || fmt == XVBD_STATS_LIVE;
	struct sink k = { .f = f, .human = text,
			  .csv = fmt == XVBD_STATS_CSV };
	char time_str[48], seq[24], interval[32];
	size_t i;
	int rc = 0;

	fmt_time(s->realtime_ns, time_str, sizeof(time_str));
	snprintf(seq, sizeof(seq), "%" PRIu64, s->seq);
	snprintf(interval, sizeof(interval), "%.6f",
		 (double)s->interval_ns / (double)NS_PER_S);
	if (k.csv) {
		if (first)
			for (i = 0; i < NCSV; i++)
				fprintf(f, "%s%s", csv_columns[i],
					i + 1 < NCSV ? "," : "\n");
		for (i = 0; i < s->ndoms; i++) {
			sink_row_begin(&k);
			sink_str(&k, "type", "domain");
			render_dom(&k, &s->doms[i]);
			sink_row_end(&k, time_str, seq, interval);
		}
		for (i = 0; i < s->nvbds; i++) {
			sink_row_begin(&k);
			sink_str(&k, "type", "vbd");
			render_vbd(&k, &s->vbds[i]);
			sink_row_end(&k, time_str, seq, interval);
		}
		sink_row_begin(&k);	/* frees the last row's cells */
		rc = k.failed || fflush(f) || ferror(f) ? -1 : 0;
		return rc;
	}
	k.o = xvbd_out_new(f, fmt == XVBD_STATS_JSON);
	if (!k.o)
		return -1;
	xvbd_out_labels(k.o, stats_labels);
	if (fmt == XVBD_STATS_LIVE)
		fputs(LIVE_CLEAR, f);
	else if (text && !first)
		fputc('\n', f);	/* a blank line between samples */
	xvbd_out_obj_begin(k.o, NULL);
	xvbd_out_str(k.o, "time", time_str);
	xvbd_out_uint(k.o, "seq", s->seq);
	xvbd_out_fixed_opt(k.o, "interval_s", true,
			   (double)s->interval_ns / (double)NS_PER_S, 6);
	xvbd_out_arr_begin(k.o, "domains");
	for (i = 0; i < s->ndoms; i++) {
		xvbd_out_obj_begin(k.o, NULL);
		render_dom(&k, &s->doms[i]);
		xvbd_out_obj_end(k.o);
	}
	xvbd_out_arr_end(k.o);
	xvbd_out_arr_begin(k.o, "vbds");
	for (i = 0; i < s->nvbds; i++) {
		xvbd_out_obj_begin(k.o, NULL);
		render_vbd(&k, &s->vbds[i]);
		xvbd_out_obj_end(k.o);
	}
	xvbd_out_arr_end(k.o);
	xvbd_out_obj_end(k.o);
	rc = xvbd_out_finish(k.o);	/* flushes: one write per sample */
	xvbd_out_free(k.o);
	return rc;
}

/* ---- Prometheus textfile ---- */

/* Label values: backslash, double quote and newline are escaped. */
static void prom_label(FILE *f, const char *s)
{
	const unsigned char *p;

	for (p = (const unsigned char *)s; *p; p++) {
		if (*p == '\\' || *p == '"')
			fprintf(f, "\\%c", *p);
		else if (*p == '\n')
			fputs("\\n", f);
		else if (*p < 0x20 || *p >= 0x7f)
			fprintf(f, "\\\\x%02x", *p);
		else
			fputc(*p, f);
	}
}

struct prom_metric {
	const char *name, *type, *help;
};

static const struct prom_metric prom_dom_metrics[] = {
	{ "xvbd_domain_cpu_seconds_total", "counter",
	  "CPU time used by all vCPUs of the domain" },
	{ "xvbd_domain_cpu_percent", "gauge",
	  "CPU time over the last interval / wall time x 100" },
	{ "xvbd_domain_vcpus", "gauge", "online vCPUs" },
	{ "xvbd_domain_memory_bytes", "gauge", "current memory allocation" },
};

static const struct prom_metric prom_vbd_metrics[] = {
	{ "xvbd_vbd_read_requests_total", "counter",
	  "blkback rd_req: read requests" },
	{ "xvbd_vbd_write_requests_total", "counter",
	  "blkback wr_req: write requests" },
	{ "xvbd_vbd_read_bytes_total", "counter",
	  "blkback rd_sect x 512" },
	{ "xvbd_vbd_write_bytes_total", "counter",
	  "blkback wr_sect x 512" },
	{ "xvbd_vbd_flush_requests_total", "counter",
	  "blkback f_req: flush and barrier requests" },
	{ "xvbd_vbd_discard_requests_total", "counter",
	  "blkback ds_req: discard requests" },
	{ "xvbd_vbd_out_of_requests_total", "counter",
	  "blkback oo_req: times the ring had no free request" },
	{ "xvbd_vbd_read_latency_seconds", "gauge",
	  "backing device: average read time over the last interval" },
	{ "xvbd_vbd_write_latency_seconds", "gauge",
	  "backing device: average write time over the last interval" },
	{ "xvbd_vbd_queue_depth", "gauge",
	  "backing device: average requests in queue over the last interval" },
	{ "xvbd_vbd_backend_cpu_percent", "gauge",
	  "blkback's ring threads: CPU time over the last interval / wall "
	  "time x 100" },
	{ "xvbd_vbd_backend_cpu_seconds_per_request", "gauge",
	  "blkback's ring threads: CPU time per request (all kinds) over "
	  "the last interval" },
	{ "xvbd_vbd_read_bytes_per_request", "gauge",
	  "rd_sect x 512 / rd_req over the last interval" },
	{ "xvbd_vbd_write_bytes_per_request", "gauge",
	  "wr_sect x 512 / wr_req over the last interval" },
	{ "xvbd_vbd_request_ceiling_bytes", "gauge",
	  "largest request the backend's offer allows (11 or the indirect "
	  "segments offered, x 4096)" },
};

static void prom_head(FILE *f, const struct prom_metric *m)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", m->name, m->help, m->name,
		m->type);
}

static void prom_dom_labels(FILE *f, const struct xvbd_stats_dom *d)
{
	fprintf(f, "{domid=\"%" PRIu32 "\",domain=\"", d->domid);
	prom_label(f, d->name);
	fputs("\"}", f);
}

static void prom_vbd_labels(FILE *f, const struct xvbd_stats_vbd *v)
{
	fprintf(f, "{domid=\"%" PRIu32 "\",domain=\"", v->domid);
	prom_label(f, v->domain);
	fputs("\",vdev=\"", f);
	prom_label(f, v->vdev);
	fprintf(f, "\",devid=\"%" PRIu32 "\"}", v->devid);
}

/* Metrics 10..14 (cost and request size): known in this interval? */
static bool prom_cost_known(const struct xvbd_stats_vbd *v, size_t m)
{
	bool be = v->be_known && v->be_iv == XVBD_IV_OK;

	switch (m) {
	case 10: return be;
	case 11: return be && v->be_us_per_req_known;
	case 12: return v->rd_kib_known;
	case 13: return v->wr_kib_known;
	case 14: return v->ceiling_known;
	default: return true;
	}
}

static double prom_cost(const struct xvbd_stats_vbd *v, size_t m)
{
	switch (m) {
	case 10: return v->be_cpu_pct;
	case 11: return v->be_us_per_req / 1e6;
	case 12: return v->rd_kib_per_req * 1024.0;
	case 13: return v->wr_kib_per_req * 1024.0;
	default: return v->ceiling_kib * 1024.0;
	}
}

/* Per ring: the thread's cumulative CPU time. */
static void prom_rings(FILE *f, const struct xvbd_stats_sample *s)
{
	static const struct prom_metric m = {
		"xvbd_vbd_ring_cpu_seconds_total", "counter",
		"CPU time of blkback's kernel thread of one ring" };
	size_t i, r;

	prom_head(f, &m);
	for (i = 0; i < s->nvbds; i++) {
		const struct xvbd_stats_vbd *v = &s->vbds[i];

		for (r = 0; v->be_known && r < v->nrings; r++) {
			fprintf(f, "%s{domid=\"%" PRIu32 "\",domain=\"",
				m.name, v->domid);
			prom_label(f, v->domain);
			fputs("\",vdev=\"", f);
			prom_label(f, v->vdev);
			fprintf(f, "\",devid=\"%" PRIu32 "\",ring=\"%" PRIu32
				"\"} %" PRIu64 ".%09" PRIu64 "\n", v->devid,
				v->rings[r].ring, v->rings[r].cpu_ns / NS_PER_S,
				v->rings[r].cpu_ns % NS_PER_S);
		}
	}
}

void xvbd_stats_prom_render(FILE *f, const struct xvbd_stats_sample *s)
{
	size_t m, i;

	for (m = 0; m < sizeof(prom_dom_metrics) / sizeof(*prom_dom_metrics);
	     m++) {
		prom_head(f, &prom_dom_metrics[m]);
		for (i = 0; i < s->ndoms; i++) {
			const struct xvbd_stats_dom *d = &s->doms[i];

			if (m == 1 && d->cpu_iv != XVBD_IV_OK)
				continue;
			fputs(prom_dom_metrics[m].name, f);
			prom_dom_labels(f, d);
			if (m == 0)
				fprintf(f, " %" PRIu64 ".%09" PRIu64 "\n",
					d->cpu_ns / NS_PER_S,
					d->cpu_ns % NS_PER_S);
			else if (m == 1)
				fprintf(f, " %.2f\n", d->cpu_pct);
			else if (m == 2)
				fprintf(f, " %" PRIu32 "\n", d->vcpus);
			else
				fprintf(f, " %" PRIu64 "\n", d->mem_bytes);
		}
	}
	for (m = 0; m < sizeof(prom_vbd_metrics) / sizeof(*prom_vbd_metrics);
	     m++) {
		prom_head(f, &prom_vbd_metrics[m]);
		for (i = 0; i < s->nvbds; i++) {
			const struct xvbd_stats_vbd *v = &s->vbds[i];
			bool blk = v->has_blk && v->blk_iv == XVBD_IV_OK;
			const struct xvbd_blkback_counters *c = &v->raw;
			uint64_t val = 0;
			double g = 0.0;

			if ((m == 7 && !(blk && v->rd_lat_known)) ||
			    (m == 8 && !(blk && v->wr_lat_known)) ||
			    (m == 9 && !blk) || !prom_cost_known(v, m))
				continue;
			fputs(prom_vbd_metrics[m].name, f);
			prom_vbd_labels(f, v);
			switch (m) {
			case 0: val = c->rd_req; break;
			case 1: val = c->wr_req; break;
			case 2: val = c->rd_sect * XVBD_SECTOR_BYTES; break;
			case 3: val = c->wr_sect * XVBD_SECTOR_BYTES; break;
			case 4: val = c->f_req; break;
			case 5: val = c->ds_req; break;
			case 6: val = c->oo_req; break;
			case 7: g = v->rd_lat_ms / 1000.0; break;
			case 8: g = v->wr_lat_ms / 1000.0; break;
			case 9: g = v->queue_depth; break;
			default: g = prom_cost(v, m); break;
			}
			if (m < 7)
				fprintf(f, " %" PRIu64 "\n", val);
			else
				fprintf(f, " %.6f\n", g);
		}
	}
	prom_rings(f, s);
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

