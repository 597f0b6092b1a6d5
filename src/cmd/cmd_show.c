/*
 * cmd_show.c - xvbd show <Domain> <VDev>: every key on both sides, what
 * it means, the negotiated pairs and the model's warnings.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xvbd/xen/blkif.h"
#include "xvbd/cmd/cmd.h"
#include "xvbd/stats/stats.h"
#include "xvbd/vbd/vbd.h"
#include "xvbd/base/vocab.h"

/* Text note for a key: "<writer>/<when>: <meaning>", state names first. */
static void key_note(struct xvbd_out *o, enum xvbd_dir dir, const char *key,
		     const char *value)
{
	const struct xvbd_blkif_key *row = xvbd_blkif_key_find(dir, key);
	char note[192];
	uint64_t state;

	if (!row) {
		xvbd_out_note(o, "(not in the blkif table)");
		return;
	}
	if (row->type == XVBD_KT_STATE &&
	    !xvbd_parse_uint(value, XVBD_STATE_MAX, &state))
		snprintf(note, sizeof(note), "%s; %s/%s: %s",
			 xvbd_state_name(state), xvbd_side_name(row->side),
			 row->when, row->meaning);
	else
		snprintf(note, sizeof(note), "%s/%s: %s",
			 xvbd_side_name(row->side), row->when, row->meaning);
	xvbd_out_note(o, note);
}

static void render_dir(struct xvbd_out *o, const char *name,
		       enum xvbd_dir dir, const struct xvbd_kvmap *map)
{
	size_t i;

	xvbd_out_obj_begin(o, name);
	for (i = 0; i < map->len; i++) {
		xvbd_out_str(o, map->items[i].key, map->items[i].value);
		key_note(o, dir, map->items[i].key, map->items[i].value);
	}
	xvbd_out_obj_end(o);
}

/* What dom0_cache means for a measurement (loop/dio of physical-device). */
static const char *const cache_notes[] = {
	[XVBD_CACHE_HOST] = "buffered loop: dom0's page cache can serve the "
		"guest's reads",
	[XVBD_CACHE_NONE] = "loop with direct I/O: every request reaches "
		"the image file",
	[XVBD_CACHE_NA] = "no loop device behind physical-device",
};

/*
 * The largest request the backend's offer allows: 11 segments of 4 KiB
 * (44 KiB) without indirect descriptors, the offered count x 4 KiB with
 * them; blkfront's own limit may be lower (not published).
 */
static void render_ceiling(struct xvbd_out *o, const struct xvbd_nego *ind)
{
	uint64_t offer = ind->effective.known ? ind->effective.v :
			 ind->offer.v;
	uint32_t segs = xvbd_stats_ceiling_segments(
		offer > UINT32_MAX ? UINT32_MAX : (uint32_t)offer);
	bool known = ind->effective.known || ind->offer.known;
	char note[160];

	xvbd_out_uint_opt(o, "request_ceiling_segments", known, segs);
	xvbd_out_uint_opt(o, "request_ceiling_kib", known,
			  (uint64_t)segs * XVBD_BLKIF_SEGMENT_KIB);
	if (!known)
		return;
	if (segs == XVBD_BLKIF_DIRECT_SEGMENTS)
		snprintf(note, sizeof(note), "no indirect descriptors: %u "
			 "segments of 4 KiB per request",
			 XVBD_BLKIF_DIRECT_SEGMENTS);
	else
		snprintf(note, sizeof(note), "indirect descriptors: the "
			 "backend's offer; blkfront's max_indirect_segments "
			 "(32 by default) may be lower");
	xvbd_out_note(o, note);
}

