/*
 * stats.c - the sampler (see stats.h): domain and VBD state kept between
 * samples, the rate math, and the truth rules (resets, wraps, impossible
 * CPU time).  No Xen library here: facts come from a source.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "stats_impl.h"
#include "xvbd/base/util.h"

#define NS_PER_S	1000000000ull
#define NS_PER_MS	1000000ull
#define WARN_MAX	16
#define WARN_LEN	240
/* Keys of VBDs seen once, so a re-attach reads "reset", not "new". */
#define GONE_MAX	256
/*
 * On top of the measured slack: Xen calibrates each CPU's time scale
 * against a platform timer, and per-CPU scales disagree a little (1 %
 * seen in the TCG lab over 0.16 s).  A clock 50 % fast stays visible.
 */
#define CPU_REL_TOLERANCE	0.05
/*
 * And per vCPU, absolute: a running vCPU's time is counted up to the
 * reading CPU's clock from the time its own CPU stamped at the switch,
 * and the CPUs' clocks are apart by a few ms between calibrations.  Over
 * a short interval (a sample that fell behind is followed at once) that
 * showed as 49 ms of CPU in 19 ms on 2 vCPUs in the TCG lab.
 */
#define CPU_ABS_TOLERANCE_NS	(10 * NS_PER_MS)
/* A domain's name as the toolstack has it (xenstore's value limit). */
#define DOM_NAME_FULL_MAX	4096
/*
 * A connected VBD whose ring threads are not found (yet: blkback starts
 * them just after it says Connected; or never: another kernel) is looked
 * for again at most this often: a /proc scan costs a read per process.
 */
#define RING_RESCAN_NS		(2 * NS_PER_S)
/* Samples between two reads of the wall clock. */
#define REALTIME_EVERY	64

struct dom_state {
	struct xvbd_stats_dominfo info;
	char name[XVBD_STATS_NAME_MAX];
	uint64_t mid_ns, half_ns;	/* when info was read, +- half_ns */
	uint64_t *vcpu_ns;		/* previous per-vCPU times */
	size_t nvcpu;
	bool keep;			/* passes the domain filter */
	bool seen;			/* in the latest domain list */
};

struct vbd_state {
	struct xvbd_stats_vbdinfo info;
	struct xvbd_sysfs_vbd *files;
	struct xvbd_sysfs_blk *blk;
	bool have_prev, have_prev_blk;
	struct xvbd_blkback_counters prev;
	struct xvbd_blkstat prev_blk;
	uint64_t prev_ns;
	enum xvbd_stats_iv first_iv;	/* what a missing prev means */
	bool moved;			/* rediscover: carried over */
	struct ring_set rings;		/* blkback's threads of the VBD */
};

struct xvbd_stats {
	struct xvbd_stats_source src;
	struct xvbd_sysfs *sys;
	char **filter;
	size_t nfilter;
	bool vcpus;

	struct dom_state *doms;
	size_t ndoms, cap_doms;
	struct xvbd_stats_dominfo *dbuf;
	size_t cap_dbuf;

	struct vbd_state *vbds;
	size_t nvbds;
	uint64_t gone[GONE_MAX];
	size_t ngone;
	bool rediscovered;
	uint64_t ring_scan_ns;		/* last /proc scan for ring threads */
	struct ring_want *want;		/* scratch, nvbds entries */

	uint64_t left_out_cpu_ns;	/* see xvbd_stats_sample.left_out */
	uint64_t seq;
	uint64_t prev_mid_ns;
	uint64_t last_t1_ns;		/* end of the last domain-list call */
	int64_t realtime_offset_ns;	/* CLOCK_REALTIME - CLOCK_MONOTONIC */
	uint64_t *vbuf;			/* per-vCPU scratch */
	size_t cap_vbuf;
	char warnings[WARN_MAX][WARN_LEN];
	size_t nwarnings;
	struct stats_lat *lat;		/* opts.latency: the tracker */
};

const char *xvbd_stats_iv_name(enum xvbd_stats_iv iv)
{
	switch (iv) {
	case XVBD_IV_OK:
		return "ok";
	case XVBD_IV_NEW:
		return "new";
	case XVBD_IV_RESET:
		return "reset";
	case XVBD_IV_IMPOSSIBLE:
		return "impossible";
	}
	return "?";
}

/* ---- pure rate math ---- */

enum xvbd_stats_iv xvbd_stats_delta(uint64_t prev, uint64_t cur,
				    unsigned bits, uint64_t *delta)
{
	if (cur >= prev) {
		*delta = cur - prev;
		return XVBD_IV_OK;
	}
	if (bits == 32 && prev <= UINT32_MAX) {
		uint64_t wrapped = cur + (1ull << 32) - prev;

		/* Small forward step across 2^32: a wrap, not a reset. */
		if (wrapped < (1ull << 31)) {
			*delta = wrapped;
			return XVBD_IV_OK;
		}
	}
	*delta = 0;
	return XVBD_IV_RESET;
}

