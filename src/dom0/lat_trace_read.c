/*
 * lat_trace_read.c - the block request events' records into lathists
 * (lat_trace.h): each CPU's ring buffer read a page at a time, the
 * records of all CPUs put in time order and paired into requests by
 * (dev, sector), each request counted into the slot of its completion
 * time, and a slot's counts handed over once the slot has ended.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lat_trace_impl.h"

/* Pages read from one CPU's buffer in one call, at most: 4 buffers. */
#define DRAIN_PAGES_MAX		(4 * LAT_RING_KB / 4)

static const char *const state_names[] = {
	[XVBD_LAT_OK] = "ok",
	[XVBD_LAT_NOT_TRACKED] = "not tracked",
	[XVBD_LAT_UNSUPPORTED] = "unsupported",
	[XVBD_LAT_INCOMPLETE] = "incomplete",
};

const char *xvbd_lat_state_name(enum xvbd_lat_state s)
{
	return (size_t)s < sizeof(state_names) / sizeof(state_names[0]) ?
	       state_names[s] : "?";
}

struct lat_unit *lat_unit_find(struct xvbd_lat *lat, unsigned major,
			       unsigned minor)
{
	size_t i;

	for (i = 0; i < lat->nunits; i++)
		if (lat->units[i].major == major &&
		    lat->units[i].minor == minor)
			return &lat->units[i];
	return NULL;
}

static void hold_free(struct lat_hold *h)
{
	size_t k, d;

	for (k = 0; k < XVBD_LAT_NKINDS; k++)
		for (d = 0; d < XVBD_LAT_NDIRS; d++)
			xvbd_lathist_free(&h->h[k][d]);
	memset(h, 0, sizeof(*h));
}

void lat_units_free(struct xvbd_lat *lat)
{
	size_t i, j, k, d;

	for (i = 0; i < lat->nunits; i++) {
		struct lat_unit *u = &lat->units[i];

		for (k = 0; k < XVBD_LAT_NKINDS; k++)
			for (d = 0; d < XVBD_LAT_NDIRS; d++)
				xvbd_lathist_free(&u->pend[k][d]);
		for (j = 0; j < LAT_HOLD_SLOTS; j++)
			hold_free(&u->hold[j]);
	}
	free(lat->units);
	lat->units = NULL;
	lat->nunits = lat->capunits = 0;
}

/* Not all of a unit's requests in what it holds; the first reason kept. */
static void unit_incomplete(struct lat_unit *u, const char *why)
{
	if (!u->incomplete)
		u->why = why;
	u->incomplete = true;
}

/* The unit's counts of slot k, held until k is read; NULL if full. */
static struct lat_hold *hold_of(struct lat_unit *u, uint64_t k)
{
	struct lat_hold *free_one = NULL;
	size_t i;

	for (i = 0; i < LAT_HOLD_SLOTS; i++) {
		if (u->hold[i].used && u->hold[i].slot == k)
			return &u->hold[i];
		if (!u->hold[i].used && !free_one)
			free_one = &u->hold[i];
	}
	if (free_one) {
		free_one->used = true;
		free_one->slot = k;
	}
	return free_one;
}

void lat_count(struct xvbd_lat *lat, struct lat_unit *u,
	       enum xvbd_lat_kind kind, enum xvbd_lat_dir dir, uint64_t t,
	       uint64_t ns)
{
	uint64_t k = t / lat->slot_ns;
	struct lat_hold *h;

	if (!u->live || k < u->live_from_slot || dir >= XVBD_LAT_NDIRS ||
	    kind >= XVBD_LAT_NKINDS)
		return;
	/* Read after its slot was: that slot went short. */
	if (lat->started && k <= lat->done_slot) {
		unit_incomplete(u, "a request's record came after its "
				"interval was read");
		return;
	}
	h = hold_of(u, k);
	if (!h) {
		unit_incomplete(u, "the reader fell behind (more slots "
				"unread than it holds)");
		return;
	}
	if (ns >= LAT_NEGATIVE_NS)
		h->backwards++;
	else if (xvbd_lathist_add(&h->h[kind][dir], ns, 1))
		unit_incomplete(u, strerror(ENOMEM));
}

bool lat_due(const struct xvbd_lat *lat, uint64_t now)
{
	uint64_t grace = LAT_READ_GRACE_NS(lat->slot_ns);

	return lat->started && now >= lat->slot_ns + grace &&
	       (now - grace) / lat->slot_ns - 1 > lat->done_slot;
}

