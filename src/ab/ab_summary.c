/*
 * ab_summary.c - run summaries from a record's raw counters.
 *
 * A run's summary is Delta counter / Delta time over the run: the deltas
 * of the intervals kept, summed, divided by their summed time.  It is
 * never a mean of per-interval rates (a short interval would weigh as
 * much as a long one) and never built from anything but the raw
 * cumulative counters of the record.
 *
 * An interval is left out, for every metric at once so that all of a
 * run's numbers cover the same time:
 *  - reset: a VBD's counters went back or the stats layer saw a new
 *    counter instance (re-attach, re-connect), a backing device's
 *    counters went back (not a 32-bit tick wrap), or a domain's CPU time
 *    went back by more than the clocks' skew (xvbd_stats_cpu_pct: the domain
 *    was replaced);
 *  - flagged: the monotonic time did not advance, or a domain's CPU time
 *    grew by more than wall time x its vCPUs.  That is a time-base
 *    problem (seed 002: a hypervisor clock running 50 % fast) and makes
 *    every rate of the interval wrong, not only CPU%.  The tolerance for
 *    sampling slack is the stats layer's (xvbd_stats_cpu_pct: 5 % of the
 *    interval) plus CPU_SLACK_NS for the time between reading the
 *    clock and reading the domain's CPU time.
 *
 * IO/s and MB/s are taken over the busy span (ab.h) and kept over the
 * whole window too; the other metrics are per request or per second of
 * the window.  Time metrics: the run's length, its busy span (s).
 *
 * Units: IO/s; MB/s of 10^6 bytes (512-byte sectors); latency in ms per
 * I/O from the backing device's ticks/ios (known only with I/O of that
 * kind, and only where every VBD of the record has a visible backing
 * device); CPU% of one CPU, as xentop shows it.  Pure (unit-tested).
 */
#include <errno.h>
#include <string.h>

#include "xvbd/ab/ab.h"
#include "xvbd/ab/ab_lat.h"
#include "xvbd/stats/stats.h"

#define NS_PER_S	1e9
#define BYTES_PER_MB	1e6
#define CPU_SLACK_NS	UINT64_C(10000000)	/* 10 ms */