double xvbd_stats_per_s(uint64_t delta, uint64_t interval_ns)
{
	if (!interval_ns)
		return 0.0;
	return (double)delta * (double)NS_PER_S / (double)interval_ns;
}

enum xvbd_stats_iv xvbd_stats_cpu_pct(uint64_t prev_ns, uint64_t cur_ns,
				      uint64_t interval_ns, uint64_t slack_ns,
				      uint32_t vcpus, double *pct)
{
	double used, max_possible, cap;

	*pct = 0.0;
	/*
	 * The same skew backwards: counted up to a clock ahead at the last
	 * reading and to one behind now (3.4 ms back seen in the TCG lab).
	 * No CPU time in the interval, not a new domain; further back, it
	 * was replaced.
	 */
	if (cur_ns < prev_ns)
		return prev_ns - cur_ns > (uint64_t)vcpus * CPU_ABS_TOLERANCE_NS ?
		       XVBD_IV_RESET : XVBD_IV_OK;
	used = (double)(cur_ns - prev_ns);
	if (!interval_ns)
		return used > 0 ? XVBD_IV_IMPOSSIBLE : XVBD_IV_OK;
	/* vCPUs can run at most the wall interval each (plus slack). */
	max_possible = (double)vcpus *
		       (((double)interval_ns + (double)slack_ns) *
			(1.0 + CPU_REL_TOLERANCE) +
			(double)CPU_ABS_TOLERANCE_NS);
	if (used > max_possible)
		return XVBD_IV_IMPOSSIBLE;
	*pct = used * 100.0 / (double)interval_ns;
	cap = 100.0 * vcpus;
	if (*pct > cap)
		*pct = cap;	/* within the measurement's uncertainty */
	return XVBD_IV_OK;
}

enum xvbd_stats_iv xvbd_stats_vbd_rates(const struct xvbd_blkback_counters *a,
					const struct xvbd_blkback_counters *b,
					uint64_t interval_ns,
					struct xvbd_stats_vbd *out)
{
	uint64_t d[XVBD_BLKBACK_NFIELDS];
	struct xvbd_blkback_counters dc;
	int i;

	for (i = 0; i < XVBD_BLKBACK_NFIELDS; i++) {
		size_t off = xvbd_blkback_fields[i].offset;
		uint64_t pa = *(const uint64_t *)((const char *)a + off);
		uint64_t pb = *(const uint64_t *)((const char *)b + off);

		if (xvbd_stats_delta(pa, pb, 64, &d[i]) != XVBD_IV_OK)
			return XVBD_IV_RESET;
		*(uint64_t *)((char *)&dc + off) = d[i];
	}
	if (!interval_ns)
		return XVBD_IV_RESET;
	out->rd_req_s = xvbd_stats_per_s(dc.rd_req, interval_ns);
	out->wr_req_s = xvbd_stats_per_s(dc.wr_req, interval_ns);
	out->f_req_s = xvbd_stats_per_s(dc.f_req, interval_ns);
	out->ds_req_s = xvbd_stats_per_s(dc.ds_req, interval_ns);
	out->oo_req_s = xvbd_stats_per_s(dc.oo_req, interval_ns);
	out->rd_bytes_s = xvbd_stats_per_s(dc.rd_sect, interval_ns) *
			  XVBD_SECTOR_BYTES;
	out->wr_bytes_s = xvbd_stats_per_s(dc.wr_sect, interval_ns) *
			  XVBD_SECTOR_BYTES;
	return XVBD_IV_OK;
}

enum xvbd_stats_iv xvbd_stats_blk_rates(const struct xvbd_blkstat *a,
					const struct xvbd_blkstat *b,
					uint64_t interval_ns,
					struct xvbd_stats_vbd *out)
{
	uint64_t rd_ios, wr_ios, rd_ticks, wr_ticks, queue_ms;

