/*
 * ab_sys.c - the fingerprint of the running system: what a run's numbers
 * depend on, read from where the system keeps it (libxl, xenstore,
 * sysfs, uname), never from what xvbd was told.  The only ab file that
 * talks to the system; it goes through the layers (tstack, vbd/blkif,
 * cache, sysfs, modparam).
 *
 * A fact that cannot be read is recorded as "unknown (<why>)": a
 * comparison must see that it was not known, not that it was absent.
 * Backend directories are dom0's; frontend keys are the guest's and only
 * reach the fingerprint through the blkif model, which bounds them.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "xvbd/ab/ab.h"
#include "xvbd/ab/ab_record_impl.h"
#include "xvbd/xen/blkif.h"
#include "xvbd/dom0/cache.h"
#include "xvbd/dom0/loop.h"
#include "xvbd/dom0/modparam.h"
#include "xvbd/dom0/sysfs.h"
#include "xvbd/xen/kcmdline.h"
#include "xvbd/xen/tstack.h"
#include "xvbd/vbd/override.h"
#include "xvbd/vbd/vbd.h"
#include "xvbd/xen/xs.h"

#ifndef XVBD_VERSION
#define XVBD_VERSION "0.1.0"
#endif

#define DOM0_DOMID	0
#define PINNING_MAX	512

/* Collects the first failure to record a fact (ENOMEM, bad key). */
struct fpctx {
	struct xvbd_ab_fp *fp;
	int rc;
	const char *failed_key;
};

