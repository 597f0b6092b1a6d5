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

#endif /* XVBD_STATS_IMPL_H */
