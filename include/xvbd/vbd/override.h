/*
 * override.h - per-VBD overrides of blkif negotiation keys, applied in
 * the window between blkback's probe (backend InitWait) and the moment
 * blkfront reads them, then verified against what the frontend chose.
 *
 * Facts this is built on (Linux 6.1, measured in the lab):
 *  - blkback writes max-ring-page-order, multi-queue-max-queues and
 *    feature-max-indirect-segments at probe, then goes InitWait; blkfront
 *    reads the first two when it sees InitWait, the third at connect.  An
 *    override can only LOWER them: blkback refuses a frontend that asks
 *    for more than its module parameter ("requested ring page order 3
 *    exceed max:1", both sides Closed).
 *  - feature-persistent is rewritten by blkback at connect: per device it
 *    cannot be overridden (dom0-wide: xen_blkback.feature_persistent).
 *  - discard-enable (read by blkback at connect), trusted (read by
 *    blkfront at connect) and direct-io-safe (qdisk) belong to the
 *    toolstack: any valid value, effective from the next connect.
 *
 * Use, for each device (the same sequence serves start, tune, attach):
 *	xvbd_override_parse_vbd() / _parse_kv()	   user input -> set
 *	xvbd_override_caps_*() + _validate()	   against model + backend
 *	xvbd_override_plan() (+ _plan_render())	   the writes, for -N
 *	xvbd_override_wait_initwait()		   backend probed
 *	xvbd_override_apply_txn()		   one transaction, re-checked
 *	... unpause / let the frontend connect ...
 *	xvbd_override_wait_connected()
 *	xvbd_override_verify() (+ _results_render()) applied / not applied
 * Parse, validate, plan, verify and the cost estimate are pure (unit
 * tested); wait and apply talk to xenstore (src/override_xs.c).
 * Functions return 0 / negative errno and fill a why buffer that fits
 * "xvbd: <cmd>: <what>: <why>".
 */
#ifndef XVBD_OVERRIDE_H
#define XVBD_OVERRIDE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "xvbd/xen/blkif.h"
#include "xvbd/base/out.h"
#include "xvbd/base/util.h"

struct xvbd_xs;
struct xvbd_modparams;

enum xvbd_ovr_id {
	XVBD_OVR_RING_ORDER,
	XVBD_OVR_QUEUES,
	XVBD_OVR_INDIRECT,
	XVBD_OVR_DISCARD,
	XVBD_OVR_TRUSTED,
	XVBD_OVR_DIRECT_IO_SAFE,
	XVBD_OVR_PERSISTENT,
	XVBD_OVR_NKEYS,
};

enum xvbd_ovr_class {
	XVBD_OVR_NEGOTIATED,	/* blkback's probe offer: lower only */
	XVBD_OVR_TOOLSTACK,	/* toolstack-owned: read at connect */
	XVBD_OVR_REFUSED,	/* cannot be set per device */
};

struct xvbd_ovr_key {
	enum xvbd_ovr_id id;
	const char *name;		/* user name: "ring-order" */
	const char *xs_key;		/* blkif key: "max-ring-page-order" */
	enum xvbd_dir dir;
	enum xvbd_ovr_class cls;
	const char *modparam;		/* xen_blkback parameter bounding it */
	const char *guest_param;	/* xen_blkfront's own limit */
	uint64_t guest_default;		/* ... and its default */
	const char *read_by;		/* who reads the key, and when */
	const char *refused_why;	/* XVBD_OVR_REFUSED only */
};

extern const struct xvbd_ovr_key xvbd_ovr_keys[XVBD_OVR_NKEYS];
/* By user name or blkif key name; NULL if not overridable. */
const struct xvbd_ovr_key *xvbd_ovr_key_find(const char *name);

#define XVBD_OVR_VDEV_LEN	32

struct xvbd_ovr {
	const struct xvbd_ovr_key *key;
	uint64_t value;
	struct xvbd_opt before;		/* apply: the value it replaced */
};

