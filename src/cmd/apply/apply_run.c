/*
 * apply_run.c - xvbd apply: what each disk is (libxl's disk list, the
 * backend's and frontend's xenstore keys, the loop device's cache mode),
 * compared with the plan, and the actions that make it so:
 *   attach          the disk is missing: xvbd attach's own code
 *                   (xvbd_attach_locked), under apply's domain lock
 *   tune            only toolstack keys differ (discard-enable,
 *                   trusted): written in one transaction, as tune does;
 *                   their readers take them at the disk's next connect
 *   needs_reattach  the source, access, cache, size or a negotiated
 *                   offer differs: blkfront read those at connect, so
 *                   nothing is written and the command that does it is
 *                   named
 *   detach          with --prune, a disk the plan does not name
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "xvbd/base/sig.h"
#include "xvbd/base/util.h"
#include "xvbd/cmd/attach.h"
#include "xvbd/vbd/vbd.h"
#include "apply_impl.h"

/* One disk as libxl, xenstore and dom0 say it is. */
static int read_state(struct apply *ap, const struct xvbd_disk *disk,
		      const struct xvbd_apply_disk *plan,
		      struct apply_state *st)
{
	struct xvbd_vbd_view view;
	struct stat sb;
	size_t k;
	int err;

	memset(st, 0, sizeof(*st));
	st->present = true;
	snprintf(st->target, sizeof(st->target), "%s",
		 disk->target ? disk->target : "");
	st->readwrite = disk->readwrite;
	err = xvbd_vbd_load(ap->ctx->xs, ap->domid, disk, &view);
	if (err) {
		xvbd_err(CMD, disk->vdev, "reading xenstore: %s",
			 strerror(-err));
		return XVBD_EXIT_FAIL;
	}
	st->cache = view.dom0_cache;
	if (view.eval.backend_state.known)
		st->bstate = view.eval.backend_state.v;
	if (view.eval.frontend_state.known)
		st->fstate = view.eval.frontend_state.v;
	for (k = 0; k < XVBD_OVR_NKEYS; k++) {
		const struct xvbd_ovr_key *key = &xvbd_ovr_keys[k];
		const char *v;

		if (!xvbd_apply_offer_name(key->id))
			continue;
		v = xvbd_kvmap_get(key->dir == XVBD_DIR_BACKEND ?
				   &view.backend : &view.frontend,
				   key->xs_key);
		st->offer[k].known = v && !xvbd_parse_uint(v, UINT64_MAX,
							   &st->offer[k].v);
	}
	xvbd_vbd_view_free(&view);
	/* An image file's size; never a stat on a share (a dead server
	 * would hang it), never of a device. */
	if (plan && plan->kind == XVBD_APPLY_FILE && st->target[0] &&
	    !strcmp(st->target, plan->target) && !stat(st->target, &sb) &&
	    S_ISREG(sb.st_mode)) {
		st->size_known = true;
		st->size_bytes = (uint64_t)sb.st_size;
	}
	return 0;
}

void apply_planned(const struct apply_item *it, struct apply_state *out)
{
	const struct xvbd_apply_disk *p = it->plan;
	size_t i;

	*out = it->before;
	if (!p) {
		if (it->act == ACT_DETACH)
			memset(out, 0, sizeof(*out));
		return;
	}
	out->present = true;
	snprintf(out->target, sizeof(out->target), "%s", p->target);
	out->readwrite = p->readwrite;
	out->cache = p->cache;
	if (p->have_size) {
		out->size_known = true;
		out->size_bytes = p->size_bytes;
	}
	out->bstate = out->fstate = XVBD_STATE_CONNECTED;
	for (i = 0; i < p->ovr.n; i++) {
		out->offer[p->ovr.items[i].key->id].known = true;
		out->offer[p->ovr.items[i].key->id].v = p->ovr.items[i].value;
	}
}

static bool opt_differs(struct xvbd_opt a, struct xvbd_opt b)
{
	return a.known != b.known || (a.known && a.v != b.v);
}

