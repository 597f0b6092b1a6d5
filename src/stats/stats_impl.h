/*
 * stats_impl.h - the sampler's private parts shared by stats.c and
 * stats_ring.c: the ring threads followed per VBD.
 */
#ifndef XVBD_STATS_IMPL_H
#define XVBD_STATS_IMPL_H

#include "xvbd/stats/stats.h"

struct ring_track {
	uint32_t ring;
	int pid;
	char comm[XVBD_COMM_MAX];
	struct xvbd_proc_thread *file;
	uint64_t prev_ns;
	bool have_prev;
};

/* One VBD's ring threads, as last found in /proc. */
struct ring_set {
	size_t n;
	struct ring_track r[XVBD_STATS_RINGS_MAX];
	bool lost;		/* a thread went away: find them again */
	bool fresh;		/* found since the last sample: no interval */
	bool had_rings;		/* some set was sampled before */
};

/* A VBD whose rings are to be found, by its thread name prefix. */
struct ring_want {
	const char *prefix;	/* "<domid>.<dev>" */
	struct ring_set *set;
};

void xvbd_rings_drop(struct ring_set *set);
/*
 * One /proc scan for all the wanted sets: each gets the kernel threads
 * named "<prefix>-<ring>", opened (a set found again replaces the old
 * one).  -errno when /proc could not be scanned (sets left empty).
 */
int xvbd_rings_find(struct xvbd_sysfs *sys, struct ring_want *want,
		    size_t nwant);
/*
 * Read the set into out (rings, be_* fields) over interval_ns with dreq
 * requests of the VBD in it (dreq_known false: the VBD's own interval
 * is not valid, so neither is its per-request cost).
 */
void xvbd_rings_sample(struct ring_set *set, uint64_t interval_ns,
		       bool dreq_known, uint64_t dreq,
		       struct xvbd_stats_vbd *out);

/* ---- stats_lat.c: the backing devices' request latency ---- */

struct stats_lat;

/* NULL without opts->latency; else a handle, which may say why the
 * latency is unavailable. */
struct stats_lat *stats_lat_open(struct xvbd_sysfs *sys,
				 const struct xvbd_stats_opts *opts);
void stats_lat_close(struct stats_lat *sl);		/* NULL ok */
/* The VBDs' backing devices (info[0..n)); warn says what failed. */
void stats_lat_devs(struct stats_lat *sl, const struct xvbd_stats_vbdinfo
		    *const *info, size_t n, char *warn, size_t warn_len);
int stats_lat_sample(struct stats_lat *sl, uint64_t now_ns,
		     struct xvbd_stats_sample *s, char *warn, size_t warn_len);
void stats_lat_sample_free(struct xvbd_stats_sample *s);
uint64_t stats_lat_start_ns(const struct stats_lat *sl, uint64_t t);
uint64_t stats_lat_deadline_ns(const struct stats_lat *sl, uint64_t t);
bool stats_lat_tracking(const struct stats_lat *sl);
void stats_lat_drain(struct stats_lat *sl);
uint64_t stats_lat_whole_from_ns(const struct stats_lat *sl);

/* ---- stats_render_lat.c ---- */

struct xvbd_out;

/* vbds[i]'s latency fields (within its object). */
void stats_render_lat(struct xvbd_out *o, const struct xvbd_stats_sample *s,
		      size_t i);
/* The sample's clock and error statement, or why it is unavailable. */
void stats_render_lat_head(struct xvbd_out *o,
			   const struct xvbd_stats_sample *s);
/* Prometheus only: the histograms' rows, an array of the sample. */
void stats_render_lat_prom(struct xvbd_out *o,
			   const struct xvbd_stats_sample *s);

#endif /* XVBD_STATS_IMPL_H */
