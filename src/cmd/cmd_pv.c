/*
 * cmd_pv.c - xvbd pv <Domain|CONFIG_FILE> [status|on|off]
 *		[--config FILE] [--linux-unplug] [--reboot] [--timeout S]
 *		[--settle S] [--json]
 *
 * PV drivers on or off per guest, and which disk path a guest really
 * uses.  status: what a config file asks for, or for a running guest its
 * type, libxl's stored xen_platform_pci and per VBD the path with its
 * evidence (cmd_pv_status.c).  on/off: an edit of the config file
 * (xen_platform_pci, and with --linux-unplug xen_emul_unplug=never on a
 * direct-boot kernel's command line) that libxlutil must read back as the
 * same configuration but for that setting; every other byte is kept, the
 * file is replaced atomically with a backup, and not at all when it
 * changed meanwhile.  -N prints the diff instead.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xvbd/base/cfgfile.h"
#include "xvbd/base/journal.h"
#include "xvbd/base/sig.h"
#include "xvbd/cmd/cmd.h"
#include "xvbd/cmd/cmd_pv.h"
#include "xvbd/base/spawn.h"

#define PV_BACKUP_SUFFIX	".xvbd-bak"
#define PV_TIMEOUT_S		300
#define PV_TIMEOUT_MAX_S	3600
#define PV_SETTLE_MAX_S		86400
#ifdef XVBD_TEST_HOOKS
/* A program run between reading the file and replacing it (tests). */
#define PV_TEST_HOOK_ENV	"XVBD_TEST_PV_HOOK"
#endif

/*
 * A CONFIG_FILE, not a domain: a path or a .cfg name.  Not "a file of
 * that name exists": in /etc/xen, "win10" is both, and means the domain.
 */
static bool looks_like_file(const char *arg)
{
	size_t len = strlen(arg);

	return strchr(arg, '/') || (len > 4 && !strcmp(arg + len - 4, ".cfg"));
}

enum { O_CONFIG, O_LINUX_UNPLUG, O_REBOOT, O_TIMEOUT, O_SETTLE };

const struct xvbd_cmdopt cmd_pv_opts[] = {
	[O_CONFIG] = XVBD_OPT_STR("config", 'c', "FILE", 0,
		"the xl config a running domain is created from"),
	[O_LINUX_UNPLUG] = XVBD_OPT_F("linux-unplug", 0,
		"also set the Linux guest's xen_emul_unplug= on its command "
		"line"),
	[O_REBOOT] = XVBD_OPT_F("reboot", 0, "reboot the domain so that "
		"the change takes effect, and wait for it"),
	[O_TIMEOUT] = XVBD_OPT_S("timeout", 0, 1, PV_TIMEOUT_MAX_S,
		"how long --reboot waits (default 300s)"),
	[O_SETTLE] = XVBD_OPT_S("settle", 0, 0, PV_SETTLE_MAX_S,
		"status: the uptime after which an HVM disk whose frontend "
		"never left Initialising counts as emulated (default 120s)"),
	XVBD_OPT_END,
};

/* Whole seconds: a fraction rounds up (timeouts count whole seconds). */
static uint64_t whole_s(uint64_t ns)
{
	return (ns + XVBD_NS_PER_S - 1) / XVBD_NS_PER_S;
}

static int parse_opts(struct xvbd_ctx *ctx, int argc, char **argv,
		      struct pv_opts *po)
{
	const struct xvbd_optval *v;
	const char *action = "status";
	int i = 0;