/* Which planned keys differ, and so what to do. */
static void compare(struct apply *ap, struct apply_item *it)
{
	const struct xvbd_apply_disk *p = it->plan;
	struct apply_state want;
	bool reattach = false, tune = false;
	size_t i;

	apply_planned(it, &want);
	it->differs[K_TARGET] = strcmp(it->before.target, want.target);
	it->differs[K_ACCESS] = it->before.readwrite != want.readwrite;
	it->differs[K_CACHE] = p->kind != XVBD_APPLY_PHY &&
			       it->before.cache != want.cache;
	it->differs[K_SIZE] = p->have_size && it->before.size_known &&
			      it->before.size_bytes != want.size_bytes;
	it->differs[K_STATE] = it->before.bstate != XVBD_STATE_CONNECTED ||
			       it->before.fstate != XVBD_STATE_CONNECTED;
	for (i = 0; i < K_OFFER; i++)
		reattach = reattach || it->differs[i];
	for (i = 0; i < p->ovr.n; i++) {
		const struct xvbd_ovr_key *key = p->ovr.items[i].key;

		if (!opt_differs(it->before.offer[key->id],
				 want.offer[key->id]))
			continue;
		it->differs[K_OFFER + key->id] = true;
		if (key->cls == XVBD_OVR_NEGOTIATED)
			reattach = true;
		else
			tune = true;
	}
	it->act = reattach ? ACT_REATTACH : tune ? ACT_TUNE : ACT_NONE;
	if (it->act != ACT_REATTACH)
		return;
	for (i = 0; i < K_N && !it->differs[i]; i++)
		;
	snprintf(it->why, sizeof(it->why), "%s differs: %s", apply_key_name(i),
		 i == K_STATE ? "the disk is not Connected" :
		 i >= K_OFFER ? xvbd_ovr_keys[i - K_OFFER].read_by :
		 "fixed when the disk was added");
	snprintf(it->command, sizeof(it->command), "xvbd detach %u %s && "
		 "xvbd apply %s", ap->domid, it->vdev,
		 strcmp(ap->plan_path, "-") ? ap->plan_path : "PLAN");
}

static struct apply_item *add_item(struct apply *ap, const char *vdev,
				   uint32_t devid)
{
	struct apply_item *it = &ap->items[ap->n++];

	memset(it, 0, sizeof(*it));
	snprintf(it->vdev, sizeof(it->vdev), "%s", vdev);
	it->devid = devid;
	return it;
}

int apply_read(struct apply *ap)
{
	size_t i, k;
	int err, rc;

	err = xvbd_tstack_disks(ap->ctx->ts, ap->domid, &ap->disks,
				&ap->ndisks);
	if (err) {
		xvbd_err(CMD, "disks", "domain %s: %s", ap->domain,
			 strerror(-err));
		return XVBD_EXIT_FAIL;
	}
	for (i = 0; i < ap->plan.n; i++) {
		const struct xvbd_apply_disk *p = &ap->plan.disks[i];
		struct apply_item *it = add_item(ap, p->vdev, p->devid);

		it->plan = p;
		for (k = 0; k < ap->ndisks; k++)
			if (ap->disks[k].devid == p->devid)
				it->disk = &ap->disks[k];
		if (!it->disk) {
			it->act = ACT_ATTACH;
			continue;
		}
		rc = read_state(ap, it->disk, p, &it->before);
		if (rc)
			return rc;
		compare(ap, it);
	}
	for (k = 0; k < ap->ndisks; k++) {
		struct apply_item *it;

		for (i = 0; i < ap->plan.n; i++)
			if (ap->plan.disks[i].devid == ap->disks[k].devid)
				break;
		if (i < ap->plan.n)
			continue;
		it = add_item(ap, ap->disks[k].vdev, ap->disks[k].devid);
		it->disk = &ap->disks[k];
		rc = read_state(ap, it->disk, NULL, &it->before);
		if (rc)
			return rc;
		it->act = ap->prune ? ACT_DETACH : ACT_NONE;
		if (!ap->prune)
			apply_warn(ap, "%s: not in the plan: kept (--prune "
				   "detaches it)", it->vdev);
	}
	return 0;
}

/*
 * A command's handler on its command line (words[0] its name), read by
 * the one command-line parser, its rows sent nowhere: apply renders its
 * own.
 */
