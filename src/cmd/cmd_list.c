/*
 * cmd_list.c - xvbd list [Domain...]: one row per VBD.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xvbd/base/vocab.h"
#include "xvbd/xen/blkif.h"
#include "xvbd/cmd/cmd.h"
#include "xvbd/vbd/vbd.h"

static const struct xvbd_out_label list_labels[] = {
	{ "domain", "DOMAIN" },
	{ "domid", "ID" },
	{ "vdev", "VDEV" },
	{ "devid", "DEVID" },
	{ "backend_type", "TYPE" },
	{ "target", "TARGET" },
	{ "size_bytes", "SIZE" },
	{ "mode", "MODE" },
	{ "dom0_cache", "CACHE" },
	{ "backend_state", "BE-STATE" },
	{ "frontend_state", "FE-STATE" },
	{ "indirect_segments_offered", "INDIRECT" },
	{ "persistent", "PERSIST" },
	{ NULL, NULL },
};

struct dom {
	uint32_t domid;
	char *name;
};

static void render_vbd(struct xvbd_out *o, const struct dom *d,
		       const struct xvbd_vbd_view *v)
{
	const struct xvbd_blkif_eval *ev = &v->eval;
	const char *mode = xvbd_kvmap_get(&v->backend, "mode");
	const char *target = xvbd_kvmap_get(&v->backend, "params");

	if (!target)
		target = v->disk->target;
	if (!mode)
		mode = v->disk->readwrite ? "w" : "r";

	xvbd_out_obj_begin(o, NULL);
	xvbd_out_str(o, "domain", d->name);
	xvbd_out_uint(o, "domid", d->domid);
	xvbd_out_str(o, "vdev", v->disk->vdev);
	xvbd_out_uint(o, "devid", v->disk->devid);
	xvbd_out_str(o, "backend_type", xvbd_be_kind_name(v->kind));
	xvbd_out_str(o, "target", target);
	xvbd_out_size_opt(o, XVBD_QN(SIZE_BYTES), ev->size_bytes.known,
			  ev->size_bytes.v);
	xvbd_out_str(o, "mode", mode);
	xvbd_out_str(o, "dom0_cache", xvbd_cache_name(v->dom0_cache));
	xvbd_out_str(o, "backend_state", ev->backend_state.known ?
		     xvbd_state_name(ev->backend_state.v) : NULL);
	xvbd_out_str(o, "frontend_state", ev->frontend_state.known ?
		     xvbd_state_name(ev->frontend_state.v) : NULL);
	xvbd_out_uint_opt(o, XVBD_QN(RING_PAGES), ev->ring_pages.known,
			  ev->ring_pages.v);
	xvbd_out_uint_opt(o, XVBD_QN(QUEUES), ev->queues.known,
			  ev->queues.v);
	xvbd_out_uint_opt(o, XVBD_QN(INDIRECT_SEGMENTS_OFFERED),
			  ev->indirect_offered.known, ev->indirect_offered.v);
	xvbd_out_bool_opt(o, "persistent", ev->persistent.known,
			  ev->persistent.v);
	xvbd_out_obj_end(o);
}

/* Resolve the domains first, so a bad argument prints no half table. */
static int resolve(struct xvbd_ctx *ctx, int argc, char **argv,
		   struct dom **doms_out, size_t *n_out)
{
	struct dom *doms = NULL;
	uint32_t *ids = NULL;
	size_t n = 0, i;
	char idbuf[16];
	int rc = XVBD_EXIT_OK, err;

	if (argc == 0) {
		err = xvbd_tstack_domains(ctx->ts, &ids, &n);
		if (err) {
			xvbd_err("list", "listing domains", "%s",
				 strerror(-err));
			return XVBD_EXIT_FAIL;
		}
	} else {
		n = (size_t)argc;
	}
	doms = calloc(n ? n : 1, sizeof(*doms));
	if (!doms) {
		rc = XVBD_EXIT_FAIL;
		goto out;
	}
	for (i = 0; i < n; i++) {
		const char *spec;

		if (argc) {
			spec = argv[i];
		} else {
			snprintf(idbuf, sizeof(idbuf), "%u", ids[i]);
			spec = idbuf;
		}
		err = xvbd_tstack_domain_lookup(ctx->ts, spec,
						&doms[i].domid, &doms[i].name);
		if (!err)
			continue;
		if (!argc && err == -ENOENT)
			continue;	/* it went away while we looked */
		rc = xvbd_tstack_lookup_exit(err);
		xvbd_err("list", "domain", "\"%s\": %s", spec,
			 xvbd_tstack_lookup_why(err));
		goto out;
	}
out:
	free(ids);
	if (rc) {
		for (i = 0; doms && i < n; i++)
			free(doms[i].name);
		free(doms);
		return rc;
	}
	*doms_out = doms;
	*n_out = n;
	return rc;
}

int cmd_list(struct xvbd_ctx *ctx, int argc, char **argv)
{
	struct xvbd_out *o = ctx->out;
	struct dom *doms = NULL;
	size_t ndoms = 0, i, j;
	int rc, err;

	for (i = 0; i < (size_t)argc; i++) {
		rc = xvbd_cmd_domain_check(ctx, argv[i]);
		if (rc)
			return rc;
	}
	rc = xvbd_cmd_connect(ctx);	/* CMD_LATE_CONNECT: after the names */
	if (!rc)
		rc = resolve(ctx, argc, argv, &doms, &ndoms);
	if (rc)
		return rc;
	xvbd_out_labels(o, list_labels);
	xvbd_out_arr_begin(o, NULL);
	for (i = 0; i < ndoms && !rc; i++) {
		struct xvbd_disk *disks = NULL;
		size_t ndisks = 0;

		if (!doms[i].name)
			continue;	/* vanished during resolve */
		err = xvbd_tstack_disks(ctx->ts, doms[i].domid, &disks,
					&ndisks);
		if (err) {
			xvbd_err("list", "disks", "domain %s: %s",
				 doms[i].name, strerror(-err));
			rc = XVBD_EXIT_FAIL;
			break;
		}
		for (j = 0; j < ndisks; j++) {
			struct xvbd_vbd_view view;

			err = xvbd_vbd_load(ctx->xs, doms[i].domid, &disks[j],
					    &view);
			if (err) {
				xvbd_err("list", "reading xenstore", "%s",
					 strerror(-err));
				rc = XVBD_EXIT_FAIL;
				break;
			}
			render_vbd(o, &doms[i], &view);
			xvbd_vbd_view_free(&view);
		}
		xvbd_tstack_disks_free(disks, ndisks);
	}
	xvbd_out_arr_end(o);
	for (i = 0; i < ndoms; i++)
		free(doms[i].name);
	free(doms);
	return rc;
}
