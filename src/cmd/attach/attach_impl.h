/*
 * attach_impl.h - what the files of xvbd attach share (src/cmd_attach.c:
 * arguments, output and cmd_attach; src/attach_plan.c: step 2;
 * src/attach_prepare.c: step 3; src/attach_add.c: steps 4-6).  The
 * steps are described at the top of src/cmd_attach.c.  Internal to the
 * attach command: nothing else includes it.
 */
#ifndef XVBD_ATTACH_IMPL_H
#define XVBD_ATTACH_IMPL_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "xvbd/dom0/cache.h"
#include "xvbd/cmd/cmd.h"
#include "xvbd/vbd/override.h"
#include "xvbd/vbd/override_run.h"
#include "xvbd/dom0/share.h"
#include "xvbd/base/util.h"

#define CMD			"attach"
#define DEFAULT_TIMEOUT_S	120
#define MAX_ITEMS		64
#define SPEC_MAX		(XVBD_PATH_MAX + 128)
#define WHY_MAX			512
/* A share's mount helper gets this long before it is killed. */
#define MOUNT_TIMEOUT_MS	30000
#define MOUNT_OPTS_MAX		1024

enum item_kind { ITEM_SPEC, ITEM_FILE, ITEM_PHY, ITEM_SHARE };

struct attach_args {
	const char *domain;
	const char *specs[MAX_ITEMS];
	size_t nspecs;
	const char *file, *phy, *share;
	const char *credentials, *share_opts;
	const char *vdev;		/* NULL: auto */
	bool readwrite;
	bool have_size;
	uint64_t size_bytes;
	bool prealloc;
	enum xvbd_cache cache;		/* --cache: host (default) or none */
	bool have_cache;
	bool wait;
	unsigned timeout_s;
	unsigned jobs;			/* adds in flight at once */
	/* overrides, "key=value" for xvbd_override_parse_kv; NULL: none */
	char ovr_kv[XVBD_OVR_NKEYS][48];
	bool have_ovr;
};

struct item {
	enum item_kind kind;
	const char *arg;		/* what the user wrote, for messages */
	struct xvbd_tstack_disk *disk;
	char vdev[32];
	uint32_t devid;
	char target[XVBD_PATH_MAX];
	bool readwrite;
	bool auto_vdev;
	bool script;			/* a spec naming its own script */
	const char *hotplug;		/* the script it gets (choose_script) */
	enum xvbd_cache cache;		/* -N: the loop's mode, or n/a */
	const char *action;		/* -N: what would be done */
	/* share */
	struct xvbd_share_url url;
	bool mounted_now;		/* this call mounted it */
	/* image */
	bool created;			/* this call created the file */
	bool size_known;
	uint64_t size_bytes;
	/* overrides (a copy of the call's, with this disk's vdev) */
	struct xvbd_ovr_set ovr;
	/* progress */
	bool added;
	char *backend_path;
	uint64_t bstate, fstate;
};

struct attach {
	struct xvbd_ctx *ctx;
	struct attach_args a;
	uint32_t domid;
	char *domain;
	struct item items[MAX_ITEMS];
	size_t n;
	int lock_fd;			/* the share lock (mount decisions) */
	int domain_lock_fd;		/* the domain's (xvbd/lock.h): held
					 * from the plan through the add */
	/* the domain's devids when the vdevs were chosen: a device at one
	 * of them is never this call's to remove */
	uint32_t *devids_before;
	size_t ndevids_before;
	int xvbd_block;			/* installed: 1, not: 0, not known: -1
					 * (the program for --cache) */
	/* the guest paused around the attach (overrides only) */
	bool paused_by_us, was_paused, interrupted;
	bool ovr_written, ovr_verified;
	sigset_t old_mask;
	struct xvbd_ovr_dev devs[MAX_ITEMS];
	struct xvbd_disk *disks;	/* records the devs point into */
	size_t ndisks;
	char ovr_why[256];
	/* -v timing (CLOCK_MONOTONIC ms): planned, added, Connected */
	int64_t t_start, t_planned, t_added, t_connected;
};

static inline bool quiet(const struct attach *at)
{
	return at->ctx->opts->quiet;
}

/* 2. plan (attach_plan.c) */
void item_err(const struct item *it, const char *fmt, ...) XVBD_PRINTF(2, 3);
/* Items from the arguments, checked on the command line alone. */
int check_items(struct attach *at);
/* ... then against the system: links, targets given twice, vdevs. */
int plan_items(struct attach *at);
int plan_overrides(struct attach *at);

/* 3. side effects before libxl (attach_prepare.c) */
int prepare_items(struct attach *at);
int dry_run(struct attach *at);
void cleanup_items(struct attach *at);
void render_disk(const struct attach *at, const struct item *it);

/* 4.-6. add, backends ready, wait for Connected (attach_add.c) */
int pause_guest(struct attach *at);
int resume_guest(struct attach *at);
int add_items(struct attach *at);
int undo_if_interrupted(struct attach *at);
int backends_ready(struct attach *at);
int wait_items(struct attach *at);
int verify_overrides(struct attach *at);

#endif