	out->rd_lat_known = out->wr_lat_known = false;
	out->rd_lat_ms = out->wr_lat_ms = out->queue_depth = 0.0;
	/* I/O counts are unsigned long (64-bit); ticks are 32-bit "%u". */
	if (xvbd_stats_delta(a->rd_ios, b->rd_ios, 64, &rd_ios) ||
	    xvbd_stats_delta(a->wr_ios, b->wr_ios, 64, &wr_ios) ||
	    xvbd_stats_delta(a->rd_ticks_ms, b->rd_ticks_ms, 32, &rd_ticks) ||
	    xvbd_stats_delta(a->wr_ticks_ms, b->wr_ticks_ms, 32, &wr_ticks) ||
	    xvbd_stats_delta(a->time_in_queue_ms, b->time_in_queue_ms, 32,
			     &queue_ms) || !interval_ns)
		return XVBD_IV_RESET;
	if (rd_ios) {
		out->rd_lat_known = true;
		out->rd_lat_ms = (double)rd_ticks / (double)rd_ios;
	}
	if (wr_ios) {
		out->wr_lat_known = true;
		out->wr_lat_ms = (double)wr_ticks / (double)wr_ios;
	}
	out->queue_depth = (double)queue_ms * (double)NS_PER_MS /
			   (double)interval_ns;
	return XVBD_IV_OK;
}

/* ---- helpers ---- */

uint64_t xvbd_stats_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NS_PER_S + (uint64_t)ts.tv_nsec;
}

static void warn(struct xvbd_stats *st, const char *fmt, ...)
	XVBD_PRINTF(2, 3);

static void warn(struct xvbd_stats *st, const char *fmt, ...)
{
	va_list ap;

	if (st->nwarnings >= WARN_MAX)
		return;
	va_start(ap, fmt);
	vsnprintf(st->warnings[st->nwarnings++], WARN_LEN, fmt, ap);
	va_end(ap);
}

uint64_t xvbd_stats_lat_start_ns(const struct xvbd_stats *st, uint64_t t)
{
	return stats_lat_start_ns(st->lat, t);
}

uint64_t xvbd_stats_lat_whole_from_ns(const struct xvbd_stats *st)
{
	return stats_lat_whole_from_ns(st->lat);
}

uint64_t xvbd_stats_lat_deadline_ns(const struct xvbd_stats *st, uint64_t t)
{
	return stats_lat_deadline_ns(st->lat, t);
}

/* How often a waiting sampler reads the kernel's latency records. */
#define LAT_DRAIN_NS		250000000u

uint64_t xvbd_stats_wake_ns(const struct xvbd_stats *st, uint64_t now,
			    uint64_t deadline)
{
	if (!st || !stats_lat_tracking(st->lat) || deadline <= now ||
	    deadline - now <= LAT_DRAIN_NS)
		return deadline;
	return now + LAT_DRAIN_NS;
}

void xvbd_stats_lat_drain(struct xvbd_stats *st)
{
	stats_lat_drain(st->lat);
}

size_t xvbd_stats_nwarnings(const struct xvbd_stats *st)
{
	return st->nwarnings;
}

const char *xvbd_stats_warning(const struct xvbd_stats *st, size_t i)
{
	return i < st->nwarnings ? st->warnings[i] : NULL;
}

static uint64_t vbd_key(uint32_t domid, uint32_t devid)
{
	return (uint64_t)domid << 32 | devid;
}

static void vbd_state_drop(struct vbd_state *v)
{
	xvbd_sysfs_vbd_close(v->files);
	xvbd_sysfs_blk_close(v->blk);
	xvbd_rings_drop(&v->rings);
	v->files = NULL;
	v->blk = NULL;
	v->have_prev = v->have_prev_blk = false;
}

static void remember_gone(struct xvbd_stats *st, uint64_t key)
{
	size_t i;

	for (i = 0; i < st->ngone; i++)
		if (st->gone[i] == key)
			return;
	if (st->ngone < GONE_MAX)
		st->gone[st->ngone++] = key;
}

static bool was_gone(const struct xvbd_stats *st, uint64_t key)
{
	size_t i;

	for (i = 0; i < st->ngone; i++)
		if (st->gone[i] == key)
			return true;
	return false;
}

static int cmp_vbdinfo(const void *a, const void *b)
{
	const struct xvbd_stats_vbdinfo *x = a, *y = b;
	uint64_t kx = vbd_key(x->domid, x->devid);
	uint64_t ky = vbd_key(y->domid, y->devid);

	return kx < ky ? -1 : kx > ky;
}

static struct vbd_state *find_vbd(struct vbd_state *v, size_t n,
				  uint32_t domid, uint32_t devid)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i].info.domid == domid && v[i].info.devid == devid)
			return &v[i];
	return NULL;
}

/* Open what is not open yet; failures leave files NULL (tried again). */
static void vbd_open_files(struct xvbd_stats *st, struct vbd_state *v)
{
	if (!v->files &&
	    xvbd_sysfs_vbd_open(st->sys, v->info.domid, v->info.devid,
				&v->files))
		v->files = NULL;
	if (v->files && v->info.has_blkdev && !v->blk &&
	    xvbd_sysfs_blk_open(st->sys, v->info.blk_major,
				v->info.blk_minor, &v->blk))
		v->blk = NULL;
}

