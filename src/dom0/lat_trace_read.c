/*
 * lat_trace_read.c - the kernel's counts into lathists (lat_trace.h):
 * one read of the synthetic event's "hist" file per sample, each
 * counting entry's difference since the last read attributed to the
 * slot its place in the cycle stands for, and the max trigger's
 * entries to theirs.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xvbd/dom0/trace_hist.h"
#include "xvbd/dom0/tracefs.h"
#include "lat_trace_impl.h"

/* The synthetic event's hist file: every trigger's entries. */
#define HIST_READ_MAX		(64u << 20)

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

/* ---- the last value of each counting entry: open addressing ---- */

static size_t seen_hash(uint64_t vk, uint64_t cyc, uint64_t lat)
{
	uint64_t h = vk * 0x9e3779b97f4a7c15ull ^ cyc * 0xc2b2ae3d27d4eb4full ^
		     lat * 0x165667b19e3779f9ull;

	return (size_t)(h ^ (h >> 29));
}

static int seen_grow(struct xvbd_lat *lat)
{
	size_t cap = lat->seen_cap ? lat->seen_cap * 2 : 1024, i;
	struct lat_seen *n = calloc(cap, sizeof(*n));

	if (!n)
		return -ENOMEM;
	for (i = 0; i < lat->seen_cap; i++) {
		struct lat_seen *e = &lat->seen[i];
		size_t j;

		if (!e->used)
			continue;
		j = seen_hash(e->vk, e->cyc, e->lat) & (cap - 1);
		while (n[j].used)
			j = (j + 1) & (cap - 1);
		n[j] = *e;
	}
	free(lat->seen);
	lat->seen = n;
	lat->seen_cap = cap;
	return 0;
}

static struct lat_seen *seen_get(struct xvbd_lat *lat, uint64_t vk,
				 uint64_t cyc, uint64_t latlo)
{
	size_t j;

	if ((lat->seen_used + 1) * 2 > lat->seen_cap && seen_grow(lat))
		return NULL;
	j = seen_hash(vk, cyc, latlo) & (lat->seen_cap - 1);
	while (lat->seen[j].used) {
		struct lat_seen *e = &lat->seen[j];

		if (e->vk == vk && e->cyc == cyc && e->lat == latlo)
			return e;
		j = (j + 1) & (lat->seen_cap - 1);
	}
	lat->seen[j].used = true;
	lat->seen[j].vk = vk;
	lat->seen[j].cyc = cyc;
	lat->seen[j].lat = latlo;
	lat->seen_used++;
	return &lat->seen[j];
}

void lat_seen_free(struct xvbd_lat *lat)
{
	free(lat->seen);
	lat->seen = NULL;
	lat->seen_cap = lat->seen_used = 0;
}

/* ---- one read ---- */

struct read_ctx {
	struct xvbd_lat *lat;
	uint64_t done;			/* slots up to it were taken before */
	uint64_t closed;		/* the last slot that has ended */
	uint64_t open;			/* the slot under way */
	bool stall;			/* the open slot's place is a closed
					 * untaken slot's too */
	uint64_t completions[2];	/* per generation bit */
	uint64_t max_entries[2];	/* per max trigger (lat->maxt[]) */
	bool off_cycle;			/* a count at no place of the cycle */
	int err;
};

/* Not all of a unit's requests in what it holds; the first reason kept. */
static void unit_incomplete(struct lat_unit *u, const char *why)
{
	if (!u->incomplete)
		u->why = why;
	u->incomplete = true;
}

