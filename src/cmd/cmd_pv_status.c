/*
 * cmd_pv_status.c - xvbd pv <Domain|CONFIG_FILE> status: what a config
 * file asks for, or which path each VBD of a running guest uses, with
 * the evidence (xenbus states from xenstore, the guest's uptime, libxl's
 * stored configuration).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xvbd/xen/blkif.h"
#include "xvbd/cmd/cmd_pv.h"
#include "xvbd/xen/xs.h"

static const struct xvbd_out_label status_labels[] = {
	{ "xen_platform_pci", "xen_platform_pci" },
	{ "xen_emul_unplug_never", "xen_emul_unplug=never" },
	{ "backend_state", "BACKEND" },
	{ "frontend_state", "FRONTEND" },
	{ NULL, NULL },
};

/* The platform device line: a bool for HVM, null for PV and PVH. */
static void render_platform(struct xvbd_out *o, const struct xvbd_pv_facts *f,
			    bool known)
{
	if (f->type != XVBD_GUEST_HVM || !known) {
		xvbd_out_null(o, "xen_platform_pci");
		xvbd_out_note(o, f->type != XVBD_GUEST_HVM ?
			      "not used: PV and PVH guests have no platform "
			      "device and no emulated disks" :
			      "libxl has no stored configuration");
		return;
	}
	xvbd_out_bool(o, "xen_platform_pci", f->platform_on);
	xvbd_out_note(o, f->platform_set ? "set in the configuration" :
		      "libxl's default");
}

static void render_unplug(struct xvbd_out *o, const struct xvbd_pv_facts *f)
{
	if (f->type != XVBD_GUEST_HVM || !f->kernel_direct) {
		xvbd_out_null(o, "xen_emul_unplug_never");
		xvbd_out_note(o, f->type != XVBD_GUEST_HVM ? "HVM only" :
			      "no direct kernel boot: the guest's boot loader "
			      "holds its command line");
		return;
	}
	xvbd_out_bool(o, "xen_emul_unplug_never",
		      xvbd_pv_unplug_never(f->cmdline));
	xvbd_out_note(o, f->cmdline_key);
}

int pv_file_status(struct xvbd_ctx *ctx, const struct pv_opts *po)
{
	struct xvbd_out *o = ctx->out;
	struct pv_edit e = { 0 };
	const struct xvbd_pv_facts *f;
	const char *why;
	enum xvbd_pv_expect expect;
	size_t i;
	int rc = pv_load(po->target, &e);

	if (rc)
		return rc;
	f = &e.cfg.facts;
	expect = xvbd_pv_expect(f, &why);
	xvbd_out_labels(o, status_labels);
	xvbd_out_obj_begin(o, NULL);
	xvbd_out_str(o, "config", po->target);
	xvbd_out_str(o, "name", e.cfg.xl.name);
	xvbd_out_str(o, "type", xvbd_guest_type_name(f->type));
	render_platform(o, f, true);
	xvbd_out_bool(o, "kernel_direct", f->kernel_direct);
	render_unplug(o, f);
	xvbd_out_str(o, "disk_path", xvbd_pv_expect_name(expect));
	xvbd_out_note(o, why);
	xvbd_out_arr_begin(o, "disks");
	for (i = 0; i < e.cfg.xl.nvdevs; i++)
		xvbd_out_str(o, NULL, e.cfg.xl.vdevs[i]);
	xvbd_out_arr_end(o);
	xvbd_out_obj_end(o);
	pv_edit_free(&e);
	return XVBD_EXIT_OK;
}

/* One side's "state" key, raw (NULL if absent or unreadable). */
static char *read_state(struct xvbd_ctx *ctx, const char *dir)
{
	return dir ? xvbd_xs_read_dir_key(ctx->xs, dir, "state") : NULL;
}

/* libxl's backend record, used only if it is the shape it must be. */
static const char *checked_backend(uint32_t domid, const struct xvbd_disk *d)
{
	struct xvbd_xs_be_path be;

	if (!d->backend_path ||
	    xvbd_xs_parse_backend_path(d->backend_path, &be) ||
	    be.fe_domid != domid || be.devid != d->devid)
		return NULL;
	return d->backend_path;
}

