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
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "xvbd/cmd/cmd.h"
#include "xvbd/cmd/cmd_report.h"
#include "xvbd/disk/disk.h"
#include "xvbd/xen/blkif.h"

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
	OPT_FILE = 256, OPT_PHY, OPT_SHARE, OPT_CREDENTIALS, OPT_SHARE_OPTS,
	OPT_SIZE, OPT_PREALLOC, OPT_VDEV, OPT_ACCESS, OPT_SPEC, OPT_WAIT,
	OPT_NO_WAIT, OPT_TIMEOUT, OPT_JOBS, OPT_RING_ORDER, OPT_QUEUES,
	OPT_INDIRECT, OPT_DISCARD, OPT_TRUSTED, OPT_CACHE,
};

static const struct option attach_options[] = {
	{ "file", required_argument, NULL, OPT_FILE },
	{ "phy", required_argument, NULL, OPT_PHY },
	{ "share", required_argument, NULL, OPT_SHARE },
	{ "credentials", required_argument, NULL, OPT_CREDENTIALS },
	{ "share-opts", required_argument, NULL, OPT_SHARE_OPTS },
	{ "size", required_argument, NULL, OPT_SIZE },
	{ "prealloc", no_argument, NULL, OPT_PREALLOC },
	{ "cache", required_argument, NULL, OPT_CACHE },
	{ "vdev", required_argument, NULL, OPT_VDEV },
	{ "access", required_argument, NULL, OPT_ACCESS },
	{ "spec", required_argument, NULL, OPT_SPEC },
	{ "wait", no_argument, NULL, OPT_WAIT },
	{ "no-wait", no_argument, NULL, OPT_NO_WAIT },
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "jobs", required_argument, NULL, OPT_JOBS },
	{ "ring-order", required_argument, NULL, OPT_RING_ORDER },
	{ "queues", required_argument, NULL, OPT_QUEUES },
	{ "indirect-segments", required_argument, NULL, OPT_INDIRECT },
	{ "discard", required_argument, NULL, OPT_DISCARD },
	{ "trusted", required_argument, NULL, OPT_TRUSTED },
	{ NULL, 0, NULL, 0 },
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

/* An option's name: the disk key it sets ("ring-order"). */
static const char *option_name(int opt)
{
	const struct option *o;

	for (o = attach_options; o->name; o++)
		if (o->val == opt)
			return o->name;
	return "";
}

/*
 * An option with a value given twice: which one was meant?  (--spec adds
 * a disk each time; the flags may repeat.)
 */
static int check_once(const struct xvbd_cmd *cmd, int opt, uint64_t *seen)
{
	const struct option *o;

	if (opt < OPT_FILE || opt == OPT_SPEC)
		return 0;
	for (o = attach_options; o->name; o++)
		if (o->val == opt)
			break;
	if (!o->name || o->has_arg == no_argument)
		return 0;
	if (*seen & (1ull << (opt - OPT_FILE)))
		return xvbd_usage_error(cmd, "--%s given twice", o->name);
	*seen |= 1ull << (opt - OPT_FILE);
	return 0;
}

static int parse_args(struct xvbd_ctx *ctx, int argc, char **argv,
		      struct attach_args *a)
{
	const struct xvbd_cmd *cmd = ctx->cmd;
	int c, i, rc;
	uint64_t v, seen = 0;

	memset(a, 0, sizeof(*a));
	xvbd_disk_desc_init(&a->disk, XVBD_DISK_WORDS_OPTIONS,
			    XVBD_DISK_SOURCES_ALL);
	a->wait = true;
	a->timeout_s = DEFAULT_TIMEOUT_S;
	/* Hotplug scripts are CPU-bound in dom0: one per CPU at a time. */
	a->jobs = sysconf(_SC_NPROCESSORS_ONLN) > 0 ?
		(unsigned)sysconf(_SC_NPROCESSORS_ONLN) : 1;
	xvbd_getopt_begin();
	while ((c = xvbd_getopt(argc, argv, ":", attach_options)) != -1) {
		rc = check_once(cmd, c, &seen);
		if (rc)
			return rc;
		switch (c) {
		case OPT_VDEV:
		case OPT_ACCESS:
			/* auto and rw: what a disk gets without them (a
			 * spec beside them says its own) */
			if (!strcmp(optarg, c == OPT_VDEV ? "auto" : "rw") ||
			    (c == OPT_ACCESS && !strcmp(optarg, "w")))
				break;
			/* fall through */
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
		case OPT_DISCARD:
		case OPT_TRUSTED:
			rc = disk_key(ctx, a, option_name(c), optarg);
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
			rc = add_spec(a, cmd, optarg);
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
			if (xvbd_opt_whole_seconds(cmd, "--timeout", optarg, 1,
						   86400, &v))
				return XVBD_EXIT_USAGE;
			a->timeout_s = (unsigned)v;
			break;
		case OPT_JOBS:
			if (xvbd_opt_count(cmd, "--jobs", optarg, 1, MAX_ITEMS,
					   &v))
				return XVBD_EXIT_USAGE;
			a->jobs = (unsigned)v;
			break;
		default:
			return xvbd_getopt_error(cmd, argv, c);
		}
	}
	i = xvbd_getopt_index();
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
	xvbd_out_size_opt(o, "size_bytes", h->size_known, h->size_bytes);
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
	if (i < n && !res.interrupted) {
		render(ctx->out, handles, n, &res);
		if (rc && xvbd_out_finish(ctx->out) < 0)
			rc = XVBD_EXIT_FAIL;
	}
out:
	free(handles);
	free(descs);
	free(a);
	return rc;
}
