/*
 * cmd_advise.c - xvbd advise [<Domain> [<VDev>]] [-d S] [--json]: sample
 * each VBD for S seconds, read its negotiation (the blkif model) and
 * blkback's module parameters, and name what the numbers point at: the
 * change, which side limits it, and the xvbd command line that tests it.
 *
 * Nothing is advised without evidence in the sampled interval: every
 * finding needs I/O of the VBD in it, and carries the numbers it rests
 * on.  A VBD without I/O says "no I/O sampled" and nothing else.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "xvbd/base/vocab.h"
#include "xvbd/cmd/cmd.h"
#include "xvbd/dom0/modparam.h"
#include "xvbd/dom0/share.h"
#include "xvbd/stats/stats.h"
#include "xvbd/vbd/vbd.h"
#include "xvbd/xen/blkif.h"

#define NS_PER_S		UINT64_C(1000000000)
#define DEFAULT_NS		(10 * NS_PER_S)
#define MAX_S			3600
/* Requests this close to the ceiling are at it (a few small ones mix). */
#define AT_CEILING_PCT		95.0
/* blkfront's default max_indirect_segments (Linux): 32 x 4 KiB. */
#define FE_DEFAULT_SEGMENTS	32
#define BUSY_THREAD_PCT		90.0
#define RUN_SECONDS		30
#define CMD_MAX			8192
#define EVIDENCE_MAX		6

struct evidence {
	const char *name, *unit;
	double value;
	int decimals;
};

struct finding {
	const char *finding;		/* stable id */
	const char *change;
	const char *limited_by;		/* blkback-module-parameter, ... */
	char parameter[96];		/* what to set, where */
	char command[CMD_MAX];
	struct evidence ev[EVIDENCE_MAX];
	size_t nev;
};

/* What one VBD's rules look at. */
struct vbd_facts {
	const char *domain;
	uint32_t domid;
	const struct xvbd_stats_vbd *v;		/* the sampled interval */
	const struct xvbd_stats_dom *dom;
	const struct xvbd_vbd_view *view;
	const struct xvbd_modparams *mp;	/* NULL: blkback unknown */
	const char *free_vdev;			/* for a hot A/B disk */
	double interval_s;
	uint64_t requests;
};

static const struct xvbd_out_label advise_labels[] = {
	{ "domain", "DOMAIN" }, { "vdev", "VDEV" },
	{ "finding", "FINDING" }, { "limited_by", "LIMITED BY" },
	{ NULL, NULL },
};

/* A piece of evidence: a quantity of the vocabulary (vocab.h), its unit. */
static void add_ev(struct finding *f, enum xvbd_q q, double value,
		   int decimals)
{
	if (f->nev < EVIDENCE_MAX)
		f->ev[f->nev++] = (struct evidence){ xvbd_q_name(q),
						     xvbd_q_unit(q), value,
						     decimals };
}

static uint64_t mp_uint(const struct vbd_facts *x, const char *name,
			uint64_t dflt)
{
	uint64_t v;

	return x->mp && !xvbd_modparam_get_uint(x->mp, name, &v) ? v : dflt;
}

/*
 * The image a hot A/B attaches: a copy of the guest's (the guest's own is
 * in use by its disk: refused when that is writable, a second loop over
 * the same file when it is read-only), "IMG-ab.img" beside it, made by
 * the command's first step.
 */
static int copy_step(const struct vbd_facts *x, char *copy, size_t len,
		     char *step, size_t step_len)
{
	const char *target = xvbd_kvmap_get(&x->view->backend, "params");
	size_t n = target ? strlen(target) : 0;

	if (!target || !*target) {
		snprintf(copy, len, "COPY");
		return snprintf(step, step_len, "cp --sparse=always IMAGE "
				"COPY && ");
	}
	if (n > 4 && !strcmp(target + n - 4, ".img"))
		n -= 4;
	snprintf(copy, len, "%.*s-ab.img", (int)n, target);
	return snprintf(step, step_len, "cp --sparse=always %s %s && ",
			target, copy);
}

/*
 * The hot A/B of one VBD property: a copy of the image attached under a
 * free vdev, once per side, with the property at each value.
 */
