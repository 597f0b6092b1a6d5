/*
 * stats_sys.c - the real source behind the sampler: the toolstack for
 * domains and disks, xenstore for each VBD's backing device and for the
 * watch that says when the VBD set changed.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xvbd/xen/blkif.h"
#include "xvbd/stats/stats.h"
#include "xvbd/dom0/sysfs.h"
#include "xvbd/xen/tstack.h"
#include "xvbd/xen/xs.h"

/* The backends blkback serves in dom0 (its sysfs counters are ours). */
#define BLKBACK_DOMID	0
#define BLKBACK_KIND	"vbd"
/* xenstored answers a new watch at once; this is only a safety net. */
#define WATCH_SETTLE_MS	2000

/* A VBD whose backend state changed: its connection generation. */
struct conn_gen {
	uint32_t domid, devid;
	uint64_t gen;
};

struct sys_source {
	struct conn_gen *gens;
	size_t ngens, cap_gens;
	struct xvbd_tstack *ts;
	struct xvbd_domstats *domstats;
	struct xvbd_xs *xs;
	char *watch_path;
	struct xvbd_domstat *buf;
	size_t cap;
};

static int sys_domains(void *arg, struct xvbd_stats_dominfo *out, size_t cap,
		       size_t *n)
{
	struct sys_source *s = arg;
	size_t i;
	int rc;

	if (cap > s->cap) {
		struct xvbd_domstat *p = realloc(s->buf, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		s->buf = p;
		s->cap = cap;
	}
	rc = xvbd_tstack_domstats_read(s->domstats, s->buf, cap, n);
	if (rc)
		return rc;
	for (i = 0; i < *n; i++) {
		out[i].domid = s->buf[i].domid;
		memcpy(out[i].uuid, s->buf[i].uuid, sizeof(out[i].uuid));
		out[i].cpu_ns = s->buf[i].cpu_ns;
		out[i].vcpus_online = s->buf[i].vcpus_online;
		out[i].mem_bytes = s->buf[i].mem_bytes;
	}
	return 0;
}

static int sys_domain_name(void *arg, uint32_t domid, char *buf, size_t len)
{
	struct sys_source *s = arg;

	return xvbd_tstack_domain_name(s->ts, domid, buf, len);
}

/* The backing block device, from the hotplug script's physical-device. */
static void backing_device(struct sys_source *s,
			   const struct xvbd_xs_be_path *be,
			   struct xvbd_stats_vbdinfo *v)
{
	char *path = xvbd_xs_path_backend_key(be, "physical-device");
	char *value = path ? xvbd_xs_read(s->xs, path) : NULL;

	v->has_blkdev = value &&
			!xvbd_sysfs_parse_devnum(value, &v->blk_major,
						 &v->blk_minor);
	free(value);
	free(path);
}

static int backend_uint(struct sys_source *s, const struct xvbd_xs_be_path *be,
			const char *key, uint64_t max, uint64_t *v)
{
	char *path = xvbd_xs_path_backend_key(be, key);
	int rc = path ? xvbd_xs_read_uint(s->xs, path, max, v) : -ENOMEM;

	free(path);
	return rc;
}

/*
 * What the ring threads are called and what the backend offered: the
 * backend's own keys (dom0-owned; "dev" is what blkback names its
 * threads after, "/dev/" stripped as blkback does).
 */
static void backend_facts(struct sys_source *s,
			  const struct xvbd_xs_be_path *be,
			  struct xvbd_stats_vbdinfo *v)
{
	char *path = xvbd_xs_path_backend_key(be, "dev");
	char *dev = path ? xvbd_xs_read(s->xs, path) : NULL;
	const char *name = dev ? strstr(dev, "/dev/") : NULL;
	uint64_t val;
	int n;

	name = name ? name + strlen("/dev/") : dev;
	v->thread_prefix[0] = '\0';
	if (name && *name && !strchr(name, '/')) {
		n = snprintf(v->thread_prefix, sizeof(v->thread_prefix),
			     "%" PRIu32 ".%s", v->domid, name);
		/* "-<ring>" must fit the kernel's 15 bytes, or rings blur. */
		if (n < 0 || (size_t)n + 2 >= sizeof(v->thread_prefix))
			v->thread_prefix[0] = '\0';
	}
	free(dev);
	free(path);
	v->connected = !backend_uint(s, be, "state", XVBD_STATE_MAX, &val) &&
		       val == XVBD_STATE_CONNECTED;
	v->indirect_known = !backend_uint(s, be,
					  "feature-max-indirect-segments",
					  UINT32_MAX, &val);
	v->indirect_segments = v->indirect_known ? (uint32_t)val : 0;
	/* Absent: blkback offers none, which is also a known answer. */
	if (!v->indirect_known && v->connected) {
		v->indirect_known = true;
		v->indirect_segments = 0;
	}
}

static struct conn_gen *find_gen(struct sys_source *s, uint32_t domid,
				 uint32_t devid)
{
	size_t i;

	for (i = 0; i < s->ngens; i++)
		if (s->gens[i].domid == domid && s->gens[i].devid == devid)
			return &s->gens[i];
	return NULL;
}

/*
 * A watch event under the backend tree: ".../<domid>/<devid>/state"
 * reading Connected means the ring (re)connected, and blkback's counters
 * of a new ring start again at 0.  Other states are not counted: a guest
 * that shuts down takes its backend through Closing and Closed with its
 * counters intact until the rings are freed (then they read 0, which the
 * sampler sees as counters going back).  Read when the events are
 * drained, so a whole Closed ... Connected cycle between two drains still
 * counts.  dom0's own keys, so the guest cannot fake one.
 */
static void note_event(const char *path, void *arg)
{
	struct sys_source *s = arg;
	struct xvbd_xs_be_path be;
	struct conn_gen *g;
	const char *slash = strrchr(path, '/');
	char dir[256];
	uint64_t state;

	if (!slash || strcmp(slash, "/state") ||
	    (size_t)(slash - path) >= sizeof(dir))
		return;
	if (xvbd_xs_read_uint(s->xs, path, UINT32_MAX, &state) ||
	    state != XVBD_STATE_CONNECTED)
		return;
	snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
	if (xvbd_xs_parse_backend_path(dir, &be) ||
	    be.be_domid != BLKBACK_DOMID || strcmp(be.kind, BLKBACK_KIND))
		return;
	g = find_gen(s, be.fe_domid, be.devid);
	if (!g) {
		if (s->ngens == s->cap_gens) {
			size_t ncap = s->cap_gens ? s->cap_gens * 2 : 16;
			void *p = realloc(s->gens, ncap * sizeof(*s->gens));

			if (!p)
				return;
			s->gens = p;
			s->cap_gens = ncap;
		}
		g = &s->gens[s->ngens++];
		*g = (struct conn_gen){ be.fe_domid, be.devid, 0 };
	}
	g->gen++;
}

static int add_disks(struct sys_source *s, uint32_t domid,
		     struct xvbd_stats_vbdinfo **list, size_t *n, size_t *cap)
{
	struct xvbd_disk *disks = NULL;
	size_t nd = 0, i;
	int rc = xvbd_tstack_disks(s->ts, domid, &disks, &nd);

	/* A domain that went away meanwhile has no disks: not an error. */
	if (rc)
		return rc == -ENOMEM ? rc : 0;
	for (i = 0; i < nd; i++) {
		struct xvbd_stats_vbdinfo *v;
		struct xvbd_xs_be_path be;

		/* The toolstack's own record, never the frontend's key. */
		if (!disks[i].backend_path ||
		    xvbd_xs_parse_backend_path(disks[i].backend_path, &be) ||
		    be.be_domid != BLKBACK_DOMID ||
		    strcmp(be.kind, BLKBACK_KIND) || be.fe_domid != domid)
			continue;
		if (*n == *cap) {
			size_t ncap = *cap ? *cap * 2 : 8;
			void *p = realloc(*list, ncap * sizeof(**list));

			if (!p) {
				rc = -ENOMEM;
				break;
			}
			*list = p;
			*cap = ncap;
		}
		v = &(*list)[(*n)++];
		memset(v, 0, sizeof(*v));
		v->domid = domid;
		v->devid = be.devid;
		if (xvbd_vdev_name(be.devid, v->vdev, sizeof(v->vdev)))
			snprintf(v->vdev, sizeof(v->vdev), "%s",
				 disks[i].vdev);
		backing_device(s, &be, v);
		backend_facts(s, &be, v);
		if (find_gen(s, domid, be.devid))
			v->connect_gen = find_gen(s, domid, be.devid)->gen;
	}
	xvbd_tstack_disks_free(disks, nd);
	return rc;
}

static int sys_vbds(void *arg, struct xvbd_stats_vbdinfo **out, size_t *n)
{
	struct sys_source *s = arg;
	struct xvbd_stats_vbdinfo *list = NULL;
	size_t nl = 0, cap = 0, nd = 0, i;
	uint32_t *domids = NULL;
	int rc;

	/* Events up to here are covered by this look. */
	xvbd_xs_watch_drain(s->xs, note_event, s);
	rc = xvbd_tstack_domains(s->ts, &domids, &nd);
	if (rc)
		return rc;
	for (i = 0; i < nd && !rc; i++)
		rc = add_disks(s, domids[i], &list, &nl, &cap);
	free(domids);
	if (rc) {
		free(list);
		return rc;
	}
	*out = list;
	*n = nl;
	return 0;
}

static bool sys_vbds_changed(void *arg)
{
	struct sys_source *s = arg;

	return xvbd_xs_watch_drain(s->xs, note_event, s);
}

static int sys_vcpus(void *arg, uint32_t domid, uint64_t *cpu_ns, size_t cap,
		     size_t *n)
{
	struct sys_source *s = arg;

	return xvbd_tstack_vcpu_times(s->ts, domid, cpu_ns, cap, n);
}

static void sys_close(void *arg)
{
	struct sys_source *s = arg;

	if (s->watch_path)
		xvbd_xs_watch_remove(s->xs, s->watch_path);
	xvbd_tstack_domstats_close(s->domstats);
	free(s->watch_path);
	free(s->buf);
	free(s->gens);
	free(s);
}

int xvbd_stats_sys_source(struct xvbd_tstack *ts, struct xvbd_xs *xs,
			  struct xvbd_stats_source *src)
{
	struct sys_source *s = calloc(1, sizeof(*s));
	int rc;

	if (!s)
		return -ENOMEM;
	s->ts = ts;
	s->xs = xs;
	s->watch_path = xvbd_xs_path_backend_root(BLKBACK_DOMID, BLKBACK_KIND);
	if (!s->watch_path) {
		free(s);
		return -ENOMEM;
	}
	rc = xvbd_tstack_domstats_open(&s->domstats);
	if (!rc) {
		rc = xvbd_xs_watch_add(xs, s->watch_path, WATCH_SETTLE_MS);
		if (rc) {
			xvbd_tstack_domstats_close(s->domstats);
			s->domstats = NULL;
		}
	}
	if (rc) {
		free(s->watch_path);
		free(s);
		return rc;
	}
	memset(src, 0, sizeof(*src));
	src->domains = sys_domains;
	src->domain_name = sys_domain_name;
	src->vbds = sys_vbds;
	src->vbds_changed = sys_vbds_changed;
	src->vcpus = sys_vcpus;
	src->close = sys_close;
	src->arg = s;
	return 0;
}
