/*
 * cmd_attach.c - xvbd attach <Domain> [<DiskSpec>] [options]: add disks
 * to a running guest and wait until their frontends are Connected.
 *
 * parse_args (options -> the disks' keys, usage errors: 2), each disk
 * described by the disk layer's one parser (describe_disks), then
 * xvbd_disk_attach (xvbd/disk/disk.h: plan, prepare, add, offers, wait)
 * and the rows of its handles.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "xvbd/cmd/cmd.h"
#include "xvbd/cmd/cmd_opt.h"
#include "xvbd/dom0/image.h"
#include "xvbd/cmd/cmd_report.h"
#include "xvbd/disk/disk.h"
#include "xvbd/xen/blkif.h"
#include "xvbd/base/vocab.h"

#define CMD			"attach"
#define DEFAULT_TIMEOUT_S	120
#define MAX_ITEMS		64

struct attach_args {
	const char *domain;
	const char *specs[MAX_ITEMS];
	size_t nspecs;
	/* the shorthand's keys and the call's own (--cache, offers), in
	 * the disk layer's description; each spec gets a copy */
	struct xvbd_disk_desc disk;
	bool prealloc;
	bool wait;
	unsigned timeout_s;
	unsigned jobs;			/* adds in flight at once */
};

/* ---- 1. arguments ---- */

enum {
	OPT_FILE, OPT_PHY, OPT_SHARE, OPT_CREDENTIALS, OPT_SHARE_OPTS,
	OPT_SIZE, OPT_PREALLOC, OPT_CACHE, OPT_VDEV, OPT_ACCESS, OPT_SPEC,
	OPT_WAIT, OPT_NO_WAIT, OPT_TIMEOUT, OPT_JOBS, OPT_RING_ORDER,
	OPT_QUEUES, OPT_INDIRECT, OPT_DISCARD, OPT_TRUSTED,
};

const struct xvbd_cmdopt cmd_attach_opts[] = {
	[OPT_FILE] = XVBD_OPT_STR("file", 0, "PATH", 0, "a raw image file "
		"(created with --size when missing)"),
	[OPT_PHY] = XVBD_OPT_STR("phy", 0, "DEV", 0, "a block device or "
		"partition of dom0"),
	[OPT_SHARE] = XVBD_OPT_STR("share", 0, "URL", 0, "an image file on "
		"an NFS or SMB share (nfs://srv/export/f.img, smb://...)"),
	[OPT_CREDENTIALS] = XVBD_OPT_STR("credentials", 0, "FILE", 0,
		"SMB credentials file (mode 0600)"),
	[OPT_SHARE_OPTS] = XVBD_OPT_STR("share-opts", 0, "OPTS", 0,
		"more mount options for --share"),
	[OPT_SIZE] = XVBD_OPT_SZ("size", 0, XVBD_IMAGE_SIZE_MIN,
		XVBD_IMAGE_SIZE_MAX, "create or grow the image to this size"),
	[OPT_PREALLOC] = XVBD_OPT_F("prealloc", 0, "allocate the new "
		"image's blocks (fallocate) instead of a sparse file"),
	[OPT_CACHE] = XVBD_OPT_W("cache", 0, "host|none", "dom0's page cache "
		"for an image file: host (buffered) or none (direct I/O)"),
	[OPT_VDEV] = XVBD_OPT_STR("vdev", 0, "VDev|auto", 0, "the guest's "
		"device name (default: the first free xvd)"),
	[OPT_ACCESS] = XVBD_OPT_STR("access", 0, "rw|ro", 0,
		"read-write (default) or read-only"),
	[OPT_SPEC] = XVBD_OPT_STR("spec", 0, "DiskSpec", XVBD_OPT_REPEAT,
		"one more disk in xl's disk spec syntax"),
	[OPT_WAIT] = XVBD_OPT_F("wait", 0, "wait until the frontends are "
		"Connected (the default)"),
	[OPT_NO_WAIT] = XVBD_OPT_F("no-wait", 0, "return once the backends "
		"are set up"),
	[OPT_TIMEOUT] = XVBD_OPT_S("timeout", 0, 1, 86400, "how long to wait "
		"(default 120s)"),
	[OPT_JOBS] = XVBD_OPT_N("jobs", 0, "N", 1, MAX_ITEMS, "hotplug "
		"scripts at once (default: one per CPU)"),
	[OPT_RING_ORDER] = XVBD_OPT_STR("ring-order", 0, "N", 0, "offer "
		"rings of 2^N pages (blkif max-ring-page-order)"),
	[OPT_QUEUES] = XVBD_OPT_STR("queues", 0, "N", 0, "offer at most N "
		"queues (blkif multi-queue-max-queues)"),
	[OPT_INDIRECT] = XVBD_OPT_STR("indirect-segments", 0, "N", 0, "offer "
		"N indirect segments (blkif feature-max-indirect-segments)"),
	[OPT_DISCARD] = XVBD_OPT_B("discard", 0, "let the guest discard "
		"(blkif discard-enable)"),
	[OPT_TRUSTED] = XVBD_OPT_B("trusted", 0, "trust the guest with "
		"flushes on a shared device (blkif trusted)"),
	XVBD_OPT_END,
};

