/*
 * cmd_apply.c - xvbd apply <PLAN|-> [--check] [--diff] [--prune]: make a
 * guest's disks what a plan file says, change nothing when they already
 * are, and say first what it would do (provisioning tools' check and
 * diff modes; Ansible reads "changed" from --json).
 *
 * Steps:
 *   1. the arguments and the plan (apply_plan.c): a bad plan exits 2
 *      before xvbd connects to anything
 *   2. the guest, and its domain lock for the whole apply (not --check)
 *   3. apply_read: each disk as it is, compared, an action chosen
 *   4. apply_execute (not --check): the actions, in order, the first
 *      failure stopping the rest (each action is whole or undone: attach
 *      cleans up its own half-added disk, a tune is one transaction)
 *   5. apply_read_after: each disk read again; render
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xvbd/base/lock.h"
#include "xvbd/base/sig.h"
#include "xvbd/base/util.h"
#include "xvbd/cmd/cmd_report.h"
#include "xvbd/cmd/plan_json.h"
#include "xvbd/xen/blkif.h"
#include "xvbd/base/vocab.h"
#include "apply_impl.h"

enum { O_CHECK, O_DIFF, O_PRUNE };

const struct xvbd_cmdopt cmd_apply_opts[] = {
	/* provisioning tools' word for a dry run: the same as -N */
	[O_CHECK] = XVBD_OPT_F("check", 0, "say what would change, change "
		"nothing (as -N)"),
	[O_DIFF] = XVBD_OPT_F("diff", 0, "each key that differs, before and "
		"after"),
	[O_PRUNE] = XVBD_OPT_F("prune", 0, "detach the guest's disks the "
		"plan does not name"),
	XVBD_OPT_END,
};

void apply_warn(struct apply *ap, const char *fmt, ...)
{
	va_list ap_list;

	if (ap->nwarnings == sizeof(ap->warnings) / sizeof(ap->warnings[0]))
		return;
	va_start(ap_list, fmt);
	vsnprintf(ap->warnings[ap->nwarnings++], sizeof(ap->warnings[0]), fmt,
		  ap_list);
	va_end(ap_list);
}

const char *apply_key_name(enum apply_key k)
{
	static const char *const names[K_OFFER] = {
		"target", "access", "cache", "size_bytes", "state",
	};

	if (k < K_OFFER)
		return names[k];
	return xvbd_apply_offer_name((enum xvbd_ovr_id)(k - K_OFFER));
}

const char *apply_act_name(enum apply_act a)
{
	static const char *const names[] = {
		"none", "attach", "tune", "detach", "needs_reattach",
	};

	return names[a];
}

static const char *status_name(enum apply_status s)
{
	static const char *const names[] = {
		NULL, "planned", "done", "failed", "not run",
	};

	return names[s];
}

/* ---- 1. arguments and the plan ---- */

static int load_plan(struct apply *ap)
{
	char *text = NULL, why[512];
	size_t len = 0;
	int rc, err;

	rc = xvbd_plan_read(CMD, ap->plan_path, "root applies a plan",
			    XVBD_APPLY_PLAN_MAX, &text, &len);
	if (rc)
		return rc;
	err = xvbd_apply_plan_parse(text, len, &ap->plan, why, sizeof(why));
	free(text);
	if (err == -ENOMEM) {
		xvbd_err(CMD, NULL, "%s", strerror(ENOMEM));
		return XVBD_EXIT_FAIL;
	}
	if (err) {
		xvbd_err(CMD, ap->plan_path, "%s", why);
		return XVBD_EXIT_USAGE;
	}
	return 0;
}

static int parse_args(struct apply *ap, int argc, char **argv)
{
	const struct xvbd_cmd *cmd = ap->ctx->cmd;
	int i = 0;

	ap->check = ap->ctx->opts->dry_run ||
		    xvbd_opt(ap->ctx, O_CHECK) != NULL;
	ap->diff = xvbd_opt(ap->ctx, O_DIFF) != NULL;
	ap->prune = xvbd_opt(ap->ctx, O_PRUNE) != NULL;
	if (i >= argc)
		return xvbd_usage_error(cmd, "missing plan (a file, or - for "
					"stdin)");
	if (argc - i > 1)
		return xvbd_usage_error(cmd, "one plan per call");
	ap->plan_path = argv[i];
	return load_plan(ap);
}

/* ---- 2. the guest ---- */

