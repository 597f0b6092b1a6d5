/*
 * cmd_ab_run_hot.c - ab run's hot experiment: one running guest, and for
 * each run the disk under test of that run's side attached by the disk
 * layer (xvbd/disk/disk.h: the spec, --cache, and the blkif offers set
 * in its paused window), recorded, detached by the handle that attach
 * returned, and checked gone (its xenstore directories, the loop device
 * that attach bound).  The guest and its other disks are never touched:
 * a variable that is a property of one VBD changes in seconds, with no
 * boot.  The guest's domain lock is held for the whole experiment, so no
 * other xvbd command takes the vdev between runs; a disk another tool
 * puts there (xl block-attach) makes the next run's attach fail and is
 * left alone: only what a run attached is detached.
 *
 * Killed with SIGKILL while a disk under test is attached, the journal
 * names it (XVBD_J_ABDISK) and the next xvbd says which command removes
 * it.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd_ab_run_impl.h"
#include "xvbd/base/journal.h"
#include "xvbd/base/lock.h"
#include "xvbd/base/sig.h"
#include "xvbd/base/util.h"
#include "xvbd/cmd/cmd_report.h"
#include "xvbd/xen/blkif.h"
#include "xvbd/xen/tstack.h"

#define CMD		"ab run"
/* After the detach: how long the hotplug script may take to free it. */
#define GONE_TIMEOUT_MS	10000

/* --sweep's key set by another option as well: which value is meant? */
static bool sweep_clash(const struct ab_hot_side *sd,
			const struct xvbd_ovr_set *set)
{
	const char *by = !strcmp(sd->sweep_key, "cache") && sd->cache ?
			 sd->cache_opt : NULL;
	size_t k;

	for (k = 0; !by && set && k < set->n; k++)
		if (!strcmp(set->items[k].key->name, sd->sweep_key))
			by = sd->vbd_opt;
	if (by)
		xvbd_err(CMD, "--sweep", "%s is also set by %s: sweep it or "
			 "set it, not both", sd->sweep_key, by);
	return by != NULL;
}

/*
 * Level i's disk through the disk layer's parser: its spec, its cache,
 * the offers of its --vbd set, its --sweep value.  Usage errors printed:
 * 2.
 */
static int describe_side(struct ab_hot *h, int i,
			 const struct xvbd_ovr_set *set)
{
	const struct ab_hot_side *sd = &h->side[i];
	struct xvbd_disk_desc *d = &h->desc[i];
	struct xvbd_report rep;
	size_t k;

	xvbd_report_init(&rep, NULL, NULL);
	xvbd_disk_desc_init(d, XVBD_DISK_WORDS_KEYS,
			    XVBD_DISK_SOURCE(XVBD_DISK_SPEC));
	if (xvbd_disk_desc_set(d, "spec", sd->spec, &rep)) {
		xvbd_err(CMD, sd->spec_opt, "\"%s\": %s", sd->spec, rep.why);
		return XVBD_EXIT_USAGE;
	}
	if (sd->cache && xvbd_disk_desc_set(d, "cache", sd->cache, &rep)) {
		xvbd_err(CMD, sd->cache_opt, "%s", rep.why);
		return XVBD_EXIT_USAGE;
	}
	if (sd->sweep_key && sweep_clash(sd, set))
		return XVBD_EXIT_USAGE;
	if (sd->sweep_key &&
	    xvbd_disk_desc_set(d, sd->sweep_key, sd->sweep_value, &rep)) {
		xvbd_err(CMD, "--sweep", "%s", rep.why);
		return XVBD_EXIT_USAGE;
	}
	for (k = 0; set && k < set->n; k++) {
		const char *key = set->items[k].key->name;
		char value[24];

		snprintf(value, sizeof(value), "%llu",
			 (unsigned long long)set->items[k].value);
		if (!xvbd_disk_desc_set(d, key, value, &rep))
			continue;
		xvbd_err(CMD, sd->vbd_opt, "%s: not one attach offers to a "
			 "running guest (ring-order, queues, indirect-segments, "
			 "discard, trusted)", key);
		return XVBD_EXIT_USAGE;
	}
	if (xvbd_disk_desc_check(d, &rep)) {
		xvbd_err(CMD, sd->spec_opt, "\"%s\": %s", sd->spec, rep.why);
		return XVBD_EXIT_USAGE;
	}
	if (d->auto_vdev) {
		xvbd_err(CMD, sd->spec_opt, "\"%s\": name its vdev (vdev=xvdb): "
			 "every level is the same disk of the guest", sd->spec);
		return XVBD_EXIT_USAGE;
	}
	return 0;
}

/* The --vbd sets: the disk under test only, one set a level. */
static int check_sets(const struct ab_hot *h, struct xvbd_ovr_set *const sets[],
		      const size_t nsets[])
{
	size_t i, j;

	for (i = 0; i < h->nlevels; i++)
		for (j = 0; j < nsets[i]; j++) {
			if (sets[i][j].devid == h->devid)
				continue;
			xvbd_err(CMD, h->side[i].vbd_opt, "%s: the disk under "
				 "test is %s (the guest's other disks stay as "
				 "they are)", sets[i][j].vdev, h->vdev);
			return XVBD_EXIT_USAGE;
		}
	return 0;
}