const struct xvbd_ab_metric_info xvbd_ab_metrics[XVBD_AB_NMETRICS] = {
	[XVBD_AB_RD_IOPS] = { XVBD_Q_READ_IOPS, true, 1 },
	[XVBD_AB_WR_IOPS] = { XVBD_Q_WRITE_IOPS, true, 1 },
	[XVBD_AB_RD_MBS] = { XVBD_Q_READ_MB_PER_S, true, 2 },
	[XVBD_AB_WR_MBS] = { XVBD_Q_WRITE_MB_PER_S, true, 2 },
	[XVBD_AB_RD_LAT_MS] = { XVBD_Q_READ_LAT_MS, false, 3 },
	[XVBD_AB_WR_LAT_MS] = { XVBD_Q_WRITE_LAT_MS, false, 3 },
	[XVBD_AB_GUEST_CPU] = { XVBD_Q_GUEST_CPU_PCT, false, 1 },
	[XVBD_AB_DOM0_CPU] = { XVBD_Q_DOM0_CPU_PCT, false, 1 },
	[XVBD_AB_BE_CPU] = { XVBD_Q_BACKEND_CPU_PCT, false, 1 },
	[XVBD_AB_BE_US_PER_REQ] = { XVBD_Q_BACKEND_US_PER_REQ, false, 1 },
	/* Larger requests move the same bytes for fewer ring slots. */
	[XVBD_AB_RD_KIB_PER_REQ] = { XVBD_Q_READ_KIB_PER_REQ, true, 1 },
	[XVBD_AB_WR_KIB_PER_REQ] = { XVBD_Q_WRITE_KIB_PER_REQ, true, 1 },
	[XVBD_AB_SECONDS] = { XVBD_Q_RUN_S, false, 3 },
	[XVBD_AB_BUSY_SECONDS] = { XVBD_Q_BUSY_S, false, 3 },
	[XVBD_AB_RD_P50_MS] = { XVBD_Q_READ_P50_MS, false, 3 },
	[XVBD_AB_RD_P99_MS] = { XVBD_Q_READ_P99_MS, false, 3 },
	[XVBD_AB_RD_MAX_MS] = { XVBD_Q_READ_MAX_MS, false, 3 },
	[XVBD_AB_WR_P50_MS] = { XVBD_Q_WRITE_P50_MS, false, 3 },
	[XVBD_AB_WR_P99_MS] = { XVBD_Q_WRITE_P99_MS, false, 3 },
	[XVBD_AB_WR_MAX_MS] = { XVBD_Q_WRITE_MAX_MS, false, 3 },
	/* The guest's own (ab_guest.c): fio's figures, clat in ms. */
	[XVBD_AB_G_RD_IOPS] = { XVBD_Q_GUEST_READ_IOPS, true, 1 },
	[XVBD_AB_G_WR_IOPS] = { XVBD_Q_GUEST_WRITE_IOPS, true, 1 },
	[XVBD_AB_G_RD_MBS] = { XVBD_Q_GUEST_READ_MB_PER_S, true, 2 },
	[XVBD_AB_G_WR_MBS] = { XVBD_Q_GUEST_WRITE_MB_PER_S, true, 2 },
	[XVBD_AB_G_RD_CLAT] = { XVBD_Q_GUEST_READ_CLAT_MS, false, 3 },
	[XVBD_AB_G_RD_P50] = { XVBD_Q_GUEST_READ_CLAT_P50_MS, false, 3 },
	[XVBD_AB_G_RD_P99] = { XVBD_Q_GUEST_READ_CLAT_P99_MS, false, 3 },
	[XVBD_AB_G_RD_P999] = { XVBD_Q_GUEST_READ_CLAT_P99_9_MS, false, 3 },
	[XVBD_AB_G_RD_CLAT_MAX] = { XVBD_Q_GUEST_READ_CLAT_MAX_MS, false, 3 },
	[XVBD_AB_G_WR_CLAT] = { XVBD_Q_GUEST_WRITE_CLAT_MS, false, 3 },
	[XVBD_AB_G_WR_P50] = { XVBD_Q_GUEST_WRITE_CLAT_P50_MS, false, 3 },
	[XVBD_AB_G_WR_P99] = { XVBD_Q_GUEST_WRITE_CLAT_P99_MS, false, 3 },
	[XVBD_AB_G_WR_P999] = { XVBD_Q_GUEST_WRITE_CLAT_P99_9_MS, false, 3 },
	[XVBD_AB_G_WR_CLAT_MAX] = { XVBD_Q_GUEST_WRITE_CLAT_MAX_MS, false, 3 },
	/* benchfmt slots: the unit is the benchmark's own (its label too:
	 * xvbd_ab_bench_slot) */
	[XVBD_AB_BENCH_LOWER1] = { XVBD_Q_BENCH_LOWER_1, false, 3 },
	[XVBD_AB_BENCH_LOWER2] = { XVBD_Q_BENCH_LOWER_2, false, 3 },
	[XVBD_AB_BENCH_LOWER3] = { XVBD_Q_BENCH_LOWER_3, false, 3 },
	[XVBD_AB_BENCH_LOWER4] = { XVBD_Q_BENCH_LOWER_4, false, 3 },
	[XVBD_AB_BENCH_HIGHER1] = { XVBD_Q_BENCH_HIGHER_1, true, 3 },
	[XVBD_AB_BENCH_HIGHER2] = { XVBD_Q_BENCH_HIGHER_2, true, 3 },
	[XVBD_AB_BENCH_HIGHER3] = { XVBD_Q_BENCH_HIGHER_3, true, 3 },
	[XVBD_AB_BENCH_HIGHER4] = { XVBD_Q_BENCH_HIGHER_4, true, 3 },
};