	po->timeout_s = PV_TIMEOUT_S;
	po->settle_s = XVBD_PV_SETTLE_S_DEFAULT;
	if ((v = xvbd_opt(ctx, O_CONFIG)))
		po->config = v->arg;
	po->linux_unplug = xvbd_opt(ctx, O_LINUX_UNPLUG) != NULL;
	po->reboot = xvbd_opt(ctx, O_REBOOT) != NULL;
	if ((v = xvbd_opt(ctx, O_TIMEOUT)))
		po->timeout_s = (int)whole_s(v->u);
	if ((v = xvbd_opt(ctx, O_SETTLE)))
		po->settle_s = whole_s(v->u);
	if (argc < 1)
		return xvbd_usage_error(ctx->cmd, "missing the domain or "
					"config file");
	po->target = argv[i++];
	if (i < argc)
		action = argv[i++];
	if (!strcmp(action, "status"))
		po->action = PV_STATUS;
	else if (!strcmp(action, "on"))
		po->action = PV_ON;
	else if (!strcmp(action, "off"))
		po->action = PV_OFF;
	else
		return xvbd_usage_error(ctx->cmd, "\"%s\": expected status, "
					"on or off", action);
	po->is_file = looks_like_file(po->target);
	if (po->action == PV_STATUS &&
	    (po->config || po->linux_unplug || po->reboot))
		return xvbd_usage_error(ctx->cmd, "--config, --linux-unplug "
					"and --reboot go with on and off");
	if (po->action == PV_STATUS && ctx->opts->dry_run)
		return xvbd_usage_error(ctx->cmd, "-N goes with on and off "
					"(status writes nothing)");
	if (po->is_file && (po->config || po->reboot))
		return xvbd_usage_error(ctx->cmd, "--config and --reboot need "
					"a running domain, not a config file");
	if (po->reboot && ctx->opts->dry_run)
		return xvbd_usage_error(ctx->cmd, "--reboot with -N: a dry "
					"run reboots nothing");
	if (!po->is_file && po->action != PV_STATUS && !po->config)
		return xvbd_usage_error(ctx->cmd, "%s: libxl records no "
					"config file for a domain: give the "
					"one it is created from with --config "
					"FILE", po->target);
	return XVBD_EXIT_OK;
}

/* ---- on / off: the edit ---- */

#ifdef XVBD_TEST_HOOKS
/*
 * XVBD_TEST_PV_HOOK FILE, run where a concurrent editor could strike.
 * Test builds only (make TEST_HOOKS=1, SANITIZE=1): a shipped xvbd runs
 * no program an environment names.
 */
static void run_test_hook(void *arg)
{
	const char *hook = getenv(PV_TEST_HOOK_ENV);
	char *argv[] = { (char *)hook, arg, NULL };
	int status;

	if (hook && *hook && xvbd_spawn(argv, &status) == 0 && status)
		xvbd_err("pv", PV_TEST_HOOK_ENV, "%s exited with %d", hook,
			 status);
}
#define PV_TEST_HOOK	run_test_hook
#else
#define PV_TEST_HOOK	NULL
#endif

/*
 * The edited text must read back, for libxlutil, as the same config but
 * for the planned settings, and those as planned.
 */
static int verify_edit(const struct pv_edit *e, const char *new_text,
		       size_t new_len, char *why, size_t why_len)
{
	const struct xvbd_pv_plan *plan = &e->plan;
	const struct xvbd_pv_facts *before = &e->cfg.facts;
	const char *except[2] = { XVBD_PV_PLATFORM_KEY, plan->cmdline_key };
	struct xvbd_pvcfg after;
	const struct xvbd_pv_facts *f = &after.facts;
	int rc;

	rc = xvbd_tstack_pvcfg_parse(e->file.real, new_text, new_len, &after,
				     why, why_len);
	if (rc)
		return -EINVAL;
	if (f->type != before->type ||
	    f->platform_on != (plan->platform_edit ? plan->platform_after :
			       before->platform_on) ||
	    (plan->cmdline_key && (!f->cmdline ||
				   strcmp(f->cmdline_key, plan->cmdline_key) ||
				   strcmp(f->cmdline, plan->cmdline_after))))
		rc = 1;
	xvbd_tstack_pvcfg_free(&after);
	if (rc) {
		snprintf(why, why_len, "the edited text does not read back "
			 "as intended");
		return -EINVAL;
	}
	rc = xvbd_tstack_xlcfg_compare(e->file.data, e->file.len, new_text,
				       new_len, except,
				       plan->cmdline_key ? 2 : 1, why, why_len);
	if (rc == 1) {
		char what[96];

		snprintf(what, sizeof(what), "%.80s", why);
		snprintf(why, why_len, "the edit would change more than the "
			 "switch (%s)", what);
	}
	return rc ? -EINVAL : 0;
}

