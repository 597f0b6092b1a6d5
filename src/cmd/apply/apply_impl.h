/*
 * apply_impl.h - what the files of xvbd apply share: cmd_apply.c
 * (arguments, the plan file, the order of the steps, output) and
 * apply_run.c (what is there, the comparison, the actions).  Internal to
 * the apply command.
 */
#ifndef XVBD_APPLY_IMPL_H
#define XVBD_APPLY_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "xvbd/cmd/apply_plan.h"
#include "xvbd/cmd/cmd.h"
#include "xvbd/disk/disk.h"
#include "xvbd/vbd/override.h"

#define CMD	"apply"
/* Each attach's wait for Connected (attach's default --timeout). */
#define APPLY_TIMEOUT_S	120

enum apply_act { ACT_NONE, ACT_ATTACH, ACT_TUNE, ACT_DETACH, ACT_REATTACH };

/* nothing to do; planned (--check); done; failed; not run (an earlier
 * disk failed, or a signal) */
enum apply_status { ST_NONE, ST_PLANNED, ST_DONE, ST_FAILED, ST_NOT_RUN };

/* The keys compared, in output order: the source's, then the offers'. */
enum apply_key {
	K_TARGET, K_ACCESS, K_CACHE, K_SIZE, K_STATE,
	K_OFFER,		/* + enum xvbd_ovr_id, for the plan's offers */
	K_N = K_OFFER + XVBD_OVR_NKEYS,
};

/* One disk as read from libxl, xenstore and dom0 (or as planned). */
struct apply_state {
	bool present;
	char target[XVBD_PATH_MAX];
	bool readwrite;
	enum xvbd_cache cache;
	bool size_known;
	uint64_t size_bytes;
	uint64_t bstate, fstate;	/* XVBD_STATE_* (0: unknown) */
	struct xvbd_opt offer[XVBD_OVR_NKEYS];
};

struct apply_item {
	char vdev[XVBD_OVR_VDEV_LEN];
	uint32_t devid;
	const struct xvbd_apply_disk *plan;	/* NULL: not in the plan */
	const struct xvbd_disk_seen *seen;	/* what is there, if any */
	enum apply_act act;
	enum apply_status status;
	struct apply_state before, after;
	bool differs[K_N];
	char why[400];		/* the failure, or what needs a reattach */
	char command[600];	/* needs_reattach: what does it */
	struct xvbd_disk_handle handle;	/* what was attached or detached */
};

struct apply {
	struct xvbd_ctx *ctx;
	const char *plan_path;	/* as given ("-": stdin) */
	bool check, diff, prune;
	struct xvbd_apply_plan plan;
	uint32_t domid;
	char *domain;
	/* the disk layer: its report (apply's name), the guest (its lock
	 * held for the whole apply, not --check) */
	struct xvbd_report rep;
	struct xvbd_disk_env env;
	struct xvbd_disk_dom dom;
	/* each disk as it was before the apply */
	struct xvbd_disk_seen *seen;
	size_t nseen;
	/* one per planned disk and per disk not in the plan */
	struct apply_item *items;
	size_t n, cap;
	char warnings[16][400];
	size_t nwarnings;
	bool failed;
};

void apply_warn(struct apply *ap, const char *fmt, ...) XVBD_PRINTF(2, 3);
const char *apply_key_name(enum apply_key k);
const char *apply_act_name(enum apply_act a);

/* apply_run.c */
int apply_read(struct apply *ap);		/* before, differs, act */
int apply_execute(struct apply *ap);		/* the actions, in order */
int apply_read_after(struct apply *ap);		/* after, read back */
void apply_planned(const struct apply_item *it, struct apply_state *out);
void apply_free(struct apply *ap);

#endif
