/*
 * override_xs.c - the parts of override.h that touch the system: dom0's
 * module parameters as caps, waiting for xenbus states, and the one
 * transaction that writes a device's overrides.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xvbd/dom0/modparam.h"
#include "xvbd/vbd/override.h"
#include "xvbd/xen/xs.h"

/* Re-check both sides this often while watching one of them. */
#define WAIT_SLICE_MS	2000

void xvbd_override_caps_modparams(struct xvbd_ovr_caps *caps,
				  const struct xvbd_modparams *params)
{
	uint64_t v;

	if (!xvbd_modparam_get_uint(params, "max_ring_page_order", &v))
		xvbd_override_cap(caps, XVBD_OVR_RING_ORDER, v,
				  "xen_blkback.max_ring_page_order");
	/* 0 means one queue per dom0 CPU: the probe value will tell. */
	if (!xvbd_modparam_get_uint(params, "max_queues", &v) && v > 0)
		xvbd_override_cap(caps, XVBD_OVR_QUEUES, v,
				  "xen_blkback.max_queues");
}

static struct xvbd_opt read_state(struct xvbd_xs *xs, struct xvbd_xs_txn *txn,
				  const char *dir)
{
	struct xvbd_opt o = { 0 };
	char *path = xvbd_override_join(dir, "state"), *v;

	if (!path)
		return o;
	v = txn ? xvbd_xs_txn_read(txn, path) : xvbd_xs_read(xs, path);
	if (v && !xvbd_parse_uint(v, XVBD_STATE_MAX, &o.v))
		o.known = true;
	free(v);
	free(path);
	return o;
}

static const char *state_str(struct xvbd_opt s)
{
	return s.known ? xvbd_state_name(s.v) : "absent";
}

struct initwait_arg {
	const char *backend_path;
	struct xvbd_opt state;
};

static bool initwait_done(struct xvbd_xs *xs, void *arg)
{
	struct initwait_arg *a = arg;

	a->state = read_state(xs, NULL, a->backend_path);
	return a->state.known && a->state.v >= XVBD_STATE_INITWAIT;
}

int xvbd_override_wait_initwait(struct xvbd_xs *xs, const char *backend_path,
				int timeout_ms, char *why, size_t len)
{
	struct initwait_arg a = { .backend_path = backend_path };
	char *path = xvbd_override_join(backend_path, "state");
	int rc;

	if (!path)
		return -ENOMEM;
	rc = xvbd_xs_watch_wait(xs, path, timeout_ms, initwait_done, &a);
	free(path);
	if (rc == -ETIMEDOUT) {
		snprintf(why, len, "backend still %s after %d s (not "
			 "InitWait)", state_str(a.state), timeout_ms / 1000);
		return rc;
	}
	if (rc) {
		snprintf(why, len, "watching the backend: %s", strerror(-rc));
		return rc;
	}
	if (a.state.v >= XVBD_STATE_CLOSING) {
		snprintf(why, len, "backend went %s instead of InitWait",
			 state_str(a.state));
		return -EPIPE;
	}
	if (a.state.v != XVBD_STATE_INITWAIT) {
		snprintf(why, len, "backend is already %s: too late",
			 state_str(a.state));
		return -EBUSY;
	}
	return 0;
}

struct apply_arg {
	struct xvbd_ovr_target *targets;
	size_t n;
	char *why;
	size_t len;
};

/* Read the probe offers of the backend inside the transaction. */
static int read_offers(struct xvbd_xs_txn *txn, const char *dir,
		       struct xvbd_kvmap *map)
{
	static const enum xvbd_ovr_id ids[] = {
		XVBD_OVR_RING_ORDER, XVBD_OVR_QUEUES, XVBD_OVR_INDIRECT,
	};
	size_t i;
	int rc = 0;

	for (i = 0; i < sizeof(ids) / sizeof(ids[0]) && !rc; i++) {
		const char *key = xvbd_ovr_keys[ids[i]].xs_key;
		char *path = xvbd_override_join(dir, key), *v;

		if (!path)
			return -ENOMEM;
		v = xvbd_xs_txn_read(txn, path);
		free(path);
		if (v)
			rc = xvbd_kvmap_set(map, key, v);
		free(v);
	}
	return rc;
}

/* State rules and lowering-only, checked against the live values. */
static int check_target(struct xvbd_xs_txn *txn, struct xvbd_ovr_target *t,
			char *why, size_t len)
{
	struct xvbd_ovr_caps caps = { 0 };
	struct xvbd_kvmap offers = { 0 };
	struct xvbd_opt be, fe;
	int rc;

	if (!xvbd_override_has(t->set, XVBD_OVR_NEGOTIATED))
		return 0;
	be = read_state(NULL, txn, t->backend_path);
	fe = read_state(NULL, txn, t->frontend_path);
	if (!be.known || be.v != XVBD_STATE_INITWAIT) {
		snprintf(why, len, "%s: backend is %s, not InitWait: blkfront "
			 "reads negotiated keys when the backend reaches "
			 "InitWait", t->set->vdev, state_str(be));
		return -EBUSY;
	}
	if (fe.known && fe.v > XVBD_STATE_INITIALISING) {
		snprintf(why, len, "%s: frontend is already %s: it has read "
			 "the backend's offers", t->set->vdev, state_str(fe));
		return -EBUSY;
	}
	rc = read_offers(txn, t->backend_path, &offers);
	if (!rc) {
		xvbd_override_caps_backend(&caps, &offers);
		rc = xvbd_override_validate(t->set, &caps, why, len);
	}
	xvbd_kvmap_free(&offers);
	return rc;
}