static int add_spec(struct attach_args *a, const struct xvbd_cmd *cmd,
		    const char *spec)
{
	if (a->nspecs == MAX_ITEMS)
		return xvbd_usage_error(cmd, "at most %d disks per call",
					MAX_ITEMS);
	a->specs[a->nspecs++] = spec;
	return 0;
}

/*
 * The disk layer's refusal: a key's value is a usage error of its
 * option (with the usage), anything about the disk names the disk as
 * the user wrote it.
 */
static int refused(const struct xvbd_ctx *ctx, const struct xvbd_report *rep,
		   int rc)
{
	if (!rep->has_what)
		return xvbd_usage_error(ctx->cmd, "%s", rep->why);
	if (!strncmp(rep->what, "--", 2))
		return xvbd_usage_error(ctx->cmd, "%s: %s", rep->what,
					rep->why);
	xvbd_err(CMD, rep->what, "%s", rep->why);
	if (rep->hint[0] && !ctx->opts->quiet)
		xvbd_hint("%s", rep->hint);
	return rc;
}

/* An option that is a key of the disk: its value through the parser. */
static int disk_key(const struct xvbd_ctx *ctx, struct attach_args *a,
		    const char *key, const char *value)
{
	struct xvbd_report rep;
	int rc;

	xvbd_report_init(&rep, NULL, NULL);
	rc = xvbd_disk_desc_set(&a->disk, key, value, &rep);
	return rc ? refused(ctx, &rep, rc) : 0;
}

static int parse_args(struct xvbd_ctx *ctx, int argc, char **argv,
		      struct attach_args *a)
{
	const struct xvbd_cmdline *cl = ctx->cl;
	const struct xvbd_cmd *cmd = ctx->cmd;
	const char *value;
	int i, rc;
	size_t k;

	memset(a, 0, sizeof(*a));
	xvbd_disk_desc_init(&a->disk, XVBD_DISK_WORDS_OPTIONS,
			    XVBD_DISK_SOURCES_ALL);
	a->wait = true;
	a->timeout_s = DEFAULT_TIMEOUT_S;
	/* Hotplug scripts are CPU-bound in dom0: one per CPU at a time. */
	a->jobs = sysconf(_SC_NPROCESSORS_ONLN) > 0 ?
		(unsigned)sysconf(_SC_NPROCESSORS_ONLN) : 1;
	for (k = 0; k < cl->ngiven; k++) {
		const struct xvbd_optval *v = &cl->given[k];

		value = v->arg;
		switch (v->id) {
		case OPT_VDEV:
		case OPT_ACCESS:
			/* auto and rw: what a disk gets without them (a
			 * spec beside them says its own) */
			if (!strcmp(value, v->id == OPT_VDEV ? "auto" : "rw") ||
			    (v->id == OPT_ACCESS && !strcmp(value, "w")))
				break;
			goto key;
		case OPT_DISCARD:
		case OPT_TRUSTED:
			/* the grammar read it: hand on its one spelling */
			value = v->u ? "on" : "off";
			goto key;
		case OPT_FILE:
		case OPT_PHY:
		case OPT_SHARE:
		case OPT_CREDENTIALS:
		case OPT_SHARE_OPTS:
		case OPT_SIZE:
		case OPT_CACHE:
		case OPT_RING_ORDER:
		case OPT_QUEUES:
		case OPT_INDIRECT:
key:
			rc = disk_key(ctx, a, cmd_attach_opts[v->id].name,
				      value);
			if (rc)
				return rc;
			break;
		case OPT_PREALLOC:
			/* a flag: given again, still on */
			rc = a->prealloc ? 0 : disk_key(ctx, a, "prealloc",
							 "on");
			if (rc)
				return rc;
			a->prealloc = true;
			break;
		case OPT_SPEC:
			rc = add_spec(a, cmd, value);
			if (rc)
				return rc;
			break;
		case OPT_WAIT:
			a->wait = true;
			break;
		case OPT_NO_WAIT:
			a->wait = false;
			break;
		case OPT_TIMEOUT:
			/* whole seconds: a fraction rounds up */
			a->timeout_s = (unsigned)((v->u + XVBD_NS_PER_S - 1) /
						  XVBD_NS_PER_S);
			break;
		case OPT_JOBS:
			a->jobs = (unsigned)v->u;
			break;
		}
	}
	i = 0;
	if (i >= argc)
		return xvbd_usage_error(cmd, "missing domain");
	a->domain = argv[i++];
	for (; i < argc; i++) {
		rc = add_spec(a, cmd, argv[i]);
		if (rc)
			return rc;
	}
	return 0;
}