bool xvbd_ab_metric_is_latency(enum xvbd_ab_metric m)
{
	return m >= XVBD_AB_RD_P50_MS && m <= XVBD_AB_WR_MAX_MS;
}

void xvbd_ab_metrics_default(const struct xvbd_ab_record *recs, size_t n,
			     bool *shown)
{
	bool lat = false;
	size_t i;
	int m;

	for (i = 0; i < n && !lat; i++)
		lat = recs[i].lat != NULL;
	for (m = 0; m < XVBD_AB_NMETRICS; m++)
		shown[m] = (lat || !xvbd_ab_metric_is_latency(m)) &&
			   !xvbd_ab_metric_is_guest(m);
	/* The guest's own figures where some run's results hold them. */
	for (i = 0; i < n; i++) {
		struct xvbd_ab_summary s;

		if (!recs[i].results || xvbd_ab_summarize(&recs[i], &s))
			continue;
		for (m = 0; m < XVBD_AB_NMETRICS; m++)
			if (xvbd_ab_metric_is_guest(m) && s.known[m])
				shown[m] = true;
	}
}

/*
 * The latency metrics of a run: its VBDs' d2c merged, one direction's
 * p50, p99 and max (ms).  Unknown without latency or requests.
 */
static void latency_metrics(const struct xvbd_ab_record *rec,
			    struct xvbd_ab_summary *out)
{
	static const int first[XVBD_LAT_NDIRS] = { XVBD_AB_RD_P50_MS,
						   XVBD_AB_WR_P50_MS };
	struct xvbd_lathist h;
	double v[3];
	int d, k;

	for (d = 0; rec->lat && d < XVBD_LAT_NDIRS; d++) {
		xvbd_lathist_init(&h);
		if (!xvbd_ab_lat_merged(rec->lat, XVBD_LAT_D2C, d, &h) &&
		    h.count) {
			v[0] = (double)xvbd_lathist_quantile_ns(&h, 500000);
			v[1] = (double)xvbd_lathist_quantile_ns(&h, 990000);
			v[2] = (double)h.max_ns;
			for (k = 0; k < 3; k++) {
				out->value[first[d] + k] =
					out->window[first[d] + k] = v[k] / 1e6;
				out->known[first[d] + k] = true;
			}
		}
		xvbd_lathist_free(&h);
	}
}

bool xvbd_ab_metric_is_rate(enum xvbd_ab_metric m)
{
	return m == XVBD_AB_RD_IOPS || m == XVBD_AB_WR_IOPS ||
	       m == XVBD_AB_RD_MBS || m == XVBD_AB_WR_MBS;
}

int xvbd_ab_metric_find(const char *name, bool *old)
{
	int q = xvbd_q_find(name, old), i;

	for (i = 0; q >= 0 && i < XVBD_AB_NMETRICS; i++)
		if ((int)xvbd_ab_metrics[i].q == q)
			return i;
	return -1;
}

/* The deltas of one interval, all VBDs of the record added up. */
struct deltas {
	uint64_t dt_ns;
	bool vbds;			/* the record has VBDs */
	uint64_t rd_req, wr_req, rd_sect, wr_sect, other_req;
	bool be;			/* every VBD's ring threads seen */
	uint64_t be_ns;
	bool blk;			/* every VBD's backing device seen */
	uint64_t blk_rd_ios, blk_wr_ios, blk_rd_ticks, blk_wr_ticks;
	bool blk_busy;			/* a backing device's io_ticks grew */
	uint64_t guest_cpu_ns, dom0_cpu_ns;
};

static bool add_ok(uint64_t *sum, uint64_t v)
{
	if (*sum > UINT64_MAX - v)
		return false;
	*sum += v;
	return true;
}