/* The latency tracker follows the VBDs' backing devices. */
static void lat_devs(struct xvbd_stats *st)
{
	const struct xvbd_stats_vbdinfo **info;
	char why[256] = "";
	size_t i;

	if (!st->lat)
		return;
	info = calloc(st->nvbds ? st->nvbds : 1, sizeof(*info));
	if (!info)
		return;
	for (i = 0; i < st->nvbds; i++)
		info[i] = &st->vbds[i].info;
	stats_lat_devs(st->lat, info, st->nvbds, why, sizeof(why));
	free(info);
	if (why[0])
		warn(st, "latency: %s", why);
}

/*
 * Re-read the VBD list.  A VBD that is still there keeps its state
 * unless blkback's device was replaced (detach + attach between two
 * looks), its ring reconnected (connect_gen) or its backing device
 * changed: then its next interval is reset.
 */
static int rediscover(struct xvbd_stats *st)
{
	struct xvbd_stats_vbdinfo *info = NULL;
	struct vbd_state *next = NULL, *old;
	size_t n = 0, i;
	int rc;

	rc = st->src.vbds(st->src.arg, &info, &n);
	if (rc)
		return rc;
	/* No VBD left (all detached): info may be NULL, which qsort forbids. */
	if (n)
		qsort(info, n, sizeof(*info), cmp_vbdinfo);
	next = calloc(n ? n : 1, sizeof(*next));
	if (!next) {
		free(info);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		struct vbd_state *v = &next[i];
		uint64_t inst;

		v->info = info[i];
		old = find_vbd(st->vbds, st->nvbds, info[i].domid,
			       info[i].devid);
		if (!old) {
			v->first_iv = was_gone(st, vbd_key(info[i].domid,
							   info[i].devid)) ?
				      XVBD_IV_RESET : XVBD_IV_NEW;
			if (st->seq > 0 && v->first_iv == XVBD_IV_NEW)
				v->first_iv = XVBD_IV_RESET;
			vbd_open_files(st, v);
			continue;
		}
		*v = *old;
		v->info = info[i];
		old->moved = true;
		v->moved = false;
		if (v->files &&
		    (info[i].connect_gen != old->info.connect_gen ||
		     xvbd_sysfs_vbd_probe(st->sys, v->info.domid,
					  v->info.devid, &inst) ||
		     inst != xvbd_sysfs_vbd_instance(v->files))) {
			vbd_state_drop(v);
			/* Before the first sample there is no interval to
			 * reset: a guest that connected since the open. */
			v->first_iv = st->seq > 0 ? XVBD_IV_RESET :
						    XVBD_IV_NEW;
		}
		if (v->blk && (!info[i].has_blkdev ||
			       info[i].blk_major != old->info.blk_major ||
			       info[i].blk_minor != old->info.blk_minor)) {
			xvbd_sysfs_blk_close(v->blk);
			v->blk = NULL;
			v->have_prev_blk = false;
		}
		vbd_open_files(st, v);
	}
	/* Whatever was not moved over is gone. */
	for (i = 0; i < st->nvbds; i++) {
		if (st->vbds[i].moved)
			continue;
		remember_gone(st, vbd_key(st->vbds[i].info.domid,
					  st->vbds[i].info.devid));
		vbd_state_drop(&st->vbds[i]);
	}
	free(st->vbds);
	free(info);
	st->vbds = next;
	st->nvbds = n;
	st->rediscovered = true;
	lat_devs(st);
	return 0;
}

static int copy_filter(struct xvbd_stats *st, const struct xvbd_stats_opts *o)
{
	size_t i;

	if (!o || !o->ndomains)
		return 0;
	st->filter = calloc(o->ndomains, sizeof(*st->filter));
	if (!st->filter)
		return -ENOMEM;
	st->nfilter = o->ndomains;
	for (i = 0; i < o->ndomains; i++) {
		st->filter[i] = strdup(o->domains[i]);
		if (!st->filter[i])
			return -ENOMEM;
	}
	return 0;
}

int xvbd_stats_open(const struct xvbd_stats_source *src,
		    struct xvbd_sysfs *sys, const struct xvbd_stats_opts *opts,
		    struct xvbd_stats **out)
{
	struct xvbd_stats *st = calloc(1, sizeof(*st));
	int rc;

	if (!st)
		return -ENOMEM;
	st->src = *src;
	st->sys = sys;
	st->vcpus = opts && opts->vcpus && src->vcpus;
	rc = copy_filter(st, opts);
	if (!rc)
		rc = rediscover(st);
	if (!rc && opts && opts->latency) {
		st->lat = stats_lat_open(sys, opts);
		if (!st->lat)
			rc = -ENOMEM;
		lat_devs(st);
	}
	if (rc) {
		st->src.close = NULL;	/* the caller still owns the source */
		xvbd_stats_close(st);
		return rc;
	}
	*out = st;
	return 0;
}

