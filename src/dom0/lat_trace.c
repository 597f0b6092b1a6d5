/*
 * lat_trace.c - the latency tracker's life (lat_trace.h): its instance
 * and synthetic event, the ring buffer its records are read from, the
 * ingress generations that hand over at a slot boundary, and their
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
#define SYSTEM_SYNTH		"synthetic"
#define INSTANCE_PREFIX		"xvbd-"
#define SYNTH_PREFIX		"xvbd_"
/*
 * An ingress map gets an entry per distinct sector completed (the kernel
 * never frees one); its generation is replaced once half of it may be
 * used.
 */
#define INGRESS_SIZE		16384

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Install one trigger; err names the kernel's reason. */
static int install(struct xvbd_lat *lat, const char *system,
		   const char *event, const char *cmd, char *why, size_t len)
{
	char err[256];
	int rc = xvbd_tracefs_trigger(lat->tf, lat->inst, system, event, cmd,
				      err, sizeof(err));

	if (rc)
		snprintf(why, len, "%s/%s: the kernel refused a hist trigger: "
			 "%s", system, event, err);
	return rc;
}

/* Remove one trigger ("!" + its text); failures are said by the caller. */
static int uninstall(struct xvbd_lat *lat, const char *system,
		     const char *event, const char *cmd)
{
	char bang[LAT_TRIGGER_MAX + 1], err[256];

	snprintf(bang, sizeof(bang), "!%s", cmd);
	return xvbd_tracefs_trigger(lat->tf, lat->inst, system, event, bang,
				    err, sizeof(err));
}

/* A generation's commands are "event\ttext". */
static void split_cmd(const char *cmd, char *event, size_t len,
		      const char **text)
{
	const char *tab = strchr(cmd, '\t');
	size_t n = tab ? (size_t)(tab - cmd) : 0;

	if (n >= len)
		n = len - 1;
	memcpy(event, cmd, n);
	event[n] = '\0';
	*text = tab ? tab + 1 : cmd;
}

static void gen_remove(struct xvbd_lat *lat, struct lat_gen *g)
{
	char event[LAT_NAME_MAX];
	const char *text;
	size_t i;

	/* Completions first: they refer to the start events' variables. */
	for (i = g->ncmds; i-- > 0;) {
		split_cmd(g->cmds[i], event, sizeof(event), &text);
		uninstall(lat, SYSTEM_BLOCK, event, text);
	}
	free(g->cmds);
	memset(g, 0, sizeof(*g));
}

static int gen_install_style(struct xvbd_lat *lat, struct lat_gen *g,
			     char *why, size_t len, bool *complete_refused)
{
	char event[LAT_NAME_MAX];
	const char *text;
	size_t i;
	int err;

	*complete_refused = false;
	err = lat_spec_gen(lat, g);
	if (err) {
		if (err == -E2BIG)
			snprintf(why, len, "too many devices for one hist "
				 "trigger");
		else
			snprintf(why, len, "%s", strerror(-err));
		g->ncmds = 0;	/* none installed */
		gen_remove(lat, g);
		return err;
	}
	for (i = 0; i < g->ncmds; i++) {
		split_cmd(g->cmds[i], event, sizeof(event), &text);
		err = install(lat, SYSTEM_BLOCK, event, text, why, len);
		if (err) {
			*complete_refused = !strcmp(event, "block_rq_complete");
			g->ncmds = i;	/* only those installed */
			gen_remove(lat, g);
			return err;
		}
	}
	g->installed = true;
	return 0;
}

/*
 * Install a generation's triggers.  The first time, each spelling of
 * the completion triggers' expressions in turn until the kernel takes
 * one (lat->style): what an expression's type is has changed between
 * kernels.
 */
static int gen_install(struct xvbd_lat *lat, struct lat_gen *g, char *why,
		       size_t len)
{
	unsigned bit = g->bit;
	bool refused;
	int err;

	if (lat->style_known)
		return gen_install_style(lat, g, why, len, &refused);
	for (lat->style = 0; lat->style < LAT_STYLES; lat->style++) {
		memset(g, 0, sizeof(*g));
		g->bit = bit;
		err = gen_install_style(lat, g, why, len, &refused);
		if (!err)
			lat->style_known = true;
		if (!err || !refused)
			return err;
	}
	lat->style = 0;
	return err;
}

/*
 * Which units' queues have an I/O scheduler (i2c timed), read afresh for
 * each generation: a scheduler can be changed at any time.  Unknown
 * counts as one (timing i2c where it says nothing costs only time).
 */
