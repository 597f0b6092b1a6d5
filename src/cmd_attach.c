/*
 * cmd_attach.c - xvbd attach <Domain> [<DiskSpec>] [options]: add disks
 * to a running guest and wait until their frontends are Connected.
 *
 * Steps, each a function below, in this order:
 *   1. parse_args      options -> struct attach_args (usage errors: 2)
 *   2. plan_items      one item per disk: xl spec parsed by libxlutil, or
 *                      a shorthand (--file, --phy, --share) turned into one;
 *                      every path/URL/option validated; vdevs allocated
 *   3. prepare_items   side effects before libxl: share mounts, image
 *                      files (undone by cleanup_items on failure); the
 *                      hotplug script (choose_script: xvbd-block for
 *                      raw image files when it is installed, its
 *                      xvbd-block-direct name for --cache none)
 *   4. add_items       all disks added concurrently (libxl async ops);
 *                      with overrides (--ring-order ...) the guest is
 *                      paused first (pause_guest), so that its blkfront
 *                      cannot read blkback's offer before xvbd lowers it
 *   5. backends_ready  the backends have finished hotplug (InitWait): the
 *                      overrides, one transaction; then resume_guest
 *                      unpauses (always, also on error or Ctrl-C)
 *   6. wait_items      until backend and frontend are Connected (--wait),
 *                      then what the frontends chose (verify_overrides)
 *   7. render
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "xvbd/attach_script.h"
#include "xvbd/vbd.h"
#include "xvbd/blkif.h"
#include "xvbd/cache.h"
#include "xvbd/cmd.h"
#include "xvbd/image.h"
#include "xvbd/loop.h"
#include "xvbd/modparam.h"
#include "xvbd/override.h"
#include "xvbd/override_run.h"
#include "xvbd/share.h"
#include "xvbd/sysfs.h"

#define CMD			"attach"
#define DEFAULT_TIMEOUT_S	120
#define MAX_ITEMS		64
#define SPEC_MAX		(XVBD_PATH_MAX + 128)
#define WHY_MAX			512
/* A share's mount helper gets this long before it is killed. */
#define MOUNT_TIMEOUT_MS	30000
#define MOUNT_OPTS_MAX		1024

enum item_kind { ITEM_SPEC, ITEM_FILE, ITEM_PHY, ITEM_SHARE };

static const char *const kind_names[] = {
	[ITEM_SPEC] = "spec", [ITEM_FILE] = "file", [ITEM_PHY] = "phy",
	[ITEM_SHARE] = "share",
};

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
	int lock_fd;
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

static bool quiet(const struct attach *at)
{
	return at->ctx->opts->quiet;
}

/* ---- 1. arguments ---- */

enum {
	OPT_FILE = 256, OPT_PHY, OPT_SHARE, OPT_CREDENTIALS, OPT_SHARE_OPTS,
	OPT_SIZE, OPT_PREALLOC, OPT_VDEV, OPT_ACCESS, OPT_SPEC, OPT_WAIT,
	OPT_NO_WAIT, OPT_TIMEOUT, OPT_JOBS, OPT_RING_ORDER, OPT_QUEUES,
	OPT_INDIRECT, OPT_DISCARD, OPT_TRUSTED, OPT_CACHE,
};

static const struct option attach_options[] = {
	{ "file", required_argument, NULL, OPT_FILE },
	{ "phy", required_argument, NULL, OPT_PHY },
	{ "share", required_argument, NULL, OPT_SHARE },
	{ "credentials", required_argument, NULL, OPT_CREDENTIALS },
	{ "share-opts", required_argument, NULL, OPT_SHARE_OPTS },
	{ "size", required_argument, NULL, OPT_SIZE },
	{ "prealloc", no_argument, NULL, OPT_PREALLOC },
	{ "cache", required_argument, NULL, OPT_CACHE },
	{ "vdev", required_argument, NULL, OPT_VDEV },
	{ "access", required_argument, NULL, OPT_ACCESS },
	{ "spec", required_argument, NULL, OPT_SPEC },
	{ "wait", no_argument, NULL, OPT_WAIT },
	{ "no-wait", no_argument, NULL, OPT_NO_WAIT },
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "jobs", required_argument, NULL, OPT_JOBS },
	{ "ring-order", required_argument, NULL, OPT_RING_ORDER },
	{ "queues", required_argument, NULL, OPT_QUEUES },
	{ "indirect-segments", required_argument, NULL, OPT_INDIRECT },
	{ "discard", required_argument, NULL, OPT_DISCARD },
	{ "trusted", required_argument, NULL, OPT_TRUSTED },
	{ NULL, 0, NULL, 0 },
};

static int add_spec(struct attach_args *a, const struct xvbd_cmd *cmd,
		    const char *spec)
{
	if (a->nspecs == MAX_ITEMS)
		return xvbd_usage_error(cmd, "at most %d disks per call",
					MAX_ITEMS);
	a->specs[a->nspecs++] = spec;
	return 0;
}

/*
 * --ring-order N etc. as "key=value" of the override layer; the syntax
 * and range are checked now (on a scratch set), the device's real caps
 * once the disks are known.  on|off for the booleans.
 */
static const struct {
	int opt;
	enum xvbd_ovr_id id;
	const char *name;
} override_options[] = {
	{ OPT_RING_ORDER, XVBD_OVR_RING_ORDER, "--ring-order" },
	{ OPT_QUEUES, XVBD_OVR_QUEUES, "--queues" },
	{ OPT_INDIRECT, XVBD_OVR_INDIRECT, "--indirect-segments" },
	{ OPT_DISCARD, XVBD_OVR_DISCARD, "--discard" },
	{ OPT_TRUSTED, XVBD_OVR_TRUSTED, "--trusted" },
};

static int add_override(struct attach_args *a, int opt, const char *value)
{
	const struct xvbd_ovr_key *key = NULL;
	struct xvbd_ovr_set scratch;
	enum xvbd_ovr_id id = XVBD_OVR_RING_ORDER;
	const char *name = "";
	char why[WHY_MAX];
	size_t i;

	for (i = 0; i < sizeof(override_options) /
		    sizeof(override_options[0]); i++)
		if (override_options[i].opt == opt) {
			id = override_options[i].id;
			name = override_options[i].name;
			key = &xvbd_ovr_keys[id];
		}
	if (!key)
		return XVBD_EXIT_FAIL;

	if (id == XVBD_OVR_DISCARD || id == XVBD_OVR_TRUSTED) {
		if (!strcmp(value, "on") || !strcmp(value, "1"))
			value = "1";
		else if (!strcmp(value, "off") || !strcmp(value, "0"))
			value = "0";
		else {
			xvbd_err(CMD, name, "\"%.24s\": on or off", value);
			return XVBD_EXIT_USAGE;
		}
	}
	snprintf(a->ovr_kv[id], sizeof(a->ovr_kv[id]), "%s=%.24s", key->name,
		 value);
	if (xvbd_override_set_init(&scratch, "xvda", why, sizeof(why)) ||
	    xvbd_override_parse_kv(&scratch, a->ovr_kv[id], why,
				   sizeof(why))) {
		xvbd_err(CMD, name, "%s", why);
		return XVBD_EXIT_USAGE;
	}
	a->have_ovr = true;
	return 0;
}

/*
 * An option with a value given twice: which one was meant?  (--spec adds
 * a disk each time; the flags may repeat.)
 */
