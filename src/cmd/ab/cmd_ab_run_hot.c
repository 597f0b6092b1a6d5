/*
 * cmd_ab_run_hot.c - ab run's hot experiment: one running guest, and for
 * each run the disk under test of that run's side attached (through
 * `xvbd attach` itself: the same spec parsing, --cache, and the blkif
 * offers set in its paused window), recorded, detached, and checked gone
 * (its backend and frontend directories, the loop device over its
 * image).  The guest and its other disks are never touched: a variable
 * that is a property of one VBD changes in seconds, with no boot.
 *
 * Killed with SIGKILL while a disk under test is attached, the journal
 * names it (XVBD_J_ABDISK) and the next xvbd says which command removes
 * it.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd_ab_run_impl.h"
#include "xvbd/base/journal.h"
#include "xvbd/base/sig.h"
#include "xvbd/base/util.h"
#include "xvbd/dom0/cache.h"
#include "xvbd/dom0/loop.h"
#include "xvbd/xen/blkif.h"
#include "xvbd/xen/tstack.h"
#include "xvbd/xen/xs.h"

#define CMD		"ab run"
/* attach's own options for the offers (its --ring-order ...). */
#define ATTACH_ARGS_MAX	(8 + 2 * XVBD_OVR_NKEYS)
/* After the detach: how long the hotplug script may take to free it. */
#define GONE_TRIES	100
#define GONE_WAIT_US	100000

/* The keys attach offers in its paused window (its option names). */
static bool attach_offers(enum xvbd_ovr_id id)
{
	return id == XVBD_OVR_RING_ORDER || id == XVBD_OVR_QUEUES ||
	       id == XVBD_OVR_INDIRECT || id == XVBD_OVR_DISCARD ||
	       id == XVBD_OVR_TRUSTED;
}

/* The vdev a side's spec names ("" when none); 0 or usage error. */
static int spec_vdev(const char *opt, const char *spec, char *vdev,
		     size_t len)
{
	struct xvbd_tstack_disk *d = NULL;
	struct xvbd_tstack_disk_info info;
	char why[256] = "";

	if (xvbd_tstack_disk_parse(spec, &d, why, sizeof(why))) {
		xvbd_err(CMD, opt, "\"%s\": %s", spec,
			 why[0] ? why : "not an xl disk spec");
		return XVBD_EXIT_USAGE;
	}
	xvbd_tstack_disk_describe(d, &info);
	snprintf(vdev, len, "%s", info.vdev ? info.vdev : "");
	xvbd_tstack_disk_free(d);
	return 0;
}

int ab_hot_check(struct ab_hot *h, struct xvbd_ovr_set *const sets[2],
		 const size_t nsets[2])
{
	char vdev[2][32];
	enum xvbd_cache c;
	size_t j, k;
	int i, rc;

	for (i = 0; i < 2; i++) {
		const char *opt = i ? "--disk-b" : "--disk-a";

		if (!h->side[i].spec) {
			xvbd_err(CMD, opt, "--domain runs each side as a disk "
				 "of that guest: give --disk-a SPEC and "
				 "--disk-b SPEC");
			return XVBD_EXIT_USAGE;
		}
		rc = spec_vdev(opt, h->side[i].spec, vdev[i],
			       sizeof(vdev[i]));
		if (rc)
			return rc;
		if (!vdev[i][0] || xvbd_vdev_parse(vdev[i], &h->devid)) {
			xvbd_err(CMD, opt, "\"%s\": name its vdev (vdev=xvdb):"
				 " both sides are the same disk of the guest",
				 h->side[i].spec);
			return XVBD_EXIT_USAGE;
		}
		if (h->side[i].cache &&
		    xvbd_cache_parse(h->side[i].cache, &c)) {
			xvbd_err(CMD, i ? "--cache-b" : "--cache-a", "host or "
				 "none, not \"%s\"", h->side[i].cache);
			return XVBD_EXIT_USAGE;
		}
	}
	if (strcmp(vdev[0], vdev[1])) {
		xvbd_err(CMD, "--disk-b", "vdev %s, but A's is %s: both sides "
			 "are the same disk of the guest (give them one vdev)",
			 vdev[1], vdev[0]);
		return XVBD_EXIT_USAGE;
	}
	snprintf(h->vdev, sizeof(h->vdev), "%s", vdev[0]);
	for (i = 0; i < 2; i++)
		for (j = 0; j < nsets[i]; j++) {
			const struct xvbd_ovr_set *s = &sets[i][j];

			if (s->devid != h->devid) {
				xvbd_err(CMD, i ? "--vbd-b" : "--vbd-a", "%s: "
					 "the disk under test is %s (the "
					 "guest's other disks stay as they "
					 "are)", s->vdev, h->vdev);
				return XVBD_EXIT_USAGE;
			}
			for (k = 0; k < s->n; k++) {
				if (attach_offers(s->items[k].key->id))
					continue;
				xvbd_err(CMD, i ? "--vbd-b" : "--vbd-a", "%s: "
					 "not one attach offers to a running "
					 "guest (ring-order, queues, "
					 "indirect-segments, discard, "
					 "trusted)", s->items[k].key->name);
				return XVBD_EXIT_USAGE;
			}
		}
	return 0;
}