static int find_guest(struct apply *ap)
{
	struct xvbd_dominfo info;
	int err;

	err = xvbd_tstack_domain_lookup(ap->ctx->ts, ap->plan.guest,
					&ap->domid, &ap->domain);
	if (err) {
		xvbd_err(CMD, ap->plan_path, "guest: \"%s\": %s",
			 ap->plan.guest, xvbd_tstack_lookup_why(err));
		return xvbd_tstack_lookup_exit(err);
	}
	if (ap->domid == 0) {
		xvbd_err(CMD, ap->plan_path, "guest: dom0 gets no VBDs from "
			 "xvbd");
		return XVBD_EXIT_USAGE;
	}
	err = xvbd_tstack_domain_info(ap->ctx->ts, ap->domid, &info);
	if (err || info.dying || info.shutdown) {
		xvbd_err(CMD, ap->plan_path, "guest: %s: not running (%s)",
			 ap->domain, err ? strerror(-err) : info.dying ?
			 "dying" : "shut down");
		return XVBD_EXIT_FAIL;
	}
	/* The disk layer, reporting in apply's name. */
	xvbd_cmd_report_init(ap->ctx, &ap->rep);
	ap->env = (struct xvbd_disk_env){ ap->ctx->ts, ap->ctx->xs, &ap->rep };
	err = xvbd_disk_dom_init(&ap->env, ap->domid, ap->domain, &ap->dom);
	if (err || ap->check)
		return err;
	return xvbd_disk_lock(&ap->env, &ap->dom, XVBD_LOCK_WAIT_S,
			      !ap->ctx->opts->quiet && isatty(STDERR_FILENO));
}

/* ---- 5. output ---- */

static void render_state(struct xvbd_out *o, const char *key,
			 const struct apply_state *st)
{
	size_t k;

	if (!st->present) {
		xvbd_out_null(o, key);
		return;
	}
	xvbd_out_obj_begin(o, key);
	xvbd_out_str(o, "target", st->target);
	xvbd_out_str(o, "access", st->readwrite ? "rw" : "ro");
	xvbd_out_str(o, "cache", xvbd_cache_name(st->cache));
	xvbd_out_uint_opt(o, XVBD_QN(SIZE_BYTES),
			  st->size_known, st->size_bytes);
	xvbd_out_str(o, "backend_state", st->bstate ?
		     xvbd_state_name(st->bstate) : NULL);
	xvbd_out_str(o, "frontend_state", st->fstate ?
		     xvbd_state_name(st->fstate) : NULL);
	for (k = 0; k < XVBD_OVR_NKEYS; k++) {
		const char *name = xvbd_apply_offer_name(k);

		if (!name)
			continue;
		if (xvbd_ovr_keys[k].cls == XVBD_OVR_TOOLSTACK)
			xvbd_out_bool_opt(o, name, st->offer[k].known,
					  st->offer[k].v != 0);
		else
			xvbd_out_uint_opt(o, name, st->offer[k].known,
					  st->offer[k].v);
	}
	xvbd_out_obj_end(o);
}

/* One key's value as text, for --diff lines. */
static void key_text(const struct apply_state *st, enum apply_key k,
		     char *buf, size_t len)
{
	if (!st->present) {
		snprintf(buf, len, "(absent)");
		return;
	}
	switch (k) {
	case K_TARGET:
		snprintf(buf, len, "%s", st->target);
		break;
	case K_ACCESS:
		snprintf(buf, len, "%s", st->readwrite ? "rw" : "ro");
		break;
	case K_CACHE:
		snprintf(buf, len, "%s", xvbd_cache_name(st->cache));
		break;
	case K_SIZE:
		xvbd_fmt_size(st->size_bytes, buf, len);
		break;
	case K_STATE:
		snprintf(buf, len, "%s/%s", xvbd_state_name(st->bstate),
			 xvbd_state_name(st->fstate));
		break;
	default:
		if (st->offer[k - K_OFFER].known)
			snprintf(buf, len, "%llu", (unsigned long long)
				 st->offer[k - K_OFFER].v);
		else
			snprintf(buf, len, "(absent)");
	}
}

/* Text: "xvdb ring_order: 1 -> 2" per key that differs (or all of an
 * attach or a detach). */