/* --sweep: each value a disk of its own (on and 1 are one value). */
static int check_sweep_values(const struct ab_hot *h)
{
	size_t i, j;

	for (i = 0; i < h->nlevels && h->side[0].sweep_key; i++)
		for (j = 0; j < i; j++) {
			if (!xvbd_disk_desc_same(&h->desc[i], &h->desc[j]))
				continue;
			xvbd_err(CMD, "--sweep", "%s=%s and %s=%s are the same "
				 "setting: give each value once",
				 h->side[j].sweep_key, h->side[j].sweep_value,
				 h->side[i].sweep_key, h->side[i].sweep_value);
			return XVBD_EXIT_USAGE;
		}
	return 0;
}

int ab_hot_check(struct ab_hot *h, struct xvbd_ovr_set *const sets[],
		 const size_t nsets[])
{
	size_t i;
	int rc;

	h->desc = calloc(h->nlevels, sizeof(*h->desc));
	if (!h->desc) {
		xvbd_err(CMD, NULL, "%s", strerror(ENOMEM));
		return XVBD_EXIT_FAIL;
	}
	/* the vdev first: a --vbd set of another disk is named as such */
	for (i = 0; i < h->nlevels; i++) {
		rc = describe_side(h, (int)i, NULL);
		if (rc)
			return rc;
		if (h->desc[i].devid == h->desc[0].devid)
			continue;
		xvbd_err(CMD, h->side[i].spec_opt, "vdev %s, but the first "
			 "level's is %s: every level is the same disk of the "
			 "guest (give them one vdev)", h->desc[i].vdev,
			 h->desc[0].vdev);
		return XVBD_EXIT_USAGE;
	}
	snprintf(h->vdev, sizeof(h->vdev), "%s", h->desc[0].vdev);
	h->devid = h->desc[0].devid;
	rc = check_sets(h, sets, nsets);
	for (i = 0; i < h->nlevels && !rc; i++)
		rc = describe_side(h, (int)i, nsets[i] ? &sets[i][0] : NULL);
	return rc ? rc : check_sweep_values(h);
}

int ab_hot_prepare(struct xvbd_ctx *ctx, struct ab_hot *h)
{
	struct xvbd_disk_handle there;
	struct xvbd_dominfo info;
	int rc, err;

	h->dom.lock_fd = -1;
	rc = xvbd_cmd_domain_lookup(ctx, h->domain, &h->domid, &h->name);
	if (rc)
		return rc;
	if (h->domid == 0) {
		xvbd_err(CMD, "--domain", "dom0 gets no VBDs from xvbd: give "
			 "a running guest");
		return XVBD_EXIT_USAGE;
	}
	err = xvbd_tstack_domain_info(ctx->ts, h->domid, &info);
	if (err || info.shutdown || info.dying) {
		xvbd_err(CMD, "--domain", "%s is not running: the hot mode "
			 "attaches its disks to a running guest", h->name);
		return XVBD_EXIT_FAIL;
	}
	xvbd_cmd_report_init(ctx, &h->rep);
	h->env = (struct xvbd_disk_env){ ctx->ts, ctx->xs, &h->rep };
	rc = xvbd_disk_dom_init(&h->env, h->domid, h->name, &h->dom);
	/* The vdev stays free for the experiment: no xvbd attach of this
	 * guest picks it between runs, and this one waits for any under
	 * way before it looks. */
	if (!rc && !ctx->opts->dry_run)
		rc = xvbd_disk_lock(&h->env, &h->dom, h->timeout_s,
				    !ctx->opts->quiet && isatty(STDERR_FILENO));
	if (rc)
		return rc;
	err = xvbd_disk_find(&h->env, &h->dom, h->devid, &there);
	if (!err) {
		xvbd_err(CMD, h->side[0].spec_opt, "%s already has %s (target "
			 "%s): give the levels a vdev it does not use (each "
			 "run attaches the disk under test and detaches it "
			 "after)", h->name,
			 h->vdev, there.target[0] ? there.target : "none");
		return XVBD_EXIT_FAIL;
	}
	if (err != -ENOENT) {
		xvbd_err(CMD, "disks", "domain %s: %s", h->name,
			 strerror(-err));
		return XVBD_EXIT_FAIL;
	}
	return 0;
}

void ab_hot_render_plan(struct xvbd_ctx *ctx, const struct ab_hot *h,
			int i)
{
	char text[XVBD_DISK_ARG_MAX + 256];

	/* the disk as attach will add it: its cache and offers too */
	xvbd_disk_desc_text(&h->desc[i], text, sizeof(text));
	xvbd_out_str(ctx->out, "domain", h->name);
	xvbd_out_str(ctx->out, "disk", h->side[i].spec);
	xvbd_out_str(ctx->out, "cache", h->side[i].cache);
	xvbd_out_str(ctx->out, "vdev", h->vdev);
	xvbd_out_str(ctx->out, "attaches", text);
}