void xvbd_stats_close(struct xvbd_stats *st)
{
	size_t i;

	if (!st)
		return;
	stats_lat_close(st->lat);
	for (i = 0; i < st->nvbds; i++)
		vbd_state_drop(&st->vbds[i]);
	free(st->vbds);
	free(st->want);
	for (i = 0; i < st->ndoms; i++)
		free(st->doms[i].vcpu_ns);
	free(st->doms);
	free(st->dbuf);
	free(st->vbuf);
	for (i = 0; i < st->nfilter; i++)
		free(st->filter[i]);
	free(st->filter);
	if (st->src.close)
		st->src.close(st->src.arg);
	free(st);
}

void xvbd_stats_sample_free(struct xvbd_stats_sample *s)
{
	size_t i;

	for (i = 0; i < s->cap_doms; i++) {
		free(s->doms[i].vcpu_ns);
		free(s->doms[i].vcpu_pct);
		free(s->doms[i].vcpu_pct_known);
	}
	free(s->doms);
	free(s->vbds);
	stats_lat_sample_free(s);
	memset(s, 0, sizeof(*s));
}

/*
 * Grow an array to hold at least n entries (zeroing the new ones).  The
 * capacity at least doubles: domains are added one at a time, and growing
 * by one entry each made a first sample of 32000 domains copy the array
 * 32000 times.
 */
static int grow(void **arr, size_t *cap, size_t n, size_t size)
{
	size_t want = *cap * 2;
	void *p;

	if (n <= *cap)
		return 0;
	if (want < n)
		want = n;
	if (want > SIZE_MAX / size)
		return -ENOMEM;
	p = realloc(*arr, want * size);
	if (!p)
		return -ENOMEM;
	memset((char *)p + *cap * size, 0, (want - *cap) * size);
	*arr = p;
	*cap = want;
	return 0;
}

/*
 * The domain list in one source call, more only when it outgrew the
 * buffer: the source's hint, at least double, until the answer fits.
 * Bounded by what Xen can hold (domids below DOMID_FIRST_RESERVED), so
 * a source that keeps saying "more" cannot make this loop for ever.
 */
static int read_domains(struct xvbd_stats *st, size_t *n,
			uint64_t *mid_ns, uint64_t *half_ns)
{
	uint64_t t0, t1;
	size_t want;
	int rc;

	if (!st->cap_dbuf &&
	    grow((void **)&st->dbuf, &st->cap_dbuf, 8, sizeof(*st->dbuf)))
		return -ENOMEM;
	for (;;) {
		t0 = xvbd_stats_now_ns();
		rc = st->src.domains(st->src.arg, st->dbuf, st->cap_dbuf, n);
		t1 = xvbd_stats_now_ns();
		if (rc != -ENOSPC) {
			st->last_t1_ns = t1;
			*mid_ns = t0 + (t1 - t0) / 2;
			*half_ns = (t1 - t0) / 2;
			return rc;
		}
		if (st->cap_dbuf > XVBD_STATS_DOMAINS_MAX)
			return -E2BIG;
		want = st->cap_dbuf * 2;
		if (*n > want)
			want = *n;
		if (want > XVBD_STATS_DOMAINS_MAX + 1)
			want = XVBD_STATS_DOMAINS_MAX + 1;
		if (grow((void **)&st->dbuf, &st->cap_dbuf, want,
			 sizeof(*st->dbuf)))
			return -ENOMEM;
	}
}

static bool filter_keeps(const struct xvbd_stats *st, const char *name)
{
	size_t i;

	if (!st->nfilter)
		return true;
	for (i = 0; i < st->nfilter; i++)
		if (!strcmp(st->filter[i], name))
			return true;
	return false;
}

static struct dom_state *find_dom(struct xvbd_stats *st, uint32_t domid)
{
	size_t i;

	for (i = 0; i < st->ndoms; i++)
		if (st->doms[i].info.domid == domid)
			return &st->doms[i];
	return NULL;
}

/*
 * The filter compares the whole name (a longer one than the sample
 * holds must still match -d NAME); the sample keeps what fits.
 */
static void dom_name(struct xvbd_stats *st, struct dom_state *d)
{
	char full[DOM_NAME_FULL_MAX];

	if (st->src.domain_name(st->src.arg, d->info.domid, full,
				sizeof(full)))
		snprintf(full, sizeof(full), "%" PRIu32, d->info.domid);
	snprintf(d->name, sizeof(d->name), "%.*s", (int)sizeof(d->name) - 1,
		 full);
	d->keep = filter_keeps(st, full);
}

