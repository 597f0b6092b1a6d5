/*
 * ab_interf.c - interference: what else used the host during a run
 * (ab.h says what is measured and when a run is flagged).
 *
 * Other domains' CPU comes from one cumulative sum per sample (the
 * stats layer adds up, from its one domain-list call, the CPU time of
 * every domain it does not keep), so a domain that came or went during
 * the run never makes it go back.  The backing device is judged on its
 * sectors where the record has them: the block layer merges a guest's
 * adjacent requests (fewer I/Os than blkback's requests) and splits
 * large ones at the device's limits (more), but moves the same bytes,
 * so only another user's I/O makes the device's sectors outgrow the
 * VBD's.  Pure (unit-tested).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ab_compare_impl.h"
#include "xvbd/base/out.h"
#include "xvbd/stats/stats.h"
#include "xvbd/base/vocab.h"

#define NS_PER_S	1e9
#define BYTES_PER_MB	1e6

/* host.cpus of the fingerprint; 0 when unknown. */
static uint32_t host_cpus(const struct xvbd_ab_record *rec)
{
	const char *v = xvbd_ab_fp_get(&rec->fp, "host.cpus");
	unsigned long n;
	char *end;

	if (!v || *v < '1' || *v > '9')
		return 0;
	n = strtoul(v, &end, 10);
	return *end || n > UINT32_MAX ? 0 : (uint32_t)n;
}

/* Others' CPU from sample i to sample j. */
static void span(const struct xvbd_ab_record *rec, size_t i, size_t j,
		 uint32_t cpus, struct xvbd_ab_interf_span *out)
{
	const struct xvbd_ab_sample *a = &rec->samples[i];
	const struct xvbd_ab_sample *b = &rec->samples[j];

	memset(out, 0, sizeof(*out));
	if (j <= i || b->t_ns <= a->t_ns || b->others_cpu_ns < a->others_cpu_ns)
		return;
	out->known = true;
	out->cpu_pct = (double)(b->others_cpu_ns - a->others_cpu_ns) * 100.0 /
		       (double)(b->t_ns - a->t_ns);
	if (cpus) {
		out->host_known = true;
		out->host_pct = out->cpu_pct / cpus;
	}
}

/* Did any VBD have requests, or its device busy time grow, in (i-1, i]? */
static bool interval_busy(const struct xvbd_ab_record *rec, size_t i)
{
	size_t v;

	for (v = 0; v < rec->nvdevs; v++) {
		const struct xvbd_ab_vbd_sample *a = &rec->samples[i - 1].vbds[v];
		const struct xvbd_ab_vbd_sample *b = &rec->samples[i].vbds[v];

		if (b->reset)
			continue;
		if (b->c.rd_req > a->c.rd_req || b->c.wr_req > a->c.wr_req ||
		    b->c.f_req > a->c.f_req || b->c.ds_req > a->c.ds_req)
			return true;
		if (a->has_io_ticks && b->has_io_ticks &&
		    b->blk_io_ticks_ms != a->blk_io_ticks_ms)
			return true;
	}
	return false;
}

static void others_cpu(const struct xvbd_ab_record *rec,
		       struct xvbd_ab_interf *f)
{
	size_t i, first = 0, last = 0;

	for (i = 0; i < rec->nsamples; i++) {
		if (!rec->samples[i].has_others)
			return;
		if (rec->samples[i].others_doms > f->others_doms)
			f->others_doms = rec->samples[i].others_doms;
	}
	f->cpu_known = rec->nsamples > 1;
	if (!f->cpu_known)
		return;
	f->host_cpus = host_cpus(rec);
	span(rec, 0, rec->nsamples - 1, f->host_cpus, &f->window);
	for (i = 1; i < rec->nsamples; i++) {
		if (!interval_busy(rec, i))
			continue;
		if (!first)
			first = i;
		last = i;
	}
	if (first)
		span(rec, first - 1, last, f->host_cpus, &f->busy);
	f->cpu_flagged = (f->window.host_known &&
			  f->window.host_pct > f->cpu_threshold * 100.0) ||
			 (f->busy.host_known &&
			  f->busy.host_pct > f->cpu_threshold * 100.0);
}

/* One VBD's device and own counts over (i-1, i]: false when unusable. */
static bool vbd_counts(const struct xvbd_ab_vbd_sample *a,
		       const struct xvbd_ab_vbd_sample *b, uint64_t d[4],
		       bool *sect)
{
	uint64_t x[8];

	if (b->reset || !a->has_blk || !b->has_blk ||
	    xvbd_stats_delta(a->blk_rd_ios, b->blk_rd_ios, 64, &x[0]) ||
	    xvbd_stats_delta(a->blk_wr_ios, b->blk_wr_ios, 64, &x[1]) ||
	    xvbd_stats_delta(a->c.rd_req, b->c.rd_req, 64, &x[2]) ||
	    xvbd_stats_delta(a->c.wr_req, b->c.wr_req, 64, &x[3]) ||
	    xvbd_stats_delta(a->c.rd_sect, b->c.rd_sect, 64, &x[6]) ||
	    xvbd_stats_delta(a->c.wr_sect, b->c.wr_sect, 64, &x[7]))
		return false;
	*sect = a->has_blk_sect && b->has_blk_sect &&
		!xvbd_stats_delta(a->blk_rd_sect, b->blk_rd_sect, 64, &x[4]) &&
		!xvbd_stats_delta(a->blk_wr_sect, b->blk_wr_sect, 64, &x[5]);
	d[0] = x[0] + x[1];		/* device I/Os */
	d[1] = x[2] + x[3];		/* VBD requests */
	d[2] = *sect ? x[4] + x[5] : 0;	/* device sectors */
	d[3] = x[6] + x[7];		/* VBD sectors */
	return true;
}