static void hot_cmd(struct finding *f, const struct vbd_facts *x,
		    const char *key, uint64_t a, uint64_t b)
{
	char copy[XVBD_PATH_MAX + 8], step[2 * XVBD_PATH_MAX + 40];

	copy_step(x, copy, sizeof(copy), step, sizeof(step));
	snprintf(f->command, sizeof(f->command),
		 "%sxvbd ab run %s-%" PRIu64 " %s-%" PRIu64 " --domain %s "
		 "--disk-a format=raw,vdev=%s,access=ro,target=%s "
		 "--disk-b format=raw,vdev=%s,access=ro,target=%s "
		 "--vbd-a %s:%s=%" PRIu64 " --vbd-b %s:%s=%" PRIu64
		 " --duration %d", step, key, a, key, b, x->domain,
		 x->free_vdev, copy, x->free_vdev, copy, x->free_vdev, key, a,
		 x->free_vdev, key, b, RUN_SECONDS);
}

/* A frontend limit: fresh guests, the guest's own limit raised. */
static void fresh_cmd(struct finding *f, const struct vbd_facts *x,
		      const char *key, uint64_t a, uint64_t b)
{
	snprintf(f->command, sizeof(f->command),
		 "xvbd ab run %s-%" PRIu64 " %s.cfg %s-%" PRIu64 " %s.cfg "
		 "--vbd-a %s:%s=%" PRIu64 " --vbd-b %s:%s=%" PRIu64
		 " --guest-limits --duration %d", key, a, x->domain, key, b,
		 x->domain, x->v->vdev, key, a, x->v->vdev, key, b,
		 RUN_SECONDS);
}

/* Requests at the segment ceiling, or at blkfront's own default limit. */
static bool rule_segments(const struct vbd_facts *x, struct finding *f)
{
	const struct xvbd_stats_vbd *v = x->v;
	bool rd = v->rd_kib_known && v->rd_ceiling_pct >= AT_CEILING_PCT;
	bool wr = v->wr_kib_known && v->wr_ceiling_pct >= AT_CEILING_PCT;
	double fe_kib = FE_DEFAULT_SEGMENTS * XVBD_BLKIF_SEGMENT_KIB;
	double kib = v->rd_kib_known ? v->rd_kib_per_req : v->wr_kib_per_req;

	if (!v->ceiling_known)
		return false;
	if ((rd || wr) &&
	    v->ceiling_segments == XVBD_BLKIF_DIRECT_SEGMENTS) {
		f->finding = "segment-ceiling";
		f->change = "offer indirect descriptors: larger requests, "
			    "fewer per byte";
		f->limited_by = "backend-offer";
		snprintf(f->parameter, sizeof(f->parameter),
			 "feature-max-indirect-segments (xvbd attach/start "
			 "indirect-segments)");
		add_ev(f, rd ? XVBD_Q_READ_KIB_PER_REQ :
		       XVBD_Q_WRITE_KIB_PER_REQ,
		       rd ? v->rd_kib_per_req : v->wr_kib_per_req, 1);
		add_ev(f, XVBD_Q_CEILING_KIB, v->ceiling_kib, 0);
		add_ev(f, XVBD_Q_CEILING_PCT, rd ? v->rd_ceiling_pct :
		       v->wr_ceiling_pct, 1);
		hot_cmd(f, x, "indirect-segments", 0, 256);
		return true;
	}
	/* Offered more, but requests stop at blkfront's default. */
	if (v->ceiling_kib > fe_kib && kib >= fe_kib * AT_CEILING_PCT / 100 &&
	    kib <= fe_kib * 1.01) {
		f->finding = "frontend-segment-limit";
		f->change = "raise the guest's own indirect segment limit";
		f->limited_by = "frontend";
		snprintf(f->parameter, sizeof(f->parameter),
			 "guest kernel: xen_blkfront.max_indirect_segments=%u",
			 v->ceiling_segments);
		add_ev(f, v->rd_kib_known ? XVBD_Q_READ_KIB_PER_REQ :
		       XVBD_Q_WRITE_KIB_PER_REQ, kib, 1);
		add_ev(f, XVBD_Q_FRONTEND_DEFAULT_KIB, fe_kib, 0);
		add_ev(f, XVBD_Q_CEILING_KIB, v->ceiling_kib, 0);
		fresh_cmd(f, x, "indirect-segments", FE_DEFAULT_SEGMENTS,
			  v->ceiling_segments);
		return true;
	}
	return false;
}