int ab_hot_prepare(struct xvbd_ctx *ctx, struct ab_hot *h)
{
	struct xvbd_disk *disks = NULL, *found = NULL;
	struct xvbd_dominfo info;
	size_t n = 0;
	int rc, err;

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
	err = xvbd_tstack_disk_find(ctx->ts, h->domid, h->devid, &disks, &n,
				    &found);
	xvbd_tstack_disks_free(disks, n);
	if (!err) {
		xvbd_err(CMD, "--disk-a", "%s already has %s: give the sides "
			 "a vdev it does not use (each run attaches the disk "
			 "under test and detaches it after)", h->name,
			 h->vdev);
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
	xvbd_out_str(ctx->out, "domain", h->name);
	xvbd_out_str(ctx->out, "disk", h->side[i].spec);
	xvbd_out_str(ctx->out, "cache", h->side[i].cache);
	xvbd_out_str(ctx->out, "vdev", h->vdev);
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
 * Run `xvbd attach` or `xvbd detach` itself on words (words[0] its name),
 * read by the one command-line parser, its report dropped: ab run
 * reports the experiment.  Its errors go to stderr as attach's own.
 */
static int run_sub(struct xvbd_ctx *ctx, bool attach, char **words, int n)
{
	struct xvbd_ctx sub = *ctx;
	struct xvbd_cmdline cl;
	FILE *null;
	int rc;

	rc = xvbd_cmdline_parse(ctx->cmds, ctx->ncmds, n, words, &cl);
	if (rc || !cl.cmd || cl.cmd->fn != (attach ? cmd_attach :
					     cmd_detach)) {
		xvbd_err(CMD, words[0], "%s", rc ? cl.err : "not found");
		xvbd_cmdline_free(&cl);
		return XVBD_EXIT_FAIL;
	}
	sub.cl = &cl;
	null = fopen("/dev/null", "w");
	if (!null) {
		xvbd_err(CMD, "/dev/null", "%s", strerror(errno));
		xvbd_cmdline_free(&cl);
		return XVBD_EXIT_FAIL;
	}
	sub.out = xvbd_out_new(null, false);
	if (!sub.out) {
		fclose(null);
		xvbd_cmdline_free(&cl);
		return XVBD_EXIT_FAIL;
	}
	open_sigchld();
	rc = cl.cmd->fn(&sub, cl.noperands, cl.operands);
	xvbd_out_free(sub.out);
	fclose(null);
	xvbd_cmdline_free(&cl);
	return rc;
}

static int attach_side(struct xvbd_ctx *ctx, const struct ab_hot *h, int i,
		       const struct xvbd_ovr_set *set)
{
	char domid[16], timeout[16], vals[XVBD_OVR_NKEYS][24];
	char opts[XVBD_OVR_NKEYS][40];
	char *w[ATTACH_ARGS_MAX];
	size_t k;
	int n = 0;

	snprintf(domid, sizeof(domid), "%u", h->domid);
	snprintf(timeout, sizeof(timeout), "%u", h->timeout_s);
	w[n++] = "attach";
	w[n++] = domid;
	w[n++] = (char *)h->side[i].spec;
	w[n++] = "--timeout";
	w[n++] = timeout;
	if (h->side[i].cache) {
		w[n++] = "--cache";
		w[n++] = (char *)h->side[i].cache;
	}
	for (k = 0; set && k < set->n; k++) {
		snprintf(opts[k], sizeof(opts[k]), "--%s",
			 set->items[k].key->name);
		snprintf(vals[k], sizeof(vals[k]), "%" PRIu64,
			 set->items[k].value);
		w[n++] = opts[k];
		w[n++] = vals[k];
	}
	w[n] = NULL;
	return run_sub(ctx, true, w, n);
}

/* The disk under test still there (1), gone (0), or -errno. */
static int disk_present(struct xvbd_ctx *ctx, const struct ab_hot *h)
{
	struct xvbd_disk *disks = NULL, *found = NULL;
	size_t n = 0;
	int err = xvbd_tstack_disk_find(ctx->ts, h->domid, h->devid, &disks,
					&n, &found);

	xvbd_tstack_disks_free(disks, n);
	return err == -ENOENT ? 0 : err ? err : 1;
}

static int backs_target(const struct xvbd_loop *lo, void *arg)
{
	return xvbd_loop_backs(lo, arg) ? (int)lo->nr + 1 : 0;
}

/* What is left of the disk under test: "" when nothing. */
static void leftover(struct xvbd_ctx *ctx, const struct ab_hot *h,
		     const struct stat *img, char *what, size_t len)
{
	struct xvbd_xs_be_path be = { .be_domid = 0, .kind = "vbd",
				      .fe_domid = h->domid,
				      .devid = h->devid };
	char *paths[3], *v;
	int i, nr;

	what[0] = '\0';
	paths[0] = xvbd_xs_path_backend(&be);
	paths[1] = xvbd_xs_path_frontend_vbd(h->domid, h->devid);
	paths[2] = xvbd_xs_path_libxl_vbd(h->domid, h->devid);
	for (i = 0; i < 3; i++) {
		v = paths[i] ? xvbd_xs_read(ctx->xs, paths[i]) : NULL;
		if (v && !what[0])
			snprintf(what, len, "xenstore %s", paths[i]);
		free(v);
		free(paths[i]);
	}
	nr = img ? xvbd_loop_each(backs_target, (void *)img) : 0;
	if (nr > 0 && !what[0])
		snprintf(what, len, "/dev/loop%d over its image", nr - 1);
}

/* Detach the disk under test and see it gone.  Exit code. */
static int detach_check(struct xvbd_ctx *ctx, const struct ab_hot *h,
			const char *target)
{
	char domid[16], vdev[32], what[1100];
	char *w[] = { "detach", domid, vdev, NULL };
	struct stat st;
	bool have_img;
	int rc = 0, tries;

	snprintf(domid, sizeof(domid), "%u", h->domid);
	snprintf(vdev, sizeof(vdev), "%s", h->vdev);
	have_img = target && !stat(target, &st) && S_ISREG(st.st_mode);
	if (disk_present(ctx, h) != 0)
		rc = run_sub(ctx, false, w, 3);
	for (tries = 0; tries < GONE_TRIES; tries++) {
		leftover(ctx, h, have_img ? &st : NULL, what, sizeof(what));
		if (!what[0])
			break;
		usleep(GONE_WAIT_US);
	}
	if (what[0]) {
		xvbd_err(CMD, h->vdev, "detached from %s, but %s is still "
			 "there", h->name, what);
		xvbd_hint("see `xvbd show %s`; remove it with: xvbd detach %s "
			  "%s --force", h->name, h->name, h->vdev);
		return XVBD_EXIT_FAIL;
	}
	if (!rc)
		xvbd_journal_done(XVBD_J_ABDISK, "%u %u %s %s", h->domid,
				  h->devid, h->vdev, h->name);
	return rc;
}

/* The image the disk's backend uses (its target), for the loop check. */
static char *disk_target(struct xvbd_ctx *ctx, const struct ab_hot *h)
{
	struct xvbd_disk *disks = NULL, *found = NULL;
	size_t n = 0;
	char *t = NULL;

	if (!xvbd_tstack_disk_find(ctx->ts, h->domid, h->devid, &disks, &n,
				   &found) && found->target)
		t = strdup(found->target);
	xvbd_tstack_disks_free(disks, n);
	return t;
}

int ab_hot_run(struct xvbd_ctx *ctx, const struct ab_hot *h, int i,
	       const struct xvbd_ovr_set *set, struct xvbd_ab_rec_opts *ro,
	       struct xvbd_ab_record *rec, const char **stopped_by)
{
	char domspec[16];
	const char *vdevs[1] = { h->vdev };
	char *target;
	int rc, err;

	memset(rec, 0, sizeof(*rec));
	*stopped_by = NULL;
	err = xvbd_journal_note(XVBD_J_ABDISK, "%u %u %s %s", h->domid,
				h->devid, h->vdev, h->name);
	if (err) {
		xvbd_err(CMD, XVBD_JOURNAL_DIR, "%s", strerror(-err));
		return XVBD_EXIT_FAIL;
	}
	rc = attach_side(ctx, h, i, set);
	if (rc)
		xvbd_hint("the variable under test did not take effect: the "
			  "experiment stops");
	target = disk_target(ctx, h);
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
	err = detach_check(ctx, h, target);
	free(target);
	return rc ? rc : err;
}

void ab_hot_free(struct ab_hot *h)
{
	free(h->name);
	h->name = NULL;
}