static uint64_t beyond(uint64_t dev, uint64_t own)
{
	return dev > own ? dev - own : 0;
}

/*
 * Per VBD over the usable intervals, then added up: one VBD's merges
 * must not hide another's foreign I/O.
 */
static void backing_device(const struct xvbd_ab_record *rec,
			   struct xvbd_ab_interf *f)
{
	size_t i, v;

	f->sect_known = true;
	for (v = 0; v < rec->nvdevs; v++) {
		uint64_t sum[4] = { 0 }, d[4];
		bool sect, any = false;

		for (i = 1; i < rec->nsamples; i++) {
			if (!vbd_counts(&rec->samples[i - 1].vbds[v],
					&rec->samples[i].vbds[v], d, &sect))
				continue;
			any = true;
			f->sect_known &= sect;
			sum[0] += d[0];
			sum[1] += d[1];
			sum[2] += d[2];
			sum[3] += d[3];
		}
		if (!any)
			continue;
		f->dev_known = true;
		f->dev_ios += sum[0];
		f->vbd_req += sum[1];
		f->foreign_ios += beyond(sum[0], sum[1]);
		f->dev_sect += sum[2];
		f->vbd_sect += sum[3];
		f->foreign_sect += beyond(sum[2], sum[3]);
	}
	f->sect_known &= f->dev_known;
	if (f->sect_known) {
		f->foreign_pct = f->dev_sect ? (double)f->foreign_sect *
			100.0 / (double)f->dev_sect : 0.0;
		f->dev_flagged = f->foreign_sect >= XVBD_AB_INTERF_DEV_MIN_SECT &&
				 (double)f->foreign_sect >
				 XVBD_AB_INTERF_DEV_SHARE * (double)f->dev_sect;
	} else if (f->dev_known) {
		f->foreign_pct = f->dev_ios ? (double)f->foreign_ios * 100.0 /
				 (double)f->dev_ios : 0.0;
		f->dev_flagged = f->foreign_ios >= XVBD_AB_INTERF_DEV_MIN_IOS &&
				 (double)f->foreign_ios >
				 XVBD_AB_INTERF_DEV_SHARE * (double)f->dev_ios;
	}
}

int xvbd_ab_interference(const struct xvbd_ab_record *rec, double threshold,
			 struct xvbd_ab_interf *out)
{
	size_t i;

	memset(out, 0, sizeof(*out));
	if (!rec || threshold < 0 || !rec->samples)
		return -EINVAL;
	for (i = 0; i < rec->nsamples; i++)
		if (rec->nvdevs && !rec->samples[i].vbds)
			return -EINVAL;
	out->cpu_threshold = threshold > 0 ? threshold :
			     XVBD_AB_INTERF_CPU_DEFAULT;
	others_cpu(rec, out);
	backing_device(rec, out);
	return 0;
}

static int fit(int n, size_t len)
{
	return n < 0 || (size_t)n >= len ? -ENOSPC : 0;
}

int xvbd_ab_interf_cpu_text(const struct xvbd_ab_interf *f, char *buf,
			    size_t len)
{
	/* The span with the larger share names the figure. */
	bool busy = f->busy.host_known &&
		    (!f->window.host_known ||
		     f->busy.host_pct > f->window.host_pct);
	const struct xvbd_ab_interf_span *s = busy ? &f->busy : &f->window;
	const struct xvbd_ab_interf_span *o = busy ? &f->window : &f->busy;
	char other[64] = "";

	if (!f->cpu_flagged)
		return -ENOENT;
	if (o->host_known)
		snprintf(other, sizeof(other), " (%.1f %% over the %s)",
			 o->host_pct, busy ? "window" : "busy span");
	return fit(snprintf(buf, len, "interference: other domains used "
			    "%.1f %% of the host's CPUs (%" PRIu32 " domain%s; "
			    "%.1f %% of one CPU, %" PRIu32 " CPUs) over the "
			    "%s%s, above the %.1f %% threshold", s->host_pct,
			    f->others_doms, f->others_doms == 1 ? "" : "s",
			    s->cpu_pct, f->host_cpus,
			    busy ? "busy span" : "window", other,
			    f->cpu_threshold * 100.0), len);
}