/*
 * libxl learns of its hotplug scripts' exit from SIGCHLD, which the
 * recorder keeps blocked: open it for the attach and the detach.
 */
static void open_sigchld(void)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
}

/*
 * Detach what this run attached (its handle: never whatever else is at
 * the vdev now), and see it gone.  The handle's own loop device is the
 * one looked at, not any loop over the same file (a guest's disk of the
 * same read-only image has its own), and the target is never stat'ed (on
 * a share whose server died that would hang with the disk attached).
 */
static int detach_check(struct ab_hot *h, const struct xvbd_disk_handle *mine,
			const char *entry)
{
	struct xvbd_disk_detach_opts opts = {
		.gone_timeout_ms = GONE_TIMEOUT_MS,
	};
	struct xvbd_disk_detach_result res;
	int rc;

	open_sigchld();
	rc = xvbd_disk_detach(&h->env, mine, &opts, &res);
	if (res.left[0]) {
		xvbd_err(CMD, h->vdev, "detached from %s, but %s is still "
			 "there", h->name, res.left);
		xvbd_hint("see `xvbd show %s`; remove it with: xvbd detach %s "
			  "%s --force", h->name, h->name, h->vdev);
		return XVBD_EXIT_FAIL;
	}
	if (!rc)
		xvbd_journal_done(XVBD_J_ABDISK, "%s", entry);
	return rc;
}

int ab_hot_run(struct xvbd_ctx *ctx, struct ab_hot *h, int i,
	       struct xvbd_ab_rec_opts *ro, struct xvbd_ab_record *rec,
	       const char **stopped_by)
{
	struct xvbd_disk_attach_opts opts = {
		.wait = true, .timeout_s = h->timeout_s, .jobs = 1,
	};
	struct xvbd_disk_attach_result res;
	struct xvbd_disk_handle *mine = calloc(1, sizeof(*mine));
	const char *vdevs[1] = { h->vdev };
	char domspec[16], entry[XVBD_PATH_MAX + 400];
	int rc, err;

	memset(rec, 0, sizeof(*rec));
	*stopped_by = NULL;
	if (!mine) {
		xvbd_err(CMD, NULL, "%s", strerror(ENOMEM));
		return XVBD_EXIT_FAIL;
	}
	/* Its target too: what a later report finds at the vdev is this
	 * run's disk only if it has that target. */
	snprintf(entry, sizeof(entry), "%u %u %s %s %s", h->domid, h->devid,
		 h->vdev, h->desc[i].target[0] ? h->desc[i].target : "-",
		 h->name);
	err = xvbd_journal_note(XVBD_J_ABDISK, "%s", entry);
	if (err) {
		xvbd_err(CMD, XVBD_JOURNAL_DIR, "%s", strerror(-err));
		free(mine);
		return XVBD_EXIT_FAIL;
	}
	xvbd_test_stop("ab-run-attach");
	open_sigchld();
	rc = xvbd_disk_attach(&h->env, &h->dom, &h->desc[i], 1, &opts, mine,
			      &res);
	if (rc)
		xvbd_hint("the variable under test did not take effect: the "
			  "experiment stops");
	else if (mine->have_loop)
		xvbd_report_say(&h->rep, XVBD_SAY_VERBOSE, h->vdev, "%s "
				"attached (backend %s, /dev/loop%u, diskseq "
				"%llu)", mine->target, mine->backend_path,
				mine->loop.nr,
				(unsigned long long)mine->loop.diskseq);
	else
		xvbd_report_say(&h->rep, XVBD_SAY_VERBOSE, h->vdev, "%s "
				"attached (backend %s)", mine->target,
				mine->backend_path);
	if (!rc && xvbd_sig_held_pending())
		rc = XVBD_EXIT_FAIL;
	if (!rc) {
		snprintf(domspec, sizeof(domspec), "%u", h->domid);
		ro->domain_spec = domspec;
		ro->under_test_vdev = h->vdev;
		if (!ro->nvdev_args) {
			ro->vdev_args = vdevs;
			ro->nvdev_args = 1;
		}
		rc = xvbd_ab_recorder_run(ctx, ro, false, rec, stopped_by);
	}
	/* Only what this run added; an attach that added nothing (the vdev
	 * taken by another tool meanwhile) leaves that disk alone. */
	err = mine->added ? detach_check(h, mine, entry) : 0;
	if (!mine->added)
		xvbd_journal_done(XVBD_J_ABDISK, "%s", entry);
	free(mine);
	return rc ? rc : err;
}

void ab_hot_free(struct ab_hot *h)
{
	/* (prepare set lock_fd before it looked the guest up) */
	if (h->name)
		xvbd_disk_unlock(&h->dom);
	free(h->name);
	h->name = NULL;
	free(h->desc);
	h->desc = NULL;
}
