/*
 * apply_run.c - xvbd apply: what each disk is (the disk layer's observe:
 * libxl's record, the backend's and frontend's keys, its loop device),
 * compared with the plan, and the actions that make it so, each the disk
 * layer's (xvbd/disk/disk.h) under apply's domain lock:
 *   attach          the disk is missing: its description attached
 *   tune            only toolstack keys differ (discard-enable,
 *                   trusted): written in one transaction; their readers
 *                   take them at the disk's next connect
 *   needs_reattach  the source, access, cache, size or a negotiated
 *                   offer differs: blkfront read those at connect, so
 *                   nothing is written and the command that does it is
 *                   named
 *   detach          with --prune, a disk the plan does not name: the one
 *                   observed before, exactly (refused if replaced since)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "xvbd/base/sig.h"
#include "xvbd/base/util.h"
#include "apply_impl.h"

/* One disk as the disk layer saw it. */
static void state_of(const struct xvbd_disk_seen *seen,
		     struct apply_state *st)
{
	const struct xvbd_disk_desc *d = &seen->desc;
	size_t k;

	memset(st, 0, sizeof(*st));
	st->present = true;
	snprintf(st->target, sizeof(st->target), "%s", d->target);
	st->readwrite = d->readwrite;
	st->cache = d->cache;
	/* the loop device's size: what the guest was given */
	st->size_known = d->have_size;
	st->size_bytes = d->size_bytes;
	st->bstate = seen->bstate;
	st->fstate = seen->fstate;
	for (k = 0; k < d->offers.n; k++) {
		const struct xvbd_ovr *o = &d->offers.items[k];

		if (!xvbd_apply_offer_name(o->key->id))
			continue;
		st->offer[o->key->id].known = true;
		st->offer[o->key->id].v = o->value;
	}
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

/* The next item; the array holds one per planned and per present disk. */
static struct apply_item *add_item(struct apply *ap, const char *vdev,
				   uint32_t devid)
{
	struct apply_item *it;

	if (ap->n == ap->cap)
		return NULL;
	it = &ap->items[ap->n++];
	memset(it, 0, sizeof(*it));
	snprintf(it->vdev, sizeof(it->vdev), "%s", vdev);
	it->devid = devid;
	return it;
}

/* The disks not in the plan: kept, or (--prune) detached. */
static void add_unplanned(struct apply *ap)
{
	size_t i, k;

	for (k = 0; k < ap->nseen; k++) {
		const struct xvbd_disk_seen *seen = &ap->seen[k];
		struct apply_item *it;

		for (i = 0; i < ap->plan.n; i++)
			if (ap->plan.disks[i].devid == seen->handle.devid)
				break;
		if (i < ap->plan.n)
			continue;
		it = add_item(ap, seen->handle.vdev, seen->handle.devid);
		if (!it)
			break;
		it->seen = seen;
		state_of(seen, &it->before);
		it->act = ap->prune ? ACT_DETACH : ACT_NONE;
		if (!ap->prune)
			apply_warn(ap, "%s: not in the plan: kept (--prune "
				   "detaches it)", it->vdev);
	}
}

int apply_read(struct apply *ap)
{
	size_t i, k;
	int err;

	err = xvbd_disk_observe_all(&ap->env, &ap->dom, &ap->seen,
				    &ap->nseen);
	if (err) {
		xvbd_err(CMD, "disks", "domain %s: %s", ap->domain,
			 strerror(-err));
		return XVBD_EXIT_FAIL;
	}
	/* Sized from what there is: every planned disk and every other
	 * disk of the guest (libxl's list has no bound). */
	ap->cap = ap->plan.n + ap->nseen;
	ap->items = calloc(ap->cap ? ap->cap : 1, sizeof(*ap->items));
	if (!ap->items) {
		xvbd_err(CMD, NULL, "%s", strerror(ENOMEM));
		return XVBD_EXIT_FAIL;
	}
	for (i = 0; i < ap->plan.n; i++) {
		const struct xvbd_apply_disk *p = &ap->plan.disks[i];
		struct apply_item *it = add_item(ap, p->vdev, p->devid);

		it->plan = p;
		for (k = 0; k < ap->nseen; k++)
			if (ap->seen[k].handle.devid == p->devid)
				it->seen = &ap->seen[k];
		if (!it->seen) {
			it->act = ACT_ATTACH;
			continue;
		}
		state_of(it->seen, &it->before);
		compare(ap, it);
	}
	add_unplanned(ap);
	return 0;
}

/* What the layer said failed, for the action's row. */
static void failed_why(struct apply *ap, struct apply_item *it)
{
	if (ap->rep.nerrors && !it->why[0])
		snprintf(it->why, sizeof(it->why), "%.80s%s%.300s",
			 ap->rep.has_what ? ap->rep.what : "",
			 ap->rep.has_what ? ": " : "", ap->rep.why);
}

/* The planned disk, as its description says. */
static int do_attach(struct apply *ap, struct apply_item *it)
{
	struct xvbd_disk_attach_opts opts = {
		.wait = true, .timeout_s = APPLY_TIMEOUT_S, .jobs = 1,
		.tell = !ap->ctx->opts->quiet && isatty(STDERR_FILENO),
	};
	struct xvbd_disk_attach_result res;

	return xvbd_disk_attach(&ap->env, &ap->dom, &it->plan->desc, 1,
				&opts, &it->handle, &res);
}

/* The toolstack keys that differ, in one transaction, on that disk. */
static int do_tune(struct apply *ap, struct apply_item *it)
{
	const struct xvbd_apply_disk *p = it->plan;
	struct xvbd_disk_tune_opts opts = { 0 };
	struct xvbd_disk_tune_result *res = calloc(1, sizeof(*res));
	struct xvbd_ovr_set set;
	char why[320];
	size_t k;
	int rc = XVBD_EXIT_FAIL;

	if (!res) {
		xvbd_err(CMD, NULL, "%s", strerror(ENOMEM));
		return rc;
	}
	if (!xvbd_override_set_init(&set, it->vdev, why, sizeof(why)))
		rc = 0;
	for (k = 0; k < XVBD_OVR_NKEYS && !rc; k++)
		if (it->differs[K_OFFER + k] &&
		    xvbd_override_parse_kv(&set, p->ovr_kv[k], why,
					   sizeof(why)))
			rc = XVBD_EXIT_FAIL;
	if (rc)
		xvbd_err(CMD, it->vdev, "nothing written: %s", why);
	else
		rc = xvbd_disk_tune(&ap->env, &ap->dom, &it->seen->handle,
				    &set, &opts, res);
	for (k = 0; !rc && k < res->set.n; k++)
		apply_warn(ap, "%s: %s written: read by %s, so it takes "
			   "effect when the disk next connects", it->vdev,
			   res->set.items[k].key->xs_key,
			   res->set.items[k].key->read_by);
	xvbd_disk_tune_free(res);
	free(res);
	return rc;
}

/* A disk the plan leaves out (--prune): the one observed, exactly. */
static int do_detach(struct apply *ap, struct apply_item *it)
{
	struct xvbd_disk_detach_opts opts = { 0 };
	struct xvbd_disk_detach_result res;
	int rc;

	it->handle = it->seen->handle;
	rc = xvbd_disk_detach(&ap->env, &it->handle, &opts, &res);
	if (!rc && res.was_gone) {
		xvbd_err(CMD, it->vdev, "gone before it was detached");
		rc = XVBD_EXIT_FAIL;
	}
	return rc;
}

/* -v: what an action did, from its handle (what was attached where). */
static void say_done(struct apply *ap, const struct apply_item *it)
{
	const struct xvbd_disk_handle *h = &it->handle;
	char loop[48] = "";

	if (it->act == ACT_TUNE)
		return;
	if (h->have_loop)
		snprintf(loop, sizeof(loop), ", /dev/loop%u", h->loop.nr);
	xvbd_report_say(&ap->rep, XVBD_SAY_VERBOSE, it->vdev, "%s: %s "
			"(backend %s%s)", it->act == ACT_ATTACH ? "attached" :
			"detached", h->target[0] ? h->target : "no target",
			h->backend_path[0] ? h->backend_path : "unknown", loop);
}

static int run_one(struct apply *ap, struct apply_item *it)
{
	int rc;

	xvbd_report_clear(&ap->rep);
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
	if (!rc)
		say_done(ap, it);
	if (rc)
		failed_why(ap, it);
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

/* After the actions: each disk observed again (the report's "after"). */
int apply_read_after(struct apply *ap)
{
	struct xvbd_disk_seen *seen = NULL;
	size_t nseen = 0, i, k;
	int err;

	err = xvbd_disk_observe_all(&ap->env, &ap->dom, &seen, &nseen);
	if (err) {
		xvbd_err(CMD, "disks", "domain %s, after the changes: %s",
			 ap->domain, strerror(-err));
		return XVBD_EXIT_FAIL;
	}
	for (i = 0; i < ap->n; i++) {
		struct apply_item *it = &ap->items[i];

		if (it->act == ACT_REATTACH || it->status == ST_NONE) {
			apply_planned(it, &it->after);
			if (it->act != ACT_REATTACH)
				it->after = it->before;
			continue;
		}
		memset(&it->after, 0, sizeof(it->after));
		for (k = 0; k < nseen; k++)
			if (seen[k].handle.devid == it->devid)
				state_of(&seen[k], &it->after);
	}
	free(seen);
	return 0;
}

void apply_free(struct apply *ap)
{
	free(ap->items);
	free(ap->seen);
	xvbd_apply_plan_free(&ap->plan);
	free(ap->domain);
}