static void fact(struct fpctx *c, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void fact(struct fpctx *c, const char *key, const char *fmt, ...)
{
	char value[XVBD_AB_TEXT_MAX + 1];
	va_list ap;
	int rc;

	va_start(ap, fmt);
	vsnprintf(value, sizeof(value), fmt, ap);
	va_end(ap);
	rc = xvbd_ab_fp_set(c->fp, key, "%s", value);
	if (rc && !c->rc) {
		c->rc = rc;
		c->failed_key = key;
	}
}

static void unknown(struct fpctx *c, const char *key, int err)
{
	fact(c, key, "unknown (%s)", strerror(err < 0 ? -err : err));
}

/* ---- host and dom0 ---- */

static void host_facts(struct fpctx *c, struct xvbd_tstack *ts,
		       struct xvbd_sysfs *sys)
{
	struct utsname u;
	char buf[256];
	uint32_t cpus;
	int rc;

	rc = xvbd_tstack_xen_version(ts, buf, sizeof(buf));
	if (rc)
		unknown(c, "xen.version", rc);
	else
		fact(c, "xen.version", "%s", buf);
	rc = xvbd_tstack_host_cpus(ts, &cpus);
	if (rc)
		unknown(c, "host.cpus", rc);
	else
		fact(c, "host.cpus", "%" PRIu32, cpus);
	if (uname(&u))
		unknown(c, "dom0.kernel", errno);
	else
		fact(c, "dom0.kernel", "%s %s", u.release, u.version);
	rc = sys ? xvbd_sysfs_clocksource(sys, buf, sizeof(buf)) : -ENOENT;
	if (rc)
		unknown(c, "dom0.clocksource", rc);
	else
		fact(c, "dom0.clocksource", "%s", buf);
}

/* vcpus, mem_bytes, pinning (and type for a guest) under prefix. */
static void domain_facts(struct fpctx *c, struct xvbd_tstack *ts,
			 uint32_t domid, const char *prefix, bool with_type)
{
	struct xvbd_dominfo info;
	char key[64], pinning[PINNING_MAX];
	const char *type;
	int rc;

	rc = xvbd_tstack_domain_info(ts, domid, &info);
	snprintf(key, sizeof(key), "%s.vcpus", prefix);
	if (rc)
		unknown(c, key, rc);
	else
		fact(c, key, "%" PRIu32, info.vcpus);
	snprintf(key, sizeof(key), "%s.mem_bytes", prefix);
	if (rc)
		unknown(c, key, rc);
	else
		fact(c, key, "%" PRIu64, info.memory_kib * 1024);
	snprintf(key, sizeof(key), "%s.pinning", prefix);
	rc = xvbd_tstack_vcpu_pinning(ts, domid, pinning, sizeof(pinning));
	if (rc)
		unknown(c, key, rc);
	else
		fact(c, key, "%s", pinning);
	if (!with_type)
		return;
	snprintf(key, sizeof(key), "%s.type", prefix);
	rc = xvbd_tstack_domain_type(ts, domid, &type);
	if (rc)
		unknown(c, key, rc);
	else
		fact(c, key, "%s", type);
}

/*
 * The guest kernel's command line, and blkfront's parameters on it each
 * as a fact of its own: they bound what the frontend takes of any offer.
 */
static void cmdline_facts(struct fpctx *c, struct xvbd_tstack *ts,
			  uint32_t domid)
{
	struct xvbd_kparams kp;
	char *cmdline = NULL, key[96];
	size_t i;
	int rc;

	rc = xvbd_tstack_domain_cmdline(ts, domid, &cmdline);
	if (rc == -ENOENT) {
		fact(c, "guest.cmdline", "unknown (libxl has no stored "
		     "configuration of the domain)");
		return;
	}
	if (rc) {
		unknown(c, "guest.cmdline", rc);
		return;
	}
	if (!cmdline) {
		fact(c, "guest.cmdline", "none (the guest boots its own "
		     "kernel: its command line is not in libxl's "
		     "configuration)");
		return;
	}
	fact(c, "guest.cmdline", "%s", cmdline);
	xvbd_kcmdline_module_params(cmdline, XVBD_BLKFRONT_MODULE, &kp);
	for (i = 0; i < kp.n; i++) {
		const struct xvbd_kparam *p = &kp.items[i];

		snprintf(key, sizeof(key), "guest.blkfront.%s", p->name);
		if (p->value_too_long)
			fact(c, key, "unknown (a value longer than %d bytes)",
			     XVBD_KPARAM_VALUE_MAX - 1);
		else if (p->has_value)
			fact(c, key, "%s", p->value);
		else
			fact(c, key, "set without a value");
	}
	if (kp.skipped)
		fact(c, "guest.blkfront_unrecorded", "%zu parameter(s): a "
		     "name too long or not [a-z0-9_], or more than %d",
		     kp.skipped, XVBD_KPARAMS_MAX);
	free(cmdline);
}

/* The module's parameters into params (left empty when unreadable). */
static void blkback_facts(struct fpctx *c, struct xvbd_modparams *params)
{
	char key[128];
	size_t i;
	int rc;

	rc = xvbd_modparam_list(XVBD_BLKBACK_MODULE, params);
	if (rc == -ENOENT) {
		fact(c, "blkback.module", "not loaded");
		return;
	}
	if (rc) {
		unknown(c, "blkback.module", rc);
		return;
	}
	fact(c, "blkback.module", "loaded");
	for (i = 0; i < params->n; i++) {
		snprintf(key, sizeof(key), "blkback.%s",
			 params->items[i].name);
		fact(c, key, "%s", params->items[i].value);
	}
}

/* ---- VBDs ---- */

/*
 * Where dom0's page cache stands between the guest and its data: for a
 * loop device, what the vbd view read back from it (the cache layer, as
 * list and show say it).
 */
static void cache_fact(struct fpctx *c, const char *key,
		       const struct xvbd_vbd_view *v)
{
	const char *dio_safe;

	switch (v->kind) {
	case XVBD_BE_PHY:
		/* A real device has no page cache; phy on a loop device
		 * does (the view read its dio). */
		fact(c, key, "%s", xvbd_cache_name(v->dom0_cache));
		return;
	case XVBD_BE_FILE_LOOP:
		if (v->dom0_cache == XVBD_CACHE_NA)
			fact(c, key, "unknown (the loop device's direct I/O "
			     "state could not be read)");
		else
			fact(c, key, "%s", xvbd_cache_name(v->dom0_cache));
		return;
	case XVBD_BE_QDISK:
		/* QEMU opens the image O_DIRECT only with direct-io-safe. */
		dio_safe = xvbd_kvmap_get(&v->backend, "direct-io-safe");
		fact(c, key, "%s", dio_safe && !strcmp(dio_safe, "1") ?
		     "none" : "host");
		return;
	case XVBD_BE_TAP:
		fact(c, key, "unknown (tapdisk's caching is not visible)");
		return;
	case XVBD_BE_UNKNOWN:
		break;
	}
	fact(c, key, "unknown (backend type not known)");
}

static void opt_fact(struct fpctx *c, const char *key, struct xvbd_opt o,
		     const char *why)
{
	if (o.known)
		fact(c, key, "%" PRIu64, o.v);
	else
		fact(c, key, "unknown (%s)", why);
}

static void bool_fact(struct fpctx *c, const char *key, struct xvbd_opt o,
		      const char *why)
{
	if (o.known)
		fact(c, key, "%s", o.v ? "yes" : "no");
	else
		fact(c, key, "unknown (%s)", why);
}

/*
 * Was an offer written over blkback's own?  blkback offers its module
 * parameters (and Linux's fixed indirect segment count) at probe; an
 * offer below that was lowered by someone: a per-VBD override (xvbd
 * start/tune/attach --vbd) or another writer of the backend directory.
 */
static void overridden_fact(struct fpctx *c, const char *key,
			    const struct xvbd_blkif_eval *ev,
			    const struct xvbd_ovr_caps *caps)
{
	static const struct {
		int nego;
		enum xvbd_ovr_id id;
		const char *name;
	} offers[] = {
		{ XVBD_NEGO_RING_ORDER, XVBD_OVR_RING_ORDER, "ring_order" },
		{ XVBD_NEGO_QUEUES, XVBD_OVR_QUEUES, "queues" },
		{ XVBD_NEGO_INDIRECT, XVBD_OVR_INDIRECT, "indirect_segments" },
	};
	const char *missing = NULL;
	char buf[256] = "";
	size_t used = 0, i;

	for (i = 0; i < sizeof(offers) / sizeof(offers[0]); i++) {
		struct xvbd_opt offer = ev->nego[offers[i].nego].offer;
		const struct xvbd_ovr_cap *cap = &caps->cap[offers[i].id];

		if (!offer.known || !cap->known) {
			if (!missing)
				missing = offers[i].name;
			continue;
		}
		if (offer.v >= cap->max || used >= sizeof(buf))
			continue;
		used += (size_t)snprintf(buf + used, sizeof(buf) - used,
					 "%s%s %" PRIu64 " < %s %" PRIu64,
					 used ? ", " : "", offers[i].name,
					 offer.v, cap->source, cap->max);
	}
	if (used)
		fact(c, key, "yes (below blkback's own: %s)", buf);
	else if (missing)
		fact(c, key, "unknown (%s: the offer or blkback's own value "
		     "is not known)", missing);
	else
		fact(c, key, "no");
}

/* The backend's offers as written in its directory, beside the choices. */
static void offer_facts(struct fpctx *c, const char *vdev,
			const struct xvbd_blkif_eval *ev,
			const struct xvbd_ovr_caps *caps)
{
	char key[96], why[64];

#define OKEY(name) (snprintf(key, sizeof(key), "vbd.%s.offer." name, vdev), \
		    key)
	if (ev->backend_state.known)
		snprintf(why, sizeof(why), "not in the backend directory, "
			 "backend %s", xvbd_state_name(ev->backend_state.v));
	else
		snprintf(why, sizeof(why), "no backend state");
	opt_fact(c, OKEY("ring_order"), ev->nego[XVBD_NEGO_RING_ORDER].offer,
		 why);
	opt_fact(c, OKEY("queues"), ev->nego[XVBD_NEGO_QUEUES].offer, why);
	opt_fact(c, OKEY("indirect_segments"),
		 ev->nego[XVBD_NEGO_INDIRECT].offer, why);
	bool_fact(c, OKEY("persistent_grants"),
		  ev->nego[XVBD_NEGO_PERSISTENT].offer, why);
	bool_fact(c, OKEY("discard"), ev->nego[XVBD_NEGO_DISCARD].offer, why);
	overridden_fact(c, OKEY("overridden"), ev, caps);
#undef OKEY
}