/* The overrides of one device. */
struct xvbd_ovr_set {
	char vdev[XVBD_OVR_VDEV_LEN];	/* as the user wrote it */
	uint32_t devid;
	struct xvbd_ovr items[XVBD_OVR_NKEYS];	/* each key at most once */
	size_t n;
};

/* A set for vdev (no overrides yet).  -EINVAL: not a vdev name. */
int xvbd_override_set_init(struct xvbd_ovr_set *set, const char *vdev,
			   char *why, size_t len);
/* "key=value" added to set.  -EINVAL: unknown key, bad value, twice. */
int xvbd_override_parse_kv(struct xvbd_ovr_set *set, const char *kv,
			   char *why, size_t len);
/* "VDEV:key=value[,key=value]..." -> a new set. */
int xvbd_override_parse_vbd(struct xvbd_ovr_set *set, const char *spec,
			    char *why, size_t len);
const struct xvbd_ovr *xvbd_override_get(const struct xvbd_ovr_set *set,
					 enum xvbd_ovr_id id);
/* Has the set a key of this class? */
bool xvbd_override_has(const struct xvbd_ovr_set *set,
		       enum xvbd_ovr_class cls);

/* Upper bounds of what a backend can offer, with where each came from. */
struct xvbd_ovr_cap {
	bool known;
	uint64_t max;
	char source[64];	/* "xen_blkback.max_ring_page_order" */
};

struct xvbd_ovr_caps {
	struct xvbd_ovr_cap cap[XVBD_OVR_NKEYS];
};

/* Lower the bound (keeps the smaller one, and its source). */
void xvbd_override_cap(struct xvbd_ovr_caps *caps, enum xvbd_ovr_id id,
		       uint64_t max, const char *source);
/*
 * dom0 blkback's module parameters (max_queues 0 means "per CPU").
 * In src/override_xs.c: it reads the modparam layer's snapshot.
 */
void xvbd_override_caps_modparams(struct xvbd_ovr_caps *caps,
				  const struct xvbd_modparams *params);
/* Linux blkback's fixed offer (MAX_INDIRECT_SEGMENTS, before probe). */
#define XVBD_BLKBACK_INDIRECT_SEGMENTS	256
void xvbd_override_caps_blkback_model(struct xvbd_ovr_caps *caps);
/* The offers blkback wrote at probe (backend directory snapshot). */
void xvbd_override_caps_backend(struct xvbd_ovr_caps *caps,
				const struct xvbd_kvmap *backend);

/*
 * Every override against the blkif model and caps.  -EINVAL refused
 * (persistent), -ERANGE above what the backend offers.
 */
int xvbd_override_validate(const struct xvbd_ovr_set *set,
			   const struct xvbd_ovr_caps *caps, char *why,
			   size_t len);

/* The xenstore writes of a set: "<dir>/<key>" = value. */
struct xvbd_ovr_write {
	char vdev[XVBD_OVR_VDEV_LEN];
	const struct xvbd_ovr_key *key;
	char *path;
	char value[24];
};

struct xvbd_ovr_plan {
	struct xvbd_ovr_write *w;
	size_t n;
};

/* Append set's writes; the directories come from the toolstack record. */
int xvbd_override_plan(struct xvbd_ovr_plan *plan,
		       const struct xvbd_ovr_set *set,
		       const char *backend_path, const char *frontend_path);
void xvbd_override_plan_free(struct xvbd_ovr_plan *plan);
/* An array "writes" of {vdev, path, value}. */
void xvbd_override_plan_render(struct xvbd_out *o,
			       const struct xvbd_ovr_plan *plan);
/* "dir/key", malloc'd. */
char *xvbd_override_join(const char *dir, const char *key);

/* One device to apply to: directories from the toolstack's record. */
struct xvbd_ovr_target {
	struct xvbd_ovr_set *set;
	const char *backend_path;
	const char *frontend_path;
};

/*
 * Wait (xenstore watch) until the backend is InitWait, for timeout_ms.
 * -ETIMEDOUT, or -EPIPE when it went Closing/Closed instead.
 */
int xvbd_override_wait_initwait(struct xvbd_xs *xs, const char *backend_path,
				int timeout_ms, char *why, size_t len);