/* A domain's CPU time over the interval: reset, flagged or fine. */
static enum xvbd_ab_iv cpu_delta(uint64_t prev, uint64_t cur, uint64_t dt_ns,
				 uint32_t vcpus_prev, uint32_t vcpus_cur,
				 uint64_t *delta)
{
	uint32_t vcpus = vcpus_prev > vcpus_cur ? vcpus_prev : vcpus_cur;
	double pct;

	switch (xvbd_stats_cpu_pct(prev, cur, dt_ns, CPU_SLACK_NS, vcpus,
				   &pct)) {
	case XVBD_IV_RESET:
		return XVBD_AB_IV_RESET;
	case XVBD_IV_IMPOSSIBLE:
		*delta = cur - prev;
		return XVBD_AB_IV_FLAGGED;
	default:
		/* A step back within the clocks' skew (stats layer): none. */
		*delta = cur > prev ? cur - prev : 0;
		return XVBD_AB_IV_OK;
	}
}

/*
 * The ring threads' CPU time and the requests it served (flush and
 * discard included: the threads handle those too).  Unknown for the
 * interval when a side has no threads or the set changed.
 */
static void backend_delta(const struct xvbd_ab_vbd_sample *a,
			  const struct xvbd_ab_vbd_sample *b,
			  struct deltas *d)
{
	uint64_t f, ds;

	if (!xvbd_stats_delta(a->c.f_req, b->c.f_req, 64, &f) &&
	    !xvbd_stats_delta(a->c.ds_req, b->c.ds_req, 64, &ds) &&
	    add_ok(&d->other_req, f))
		add_ok(&d->other_req, ds);
	if (!a->has_be || !b->has_be || b->be_reset ||
	    b->be_cpu_ns < a->be_cpu_ns ||
	    !add_ok(&d->be_ns, b->be_cpu_ns - a->be_cpu_ns))
		d->be = false;
}