/* The queue of the whole disk of major:minor (a partition has none). */
static void queue_facts(struct fpctx *c, struct xvbd_sysfs *sys,
			const char *vdev, unsigned major, unsigned minor)
{
	struct xvbd_blk_queue q;
	unsigned wma, wmi;
	char key[96];

#define DKEY(name) (snprintf(key, sizeof(key), "vbd.%s.dev." name, vdev), key)
	xvbd_sysfs_blk_whole(sys, major, minor, &wma, &wmi);
	xvbd_sysfs_blk_queue(sys, wma, wmi, &q);
	if (q.lbs_rc)
		unknown(c, DKEY("logical_block_size"), q.lbs_rc);
	else
		fact(c, DKEY("logical_block_size"), "%" PRIu64,
		     q.logical_block_size);
	if (q.pbs_rc)
		unknown(c, DKEY("physical_block_size"), q.pbs_rc);
	else
		fact(c, DKEY("physical_block_size"), "%" PRIu64,
		     q.physical_block_size);
	if (q.rot_rc)
		unknown(c, DKEY("rotational"), q.rot_rc);
	else
		fact(c, DKEY("rotational"), "%s", q.rotational ? "yes" : "no");
	if (q.sched_rc)
		unknown(c, DKEY("scheduler"), q.sched_rc);
	else
		fact(c, DKEY("scheduler"), "%s", q.scheduler);
	if (wma != major || wmi != minor)
		fact(c, DKEY("number"), "%u:%u (a partition of %u:%u)", major,
		     minor, wma, wmi);
	else
		fact(c, DKEY("number"), "%u:%u", major, minor);
#undef DKEY
}