/*
 * One description per disk: each spec with the call's keys (the
 * parser refuses a spec beside a shorthand's keys), or the shorthand.
 */
static int describe_disks(const struct xvbd_ctx *ctx, struct attach_args *a,
			  struct xvbd_disk_desc **descs, size_t *n)
{
	struct xvbd_report rep;
	size_t i;
	int rc = 0;

	*n = a->nspecs ? a->nspecs : 1;
	*descs = calloc(*n, sizeof(**descs));
	if (!*descs) {
		xvbd_err(CMD, NULL, "%s", strerror(ENOMEM));
		return XVBD_EXIT_FAIL;
	}
	xvbd_report_init(&rep, NULL, NULL);
	for (i = 0; i < *n && !rc; i++) {
		(*descs)[i] = a->disk;
		if (a->nspecs)
			rc = xvbd_disk_desc_set(&(*descs)[i], "spec",
						a->specs[i], &rep);
		if (!rc)
			rc = xvbd_disk_desc_check(&(*descs)[i], &rep);
	}
	return rc ? refused(ctx, &rep, rc) : 0;
}

/* ---- output ---- */

static const struct xvbd_out_label labels[] = {
	{ "domain", "DOMAIN" }, { "vdev", "VDEV" }, { "devid", "DEVID" },
	{ "kind", "KIND" }, { "target", "TARGET" }, { "access", "ACCESS" },
	{ "size_bytes", "SIZE" }, { "created", "CREATED" },
	{ "share", "SHARE" }, { "backend_state", "BACKEND" },
	{ "frontend_state", "FRONTEND" }, { "overrides", "OVERRIDES" },
	{ NULL, NULL },
};

static const struct xvbd_out_label dry_labels[] = {
	{ "domain", "DOMAIN" }, { "vdev", "VDEV" }, { "devid", "DEVID" },
	{ "kind", "KIND" },
	{ "target", "TARGET" }, { "access", "ACCESS" },
	{ "size_bytes", "SIZE" }, { "script", "SCRIPT" },
	{ "cache", "CACHE" },
	{ "overrides", "OVERRIDES" }, { "action", "WOULD" },
	{ NULL, NULL },
};

/* The columns a disk's row starts with, planned (-N) or added. */
static void render_disk(struct xvbd_out *o, const struct xvbd_disk_handle *h)
{
	xvbd_out_str(o, "domain", h->domain);
	xvbd_out_str(o, "vdev", h->vdev);
	xvbd_out_uint(o, "devid", h->devid);
	xvbd_out_str(o, "kind", xvbd_disk_kind_name(h->kind));
	xvbd_out_str(o, "target", h->target[0] ? h->target : NULL);
	xvbd_out_str(o, "access", h->readwrite ? "rw" : "ro");
	xvbd_out_size_opt(o, XVBD_QN(SIZE_BYTES), h->size_known, h->size_bytes);
}

/* -N: what would be done, nothing done. */
static void render_dry(struct xvbd_out *o, const struct xvbd_disk_handle *hs,
		       size_t n)
{
	size_t i;

	xvbd_out_labels(o, dry_labels);
	xvbd_out_arr_begin(o, NULL);
	for (i = 0; i < n; i++) {
		xvbd_out_obj_begin(o, NULL);
		render_disk(o, &hs[i]);
		xvbd_out_str(o, "script", hs[i].script[0] ? hs[i].script :
			     NULL);
		xvbd_out_str(o, "cache", xvbd_cache_name(hs[i].cache));
		xvbd_out_str(o, "overrides", hs[i].offers[0] ? hs[i].offers :
			     NULL);
		xvbd_out_str(o, "action", hs[i].action);
		xvbd_out_obj_end(o);
	}
	xvbd_out_arr_end(o);
}