int xvbd_ab_interf_dev_text(const struct xvbd_ab_interf *f, size_t nvdevs,
			    char *buf, size_t len)
{
	const char *whose = nvdevs > 1 ? "the recorded VBDs'" : "this VBD's";

	if (!f->dev_flagged)
		return -ENOENT;
	if (!f->sect_known)
		return fit(snprintf(buf, len, "interference: the backing "
				    "device served %" PRIu64 " I/Os that "
				    "were not %s (%.1f %% of its I/Os)",
				    f->foreign_ios, whose, f->foreign_pct),
			   len);
	return fit(snprintf(buf, len, "interference: the backing device "
			    "served %.1f MB that were not %s (%.1f %% of its "
			    "bytes; %" PRIu64 " I/Os beyond %s %" PRIu64
			    " requests)", (double)f->foreign_sect *
			    XVBD_SECTOR_BYTES / BYTES_PER_MB, whose,
			    f->foreign_pct, f->foreign_ios,
			    nvdevs > 1 ? "their" : "its", f->vbd_req), len);
}

static void render_span(struct xvbd_out *o, const char *key,
			const struct xvbd_ab_interf_span *s)
{
	xvbd_out_obj_begin(o, key);
	xvbd_out_fixed_opt(o, XVBD_QN(CPU_PCT), s->known, s->cpu_pct, 1);
	xvbd_out_note(o, "%CPU");
	xvbd_out_fixed_opt(o, XVBD_QN(HOST_PCT), s->host_known, s->host_pct, 1);
	xvbd_out_note(o, "% of the host's CPUs");
	xvbd_out_obj_end(o);
}

void xvbd_ab_interf_render(struct xvbd_out *o, const char *key,
			   const struct xvbd_ab_interf *f)
{
	xvbd_out_obj_begin(o, key);
	xvbd_out_bool_opt(o, "cpu_flagged", f->cpu_known, f->cpu_flagged);
	xvbd_out_uint_opt(o, XVBD_QN(OTHER_DOMAINS),
			  f->cpu_known, f->others_doms);
	xvbd_out_uint_opt(o, XVBD_QN(HOST_CPUS),
			  f->host_cpus > 0, f->host_cpus);
	render_span(o, "others_window", &f->window);
	render_span(o, "others_busy", &f->busy);
	xvbd_out_fixed_opt(o, XVBD_QN(CPU_THRESHOLD_PCT), true,
			   f->cpu_threshold * 100.0, 1);
	xvbd_out_bool_opt(o, "device_flagged", f->dev_known, f->dev_flagged);
	xvbd_out_uint_opt(o, XVBD_QN(DEVICE_IOS), f->dev_known, f->dev_ios);
	xvbd_out_uint_opt(o, XVBD_QN(VBD_REQUESTS), f->dev_known, f->vbd_req);
	xvbd_out_uint_opt(o, XVBD_QN(FOREIGN_IOS),
			  f->dev_known, f->foreign_ios);
	xvbd_out_uint_opt(o, XVBD_QN(DEVICE_SECTORS),
			  f->sect_known, f->dev_sect);
	xvbd_out_uint_opt(o, XVBD_QN(VBD_SECTORS), f->sect_known, f->vbd_sect);
	xvbd_out_uint_opt(o, XVBD_QN(FOREIGN_SECTORS), f->sect_known,
			  f->foreign_sect);
	/* What foreign_pct is a share of: "sectors" or, without them, "ios". */
	if (f->dev_known)
		xvbd_out_str(o, "foreign_of", f->sect_known ? "sectors" : "ios");
	else
		xvbd_out_null(o, "foreign_of");
	xvbd_out_fixed_opt(o, XVBD_QN(FOREIGN_PCT),
			   f->dev_known, f->foreign_pct, 1);
	xvbd_out_note(o, f->sect_known ? "% of the device's sectors" :
		      "% of the device's I/Os");
	xvbd_out_obj_end(o);
}

int ab_interf_compare(struct xvbd_ab_comparison *c, const char *side,
		      const struct xvbd_ab_record *r, size_t n,
		      double threshold)
{
	struct xvbd_ab_run_interf *e;
	struct xvbd_ab_interf f;
	char text[320];
	size_t i;
	int rc = 0;

	c->interference_cpu = threshold > 0 ? threshold :
			      XVBD_AB_INTERF_CPU_DEFAULT;
	for (i = 0; i < n && !rc; i++) {
		rc = xvbd_ab_interference(&r[i], threshold, &f);
		if (rc || (!f.cpu_flagged && !f.dev_flagged))
			continue;
		e = realloc(c->interf, (c->ninterf + 1) * sizeof(*e));
		if (!e)
			return -ENOMEM;
		c->interf = e;
		e[c->ninterf].side = side;
		e[c->ninterf].id = r[i].id;
		e[c->ninterf++].f = f;
		if (!xvbd_ab_interf_cpu_text(&f, text, sizeof(text)))
			rc = ab_warn(c, "%s run %s: %s", side, r[i].id, text);
		if (!rc && !xvbd_ab_interf_dev_text(&f, r[i].nvdevs, text,
						    sizeof(text)))
			rc = ab_warn(c, "%s run %s: %s", side, r[i].id, text);
	}
	return rc;
}