/* oo_req rising: the ring had no free slot; a larger one is allowed? */
static bool rule_ring(const struct vbd_facts *x, struct finding *f)
{
	const struct xvbd_blkif_eval *ev = &x->view->eval;
	const struct xvbd_nego *n = &ev->nego[XVBD_NEGO_RING_ORDER];
	uint64_t max_order = mp_uint(x, "max_ring_page_order", 0);
	uint64_t cur = 0, pages;

	if (!(x->v->oo_req_s > 0) || !ev->ring_pages.known)
		return false;
	for (pages = ev->ring_pages.v; pages > 1; pages >>= 1)
		cur++;
	if (cur >= XVBD_BLKBACK_RING_ORDER_MAX)
		return false;
	f->finding = "ring-full";
	f->change = "a larger ring: more requests in flight";
	add_ev(f, XVBD_Q_OO_REQ_PER_S, x->v->oo_req_s, 2);
	add_ev(f, XVBD_Q_RING_PAGES, (double)ev->ring_pages.v, 0);
	add_ev(f, XVBD_Q_MAX_RING_PAGE_ORDER, (double)max_order, 0);
	if (max_order <= cur) {
		f->limited_by = "blkback-module-parameter";
		snprintf(f->parameter, sizeof(f->parameter),
			 "xen_blkback max_ring_page_order=%d (xvbd defaults "
			 "--reload)", XVBD_BLKBACK_RING_ORDER_MAX);
		snprintf(f->command, sizeof(f->command),
			 "xvbd defaults --reload max_ring_page_order=%d",
			 XVBD_BLKBACK_RING_ORDER_MAX);
		return true;
	}
	if (n->offer.known && n->offer.v <= cur) {
		f->limited_by = "backend-offer";
		snprintf(f->parameter, sizeof(f->parameter),
			 "max-ring-page-order (xvbd attach/start ring-order)");
		hot_cmd(f, x, "ring-order", cur, max_order);
		return true;
	}
	f->limited_by = "frontend";
	snprintf(f->parameter, sizeof(f->parameter),
		 "guest kernel: xen_blkfront.max_ring_page_order=%" PRIu64,
		 max_order);
	fresh_cmd(f, x, "ring-order", cur, max_order);
	return true;
}

/* One queue where the guest has several vCPUs and blkback allows more. */
static bool rule_queues(const struct vbd_facts *x, struct finding *f)
{
	const struct xvbd_blkif_eval *ev = &x->view->eval;
	const struct xvbd_nego *n = &ev->nego[XVBD_NEGO_QUEUES];
	uint64_t max_q = mp_uint(x, "max_queues", 0);
	uint64_t want;

	if (!ev->queues.known || ev->queues.v != 1 || !x->dom ||
	    x->dom->vcpus < 2 || max_q < 2)
		return false;
	want = x->dom->vcpus < max_q ? x->dom->vcpus : max_q;
	f->finding = "single-queue";
	f->change = "one queue per guest vCPU: requests of several vCPUs "
		    "in parallel";
	add_ev(f, XVBD_Q_QUEUES, 1, 0);
	add_ev(f, XVBD_Q_VCPUS, x->dom->vcpus, 0);
	add_ev(f, XVBD_Q_MAX_QUEUES, (double)max_q, 0);
	add_ev(f, XVBD_Q_IOPS, x->v->rd_req_s + x->v->wr_req_s, 1);
	if (n->offer.known && n->offer.v < 2) {
		f->limited_by = "backend-offer";
		snprintf(f->parameter, sizeof(f->parameter),
			 "multi-queue-max-queues (xvbd attach/start queues)");
		hot_cmd(f, x, "queues", 1, want);
	} else {
		f->limited_by = "frontend";
		snprintf(f->parameter, sizeof(f->parameter),
			 "guest kernel: xen_blkfront.max_queues=%" PRIu64, want);
		fresh_cmd(f, x, "queues", 1, want);
	}
	return true;
}