static void render(struct xvbd_out *o, uint32_t domid, const char *domain,
		   const struct xvbd_vbd_view *v)
{
	const struct xvbd_blkif_eval *ev = &v->eval;
	size_t i;

	xvbd_out_obj_begin(o, NULL);
	xvbd_out_uint(o, "domid", domid);
	xvbd_out_str(o, "domain", domain);
	xvbd_out_str(o, "vdev", v->disk->vdev);
	xvbd_out_uint(o, "devid", v->disk->devid);
	xvbd_out_str(o, "backend_path", v->disk->backend_path);
	xvbd_out_str(o, "frontend_path", v->frontend_path);
	xvbd_out_str(o, "backend_type", xvbd_be_kind_name(v->kind));
	xvbd_out_str(o, "dom0_cache", xvbd_cache_name(v->dom0_cache));
	xvbd_out_note(o, cache_notes[v->dom0_cache]);
	xvbd_out_str(o, "backend_state", ev->backend_state.known ?
		     xvbd_state_name(ev->backend_state.v) : NULL);
	xvbd_out_str(o, "frontend_state", ev->frontend_state.known ?
		     xvbd_state_name(ev->frontend_state.v) : NULL);
	xvbd_out_size_opt(o, XVBD_QN(SIZE_BYTES), ev->size_bytes.known,
			  ev->size_bytes.v);
	render_dir(o, "backend", XVBD_DIR_BACKEND, &v->backend);
	render_dir(o, "frontend", XVBD_DIR_FRONTEND, &v->frontend);

	xvbd_out_arr_begin(o, "negotiated");
	for (i = 0; i < XVBD_NEGO_COUNT; i++) {
		const struct xvbd_nego *n = &ev->nego[i];

		xvbd_out_obj_begin(o, NULL);
		xvbd_out_str(o, "key", n->key);
		xvbd_out_uint_opt(o, "offer", n->offer.known, n->offer.v);
		xvbd_out_uint_opt(o, "choice", n->choice.known, n->choice.v);
		xvbd_out_uint_opt(o, "effective", n->effective.known,
				  n->effective.v);
		xvbd_out_obj_end(o);
	}
	xvbd_out_arr_end(o);
	render_ceiling(o, &ev->nego[XVBD_NEGO_INDIRECT]);

	xvbd_out_arr_begin(o, "warnings");
	for (i = 0; i < ev->nwarnings; i++)
		xvbd_out_str(o, NULL, ev->warnings[i]);
	xvbd_out_arr_end(o);
	xvbd_out_obj_end(o);
}

int cmd_show(struct xvbd_ctx *ctx, int argc, char **argv)
{
	const char *dom_spec = argv[0], *vdev = argv[1];
	struct xvbd_disk *disks = NULL, *disk = NULL;
	struct xvbd_vbd_view view;
	bool have_view = false;
	size_t ndisks = 0;
	uint32_t domid, devid;
	char *domain = NULL;
	int rc = XVBD_EXIT_OK, err;

	(void)argc;	/* exactly 2, checked centrally */
	if (xvbd_vdev_parse(vdev, &devid)) {
		xvbd_err("show", "vdev", "\"%s\": not a virtual device name",
			 vdev);
		if (!ctx->opts->quiet)
			xvbd_hint("use xvdX[N], hdX[N], sdX[N], dNpM or a "
				  "numeric devid (see xen-vbd-interface(7))");
		return XVBD_EXIT_USAGE;
	}
	rc = xvbd_cmd_domain_check(ctx, dom_spec);
	if (!rc)
		rc = xvbd_cmd_connect(ctx);	/* CMD_LATE_CONNECT: after both */
	if (rc)
		return rc;
	rc = xvbd_cmd_domain_lookup(ctx, dom_spec, &domid, &domain);
	if (rc)
		return rc;
	err = xvbd_tstack_disk_find(ctx->ts, domid, devid, &disks, &ndisks,
				    &disk);
	if (err) {
		rc = xvbd_cmd_disk_error(ctx, err, vdev, domain);
		goto out;
	}
	err = xvbd_vbd_load(ctx->xs, domid, disk, &view);
	if (err) {
		xvbd_err("show", "reading xenstore", "%s", strerror(-err));
		rc = XVBD_EXIT_FAIL;
		goto out;
	}
	have_view = true;
	render(ctx->out, domid, domain, &view);
out:
	if (have_view)
		xvbd_vbd_view_free(&view);
	xvbd_tstack_disks_free(disks, ndisks);
	free(domain);
	return rc;
}