void lat_close_slots(struct xvbd_lat *lat, uint64_t now)
{
	uint64_t closed, done = lat->done_slot;
	size_t i, j, k, d;

	if (!lat_due(lat, now))
		return;
	closed = (now - LAT_READ_GRACE_NS(lat->slot_ns)) / lat->slot_ns - 1;
	for (i = 0; i < lat->nunits; i++) {
		struct lat_unit *u = &lat->units[i];

		for (j = 0; j < LAT_HOLD_SLOTS; j++) {
			struct lat_hold *h = &u->hold[j];

			if (!h->used || h->slot > closed)
				continue;
			for (k = 0; k < XVBD_LAT_NKINDS; k++)
				for (d = 0; d < XVBD_LAT_NDIRS; d++)
					if (xvbd_lathist_merge(&u->pend[k][d],
							       &h->h[k][d]))
						unit_incomplete(u,
							strerror(ENOMEM));
			u->backwards += h->backwards;
			hold_free(h);
		}
		if (lat->lost)
			unit_incomplete(u, "the kernel's ring buffer lost "
					"records (read too seldom: a shorter "
					"interval reads it more often)");
		else if (lat->full)
			unit_incomplete(u, "more requests in flight than xvbd "
					"keeps, or no memory for them");
		else if (lat->late)
			unit_incomplete(u, "a request's record was written "
					"later than the reader waits for it "
					"(its request may have gone unpaired)");
		else if (u->live && u->live_from_slot > done + 1 &&
			 u->live_from_slot <= closed)
			unit_incomplete(u, "tracking began within the "
					"interval");
	}
	lat->lost = lat->late = lat->full = false;
	lat->done_slot = closed;
}

/* ---- requests in flight: open addressing by (dev, sector) ---- */

static size_t req_hash(uint32_t dev, uint64_t sector, size_t mask)
{
	uint64_t k = (sector ^ ((uint64_t)dev << 40)) *
		     UINT64_C(0x9e3779b97f4a7c15);

	return (size_t)(k >> 32) & mask;
}

/* The request's entry; made when make (NULL when full or no memory). */
static struct lat_req *req_at(struct xvbd_lat *lat, uint32_t dev,
			      uint64_t sector, bool make);

/* Move old's requests begun at or after since into lat's table; free it. */
static void reqs_move(struct xvbd_lat *lat, struct lat_req *old,
		      size_t oldcap, uint64_t since)
{
	size_t i;

	for (i = 0; i < oldcap; i++) {
		struct lat_req *e;
		uint64_t last = old[i].issue_ts > old[i].insert_ts ?
				old[i].issue_ts : old[i].insert_ts;

		if (!old[i].used || last < since)
			continue;
		e = req_at(lat, old[i].dev, old[i].sector, true);
		if (e)
			*e = old[i];
	}
	free(old);
}

static int reqs_grow(struct xvbd_lat *lat)
{
	size_t cap = lat->capreqs ? lat->capreqs * 2 : 1024;
	struct lat_req *old = lat->reqs, *n;
	size_t oldcap = lat->capreqs;

	if (cap > (lat->reqs_max ? lat->reqs_max : LAT_INFLIGHT_MAX) * 2)
		return -ENOSPC;
	n = calloc(cap, sizeof(*n));
	if (!n)
		return -ENOMEM;
	lat->reqs = n;
	lat->capreqs = cap;
	lat->nreqs = 0;
	reqs_move(lat, old, oldcap, 0);
	return 0;
}

static struct lat_req *req_at(struct xvbd_lat *lat, uint32_t dev,
			      uint64_t sector, bool make)
{
	size_t mask, i;

	/* At most half full: probes stay short.  Full: found, not made. */
	if (make && (lat->nreqs + 1) * 2 > lat->capreqs && reqs_grow(lat))
		make = false;
	if (!lat->capreqs)
		return NULL;
	mask = lat->capreqs - 1;
	for (i = req_hash(dev, sector, mask);; i = (i + 1) & mask) {
		struct lat_req *e = &lat->reqs[i];

		if (e->used && e->dev == dev && e->sector == sector)
			return e;
		if (!e->used) {
			if (!make)
				return NULL;
			memset(e, 0, sizeof(*e));
			e->used = true;
			e->dev = dev;
			e->sector = sector;
			lat->nreqs++;
			return e;
		}
	}
}