/* Reads of a file disk that dom0's page cache can serve. */
static bool rule_cache(const struct vbd_facts *x, struct finding *f)
{
	char copy[XVBD_PATH_MAX + 8], step[2 * XVBD_PATH_MAX + 40];

	if (x->view->dom0_cache != XVBD_CACHE_HOST || !(x->v->rd_req_s > 0))
		return false;
	f->finding = "dom0-page-cache";
	f->change = "for benchmarks, attach with --cache none: reads reach "
		    "the image, not dom0's memory";
	f->limited_by = "dom0";
	snprintf(f->parameter, sizeof(f->parameter),
		 "xvbd attach --cache none (loop device with direct I/O)");
	add_ev(f, XVBD_Q_READ_IOPS, x->v->rd_req_s, 1);
	add_ev(f, XVBD_Q_READ_MB_PER_S, x->v->rd_bytes_s / 1e6, 6);
	copy_step(x, copy, sizeof(copy), step, sizeof(step));
	snprintf(f->command, sizeof(f->command),
		 "%sxvbd ab run cache-host cache-none --domain %s "
		 "--disk-a format=raw,vdev=%s,access=ro,target=%s "
		 "--disk-b format=raw,vdev=%s,access=ro,target=%s "
		 "--cache-a host --cache-b none --duration %d", step,
		 x->domain, x->free_vdev, copy, x->free_vdev, copy,
		 RUN_SECONDS);
	return true;
}

/* Persistent grants off: every request maps and unmaps its pages. */
static bool rule_persistent(const struct vbd_facts *x, struct finding *f)
{
	const struct xvbd_blkif_eval *ev = &x->view->eval;
	bool be_on = true;

	if (!ev->persistent.known || ev->persistent.v)
		return false;
	if (x->mp)
		xvbd_modparam_get_bool(x->mp, "feature_persistent", &be_on);
	f->finding = "persistent-grants-off";
	f->change = "persistent grants: no grant map and unmap per request";
	add_ev(f, XVBD_Q_REQUESTS, (double)x->requests, 0);
	if (x->v->be_us_per_req_known)
		add_ev(f, XVBD_Q_BACKEND_US_PER_REQ, x->v->be_us_per_req, 1);
	if (!be_on) {
		f->limited_by = "blkback-module-parameter";
		snprintf(f->parameter, sizeof(f->parameter),
			 "xen_blkback feature_persistent=Y");
		snprintf(f->command, sizeof(f->command),
			 "xvbd ab record pg-off --domain %s --duration %d && "
			 "xvbd defaults feature_persistent=Y && "
			 "xvbd ab run pg-off %s.cfg pg-on %s.cfg --duration %d",
			 x->domain, RUN_SECONDS, x->domain, x->domain,
			 RUN_SECONDS);
	} else {
		f->limited_by = "frontend";
		snprintf(f->parameter, sizeof(f->parameter),
			 "guest kernel: xen_blkfront.feature_persistent=1");
		snprintf(f->command, sizeof(f->command),
			 "xvbd ab run pg-off %s.cfg pg-on %s.cfg --duration %d",
			 x->domain, x->domain, RUN_SECONDS);
	}
	return true;
}

/* A ring thread near 100 % of a CPU: the backend is the bottleneck. */
static bool rule_busy(const struct vbd_facts *x, struct finding *f)
{
	const struct xvbd_stats_vbd *v = x->v;
	uint64_t max_q = mp_uint(x, "max_queues", 1);
	size_t i, busiest = 0;

	if (!v->be_known || v->be_iv != XVBD_IV_OK || !v->nrings)
		return false;
	for (i = 1; i < v->nrings; i++)
		if (v->rings[i].cpu_pct > v->rings[busiest].cpu_pct)
			busiest = i;
	if (v->rings[busiest].cpu_pct < BUSY_THREAD_PCT)
		return false;
	f->finding = "backend-thread-busy";
	f->change = max_q > v->nrings ?
		    "more queues: one backend thread per ring" :
		    "the backend thread is the limit: fewer, larger requests "
		    "or a faster backing store";
	add_ev(f, XVBD_Q_RING, v->rings[busiest].ring, 0);
	add_ev(f, XVBD_Q_RING_CPU_PCT, v->rings[busiest].cpu_pct, 1);
	add_ev(f, XVBD_Q_RINGS, (double)v->nrings, 0);
	add_ev(f, XVBD_Q_MAX_QUEUES, (double)max_q, 0);
	f->limited_by = "backend-thread";
	snprintf(f->parameter, sizeof(f->parameter),
		 "multi-queue-max-queues (xvbd attach/start queues)");
	hot_cmd(f, x, "queues", v->nrings, max_q > v->nrings ? max_q :
		v->nrings);
	return true;
}

static bool (*const rules[])(const struct vbd_facts *, struct finding *) = {
	rule_segments, rule_ring, rule_queues, rule_cache, rule_persistent,
	rule_busy,
};
#define NRULES	(sizeof(rules) / sizeof(rules[0]))

