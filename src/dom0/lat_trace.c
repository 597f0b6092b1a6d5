/*
 * lat_trace.c - the latency tracker's life (lat_trace.h): its instance
 * and its clock, the ring buffer its records are read from, the block
 * request events enabled and filtered to the devices timed, and their
 * removal.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "xvbd/base/journal.h"
#include "xvbd/dom0/sysfs.h"
#include "xvbd/dom0/tracefs.h"
#include "lat_trace_impl.h"

#define SYSTEM_BLOCK		"block"
#define INSTANCE_PREFIX		"xvbd-"

uint64_t lat_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * Which units' queues have an I/O scheduler (i2c timed), read afresh
 * when the set changes and at each interval: a scheduler can be changed
 * at any time.  Unknown counts as one (timing i2c where it says nothing
 * costs only time).  Whether any unit's answer changed.
 */
static bool units_queued(struct xvbd_lat *lat)
{
	struct xvbd_blk_queue q;
	bool changed = false, queued;
	size_t i;

	for (i = 0; i < lat->nunits; i++) {
		struct lat_unit *u = &lat->units[i];

		if (!u->wanted || u->unsupported)
			continue;
		xvbd_sysfs_blk_queue(lat->sys, u->disk_major, u->disk_minor,
				     &q);
		queued = q.sched_rc || strcmp(q.scheduler, "none");
		changed = changed || queued != u->queued;
		u->queued = queued;
	}
	return changed;
}

static int event_on(struct xvbd_lat *lat, enum lat_ev e, bool on,
		    char *why, size_t len)
{
	int rc;

	if (lat->enabled[e] == on)
		return 0;
	rc = xvbd_tracefs_event_enable(lat->tf, lat->inst, SYSTEM_BLOCK,
				       lat_ev_name(e), on);
	if (rc) {
		snprintf(why, len, "cannot %s %s in %s: %s",
			 on ? "enable" : "disable", lat_ev_name(e), lat->inst,
			 strerror(-rc));
		return rc;
	}
	lat->enabled[e] = on;
	return 0;
}

/*
 * Each event filtered to the wanted units and enabled (starts before
 * completions), or disabled when it times none; units new to the set
 * are counted from the slot after this one: a request begun before its
 * filter named its device was not seen whole.
 */
int lat_apply(struct xvbd_lat *lat, char *why, size_t len)
{
	char text[LAT_FILTER_MAX], err[256];
	uint64_t first;
	size_t i;
	int e, rc;

	for (e = 0; e < LAT_NEVS; e++) {
		rc = lat_spec_filter(lat, (enum lat_ev)e, text, sizeof(text));
		if (rc == -ENOENT) {
			rc = event_on(lat, (enum lat_ev)e, false, why, len);
			if (rc)
				return rc;
			continue;
		}
		if (rc) {
			snprintf(why, len, "too many devices for one event "
				 "filter");
			return rc;
		}
		rc = xvbd_tracefs_event_filter(lat->tf, lat->inst,
					       SYSTEM_BLOCK,
					       lat_ev_name((enum lat_ev)e),
					       text, err, sizeof(err));
		if (rc) {
			snprintf(why, len, "%s/%s: the kernel refused its "
				 "filter: %s", SYSTEM_BLOCK,
				 lat_ev_name((enum lat_ev)e), err);
			return rc;
		}
		rc = event_on(lat, (enum lat_ev)e, true, why, len);
		if (rc)
			return rc;
	}
	if (!lat_counted_units(lat))
		return 0;
	first = lat_now_ns() / lat->slot_ns + 1;
	if (!lat->started)
		lat->done_slot = first - 1;
	lat->started = true;
	for (i = 0; i < lat->nunits; i++) {
		struct lat_unit *u = &lat->units[i];

		if (u->wanted && !u->unsupported && !u->live) {
			u->live = true;
			u->live_from_slot = first;
		}
	}
	return 0;
}

void lat_recheck(struct xvbd_lat *lat)
{
	char why[256];

	/* A filter the kernel took before is taken again. */
	if (lat->instance_made && units_queued(lat))
		lat_apply(lat, why, sizeof(why));
}

