/*
 * stats_lat.c - the sampler's latency part: the tracker of the backing
 * devices' requests (dom0/lat_trace.h) set up at open over the VBDs'
 * backing devices, followed as VBDs come and go, read at each sample
 * into the sample's lat[] beside its VBDs.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xvbd/dom0/tracefs.h"
#include "stats_impl.h"

/* A device's requests since tracking began. */
struct dev_total {
	unsigned major, minor;
	struct xvbd_lat_result r;
};

struct stats_lat {
	struct xvbd_tracefs *tf;
	struct xvbd_lat *lat;
	uint64_t slot_ns;
	char why[192];			/* unavailable: why */
	struct xvbd_lat_dev *devs;	/* the set last given */
	size_t ndevs;
	struct dev_total *totals;
	size_t ntotals;
};

static void lat_result_free(struct xvbd_lat_result *r)
{
	size_t k, d;

	for (k = 0; k < XVBD_LAT_NKINDS; k++)
		for (d = 0; d < XVBD_LAT_NDIRS; d++)
			xvbd_lathist_free(&r->h[k][d]);
	memset(r, 0, sizeof(*r));
}

void stats_lat_sample_free(struct xvbd_stats_sample *s)
{
	size_t i;

	for (i = 0; i < s->cap_lat; i++) {
		lat_result_free(&s->lat[i]);
		lat_result_free(&s->lat_total[i]);
	}
	free(s->lat);
	free(s->lat_total);
	s->lat = s->lat_total = NULL;
	s->cap_lat = 0;
}

/* r merged into the device's total, and the total copied into out. */
static int add_total(struct stats_lat *sl, unsigned major, unsigned minor,
		     const struct xvbd_lat_result *r,
		     struct xvbd_lat_result *out)
{
	struct dev_total *t = NULL;
	size_t i, k, d;
	int err = 0;

	for (i = 0; i < sl->ntotals && !t; i++)
		if (sl->totals[i].major == major &&
		    sl->totals[i].minor == minor)
			t = &sl->totals[i];
	if (!t) {
		t = realloc(sl->totals, (sl->ntotals + 1) * sizeof(*t));
		if (!t)
			return -ENOMEM;
		sl->totals = t;
		t = &sl->totals[sl->ntotals++];
		memset(t, 0, sizeof(*t));
		t->major = major;
		t->minor = minor;
	}
	for (k = 0; k < XVBD_LAT_NKINDS; k++) {
		for (d = 0; d < XVBD_LAT_NDIRS; d++) {
			err = err ? err : xvbd_lathist_merge(&t->r.h[k][d],
							     &r->h[k][d]);
			err = err ? err : xvbd_lathist_copy(&out->h[k][d],
							    &t->r.h[k][d]);
		}
	}
	t->r.backwards += r->backwards;
	out->backwards = t->r.backwards;
	out->state = r->state;
	/* Once timed, its series stay (they are cumulative). */
	t->r.i2c_timed = t->r.i2c_timed || r->i2c_timed;
	out->i2c_timed = t->r.i2c_timed;
	return err;
}

static int devs_cmp(const void *a, const void *b)
{
	const struct xvbd_lat_dev *x = a, *y = b;

	if (x->major != y->major)
		return x->major < y->major ? -1 : 1;
	return x->minor < y->minor ? -1 : x->minor > y->minor;
}

static int result_copy(struct xvbd_lat_result *dst,
				const struct xvbd_lat_result *src)
{
	size_t k, d;

	for (k = 0; k < XVBD_LAT_NKINDS; k++)
		for (d = 0; d < XVBD_LAT_NDIRS; d++)
			if (xvbd_lathist_copy(&dst->h[k][d], &src->h[k][d]))
				return -ENOMEM;
	dst->backwards = src->backwards;
	dst->state = src->state;
	dst->i2c_timed = src->i2c_timed;
	return 0;
}

/* The backing devices of the VBDs: given to the tracker when changed. */
void stats_lat_devs(struct stats_lat *sl, const struct xvbd_stats_vbdinfo
		    *const *info, size_t n, char *warn, size_t warn_len)
{
	struct xvbd_lat_dev *devs;
	size_t i, nd = 0;
	int err;

	if (!sl || !sl->lat)
		return;
	devs = calloc(n ? n : 1, sizeof(*devs));
	if (!devs)
		return;
	for (i = 0; i < n; i++) {
		if (!info[i]->has_blkdev)
			continue;
		devs[nd].major = info[i]->blk_major;
		devs[nd].minor = info[i]->blk_minor;
		nd++;
	}
	if (nd)
		qsort(devs, nd, sizeof(*devs), devs_cmp);
	/* Two VBDs on one device: one unit. */
	for (i = 1, n = nd ? 1 : 0; i < nd; i++)
		if (devs_cmp(&devs[i], &devs[n - 1]))
			devs[n++] = devs[i];
	nd = n;
	if (nd == sl->ndevs && (!nd || !memcmp(devs, sl->devs,
					       nd * sizeof(*devs)))) {
		free(devs);
		return;
	}
	err = xvbd_lat_set_devs(sl->lat, devs, nd, sl->why, sizeof(sl->why));
	free(sl->devs);
	sl->devs = devs;
	sl->ndevs = nd;
	if (!err)
		return;
	/* The kernel refused the tracing: unavailable from now on, said
	 * with its reason in every sample, and nothing of it left. */
	snprintf(warn, warn_len, "%s", sl->why);
	xvbd_lat_close(sl->lat);
	sl->lat = NULL;
	xvbd_tracefs_close(sl->tf);
	sl->tf = NULL;
}

