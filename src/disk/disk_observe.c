/*
 * disk_observe.c - what is at a vdev now, in the description's form
 * (xvbd/disk/disk.h): libxl's record, the backend's and frontend's
 * xenstore keys, the loop device.  Never a stat of the target: on a share
 * whose server died it would hang.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xvbd/vbd/vbd.h"
#include "disk_impl.h"

/* The offers' keys as xenstore has them now, as an offer set. */
static void seen_offers(const struct xvbd_vbd_view *view,
			struct xvbd_disk_desc *d)
{
	static const enum xvbd_ovr_id ids[] = {
		XVBD_OVR_RING_ORDER, XVBD_OVR_QUEUES, XVBD_OVR_INDIRECT,
		XVBD_OVR_DISCARD, XVBD_OVR_TRUSTED,
	};
	char why[320];
	uint64_t v;
	size_t i;

	if (xvbd_override_set_init(&d->offers, d->vdev, why, sizeof(why)))
		return;
	for (i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		const struct xvbd_ovr_key *key = &xvbd_ovr_keys[ids[i]];
		const char *value = xvbd_kvmap_get(key->dir == XVBD_DIR_BACKEND ?
						   &view->backend :
						   &view->frontend,
						   key->xs_key);

		if (!value || xvbd_parse_uint(value, UINT64_MAX, &v))
			continue;
		d->offers.items[d->offers.n].key = key;
		d->offers.items[d->offers.n++].value = v;
		snprintf(d->offer_kv[key->id], sizeof(d->offer_kv[0]),
			 "%s=%" PRIu64, key->name, v);
	}
}

static int observe_one(const struct xvbd_disk_env *env,
		       const struct xvbd_disk_dom *dom,
		       const struct xvbd_disk *disk,
		       struct xvbd_disk_seen *seen)
{
	struct xvbd_disk_desc *d = &seen->desc;
	const struct xvbd_disk_handle *h = &seen->handle;
	struct xvbd_vbd_view view;
	int err;

	memset(seen, 0, sizeof(*seen));
	disk_handle_of(env, dom, disk, &seen->handle);
	xvbd_disk_desc_init(d, XVBD_DISK_WORDS_KEYS, XVBD_DISK_SOURCES_ALL);
	d->kind = h->kind;
	snprintf(d->arg, sizeof(d->arg), "%s", h->target);
	snprintf(d->target, sizeof(d->target), "%s", h->target);
	snprintf(d->vdev, sizeof(d->vdev), "%s", h->vdev);
	d->auto_vdev = false;
	d->devid = h->devid;
	d->readwrite = h->readwrite;
	d->have_size = h->size_known;
	d->size_bytes = h->size_bytes;
	err = xvbd_vbd_load(env->xs, dom->domid, disk, &view);
	if (err)
		return err;
	/* read back from the loop device physical-device names (sysfs) */
	d->cache = view.dom0_cache;
	d->have_cache = true;
	if (view.eval.backend_state.known)
		seen->bstate = view.eval.backend_state.v;
	if (view.eval.frontend_state.known)
		seen->fstate = view.eval.frontend_state.v;
	seen_offers(&view, d);
	xvbd_vbd_view_free(&view);
	return 0;
}

int xvbd_disk_observe(const struct xvbd_disk_env *env,
		      const struct xvbd_disk_dom *dom, uint32_t devid,
		      struct xvbd_disk_seen *seen)
{
	struct xvbd_disk *disks = NULL, *disk = NULL;
	size_t n = 0;
	int err;

	err = xvbd_tstack_disk_find(env->ts, dom->domid, devid, &disks, &n,
				    &disk);
	if (!err)
		err = observe_one(env, dom, disk, seen);
	xvbd_tstack_disks_free(disks, n);
	return err;
}

int xvbd_disk_observe_all(const struct xvbd_disk_env *env,
			  const struct xvbd_disk_dom *dom,
			  struct xvbd_disk_seen **seen, size_t *n)
{
	struct xvbd_disk *disks = NULL;
	size_t nd = 0, i;
	int err;

	*seen = NULL;
	*n = 0;
	err = xvbd_tstack_disks(env->ts, dom->domid, &disks, &nd);
	if (err)
		return err;
	*seen = calloc(nd ? nd : 1, sizeof(**seen));
	if (!*seen)
		err = -ENOMEM;
	for (i = 0; !err && i < nd; i++)
		err = observe_one(env, dom, &disks[i], &(*seen)[i]);
	xvbd_tstack_disks_free(disks, nd);
	if (err) {
		free(*seen);
		*seen = NULL;
		return err;
	}
	*n = nd;
	return 0;
}
