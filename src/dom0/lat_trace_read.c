/*
 * lat_trace_read.c - the synthetic event's records into lathists
 * (lat_trace.h): each CPU's ring buffer read a page at a time, each
 * request counted into the slot of its completion time, and a slot's
 * counts handed over once the slot has ended.
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

/* Does generation bit answer for slot k? */
static bool gen_answers(const struct xvbd_lat *lat, unsigned bit, uint64_t k)
{
	size_t i;

	for (i = 0; i < 2; i++) {
		const struct lat_gen *g = &lat->gen[i];

		if (g->installed && g->bit == bit && g->first_slot <= k &&
		    k <= g->last_slot)
			return true;
	}
	return false;
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

void lat_count(struct xvbd_lat *lat, uint64_t vk, enum xvbd_lat_dir dir,
	       uint64_t t, uint64_t ns)
{
	uint64_t k = t / lat->slot_ns;
	enum xvbd_lat_kind kind;
	struct lat_hold *h;
	struct lat_unit *u;
	unsigned bit;

	u = lat_vk_unit(lat, vk, &bit, &kind);
	lat->completions[bit & 1]++;
	if (!u || !u->live || k < u->live_from_slot ||
	    !gen_answers(lat, bit, k) || dir >= XVBD_LAT_NDIRS)
		return;
	/* Committed after its slot was read: that slot went short. */
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
		else if (u->live && u->live_from_slot > done + 1 &&
			 u->live_from_slot <= closed)
			unit_incomplete(u, "tracking began within the "
					"interval");
	}
	lat->lost = false;
	lat->done_slot = closed;
}

static void on_record(void *arg, const unsigned char *data, size_t n)
{
	struct xvbd_lat *lat = arg;
	const unsigned char *rwbs;
	uint64_t vk, t, ns;

	if (lat_ring_event(&lat->fmt, data, n, &vk, &t, &ns, &rwbs))
		lat_count(lat, vk, lat_rwbs_dir(rwbs, lat->fmt.rwbs_len), t,
			  ns);
}

/* Every record the CPUs' buffers hold now, counted. */
int xvbd_lat_drain(struct xvbd_lat *lat)
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
	return err;
}

/* After a read: hand over, replace what fills, remove what is done. */
static void upkeep(struct xvbd_lat *lat)
{
	struct lat_gen *cur = &lat->gen[lat->cur_gen];
	char why[256];
	size_t i;

	for (i = 0; i < 2; i++) {
		if (lat->gen[i].installed)
			lat->gen[i].completions +=
				lat->completions[lat->gen[i].bit];
	}
	lat->completions[0] = lat->completions[1] = 0;
	lat_retire(lat);
	/* A new set of devices, or a generation whose maps half fill. */
	if (lat->want_gen || (cur->installed &&
			      cur->completions >= lat->ingress_size / 2)) {
		if (lat_new_gen(lat, why, sizeof(why)) != -EBUSY)
			lat->want_gen = false;
	}
}

int xvbd_lat_read(struct xvbd_lat *lat, uint64_t now)
{
	int err = xvbd_lat_drain(lat);

	if (!lat_due(lat, now))
		return err;
	/* A failed read leaves what it missed unknown: not whole. */
	if (err)
		lat->lost = true;
	lat_close_slots(lat, now);
	upkeep(lat);
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