/*
 * Plan, prove and (unless dry_run) write the edit of e->file.  Prints
 * the error; returns the exit code.
 */
static int pv_edit(const struct pv_opts *po, const char *path, bool dry_run,
		   struct pv_edit *e)
{
	struct xvbd_pv_want want = { po->action == PV_ON, po->linux_unplug };
	struct xvbd_xlcfg_scan scan;
	char why[512];
	size_t new_len = 0;
	int rc;

	rc = xvbd_xlcfg_scan(e->file.data, e->file.len, &scan, why,
			     sizeof(why));
	if (rc) {
		/* libxlutil parsed it: xvbd's scanner is wrong, not the file */
		xvbd_err("pv", path, "xvbd cannot edit it: %s", why);
		return XVBD_EXIT_FAIL;
	}
	rc = xvbd_pv_plan(&scan, &e->cfg.facts, &want, &e->plan, why,
			  sizeof(why));
	xvbd_xlcfg_scan_free(&scan);
	if (rc) {
		xvbd_err("pv", po->action == PV_ON ? "on" : "off", "%s: %s",
			 path, why);
		return XVBD_EXIT_FAIL;
	}
	if (!e->plan.edits.n)
		return XVBD_EXIT_OK;
	rc = xvbd_xlcfg_apply(e->file.data, e->file.len, &e->plan.edits,
			      &e->new_text, &new_len);
	if (!rc)
		rc = xvbd_xlcfg_diff(path, e->file.data, e->file.len,
				     &e->plan.edits, &e->diff);
	if (rc) {
		xvbd_err("pv", path, "%s", strerror(-rc));
		return XVBD_EXIT_FAIL;
	}
	if (verify_edit(e, e->new_text, new_len, why, sizeof(why))) {
		xvbd_err("pv", path, "%s: nothing written", why);
		return XVBD_EXIT_FAIL;
	}
	if (dry_run)
		return XVBD_EXIT_OK;
	rc = xvbd_cfgfile_check_writable(&e->file, why, sizeof(why));
	if (!rc)
		rc = xvbd_cfgfile_replace(&e->file, e->new_text, new_len,
					  PV_BACKUP_SUFFIX, PV_TEST_HOOK,
					  e->file.real, &e->backup, why,
					  sizeof(why));
	if (rc) {
		xvbd_err("pv", path, "%s", why);
		return XVBD_EXIT_FAIL;
	}
	e->written = true;
	return XVBD_EXIT_OK;
}

static void render_edit(struct xvbd_ctx *ctx, const struct pv_opts *po,
			const char *path, const struct pv_edit *e,
			const char *domain, const struct pv_reboot *rb)
{
	const struct xvbd_pv_plan *plan = &e->plan;
	const struct xvbd_pv_facts *f = &e->cfg.facts;
	struct xvbd_out *o = ctx->out;
	bool dry = ctx->opts->dry_run, hvm = f->type == XVBD_GUEST_HVM;
	char when[256];

	/* A dry run's text is the diff itself, as diff -u prints it. */
	if (dry && !ctx->opts->json) {
		fputs(e->diff ? e->diff : "", stdout);
		return;
	}
	if (rb && rb->done)
		snprintf(when, sizeof(when), "now: %s was created again from "
			 "%s", domain, path);
	else if (domain)
		snprintf(when, sizeof(when), "at the next boot of %s from %s",
			 domain, path);
	else
		snprintf(when, sizeof(when), "when a guest is next created "
			 "from %s", path);
	xvbd_out_obj_begin(o, NULL);
	xvbd_out_str(o, "config", path);
	if (domain)
		xvbd_out_str(o, "domain", domain);
	xvbd_out_str(o, "type", xvbd_guest_type_name(f->type));
	xvbd_out_str(o, "action", po->action == PV_ON ? "on" : "off");
	if (hvm) {
		xvbd_out_bool(o, "xen_platform_pci_before", f->platform_on);
		xvbd_out_bool(o, "xen_platform_pci", plan->platform_edit ?
			      plan->platform_after : f->platform_on);
	} else {
		xvbd_out_null(o, "xen_platform_pci");
		xvbd_out_note(o, "PV is the only disk path of a PV or PVH "
			      "guest: nothing to switch");
	}
	if (plan->cmdline_key) {
		xvbd_out_str(o, "cmdline_key", plan->cmdline_key);
		xvbd_out_str(o, "cmdline_before", plan->cmdline_before);
		xvbd_out_str(o, "cmdline", plan->cmdline_after);
	}
	xvbd_out_bool(o, "changed", plan->edits.n > 0);
	if (!plan->edits.n)
		xvbd_out_note(o, "the file already says so");
	xvbd_out_bool(o, "written", e->written);
	if (dry)
		xvbd_out_str(o, "diff", e->diff ? e->diff : "");
	if (e->written) {
		xvbd_out_str(o, "backup", e->backup);
		xvbd_out_str(o, "takes_effect", when);
	}
	if (rb && rb->done) {
		xvbd_out_uint(o, "rebooted_domid", rb->new_domid);
	} else if (domain && rb && rb->wanted) {
		xvbd_out_null(o, "rebooted_domid");
		xvbd_out_note(o, rb->why);
	}
	xvbd_out_obj_end(o);
}