static void units_queued(struct xvbd_lat *lat)
{
	struct xvbd_blk_queue q;
	size_t i;

	for (i = 0; i < lat->nunits; i++) {
		struct lat_unit *u = &lat->units[i];

		if (!u->wanted || u->unsupported)
			continue;
		xvbd_sysfs_blk_queue(lat->sys, u->disk_major, u->disk_minor,
				     &q);
		u->queued = q.sched_rc || strcmp(q.scheduler, "none");
	}
}

/*
 * A new generation over the wanted units, answering from the slot after
 * the one in which its installation ended; the one answering now hands
 * over at that boundary and is removed once its last slot is read.
 */
int lat_new_gen(struct xvbd_lat *lat, char *why, size_t len)
{
	unsigned old = lat->cur_gen, next = 1 - old;
	struct lat_gen *g = &lat->gen[next];
	uint64_t first;
	size_t i;
	int err;

	if (g->installed)
		return -EBUSY;	/* the last handover is not over yet */
	if (!lat_counted_units(lat)) {
		/* Nothing to time: the one answering stops at this slot. */
		if (lat->gen[old].installed &&
		    lat->gen[old].last_slot == UINT64_MAX)
			lat->gen[old].last_slot = now_ns() / lat->slot_ns;
		return 0;
	}
	units_queued(lat);
	memset(g, 0, sizeof(*g));
	g->bit = next;
	err = gen_install(lat, g, why, len);
	if (err)
		return err;
	first = now_ns() / lat->slot_ns + 1;
	g->first_slot = first;
	g->last_slot = UINT64_MAX;
	if (lat->gen[old].installed)
		lat->gen[old].last_slot = first - 1;
	else if (!lat->started)
		lat->done_slot = first - 1;
	lat->started = true;
	lat->cur_gen = next;
	for (i = 0; i < lat->nunits; i++) {
		struct lat_unit *u = &lat->units[i];

		if (u->wanted && !u->unsupported && !u->live) {
			u->live = true;
			u->live_from_slot = first;
		}
	}
	return 0;
}

/* The generations whose last slot has been read. */
void lat_retire(struct xvbd_lat *lat)
{
	size_t i;

	for (i = 0; i < 2; i++) {
		struct lat_gen *g = &lat->gen[i];

		if (g->installed && g->last_slot <= lat->done_slot)
			gen_remove(lat, g);
	}
}