/* Remove e, moving back the entries of its probe run (no tombstones). */
static void req_del(struct xvbd_lat *lat, struct lat_req *e)
{
	size_t mask = lat->capreqs - 1, i = (size_t)(e - lat->reqs), j = i;

	lat->reqs[i].used = false;
	lat->nreqs--;
	for (;;) {
		size_t k;

		j = (j + 1) & mask;
		if (!lat->reqs[j].used)
			return;
		k = req_hash(lat->reqs[j].dev, lat->reqs[j].sector, mask);
		/* j stays if its home k lies cyclically in (i, j]. */
		if (i <= j ? (i < k && k <= j) : (i < k || k <= j))
			continue;
		lat->reqs[i] = lat->reqs[j];
		lat->reqs[j].used = false;
		i = j;
	}
}

/* Forget requests begun before t: their completions were never seen. */
static void reqs_forget(struct xvbd_lat *lat, uint64_t t)
{
	struct lat_req *old = lat->reqs;
	size_t oldcap = lat->capreqs;

	if (!lat->nreqs)
		return;
	lat->reqs = NULL;
	lat->capreqs = lat->nreqs = 0;
	reqs_move(lat, old, oldcap, t);
}

/* ---- records: read per CPU, paired in time order ---- */

static int rec_order(const void *a, const void *b)
{
	const struct lat_rec *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	/* At one instant: an insertion, an issue, then a completion. */
	return (int)x->ev - (int)y->ev;
}

void lat_add_rec(struct xvbd_lat *lat, const struct lat_rec *r)
{
	struct lat_rec *n;
	size_t cap;

	if (lat->nrecs == lat->caprecs) {
		cap = lat->caprecs ? lat->caprecs * 2 : 4096;
		if (cap > LAT_RECS_MAX ||
		    !(n = realloc(lat->recs, cap * sizeof(*n)))) {
			lat->lost = true;	/* said as lost records */
			return;
		}
		lat->recs = n;
		lat->caprecs = cap;
	}
	lat->recs[lat->nrecs++] = *r;
}

/* Each unit the request belongs to (a disk and a partition of it). */
static void count_completion(struct xvbd_lat *lat, const struct lat_rec *r,
			     const struct lat_req *q)
{
	size_t i;

	for (i = 0; i < lat->nunits; i++) {
		struct lat_unit *u = &lat->units[i];

		if (!lat_counted(u, XVBD_LAT_D2C) || u->kdev != r->dev ||
		    (u->partition && (r->sector < u->first_sector ||
				      r->sector >= u->end_sector)))
			continue;
		if (q->issue_ts)
			lat_count(lat, u, XVBD_LAT_D2C,
				  (enum xvbd_lat_dir)r->dir, r->ts,
				  r->ts - q->issue_ts);
		if (q->insert_ts && lat_counted(u, XVBD_LAT_I2C))
			lat_count(lat, u, XVBD_LAT_I2C,
				  (enum xvbd_lat_dir)r->dir, r->ts,
				  r->ts - q->insert_ts);
	}
}

static void pair(struct xvbd_lat *lat, const struct lat_rec *r)
{
	struct lat_req *q;

	switch (r->ev) {
	case LAT_EV_INSERT:
		/* A request begins: whatever was left at its sector goes. */
		q = req_at(lat, r->dev, r->sector, true);
		if (q) {
			q->insert_ts = r->ts;
			q->issue_ts = 0;
		} else {
			lat->full = true;
		}
		break;
	case LAT_EV_ISSUE:
		q = req_at(lat, r->dev, r->sector, true);
		if (q)
			q->issue_ts = r->ts;
		else
			lat->full = true;
		break;
	case LAT_EV_COMPLETE:
		/* Without its start (begun before tracing): not timed. */
		q = req_at(lat, r->dev, r->sector, false);
		if (q) {
			count_completion(lat, r, q);
			req_del(lat, q);
		}
		break;
	}
}

void lat_pair_until(struct xvbd_lat *lat, uint64_t now)
{
	uint64_t grace = LAT_READ_GRACE_NS(lat->slot_ns);
	uint64_t until = now > grace ? now - grace : 0;
	size_t i, n;

	qsort(lat->recs, lat->nrecs, sizeof(*lat->recs), rec_order);
	for (n = 0; n < lat->nrecs && lat->recs[n].ts <= until; n++)
		pair(lat, &lat->recs[n]);
	/* The rest wait for records of other CPUs that may come before. */
	for (i = n; i < lat->nrecs; i++)
		lat->recs[i - n] = lat->recs[i];
	lat->nrecs -= n;
	if (until > lat->paired_to)
		lat->paired_to = until;
}

