/*
 * stats_ring.c - what a VBD costs dom0: blkback's ring threads (one
 * kernel thread per ring, "<domid>.<dev>-<ring>") found by name in /proc
 * and their CPU time read from kept-open schedstat files; and the size
 * of the VBD's requests against the ceiling the backend's offer allows.
 *
 * Truth: no thread found is "unknown", never 0 (qdisk, a kernel that
 * names them otherwise); a ring whose thread went away or a set that
 * changed is a reset of the interval, never a negative.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats_impl.h"

#define NS_PER_US	1e3
#define BYTES_PER_KIB	1024.0

uint32_t xvbd_stats_ceiling_segments(uint32_t indirect_offer)
{
	/* blkfront uses indirect descriptors only beyond 11 segments. */
	return indirect_offer > XVBD_BLKIF_DIRECT_SEGMENTS ?
	       indirect_offer : XVBD_BLKIF_DIRECT_SEGMENTS;
}

static void one_size(uint64_t dreq, uint64_t dsect, bool *known, double *kib)
{
	*known = dreq > 0;
	*kib = dreq ? (double)dsect * XVBD_SECTOR_BYTES / BYTES_PER_KIB /
		      (double)dreq : 0.0;
}

void xvbd_stats_req_sizes(const struct xvbd_blkback_counters *a,
			  const struct xvbd_blkback_counters *b,
			  struct xvbd_stats_vbd *v)
{
	v->rd_kib_known = v->wr_kib_known = false;
	v->rd_kib_per_req = v->wr_kib_per_req = 0.0;
	v->rd_ceiling_pct = v->wr_ceiling_pct = 0.0;
	if (b->rd_req < a->rd_req || b->rd_sect < a->rd_sect ||
	    b->wr_req < a->wr_req || b->wr_sect < a->wr_sect)
		return;
	one_size(b->rd_req - a->rd_req, b->rd_sect - a->rd_sect,
		 &v->rd_kib_known, &v->rd_kib_per_req);
	one_size(b->wr_req - a->wr_req, b->wr_sect - a->wr_sect,
		 &v->wr_kib_known, &v->wr_kib_per_req);
	if (!v->ceiling_known || v->ceiling_kib <= 0)
		return;
	v->rd_ceiling_pct = v->rd_kib_per_req * 100.0 / v->ceiling_kib;
	v->wr_ceiling_pct = v->wr_kib_per_req * 100.0 / v->ceiling_kib;
}

void xvbd_rings_drop(struct ring_set *set)
{
	size_t i;

	for (i = 0; i < set->n; i++)
		xvbd_proc_thread_close(set->r[i].file);
	set->n = 0;
	set->lost = false;
	set->fresh = false;
}

/* "<prefix>-<digits>" exactly: the ring number, or -1. */
static long ring_of(const char *comm, const char *prefix)
{
	size_t len = strlen(prefix);
	const char *p;
	long ring = 0;

	if (strncmp(comm, prefix, len) || comm[len] != '-' || !comm[len + 1])
		return -1;
	for (p = comm + len + 1; *p; p++) {
		if (*p < '0' || *p > '9' || ring > 100000)
			return -1;
		ring = ring * 10 + (*p - '0');
	}
	return ring;
}

struct scan {
	struct ring_want *want;
	size_t nwant;
	struct ring_set *found;		/* nwant new sets */
};

static void on_kthread(void *arg, int pid, const char *comm)
{
	struct scan *sc = arg;
	size_t i;

	for (i = 0; i < sc->nwant; i++) {
		struct ring_set *f = &sc->found[i];
		long ring = ring_of(comm, sc->want[i].prefix);

		if (ring < 0)
			continue;
		if (f->n == XVBD_STATS_RINGS_MAX)
			return;
		f->r[f->n].ring = (uint32_t)ring;
		f->r[f->n].pid = pid;
		snprintf(f->r[f->n].comm, sizeof(f->r[f->n].comm), "%s", comm);
		f->n++;
		return;
	}
}