struct stats_lat *stats_lat_open(struct xvbd_sysfs *sys,
				 const struct xvbd_stats_opts *opts)
{
	struct stats_lat *sl;

	if (!opts || !opts->latency)
		return NULL;
	sl = calloc(1, sizeof(*sl));
	if (!sl)
		return NULL;
	sl->slot_ns = opts->interval_ns;
	if (xvbd_tracefs_open(NULL, &sl->tf, sl->why, sizeof(sl->why)))
		return sl;
	if (xvbd_lat_open(sl->tf, sys, sl->slot_ns, &sl->lat, sl->why,
			  sizeof(sl->why))) {
		xvbd_tracefs_close(sl->tf);
		sl->tf = NULL;
	}
	return sl;
}

void stats_lat_close(struct stats_lat *sl)
{
	size_t i;

	if (!sl)
		return;
	for (i = 0; i < sl->ntotals; i++)
		lat_result_free(&sl->totals[i].r);
	free(sl->totals);
	xvbd_lat_close(sl->lat);
	xvbd_tracefs_close(sl->tf);
	free(sl->devs);
	free(sl);
}

/* After the sample's VBDs are in: what their devices' requests took. */
int stats_lat_sample(struct stats_lat *sl, uint64_t now_ns,
		     struct xvbd_stats_sample *s, char *warn, size_t warn_len)
{
	size_t i;
	int err = 0;

	s->lat_asked = sl != NULL;
	s->lat_on = sl && sl->lat;
	snprintf(s->lat_unavailable, sizeof(s->lat_unavailable), "%s",
		 sl && !sl->lat ? sl->why : "");
	if (!s->lat_on)
		return 0;
	if (s->cap_lat < s->nvbds) {
		struct xvbd_lat_result *n = realloc(s->lat, s->nvbds *
						    sizeof(*n)), *t;

		if (!n)
			return -ENOMEM;
		s->lat = n;
		t = realloc(s->lat_total, s->nvbds * sizeof(*t));
		if (!t)
			return -ENOMEM;
		s->lat_total = t;
		memset(n + s->cap_lat, 0,
		       (s->nvbds - s->cap_lat) * sizeof(*n));
		memset(t + s->cap_lat, 0,
		       (s->nvbds - s->cap_lat) * sizeof(*t));
		s->cap_lat = s->nvbds;
	}
	err = xvbd_lat_read(sl->lat, now_ns);
	if (err)
		snprintf(warn, warn_len, "reading the latency records: %s",
			 strerror(-err));
	for (i = 0; i < s->nvbds; i++) {
		struct xvbd_stats_vbd *v = &s->vbds[i];

		lat_result_free(&s->lat[i]);
		lat_result_free(&s->lat_total[i]);
		v->lat_state = v->has_blk ?
			xvbd_lat_take(sl->lat, v->blk_major, v->blk_minor,
				      &s->lat[i]) : XVBD_LAT_NOT_TRACKED;
		/* A read that failed leaves nothing whole. */
		if (err && v->lat_state == XVBD_LAT_OK) {
			v->lat_state = s->lat[i].state = XVBD_LAT_INCOMPLETE;
			s->lat[i].why = "reading the histograms failed";
		}
		s->lat[i].state = v->lat_state;
	}
	/*
	 * Two VBDs on one device: the first took its counts; the others
	 * show the same device's, merged in again.
	 */
	for (i = 0; i < s->nvbds; i++) {
		size_t j, k, d;

		for (j = 0; j < i; j++) {
			if (!s->vbds[i].has_blk || !s->vbds[j].has_blk ||
			    s->vbds[i].blk_major != s->vbds[j].blk_major ||
			    s->vbds[i].blk_minor != s->vbds[j].blk_minor)
				continue;
			for (k = 0; k < XVBD_LAT_NKINDS; k++)
				for (d = 0; d < XVBD_LAT_NDIRS; d++)
					xvbd_lathist_merge(&s->lat[i].h[k][d],
							   &s->lat[j].h[k][d]);
			s->lat[i].backwards = s->lat[j].backwards;
			s->lat[i].i2c_timed = s->lat[j].i2c_timed;
			s->vbds[i].lat_state = s->lat[i].state =
				s->lat[j].state;
			break;
		}
		/* The totals: each device once (the first VBD on it). */
		if (j == i && s->vbds[i].has_blk &&
		    add_total(sl, s->vbds[i].blk_major, s->vbds[i].blk_minor,
			      &s->lat[i], &s->lat_total[i]))
			return -ENOMEM;
		if (j < i && result_copy(&s->lat_total[i],
						  &s->lat_total[j]))
			return -ENOMEM;
	}
	return 0;
}

uint64_t stats_lat_start_ns(const struct stats_lat *sl, uint64_t t)
{
	uint64_t s;

	if (!sl || !sl->lat)
		return t;
	/* No device yet: still on slot boundaries, for those to come. */
	s = xvbd_lat_start_ns(sl->lat);
	return s > t ? s : xvbd_lat_deadline_ns(sl->lat, t);
}

uint64_t stats_lat_whole_from_ns(const struct stats_lat *sl)
{
	return sl && sl->lat ? xvbd_lat_whole_from_ns(sl->lat) : 0;
}

uint64_t stats_lat_deadline_ns(const struct stats_lat *sl, uint64_t t)
{
	if (!sl || !sl->lat)
		return t;
	return xvbd_lat_deadline_ns(sl->lat, t);
}

bool stats_lat_tracking(const struct stats_lat *sl)
{
	return sl && sl->lat;
}

void stats_lat_drain(struct stats_lat *sl)
{
	/* A failure here is the next sample's to say: it reads again. */
	if (stats_lat_tracking(sl))
		xvbd_lat_drain(sl->lat);
}