/* What was added (also when another disk failed). */
static void render(struct xvbd_out *o, const struct xvbd_disk_handle *hs,
		   size_t n, const struct xvbd_disk_attach_result *res)
{
	size_t i;

	xvbd_out_labels(o, labels);
	xvbd_out_arr_begin(o, NULL);
	for (i = 0; i < n; i++) {
		const struct xvbd_disk_handle *h = &hs[i];

		if (!h->added)
			continue;
		xvbd_out_obj_begin(o, NULL);
		render_disk(o, h);
		xvbd_out_bool(o, "created", h->created);
		xvbd_out_str(o, "share", h->kind == XVBD_DISK_SHARE ?
			     h->share : NULL);
		xvbd_out_str(o, "backend_state", res->waited ?
			     xvbd_state_name(h->bstate) : NULL);
		xvbd_out_str(o, "frontend_state", res->waited ?
			     xvbd_state_name(h->fstate) : NULL);
		if (h->offers[0])
			xvbd_out_str(o, "overrides", h->overrides);
		else
			xvbd_out_null(o, "overrides");
		xvbd_out_obj_end(o);
	}
	xvbd_out_arr_end(o);
}

static int refuse_dom0(void)
{
	xvbd_err(CMD, "domain", "dom0 gets no VBDs from xvbd");
	return XVBD_EXIT_USAGE;
}

/* The guest, checked and looked up: its domain for the disk layer. */
static int find_domain(struct xvbd_ctx *ctx, const struct attach_args *a,
		       struct xvbd_report *rep, struct xvbd_disk_env *env,
		       struct xvbd_disk_dom *dom)
{
	int rc;

	/*
	 * Usage errors on the command line alone, before any connection.
	 * dom0 by its id or the name xencommons gives it (no guest can take
	 * it: libxl refuses a name in use); by any other name, after the
	 * lookup below.
	 */
	rc = xvbd_cmd_domain_check(ctx, a->domain);
	if (!rc && (!strcmp(a->domain, "0") ||
		    !strcmp(a->domain, "Domain-0")))
		rc = refuse_dom0();
	if (!rc)
		rc = xvbd_cmd_disk_domain(ctx, a->domain, rep, env, dom);
	if (!rc && dom->domid == 0)
		rc = refuse_dom0();
	return rc;
}

int cmd_attach(struct xvbd_ctx *ctx, int argc, char **argv)
{
	struct attach_args *a = calloc(1, sizeof(*a));
	struct xvbd_disk_handle *handles = NULL;
	struct xvbd_disk_desc *descs = NULL;
	struct xvbd_disk_attach_result res;
	struct xvbd_disk_attach_opts opts;
	struct xvbd_disk_dom dom;
	struct xvbd_report rep;
	struct xvbd_disk_env env;
	size_t n = 0, i;
	int rc;

	if (!a) {
		xvbd_err(CMD, NULL, "%s", strerror(ENOMEM));
		return XVBD_EXIT_FAIL;
	}
	rc = parse_args(ctx, argc, argv, a);
	if (!rc)
		rc = describe_disks(ctx, a, &descs, &n);
	if (!rc)
		rc = find_domain(ctx, a, &rep, &env, &dom);
	if (rc)
		goto out;
	handles = calloc(n, sizeof(*handles));
	if (!handles) {
		xvbd_err(CMD, NULL, "%s", strerror(ENOMEM));
		rc = XVBD_EXIT_FAIL;
		goto out;
	}
	opts = (struct xvbd_disk_attach_opts){
		.dry_run = ctx->opts->dry_run, .wait = a->wait,
		.timeout_s = a->timeout_s, .jobs = a->jobs,
		.tell = !ctx->opts->quiet && isatty(STDERR_FILENO),
	};
	rc = xvbd_disk_attach(&env, &dom, descs, n, &opts, handles, &res);
	if (ctx->opts->dry_run) {
		if (!rc)
			render_dry(ctx->out, handles, n);
		goto out;
	}
	for (i = 0; i < n && !handles[i].added; i++)
		;
	/* What was added is told also on failure: cmd.c ends the document
	 * (under --json with the failure). */
	if (i < n && !res.interrupted)
		render(ctx->out, handles, n, &res);
out:
	free(handles);
	free(descs);
	free(a);
	return rc;
}