static void dev_unknown(struct fpctx *c, const char *vdev, const char *why)
{
	static const char *const names[] = {
		"number", "logical_block_size", "physical_block_size",
		"rotational", "scheduler",
	};
	char key[96];
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(key, sizeof(key), "vbd.%s.dev.%s", vdev, names[i]);
		fact(c, key, "unknown (%s)", why);
	}
}

/*
 * The block device the VBD's data lives on: phy's device, or for a file
 * via loop the device holding the image (the loop device's backing
 * st_dev, as LOOP_GET_STATUS64 reports it: no stat of the file, which
 * could hang on a share whose server stopped answering), and the
 * filesystem the image is on.
 */
static void dev_facts(struct fpctx *c, struct xvbd_sysfs *sys,
		      const char *vdev, const struct xvbd_vbd_view *v)
{
	const char *pd = xvbd_kvmap_get(&v->backend, "physical-device");
	unsigned major, minor;
	struct xvbd_loop lo;
	char key[96], why[96], fstype[64];
	int rc;

	if (v->kind != XVBD_BE_PHY && v->kind != XVBD_BE_FILE_LOOP) {
		dev_unknown(c, vdev, "not a blkback device: the "
			    "backend opens the image itself");
		return;
	}
	if (!sys) {
		dev_unknown(c, vdev, "sysfs could not be opened");
		return;
	}
	if (!pd || xvbd_sysfs_parse_devnum(pd, &major, &minor)) {
		dev_unknown(c, vdev, "no valid physical-device in the "
			    "backend");
		return;
	}
	if (v->kind == XVBD_BE_FILE_LOOP) {
		snprintf(key, sizeof(key), "vbd.%s.dev.fstype", vdev);
		if (!xvbd_loop_find_dev(major, minor, &lo)) {
			snprintf(why, sizeof(why), "loop device %u:%u is not "
				 "bound", major, minor);
			fact(c, key, "unknown (%s)", why);
			dev_unknown(c, vdev, why);
			return;
		}
		major = lo.file_major;
		minor = lo.file_minor;
		rc = xvbd_proc_mount_fstype(sys, major, minor, fstype,
					    sizeof(fstype));
		if (rc)
			fact(c, key, "unknown (device %u:%u in mountinfo: "
			     "%s)", major, minor, strerror(-rc));
		else
			fact(c, key, "%s", fstype);
	}
	if (!major) {
		snprintf(why, sizeof(why), "%u:%u is no block device: the "
			 "filesystem has none (NFS, tmpfs, btrfs)", major,
			 minor);
		dev_unknown(c, vdev, why);
		return;
	}
	queue_facts(c, sys, vdev, major, minor);
}