static int render_vbd(struct xvbd_ctx *ctx, uint32_t domid,
		      const struct xvbd_disk *d,
		      const struct xvbd_pv_path_in *base)
{
	struct xvbd_out *o = ctx->out;
	struct xvbd_pv_path_in in = *base;
	struct xvbd_pv_verdict v;
	char *fe_dir = xvbd_xs_path_frontend_vbd(domid, d->devid);
	char *fe = NULL, *be = NULL;

	if (!fe_dir)
		return -ENOMEM;
	fe = read_state(ctx, fe_dir);
	be = read_state(ctx, checked_backend(domid, d));
	in.frontend_state = fe;
	in.backend_state = be;
	xvbd_pv_classify(&in, &v);
	xvbd_out_obj_begin(o, NULL);
	xvbd_out_str(o, "vdev", d->vdev);
	xvbd_out_uint(o, "devid", d->devid);
	xvbd_out_str(o, "backend_state", v.backend.known ?
		     xvbd_state_name(v.backend.v) : NULL);
	xvbd_out_str(o, "frontend_state", v.frontend.known ?
		     xvbd_state_name(v.frontend.v) : NULL);
	xvbd_out_str(o, "path", xvbd_pv_path_name(v.path));
	xvbd_out_str(o, "evidence", v.evidence);
	xvbd_out_obj_end(o);
	free(fe);
	free(be);
	free(fe_dir);
	return 0;
}

int pv_domain_status(struct xvbd_ctx *ctx, const struct pv_opts *po)
{
	struct xvbd_out *o = ctx->out;
	struct xvbd_pv_path_in in = { 0 };
	struct xvbd_pvdom dom = { 0 };
	struct xvbd_disk *disks = NULL;
	const struct xvbd_pv_facts *f = &dom.facts;
	size_t ndisks = 0, i;
	char *domain = NULL;
	uint32_t domid;
	int rc, err;

	rc = xvbd_cmd_connect(ctx);
	if (rc)
		return rc;
	rc = xvbd_cmd_domain_lookup(ctx, po->target, &domid, &domain);
	if (rc)
		return rc;
	err = xvbd_tstack_pvdom_read(ctx->ts, domid, &dom);
	if (!err)
		err = xvbd_tstack_disks(ctx->ts, domid, &disks, &ndisks);
	if (err) {
		xvbd_err("pv", "domain", "%s: %s", domain, err == -ENOENT ?
			 "no such domain (gone?)" : strerror(-err));
		rc = XVBD_EXIT_FAIL;
		goto out;
	}
	in.type = f->type;
	in.uptime_known = dom.uptime_known;
	in.uptime_s = dom.uptime_s;
	in.settle_s = po->settle_s;
	if (f->type == XVBD_GUEST_HVM && dom.stored && !f->platform_on)
		in.pv_blocked = "xen_platform_pci is off";
	else if (f->type == XVBD_GUEST_HVM && f->kernel_direct &&
		 xvbd_pv_unplug_never(f->cmdline))
		in.pv_blocked = "the kernel command line has "
				XVBD_PV_UNPLUG_NEVER;

	xvbd_out_labels(o, status_labels);
	xvbd_out_obj_begin(o, NULL);
	xvbd_out_uint(o, "domid", domid);
	xvbd_out_str(o, "domain", domain);
	xvbd_out_str(o, "type", xvbd_guest_type_name(f->type));
	render_platform(o, f, dom.stored);
	render_unplug(o, f);
	xvbd_out_uint_opt(o, "uptime_s", dom.uptime_known, dom.uptime_s);
	xvbd_out_uint(o, "settle_s", po->settle_s);
	xvbd_out_arr_begin(o, "vbds");
	for (i = 0; i < ndisks && !rc; i++)
		if (render_vbd(ctx, domid, &disks[i], &in)) {
			xvbd_err("pv", "vbds", "%s", strerror(ENOMEM));
			rc = XVBD_EXIT_FAIL;
		}
	xvbd_out_arr_end(o);
	xvbd_out_obj_end(o);
out:
	xvbd_tstack_disks_free(disks, ndisks);
	xvbd_tstack_pvdom_free(&dom);
	free(domain);
	return rc;
}