static enum xvbd_ab_iv interval_deltas(const struct xvbd_ab_record *rec,
				       size_t i, struct deltas *d,
				       const char **why)
{
	const struct xvbd_ab_sample *p = &rec->samples[i - 1];
	const struct xvbd_ab_sample *s = &rec->samples[i];
	enum xvbd_ab_iv st;
	size_t v;

	memset(d, 0, sizeof(*d));
	d->vbds = d->blk = d->be = rec->nvdevs > 0;
	/* Counters first: a reset explains anything odd after it. */
	for (v = 0; v < rec->nvdevs; v++) {
		const struct xvbd_ab_vbd_sample *a = &p->vbds[v];
		const struct xvbd_ab_vbd_sample *b = &s->vbds[v];
		uint64_t rr, wr, rs, ws, ri, wi, rt, wt, it = 0;

		if (b->reset ||
		    xvbd_stats_delta(a->c.rd_req, b->c.rd_req, 64, &rr) ||
		    xvbd_stats_delta(a->c.wr_req, b->c.wr_req, 64, &wr) ||
		    xvbd_stats_delta(a->c.rd_sect, b->c.rd_sect, 64, &rs) ||
		    xvbd_stats_delta(a->c.wr_sect, b->c.wr_sect, 64, &ws)) {
			*why = "a VBD's counters were reset";
			return XVBD_AB_IV_RESET;
		}
		if (!add_ok(&d->rd_req, rr) || !add_ok(&d->wr_req, wr) ||
		    !add_ok(&d->rd_sect, rs) || !add_ok(&d->wr_sect, ws)) {
			*why = "counters overflow";
			return XVBD_AB_IV_RESET;
		}
		backend_delta(a, b, d);
		if (!a->has_blk || !b->has_blk) {
			d->blk = false;
			continue;
		}
		/* ios are unsigned long, ticks 32-bit "%u": they wrap. */
		if (xvbd_stats_delta(a->blk_rd_ios, b->blk_rd_ios, 64, &ri) ||
		    xvbd_stats_delta(a->blk_wr_ios, b->blk_wr_ios, 64, &wi) ||
		    xvbd_stats_delta(a->blk_rd_ticks_ms, b->blk_rd_ticks_ms,
				     32, &rt) ||
		    xvbd_stats_delta(a->blk_wr_ticks_ms, b->blk_wr_ticks_ms,
				     32, &wt) ||
		    (a->has_io_ticks && b->has_io_ticks &&
		     xvbd_stats_delta(a->blk_io_ticks_ms, b->blk_io_ticks_ms,
				      32, &it))) {
			*why = "a backing device's counters were reset";
			return XVBD_AB_IV_RESET;
		}
		if (!add_ok(&d->blk_rd_ios, ri) || !add_ok(&d->blk_wr_ios, wi) ||
		    !add_ok(&d->blk_rd_ticks, rt) ||
		    !add_ok(&d->blk_wr_ticks, wt)) {
			*why = "counters overflow";
			return XVBD_AB_IV_RESET;
		}
		if (it)
			d->blk_busy = true;
	}
	if (s->t_ns <= p->t_ns) {
		*why = "time did not advance";
		return XVBD_AB_IV_FLAGGED;
	}
	d->dt_ns = s->t_ns - p->t_ns;
	st = cpu_delta(p->guest_cpu_ns, s->guest_cpu_ns, d->dt_ns,
		       p->guest_vcpus, s->guest_vcpus, &d->guest_cpu_ns);
	if (st != XVBD_AB_IV_OK) {
		*why = st == XVBD_AB_IV_RESET ?
		       "the guest's CPU time went back (domain replaced)" :
		       "the guest's CPU time outran wall time x vCPUs";
		return st;
	}
	st = cpu_delta(p->dom0_cpu_ns, s->dom0_cpu_ns, d->dt_ns,
		       p->dom0_vcpus, s->dom0_vcpus, &d->dom0_cpu_ns);
	if (st != XVBD_AB_IV_OK) {
		*why = st == XVBD_AB_IV_RESET ?
		       "dom0's CPU time went back" :
		       "dom0's CPU time outran wall time x vCPUs";
		return st;
	}
	*why = NULL;
	return XVBD_AB_IV_OK;
}

/* What the VBDs cost dom0 and the size of their requests. */
static void cost_rates(const struct deltas *d, double *value, bool *known)
{
	uint64_t req = d->rd_req + d->wr_req + d->other_req;

	if (d->be) {
		value[XVBD_AB_BE_CPU] = (double)d->be_ns * 100.0 /
					(double)d->dt_ns;
		known[XVBD_AB_BE_CPU] = true;
		if (req) {
			value[XVBD_AB_BE_US_PER_REQ] = (double)d->be_ns /
						       1e3 / (double)req;
			known[XVBD_AB_BE_US_PER_REQ] = true;
		}
	}
	if (d->rd_req) {
		value[XVBD_AB_RD_KIB_PER_REQ] = (double)d->rd_sect *
			XVBD_SECTOR_BYTES / 1024.0 / (double)d->rd_req;
		known[XVBD_AB_RD_KIB_PER_REQ] = true;
	}
	if (d->wr_req) {
		value[XVBD_AB_WR_KIB_PER_REQ] = (double)d->wr_sect *
			XVBD_SECTOR_BYTES / 1024.0 / (double)d->wr_req;
		known[XVBD_AB_WR_KIB_PER_REQ] = true;
	}
}

