/*
 * disk_impl.h - what the files of the disk layer share (xvbd/disk/disk.h
 * is what it promises):
 *   disk_desc.c     the description and its one parser
 *   disk_dom.c      the domain, its lock, handles of what is there
 *   disk_attach.c   attach: the steps in order, the handles
 *   disk_plan.c     attach step 1: vdevs, links, targets, offers
 *   disk_prepare.c  attach step 2: mounts, images, the hotplug script;
 *                   their undoing; -N
 *   disk_add.c      attach steps 3-5: the add (the guest paused around
 *                   it for offers), the offers, the wait for Connected
 *   disk_detach.c   detach by handle
 *   disk_tune.c     per-device keys of an attached disk
 *   disk_observe.c  what is at a vdev, as a description
 * Internal to src/disk: nothing else includes it.
 */
#ifndef XVBD_DISK_IMPL_H
#define XVBD_DISK_IMPL_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "xvbd/disk/disk.h"
#include "xvbd/vbd/override_run.h"
#include "xvbd/xen/tstack.h"

/* The keys of xvbd_disk_keys[], by index (the bits of desc->given). */
enum disk_key {
	KEY_SPEC, KEY_FILE, KEY_PHY, KEY_SHARE,
	KEY_VDEV, KEY_ACCESS, KEY_SIZE, KEY_PREALLOC, KEY_CACHE,
	KEY_CREDENTIALS, KEY_SHARE_OPTS,
	KEY_RING_ORDER, KEY_QUEUES, KEY_INDIRECT, KEY_DISCARD, KEY_TRUSTED,
	KEY_N,
};
#define KEY_BIT(k)	(1u << (k))

/* A share's mount helper gets this long before it is killed. */
#define MOUNT_TIMEOUT_MS	30000
#define MOUNT_OPTS_MAX		1024
#define SPEC_MAX		(XVBD_PATH_MAX + 128)
#define WHY_MAX			512

/* One disk of an attach, from its description to its handle. */
struct item {
	const struct xvbd_disk_desc *desc;
	const char *arg;		/* what the user wrote, for messages */
	struct xvbd_tstack_disk *disk;
	char vdev[XVBD_DISK_VDEV_LEN];
	uint32_t devid;
	bool auto_vdev;
	char target[XVBD_PATH_MAX];
	bool readwrite;
	bool script;			/* a spec naming its own script */
	const char *hotplug;		/* the script it gets (choose_script) */
	enum xvbd_cache cache;		/* the loop's mode, or n/a */
	const char *action;		/* -N: what would be done */
	bool mounted_now;		/* this call mounted (or reused) it */
	bool created;			/* this call created the file */
	bool size_known;
	uint64_t size_bytes;
	struct xvbd_ovr_set ovr;	/* the offers, for this disk's vdev */
	bool added;
	char *backend_path;
	uint64_t bstate, fstate;
};

struct attach {
	const struct xvbd_disk_env *env;
	struct xvbd_report *rep;
	struct xvbd_disk_dom *dom;
	const struct xvbd_disk_attach_opts *opts;
	struct item *items;
	size_t n;
	bool have_ovr;			/* some disk has offers */
	int lock_fd;			/* the share lock (mount decisions) */
	bool dom_locked_here;		/* the domain lock taken by this call */
	/* the domain's devids when the vdevs were chosen: a device at one
	 * of them is never this call's to remove */
	uint32_t *devids_before;
	size_t ndevids_before;
	/* xvbd-block, xvbd-block-direct installed: 1, not: 0, not known:
	 * -1 (INSTALLED(at, cache) is the one for a cache mode) */
	int installed[2];
	/* the guest paused around the attach (offers only) */
	bool paused_by_us, was_paused, interrupted;
	bool ovr_written, ovr_verified;
	sigset_t old_mask;
	struct xvbd_ovr_dev *devs;
	struct xvbd_disk *disks;	/* records the devs point into */
	size_t ndisks;
	char ovr_why[256];
	/* -v timing (CLOCK_MONOTONIC ms): planned, added, Connected */
	int64_t t_start, t_planned, t_added, t_connected;
};

#define INSTALLED(at, cache)	(&(at)->installed[(cache) == XVBD_CACHE_NONE])

/* "<what the user wrote>: <why>" */
void item_err(struct attach *at, const struct item *it, const char *fmt, ...)
	XVBD_PRINTF(3, 4);

/* disk_dom.c: "waiting for WHOM (lock PATH)" (arg: the report) */
void disk_waiting(void *arg, const char *whom, const char *path);
/* disk_dom.c: a loop device's identity from a physical-device value */
bool disk_loop_of(const char *physical_device, struct xvbd_disk_loop *loop);
struct xvbd_loop;
void disk_loop_from(const struct xvbd_loop *lo, struct xvbd_disk_loop *out);
/* disk_dom.c: the handle of the disk libxl's record describes */
void disk_handle_of(const struct xvbd_disk_env *env,
		    const struct xvbd_disk_dom *dom,
		    const struct xvbd_disk *disk, struct xvbd_disk_handle *h);

/* disk_plan.c */
int plan_items(struct attach *at);
int plan_overrides(struct attach *at);

/* disk_prepare.c */
int prepare_items(struct attach *at);
int dry_run_items(struct attach *at);
void cleanup_items(struct attach *at);

/* disk_add.c */
int pause_guest(struct attach *at);
int resume_guest(struct attach *at);
int add_items(struct attach *at);
int undo_if_interrupted(struct attach *at);
int backends_ready(struct attach *at);
int find_backends(struct attach *at);
int wait_items(struct attach *at);
int verify_overrides(struct attach *at);

#endif