/* Per-vCPU times into out (allocated here); the domain's total stays. */
static void sample_vcpus(struct xvbd_stats *st, struct dom_state *d,
			 struct xvbd_stats_dom *out, enum xvbd_stats_iv iv,
			 uint64_t interval_ns, uint64_t slack_ns)
{
	size_t n = 0, i;
	int rc;

	if (!st->cap_vbuf &&
	    grow((void **)&st->vbuf, &st->cap_vbuf, 8, sizeof(*st->vbuf)))
		return;
	rc = st->src.vcpus(st->src.arg, d->info.domid, st->vbuf,
			   st->cap_vbuf, &n);
	if (rc == -ENOSPC) {
		if (grow((void **)&st->vbuf, &st->cap_vbuf, n,
			 sizeof(*st->vbuf)))
			return;
		rc = st->src.vcpus(st->src.arg, d->info.domid, st->vbuf,
				   st->cap_vbuf, &n);
	}
	if (rc || !n)
		return;
	out->vcpu_ns = calloc(n, sizeof(*out->vcpu_ns));
	out->vcpu_pct = calloc(n, sizeof(*out->vcpu_pct));
	out->vcpu_pct_known = calloc(n, sizeof(*out->vcpu_pct_known));
	if (!out->vcpu_ns || !out->vcpu_pct || !out->vcpu_pct_known)
		return;
	out->nvcpu = n;
	for (i = 0; i < n; i++) {
		out->vcpu_ns[i] = st->vbuf[i];
		if (iv == XVBD_IV_OK && d->vcpu_ns && i < d->nvcpu)
			out->vcpu_pct_known[i] =
				xvbd_stats_cpu_pct(d->vcpu_ns[i], st->vbuf[i],
						   interval_ns, slack_ns, 1,
						   &out->vcpu_pct[i]) ==
				XVBD_IV_OK;
	}
	free(d->vcpu_ns);
	d->vcpu_ns = malloc(n * sizeof(*d->vcpu_ns));
	d->nvcpu = d->vcpu_ns ? n : 0;
	if (d->vcpu_ns)
		memcpy(d->vcpu_ns, st->vbuf, n * sizeof(*d->vcpu_ns));
}

static void clear_sample_doms(struct xvbd_stats_sample *s)
{
	size_t i;

	for (i = 0; i < s->cap_doms; i++) {
		free(s->doms[i].vcpu_ns);
		free(s->doms[i].vcpu_pct);
		free(s->doms[i].vcpu_pct_known);
		memset(&s->doms[i], 0, sizeof(s->doms[i]));
	}
	s->ndoms = 0;
}

static int sample_domains(struct xvbd_stats *st, struct xvbd_stats_sample *s,
			  uint64_t *mid_out)
{
	uint64_t mid, half;
	size_t n = 0, i, j;
	int rc = read_domains(st, &n, &mid, &half);

	*mid_out = mid;
	if (rc)
		return rc;
	for (i = 0; i < st->ndoms; i++)
		st->doms[i].seen = false;
	s->left_out_doms = 0;
	if (grow((void **)&s->doms, &s->cap_doms, n, sizeof(*s->doms)))
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		const struct xvbd_stats_dominfo *now = &st->dbuf[i];
		struct dom_state *d = find_dom(st, now->domid);
		enum xvbd_stats_iv iv = XVBD_IV_NEW;
		struct xvbd_stats_dom *out;
		double pct = 0.0;
		uint64_t interval = 0, slack = 0;

		if (d && memcmp(d->info.uuid, now->uuid, sizeof(now->uuid))) {
			/* Same domid, another domain: start over. */
			free(d->vcpu_ns);
			d->vcpu_ns = NULL;
			d->nvcpu = 0;
			d->info = *now;
			dom_name(st, d);
			iv = XVBD_IV_RESET;
		} else if (d) {
			uint32_t vcpus = now->vcpus_online >
					 d->info.vcpus_online ?
					 now->vcpus_online :
					 d->info.vcpus_online;

			interval = mid - d->mid_ns;
			slack = half + d->half_ns;
			iv = xvbd_stats_cpu_pct(d->info.cpu_ns, now->cpu_ns,
						interval, slack, vcpus, &pct);
			if (iv == XVBD_IV_IMPOSSIBLE)
				warn(st, "domain %s (%" PRIu32 "): CPU time "
				     "grew %.3f s in %.3f s of wall time with "
				     "%" PRIu32 " vCPU(s): impossible, check "
				     "the time base (clocksource, TSC)",
				     d->name, now->domid,
				     (double)(now->cpu_ns - d->info.cpu_ns) /
				     (double)NS_PER_S,
				     (double)interval / (double)NS_PER_S,
				     vcpus);
			if (!d->keep && now->cpu_ns > d->info.cpu_ns)
				st->left_out_cpu_ns += now->cpu_ns -
						       d->info.cpu_ns;
			d->info = *now;
		} else {
			if (grow((void **)&st->doms, &st->cap_doms,
				 st->ndoms + 1, sizeof(*st->doms)))
				return -ENOMEM;
			d = &st->doms[st->ndoms++];
			memset(d, 0, sizeof(*d));
			d->info = *now;
			dom_name(st, d);
			if (st->seq > 0)
				iv = XVBD_IV_NEW;
		}
		d->mid_ns = mid;
		d->half_ns = half;
		d->seen = true;
		if (!d->keep) {
			s->left_out_doms++;
			continue;
		}
		out = &s->doms[s->ndoms++];
		out->domid = now->domid;
		snprintf(out->name, sizeof(out->name), "%s", d->name);
		out->vcpus = now->vcpus_online;
		out->mem_bytes = now->mem_bytes;
		out->cpu_ns = now->cpu_ns;
		out->cpu_iv = iv;
		out->cpu_pct = iv == XVBD_IV_OK ? pct : 0.0;
		if (st->vcpus)
			sample_vcpus(st, d, out, iv, interval, slack);
	}
	/* Domains that are gone. */
	for (i = 0, j = 0; i < st->ndoms; i++) {
		if (!st->doms[i].seen) {
			free(st->doms[i].vcpu_ns);
			continue;
		}
		st->doms[j++] = st->doms[i];
	}
	st->ndoms = j;
	return 0;
}