/* ---- --reboot ---- */

static int reboot_steps(struct xvbd_ctx *ctx, const struct pv_opts *po,
			uint32_t domid, const char *domain,
			struct pv_reboot *rb)
{
	uint32_t other;
	int rc, status = 0;

	rc = xvbd_tstack_shutdown(ctx->ts, domid);
	if (rc) {
		xvbd_err("pv", "--reboot", "%s: clean shutdown refused (%s)",
			 domain, rc == -EOPNOTSUPP ? "no PV drivers to hear "
			 "it" : strerror(-rc));
		return XVBD_EXIT_FAIL;
	}
	rc = xvbd_tstack_wait_gone(ctx->ts, domid, po->timeout_s * 1000);
	if (rc) {
		xvbd_err("pv", "--reboot", "%s: still there after %d s "
			 "(%s)", domain, po->timeout_s, strerror(-rc));
		if (!ctx->opts->quiet)
			xvbd_hint("see \"xl list %s\"; --timeout gives it "
				  "longer", domain);
		return XVBD_EXIT_FAIL;
	}
	/* An on_poweroff/on_reboot action may have started it again. */
	if (!xvbd_tstack_name_to_domid(ctx->ts, domain, &other)) {
		xvbd_err("pv", "--reboot", "%s came back by itself as domain "
			 "%u (its on_poweroff action?): not created again",
			 domain, other);
		return XVBD_EXIT_FAIL;
	}
	rc = xvbd_tstack_create(ctx->ts, po->config, domain, false,
				&rb->new_domid, &status);
	if (rc) {
		xvbd_err("pv", "--reboot", "xl create %s: %s", po->config,
			 rc == -EIO ? "failed (see its messages above)" :
			 strerror(-rc));
		return XVBD_EXIT_FAIL;
	}
	rb->done = true;
	return XVBD_EXIT_OK;
}

/*
 * Shut down, wait until gone, create again: from the shutdown on, a
 * Ctrl-C is held until the guest is created again (or the step failed,
 * said), and a SIGKILL leaves a journal entry naming the guest that is
 * down and the command that starts it.
 */
static int reboot_domain(struct xvbd_ctx *ctx, const struct pv_opts *po,
			 uint32_t domid, const char *domain,
			 struct pv_reboot *rb)
{
	sigset_t old;
	int rc;

	if (xvbd_interrupted()) {
		xvbd_err("pv", "interrupted", "by %s before --reboot: the file "
			 "is written, %s not rebooted",
			 xvbd_sig_name(xvbd_interrupted()), domain);
		return XVBD_EXIT_FAIL;
	}
	xvbd_sig_hold(&old);
	xvbd_journal_note(XVBD_J_REBOOT_CFG, "%s", po->config);
	xvbd_journal_note(XVBD_J_REBOOT, "%u %s", domid, domain);
	rc = reboot_steps(ctx, po, domid, domain, rb);
	xvbd_journal_done(XVBD_J_REBOOT, "%u %s", domid, domain);
	xvbd_journal_done(XVBD_J_REBOOT_CFG, "%s", po->config);
	if (xvbd_sig_held_pending() && !rc) {
		xvbd_err("pv", "interrupted", "during --reboot: finished it "
			 "first (%s is domain %u)", domain, rb->new_domid);
		rc = XVBD_EXIT_FAIL;
	}
	xvbd_sig_release(&old);
	return rc;
}