static int apply_fn(struct xvbd_xs_txn *txn, void *argp)
{
	struct apply_arg *a = argp;
	size_t i, j;
	int rc;

	for (i = 0; i < a->n; i++) {
		rc = check_target(txn, &a->targets[i], a->why, a->len);
		if (rc)
			return rc;
	}
	for (i = 0; i < a->n; i++) {
		struct xvbd_ovr_target *t = &a->targets[i];

		for (j = 0; j < t->set->n; j++) {
			struct xvbd_ovr *o = &t->set->items[j];
			const char *dir = o->key->dir == XVBD_DIR_BACKEND ?
					  t->backend_path : t->frontend_path;
			char *path = xvbd_override_join(dir, o->key->xs_key);
			char value[24], *old;

			if (!path)
				return -ENOMEM;
			old = xvbd_xs_txn_read(txn, path);
			o->before.known = old &&
				!xvbd_parse_uint(old, UINT64_MAX, &o->before.v);
			free(old);
			snprintf(value, sizeof(value), "%" PRIu64, o->value);
			rc = xvbd_xs_txn_write(txn, path, value);
			if (rc)
				snprintf(a->why, a->len, "writing %s: %s",
					 path, strerror(-rc));
			free(path);
			if (rc)
				return rc;
		}
	}
	return 0;
}

int xvbd_override_apply_txn(struct xvbd_xs *xs,
			    struct xvbd_ovr_target *targets, size_t n,
			    char *why, size_t len)
{
	struct apply_arg a = { targets, n, why, len };
	int rc;

	why[0] = '\0';
	rc = xvbd_xs_txn_run(xs, apply_fn, &a);
	if (rc && !why[0])
		snprintf(why, len, "xenstore transaction: %s", strerror(-rc));
	return rc;
}

struct connected_arg {
	const struct xvbd_ovr_target *t;
	struct xvbd_opt be, fe;
};

static bool connected_done(struct xvbd_xs *xs, void *argp)
{
	struct connected_arg *a = argp;

	a->be = read_state(xs, NULL, a->t->backend_path);
	a->fe = read_state(xs, NULL, a->t->frontend_path);
	if (a->be.known && a->be.v >= XVBD_STATE_CLOSING)
		return true;
	if (a->fe.known && a->fe.v >= XVBD_STATE_CLOSING)
		return true;
	return a->be.known && a->fe.known &&
	       a->be.v == XVBD_STATE_CONNECTED &&
	       a->fe.v == XVBD_STATE_CONNECTED;
}

int xvbd_override_wait_connected(struct xvbd_xs *xs,
				 const struct xvbd_ovr_target *target,
				 const char *error_path, int timeout_ms,
				 char *why, size_t len)
{
	struct connected_arg a = { .t = target };
	int64_t deadline = xvbd_now_ms() + timeout_ms;
	char *path = xvbd_override_join(target->frontend_path, "state");
	char *err;
	size_t i;
	int rc;

	if (!path)
		return -ENOMEM;
	/*
	 * The frontend's state is the last to change on success; the
	 * backend's is re-read every slice in case only it failed.
	 */
	do {
		int64_t left = deadline - xvbd_now_ms();

		rc = xvbd_xs_watch_wait(xs, path, left < WAIT_SLICE_MS ?
					(int)(left > 0 ? left : 0) :
					WAIT_SLICE_MS, connected_done, &a);
	} while (rc == -ETIMEDOUT && xvbd_now_ms() < deadline);
	free(path);
	if (rc == -ETIMEDOUT) {
		snprintf(why, len, "not Connected after %d s (backend %s, "
			 "frontend %s)", timeout_ms / 1000, state_str(a.be),
			 state_str(a.fe));
		return rc;
	}
	if (rc) {
		snprintf(why, len, "watching the frontend: %s", strerror(-rc));
		return rc;
	}
	if (a.be.v == XVBD_STATE_CONNECTED && a.fe.v == XVBD_STATE_CONNECTED)
		return 0;
	err = error_path ? xvbd_xs_read(xs, error_path) : NULL;
	for (i = 0; err && err[i]; i++)
		if (err[i] < 0x20 || err[i] > 0x7e)
			err[i] = '?';	/* one line, printable */
	snprintf(why, len, "backend %s, frontend %s%s%.120s",
		 state_str(a.be), state_str(a.fe), err ? ": " : "",
		 err ? err : "");
	free(err);
	return -EPIPE;
}
