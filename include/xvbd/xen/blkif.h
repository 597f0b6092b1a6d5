/*
 * blkif.h - the blkif negotiation model (xen/io/blkif.h + Linux 6.1).
 *
 * Pure functions only: no xenstore, no libxl.  Callers feed directory
 * snapshots (struct xvbd_kvmap) of the backend and frontend nodes.
 *
 *  - xvbd_blkif_keys[]: one row per xenstore key, who writes it and when,
 *    its type and valid range.  Adding a key is adding a row.
 *  - XenbusState names.
 *  - Virtual device names (docs/man/xen-vbd-interface.7) <-> devid.
 *  - xvbd_blkif_eval(): effective values and consistency warnings.
 *
 * Frontend values are written by the guest: everything here parses
 * them strictly and bounds them before use.
 */
#ifndef XVBD_BLKIF_H
#define XVBD_BLKIF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "xvbd/base/util.h"

/* Which xenstore directory a key lives in. */
enum xvbd_dir {
	XVBD_DIR_BACKEND,	/* the backend directory (dom0-owned) */
	XVBD_DIR_FRONTEND,	/* the frontend directory (guest-writable) */
};

/* Who writes it. */
enum xvbd_side {
	XVBD_SIDE_BACKEND,
	XVBD_SIDE_FRONTEND,
	XVBD_SIDE_TOOLSTACK,	/* libxl, or the hotplug script it runs */
};

enum xvbd_ktype {
	XVBD_KT_UINT,
	XVBD_KT_BOOL,
	XVBD_KT_STRING,
	XVBD_KT_STATE,		/* enum xenbus_state, 0..8 */
	XVBD_KT_RING_REF,	/* grant reference (uint32) */
};

struct xvbd_blkif_key {
	const char *name;	/* "%u" matches a canonical decimal */
	enum xvbd_dir dir;
	enum xvbd_side side;
	const char *when;	/* "probe", "connect", "create", ... */
	enum xvbd_ktype type;
	uint64_t min, max;	/* for UINT/BOOL/STATE/RING_REF */
	const char *default_value;	/* NULL: none / absent means absent */
	const char *meaning;
};

extern const struct xvbd_blkif_key xvbd_blkif_keys[];
extern const size_t xvbd_blkif_nkeys;

const struct xvbd_blkif_key *xvbd_blkif_key_find(enum xvbd_dir dir,
						 const char *name);
/* True if name matches pattern (the only wildcard is "%u"). */
bool xvbd_blkif_key_match(const char *pattern, const char *name);
/* 0 if value is valid for the row, else -EINVAL / -ERANGE. */
int xvbd_blkif_key_check(const struct xvbd_blkif_key *row, const char *value);
const char *xvbd_side_name(enum xvbd_side side);
const char *xvbd_dir_name(enum xvbd_dir dir);

/* XenbusState names: 0 Unknown .. 8 Reconfigured; NULL out of range. */
#define XVBD_STATE_MAX 8
enum {
	XVBD_STATE_UNKNOWN,
	XVBD_STATE_INITIALISING,
	XVBD_STATE_INITWAIT,
	XVBD_STATE_INITIALISED,
	XVBD_STATE_CONNECTED,
	XVBD_STATE_CLOSING,
	XVBD_STATE_CLOSED,
	XVBD_STATE_RECONFIGURING,
	XVBD_STATE_RECONFIGURED,
};
const char *xvbd_state_name(uint64_t state);

/*
 * Virtual device name -> devid: xvd[a-z]+[N], hd[a-t][N], sd[a-z]+[N],
 * d<D>[p<P>], or a plain decimal devid.  -EINVAL malformed, -ERANGE
 * disk/partition beyond what the encoding can carry.
 */
int xvbd_vdev_parse(const char *vdev, uint32_t *devid);
/* devid -> canonical name ("xvda", "xvdq", "hdc2"); -EINVAL if unknown. */
int xvbd_vdev_name(uint32_t devid, char *buf, size_t len);

/* Backend flavour, as `list` shows it. */
enum xvbd_be_kind {
	XVBD_BE_UNKNOWN,
	XVBD_BE_PHY,
	XVBD_BE_FILE_LOOP,	/* type=phy, params a file / node /dev/loopN */
	XVBD_BE_QDISK,
	XVBD_BE_TAP,
};
enum xvbd_be_kind xvbd_be_kind(const char *type, const char *node,
			       bool params_is_regular_file);
const char *xvbd_be_kind_name(enum xvbd_be_kind kind);

/* An optional unsigned value: known == false renders as null / "-". */
struct xvbd_opt {
	bool known;
	uint64_t v;
};

/* One negotiated pair: the backend's offer beside the frontend's choice. */
struct xvbd_nego {
	const char *key;
	struct xvbd_opt offer, choice, effective;
};

enum {
	XVBD_NEGO_RING_ORDER,
	XVBD_NEGO_QUEUES,
	XVBD_NEGO_PERSISTENT,
	XVBD_NEGO_INDIRECT,
	XVBD_NEGO_DISCARD,
	XVBD_NEGO_COUNT,
};

#define XVBD_WARN_MAX	24
#define XVBD_WARN_LEN	200

/* Extra facts not in xenstore; zero-init means "not known". */
struct xvbd_blkif_input {
	const struct xvbd_kvmap *backend;
	const struct xvbd_kvmap *frontend;
	const char *error_text;		/* backend driver error node, or NULL */
	struct xvbd_opt fe_indirect_limit; /* guest max_indirect_segments */
};

struct xvbd_blkif_eval {
	struct xvbd_opt backend_state, frontend_state;
	struct xvbd_opt ring_pages;	/* 2^order, legacy pages, or 1 */
	struct xvbd_opt queues;
	struct xvbd_opt indirect_offered;
	struct xvbd_opt persistent;	/* in use: both sides 1 */
	struct xvbd_opt size_bytes;
	struct xvbd_nego nego[XVBD_NEGO_COUNT];
	char warnings[XVBD_WARN_MAX][XVBD_WARN_LEN];
	size_t nwarnings;
};

void xvbd_blkif_evaluate(const struct xvbd_blkif_input *in,
			 struct xvbd_blkif_eval *out);
/* Append a warning found outside the model (e.g. by the caller). */
void xvbd_blkif_warn(struct xvbd_blkif_eval *ev, const char *fmt, ...)
	XVBD_PRINTF(2, 3);

#endif /* XVBD_BLKIF_H */