static void vbd_facts(struct fpctx *c, struct xvbd_xs *xs, uint32_t domid,
		      const struct xvbd_disk *disk, const char *vdev,
		      const struct xvbd_ovr_caps *caps, struct xvbd_sysfs *sys)
{
	const struct xvbd_blkif_eval *ev;
	const struct xvbd_nego *ind;
	struct xvbd_vbd_view view;
	const char *type, *params;
	char key[96], why[64];
	int rc;

#define KEY(name) (snprintf(key, sizeof(key), "vbd.%s." name, vdev), key)
	rc = xvbd_vbd_load(xs, domid, disk, &view);
	if (rc) {
		unknown(c, KEY("backend"), rc);
		return;
	}
	ev = &view.eval;
	type = xvbd_kvmap_get(&view.backend, "type");
	switch (view.kind) {
	case XVBD_BE_FILE_LOOP:
		fact(c, KEY("backend"), "file via loop");
		break;
	case XVBD_BE_PHY:
		fact(c, KEY("backend"), "phy");
		break;
	case XVBD_BE_QDISK:
	case XVBD_BE_TAP:
		fact(c, KEY("backend"), "%s", type);
		break;
	case XVBD_BE_UNKNOWN:
		if (type)
			fact(c, KEY("backend"), "unknown (type \"%.40s\")",
			     type);
		else
			fact(c, KEY("backend"), "unknown (no backend type)");
		break;
	}
	params = xvbd_kvmap_get(&view.backend, "params");
	if (params)
		fact(c, KEY("target"), "%s", params);
	else
		fact(c, KEY("target"), "unknown (no params in the backend)");
	opt_fact(c, KEY("size_bytes"), ev->size_bytes,
		 "no sectors in the backend");
	cache_fact(c, KEY("dom0_cache"), &view);

	/* Negotiated values exist once the frontend has published. */
	if (ev->frontend_state.known)
		snprintf(why, sizeof(why), "frontend %s",
			 xvbd_state_name(ev->frontend_state.v));
	else
		snprintf(why, sizeof(why), "no frontend state");
	opt_fact(c, KEY("ring_pages"), ev->ring_pages, why);
	opt_fact(c, KEY("queues"), ev->queues, why);
	ind = &ev->nego[XVBD_NEGO_INDIRECT];
	if (ind->effective.known)
		fact(c, KEY("indirect_segments"), "%" PRIu64,
		     ind->effective.v);
	else if (ind->offer.known)
		/* blkfront does not publish its own limit. */
		fact(c, KEY("indirect_segments"), "offered %" PRIu64
		     " (the frontend's limit is not published)",
		     ind->offer.v);
	else
		fact(c, KEY("indirect_segments"), "unknown (%s)", why);
	bool_fact(c, KEY("persistent_grants"), ev->persistent, why);
	bool_fact(c, KEY("discard"), ev->nego[XVBD_NEGO_DISCARD].effective,
		  why);
	offer_facts(c, vdev, ev, caps);
	dev_facts(c, sys, vdev, &view);
	if (ev->frontend_state.known &&
	    ev->frontend_state.v == XVBD_STATE_CONNECTED)
		fact(c, KEY("path"), "pv");
	else if (ev->frontend_state.known)
		fact(c, KEY("path"), "not connected (state %" PRIu64 " %s)",
		     ev->frontend_state.v,
		     xvbd_state_name(ev->frontend_state.v));
	else
		fact(c, KEY("path"), "not connected (no frontend state)");
#undef KEY
	xvbd_vbd_view_free(&view);
}