/* Rates from (summed) deltas: the one place the units are applied. */
static void rates(const struct deltas *d, double *value, bool *known)
{
	double s = (double)d->dt_ns / NS_PER_S;
	int m;

	for (m = 0; m < XVBD_AB_NMETRICS; m++) {
		value[m] = 0.0;
		known[m] = false;
	}
	if (!d->dt_ns)
		return;
	value[XVBD_AB_RD_IOPS] = (double)d->rd_req / s;
	value[XVBD_AB_WR_IOPS] = (double)d->wr_req / s;
	value[XVBD_AB_RD_MBS] = (double)d->rd_sect * XVBD_SECTOR_BYTES /
				BYTES_PER_MB / s;
	value[XVBD_AB_WR_MBS] = (double)d->wr_sect * XVBD_SECTOR_BYTES /
				BYTES_PER_MB / s;
	value[XVBD_AB_GUEST_CPU] = (double)d->guest_cpu_ns * 100.0 /
				   (double)d->dt_ns;
	value[XVBD_AB_DOM0_CPU] = (double)d->dom0_cpu_ns * 100.0 /
				  (double)d->dt_ns;
	known[XVBD_AB_GUEST_CPU] = known[XVBD_AB_DOM0_CPU] = true;
	/* No VBD recorded: no I/O rate to speak of (not zero). */
	known[XVBD_AB_RD_IOPS] = known[XVBD_AB_WR_IOPS] = d->vbds;
	known[XVBD_AB_RD_MBS] = known[XVBD_AB_WR_MBS] = d->vbds;
	cost_rates(d, value, known);
	if (d->blk && d->blk_rd_ios) {
		value[XVBD_AB_RD_LAT_MS] = (double)d->blk_rd_ticks /
					   (double)d->blk_rd_ios;
		known[XVBD_AB_RD_LAT_MS] = true;
	}
	if (d->blk && d->blk_wr_ios) {
		value[XVBD_AB_WR_LAT_MS] = (double)d->blk_wr_ticks /
					   (double)d->blk_wr_ios;
		known[XVBD_AB_WR_LAT_MS] = true;
	}
}

/*
 * IO/s and MB/s over the busy span: the same deltas over the part of the
 * counted time that had I/O.  No I/O at all: 0 either way.
 */
static void busy_rates(const struct deltas *sum, uint64_t busy_ns,
		       double *value)
{
	struct deltas busy = *sum;
	bool known[XVBD_AB_NMETRICS];
	double v[XVBD_AB_NMETRICS];
	int m;

	if (!busy_ns)
		return;
	busy.dt_ns = busy_ns;
	rates(&busy, v, known);
	for (m = 0; m < XVBD_AB_NMETRICS; m++)
		if (xvbd_ab_metric_is_rate(m))
			value[m] = v[m];
}

/*
 * The run's own length (the last sample is taken when the command ends
 * or the guest shuts down: the record spans the run) and its busy span.
 * A --duration run's length is the one asked for: no measurement.
 */
static void run_seconds(const struct xvbd_ab_record *rec,
			struct xvbd_ab_summary *out)
{
	/* Times are the same whichever span the rates are over. */
	if (rec->complete && rec->nsamples > 1 &&
	    rec->mode != XVBD_AB_MODE_DURATION) {
		out->value[XVBD_AB_SECONDS] = out->window[XVBD_AB_SECONDS] =
			(double)rec->samples[rec->nsamples - 1].t_ns / NS_PER_S;
		out->known[XVBD_AB_SECONDS] = true;
	}
	if (rec->nvdevs && out->used_ns) {
		out->value[XVBD_AB_BUSY_SECONDS] =
			out->window[XVBD_AB_BUSY_SECONDS] =
			(double)out->busy_ns / NS_PER_S;
		out->known[XVBD_AB_BUSY_SECONDS] = true;
	}
}

static bool record_shape_ok(const struct xvbd_ab_record *rec, size_t i)
{
	return rec->samples && (!rec->nvdevs || (rec->samples[i - 1].vbds &&
						  rec->samples[i].vbds));
}

int xvbd_ab_interval_get(const struct xvbd_ab_record *rec, size_t i,
			 struct xvbd_ab_interval *out)
{
	struct deltas d;

