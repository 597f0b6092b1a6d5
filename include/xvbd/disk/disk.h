/*
 * disk.h - a disk's life: described once, attached with a handle kept by
 * the caller, observed, tuned, and detached by that handle.  What
 * `xvbd attach`, `detach`, `tune`, `apply` and the hot `ab run` call
 * (libxl's device API is the model: libxl_device_disk_add() and _remove()
 * take a device struct the caller keeps; xl block-attach, xenopsd and
 * libvirt's libxl driver all call the same two).
 *
 * What the layer promises:
 *  - One parser for every grammar that names a disk: attach's options
 *    and disk specs, apply's plan keys, ab run's --disk/--cache/--vbd (and
 *    any later one) hand it (key, value) pairs; an xl disk spec is read by
 *    libxlutil.  The same disk written in any of them is the same
 *    description (xvbd_disk_desc_same), with the same checks and the same
 *    words in its errors, spelled the grammar's way.
 *  - Nothing is printed.  Errors, their fixes, progress and -v details go
 *    to the caller's struct xvbd_report (xvbd/base/report.h); commands
 *    render them.
 *  - attach is whole or undone: what it made for a disk that was not
 *    added (an image, a share mount) is removed again, a half-added
 *    device that is its own is torn down, a Ctrl-C before the disks are
 *    in the guest removes them again; a guest it paused is unpaused on
 *    every path.  A SIGKILL is named by the journal (xvbd/base/journal.h)
 *    entries it writes: image, mount, paused, detach.
 *  - Each added disk gets a handle: the domain and its creation identity
 *    (domid and uuid), vdev, devid, libxl's backend path, the target, the
 *    loop device behind an image with its identity (number, device,
 *    backing inode, diskseq), the share mount.  detach(handle) removes
 *    exactly that disk and refuses, naming what is there, when the vdev
 *    now holds anything else; "gone" means that loop device, never any
 *    other loop over the same file.
 *  - No plain stat() or open() of a target that may live on a share whose
 *    server died, once the disk is attached: observe, detach and their
 *    checks read libxl's records, xenstore, sysfs and the loop device.
 *
 * The house (src/<folder>, each calls only those below it; checked by
 * tests/layers.sh):
 *
 *	cmd/      main, the command table, one file per command;
 *	 |        attach/ apply/ ab/ for the families
 *	 +--> ab/      records, fingerprint, statistics, compare, plot
 *	 +--> stats/   the sampler and its rate math
 *	 +--> workload/ what the guest's benchmark printed (fio, benchfmt):
 *	 |             base only, fed by ab
 *	 +--> disk/    a disk's life (this header)
 *	 |      +--> vbd/    one VBD gathered; overrides; hotplug script choice
 *	 +------+--> xen/    xenstore, libxl/libxlutil, blkif keys
 *	        +--> dom0/   sysfs, /proc, loop, image, share, cache, modparam
 *	                +--> base/  errors, report, out, lock, journal, sig
 *	hotplug/  xvbd-block (its own program): dom0, xen, base
 *
 * (ab and stats may use disk and ab workload; disk uses vbd, xen, dom0,
 * base.)
 */
#ifndef XVBD_DISK_H
#define XVBD_DISK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "xvbd/base/report.h"
#include "xvbd/dom0/cache.h"
#include "xvbd/dom0/share.h"
#include "xvbd/vbd/override.h"
#include "xvbd/xen/blkif.h"

struct xvbd_tstack;
struct xvbd_xs;

/* ---- the description ---- */

/* Which source key named the disk. */
enum xvbd_disk_kind {
	XVBD_DISK_SPEC,		/* an xl disk spec (libxlutil) */
	XVBD_DISK_FILE,		/* an image file (created with a size) */
	XVBD_DISK_PHY,		/* a block device */
	XVBD_DISK_SHARE,	/* an image on an NFS or SMB share */
	XVBD_DISK_NKINDS,
};
#define XVBD_DISK_SOURCE(kind)	(1u << (kind))
#define XVBD_DISK_SOURCES_ALL	((1u << XVBD_DISK_NKINDS) - 1)
/* "spec", "file", "phy", "share" */
const char *xvbd_disk_kind_name(enum xvbd_disk_kind kind);

/*
 * How the grammar spells a key in errors: plain keys ("size", what plans
 * and key=value lists use; a plan writes '_' where the key has '-') or
 * options ("--size", attach's command line, where an error about the
 * disk itself names the source as the user wrote it).
 */
enum xvbd_disk_words {
	XVBD_DISK_WORDS_KEYS,
	XVBD_DISK_WORDS_OPTIONS,
};

