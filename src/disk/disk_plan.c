/*
 * disk_plan.c - attach, step 1 (disk_attach.c lists the steps): against
 * the system now, with nothing changed yet: a spec's backend domain, no
 * symbolic link on a target's path, no target given twice, the vdevs
 * (fixed ones free, auto ones the first free xvd* names), and the offers
 * against what dom0's blkback can offer.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "xvbd/dom0/modparam.h"
#include "disk_impl.h"

void item_err(struct attach *at, const struct item *it, const char *fmt, ...)
{
	char why[WHY_MAX + XVBD_PATH_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	xvbd_report_err(at->rep, it->arg, "%s", why);
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

/* The domain's disks now, and their devids kept (ours() in disk_add.c). */
static int list_disks(struct attach *at, struct xvbd_disk **disks,
		      size_t *ndisks)
{
	size_t i;
	int err;

	err = xvbd_tstack_disks(at->env->ts, at->dom->domid, disks, ndisks);
	if (err) {
		xvbd_report_err(at->rep, "disks", "domain %s: %s",
				at->dom->name, strerror(-err));
		return XVBD_EXIT_FAIL;
	}
	free(at->devids_before);
	at->devids_before = calloc(*ndisks ? *ndisks : 1,
				   sizeof(*at->devids_before));
	if (!at->devids_before) {
		xvbd_tstack_disks_free(*disks, *ndisks);
		xvbd_report_err(at->rep, NULL, "%s", strerror(ENOMEM));
		return XVBD_EXIT_FAIL;
	}
	for (i = 0; i < *ndisks; i++)
		at->devids_before[i] = (*disks)[i].devid;
	at->ndevids_before = *ndisks;
	return 0;
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
	int rc;

	rc = list_disks(at, &disks, &ndisks);
	if (rc)
		return rc;
	for (i = 0; i < at->n && !rc; i++) {
		struct item *it = &at->items[i];

		if (it->auto_vdev)
			continue;
		if (devid_taken(at, NULL, 0, it->devid, i)) {
			item_err(at, it, "vdev %s given twice", it->vdev);
			rc = XVBD_EXIT_FAIL;
		} else if (devid_taken(at, disks, ndisks, it->devid, i)) {
			item_err(at, it, "vdev %s: already in use in domain "
				 "%s", it->vdev, at->dom->name);
			xvbd_report_hint(at->rep, "leave --vdev out (or use "
					 "vdev=auto) for the first free xvd* "
					 "name");
			rc = XVBD_EXIT_FAIL;
		}
	}
	for (i = 0; i < at->n && !rc; i++) {
		struct item *it = &at->items[i];

		if (!it->auto_vdev)
			continue;
		for (;; next++) {
			if (next >= 26 * 27) {
				item_err(at, it, "no free xvd* name");
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
static int check_no_symlink(struct attach *at, const struct item *it,
			    bool dev_links_ok)
{
	char dir[XVBD_PATH_MAX], real[PATH_MAX];
	const char *path = it->target, *slash = strrchr(path, '/');
	struct stat st;

	if (dev_links_ok && !strncmp(path, "/dev/", 5))
		return 0;
	if (!lstat(path, &st) && S_ISLNK(st.st_mode)) {
		if (realpath(path, real))
			item_err(at, it, "is a symbolic link (to %s)", real);
		else
			item_err(at, it, "is a symbolic link (to nothing: %s)",
				 strerror(errno));
	} else {
		/* A path still to be created: its directory must be real. */
		snprintf(dir, sizeof(dir), "%.*s", slash && slash != path ?
			 (int)(slash - path) : 1, path);
		if (!realpath(dir, real) || !strcmp(real, dir))
			return 0;	/* later checks say what is missing */
		item_err(at, it, "%s is a symbolic link (to %s)", dir, real);
	}
	xvbd_report_hint(at->rep, "give the real path: a link can be "
			 "re-pointed between xvbd's checks and the hotplug "
			 "script");
	return XVBD_EXIT_FAIL;
}

/* A spec against the system: its backend domain, its path. */
static int plan_spec(struct attach *at, struct item *it)
{
	const char *domname = it->desc->backend_domname;
	uint32_t be_domid;
	char *be_name = NULL;
	int err;

	/* -N too: libxl would only say so when it adds the disk. */
	if (domname[0]) {
		err = xvbd_tstack_domain_lookup(at->env->ts, domname,
						&be_domid, &be_name);
		free(be_name);
		if (err) {
			item_err(at, it, "backend domain \"%s\": %s", domname,
				 xvbd_tstack_lookup_why(err));
			return xvbd_tstack_lookup_exit(err);
		}
	}
	if (it->target[0] && !it->script)
		return check_no_symlink(at, it, true);
	return 0;
}

/* One image or device as two disks of one call: two writers (or a typo). */
static int check_twice(struct attach *at, size_t i)
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
		item_err(at, it, "target %s given twice (also in %s)",
			 it->target, o->arg);
		return XVBD_EXIT_FAIL;
	}
	return 0;
}

int plan_items(struct attach *at)
{
	size_t i;
	int rc;

	for (i = 0; i < at->n; i++) {
		struct item *it = &at->items[i];

		if (it->desc->kind == XVBD_DISK_SPEC)
			rc = plan_spec(at, it);
		else if (it->desc->kind != XVBD_DISK_SHARE)
			rc = check_no_symlink(at, it, it->desc->kind ==
					      XVBD_DISK_PHY);
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
 * Each disk's offers for its vdev, validated against what dom0's blkback
 * can offer at all (module parameters, Linux's fixed indirect segment
 * offer).  After the add they are checked again against what blkback
 * wrote at probe, inside the transaction.
 */
int plan_overrides(struct attach *at)
{
	struct xvbd_modparams mp = { 0 };
	struct xvbd_ovr_caps caps = { 0 };
	char why[WHY_MAX];
	size_t i, k;
	int err, rc = 0;

	if (!at->have_ovr)
		return 0;
	err = xvbd_modparam_list(XVBD_BLKBACK_MODULE, &mp);
	if (err) {
		xvbd_report_err(at->rep, XVBD_BLKBACK_MODULE, "cannot read its "
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
			item_err(at, it, "%s", why);
			rc = XVBD_EXIT_USAGE;
			break;
		}
		for (k = 0; k < XVBD_OVR_NKEYS && !rc; k++)
			if (it->desc->offer_kv[k][0] &&
			    xvbd_override_parse_kv(&it->ovr,
						   it->desc->offer_kv[k], why,
						   sizeof(why))) {
				item_err(at, it, "%s", why);
				rc = XVBD_EXIT_USAGE;
			}
		if (!rc && xvbd_override_validate(&it->ovr, &caps, why,
						  sizeof(why))) {
			item_err(at, it, "%s", why);
			xvbd_report_hint(at->rep, "see \"xvbd defaults\" for "
					 "dom0's xen_blkback limits");
			rc = XVBD_EXIT_USAGE;
		}
		at->devs[i].target.set = &it->ovr;
	}
	xvbd_modparams_free(&mp);
	return rc;
}