/*
 * All targets' writes in one transaction.  Inside it, for a set with a
 * negotiated key: the backend must be InitWait and the frontend not past
 * Initialising, and each value is validated again against what blkback
 * wrote at probe (records it as ->before).  Nothing is written unless
 * every check passes: -EBUSY wrong state, -ERANGE above the offer.
 */
int xvbd_override_apply_txn(struct xvbd_xs *xs,
			    struct xvbd_ovr_target *targets, size_t n,
			    char *why, size_t len);

/*
 * Wait until both sides are Connected.  -EPIPE when either side went
 * Closing/Closed (why holds the backend's error node if any),
 * -ETIMEDOUT otherwise.
 */
int xvbd_override_wait_connected(struct xvbd_xs *xs,
				 const struct xvbd_ovr_target *target,
				 const char *error_path, int timeout_ms,
				 char *why, size_t len);

enum xvbd_ovr_status {
	XVBD_OVR_APPLIED,
	XVBD_OVR_NOT_APPLIED,
	XVBD_OVR_WRITTEN,	/* toolstack key, effective at next connect */
};

struct xvbd_ovr_result {
	const struct xvbd_ovr_key *key;
	uint64_t value;
	struct xvbd_opt before;		/* the backend's own value */
	struct xvbd_opt now;		/* the key's value now */
	struct xvbd_opt choice;		/* the frontend's choice, if visible */
	enum xvbd_ovr_status status;
	char why[200];
};

/*
 * Compare set (with ->before from apply) with snapshots taken after the
 * device connected.  res[] has set->n entries.  Returns how many were
 * not applied.
 */
size_t xvbd_override_verify(const struct xvbd_ovr_set *set,
			    const struct xvbd_kvmap *backend,
			    const struct xvbd_kvmap *frontend,
			    struct xvbd_ovr_result *res);
const char *xvbd_override_status_name(enum xvbd_ovr_status status);
/* Rows {vdev, key, xs_key, value, before, now, chosen, result, why}. */
void xvbd_override_result_render(struct xvbd_out *o, const char *vdev,
				 const struct xvbd_ovr_result *r);

/*
 * Guest memory one device's rings pin with persistent grants: for each
 * ring, requests (32 << order, __CONST_RING_SIZE of a 112-byte blkif
 * entry) x (segments + indirect pages) pages of 4 KiB.  segments 0..11
 * means no indirect descriptors: 11 segments per request.
 */
struct xvbd_ovr_cost {
	uint64_t rings, requests_per_ring, pages_per_request, bytes;
};
void xvbd_override_ring_cost(unsigned order, uint64_t rings,
			     uint64_t segments, struct xvbd_ovr_cost *cost);

/* A guest's own blkfront limits, from its kernel command line. */
struct xvbd_guest_limits {
	struct xvbd_opt v[XVBD_OVR_NKEYS];	/* only keys with a param */
};
void xvbd_override_guest_limits(const char *cmdline,
				struct xvbd_guest_limits *gl);
/* What the guest will use: its limit if set, else blkfront's default. */
uint64_t xvbd_override_guest_limit(const struct xvbd_guest_limits *gl,
				   enum xvbd_ovr_id id);

/*
 * The command line with xen_blkfront.* raised so the guest allows every
 * negotiated override of sets[]: for each key whose largest override is
 * above the guest's limit (its xen_blkfront.* value, else blkfront's
 * default), that value replaces the guest's; limits already high enough
 * are left alone (lowering is the backend offer's job).  *out malloc'd.
 * -EINVAL: the result would not be a plain string (quote, backslash).
 */
int xvbd_override_guest_cmdline(const char *cmdline,
				const struct xvbd_ovr_set *sets, size_t nsets,
				char **out, char *why, size_t len);

/*
 * xl config text with `key = "value"` (the last assignment of key
 * replaced in place, or a line appended), every other byte unchanged.
 * -EINVAL when the existing assignment is not one plain string literal.
 */
int xvbd_cfgtext_set_string(const char *text, const char *key,
			    const char *value, char **out, char *why,
			    size_t len);

#endif /* XVBD_OVERRIDE_H */