/*
 * The keys, in the order a grammar without one of its own should set
 * them (sources first): spec, file, phy, share, vdev, access, size,
 * prealloc, cache, credentials, share-opts, and the offers ring-order,
 * queues, indirect-segments, discard, trusted (the blkif keys attach
 * sets in its paused window: xvbd/vbd/override.h).  NULL-terminated.
 */
extern const char *const xvbd_disk_keys[];

#define XVBD_DISK_ARG_MAX	(XVBD_PATH_MAX + 128)
#define XVBD_DISK_VDEV_LEN	32
#define XVBD_DISK_OPTS_MAX	512
#define XVBD_DISK_KV_LEN	48

struct xvbd_disk_desc {
	enum xvbd_disk_words words;
	unsigned sources;		/* source keys this grammar takes */
	uint32_t given;			/* the keys given (bit per key) */
	enum xvbd_disk_kind kind;	/* the (first) source given */
	char arg[XVBD_DISK_ARG_MAX];	/* the source as written */
	/* what libxl is given: params (a share's image below its mount
	 * point), the vdev (auto: chosen at attach), the access */
	char target[XVBD_PATH_MAX];
	char vdev[XVBD_DISK_VDEV_LEN];
	bool auto_vdev;
	uint32_t devid;			/* when !auto_vdev */
	bool readwrite;
	/* what only a spec can say ("" / false for the others) */
	char format[16];
	char script[XVBD_PATH_MAX];	/* a hotplug script it names */
	char backend_domname[256];	/* backend= driver domain */
	char backendtype[16];		/* backendtype= (phy, qdisk...) */
	bool cdrom;
	/* image files (file, share) */
	bool have_size;
	uint64_t size_bytes;
	bool prealloc;
	enum xvbd_cache cache;		/* n/a for phy */
	bool have_cache;
	/* share */
	struct xvbd_share_url url;
	char credentials[XVBD_PATH_MAX];
	char share_opts[XVBD_DISK_OPTS_MAX];
	/* offers: "ring-order=1" per key given ("" otherwise), and parsed
	 * for the vdev (for an auto vdev until attach chooses it) */
	char offer_kv[XVBD_OVR_NKEYS][XVBD_DISK_KV_LEN];
	struct xvbd_ovr_set offers;
};

/* An empty description for a grammar: its words, the sources it takes. */
void xvbd_disk_desc_init(struct xvbd_disk_desc *d,
			 enum xvbd_disk_words words, unsigned sources);
/*
 * One key.  '_' counts as '-' in key names.  Values: a spec, a path or
 * URL for the sources; vdev a virtual device name or "auto"; access rw
 * (w) or ro (r); size as the option grammar writes sizes; prealloc and
 * the boolean offers on/off (1/0); cache host or none; the numeric
 * offers decimal.  Refused, with the key at fault in rep->what: a key
 * the grammar does not take, one given twice, a bad value.  0,
 * XVBD_EXIT_USAGE, or XVBD_EXIT_FAIL (out of memory).
 */
int xvbd_disk_desc_set(struct xvbd_disk_desc *d, const char *key,
		       const char *value, struct xvbd_report *rep);
/* Each override of set (a --vbd VDEV:key=value list) as an offer key. */
int xvbd_disk_desc_set_offers(struct xvbd_disk_desc *d,
			      const struct xvbd_ovr_set *set,
			      struct xvbd_report *rep);
/*
 * The keys together, once all are set: one source, what goes with what
 * (a spec says its own vdev and access; size, prealloc and cache are for
 * image files; credentials and share-opts for shares, smb:// needs
 * credentials), the vdev, the share's options; defaults filled in.  No
 * file is looked at.  rep->what is empty for an error about the keys
 * together.  0 or XVBD_EXIT_USAGE.
 */
int xvbd_disk_desc_check(struct xvbd_disk_desc *d, struct xvbd_report *rep);
/*
 * The same disk: what libxl is given (a spec that says no more than a
 * path's target, vdev, access and raw format is the same disk as that
 * path named by file or phy, which only add checks before the add) and
 * what xvbd sets around it (cache, offers, size, share).
 */
bool xvbd_disk_desc_same(const struct xvbd_disk_desc *a,
			 const struct xvbd_disk_desc *b);
/*
 * One line: the disk as an xl spec would say it, then xvbd's own keys
 * ("format=raw,vdev=xvdb,access=ro,target=/i.img cache=none
 * ring-order=1"); the same text for the same disk.
 */
void xvbd_disk_desc_text(const struct xvbd_disk_desc *d, char *buf,
			 size_t len);

/* ---- the domain ---- */