static void on_record(void *arg, uint64_t ts, const unsigned char *data,
		      size_t n)
{
	struct xvbd_lat *lat = arg;
	const unsigned char *rwbs;
	struct lat_rec r;
	size_t e;

	for (e = 0; e < LAT_NEVS; e++) {
		if (!lat_ring_event(&lat->fmt[e], data, n, &r.dev, &r.sector,
				    &rwbs))
			continue;
		r.ts = ts;
		r.ev = (uint8_t)e;
		r.dir = (uint8_t)lat_rwbs_dir(rwbs, lat->fmt[e].rwbs_len);
		if (r.dir >= XVBD_LAT_NDIRS)
			return;
		/* Older than what was paired: it missed its turn. */
		if (ts < lat->paired_to)
			lat->late = true;
		lat_add_rec(lat, &r);
		return;
	}
}

int lat_drain_at(struct xvbd_lat *lat, uint64_t now)
{
	size_t i, pages;
	ssize_t r;
	int err = 0;

	for (i = 0; lat && i < lat->nraw; i++) {
		for (pages = 0; pages < DRAIN_PAGES_MAX; pages++) {
			r = read(lat->raw_fds[i], lat->page, lat->page_size);
			if (r < 0 && errno == EINTR)
				continue;
			if (r < 0 && errno != EAGAIN)
				err = -errno;
			if (r <= 0)
				break;
			if (lat_ring_page(lat->page, (size_t)r, on_record, lat,
					  &lat->lost))
				err = -EPROTO;
		}
	}
	if (!lat)
		return 0;
	lat_pair_until(lat, now);
	return err;
}

int xvbd_lat_drain(struct xvbd_lat *lat)
{
	return lat_drain_at(lat, lat_now_ns());
}

int xvbd_lat_read(struct xvbd_lat *lat, uint64_t now)
{
	int err = lat_drain_at(lat, now);

	if (!lat_due(lat, now))
		return err;
	/* A failed read leaves what it missed unknown: not whole. */
	if (err)
		lat->lost = true;
	lat_close_slots(lat, now);
	lat_recheck(lat);
	if (now > LAT_STALE_NS)
		reqs_forget(lat, now - LAT_STALE_NS);
	return err;
}

uint64_t xvbd_lat_deadline_ns(const struct xvbd_lat *lat, uint64_t t)
{
	uint64_t grace = LAT_READ_GRACE_NS(lat->slot_ns), m;

	if (t <= grace)
		return grace;
	m = (t - grace + lat->slot_ns - 1) / lat->slot_ns;
	return m * lat->slot_ns + grace;
}

uint64_t xvbd_lat_start_ns(const struct xvbd_lat *lat)
{
	return lat->started ? (lat->done_slot + 1) * lat->slot_ns +
			      LAT_READ_GRACE_NS(lat->slot_ns) : 0;
}

uint64_t xvbd_lat_whole_from_ns(const struct xvbd_lat *lat)
{
	uint64_t slot = 0;
	size_t i;

	for (i = 0; lat && i < lat->nunits; i++)
		if (lat->units[i].live &&
		    lat->units[i].live_from_slot > slot)
			slot = lat->units[i].live_from_slot;
	return slot ? slot * lat->slot_ns + LAT_READ_GRACE_NS(lat->slot_ns) :
		      0;
}

enum xvbd_lat_state xvbd_lat_take(struct xvbd_lat *lat, unsigned major,
				  unsigned minor, struct xvbd_lat_result *r)
{
	struct lat_unit *u = lat ? lat_unit_find(lat, major, minor) : NULL;
	size_t k, d;
	bool bad;

	if (!u || (!u->live && !u->unsupported))
		return r->state = XVBD_LAT_NOT_TRACKED;
	if (u->unsupported)
		return r->state = XVBD_LAT_UNSUPPORTED;
	bad = u->incomplete;
	r->why = u->why;
	r->i2c_timed = u->queued;
	for (k = 0; k < XVBD_LAT_NKINDS; k++) {
		for (d = 0; d < XVBD_LAT_NDIRS; d++) {
			if (xvbd_lathist_merge(&r->h[k][d], &u->pend[k][d])) {
				bad = true;
				if (!r->why)
					r->why = strerror(ENOMEM);
			}
			xvbd_lathist_free(&u->pend[k][d]);
		}
	}
	r->backwards += u->backwards;
	u->backwards = 0;
	u->incomplete = false;
	u->why = NULL;
	return r->state = bad ? XVBD_LAT_INCOMPLETE : XVBD_LAT_OK;
}