static int check_once(const struct xvbd_cmd *cmd, int opt, uint64_t *seen)
{
	const struct option *o;

	if (opt < OPT_FILE || opt == OPT_SPEC)
		return 0;
	for (o = attach_options; o->name; o++)
		if (o->val == opt)
			break;
	if (!o->name || o->has_arg == no_argument)
		return 0;
	if (*seen & (1ull << (opt - OPT_FILE)))
		return xvbd_usage_error(cmd, "--%s given twice", o->name);
	*seen |= 1ull << (opt - OPT_FILE);
	return 0;
}

static int parse_args(struct xvbd_ctx *ctx, int argc, char **argv,
		      struct attach_args *a)
{
	const struct xvbd_cmd *cmd = ctx->cmd;
	int c, i, rc, shorthands;
	uint64_t v, seen = 0;

	memset(a, 0, sizeof(*a));
	a->readwrite = true;
	a->wait = true;
	a->timeout_s = DEFAULT_TIMEOUT_S;
	/* Hotplug scripts are CPU-bound in dom0: one per CPU at a time. */
	a->jobs = sysconf(_SC_NPROCESSORS_ONLN) > 0 ?
		(unsigned)sysconf(_SC_NPROCESSORS_ONLN) : 1;
	xvbd_getopt_begin();
	while ((c = xvbd_getopt(argc, argv, ":", attach_options)) != -1) {
		rc = check_once(cmd, c, &seen);
		if (rc)
			return rc;
		switch (c) {
		case OPT_FILE:
			a->file = optarg;
			break;
		case OPT_PHY:
			a->phy = optarg;
			break;
		case OPT_SHARE:
			a->share = optarg;
			break;
		case OPT_CREDENTIALS:
			a->credentials = optarg;
			break;
		case OPT_SHARE_OPTS:
			a->share_opts = optarg;
			break;
		case OPT_SIZE:
			if (xvbd_parse_size(optarg, &a->size_bytes))
				return xvbd_usage_error(cmd, "--size: \"%s\": "
					"not a size (e.g. 512M, 4G)", optarg);
			a->have_size = true;
			break;
		case OPT_PREALLOC:
			a->prealloc = true;
			break;
		case OPT_CACHE:
			if (xvbd_cache_parse(optarg, &a->cache))
				return xvbd_usage_error(cmd, "--cache: host or "
							"none, not \"%s\"",
							optarg);
			a->have_cache = true;
			break;
		case OPT_VDEV:
			a->vdev = strcmp(optarg, "auto") ? optarg : NULL;
			break;
		case OPT_ACCESS:
			if (!strcmp(optarg, "rw") || !strcmp(optarg, "w"))
				a->readwrite = true;
			else if (!strcmp(optarg, "ro") || !strcmp(optarg, "r"))
				a->readwrite = false;
			else
				return xvbd_usage_error(cmd, "--access: rw or "
							"ro, not \"%s\"",
							optarg);
			break;
		case OPT_SPEC:
			rc = add_spec(a, cmd, optarg);
			if (rc)
				return rc;
			break;
		case OPT_WAIT:
			a->wait = true;
			break;
		case OPT_NO_WAIT:
			a->wait = false;
			break;
		case OPT_TIMEOUT:
			if (xvbd_parse_uint(optarg, 86400, &v) || !v)
				return xvbd_usage_error(cmd, "--timeout: \"%s\":"
					" seconds, 1..86400", optarg);
			a->timeout_s = (unsigned)v;
			break;
		case OPT_JOBS:
			if (xvbd_parse_uint(optarg, MAX_ITEMS, &v) || !v)
				return xvbd_usage_error(cmd, "--jobs: \"%s\": "
					"1..%d", optarg, MAX_ITEMS);
			a->jobs = (unsigned)v;
			break;
		case OPT_RING_ORDER:
		case OPT_QUEUES:
		case OPT_INDIRECT:
		case OPT_DISCARD:
		case OPT_TRUSTED:
			rc = add_override(a, c, optarg);
			if (rc)
				return rc;
			break;
		default:
			return xvbd_getopt_error(cmd, argv, c);
		}
	}
	i = xvbd_getopt_index();
	if (i >= argc)
		return xvbd_usage_error(cmd, "missing domain");
	a->domain = argv[i++];
	for (; i < argc; i++) {
		rc = add_spec(a, cmd, argv[i]);
		if (rc)
			return rc;
	}
	shorthands = !!a->file + !!a->phy + !!a->share;
	if (shorthands > 1)
		return xvbd_usage_error(cmd, "--file, --phy and --share are "
					"one disk each: give one");
	if (shorthands && a->nspecs)
		return xvbd_usage_error(cmd, "a disk spec and --%s: give one",
					a->file ? "file" : a->phy ? "phy" :
					"share");
	if (!shorthands && !a->nspecs)
		return xvbd_usage_error(cmd, "no disk: give a disk spec, "
					"--spec, --file, --phy or --share");
	if (!shorthands && (a->vdev || a->have_size || a->prealloc ||
			    !a->readwrite))
		return xvbd_usage_error(cmd, "--vdev, --size, --prealloc and "
					"--access go with --file, --phy or "
					"--share (a disk spec says them "
					"itself)");
	if (a->phy && (a->have_size || a->prealloc || a->have_cache))
		return xvbd_usage_error(cmd, "--size, --prealloc and --cache "
					"are for image files, not --phy");
	if ((a->credentials || a->share_opts) && !a->share)
		return xvbd_usage_error(cmd, "--credentials and --share-opts "
					"go with --share");
	return 0;
}

/* ---- 2. plan ---- */

static void item_err(const struct item *it, const char *fmt, ...)
	XVBD_PRINTF(2, 3);