static void render_diff(struct apply *ap)
{
	struct xvbd_out *o = ap->ctx->out;
	char line[2 * XVBD_PATH_MAX + 80], b[XVBD_PATH_MAX], a[XVBD_PATH_MAX];
	struct apply_state want;
	size_t i, k;

	xvbd_out_arr_begin(o, "diff");
	for (i = 0; i < ap->n; i++) {
		const struct apply_item *it = &ap->items[i];
		bool whole = it->act == ACT_ATTACH || it->act == ACT_DETACH;

		apply_planned(it, &want);
		for (k = 0; k < K_N; k++) {
			if (!apply_key_name(k) || !(whole ? k <= K_ACCESS ||
			    (k >= K_OFFER && want.offer[k - K_OFFER].known) :
			    it->differs[k]))
				continue;
			key_text(&it->before, k, b, sizeof(b));
			key_text(&want, k, a, sizeof(a));
			snprintf(line, sizeof(line), "%s %s: %s -> %s",
				 it->vdev, apply_key_name(k), b, a);
			xvbd_out_str(o, NULL, line);
		}
	}
	xvbd_out_arr_end(o);
}

/*
 * JSON: the keys that differ, in the shape Ansible shows for a module's
 * diff: per disk {"before_header", "after_header", "before", "after"},
 * each side an object of those keys.
 */
static void diff_side(struct xvbd_out *o, const char *key,
		      const struct apply_item *it,
		      const struct apply_state *want, bool after)
{
	bool whole = it->act == ACT_ATTACH || it->act == ACT_DETACH;
	char text[XVBD_PATH_MAX];
	size_t k;

	xvbd_out_obj_begin(o, key);
	for (k = 0; k < K_N; k++) {
		if (!apply_key_name(k) || !(whole ? k <= K_ACCESS ||
		    (k >= K_OFFER && want->offer[k - K_OFFER].known) :
		    it->differs[k]))
			continue;
		key_text(after ? want : &it->before, k, text, sizeof(text));
		xvbd_out_str(o, apply_key_name(k), text);
	}
	xvbd_out_obj_end(o);
}

static void render_diff_json(struct apply *ap)
{
	struct xvbd_out *o = ap->ctx->out;
	struct apply_state want;
	size_t i;

	xvbd_out_arr_begin(o, "diff");
	for (i = 0; i < ap->n; i++) {
		const struct apply_item *it = &ap->items[i];

		if (it->act == ACT_NONE)
			continue;
		apply_planned(it, &want);
		xvbd_out_obj_begin(o, NULL);
		xvbd_out_str(o, "before_header", it->vdev);
		xvbd_out_str(o, "after_header", it->vdev);
		diff_side(o, "before", it, &want, false);
		diff_side(o, "after", it, &want, true);
		xvbd_out_obj_end(o);
	}
	xvbd_out_arr_end(o);
}

static const struct xvbd_out_label labels[] = {
	{ "vdev", "VDEV" }, { "action", "ACTION" }, { "status", "STATUS" },
	{ "detail", "DETAIL" }, { NULL, NULL },
};

static void render_action(struct apply *ap, const struct apply_item *it)
{
	struct xvbd_out *o = ap->ctx->out;
	char detail[sizeof(it->why) + sizeof(it->command) + 16];

	xvbd_out_obj_begin(o, NULL);
	xvbd_out_str(o, "vdev", it->vdev);
	xvbd_out_str(o, "action", apply_act_name(it->act));
	xvbd_out_str(o, "status", status_name(it->status));
	if (!xvbd_out_is_json(o)) {
		if (it->command[0])
			snprintf(detail, sizeof(detail), "%s; run: %s",
				 it->why, it->command);
		else
			snprintf(detail, sizeof(detail), "%s", !it->plan &&
				 it->act == ACT_NONE ? "not in plan" :
				 it->why);
		xvbd_out_str(o, "detail", detail[0] ? detail : NULL);
		xvbd_out_obj_end(o);
		return;
	}
	xvbd_out_bool(o, "in_plan", it->plan != NULL);
	render_state(o, "before", &it->before);
	render_state(o, "after", &it->after);
	xvbd_out_str(o, "command", it->command[0] ? it->command : NULL);
	xvbd_out_str(o, "why", it->why[0] ? it->why : NULL);
	xvbd_out_obj_end(o);
}

static bool changed(const struct apply *ap)
{
	size_t i;

	for (i = 0; i < ap->n; i++)
		if ((ap->items[i].status == ST_DONE ||
		     ap->items[i].status == ST_PLANNED) &&
		    ap->items[i].act != ACT_NONE &&
		    ap->items[i].act != ACT_REATTACH)
			return true;
	return false;
}

/* "2 changes: xvdb attach, xvdc tune" or "no change": what msg says on
 * success (a failure's msg is its error). */