	memset(out, 0, sizeof(*out));
	if (!rec || i < 1 || i >= rec->nsamples || !record_shape_ok(rec, i))
		return -EINVAL;
	out->t_ns = rec->samples[i].t_ns;
	out->status = interval_deltas(rec, i, &d, &out->why);
	if (out->status != XVBD_AB_IV_OK)
		return 0;
	out->dt_ns = d.dt_ns;
	rates(&d, out->value, out->known);
	return 0;
}

int xvbd_ab_summarize(const struct xvbd_ab_record *rec,
		      struct xvbd_ab_summary *out)
{
	struct deltas sum = { .dt_ns = 0 }, d;
	bool any_blk_gap = false, any_be_gap = false;
	uint64_t busy_from = 0, busy_to = 0;
	bool busy = false;
	const char *why;
	size_t i;

	memset(out, 0, sizeof(*out));
	if (!rec)
		return -EINVAL;
	for (i = 1; i < rec->nsamples; i++) {
		if (!record_shape_ok(rec, i))
			return -EINVAL;
		out->nintervals++;
		switch (interval_deltas(rec, i, &d, &why)) {
		case XVBD_AB_IV_RESET:
			out->nreset++;
			continue;
		case XVBD_AB_IV_FLAGGED:
			out->nflagged++;
			continue;
		case XVBD_AB_IV_OK:
			break;
		}
		/*
		 * The busy span in counted time: [busy_from, busy_to).  blkback
		 * counts a request when it takes it off the ring, so a slow
		 * last request is served in intervals without new requests:
		 * the backing device's io_ticks say the disk was still busy.
		 */
		if (d.rd_req || d.wr_req || d.other_req || d.blk_busy) {
			if (!busy)
				busy_from = sum.dt_ns;
			busy = true;
			busy_to = sum.dt_ns + d.dt_ns;
		}
		if (!add_ok(&sum.dt_ns, d.dt_ns) ||
		    !add_ok(&sum.rd_req, d.rd_req) ||
		    !add_ok(&sum.wr_req, d.wr_req) ||
		    !add_ok(&sum.rd_sect, d.rd_sect) ||
		    !add_ok(&sum.wr_sect, d.wr_sect) ||
		    !add_ok(&sum.guest_cpu_ns, d.guest_cpu_ns) ||
		    !add_ok(&sum.dom0_cpu_ns, d.dom0_cpu_ns) ||
		    !add_ok(&sum.other_req, d.other_req))
			return -ERANGE;
		/* Backend CPU only over the whole time counted, as latency. */
		if (!d.be || !add_ok(&sum.be_ns, d.be_ns))
			any_be_gap = true;
		if (!d.blk) {
			any_blk_gap = true;
			continue;
		}
		if (!add_ok(&sum.blk_rd_ios, d.blk_rd_ios) ||
		    !add_ok(&sum.blk_wr_ios, d.blk_wr_ios) ||
		    !add_ok(&sum.blk_rd_ticks, d.blk_rd_ticks) ||
		    !add_ok(&sum.blk_wr_ticks, d.blk_wr_ticks))
			return -ERANGE;
	}
	/*
	 * Latency needs the backing device over the whole time counted:
	 * ticks of part of the run over ios of part of it would still be a
	 * per-I/O average, but of other I/O than the rates describe.
	 */
	sum.vbds = rec->nvdevs > 0;
	sum.blk = !any_blk_gap && sum.vbds;
	sum.be = !any_be_gap && sum.vbds;
	out->used_ns = sum.dt_ns;
	rates(&sum, out->window, out->known);
	memcpy(out->value, out->window, sizeof(out->value));
	out->busy_ns = busy_to - busy_from;
	busy_rates(&sum, out->busy_ns, out->value);
	run_seconds(rec, out);
	latency_metrics(rec, out);
	xvbd_ab_guest_summarize(rec, out);
	return 0;
}