/* "xvbd: attach: <what the user wrote>: <why>" */
static void item_err(const struct item *it, const char *fmt, ...)
{
	char why[WHY_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	xvbd_err(CMD, it->arg, "%s", why);
}

/* Index i -> "xvda".."xvdz", "xvdaa".. (bijective base 26). */
static void auto_name(unsigned i, char *buf, size_t len)
{
	char letters[8];
	int n = 0, k;
	unsigned v = i + 1;

	while (v && n < (int)sizeof(letters)) {
		v--;
		letters[n++] = (char)('a' + v % 26);
		v /= 26;
	}
	k = snprintf(buf, len, "xvd");
	while (n > 0 && k < (int)len - 1)
		buf[k++] = letters[--n];
	buf[k] = '\0';
}

static bool devid_taken(const struct attach *at, const struct xvbd_disk *disks,
			size_t ndisks, uint32_t devid, size_t self)
{
	size_t i;

	for (i = 0; i < ndisks; i++)
		if (disks[i].devid == devid)
			return true;
	for (i = 0; i < at->n; i++)
		if (i != self && at->items[i].vdev[0] &&
		    at->items[i].devid == devid)
			return true;
	return false;
}

/*
 * Fixed vdevs first (in use by the domain or twice in this call: error),
 * then "auto" ones get the first free xvd* names.
 */
static int assign_vdevs(struct attach *at)
{
	struct xvbd_disk *disks = NULL;
	size_t ndisks = 0, i;
	unsigned next = 0;
	int err, rc = 0;

	err = xvbd_tstack_disks(at->ctx->ts, at->domid, &disks, &ndisks);
	if (err) {
		xvbd_err(CMD, "disks", "domain %s: %s", at->domain,
			 strerror(-err));
		return XVBD_EXIT_FAIL;
	}
	for (i = 0; i < at->n && !rc; i++) {
		struct item *it = &at->items[i];

		if (it->auto_vdev)
			continue;
		if (xvbd_vdev_parse(it->vdev, &it->devid)) {
			item_err(it, "vdev \"%s\": not a virtual device name",
				 it->vdev);
			rc = XVBD_EXIT_USAGE;
		} else if (devid_taken(at, NULL, 0, it->devid, i)) {
			item_err(it, "vdev %s given twice", it->vdev);
			rc = XVBD_EXIT_FAIL;
		} else if (devid_taken(at, disks, ndisks, it->devid, i)) {
			item_err(it, "vdev %s: already in use in domain %s",
				 it->vdev, at->domain);
			if (!quiet(at))
				xvbd_hint("leave --vdev out (or use vdev=auto) "
					  "for the first free xvd* name");
			rc = XVBD_EXIT_FAIL;
		}
	}
	for (i = 0; i < at->n && !rc; i++) {
		struct item *it = &at->items[i];

		if (!it->auto_vdev)
			continue;
		for (;; next++) {
			if (next >= 26 * 27) {
				item_err(it, "no free xvd* name");
				rc = XVBD_EXIT_FAIL;
				break;
			}
			auto_name(next, it->vdev, sizeof(it->vdev));
			if (xvbd_vdev_parse(it->vdev, &it->devid))
				continue;
			if (!devid_taken(at, disks, ndisks, it->devid, i))
				break;
		}
	}
	xvbd_tstack_disks_free(disks, ndisks);
	return rc;
}

/*
 * A symbolic link anywhere in a disk's path is refused: xvbd checks the
 * file or device now, the hotplug script opens the path later, and a link
 * can be re-pointed in between (at /etc/shadow, at dom0's own disk).  Only
 * /dev's links (LVM, /dev/disk/by-id: udev's, root's alone) name block
 * devices.  The path is absolute without "." or ".." (xvbd_path_check),
 * so it names a link exactly when realpath() differs from it.
 */
static int check_no_symlink(const struct attach *at, const struct item *it,
			    bool dev_links_ok)
{
	char dir[XVBD_PATH_MAX], real[PATH_MAX];
	const char *path = it->target, *slash = strrchr(path, '/');
	struct stat st;

	if (dev_links_ok && !strncmp(path, "/dev/", 5))
		return 0;
	if (!lstat(path, &st) && S_ISLNK(st.st_mode)) {
		if (realpath(path, real))
			item_err(it, "is a symbolic link (to %s)", real);
		else
			item_err(it, "is a symbolic link (to nothing: %s)",
				 strerror(errno));
	} else {
		/* A path still to be created: its directory must be real. */
		snprintf(dir, sizeof(dir), "%.*s", slash && slash != path ?
			 (int)(slash - path) : 1, path);
		if (!realpath(dir, real) || !strcmp(real, dir))
			return 0;	/* later checks say what is missing */
		item_err(it, "%s is a symbolic link (to %s)", dir, real);
	}
	if (!quiet(at))
		xvbd_hint("give the real path: a link can be re-pointed between "
			  "xvbd's checks and the hotplug script");
	return XVBD_EXIT_FAIL;
}

/* A disk spec from the user: parsed by libxlutil, then validated. */
static int plan_spec(struct attach *at, struct item *it)
{
	struct xvbd_tstack_disk_info info;
	char why[WHY_MAX];
	const char *bad;
	int err;

	err = xvbd_tstack_disk_parse(it->arg, &it->disk, why, sizeof(why));
	if (err) {
		item_err(it, "%s", why);
		return err == -EINVAL ? XVBD_EXIT_USAGE : XVBD_EXIT_FAIL;
	}
	xvbd_tstack_disk_describe(it->disk, &info);
	/* -N too: libxl would only say so when it adds the disk. */
	if (info.backend_domname) {
		uint32_t be_domid;
		char *be_name = NULL;

		err = xvbd_tstack_domain_lookup(at->ctx->ts,
						info.backend_domname,
						&be_domid, &be_name);
		free(be_name);
		if (err) {
			item_err(it, "backend domain \"%s\": %s",
				 info.backend_domname,
				 xvbd_tstack_lookup_why(err));
			return xvbd_tstack_lookup_exit(err);
		}
	}
	if (info.script && xvbd_token_check(info.script, &bad)) {
		item_err(it, "script \"%s\": %s", info.script, bad);
		return XVBD_EXIT_USAGE;
	}
	/* libxl runs a script as root with the disk's arguments: a name
	 * is looked up in Xen's script directory, a path is run as it is. */
	if (info.script && info.script[0] == '/' &&
	    (strncmp(info.script, XVBD_XEN_SCRIPT_DIR "/",
		     strlen(XVBD_XEN_SCRIPT_DIR "/")) ||
	     strchr(info.script + strlen(XVBD_XEN_SCRIPT_DIR "/"), '/'))) {
		item_err(it, "script \"%s\": not in %s", info.script,
			 XVBD_XEN_SCRIPT_DIR);
		if (!quiet(at))
			xvbd_hint("name a hotplug script of Xen's script "
				  "directory (script=block-iscsi)");
		return XVBD_EXIT_USAGE;
	}
	if (info.target && *info.target) {
		/* Without a script the target is a path the block script
		 * resolves; a script gets its own word (iscsi:..., drbd:...). */
		err = info.script ? xvbd_token_check(info.target, &bad) :
			xvbd_path_check(info.target, &bad);
		if (err) {
			item_err(it, "target \"%s\": %s", info.target, bad);
			return XVBD_EXIT_USAGE;
		}
		snprintf(it->target, sizeof(it->target), "%s", info.target);
	}
	it->readwrite = info.readwrite;
	it->script = info.script != NULL;
	it->auto_vdev = !strcmp(info.vdev, "auto");
	if (!it->auto_vdev)
		snprintf(it->vdev, sizeof(it->vdev), "%s", info.vdev);
	if (it->target[0] && !it->script)
		return check_no_symlink(at, it, true);
	return 0;
}

/* A shorthand: validate what the user gave; the spec is built later. */
static int plan_shorthand(struct attach *at, struct item *it)
{
	const struct attach_args *a = &at->a;
	const char *bad;
	int err;

	it->readwrite = a->readwrite;
	it->auto_vdev = !a->vdev;
	if (a->vdev)
		snprintf(it->vdev, sizeof(it->vdev), "%s", a->vdev);
	switch (it->kind) {
	case ITEM_FILE:
	case ITEM_PHY:
		if (xvbd_path_check(it->arg, &bad)) {
			item_err(it, "%s", bad);
			return XVBD_EXIT_USAGE;
		}
		snprintf(it->target, sizeof(it->target), "%s", it->arg);
		return check_no_symlink(at, it, it->kind == ITEM_PHY);
	case ITEM_SHARE:
		err = xvbd_share_parse_url(it->arg, &it->url, &bad);
		if (!err)
			err = xvbd_share_opts_check(it->url.proto,
						    a->share_opts, &bad);
		if (err) {
			item_err(it, "%s", bad);
			return XVBD_EXIT_USAGE;
		}
		if (it->url.proto == XVBD_SHARE_SMB && !a->credentials) {
			item_err(it, "an smb:// share needs --credentials FILE");
			if (!quiet(at))
				xvbd_hint("a root-owned 0600 file with "
					  "username=... and password=... lines");
			return XVBD_EXIT_USAGE;
		}
		if (it->url.proto == XVBD_SHARE_NFS && a->credentials) {
			item_err(it, "--credentials is for smb:// shares");
			return XVBD_EXIT_USAGE;
		}
		return 0;
	case ITEM_SPEC:
		break;
	}
	return XVBD_EXIT_FAIL;
}

/* One image or device as two disks of one call: two writers (or a typo). */
static int check_twice(const struct attach *at, size_t i)
{
	const struct item *it = &at->items[i], *o;
	struct stat st, ot;
	bool have_st;
	size_t k;

	if (!it->target[0] || it->script)
		return 0;
	have_st = !stat(it->target, &st);
	for (k = 0; k < i; k++) {
		o = &at->items[k];
		if (!o->target[0] || o->script)
			continue;
		if (strcmp(o->target, it->target) &&
		    (!have_st || stat(o->target, &ot) ||
		     (st.st_dev != ot.st_dev || st.st_ino != ot.st_ino)))
			continue;
		item_err(it, "target %s given twice (also in %s)", it->target,
			 o->arg);
		return XVBD_EXIT_FAIL;
	}
	return 0;
}

static int plan_items(struct attach *at)
{
	const struct attach_args *a = &at->a;
	size_t i;
	int rc;

	if (a->nspecs) {
		for (i = 0; i < a->nspecs; i++) {
			at->items[i].kind = ITEM_SPEC;
			at->items[i].arg = a->specs[i];
		}
		at->n = a->nspecs;
	} else {
		struct item *it = &at->items[0];

		it->kind = a->file ? ITEM_FILE : a->phy ? ITEM_PHY :
			ITEM_SHARE;
		it->arg = a->file ? a->file : a->phy ? a->phy : a->share;
		at->n = 1;
	}
	for (i = 0; i < at->n; i++) {
		struct item *it = &at->items[i];

		rc = it->kind == ITEM_SPEC ? plan_spec(at, it) :
			plan_shorthand(at, it);
		if (rc)
			return rc;
		rc = check_twice(at, i);
		if (rc)
			return rc;
	}
	return assign_vdevs(at);
}

/*
 * The call's overrides for each disk, validated against what dom0's
 * blkback can offer at all (module parameters, Linux's fixed indirect
 * segment offer).  After the add they are checked again against what
 * blkback wrote at probe, inside the transaction.
 */
static int plan_overrides(struct attach *at)
{
	struct xvbd_modparams mp = { 0 };
	struct xvbd_ovr_caps caps = { 0 };
	char why[WHY_MAX];
	size_t i, k;
	int err, rc = 0;

	if (!at->a.have_ovr)
		return 0;
	err = xvbd_modparam_list(XVBD_BLKBACK_MODULE, &mp);
	if (err) {
		xvbd_err(CMD, XVBD_BLKBACK_MODULE, "cannot read its "
			 "parameters: %s", err == -ENOENT ?
			 "module not loaded" : strerror(-err));
		return XVBD_EXIT_FAIL;
	}
	xvbd_override_caps_modparams(&caps, &mp);
	xvbd_override_caps_blkback_model(&caps);
	for (i = 0; i < at->n && !rc; i++) {
		struct item *it = &at->items[i];

		if (xvbd_override_set_init(&it->ovr, it->vdev, why,
					   sizeof(why))) {
			item_err(it, "%s", why);
			rc = XVBD_EXIT_USAGE;
			break;
		}
		for (k = 0; k < XVBD_OVR_NKEYS && !rc; k++)
			if (at->a.ovr_kv[k][0] &&
			    xvbd_override_parse_kv(&it->ovr, at->a.ovr_kv[k],
						   why, sizeof(why))) {
				item_err(it, "%s", why);
				rc = XVBD_EXIT_USAGE;
			}
		if (!rc && xvbd_override_validate(&it->ovr, &caps, why,
						  sizeof(why))) {
			item_err(it, "%s", why);
			if (!quiet(at))
				xvbd_hint("see \"xvbd defaults\" for dom0's "
					  "xen_blkback limits");
			rc = XVBD_EXIT_USAGE;
		}
		at->devs[i].target.set = &it->ovr;
	}
	xvbd_modparams_free(&mp);
	return rc;
}

/* ---- 3. side effects before libxl ---- */

/* --credentials: a root-owned regular file nobody else can read (not a
 * symbolic link to one). */
static int check_credentials(const struct item *it, const char *path)
{
	const char *bad;
	struct stat st;

	if (xvbd_path_check(path, &bad)) {
		item_err(it, "--credentials %s: %s", path, bad);
		return XVBD_EXIT_USAGE;
	}
	/* lstat: a link could be re-pointed before the mount helper
	 * reads it. */
	if (lstat(path, &st)) {
		item_err(it, "--credentials %s: %s", path, strerror(errno));
		return XVBD_EXIT_FAIL;
	}
	if (!S_ISREG(st.st_mode) || st.st_uid != 0 || (st.st_mode & 077)) {
		item_err(it, "--credentials %s: must be a regular file owned "
			 "by root with mode 0600", path);
		return XVBD_EXIT_FAIL;
	}
	return 0;
}

/*
 * Does a domain's disk use the file or block device st describes?  From
 * what its backend published (physical-device, and the loop device's
 * backing inode), never a stat of its target: a share whose server died
 * would hang attach (issue 16, item 5).
 */
static bool disk_uses(struct attach *at, const struct item *it,
		      const struct xvbd_disk *disk, const struct stat *st)
{
	struct xvbd_loop lo;
	unsigned major, minor;
	char *value;
	bool have;

	if (disk->target && !strcmp(disk->target, it->target))
		return true;
	value = disk->backend_path ?
		xvbd_xs_read_dir_key(at->ctx->xs, disk->backend_path,
				     "physical-device") : NULL;
	have = value && !xvbd_sysfs_parse_devnum(value, &major, &minor);
	free(value);
	if (!have)
		return false;
	/* A device: also the one the hotplug script put behind an image
	 * (its loop device), which blkback holds without excluding others. */
	if (S_ISBLK(st->st_mode))
		return major == major(st->st_rdev) && minor == minor(st->st_rdev);
	return xvbd_loop_find_dev(major, minor, &lo) && xvbd_loop_backs(&lo, st);
}

/*
 * A file or device another disk of any domain uses is refused unless
 * both are read-only (as Xen's block script shares them): two writers of
 * one image corrupt it.
 */
static int check_in_use(struct attach *at, const struct item *it,
			const struct stat *st)
{
	uint32_t *domids = NULL;
	size_t ndom = 0, d, k;
	int rc = 0;

	if (xvbd_tstack_domains(at->ctx->ts, &domids, &ndom)) {
		item_err(it, "cannot list domains");
		return XVBD_EXIT_FAIL;
	}
	for (d = 0; d < ndom && !rc; d++) {
		struct xvbd_disk *disks = NULL;
		size_t nd = 0;

		if (xvbd_tstack_disks(at->ctx->ts, domids[d], &disks, &nd))
			continue;
		for (k = 0; k < nd && !rc; k++) {
			if ((!it->readwrite && !disks[k].readwrite) ||
			    !disk_uses(at, it, &disks[k], st))
				continue;
			item_err(it, "in use: already attached to domain %u as "
				 "%s%s", domids[d], disks[k].vdev,
				 disks[k].readwrite ? "" : " (read-only)");
			rc = XVBD_EXIT_FAIL;
		}
		xvbd_tstack_disks_free(disks, nd);
	}
	free(domids);
	return rc;
}

/* An existing image or device target: not another disk's (above). */
static int check_target_free(struct attach *at, const struct item *it)
{
	struct stat st;

	if (!it->target[0] || it->script || stat(it->target, &st) ||
	    !(S_ISREG(st.st_mode) || S_ISBLK(st.st_mode)))
		return 0;	/* missing or odd: later checks say so */
	return check_in_use(at, it, &st);
}

/* A block device nobody uses: not mounted, not another guest's disk. */
static int check_phy(struct attach *at, const struct item *it)
{
	struct xvbd_vbd_user user;
	char where[XVBD_PATH_MAX];
	struct stat st;
	int fd, rc;

	if (stat(it->target, &st)) {
		item_err(it, "%s", strerror(errno));
		return XVBD_EXIT_FAIL;
	}
	if (!S_ISBLK(st.st_mode)) {
		item_err(it, "not a block device");
		if (!quiet(at))
			xvbd_hint("use --file for image files");
		return XVBD_EXIT_FAIL;
	}
	if (xvbd_mount_find_dev(major(st.st_rdev), minor(st.st_rdev), where,
				sizeof(where)) == 1) {
		item_err(it, "mounted in dom0 on %s", where);
		return XVBD_EXIT_FAIL;
	}
	rc = check_in_use(at, it, &st);
	if (rc)
		return rc;
	/* Overlaps count too: a partition of a disk in use, a loop of the
	 * same file (vbd.c, from what backends published: no stat). */
	rc = xvbd_vbd_phy_user(at->ctx->ts, at->ctx->xs, major(st.st_rdev),
			       minor(st.st_rdev), &user);
	if (rc < 0) {
		item_err(it, "cannot list the guests' disks: %s",
			 strerror(-rc));
		return XVBD_EXIT_FAIL;
	}
	if (rc > 0) {
		item_err(it, "already attached to domain %u as %s%s",
			 user.domid, user.vdev, user.how);
		return XVBD_EXIT_FAIL;
	}
	/* Held by anything else (a mounted partition of this disk, LVM,
	 * a loop device): the kernel refuses an exclusive open. */
	fd = open(it->target, O_RDONLY | O_EXCL | O_CLOEXEC);
	if (fd < 0) {
		item_err(it, "in use in dom0: %s", strerror(errno));
		return XVBD_EXIT_FAIL;
	}
	close(fd);
	return 0;
}

static int prepare_image(struct attach *at, struct item *it)
{
	const struct attach_args *a = &at->a;
	char why[WHY_MAX];
	int fd;

	if (xvbd_image_prepare(it->target, a->have_size, a->size_bytes,
			       a->prealloc, &it->created, &it->size_bytes,
			       why, sizeof(why))) {
		item_err(it, "%s", why);
		return XVBD_EXIT_FAIL;
	}
	it->size_known = true;
	/* A read-only share or file must not be attached writable: the
	 * block script would quietly fall back to a read-only loop. */
	if (it->readwrite) {
		fd = xvbd_image_open(it->target, O_RDWR, NULL, why,
				     sizeof(why));
		if (fd < 0) {
			item_err(it, "not writable (%s)%s", strerror(-fd),
				 it->kind == ITEM_SHARE ?
				 ": a read-only share?" : "");
			if (!quiet(at))
				xvbd_hint("attach it with --access ro");
			return XVBD_EXIT_FAIL;
		}
		close(fd);
	}
	return 0;
}

/*
 * What a share needs before it is mounted, none of it a side effect: the
 * credentials file, the mount options, and the image's path under xvbd's
 * mount point for the share (it->target).
 */
static int check_share(struct attach *at, struct item *it, char *opts,
		       size_t opts_len)
{
	char point[XVBD_PATH_MAX];
	int err, n;

	if (it->url.proto == XVBD_SHARE_SMB) {
		err = check_credentials(it, at->a.credentials);
		if (err)
			return err;
	}
	if (xvbd_share_build_opts(it->url.proto, at->a.share_opts,
				  at->a.credentials, opts, opts_len)) {
		item_err(it, "mount options too long");
		return XVBD_EXIT_USAGE;
	}
	n = xvbd_share_mountpoint(&it->url, point, sizeof(point)) ? -1 :
		snprintf(it->target, sizeof(it->target), "%s/%s", point,
			 it->url.image);
	if (n < 0 || (size_t)n >= sizeof(it->target)) {
		item_err(it, "image path too long");
		return XVBD_EXIT_FAIL;
	}
	return 0;
}

static int mount_share(struct attach *at, struct item *it)
{
	char opts[MOUNT_OPTS_MAX], why[WHY_MAX];
	int err;

	err = check_share(at, it, opts, sizeof(opts));
	if (err)
		return err;
	if (at->lock_fd < 0) {
		at->lock_fd = xvbd_share_lock();
		if (at->lock_fd < 0) {
			item_err(it, "lock %s: %s", XVBD_SHARE_DIR,
				 strerror(-at->lock_fd));
			return XVBD_EXIT_FAIL;
		}
	}
	err = xvbd_share_mount(&it->url, opts, MOUNT_TIMEOUT_MS,
			       &(bool){ false }, why, sizeof(why));
	if (err) {
		item_err(it, "mount %s: %s", it->url.source,
			 why[0] ? why : strerror(-err));
		return XVBD_EXIT_FAIL;
	}
	/* Reused or not, release_share decides by the disks using it. */
	it->mounted_now = true;
	return 0;
}

/* The xl spec of a shorthand; target= last (it takes the rest). */
static int build_spec(struct item *it)
{
	char spec[SPEC_MAX], why[WHY_MAX];
	int n, err;

	n = snprintf(spec, sizeof(spec), "format=raw,vdev=%s,access=%s,"
		     "target=%s", it->vdev, it->readwrite ? "rw" : "ro",
		     it->target);
	if (n < 0 || (size_t)n >= sizeof(spec)) {
		item_err(it, "disk spec too long");
		return XVBD_EXIT_FAIL;
	}
	err = xvbd_tstack_disk_parse(spec, &it->disk, why, sizeof(why));
	if (err) {
		item_err(it, "%s", why);
		return XVBD_EXIT_FAIL;
	}
	return 0;
}

/* The hotplug script (xvbd/attach_script.h says which), on the disk. */
static int choose_script(struct attach *at, struct item *it,
			 bool assume_file)
{
	struct xvbd_tstack_disk_info info;
	struct xvbd_script_choice ch;
	char why[WHY_MAX];
	const char *hint;
	struct stat st;
	bool file;

	xvbd_tstack_disk_describe(it->disk, &info);
	/* -N: an image that is still to be created (or mounted) will be a
	 * regular file, or the attach stops before the add. */
	file = assume_file || (info.target && !stat(info.target, &st) &&
			       S_ISREG(st.st_mode));
	if (xvbd_script_choose(&info, file, at->a.cache, &at->xvbd_block,
			       &ch, why, sizeof(why), &hint)) {
		item_err(it, "%s", why);
		if (hint && !quiet(at))
			xvbd_hint("%s", hint);
		return XVBD_EXIT_FAIL;
	}
	if (ch.ours && xvbd_tstack_disk_set_script(it->disk, ch.script)) {
		item_err(it, "%s", strerror(ENOMEM));
		return XVBD_EXIT_FAIL;
	}
	it->hotplug = ch.script;
	it->cache = ch.cache;
	if (at->ctx->opts->verbose)
		fprintf(stderr, "xvbd: attach: %s: hotplug script %s%s\n",
			it->vdev, it->hotplug, ch.ours || info.script ? "" :
			" (libxl's default)");
	return 0;
}

/*
 * Without a script the target must exist now: the block script's own
 * message would come later, after a half-made device.
 */
static int prepare_spec(struct attach *at, struct item *it)
{
	int rc;

	if (it->target[0] && !it->script && access(it->target, F_OK)) {
		item_err(it, "target %s: %s", it->target, strerror(errno));
		return XVBD_EXIT_FAIL;
	}
	rc = check_target_free(at, it);
	if (rc)
		return rc;
	if (it->auto_vdev && xvbd_tstack_disk_set_vdev(it->disk, it->vdev))
		return XVBD_EXIT_FAIL;
	return 0;
}

static int prepare_items(struct attach *at)
{
	size_t i;
	int rc = 0;

	for (i = 0; i < at->n && !rc; i++) {
		struct item *it = &at->items[i];

		switch (it->kind) {
		case ITEM_SPEC:
			rc = prepare_spec(at, it);
			break;
		case ITEM_FILE:
			rc = check_target_free(at, it);
			if (!rc)
				rc = prepare_image(at, it);
			if (!rc)
				rc = build_spec(it);
			break;
		case ITEM_PHY:
			rc = check_phy(at, it);
			if (!rc)
				rc = build_spec(it);
			break;
		case ITEM_SHARE:
			rc = mount_share(at, it);
			if (!rc)
				rc = check_target_free(at, it);
			if (!rc)
				rc = prepare_image(at, it);
			if (!rc)
				rc = build_spec(it);
			break;
		}
		/* A file checked by image.c: never re-looked at by path. */
		if (!rc)
			rc = choose_script(at, it, it->kind == ITEM_FILE ||
					   it->kind == ITEM_SHARE);
	}
	return rc;
}

/*
 * -N: every check that has no side effect (specs parsed, vdevs chosen,
 * images planned, partitions checked, the hotplug script chosen), and
 * what would be done; nothing is created, mounted or added.  A share's
 * image can only be looked at once it is mounted.
 */
static int dry_run_item(struct attach *at, struct item *it)
{
	const struct attach_args *a = &at->a;
	enum xvbd_image_action act;
	char why[WHY_MAX], opts[MOUNT_OPTS_MAX];
	int rc;

	switch (it->kind) {
	case ITEM_SPEC:
		it->action = "add";
		rc = prepare_spec(at, it);
		break;
	case ITEM_FILE:
		if (xvbd_image_check(it->target, a->have_size, a->size_bytes,
				     &act, &it->size_bytes, why,
				     sizeof(why))) {
			item_err(it, "%s", why);
			return XVBD_EXIT_FAIL;
		}
		it->size_known = true;
		rc = check_target_free(at, it);
		if (rc)
			return rc;
		it->action = act == XVBD_IMAGE_USE ? "add" : a->prealloc ?
			"create the image (allocated), add" :
			"create the image (sparse), add";
		rc = build_spec(it);
		break;
	case ITEM_PHY:
		it->action = "add";
		rc = check_phy(at, it);
		if (!rc)
			rc = build_spec(it);
		break;
	case ITEM_SHARE:
		it->action = "mount the share (or reuse its mount), create "
			"or use the image, add";
		rc = check_share(at, it, opts, sizeof(opts));
		if (rc)
			return rc;
		it->size_known = a->have_size;
		it->size_bytes = a->size_bytes;
		rc = build_spec(it);
		break;
	default:
		rc = XVBD_EXIT_FAIL;
	}
	if (!rc)
		rc = choose_script(at, it, it->kind == ITEM_FILE ||
				   it->kind == ITEM_SHARE);
	return rc;
}

/* The columns a disk's row starts with, planned (-N) or added. */
static void render_disk(const struct attach *at, const struct item *it)
{
	struct xvbd_out *o = at->ctx->out;

	xvbd_out_str(o, "domain", at->domain);
	xvbd_out_str(o, "vdev", it->vdev);
	xvbd_out_uint(o, "devid", it->devid);
	xvbd_out_str(o, "kind", kind_names[it->kind]);
	xvbd_out_str(o, "target", it->target[0] ? it->target : NULL);
	xvbd_out_str(o, "access", it->readwrite ? "rw" : "ro");
	xvbd_out_size_opt(o, "size_bytes", it->size_known, it->size_bytes);
}

static const struct xvbd_out_label dry_labels[] = {
	{ "domain", "DOMAIN" }, { "vdev", "VDEV" }, { "devid", "DEVID" },
	{ "kind", "KIND" },
	{ "target", "TARGET" }, { "access", "ACCESS" },
	{ "size_bytes", "SIZE" }, { "script", "SCRIPT" },
	{ "cache", "CACHE" },
	{ "overrides", "OVERRIDES" }, { "action", "WOULD" },
	{ NULL, NULL },
};

static int dry_run(struct attach *at)
{
	struct xvbd_out *o = at->ctx->out;
	char ovr[XVBD_OVR_NKEYS * 48];
	size_t i, k, len = 0;
	int rc;

	for (i = 0; i < at->n; i++) {
		rc = dry_run_item(at, &at->items[i]);
		if (rc)
			return rc;
	}
	ovr[0] = '\0';
	for (k = 0; k < XVBD_OVR_NKEYS; k++)
		if (at->a.ovr_kv[k][0] && len < sizeof(ovr))
			len += snprintf(ovr + len, sizeof(ovr) - len, "%s%s",
					len ? "," : "", at->a.ovr_kv[k]);
	xvbd_out_labels(o, dry_labels);
	xvbd_out_arr_begin(o, NULL);
	for (i = 0; i < at->n; i++) {
		const struct item *it = &at->items[i];

		xvbd_out_obj_begin(o, NULL);
		render_disk(at, it);
		xvbd_out_str(o, "script", it->hotplug);
		xvbd_out_str(o, "cache", xvbd_cache_name(it->cache));
		xvbd_out_str(o, "overrides", ovr[0] ? ovr : NULL);
		xvbd_out_str(o, "action", it->action);
		xvbd_out_obj_end(o);
	}
	xvbd_out_arr_end(o);
	return XVBD_EXIT_OK;
}

/*
 * Undo what this call did for disks that were not added: image files it
 * created, share mounts nobody uses.
 */
static void cleanup_items(struct attach *at)
{
	size_t i, users;
	int err;
	char name[128], why[WHY_MAX];

	for (i = 0; i < at->n; i++) {
		struct item *it = &at->items[i];

		if (it->added)
			continue;
		err = it->created ? xvbd_image_remove(it->target) : 0;
		if (err && err != -ENOENT)
			xvbd_err(CMD, it->target, "cannot remove the image "
				 "this call created: %s", strerror(-err));
		it->created = false;
	}
	for (i = 0; i < at->n; i++) {
		struct item *it = &at->items[i];
		char point[XVBD_PATH_MAX];

		if (it->added || !it->mounted_now ||
		    xvbd_share_mountpoint(&it->url, point, sizeof(point)) ||
		    xvbd_tstack_targets_under(at->ctx->ts, point, &users) ||
		    users)
			continue;
		snprintf(name, sizeof(name), "%s", it->url.name);
		if (xvbd_share_umount(name, why, sizeof(why)))
			xvbd_err(CMD, point, "cannot unmount: %s", why);
	}
}

/* ---- 4. add ---- */

/*
 * With overrides the guest must not run between blkback's probe and
 * xvbd's writes: blkfront reads the offer as soon as it sees InitWait.
 * Ctrl-C is held from here to the unpause.  A guest paused by someone
 * else stays paused (and nobody waits for its frontends).
 */
static int pause_guest(struct attach *at)
{
	struct xvbd_dominfo info;
	int err;

	err = xvbd_tstack_domain_info(at->ctx->ts, at->domid, &info);
	if (err) {
		xvbd_err(CMD, "domain", "%s: %s", at->domain,
			 err == -ENOENT ? "gone" : strerror(-err));
		return XVBD_EXIT_FAIL;
	}
	at->was_paused = info.paused;
	if (!at->a.have_ovr || at->was_paused)
		return 0;
	xvbd_guard_signals(&at->old_mask);
	err = xvbd_tstack_pause(at->ctx->ts, at->domid);
	if (err) {
		sigprocmask(SIG_SETMASK, &at->old_mask, NULL);
		xvbd_err(CMD, "pause", "domain %s: %s", at->domain,
			 strerror(-err));
		return XVBD_EXIT_FAIL;
	}
	at->paused_by_us = true;
	if (!quiet(at))
		fprintf(stderr, "xvbd: attach: domain %s paused while its new "
			"disks are set up\n", at->domain);
	return 0;
}

/* Always called: undoes pause_guest, whatever happened in between. */
static int resume_guest(struct attach *at)
{
	int err;

	if (!at->paused_by_us)
		return 0;
	err = xvbd_tstack_unpause(at->ctx->ts, at->domid);
	at->interrupted = xvbd_guard_signals_pending();
	at->paused_by_us = false;
	if (err) {
		sigprocmask(SIG_SETMASK, &at->old_mask, NULL);
		xvbd_err(CMD, "unpause", "domain %s (%u): %s", at->domain,
			 at->domid, strerror(-err));
		if (!quiet(at))
			xvbd_hint("the guest is still paused: xl unpause %u",
				  at->domid);
		return XVBD_EXIT_FAIL;
	}
	if (!quiet(at))
		fprintf(stderr, "xvbd: attach: domain %s unpaused\n",
			at->domain);
	if (at->interrupted) {
		/* The held signal is acted on by the caller, not delivered. */
		xvbd_err(CMD, "interrupted", "domain %s is running; disks "
			 "added, overrides %s, not verified", at->domain,
			 at->ovr_why[0] ? "not written" : "written");
		return XVBD_EXIT_FAIL;
	}
	sigprocmask(SIG_SETMASK, &at->old_mask, NULL);
	return 0;
}

/*
 * A failed add can leave its device behind (libxl gives up on a hotplug
 * script that outlives its timeout, and the script then finishes): tear
 * such devices down so that nothing half-added stays in xenstore.
 */
static void remove_leftovers(struct attach *at)
{
	struct xvbd_disk *disks = NULL;
	size_t nd = 0, i, k;

	if (xvbd_tstack_disks(at->ctx->ts, at->domid, &disks, &nd))
		return;
	for (i = 0; i < at->n; i++) {
		struct item *it = &at->items[i];

		if (it->added)
			continue;
		for (k = 0; k < nd; k++)
			if (disks[k].devid == it->devid &&
			    xvbd_tstack_disk_remove(at->ctx->ts, at->domid,
						    disks[k].vdev, true))
				xvbd_err(CMD, it->vdev, "cannot remove the "
					 "half-added device: %s", "see "
					 "libxl's messages above");
	}
	xvbd_tstack_disks_free(disks, nd);
}

static int add_items(struct attach *at)
{
	struct xvbd_tstack_disk *disks[MAX_ITEMS];
	int errs[MAX_ITEMS];
	size_t i;
	int rc = 0;

	for (i = 0; i < at->n; i++)
		disks[i] = at->items[i].disk;
	xvbd_tstack_disks_add(at->ctx->ts, at->domid, disks, at->n,
			      at->a.jobs, errs);
	for (i = 0; i < at->n; i++) {
		struct item *it = &at->items[i];

		if (!errs[i]) {
			it->added = true;
			continue;
		}
		item_err(it, "libxl could not add %s to domain %s (see "
			 "libxl's messages above)", it->vdev, at->domain);
		rc = XVBD_EXIT_FAIL;
	}
	if (rc)
		remove_leftovers(at);
	return rc;
}

/* ---- 5. backends ready ---- */

/*
 * Every added disk's backend has run its hotplug script (InitWait or
 * later) and the guest is paused: the overrides, all disks in one
 * transaction.
 */
static int backends_ready(struct attach *at)
{
	if (!at->a.have_ovr)
		return 0;
	xvbd_ovr_run_apply(at->ctx->ts, at->ctx->xs, at->domid, at->devs,
			   at->n, &at->disks, &at->ndisks,
			   (int)at->a.timeout_s * 1000, at->ovr_why,
			   sizeof(at->ovr_why));
	if (!at->ovr_why[0]) {
		at->ovr_written = true;
		return 0;
	}
	xvbd_err(CMD, "overrides", "not written: %s", at->ovr_why);
	return XVBD_EXIT_FAIL;
}

/* ---- 6. wait for Connected ---- */

/*
 * Only the state key: this runs on every watch event of every disk, and
 * under TCG each xenstore round trip counts (a whole directory was ~30).
 */
static uint64_t read_state(struct xvbd_xs *xs, const char *dir)
{
	uint64_t state;

	if (!dir || xvbd_xs_read_dir_uint(xs, dir, "state", XVBD_STATE_MAX,
					  &state))
		return XVBD_STATE_UNKNOWN;
	return state;
}

struct wait_arg {
	struct item *it;
	const char *frontend;
};

static bool settled(struct xvbd_xs *xs, void *arg)
{
	struct wait_arg *w = arg;

	w->it->bstate = read_state(xs, w->it->backend_path);
	w->it->fstate = read_state(xs, w->frontend);
	if (w->it->bstate >= XVBD_STATE_CLOSING)
		return true;	/* failed: no point waiting */
	return w->it->bstate == XVBD_STATE_CONNECTED &&
	       w->it->fstate == XVBD_STATE_CONNECTED;
}

/*
 * The backend path from libxl's record (never the frontend's key), the
 * key libxl_device_disk_getinfo reads too, checked for shape; one read
 * per disk instead of listing every disk through libxl.
 */
static int find_backends(struct attach *at)
{
	struct xvbd_xs_be_path be;
	size_t i;

	for (i = 0; i < at->n; i++) {
		struct item *it = &at->items[i];
		char *record, *path;

		if (!it->added)
			continue;
		record = xvbd_xs_path_libxl_vbd(at->domid, it->devid);
		if (!record)
			return -ENOMEM;
		path = xvbd_xs_read_dir_key(at->ctx->xs, record, "backend");
		free(record);
		if (path && (xvbd_xs_parse_backend_path(path, &be) ||
			     be.fe_domid != at->domid ||
			     be.devid != it->devid)) {
			free(path);
			path = NULL;
		}
		free(it->backend_path);
		it->backend_path = path;
	}
	return 0;
}

static int wait_items(struct attach *at)
{
	int64_t deadline = xvbd_now_ms() + (int64_t)at->a.timeout_s * 1000;
	size_t i;
	int rc = 0;

	if (find_backends(at)) {
		xvbd_err(CMD, "disks", "domain %s: cannot list", at->domain);
		return XVBD_EXIT_FAIL;
	}
	for (i = 0; i < at->n; i++) {
		struct item *it = &at->items[i];
		struct wait_arg w = { it, NULL };
		int64_t left = deadline - xvbd_now_ms();
		int err;

		if (!it->added)
			continue;
		w.frontend = xvbd_xs_path_frontend_vbd(at->domid, it->devid);
		if (!w.frontend) {
			rc = XVBD_EXIT_FAIL;
			continue;
		}
		err = xvbd_xs_watch_wait(at->ctx->xs, w.frontend,
					 left > 0 ? (int)left : 0, settled, &w);
		free((char *)w.frontend);
		if (!err && it->bstate == XVBD_STATE_CONNECTED)
			continue;
		rc = XVBD_EXIT_FAIL;
		item_err(it, "%s attached but not connected%s: backend %s, "
			 "frontend %s", it->vdev,
			 err == -ETIMEDOUT ? " after --timeout" : "",
			 xvbd_state_name(it->bstate),
			 xvbd_state_name(it->fstate));
		if (!quiet(at))
			xvbd_hint("is blkfront loaded in the guest?  \"xvbd "
				  "show %s %s\" shows both sides; \"xvbd "
				  "detach\" removes it", at->domain, it->vdev);
	}
	return rc;
}

/*
 * Both sides Connected: what did the frontends choose?  Without --wait,
 * or for a guest someone else keeps paused, nothing can be verified yet.
 */
static int verify_overrides(struct attach *at)
{
	char verdict[320];
	size_t failed;

	if (!at->a.have_ovr || at->ovr_why[0])
		return 0;
	if (!at->a.wait || at->was_paused) {
		if (!quiet(at))
			xvbd_hint("overrides written, not verified (%s): "
				  "\"xvbd show %s VDEV\" shows what the "
				  "frontend chose", at->was_paused ?
				  "the guest is paused" : "--no-wait",
				  at->domain);
		return 0;
	}
	xvbd_ovr_run_verify(at->ctx->xs, at->domid, at->devs, at->n,
			    (int)at->a.timeout_s * 1000);
	at->ovr_verified = true;
	failed = xvbd_ovr_run_verdict(at->devs, at->n, NULL, verdict,
				      sizeof(verdict));
	if (!failed)
		return 0;
	xvbd_err(CMD, at->domain, "%s", verdict);
	return XVBD_EXIT_FAIL;
}

/* ---- 7. output ---- */

/* -v: where the time went (hot-attach speed is what xvbd is for). */
static void print_timing(const struct attach *at)
{
	fprintf(stderr, "xvbd: attach: timing: plan %.1f s, add (libxl and "
		"hotplug scripts, %zu disks, --jobs %u) %.1f s",
		(at->t_planned - at->t_start) / 1000.0, at->n, at->a.jobs,
		(at->t_added - at->t_planned) / 1000.0);
	if (at->t_connected)
		fprintf(stderr, ", Connected %.1f s later",
			(at->t_connected - at->t_added) / 1000.0);
	fputc('\n', stderr);
}

static const struct xvbd_out_label labels[] = {
	{ "domain", "DOMAIN" }, { "vdev", "VDEV" }, { "devid", "DEVID" },
	{ "kind", "KIND" }, { "target", "TARGET" }, { "access", "ACCESS" },
	{ "size_bytes", "SIZE" }, { "created", "CREATED" },
	{ "share", "SHARE" }, { "backend_state", "BACKEND" },
	{ "frontend_state", "FRONTEND" }, { "overrides", "OVERRIDES" },
	{ NULL, NULL },
};

static bool waited(const struct attach *at)
{
	return at->a.wait && !at->was_paused;
}

/*
 * Per disk: "applied", "not applied: why", "written, not verified",
 * "not written" (another disk failed first), or null (no overrides).
 */
static void render_overrides(struct attach *at, size_t i)
{
	const struct xvbd_ovr_dev *d = &at->devs[i];
	struct xvbd_out *o = at->ctx->out;
	char verdict[320];

	if (!at->a.have_ovr) {
		xvbd_out_null(o, "overrides");
		return;
	}
	if (!at->ovr_why[0] && !at->ovr_verified) {
		xvbd_out_str(o, "overrides", at->ovr_written ?
			     "written, not verified" : "not written");
		return;
	}
	xvbd_ovr_run_verdict(at->devs, at->n, d, verdict, sizeof(verdict));
	xvbd_out_str(o, "overrides", verdict);
}

static void render(struct attach *at)
{
	struct xvbd_out *o = at->ctx->out;
	size_t i;

	xvbd_out_labels(o, labels);
	xvbd_out_arr_begin(o, NULL);
	for (i = 0; i < at->n; i++) {
		const struct item *it = &at->items[i];

		if (!it->added)
			continue;
		xvbd_out_obj_begin(o, NULL);
		render_disk(at, it);
		xvbd_out_bool(o, "created", it->created);
		xvbd_out_str(o, "share", it->kind == ITEM_SHARE ?
			     it->url.source : NULL);
		xvbd_out_str(o, "backend_state", waited(at) ?
			     xvbd_state_name(it->bstate) : NULL);
		xvbd_out_str(o, "frontend_state", waited(at) ?
			     xvbd_state_name(it->fstate) : NULL);
		render_overrides(at, i);
		xvbd_out_obj_end(o);
	}
	xvbd_out_arr_end(o);
}

int cmd_attach(struct xvbd_ctx *ctx, int argc, char **argv)
{
	struct attach *at = calloc(1, sizeof(*at));
	size_t i;
	int rc, err;

	if (!at) {
		xvbd_err(CMD, NULL, "%s", strerror(ENOMEM));
		return XVBD_EXIT_FAIL;
	}
	at->ctx = ctx;
	at->lock_fd = -1;
	at->xvbd_block = -1;
	rc = parse_args(ctx, argc, argv, &at->a);
	if (!rc)
		rc = xvbd_cmd_connect(ctx);
	if (rc)
		goto out;
	rc = xvbd_cmd_domain_lookup(ctx, at->a.domain, &at->domid,
				    &at->domain);
	if (rc)
		goto out;
	if (at->domid == 0) {
		xvbd_err(CMD, "domain", "dom0 gets no VBDs from xvbd");
		rc = XVBD_EXIT_USAGE;
		goto out;
	}
	at->t_start = xvbd_now_ms();
	rc = plan_items(at);
	if (!rc)
		rc = plan_overrides(at);
	if (!rc && ctx->opts->dry_run) {
		rc = dry_run(at);
		goto out;
	}
	if (!rc)
		rc = prepare_items(at);
	if (!rc)
		rc = pause_guest(at);
	at->t_planned = xvbd_now_ms();
	if (!rc)
		rc = add_items(at);
	at->t_added = xvbd_now_ms();
	cleanup_items(at);	/* disks not added: images, unused mounts */
	xvbd_share_unlock(at->lock_fd);
	at->lock_fd = -1;
	if (!rc)
		rc = backends_ready(at);
	err = resume_guest(at);
	if (!rc)
		rc = err;
	if (at->interrupted)
		goto out;
	if (waited(at)) {
		err = wait_items(at);
		at->t_connected = xvbd_now_ms();
		if (!rc)
			rc = err;
	}
	if (!rc)
		rc = verify_overrides(at);
	if (ctx->opts->verbose)
		print_timing(at);
	/* What was added is reported even if another disk failed. */
	for (i = 0; i < at->n && !at->items[i].added; i++)
		;
	if (i < at->n) {
		render(at);
		if (rc && xvbd_out_finish(ctx->out) < 0)
			rc = XVBD_EXIT_FAIL;
	}
out:
	xvbd_share_unlock(at->lock_fd);
	for (i = 0; i < at->n; i++) {
		xvbd_tstack_disk_free(at->items[i].disk);
		free(at->items[i].backend_path);
	}
	xvbd_ovr_run_free(at->devs, at->n);
	xvbd_tstack_disks_free(at->disks, at->ndisks);
	free(at->domain);
	free(at);
	return rc;
}