static void summary(const struct apply *ap, char *buf, size_t len)
{
	size_t i, n = 0, used;

	used = (size_t)snprintf(buf, len, "no change");
	for (i = 0; i < ap->n; i++) {
		const struct apply_item *it = &ap->items[i];

		if ((it->status != ST_DONE && it->status != ST_PLANNED) ||
		    it->act == ACT_NONE || it->act == ACT_REATTACH)
			continue;
		if (!n++)
			used = 0;
		if (used < len)
			used += (size_t)snprintf(buf + used, len - used,
						 "%s%s %s", used ? ", " : "",
						 it->vdev,
						 apply_act_name(it->act));
	}
	if (n && ap->check && used < len)
		snprintf(buf + used, len - used, " (check: nothing done)");
}

static void render(struct apply *ap)
{
	struct xvbd_out *o = ap->ctx->out;
	char msg[512];
	size_t i;

	xvbd_out_labels(o, labels);
	summary(ap, msg, sizeof(msg));
	/* Ansible's command + from_json reads failed and msg every time */
	xvbd_out_status_always(o, msg);
	xvbd_out_obj_begin(o, NULL);
	/* the plan's own word for the domain; "domain", its old name, stays
	 * in JSON for the scripts that read it (deprecated, man page) */
	xvbd_out_str(o, "guest", ap->domain);
	if (xvbd_out_is_json(o))
		xvbd_out_str(o, "domain", ap->domain);
	xvbd_out_uint(o, "domid", ap->domid);
	xvbd_out_bool(o, "check", ap->check);
	xvbd_out_bool(o, "changed", changed(ap));
	xvbd_out_arr_begin(o, "actions");
	for (i = 0; i < ap->n; i++)
		render_action(ap, &ap->items[i]);
	xvbd_out_arr_end(o);
	if (xvbd_out_is_json(o))
		render_diff_json(ap);
	else if (ap->diff)
		render_diff(ap);
	xvbd_out_arr_begin(o, "warnings");
	for (i = 0; i < ap->nwarnings; i++)
		xvbd_out_str(o, NULL, ap->warnings[i]);
	xvbd_out_arr_end(o);
	xvbd_out_obj_end(o);
}

/* On failure: what was done before it, what was not run (stderr). */
static void report_failure(struct apply *ap)
{
	char done[512] = "", notrun[512] = "";
	size_t i;

	for (i = 0; i < ap->n; i++) {
		const struct apply_item *it = &ap->items[i];
		char *buf = it->status == ST_DONE ? done :
			    it->status == ST_NOT_RUN ? notrun : NULL;

		if (buf && strlen(buf) + strlen(it->vdev) + 24 < sizeof(done))
			sprintf(buf + strlen(buf), "%s%s %s", buf[0] ? ", " :
				"", it->vdev, apply_act_name(it->act));
	}
	xvbd_err(CMD, ap->plan_path, "stopped at a failure; done before it: "
		 "%s; not run: %s", done[0] ? done : "nothing",
		 notrun[0] ? notrun : "nothing");
}

int cmd_apply(struct xvbd_ctx *ctx, int argc, char **argv)
{
	struct apply *ap = calloc(1, sizeof(*ap));
	size_t i;
	int rc;

	if (!ap) {
		xvbd_err(CMD, NULL, "%s", strerror(ENOMEM));
		return XVBD_EXIT_FAIL;
	}
	ap->ctx = ctx;
	ap->dom.lock_fd = -1;
	rc = parse_args(ap, argc, argv);
	if (!rc)
		rc = xvbd_cmd_connect(ctx);
	if (!rc)
		rc = find_guest(ap);
	if (!rc)
		rc = apply_read(ap);
	if (rc)
		goto out;
	if (ap->check) {
		for (i = 0; i < ap->n; i++) {
			struct apply_item *it = &ap->items[i];

			it->status = it->act == ACT_NONE ||
				     it->act == ACT_REATTACH ? ST_NONE :
				     ST_PLANNED;
			apply_planned(it, &it->after);
			if (it->act == ACT_NONE)
				it->after = it->before;
		}
	} else {
		rc = apply_execute(ap);
		if (apply_read_after(ap) && !rc)
			rc = XVBD_EXIT_FAIL;
	}
	/* Also on failure: what was done before it.  cmd.c ends the
	 * document; under --json the out layer adds failed, msg and rc. */
	render(ap);
	if (rc)
		report_failure(ap);
out:
	xvbd_disk_unlock(&ap->dom);
	apply_free(ap);
	free(ap);
	return rc;
}