/* The synthetic event's record layout and each CPU's ring buffer. */
static int open_ring(struct xvbd_lat *lat, char *why, size_t len)
{
	char *text = NULL;
	size_t n;
	long ps = sysconf(_SC_PAGESIZE);
	int rc;

	rc = xvbd_tracefs_header_page(lat->tf, &text, &n);
	if (!rc)
		rc = lat_ring_header_ok(text);
	free(text);
	if (rc) {
		snprintf(why, len, "the kernel's ring buffer pages are not "
			 "laid out as xvbd reads them (events/header_page)");
		return rc;
	}
	rc = xvbd_tracefs_event_format(lat->tf, lat->inst, SYSTEM_SYNTH,
				       lat->synth, &text, &n);
	if (!rc)
		rc = lat_ring_format(text, &lat->fmt);
	free(text);
	if (rc) {
		snprintf(why, len, "cannot read synthetic event %s's format: "
			 "%s", lat->synth, strerror(-rc));
		return rc;
	}
	lat->page_size = ps > 0 && (size_t)ps <= LAT_PAGE_MAX ?
			 (size_t)ps : 4096;
	lat->page = malloc(lat->page_size);
	if (!lat->page) {
		snprintf(why, len, "%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	/* Before the event writes into it: a resize empties the buffer. */
	rc = xvbd_tracefs_buffer_kb(lat->tf, lat->inst, LAT_RING_KB);
	if (rc) {
		snprintf(why, len, "cannot size %s's ring buffer: %s",
			 lat->inst, strerror(-rc));
		return rc;
	}
	rc = xvbd_tracefs_raw_open(lat->tf, lat->inst, &lat->raw_fds,
				   &lat->nraw);
	if (rc) {
		snprintf(why, len, "cannot open %s's per-CPU trace_pipe_raw: "
			 "%s", lat->inst, strerror(-rc));
		return rc;
	}
	rc = xvbd_tracefs_event_enable(lat->tf, lat->inst, SYSTEM_SYNTH,
				       lat->synth, true);
	if (rc)
		snprintf(why, len, "cannot enable synthetic event %s in %s: "
			 "%s", lat->synth, lat->inst, strerror(-rc));
	return rc;
}

static int open_kernel_side(struct xvbd_lat *lat, char *why, size_t len)
{
	char def[160], err[256];
	int rc;

	/* Named before it is made: a SIGKILL from here on is reported. */
	xvbd_journal_note(XVBD_J_TRACE, "%s %s", lat->inst, lat->synth);
	lat->journaled = true;
	rc = xvbd_tracefs_instance_add(lat->tf, lat->inst);
	if (rc) {
		snprintf(why, len, "cannot make tracefs instance %s: %s",
			 lat->inst, strerror(-rc));
		return rc;
	}
	lat->instance_made = true;
	snprintf(def, sizeof(def), "%s u64 vk; u64 t; u64 lat; char rwbs[8]",
		 lat->synth);
	rc = xvbd_tracefs_synth_add(lat->tf, def, err, sizeof(err));
	if (rc) {
		snprintf(why, len, "cannot define synthetic event %s: %s",
			 lat->synth, err);
		return rc;
	}
	lat->synth_made = true;
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
	lat->ingress_size = INGRESS_SIZE;
	snprintf(lat->inst, sizeof(lat->inst), INSTANCE_PREFIX "%ld",
		 (long)getpid());
	snprintf(lat->synth, sizeof(lat->synth), SYNTH_PREFIX "%ld",
		 (long)getpid());
	rc = open_kernel_side(lat, why, why_len);
	if (rc) {
		xvbd_lat_close(lat);
		return rc;
	}
	*out = lat;
	return 0;
}

/* The events whose triggers it makes, in the order to clear them. */
static void clear_order(const char *synth, char ev[4][LAT_NAME_MAX + 16])
{
	snprintf(ev[0], sizeof(ev[0]), SYSTEM_SYNTH "/%s", synth);
	snprintf(ev[1], sizeof(ev[1]), SYSTEM_BLOCK "/block_rq_complete");
	snprintf(ev[2], sizeof(ev[2]), SYSTEM_BLOCK "/block_rq_issue");
	snprintf(ev[3], sizeof(ev[3]), SYSTEM_BLOCK "/block_rq_insert");
}

void xvbd_lat_remedy(const struct xvbd_tracefs *tf, const char *inst,
		     const char *synth, char *buf, size_t len)
{
	char ev[4][LAT_NAME_MAX + 16];
	const char *evp[4] = { ev[0], ev[1], ev[2], ev[3] };

	clear_order(synth ? synth : "", ev);
	xvbd_tracefs_remedy(tf, inst, synth, synth ? evp : evp + 1,
			    synth ? 4 : 3, buf, len);
}

void xvbd_lat_close(struct xvbd_lat *lat)
{
	char ev[4][LAT_NAME_MAX + 16];
	size_t i;
	bool left;

	if (!lat)
		return;
	/* An open file of the instance keeps it from being removed. */
	for (i = 0; i < lat->nraw; i++)
		close(lat->raw_fds[i]);
	free(lat->raw_fds);
	free(lat->page);
	/*
	 * Every trigger at once, per event, in an order in which none is
	 * still referred to: the synthetic event's, the completions' (they
	 * use the start events' variables), the start events'.
	 */
	clear_order(lat->synth, ev);
	for (i = 0; lat->instance_made && i < 4; i++)
		xvbd_tracefs_trigger_clear(lat->tf, lat->inst, ev[i]);
	for (i = 0; i < 2; i++)
		free(lat->gen[i].cmds);
	if (lat->instance_made)
		xvbd_tracefs_instance_remove(lat->tf, lat->inst);
	if (lat->synth_made)
		xvbd_tracefs_synth_remove(lat->tf, lat->synth);
	left = (lat->instance_made &&
		xvbd_tracefs_instance_exists(lat->tf, lat->inst)) ||
	       (lat->synth_made &&
		xvbd_tracefs_synth_exists(lat->tf, lat->synth) > 0);
	/* Still there: the journal keeps it for the next command to name. */
	if (lat->journaled && !left)
		xvbd_journal_done(XVBD_J_TRACE, "%s %s", lat->inst, lat->synth);
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
	if (u->partition)
		u->part_id = lat->next_part_id++;
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
	int err;
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
	/* A handover under way finishes first (xvbd_lat_read retries). */
	lat->want_gen = true;
	err = lat_new_gen(lat, why, why_len);
	if (err == -EBUSY)
		return 0;
	lat->want_gen = false;
	return err;
}
