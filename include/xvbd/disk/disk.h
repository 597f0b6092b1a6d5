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
 *	 +--> disk/    a disk's life (this header)
 *	 |      +--> vbd/    one VBD gathered; overrides; hotplug script choice
 *	 +------+--> xen/    xenstore, libxl/libxlutil, blkif keys
 *	        +--> dom0/   sysfs, /proc, loop, image, share, cache, modparam
 *	                +--> base/  errors, report, out, lock, journal, sig
 *	hotplug/  xvbd-block (its own program): dom0, xen, base
 *
 * (ab and stats may use disk; disk uses vbd, xen, dom0, base.)
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

#endif /* XVBD_DISK_H */