/* Does the running domain differ from what the file now says? */
static bool running_differs(const struct xvbd_pvdom *dom,
			    const struct pv_edit *e)
{
	const struct xvbd_pv_facts *f = &e->cfg.facts;
	bool want_on = e->plan.platform_edit ? e->plan.platform_after :
		       f->platform_on;
	const char *want_cmdline = e->plan.cmdline_key ?
				   e->plan.cmdline_after : f->cmdline;

	if (dom->facts.type != XVBD_GUEST_HVM || f->type != XVBD_GUEST_HVM)
		return e->written;
	return e->written || !dom->stored ||
	       dom->facts.platform_on != want_on ||
	       xvbd_pv_unplug_never(dom->facts.cmdline) !=
	       xvbd_pv_unplug_never(want_cmdline);
}

static int pv_domain_switch(struct xvbd_ctx *ctx, const struct pv_opts *po)
{
	struct pv_edit e = { 0 };
	struct pv_reboot rb = { 0 };
	struct xvbd_pvdom dom = { 0 };
	struct pv_lock lk = { NULL, -1 };
	char *domain = NULL;
	uint32_t domid;
	int rc, err;

	rc = xvbd_cmd_connect(ctx);
	if (rc)
		return rc;
	rc = xvbd_cmd_domain_lookup(ctx, po->target, &domid, &domain);
	if (rc)
		return rc;
	if (!ctx->opts->dry_run)
		rc = pv_lock(ctx, po->config, &lk);
	if (!rc)
		rc = pv_load(po->config, &e);
	if (rc)
		goto out;
	/* The file must be the domain's, or the edit goes elsewhere. */
	if (strcmp(e.cfg.xl.name, domain)) {
		xvbd_err("pv", po->config, "its name= is \"%s\", not %s: not "
			 "this domain's config", e.cfg.xl.name, domain);
		rc = XVBD_EXIT_FAIL;
		goto out;
	}
	err = xvbd_tstack_pvdom_read(ctx->ts, domid, &dom);
	if (err) {
		xvbd_err("pv", "domain", "%s: %s", domain, strerror(-err));
		rc = XVBD_EXIT_FAIL;
		goto out;
	}
	rc = pv_edit(po, po->config, ctx->opts->dry_run, &e);
	if (rc)
		goto out;
	if (po->reboot) {
		rb.wanted = true;
		if (!running_differs(&dom, &e))
			rb.why = "not rebooted: it already runs as the file "
				 "says";
		else
			rc = reboot_domain(ctx, po, domid, domain, &rb);
	}
	render_edit(ctx, po, po->config, &e, domain, &rb);
out:
	xvbd_tstack_pvdom_free(&dom);
	pv_edit_free(&e);
	pv_unlock(&lk);
	free(domain);
	return rc;
}

static int pv_file_switch(struct xvbd_ctx *ctx, const struct pv_opts *po)
{
	struct pv_edit e = { 0 };
	struct pv_lock lk = { NULL, -1 };
	int rc = ctx->opts->dry_run ? 0 : pv_lock(ctx, po->target, &lk);

	if (!rc)
		rc = pv_load(po->target, &e);
	if (!rc)
		rc = pv_edit(po, po->target, ctx->opts->dry_run, &e);
	if (!rc)
		render_edit(ctx, po, po->target, &e, NULL, NULL);
	pv_edit_free(&e);
	pv_unlock(&lk);
	return rc;
}

int cmd_pv(struct xvbd_ctx *ctx, int argc, char **argv)
{
	struct pv_opts po = { 0 };
	int rc = parse_opts(ctx, argc, argv, &po);

	if (rc)
		return rc;
	if (po.action == PV_STATUS)
		return po.is_file ? pv_file_status(ctx, &po) :
		       pv_domain_status(ctx, &po);
	return po.is_file ? pv_file_switch(ctx, &po) :
	       pv_domain_switch(ctx, &po);
}