static int call_quietly(struct apply *ap,
			int (*fn)(struct xvbd_ctx *, int, char **),
			int nwords, char **words)
{
	struct xvbd_out *saved = ap->ctx->out, *scratch;
	const struct xvbd_cmdline *saved_cl = ap->ctx->cl;
	struct xvbd_cmdline cl;
	FILE *null;
	int rc;

	rc = xvbd_cmdline_parse(ap->ctx->cmds, ap->ctx->ncmds, nwords, words,
				&cl);
	if (rc || !cl.cmd) {
		xvbd_err(CMD, words[0], "%s", rc ? cl.err : "not found");
		xvbd_cmdline_free(&cl);
		return XVBD_EXIT_FAIL;
	}
	null = fopen("/dev/null", "we");
	scratch = null ? xvbd_out_new(null, ap->ctx->opts->json) : NULL;
	if (!scratch) {
		if (null)
			fclose(null);
		xvbd_cmdline_free(&cl);
		xvbd_err(CMD, NULL, "%s", strerror(ENOMEM));
		return XVBD_EXIT_FAIL;
	}
	ap->ctx->out = scratch;
	ap->ctx->cl = &cl;
	rc = fn(ap->ctx, cl.noperands, cl.operands);
	ap->ctx->cl = saved_cl;
	xvbd_cmdline_free(&cl);
	ap->ctx->out = saved;
	xvbd_out_finish(scratch);
	xvbd_out_free(scratch);
	fclose(null);
	return rc;
}

/* attach's command line for a planned disk: its own parser checks it. */
static int do_attach(struct apply *ap, struct apply_item *it)
{
	static const char *const kinds[] = { "--file", "--phy", "--share" };
	const struct xvbd_apply_disk *p = it->plan;
	char *argv[48], domid[16], size[24], opt[XVBD_OVR_NKEYS][32];
	int argc = 0;
	size_t k;

	argv[argc++] = (char *)"attach";
	argv[argc++] = (char *)"--vdev";
	argv[argc++] = (char *)p->vdev;
	argv[argc++] = (char *)kinds[p->kind];
	argv[argc++] = (char *)p->source;
	argv[argc++] = (char *)"--access";
	argv[argc++] = (char *)(p->readwrite ? "rw" : "ro");
	if (p->kind != XVBD_APPLY_PHY) {
		argv[argc++] = (char *)"--cache";
		argv[argc++] = (char *)xvbd_cache_name(p->cache);
	}
	if (p->have_size) {
		snprintf(size, sizeof(size), "%" PRIu64, p->size_bytes);
		argv[argc++] = (char *)"--size";
		argv[argc++] = size;
	}
	if (p->prealloc)
		argv[argc++] = (char *)"--prealloc";
	if (p->credentials[0]) {
		argv[argc++] = (char *)"--credentials";
		argv[argc++] = (char *)p->credentials;
	}
	if (p->share_opts[0]) {
		argv[argc++] = (char *)"--share-opts";
		argv[argc++] = (char *)p->share_opts;
	}
	/* "ring-order=2" -> --ring-order 2 */
	for (k = 0; k < XVBD_OVR_NKEYS; k++) {
		const char *eq = strchr(p->ovr_kv[k], '=');

		if (!eq)
			continue;
		snprintf(opt[k], sizeof(opt[k]), "--%s",
			 xvbd_ovr_keys[k].name);
		argv[argc++] = opt[k];
		argv[argc++] = (char *)(eq + 1);
	}
	snprintf(domid, sizeof(domid), "%u", ap->domid);
	argv[argc++] = domid;
	argv[argc] = NULL;
	return call_quietly(ap, xvbd_attach_locked, argc, argv);
}