/* The events' record layouts and each CPU's ring buffer. */
static int open_ring(struct xvbd_lat *lat, char *why, size_t len)
{
	char *text = NULL;
	size_t n;
	long ps = sysconf(_SC_PAGESIZE);
	int rc, e;

	rc = xvbd_tracefs_header_page(lat->tf, &text, &n);
	if (!rc)
		rc = lat_ring_header_ok(text);
	free(text);
	if (rc) {
		snprintf(why, len, "the kernel's ring buffer pages are not "
			 "laid out as xvbd reads them (events/header_page)");
		return rc;
	}
	for (e = 0; e < LAT_NEVS; e++) {
		const char *name = lat_ev_name((enum lat_ev)e);

		rc = xvbd_tracefs_event_format(lat->tf, lat->inst,
					       SYSTEM_BLOCK, name, &text, &n);
		if (!rc)
			rc = lat_ring_format(text, &lat->fmt[e]);
		free(text);
		text = NULL;
		if (rc) {
			snprintf(why, len, "cannot read %s/%s's format: %s",
				 SYSTEM_BLOCK, name, strerror(-rc));
			return rc;
		}
	}
	lat->page_size = ps > 0 && (size_t)ps <= LAT_PAGE_MAX ?
			 (size_t)ps : 4096;
	lat->page = malloc(lat->page_size);
	if (!lat->page) {
		snprintf(why, len, "%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	/*
	 * The clock the records are stamped with, and the buffer's size:
	 * both before any event writes into it (either empties it).
	 */
	rc = xvbd_tracefs_clock(lat->tf, lat->inst, XVBD_LAT_CLOCK);
	if (rc) {
		snprintf(why, len, "cannot set %s's trace clock to %s: %s",
			 lat->inst, XVBD_LAT_CLOCK, strerror(-rc));
		return rc;
	}
	rc = xvbd_tracefs_buffer_kb(lat->tf, lat->inst, LAT_RING_KB);
	if (rc) {
		snprintf(why, len, "cannot size %s's ring buffer: %s",
			 lat->inst, strerror(-rc));
		return rc;
	}
	rc = xvbd_tracefs_raw_open(lat->tf, lat->inst, &lat->raw_fds,
				   &lat->nraw);
	if (rc)
		snprintf(why, len, "cannot open %s's per-CPU trace_pipe_raw: "
			 "%s", lat->inst, strerror(-rc));
	return rc;
}

static int open_kernel_side(struct xvbd_lat *lat, char *why, size_t len)
{
	int rc;

	/* Named before it is made: a SIGKILL from here on is reported. */
	xvbd_journal_note(XVBD_J_TRACE, "%s " XVBD_LAT_NO_SYNTH, lat->inst);
	lat->journaled = true;
	rc = xvbd_tracefs_instance_add(lat->tf, lat->inst);
	if (rc) {
		snprintf(why, len, "cannot make tracefs instance %s: %s",
			 lat->inst, strerror(-rc));
		return rc;
	}
	lat->instance_made = true;
	return open_ring(lat, why, len);
}

int xvbd_lat_open(struct xvbd_tracefs *tf, struct xvbd_sysfs *sys,
		  uint64_t slot_ns, struct xvbd_lat **out, char *why,
		  size_t why_len)
{
	struct xvbd_lat *lat;
	int rc;

	*out = NULL;
	if (!slot_ns) {
		snprintf(why, why_len, "no interval");
		return -EINVAL;
	}
	lat = calloc(1, sizeof(*lat));
	if (!lat) {
		snprintf(why, why_len, "%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	lat->tf = tf;
	lat->sys = sys;
	lat->slot_ns = slot_ns;
	snprintf(lat->inst, sizeof(lat->inst), INSTANCE_PREFIX "%ld",
		 (long)getpid());
	rc = open_kernel_side(lat, why, why_len);
	if (rc) {
		xvbd_lat_close(lat);
		return rc;
	}
	*out = lat;
	return 0;
}

/*
 * A leftover's remedy.  This xvbd leaves only an instance (removing it
 * disables its events); an older one's also had hist triggers, cleared
 * first in an order in which none is still referred to (the synthetic
 * event's, the completions', the start events'), and a synthetic event.
 */
void xvbd_lat_remedy(const struct xvbd_tracefs *tf, const char *inst,
		     const char *synth, char *buf, size_t len)
{
	char ev[4][LAT_NAME_MAX + 16];
	const char *evp[4] = { ev[0], ev[1], ev[2], ev[3] };

	if (!synth || !strcmp(synth, XVBD_LAT_NO_SYNTH)) {
		xvbd_tracefs_remedy(tf, inst, NULL, evp, 0, buf, len);
		return;
	}
	snprintf(ev[0], sizeof(ev[0]), "synthetic/%s", synth);
	snprintf(ev[1], sizeof(ev[1]), SYSTEM_BLOCK "/block_rq_complete");
	snprintf(ev[2], sizeof(ev[2]), SYSTEM_BLOCK "/block_rq_issue");
	snprintf(ev[3], sizeof(ev[3]), SYSTEM_BLOCK "/block_rq_insert");
	xvbd_tracefs_remedy(tf, inst, synth, evp, 4, buf, len);
}

void xvbd_lat_close(struct xvbd_lat *lat)
{
	size_t i;

	if (!lat)
		return;
	/* An open file of the instance keeps it from being removed. */
	for (i = 0; i < lat->nraw; i++)
		close(lat->raw_fds[i]);
	free(lat->raw_fds);
	free(lat->page);
	free(lat->recs);
	free(lat->reqs);
	/* Removing the instance disables its events and frees its buffer. */
	if (lat->instance_made)
		xvbd_tracefs_instance_remove(lat->tf, lat->inst);
	/* Still there: the journal keeps it for the next command to name. */
	if (lat->journaled && !(lat->instance_made &&
				xvbd_tracefs_instance_exists(lat->tf,
							     lat->inst)))
		xvbd_journal_done(XVBD_J_TRACE, "%s " XVBD_LAT_NO_SYNTH,
				  lat->inst);
	lat_units_free(lat);
	free(lat);
}

/* Fill a unit's place on its disk from sysfs. */
static void unit_resolve(struct xvbd_lat *lat, struct lat_unit *u)
{
	struct xvbd_blk_extent x;

	if (xvbd_sysfs_blk_extent(lat->sys, u->major, u->minor, &x) ||
	    x.stacked) {
		u->unsupported = true;
		return;
	}
	/* The kernel's dev_t: MINORBITS 20 (include/linux/kdev_t.h). */
	u->kdev = ((uint32_t)x.disk_major << 20) | x.disk_minor;
	u->partition = x.partition;
	u->disk_major = x.disk_major;
	u->disk_minor = x.disk_minor;
	u->first_sector = x.partition ? x.start_sector : 0;
	u->end_sector = x.partition ? x.start_sector + x.sectors : 0;
}

size_t lat_counted_units(const struct xvbd_lat *lat)
{
	size_t i, n = 0;

	for (i = 0; i < lat->nunits; i++)
		if (lat->units[i].wanted && !lat->units[i].unsupported)
			n++;
	return n;
}

static struct lat_unit *unit_add(struct xvbd_lat *lat, unsigned major,
				 unsigned minor)
{
	struct lat_unit *u;

	if (lat->nunits == lat->capunits) {
		size_t cap = lat->capunits ? lat->capunits * 2 : 8;
		struct lat_unit *n = realloc(lat->units, cap * sizeof(*n));

		if (!n)
			return NULL;
		lat->units = n;
		lat->capunits = cap;
	}
	u = &lat->units[lat->nunits++];
	memset(u, 0, sizeof(*u));
	u->major = major;
	u->minor = minor;
	unit_resolve(lat, u);
	return u;
}

int xvbd_lat_set_devs(struct xvbd_lat *lat, const struct xvbd_lat_dev *devs,
		      size_t n, char *why, size_t why_len)
{
	bool changed = false;
	size_t i, j;

	if (n > LAT_UNITS_MAX)
		n = LAT_UNITS_MAX;
	for (i = 0; i < lat->nunits; i++) {
		struct lat_unit *u = &lat->units[i];
		bool want = false;

		for (j = 0; j < n; j++)
			if (devs[j].major == u->major &&
			    devs[j].minor == u->minor)
				want = true;
		if (want != u->wanted && !u->unsupported)
			changed = true;
		u->wanted = want;
		if (!want)
			u->live = false;
	}
	for (j = 0; j < n; j++) {
		struct lat_unit *u = lat_unit_find(lat, devs[j].major,
						   devs[j].minor);

		if (u)
			continue;
		u = unit_add(lat, devs[j].major, devs[j].minor);
		if (!u)
			return -ENOMEM;
		u->wanted = true;
		changed = changed || !u->unsupported;
	}
	if (!changed)
		return 0;
	units_queued(lat);
	return lat_apply(lat, why, why_len);
}