static int grow_want(struct xvbd_stats *st)
{
	void *p;

	if (!st->nvbds)
		return 0;
	p = realloc(st->want, st->nvbds * sizeof(*st->want));
	if (!p)
		return -ENOMEM;
	st->want = p;
	return 0;
}

/* Request sizes against the offer's ceiling, and the ring threads' CPU. */
static void vbd_cost(struct vbd_state *v, const struct xvbd_blkback_counters *c,
		     uint64_t interval, struct xvbd_stats_vbd *out)
{
	bool ok = out->iv == XVBD_IV_OK;
	uint64_t dreq = 0;

	out->ceiling_known = v->info.indirect_known;
	out->ceiling_segments = xvbd_stats_ceiling_segments(
		v->info.indirect_segments);
	out->ceiling_kib = (double)out->ceiling_segments *
			   XVBD_BLKIF_SEGMENT_KIB;
	if (ok) {
		xvbd_stats_req_sizes(&v->prev, c, out);
		dreq = (c->rd_req - v->prev.rd_req) +
		       (c->wr_req - v->prev.wr_req) +
		       (c->f_req - v->prev.f_req) +
		       (c->ds_req - v->prev.ds_req);
	}
	xvbd_rings_sample(&v->rings, interval, ok, dreq, out);
}

/*
 * Find the ring threads of connected VBDs that have none (or lost one):
 * at once after the VBD list changed or a thread went, else at most
 * every RING_RESCAN_NS.  One /proc scan serves them all.
 */
static void find_rings(struct xvbd_stats *st, uint64_t now_ns)
{
	bool due = st->rediscovered ||
		   now_ns - st->ring_scan_ns >= RING_RESCAN_NS;
	size_t i, n = 0;

	if (grow_want(st))
		return;
	for (i = 0; i < st->nvbds; i++) {
		struct vbd_state *v = &st->vbds[i];
		const struct dom_state *d = find_dom(st, v->info.domid);

		if (!v->info.thread_prefix[0] || !v->info.connected ||
		    !d || !d->keep || (v->rings.n && !v->rings.lost))
			continue;
		due = due || v->rings.lost;
		st->want[n].prefix = v->info.thread_prefix;
		st->want[n++].set = &v->rings;
	}
	if (!n || !due)
		return;
	st->ring_scan_ns = now_ns;
	xvbd_rings_find(st->sys, st->want, n);
}

static void sample_vbd(struct xvbd_stats *st, struct vbd_state *v,
		       const struct dom_state *d, uint64_t now_ns,
		       struct xvbd_stats_sample *s)
{
	struct xvbd_stats_vbd *out = &s->vbds[s->nvbds];
	struct xvbd_blkback_counters c;
	struct xvbd_blkstat bs;
	uint64_t interval = now_ns - v->prev_ns;