static int cmp_ring(const void *a, const void *b)
{
	const struct ring_track *x = a, *y = b;

	return x->ring < y->ring ? -1 : x->ring > y->ring;
}

/* Open the found threads; one that exited since the scan is left out. */
static void open_set(struct xvbd_sysfs *sys, struct ring_set *f)
{
	size_t i, j = 0;

	qsort(f->r, f->n, sizeof(f->r[0]), cmp_ring);
	for (i = 0; i < f->n; i++) {
		struct ring_track t = f->r[i];

		if (xvbd_proc_thread_open(sys, t.pid, t.comm, &t.file))
			continue;
		t.have_prev = false;
		f->r[j++] = t;
	}
	f->n = j;
}

int xvbd_rings_find(struct xvbd_sysfs *sys, struct ring_want *want,
		    size_t nwant)
{
	struct scan sc = { want, nwant, NULL };
	size_t i;
	int rc;

	if (!nwant)
		return 0;
	sc.found = calloc(nwant, sizeof(*sc.found));
	if (!sc.found)
		return -ENOMEM;
	rc = xvbd_proc_kthreads(sys, on_kthread, &sc);
	for (i = 0; i < nwant; i++) {
		struct ring_set *set = want[i].set;
		bool had = set->had_rings || set->n;

		xvbd_rings_drop(set);
		if (rc)
			continue;
		open_set(sys, &sc.found[i]);
		memcpy(set->r, sc.found[i].r, sizeof(set->r));
		set->n = sc.found[i].n;
		set->fresh = set->n > 0;
		set->had_rings = had;
	}
	free(sc.found);
	return rc;
}

static void set_unknown(struct xvbd_stats_vbd *out)
{
	out->be_known = false;
	out->nrings = 0;
	out->be_cpu_ns = 0;
	out->be_iv = XVBD_IV_NEW;
	out->be_cpu_pct = 0.0;
	out->be_us_per_req_known = false;
	out->be_us_per_req = 0.0;
}

void xvbd_rings_sample(struct ring_set *set, uint64_t interval_ns,
		       bool dreq_known, uint64_t dreq,
		       struct xvbd_stats_vbd *out)
{
	enum xvbd_stats_iv iv = set->fresh ?
		(set->had_rings ? XVBD_IV_RESET : XVBD_IV_NEW) : XVBD_IV_OK;
	uint64_t sum = 0, dsum = 0;
	size_t i;

	set_unknown(out);
	if (!set->n)
		return;
	for (i = 0; i < set->n; i++) {
		struct ring_track *t = &set->r[i];
		struct xvbd_stats_ring *o = &out->rings[i];
		uint64_t ns;

		if (xvbd_proc_thread_read(t->file, &ns)) {
			/* Gone (reconnect, unload) or unreadable. */
			set->lost = true;
			set_unknown(out);
			out->be_iv = XVBD_IV_RESET;
			return;
		}
		o->ring = t->ring;
		o->pid = t->pid;
		o->cpu_ns = ns;
		o->iv = t->have_prev && ns >= t->prev_ns && interval_ns ?
			XVBD_IV_OK : (t->have_prev ? XVBD_IV_RESET : iv);
		o->cpu_pct = o->iv == XVBD_IV_OK ?
			     (double)(ns - t->prev_ns) * 100.0 /
			     (double)interval_ns : 0.0;
		if (o->iv != XVBD_IV_OK && iv == XVBD_IV_OK)
			iv = o->iv;
		if (o->iv == XVBD_IV_OK)
			dsum += ns - t->prev_ns;
		sum += ns;
		t->prev_ns = ns;
		t->have_prev = true;
	}
	out->be_known = true;
	out->nrings = set->n;
	out->be_cpu_ns = sum;
	out->be_iv = iv;
	set->fresh = false;
	set->had_rings = true;
	if (iv != XVBD_IV_OK)
		return;
	out->be_cpu_pct = (double)dsum * 100.0 / (double)interval_ns;
	if (dreq_known && dreq) {
		out->be_us_per_req_known = true;
		out->be_us_per_req = (double)dsum / NS_PER_US / (double)dreq;
	}
}