/* The toolstack keys that differ, in one transaction (as tune writes). */
static int do_tune(struct apply *ap, struct apply_item *it)
{
	const struct xvbd_apply_disk *p = it->plan;
	struct xvbd_ovr_caps caps = { 0 };
	struct xvbd_ovr_target target;
	struct xvbd_ovr_set set;
	char why[320];
	size_t k;

	if (xvbd_override_set_init(&set, it->vdev, why, sizeof(why)))
		goto fail;
	for (k = 0; k < XVBD_OVR_NKEYS; k++)
		if (it->differs[K_OFFER + k] &&
		    xvbd_override_parse_kv(&set, p->ovr_kv[k], why,
					   sizeof(why)))
			goto fail;
	if (xvbd_override_validate(&set, &caps, why, sizeof(why)))
		goto fail;
	if (!it->disk->backend_path || !it->disk->frontend_path) {
		snprintf(why, sizeof(why), "libxl has no record of its "
			 "xenstore directories");
		goto fail;
	}
	target.set = &set;
	target.backend_path = it->disk->backend_path;
	target.frontend_path = it->disk->frontend_path;
	if (xvbd_override_apply_txn(ap->ctx->xs, &target, 1, why,
				    sizeof(why)))
		goto fail;
	for (k = 0; k < set.n; k++)
		apply_warn(ap, "%s: %s written: read by %s, so it takes "
			   "effect when the disk next connects", it->vdev,
			   set.items[k].key->xs_key, set.items[k].key->read_by);
	return 0;
fail:
	xvbd_err(CMD, it->vdev, "nothing written: %s", why);
	snprintf(it->why, sizeof(it->why), "nothing written: %s", why);
	return XVBD_EXIT_FAIL;
}

static int do_detach(struct apply *ap, struct apply_item *it)
{
	char domid[16], *argv[4];

	snprintf(domid, sizeof(domid), "%u", ap->domid);
	argv[0] = (char *)"detach";
	argv[1] = domid;
	argv[2] = it->vdev;
	argv[3] = NULL;
	return call_quietly(ap, cmd_detach, 3, argv);
}

static int run_one(struct apply *ap, struct apply_item *it)
{
	int rc;

	switch (it->act) {
	case ACT_ATTACH:
		rc = do_attach(ap, it);
		break;
	case ACT_TUNE:
		rc = do_tune(ap, it);
		break;
	case ACT_DETACH:
		rc = do_detach(ap, it);
		break;
	default:
		return 0;
	}
	it->status = rc ? ST_FAILED : ST_DONE;
	if (rc && !it->why[0])
		snprintf(it->why, sizeof(it->why), "%s failed (its error is "
			 "above)", apply_act_name(it->act));
	return rc;
}

/* Detaches first (a pruned disk may hold a target the plan moves), then
 * the plan's disks in its order; the first failure stops the rest. */
int apply_execute(struct apply *ap)
{
	size_t pass, i;
	int rc = 0;

	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < ap->n; i++) {
			struct apply_item *it = &ap->items[i];

			if ((pass == 0) != (it->act == ACT_DETACH) ||
			    it->act == ACT_NONE || it->act == ACT_REATTACH)
				continue;
			if (rc || xvbd_interrupted()) {
				it->status = ST_NOT_RUN;
				if (!rc) {
					xvbd_err(CMD, "interrupted", "by %s "
						 "before %s", xvbd_sig_name(
						 xvbd_interrupted()),
						 it->vdev);
					rc = XVBD_EXIT_FAIL;
				}
				continue;
			}
			rc = run_one(ap, it);
		}
	return rc;
}

/* After the actions: each disk read again (the report's "after"). */
int apply_read_after(struct apply *ap)
{
	struct xvbd_disk *disks = NULL;
	size_t ndisks = 0, i, k;
	int err, rc = 0;

	err = xvbd_tstack_disks(ap->ctx->ts, ap->domid, &disks, &ndisks);
	if (err) {
		xvbd_err(CMD, "disks", "domain %s, after the changes: %s",
			 ap->domain, strerror(-err));
		return XVBD_EXIT_FAIL;
	}
	for (i = 0; i < ap->n && !rc; i++) {
		struct apply_item *it = &ap->items[i];

		if (it->act == ACT_REATTACH || it->status == ST_NONE) {
			apply_planned(it, &it->after);
			if (it->act != ACT_REATTACH)
				it->after = it->before;
			continue;
		}
		memset(&it->after, 0, sizeof(it->after));
		for (k = 0; k < ndisks; k++)
			if (disks[k].devid == it->devid)
				rc = read_state(ap, &disks[k], it->plan,
						&it->after);
	}
	xvbd_tstack_disks_free(disks, ndisks);
	return rc;
}

void apply_free(struct apply *ap)
{
	xvbd_tstack_disks_free(ap->disks, ap->ndisks);
	xvbd_apply_plan_free(&ap->plan);
	free(ap->domain);
}