/* The slot that a place in the cycle stands for at this read. */
static uint64_t slot_of_place(const struct read_ctx *rc, uint64_t place)
{
	const uint64_t c = XVBD_LAT_CYCLE_SLOTS;

	if (rc->stall && place == rc->open % c)
		return rc->open;
	return rc->closed - (rc->closed % c + c - place) % c;
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

/* The unit an entry counts for in slot k, or NULL. */
static struct lat_unit *counted_unit(struct read_ctx *rc, uint64_t vk,
				     uint64_t k, enum xvbd_lat_kind *kind,
				     enum xvbd_lat_dir *dir)
{
	unsigned bit;
	struct lat_unit *u = lat_vk_unit(rc->lat, vk, &bit, kind, dir);

	if (!u || !u->live || k < u->live_from_slot ||
	    !gen_answers(rc->lat, bit, k))
		return NULL;
	return u;
}

static void count_entry(struct read_ctx *rc, const struct xvbd_hist_entry *e,
			bool has_lat)
{
	struct xvbd_lat *lat = rc->lat;
	uint64_t vk = e->key[0], cyc = e->key[1], latlo = 0, sum = 0, dh, ds;
	uint64_t place = cyc / lat->slot_ns, k;
	enum xvbd_lat_kind kind;
	enum xvbd_lat_dir dir;
	struct lat_seen *s;
	struct lat_unit *u;

	/*
	 * Not a place of the cycle: the kernel computed the completion's
	 * time in the cycle wrongly (the instance is ours alone).  Said,
	 * never silently an empty histogram.
	 */
	if (place >= XVBD_LAT_CYCLE_SLOTS) {
		rc->off_cycle = true;
		return;
	}
	/* The slot under way is read once it has ended. */
	if (!rc->stall && place == rc->open % XVBD_LAT_CYCLE_SLOTS)
		return;
	if (has_lat && xvbd_hist_key(e, "lat", &latlo))
		return;
	if (has_lat)
		xvbd_hist_val(e, "lat", &sum);
	s = seen_get(lat, vk, cyc, latlo);
	if (!s) {
		rc->err = -ENOMEM;
		return;
	}
	/* Entries only grow: a smaller count is a map made anew. */
	dh = e->hitcount >= s->hits ? e->hitcount - s->hits : e->hitcount;
	ds = sum >= s->sum ? sum - s->sum : sum;
	s->hits = e->hitcount;
	s->sum = sum;
	if (!dh)
		return;
	rc->completions[(vk % LAT_VK_SUB) / 4] += dh;
	k = slot_of_place(rc, place);
	u = counted_unit(rc, vk, k, &kind, &dir);
	if (!u)
		return;
	if (!has_lat)
		u->backwards += dh;
	else if (xvbd_lathist_add_counts(&u->pend[kind][dir],
					 xvbd_lathist_index(latlo), dh, ds))
		unit_incomplete(u, "a count whose sum no bucket can hold");
}

/* "mx<id>=" in a max trigger's text: which of lat->maxt[] it is. */
static struct lat_maxtrig *max_of(struct xvbd_lat *lat,
				  const struct xvbd_hist_entry *e)
{
	char tag[24];
	size_t i, n;

	for (i = 0; i < 2; i++) {
		if (!lat->maxt[i].installed)
			continue;
		n = (size_t)snprintf(tag, sizeof(tag), ":mx%u=",
				     lat->maxt[i].id);
		if (e->info_len >= n && memmem(e->info, e->info_len, tag, n))
			return &lat->maxt[i];
	}
	return NULL;
}

static void max_entry(struct read_ctx *rc, const struct xvbd_hist_entry *e)
{
	struct lat_maxtrig *m = max_of(rc->lat, e);
	uint64_t k = e->key[1] / rc->lat->slot_ns;
	enum xvbd_lat_kind kind;
	enum xvbd_lat_dir dir;
	struct lat_unit *u;

	if (!m || !e->has_max)
		return;
	rc->max_entries[m - rc->lat->maxt]++;
	if (k <= rc->done || k > (rc->stall ? rc->open : rc->closed) ||
	    k < m->first_slot || k > m->last_slot)
		return;
	u = counted_unit(rc, e->key[0], k, &kind, &dir);
	if (u && e->max > u->pend_max[kind][dir])
		u->pend_max[kind][dir] = e->max;
}

static int on_entry(void *arg, const struct xvbd_hist_entry *e)
{
	struct read_ctx *rc = arg;

	if (e->nkeys < 2 || strcmp(e->key_name[0], "vk"))
		return 0;
	if (!strcmp(e->key_name[1], "cyc"))
		count_entry(rc, e, e->nkeys == 3);
	else if (!strcmp(e->key_name[1], "t"))
		max_entry(rc, e);
	return rc->err;
}

/* After a read: hand over, replace what fills, remove what is done. */
static void upkeep(struct xvbd_lat *lat, const struct lat_read_stats *rc)
{
	struct lat_gen *cur = &lat->gen[lat->cur_gen];
	char why[256];
	size_t i;

	for (i = 0; i < 2; i++) {
		if (lat->gen[i].installed)
			lat->gen[i].completions +=
				rc->completions[lat->gen[i].bit];
		if (lat->maxt[i].installed)
			lat->maxt[i].entries = rc->max_entries[i];
	}
	lat_retire(lat);
	/* A new set of devices, or a generation whose maps half fill. */
	if (lat->want_gen || (cur->installed &&
			      cur->completions >= lat->ingress_size / 2)) {
		if (lat_new_gen(lat, why, sizeof(why)) != -EBUSY)
			lat->want_gen = false;
	}
	for (i = 0; i < 2; i++)
		if (lat->maxt[i].installed &&
		    lat->maxt[i].last_slot == UINT64_MAX &&
		    lat->maxt[i].entries >= lat->max_size / 2)
			lat_new_max(lat, why, sizeof(why));
}

/* Is there a slot that ended and was not read? */
static bool due(const struct xvbd_lat *lat, uint64_t now)
{
	uint64_t grace = LAT_READ_GRACE_NS(lat->slot_ns);

	return lat->started && now >= lat->slot_ns + grace &&
	       (now - grace) / lat->slot_ns - 1 > lat->done_slot;
}

int lat_read_text(struct xvbd_lat *lat, uint64_t now, const char *text,
		  size_t len, struct lat_read_stats *out)
{
	struct read_ctx rc = { .lat = lat };
	struct xvbd_hist_totals tot;
	size_t i;
	int err;

	memset(out, 0, sizeof(*out));
	if (!due(lat, now))
		return 0;
	rc.open = (now - LAT_READ_GRACE_NS(lat->slot_ns)) / lat->slot_ns;
	rc.closed = rc.open - 1;
	rc.done = lat->done_slot;
	rc.stall = rc.closed - rc.done >= XVBD_LAT_CYCLE_SLOTS;
	err = xvbd_hist_parse(text, len, on_entry, &rc, &tot);
	if (err)
		return err;
	for (i = 0; i < lat->nunits; i++) {
		struct lat_unit *u = &lat->units[i];

		/* Dropped counts, a reader a cycle behind, or tracking that
		 * began within the slots taken: not all of them. */
		if (tot.dropped > lat->dropped)
			unit_incomplete(u, "the kernel dropped counts (its "
					"table was full)");
		else if (rc.stall || lat->stalled)
			unit_incomplete(u, "the reader fell a cycle behind");
		else if (u->live && rc.off_cycle)
			unit_incomplete(u, "a count at no place of the cycle");
		else if (u->live && u->live_from_slot > rc.done + 1 &&
			 u->live_from_slot <= rc.closed)
			unit_incomplete(u, "tracking began within the "
					"interval");
	}
	lat->dropped = tot.dropped;
	/* After a stall, the open slot's maximum so far was taken too. */
	lat->stalled = rc.stall;
	lat->done_slot = rc.closed;
	memcpy(out->completions, rc.completions, sizeof(out->completions));
	memcpy(out->max_entries, rc.max_entries, sizeof(out->max_entries));
	return 0;
}

int xvbd_lat_read(struct xvbd_lat *lat, uint64_t now)
{
	struct lat_read_stats st;
	char *buf = NULL;
	size_t len;
	int err;

	if (!due(lat, now))
		return 0;
	if (lat->hist_fd < 0) {
		lat->hist_fd = xvbd_tracefs_hist_open(lat->tf, lat->inst,
						      "synthetic", lat->synth);
		if (lat->hist_fd < 0)
			return lat->hist_fd;
	}
	err = xvbd_tracefs_hist_reread(lat->hist_fd, HIST_READ_MAX, &buf,
				       &len);
	if (err)
		return err;
	err = lat_read_text(lat, now, buf, len, &st);
	free(buf);
	if (!err)
		upkeep(lat, &st);
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
	r->max_only = false;
	r->count_pending = false;
	for (k = 0; k < XVBD_LAT_NKINDS; k++) {
		for (d = 0; d < XVBD_LAT_NDIRS; d++) {
			struct xvbd_lathist *p = &u->pend[k][d];

			/* The max trigger's maximum lies in the counts' top
			 * bucket, or the two did not see the same requests. */
			if (p->count && xvbd_lathist_set_max(p,
							u->pend_max[k][d])) {
				size_t top;

				/* Then the top bucket's end bounds it. */
				xvbd_lathist_top(p, &top);
				if (!r->why)
					r->why = !u->pend_max[k][d] ?
						 "no maximum for the counts" :
						 u->pend_max[k][d] <
						 xvbd_lathist_lower_ns(top) ?
						 "the maximum below the counts' "
						 "top bucket (a count came "
						 "late)" :
						 "the maximum above the counts' "
						 "top bucket (a count missing)";
				p->max_ns = xvbd_lathist_lower_ns(top) +
					    (xvbd_lathist_width_ns(top) - 1);
				if (!bad)
					r->max_only = true;
				if (u->pend_max[k][d] >
				    xvbd_lathist_lower_ns(top))
					r->count_pending = true;
				bad = true;
			}
			if (xvbd_lathist_merge(&r->h[k][d], p)) {
				bad = true;
				r->max_only = false;
				if (!r->why)
					r->why = strerror(ENOMEM);
			}
			xvbd_lathist_free(p);
			u->pend_max[k][d] = 0;
		}
	}
	r->backwards += u->backwards;
	u->backwards = 0;
	u->incomplete = false;
	u->why = NULL;
	return r->state = bad ? XVBD_LAT_INCOMPLETE : XVBD_LAT_OK;
}