static void vbds_facts(struct fpctx *c, struct xvbd_tstack *ts,
		       struct xvbd_xs *xs, uint32_t domid,
		       const char *const *vdevs, size_t nvdevs,
		       const struct xvbd_ovr_caps *caps, struct xvbd_sysfs *sys)
{
	struct xvbd_disk *disks = NULL;
	char name[32];
	size_t ndisks = 0, i, j;
	uint32_t devid;
	int rc;

	if (nvdevs) {
		uint32_t ids[XVBD_AB_VDEVS_MAX];
		size_t nids = 0;

		for (i = 0; i < nvdevs && nids < XVBD_AB_VDEVS_MAX; i++)
			if (!xvbd_vdev_parse(vdevs[i], &devid))
				ids[nids++] = devid;
		rc = xvbd_tstack_disks_of(ts, domid, ids, nids, &disks,
					  &ndisks);
	} else {
		rc = xvbd_tstack_disks(ts, domid, &disks, &ndisks);
	}
	if (rc) {
		for (i = 0; i < nvdevs; i++) {
			snprintf(name, sizeof(name), "vbd.%s.backend",
				 vdevs[i]);
			unknown(c, name, rc);
		}
		return;
	}
	for (i = 0; i < (nvdevs ? nvdevs : ndisks); i++) {
		const struct xvbd_disk *disk = NULL;
		const char *vdev;

		if (nvdevs) {
			vdev = vdevs[i];
			if (xvbd_vdev_parse(vdev, &devid))
				devid = UINT32_MAX;
			for (j = 0; j < ndisks && !disk; j++)
				if (disks[j].devid == devid)
					disk = &disks[j];
		} else {
			disk = &disks[i];
			/* Canonical names, as the record's vdevs. */
			if (xvbd_vdev_name(disk->devid, name, sizeof(name)))
				snprintf(name, sizeof(name), "%s", disk->vdev);
			vdev = name;
		}
		if (!disk) {
			char key[96];

			snprintf(key, sizeof(key), "vbd.%s.backend", vdev);
			fact(c, key, "unknown (the domain has no such disk)");
			continue;
		}
		vbd_facts(c, xs, domid, disk, vdev, caps, sys);
	}
	xvbd_tstack_disks_free(disks, ndisks);
}

int xvbd_ab_fingerprint(struct xvbd_tstack *ts, struct xvbd_xs *xs,
			uint32_t domid, const char *const *vdevs,
			size_t nvdevs, const char *workload,
			struct xvbd_ab_fp *fp, struct xvbd_ab_err *e)
{
	struct fpctx c = { .fp = fp };
	struct xvbd_sysfs *sys = xvbd_sysfs_open(NULL);
	struct xvbd_modparams params = { 0 };
	struct xvbd_ovr_caps caps = { 0 };

	host_facts(&c, ts, sys);
	domain_facts(&c, ts, DOM0_DOMID, "dom0", false);
	domain_facts(&c, ts, domid, "guest", true);
	cmdline_facts(&c, ts, domid);
	blkback_facts(&c, &params);
	/* blkback's own offers, to tell an offer written over them */
	xvbd_override_caps_modparams(&caps, &params);
	xvbd_override_caps_blkback_model(&caps);
	xvbd_modparams_free(&params);
	vbds_facts(&c, ts, xs, domid, vdevs, nvdevs, &caps, sys);
	fact(&c, "workload", "%s", workload ? workload : "unknown");
	fact(&c, "xvbd.version", "%s", XVBD_VERSION);
	xvbd_sysfs_close(sys);
	if (c.rc) {
		snprintf(e->msg, sizeof(e->msg), "fingerprint: %s: %s",
			 c.failed_key, strerror(-c.rc));
		return c.rc;
	}
	return 0;
}