	vbd_open_files(st, v);
	if (!v->files)
		return;
	if (xvbd_sysfs_vbd_read(v->files, &c)) {
		/* Detached under us: the watch will tell the rest. */
		vbd_state_drop(v);
		v->first_iv = XVBD_IV_RESET;
		remember_gone(st, vbd_key(v->info.domid, v->info.devid));
		return;
	}
	memset(out, 0, sizeof(*out));
	s->nvbds++;
	out->domid = v->info.domid;
	snprintf(out->domain, sizeof(out->domain), "%s", d->name);
	snprintf(out->vdev, sizeof(out->vdev), "%s", v->info.vdev);
	out->devid = v->info.devid;
	out->raw = c;
	out->iv = v->have_prev ?
		  xvbd_stats_vbd_rates(&v->prev, &c, interval, out) :
		  v->first_iv;
	if (out->iv != XVBD_IV_OK) {
		out->rd_req_s = out->wr_req_s = out->f_req_s = 0.0;
		out->ds_req_s = out->oo_req_s = 0.0;
		out->rd_bytes_s = out->wr_bytes_s = 0.0;
	}
	vbd_cost(v, &c, interval, out);
	v->prev = c;
	v->have_prev = true;
	v->first_iv = XVBD_IV_RESET;	/* from now on, a gap is a reset */

	out->has_blk = v->info.has_blkdev;
	out->blk_major = v->info.blk_major;
	out->blk_minor = v->info.blk_minor;
	out->blk_iv = XVBD_IV_NEW;
	if (v->blk && !xvbd_sysfs_blk_read(v->blk, &bs)) {
		out->blk_raw = bs;
		/* A VBD reset resets the view of its backing device too. */
		if (v->have_prev_blk && out->iv == XVBD_IV_OK)
			out->blk_iv = xvbd_stats_blk_rates(&v->prev_blk, &bs,
							   interval, out);
		else
			out->blk_iv = out->iv == XVBD_IV_OK ?
				      XVBD_IV_NEW : out->iv;
		v->prev_blk = bs;
		v->have_prev_blk = true;
	} else {
		out->has_blk = false;
	}
	v->prev_ns = now_ns;
}

int xvbd_stats_sample(struct xvbd_stats *st, struct xvbd_stats_sample *s)
{
	uint64_t mid, vbd_ns;
	struct timespec rt;
	size_t i;
	int rc;

	st->nwarnings = 0;
	st->rediscovered = st->seq == 0;
	/*
	 * Also before the first sample: what changed since the open (a
	 * guest that connected its disks meanwhile, as in ab record's
	 * warmup) is part of the baseline, not a reset of the first
	 * interval.
	 */
	if (st->src.vbds_changed(st->src.arg)) {
		rc = rediscover(st);
		if (rc)
			warn(st, "re-reading the VBD list failed: %s",
			     strerror(-rc));
	}
	clear_sample_doms(s);
	s->nvbds = 0;
	rc = sample_domains(st, s, &mid);
	if (rc)
		return rc;
	s->left_out_cpu_ns = st->left_out_cpu_ns;
	/*
	 * VBD counters are read right after, so the end of the domain-list
	 * call times them: clock reads are system calls in a PV dom0.
	 */
	vbd_ns = st->last_t1_ns;
	if (grow((void **)&s->vbds, &s->cap_vbds, st->nvbds,
		 sizeof(*s->vbds)))
		return -ENOMEM;
	find_rings(st, vbd_ns);
	for (i = 0; i < st->nvbds; i++) {
		const struct dom_state *d = find_dom(st, st->vbds[i].info.domid);

		if (d && d->keep)
			sample_vbd(st, &st->vbds[i], d, vbd_ns, s);
	}
	if (st->lat) {
		char why[256] = "";

		rc = stats_lat_sample(st->lat, xvbd_stats_now_ns(), s, why,
				      sizeof(why));
		if (rc)
			return rc;
		if (why[0])
			warn(st, "latency: %s", why);
	}
	/*
	 * Wall-clock stamps come from the monotonic clock plus an offset
	 * taken now and then: one clock read fewer per sample.
	 */
	if (st->seq % REALTIME_EVERY == 0) {
		clock_gettime(CLOCK_REALTIME, &rt);
		st->realtime_offset_ns = (int64_t)rt.tv_sec *
					 (int64_t)NS_PER_S + rt.tv_nsec -
					 (int64_t)xvbd_stats_now_ns();
	}
	s->seq = st->seq;
	s->interval_ns = st->seq ? mid - st->prev_mid_ns : 0;
	s->mono_ns = mid;
	s->realtime_ns = (int64_t)mid + st->realtime_offset_ns;
	s->rediscovered = st->rediscovered;
	st->prev_mid_ns = mid;
	st->seq++;
	return 0;
}