static void render_finding(struct xvbd_out *o, const struct finding *f)
{
	size_t i;

	xvbd_out_obj_begin(o, NULL);
	xvbd_out_str(o, "finding", f->finding);
	xvbd_out_str(o, "limited_by", f->limited_by);
	xvbd_out_str(o, "change", f->change);
	xvbd_out_str(o, "parameter", f->parameter);
	xvbd_out_arr_begin(o, "evidence");
	for (i = 0; i < f->nev; i++) {
		xvbd_out_obj_begin(o, NULL);
		xvbd_out_str(o, "name", f->ev[i].name);
		xvbd_out_fixed_opt(o, "value", true, f->ev[i].value,
				   f->ev[i].decimals);
		xvbd_out_str(o, "unit", f->ev[i].unit);
		xvbd_out_obj_end(o);
	}
	xvbd_out_arr_end(o);
	xvbd_out_str(o, "command", f->command);
	xvbd_out_obj_end(o);
}

static void render_vbd(struct xvbd_out *o, const struct vbd_facts *x)
{
	struct finding f;
	size_t i;

	xvbd_out_obj_begin(o, NULL);
	xvbd_out_str(o, "domain", x->domain);
	xvbd_out_uint(o, "domid", x->domid);
	xvbd_out_str(o, "vdev", x->v->vdev);
	xvbd_out_fixed_opt(o, XVBD_QN(INTERVAL_S), true, x->interval_s, 3);
	xvbd_out_uint(o, XVBD_QN(REQUESTS), x->requests);
	xvbd_out_str(o, "note", x->requests ? NULL : "no I/O sampled");
	xvbd_out_arr_begin(o, "findings");
	for (i = 0; x->requests && i < NRULES; i++) {
		memset(&f, 0, sizeof(f));
		if (rules[i](x, &f))
			render_finding(o, &f);
	}
	xvbd_out_arr_end(o);
	xvbd_out_obj_end(o);
}

/* ---- sampling and the VBDs' facts ---- */

struct advise_opts {
	uint64_t interval_ns;
	const char *domain, *vdev;
};

enum { O_DURATION };

const struct xvbd_cmdopt cmd_advise_opts[] = {
	/* stats' -d is its interval; here it is the one sample's length */
	[O_DURATION] = XVBD_OPT_S("duration", 'd', 0.1, MAX_S,
		"how long to sample (default 10s)"),
	XVBD_OPT_END,
};

static void parse_opts(struct xvbd_ctx *ctx, int argc, char **argv,
		       struct advise_opts *ao)
{
	const struct xvbd_optval *d = xvbd_opt(ctx, O_DURATION);

	ao->interval_ns = d ? d->u : DEFAULT_NS;
	ao->domain = argc > 0 ? argv[0] : NULL;
	ao->vdev = argc > 1 ? argv[1] : NULL;
}

/* The first xvd name the guest does not use: the hot A/B's disk. */
static void free_vdev(struct xvbd_tstack *ts, uint32_t domid, char *buf,
		      size_t len)
{
	struct xvbd_disk *disks = NULL;
	size_t n = 0, i;
	char c;

	snprintf(buf, len, "xvdz");
	if (xvbd_tstack_disks(ts, domid, &disks, &n))
		return;
	for (c = 'b'; c <= 'z'; c++) {
		char name[8];
		uint32_t devid;
		bool used = false;

		snprintf(name, sizeof(name), "xvd%c", c);
		if (xvbd_vdev_parse(name, &devid))
			continue;
		for (i = 0; i < n && !used; i++)
			used = disks[i].devid == devid;
		if (!used) {
			snprintf(buf, len, "%s", name);
			break;
		}
	}
	xvbd_tstack_disks_free(disks, n);
}

static uint64_t interval_requests(const struct xvbd_stats_vbd *v,
				  double interval_s)
{
	double r = (v->rd_req_s + v->wr_req_s + v->f_req_s + v->ds_req_s) *
		   interval_s;

	return v->iv == XVBD_IV_OK && r > 0 ? (uint64_t)(r + 0.5) : 0;
}

