/*
 * cmd_start.c - xvbd start <xl.cfg> [--vbd VDEV:key=value[,...]]...
 *		 [--guest-limits] [--timeout S]
 *
 * Create the guest paused (xl create -p), wait until every tuned backend
 * has probed (InitWait), write all overrides in one xenstore transaction,
 * unpause, wait for Connected, and check what the frontend chose: the
 * guest_start layer does it (ab run creates its guests the same way);
 * this file parses, renders the plan (-N) and the result.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xvbd/cmd/cmd.h"
#include "xvbd/cmd/guest_start.h"

#define START_MAX_DEVS		XVBD_START_MAX_DEVS
#define START_TIMEOUT_S		120
#define START_TIMEOUT_MAX_S	3600

struct start_opts {
	const char *cfg_path;
	struct xvbd_ovr_set sets[START_MAX_DEVS];
	size_t nsets;
	bool guest_limits;
	int timeout_s;
};

enum { O_VBD, O_GUEST_LIMITS, O_TIMEOUT };

const struct xvbd_cmdopt cmd_start_opts[] = {
	[O_VBD] = XVBD_OPT_STR("vbd", 0, "VDEV:key=value[,...]",
		XVBD_OPT_REPEAT, "blkif keys for one VBD, written in the "
		"paused window"),
	[O_GUEST_LIMITS] = XVBD_OPT_F("guest-limits", 0,
		"also set the guest's blkfront parameters to match"),
	[O_TIMEOUT] = XVBD_OPT_S("timeout", 0, 1, START_TIMEOUT_MAX_S,
		"how long to wait for the VBDs to connect (default 120s)"),
	XVBD_OPT_END,
};

static int add_vbd(struct start_opts *so, const char *arg)
{
	char why[256];
	size_t i;

	/* A bad value is one line, not the whole usage. */
	if (so->nsets == START_MAX_DEVS) {
		xvbd_err("start", "--vbd", "more than %d devices",
			 START_MAX_DEVS);
		return XVBD_EXIT_USAGE;
	}
	if (xvbd_override_parse_vbd(&so->sets[so->nsets], arg, why,
				    sizeof(why))) {
		xvbd_err("start", "--vbd", "%s", why);
		return XVBD_EXIT_USAGE;
	}
	for (i = 0; i < so->nsets; i++) {
		if (so->sets[i].devid != so->sets[so->nsets].devid)
			continue;
		xvbd_err("start", "--vbd", "%s given twice: combine its keys "
			 "with ','", so->sets[i].vdev);
		return XVBD_EXIT_USAGE;
	}
	so->nsets++;
	return 0;
}

static int parse_opts(struct xvbd_ctx *ctx, char **argv,
		      struct start_opts *so)
{
	const struct xvbd_cmdline *cl = ctx->cl;
	size_t i;
	int rc;

	so->timeout_s = START_TIMEOUT_S;
	for (i = 0; i < cl->ngiven; i++) {
		const struct xvbd_optval *v = &cl->given[i];

		switch (v->id) {
		case O_VBD:
			rc = add_vbd(so, v->arg);
			if (rc)
				return rc;
			break;
		case O_GUEST_LIMITS:
			so->guest_limits = true;
			break;
		case O_TIMEOUT:
			/* whole seconds: a fraction rounds up */
			so->timeout_s = (int)((v->u + XVBD_NS_PER_S - 1) /
					      XVBD_NS_PER_S);
			break;
		}
	}
	so->cfg_path = argv[0];
	return XVBD_EXIT_OK;
}

static void render_plan(struct xvbd_ctx *ctx, const struct start_opts *so,
			const struct xvbd_xlcfg *cfg, const char *cmd_key,
			const char *cmdline)
{
	struct xvbd_ovr_plan plan = { 0 };
	struct xvbd_out *o = ctx->out;
	char be[64], fe[64];
	size_t i;

	for (i = 0; i < so->nsets; i++) {
		/* The directories exist once the domain does. */
		snprintf(be, sizeof(be), "<backend of %s>", so->sets[i].vdev);
		snprintf(fe, sizeof(fe), "<frontend of %s>", so->sets[i].vdev);
		if (xvbd_override_plan(&plan, &so->sets[i], be, fe))
			break;
	}
	xvbd_out_obj_begin(o, NULL);
	xvbd_out_str(o, "domain", cfg->name);
	xvbd_out_str(o, "config", so->cfg_path);
	xvbd_out_str(o, "create", "xl create -p (paused), unpause after "
		     "the writes");
	if (cmd_key)
		xvbd_out_str(o, cmd_key, cmdline);
	xvbd_override_plan_render(o, &plan);
	xvbd_out_obj_end(o);
	xvbd_override_plan_free(&plan);
}

static void render_result(struct xvbd_ctx *ctx, uint32_t domid,
			  const struct xvbd_xlcfg *cfg,
			  const struct xvbd_ovr_dev *devs, size_t n,
			  const char *verdict)
{
	struct xvbd_out *o = ctx->out;

	xvbd_out_obj_begin(o, NULL);
	xvbd_out_str(o, "domain", cfg->name);
	xvbd_out_uint(o, "domid", domid);
	xvbd_out_str(o, "result", verdict);
	xvbd_ovr_run_render(o, devs, n);
	xvbd_out_obj_end(o);
}

int cmd_start(struct xvbd_ctx *ctx, int argc, char **argv)
{
	struct start_opts so;
	struct xvbd_start_req req;
	struct xvbd_start_plan plan;
	struct xvbd_start_result res;
	int rc;

	(void)argc;	/* one: the table says so */
	memset(&so, 0, sizeof(so));
	rc = parse_opts(ctx, argv, &so);
	if (rc)
		return rc;
	req = (struct xvbd_start_req){
		.cfg_path = so.cfg_path, .sets = so.sets, .nsets = so.nsets,
		.guest_limits = so.guest_limits, .timeout_s = so.timeout_s,
	};
	rc = xvbd_start_prepare(ctx, &req, &plan);
	if (rc)
		goto out;
	if (ctx->opts->dry_run) {
		render_plan(ctx, &so, &plan.cfg, plan.cmd_key, plan.cmdline);
		goto out;
	}
	rc = xvbd_start_run(ctx, &req, &plan, &res);
	if (!rc) {
		render_result(ctx, res.domid, &plan.cfg, res.devs, res.ndevs,
			      res.verdict);
		if (res.not_applied) {
			xvbd_err("start", plan.cfg.name, "%s", res.verdict);
			if (!ctx->opts->quiet)
				xvbd_hint("the guest is left running (domain "
					  "%u): \"xvbd show %u VDEV\" shows "
					  "what it negotiated", res.domid,
					  res.domid);
			rc = XVBD_EXIT_FAIL;
		}
	}
	xvbd_start_result_free(&res);
out:
	xvbd_start_plan_free(&plan);
	return rc;
}