/* What the layer works with: the caller's connections and report. */
struct xvbd_disk_env {
	struct xvbd_tstack *ts;
	struct xvbd_xs *xs;
	struct xvbd_report *rep;
};

/* A guest, as it was when a command looked it up. */
struct xvbd_disk_dom {
	uint32_t domid;
	char name[256];
	/* its creation identity: a domid is reused by the next guest */
	uint8_t uuid[16];
	/* the domain's lock (xvbd/base/lock.h) when held, else -1 */
	int lock_fd;
};

/*
 * dom for the domain domid (named name, as the lookup gave it): running,
 * not dom0, its uuid read.  0 or XVBD_EXIT_FAIL / _USAGE (reported).
 */
int xvbd_disk_dom_init(const struct xvbd_disk_env *env, uint32_t domid,
		       const char *name, struct xvbd_disk_dom *dom);
/*
 * The domain's lock, which attach, tune and apply take while they choose
 * or change a domain's disks, held until xvbd_disk_unlock: a caller that
 * holds it across several calls (apply, an experiment) keeps other xvbd
 * commands from taking the vdevs it works on.  Waits at most timeout_s;
 * tell: say (NOTE) what it waits for after a second.  0 or
 * XVBD_EXIT_FAIL (reported).
 */
int xvbd_disk_lock(const struct xvbd_disk_env *env, struct xvbd_disk_dom *dom,
		   unsigned timeout_s, bool tell);
void xvbd_disk_unlock(struct xvbd_disk_dom *dom);

/* ---- handles ---- */

/* A loop device, as the kernel identifies its binding. */
struct xvbd_disk_loop {
	unsigned nr, major, minor;
	unsigned file_major, file_minor;	/* its file's st_dev */
	uint64_t file_ino;
	uint64_t diskseq;		/* 0: not known (Linux < 5.15) */
	bool direct_io;			/* its mode: cache none */
	uint64_t size_bytes;		/* what the guest sees */
};

/* One disk of a guest: what attach added, or what is at a vdev now. */
struct xvbd_disk_handle {
	/* the domain, and its creation identity */
	uint32_t domid;
	uint8_t dom_uuid[16];
	char domain[256];
	char vdev[XVBD_DISK_VDEV_LEN];
	uint32_t devid;
	enum xvbd_disk_kind kind;
	char target[XVBD_PATH_MAX];	/* libxl's params */
	bool readwrite;
	char backend_path[128];		/* libxl's record of it; "" unknown */
	/* the loop device behind an image (its backend's physical-device) */
	bool have_loop;
	struct xvbd_disk_loop loop;
	/* the share its image is on: its source and mount name, or "" */
	char share[XVBD_PATH_MAX + 300];
	char share_name[128];
	/* attach's facts */
	bool added;
	bool size_known;
	uint64_t size_bytes;
	bool created;			/* the image made by this attach */
	char script[XVBD_PATH_MAX];	/* the hotplug script it got */
	enum xvbd_cache cache;		/* the loop's mode (n/a: none) */
	const char *action;		/* -N: what would be done */
	/* the offers set ("ring-order=1,discard=0"), and their verdict:
	 * "applied", "not applied: ...", "written, not verified", "not
	 * written"; "" without offers */
	char offers[XVBD_OVR_NKEYS * XVBD_DISK_KV_LEN];
	char overrides[320];
	uint64_t bstate, fstate;	/* XVBD_STATE_*, once waited for */
};

/*
 * The disk at devid of dom now, as a handle (its backend, loop and share
 * read from libxl's record, xenstore and the loop device; its target
 * never looked at).  -ENOENT: no disk there; another -errno when the
 * disks cannot be listed (not reported: the caller words it).
 */
int xvbd_disk_find(const struct xvbd_disk_env *env,
		   const struct xvbd_disk_dom *dom, uint32_t devid,
		   struct xvbd_disk_handle *h);

/* ---- attach ---- */

struct xvbd_disk_attach_opts {
	bool dry_run;		/* -N: every check without a side effect */
	bool wait;		/* until backend and frontend are Connected */
	unsigned timeout_s;	/* the wait, the locks, the overrides */
	unsigned jobs;		/* adds in flight at once */
	bool tell;		/* say (NOTE) what a lock waits for */
};

struct xvbd_disk_attach_result {
	bool waited;		/* waited for Connected (not for a guest
				 * someone else keeps paused) */
	bool interrupted;	/* a signal ended it before the wait, the
				 * disks removed again (said) */
	bool have_offers;
};