static void advise_vbd(struct xvbd_ctx *ctx, const struct xvbd_stats_sample *s,
		       const struct xvbd_stats_vbd *v,
		       const struct xvbd_modparams *mp)
{
	struct xvbd_disk *disks = NULL, *disk = NULL;
	struct vbd_facts x = { .v = v, .mp = mp };
	struct xvbd_vbd_view view;
	char vdev_buf[16];
	size_t n = 0, i;

	for (i = 0; i < s->ndoms; i++)
		if (s->doms[i].domid == v->domid)
			x.dom = &s->doms[i];
	if (xvbd_tstack_disk_find(ctx->ts, v->domid, v->devid, &disks, &n,
				  &disk))
		return;		/* detached meanwhile */
	if (xvbd_vbd_load(ctx->xs, v->domid, disk, &view)) {
		xvbd_tstack_disks_free(disks, n);
		return;
	}
	free_vdev(ctx->ts, v->domid, vdev_buf, sizeof(vdev_buf));
	x.domain = v->domain;
	x.domid = v->domid;
	x.view = &view;
	x.free_vdev = vdev_buf;
	x.interval_s = (double)s->interval_ns / (double)NS_PER_S;
	x.requests = interval_requests(v, x.interval_s);
	render_vbd(ctx->out, &x);
	xvbd_vbd_view_free(&view);
	xvbd_tstack_disks_free(disks, n);
}

static int sample_twice(struct xvbd_ctx *ctx, const struct advise_opts *ao,
			struct xvbd_sysfs *sys, struct xvbd_stats_sample *s)
{
	const char *names[1] = { ao->domain };
	struct xvbd_stats_opts opts = { .domains = names,
					.ndomains = ao->domain ? 1 : 0 };
	struct xvbd_stats_source src;
	struct xvbd_stats *st = NULL;
	struct timespec ts = {
		.tv_sec = (time_t)(ao->interval_ns / NS_PER_S),
		.tv_nsec = (long)(ao->interval_ns % NS_PER_S),
	};
	int err = xvbd_stats_sys_source(ctx->ts, ctx->xs, &src);

	if (err)
		return err;
	err = xvbd_stats_open(&src, sys, &opts, &st);
	if (err) {
		src.close(src.arg);
		return err;
	}
	err = xvbd_stats_sample(st, s);
	while (!err && nanosleep(&ts, &ts) && errno == EINTR)
		;
	if (!err)
		err = xvbd_stats_sample(st, s);
	xvbd_stats_close(st);
	return err;
}

int cmd_advise(struct xvbd_ctx *ctx, int argc, char **argv)
{
	struct advise_opts ao = { 0 };
	struct xvbd_stats_sample s = { 0 };
	struct xvbd_modparams mp = { 0 };
	struct xvbd_sysfs *sys = NULL;
	uint32_t domid = 0, devid = 0;
	char *name = NULL;
	bool have_mp;
	size_t i;
	int rc = XVBD_EXIT_OK, err;

	parse_opts(ctx, argc, argv, &ao);
	if (ao.vdev && xvbd_vdev_parse(ao.vdev, &devid))
		rc = xvbd_usage_error(ctx->cmd, "\"%s\": not a virtual device "
				      "name", ao.vdev);
	if (!rc)
		rc = xvbd_cmd_connect(ctx);
	if (!rc && ao.domain)
		rc = xvbd_cmd_domain_lookup(ctx, ao.domain, &domid, &name);
	if (rc)
		return rc;
	ao.domain = name;
	xvbd_out_labels(ctx->out, advise_labels);
	sys = xvbd_sysfs_open(NULL);
	err = sys ? sample_twice(ctx, &ao, sys, &s) : -errno;
	if (err) {
		xvbd_err("advise", "sampling", "%s", strerror(-err));
		rc = XVBD_EXIT_FAIL;
		goto out;
	}
	have_mp = !xvbd_modparam_list(XVBD_BLKBACK_MODULE, &mp);
	xvbd_out_arr_begin(ctx->out, NULL);
	for (i = 0; i < s.nvbds; i++)
		if ((!ao.domain || s.vbds[i].domid == domid) &&
		    (!ao.vdev || s.vbds[i].devid == devid))
			advise_vbd(ctx, &s, &s.vbds[i], have_mp ? &mp : NULL);
	xvbd_out_arr_end(ctx->out);
	if (have_mp)
		xvbd_modparams_free(&mp);
out:
	xvbd_stats_sample_free(&s);
	xvbd_sysfs_close(sys);
	free(name);
	return rc;
}
