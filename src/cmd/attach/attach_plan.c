/*
 * attach_plan.c - xvbd attach, step 2 (src/cmd_attach.c lists the steps):
 * one item per disk, validated, vdevs allocated; the overrides checked
 * against what dom0's blkback can offer.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "xvbd/vbd/attach_script.h"
#include "xvbd/vbd/vbd.h"
#include "xvbd/xen/blkif.h"
#include "xvbd/dom0/cache.h"
#include "xvbd/cmd/cmd.h"
#include "xvbd/dom0/image.h"
#include "xvbd/dom0/loop.h"
#include "xvbd/dom0/modparam.h"
#include "xvbd/vbd/override.h"
#include "xvbd/vbd/override_run.h"
#include "xvbd/dom0/share.h"
#include "xvbd/dom0/sysfs.h"
#include "attach_impl.h"

/* ---- 2. plan ---- */

void item_err(const struct item *it, const char *fmt, ...)
	XVBD_PRINTF(2, 3);

/* "xvbd: attach: <what the user wrote>: <why>" */
void item_err(const struct item *it, const char *fmt, ...)
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
	free(at->devids_before);
	at->devids_before = calloc(ndisks ? ndisks : 1,
				   sizeof(*at->devids_before));
	if (!at->devids_before) {
		xvbd_tstack_disks_free(disks, ndisks);
		xvbd_err(CMD, NULL, "%s", strerror(ENOMEM));
		return XVBD_EXIT_FAIL;
	}
	for (i = 0; i < ndisks; i++)
		at->devids_before[i] = disks[i].devid;
	at->ndevids_before = ndisks;
	for (i = 0; i < at->n && !rc; i++) {
		struct item *it = &at->items[i];

		if (it->auto_vdev)
			continue;
		/* (it->devid: check_items parsed the name) */
		if (devid_taken(at, NULL, 0, it->devid, i)) {
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

/*
 * A disk spec from the user: parsed by libxlutil, then validated, on the
 * command line alone (no connection yet).
 */
static int check_spec(struct attach *at, struct item *it)
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
	if (info.backend_domname &&
	    xvbd_tstack_domain_spec_check(info.backend_domname)) {
		item_err(it, "backend domain \"%s\": %s",
			 info.backend_domname,
			 xvbd_tstack_lookup_why(-EINVAL));
		return XVBD_EXIT_USAGE;
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
	return 0;
}

/* A checked disk spec against the system: its backend domain, its path. */
static int plan_spec(struct attach *at, struct item *it)
{
	struct xvbd_tstack_disk_info info;
	int err;

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
	if (it->target[0] && !it->script)
		return check_no_symlink(at, it, true);
	return 0;
}

/*
 * A shorthand: validate what the user gave, on the command line alone;
 * the spec is built later.
 */
static int check_shorthand(struct attach *at, struct item *it)
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
		return 0;
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

int check_items(struct attach *at)
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

		rc = it->kind == ITEM_SPEC ? check_spec(at, it) :
			check_shorthand(at, it);
		if (rc)
			return rc;
		if (!it->auto_vdev && xvbd_vdev_parse(it->vdev, &it->devid)) {
			item_err(it, "vdev \"%s\": not a virtual device name",
				 it->vdev);
			return XVBD_EXIT_USAGE;
		}
	}
	return 0;
}

int plan_items(struct attach *at)
{
	size_t i;
	int rc;

	for (i = 0; i < at->n; i++) {
		struct item *it = &at->items[i];

		if (it->kind == ITEM_SPEC)
			rc = plan_spec(at, it);
		else if (it->kind != ITEM_SHARE)
			rc = check_no_symlink(at, it, it->kind == ITEM_PHY);
		else
			rc = 0;
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
int plan_overrides(struct attach *at)
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