/*
 * Add descs[0..n) (checked descriptions) to dom: the vdevs chosen (an
 * auto one gets the first free xvd* name), targets checked (no link, not
 * another domain's writable disk, a device not mounted or held), images
 * created and shares mounted, the hotplug script chosen (xvbd-block for
 * raw image files when installed), the disks added concurrently, the
 * offers written in the guest's paused window, then (opts->wait) both
 * sides Connected and what the frontends chose verified.  Under the
 * domain's lock from the vdev choice to the add (taken here unless dom
 * holds it).  handles[i] describes disk i (planned with -N); added tells
 * which are in the guest, also when another failed.  Exit code.
 */
int xvbd_disk_attach(const struct xvbd_disk_env *env,
		     struct xvbd_disk_dom *dom,
		     const struct xvbd_disk_desc *descs, size_t n,
		     const struct xvbd_disk_attach_opts *opts,
		     struct xvbd_disk_handle *handles,
		     struct xvbd_disk_attach_result *res);

/* ---- detach ---- */

struct xvbd_disk_detach_opts {
	bool force;		/* without the guest's cooperation */
	bool dry_run;		/* -N: what would be removed, nothing done */
	/* after the removal, wait until nothing of it is left (its
	 * xenstore directories, its loop device) at most this long */
	unsigned gone_timeout_ms;
};

struct xvbd_disk_detach_result {
	bool found;		/* h's disk is there (not refused) */
	bool removed;
	bool was_gone;		/* nothing there to remove (not an error) */
	bool share_unmounted;	/* -N: would be */
	char left[320];		/* what is still there ("" nothing) */
};

/*
 * Remove the disk h names, and unmount its share when it was the share's
 * last disk.  Refused (nothing removed) when the vdev holds another disk
 * now: another domain with that domid, another backend, another target,
 * or another loop device behind it.  A signal before the removal:
 * nothing removed; during it: the removal finishes.  Exit code; res->left
 * says what is still there after opts->gone_timeout_ms.
 */
int xvbd_disk_detach(const struct xvbd_disk_env *env,
		     const struct xvbd_disk_handle *h,
		     const struct xvbd_disk_detach_opts *opts,
		     struct xvbd_disk_detach_result *res);

/* ---- tune ---- */

struct xvbd_disk_tune_opts {
	bool dry_run;		/* -N: the writes, nothing written */
	bool tell;		/* say (NOTE) what the lock waits for */
};

struct xvbd_disk_tune_result {
	struct xvbd_ovr_set set;	/* as written, each key's value before */
	struct xvbd_ovr_plan plan;	/* -N: the writes */
	struct xvbd_ovr_result res[XVBD_OVR_NKEYS];	/* one per set key */
};

/*
 * Set the per-device keys of set (its vdev names the disk; with h, only
 * while that vdev still holds h's disk) on a running guest, in one
 * transaction, under the domain's lock (taken here unless dom holds
 * it).  Toolstack keys (discard, trusted) any time: their readers take
 * them at the next connect.  Negotiated keys (ring-order, queues,
 * indirect-segments) only lower what the backend offers, and only in the
 * window before blkfront reads them: backend InitWait, frontend not past
 * Initialising, guest paused.  Exit code; xvbd_disk_tune_free(res)
 * always.
 */
int xvbd_disk_tune(const struct xvbd_disk_env *env, struct xvbd_disk_dom *dom,
		   const struct xvbd_disk_handle *h,
		   const struct xvbd_ovr_set *set,
		   const struct xvbd_disk_tune_opts *opts,
		   struct xvbd_disk_tune_result *res);
void xvbd_disk_tune_free(struct xvbd_disk_tune_result *res);

/* ---- observe ---- */

/* A disk as it is, in the description's form. */
struct xvbd_disk_seen {
	struct xvbd_disk_handle handle;	/* which one (detach, tune by it) */
	/* kind, target, vdev, access; cache and size from its loop device
	 * (sysfs, the device's size: never a stat of the target); offers:
	 * the keys' values in xenstore now, as an offer set */
	struct xvbd_disk_desc desc;
	uint64_t bstate, fstate;	/* XVBD_STATE_* (0: not known) */
};

/*
 * The disk at devid of dom.  -ENOENT: none there; another -errno: it
 * cannot be read (not reported: the caller words it).
 */
int xvbd_disk_observe(const struct xvbd_disk_env *env,
		      const struct xvbd_disk_dom *dom, uint32_t devid,
		      struct xvbd_disk_seen *seen);
/* Every disk of dom, one listing: *seen malloc'd (free()), *n. */
int xvbd_disk_observe_all(const struct xvbd_disk_env *env,
			  const struct xvbd_disk_dom *dom,
			  struct xvbd_disk_seen **seen, size_t *n);

#endif /* XVBD_DISK_H */
