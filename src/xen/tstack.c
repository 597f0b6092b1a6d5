/*
 * tstack.c - libxl / libxlutil glue.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxl.h>
#include <libxl_utils.h>
#include <libxlutil.h>
#include <xentoollog.h>

#include "xvbd/xen/blkif.h"
#include "xvbd/xen/tstack.h"
#include "tstack_impl.h"
#include "xvbd/base/util.h"

/* DOMID_FIRST_RESERVED - 1 */
#define DOMID_MAX	32751

struct xvbd_tstack {
	libxl_ctx *ctx;
	xentoollog_logger_stdiostream *logger;
	xentoollog_level log_level;
	struct xvbd_tstack_memo memo;
};

struct xvbd_tstack *xvbd_tstack_open(int verbosity)
{
	static const xentoollog_level levels[] = {
		XTL_ERROR, XTL_WARN, XTL_INFO, XTL_DEBUG,
	};
	struct xvbd_tstack *ts = calloc(1, sizeof(*ts));
	int idx = verbosity < 0 ? 0 : verbosity > 3 ? 3 : verbosity;

	if (!ts)
		return NULL;
	ts->log_level = levels[idx];
	ts->logger = xtl_createlogger_stdiostream(stderr, ts->log_level, 0);
	if (!ts->logger)
		goto fail;
	if (libxl_ctx_alloc(&ts->ctx, LIBXL_VERSION, 0,
			    (xentoollog_logger *)ts->logger))
		goto fail;
	return ts;
fail:
	xvbd_tstack_close(ts);
	return NULL;
}

void xvbd_tstack_close(struct xvbd_tstack *ts)
{
	if (!ts)
		return;
	libxl_ctx_free(ts->ctx);
	free(ts->memo.cmdline);
	if (ts->logger)
		xtl_logger_destroy((xentoollog_logger *)ts->logger);
	free(ts);
}

/* For the layer's other files (include/xvbd/tstack_impl.h). */
libxl_ctx *xvbd_tstack_libxl(struct xvbd_tstack *ts)
{
	return ts->ctx;
}

struct xvbd_tstack_memo *xvbd_tstack_memo(struct xvbd_tstack *ts)
{
	return &ts->memo;
}

/* A path would be a config file or a device given where a name goes. */
int xvbd_tstack_domain_spec_check(const char *spec)
{
	return strchr(spec, '/') ? -EINVAL : 0;
}

int xvbd_tstack_domain_lookup(struct xvbd_tstack *ts, const char *spec,
			      uint32_t *domid, char **name)
{
	uint64_t id;
	uint32_t found;
	char *found_name;

	if (xvbd_tstack_domain_spec_check(spec))
		return -EINVAL;
	if (!*spec)
		return -ENOENT;
	if (!xvbd_parse_uint(spec, DOMID_MAX, &id)) {
		found = (uint32_t)id;
		if (libxl_domain_info(ts->ctx, NULL, found))
			return -ENOENT;
	} else if (libxl_name_to_domid(ts->ctx, spec, &found)) {
		return -ENOENT;
	}
	found_name = libxl_domid_to_name(ts->ctx, found);
	if (!found_name && asprintf(&found_name, "%u", found) < 0)
		return -ENOMEM;
	*domid = found;
	*name = found_name;
	return 0;
}

const char *xvbd_tstack_lookup_why(int err)
{
	switch (err) {
	case -EINVAL:
		return "domain given as a path";
	case -ENOENT:
		return "no such domain";
	}
	return strerror(-err);
}

int xvbd_tstack_lookup_exit(int err)
{
	return err == -EINVAL ? XVBD_EXIT_USAGE : XVBD_EXIT_FAIL;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

int xvbd_tstack_domains(struct xvbd_tstack *ts, uint32_t **domids,
			size_t *n)
{
	int nb = 0, i;
	libxl_dominfo *info = libxl_list_domain(ts->ctx, &nb);
	uint32_t *ids;

	if (!info)
		return -EIO;
	ids = calloc(nb > 0 ? (size_t)nb : 1, sizeof(*ids));
	if (!ids) {
		libxl_dominfo_list_free(info, nb);
		return -ENOMEM;
	}
	for (i = 0; i < nb; i++)
		ids[i] = info[i].domid;
	libxl_dominfo_list_free(info, nb);
	if (nb > 0)
		qsort(ids, (size_t)nb, sizeof(*ids), cmp_u32);
	*domids = ids;
	*n = (size_t)nb;
	return 0;
}

void xvbd_tstack_disks_free(struct xvbd_disk *disks, size_t n)
{
	size_t i;

	for (i = 0; disks && i < n; i++) {
		free(disks[i].vdev);
		free(disks[i].backend_path);
		free(disks[i].frontend_path);
		free(disks[i].target);
	}
	free(disks);
}

/* One of libxl's disks as xvbd names it; -ENOMEM. */
static int fill_disk(struct xvbd_tstack *ts, uint32_t domid,
		     libxl_device_disk *d, struct xvbd_disk *x)
{
	libxl_diskinfo info;

	x->vdev = strdup(d->vdev ? d->vdev : "");
	x->target = d->pdev_path ? strdup(d->pdev_path) : NULL;
	x->readwrite = d->readwrite;
	x->backend_domid = d->backend_domid;
	if (!x->vdev || (d->pdev_path && !x->target))
		return -ENOMEM;
	if (xvbd_vdev_parse(x->vdev, &x->devid))
		x->devid = UINT32_MAX;
	/* getinfo reads the backend path from libxl's own record. */
	libxl_diskinfo_init(&info);
	if (!libxl_device_disk_getinfo(ts->ctx, domid, d, &info)) {
		x->devid = (uint32_t)info.devid;
		x->backend_domid = info.backend_id;
		x->backend_path = info.backend ? strdup(info.backend) : NULL;
		x->frontend_path = info.frontend ? strdup(info.frontend) : NULL;
	}
	libxl_diskinfo_dispose(&info);
	return 0;
}

int xvbd_tstack_disks(struct xvbd_tstack *ts, uint32_t domid,
		      struct xvbd_disk **disks_out, size_t *n_out)
{
	int num = 0, i, rc = 0;
	libxl_device_disk *list = libxl_device_disk_list(ts->ctx, domid, &num);
	struct xvbd_disk *disks = NULL;

	if (num < 0 || (!list && num > 0))
		return -EIO;
	disks = calloc(num > 0 ? (size_t)num : 1, sizeof(*disks));
	if (!disks) {
		rc = -ENOMEM;
		goto out;
	}
	for (i = 0; i < num && !rc; i++)
		rc = fill_disk(ts, domid, &list[i], &disks[i]);
	if (rc)
		goto out;
	*disks_out = disks;
	*n_out = (size_t)num;
	disks = NULL;
out:
	xvbd_tstack_disks_free(disks, (size_t)num);
	if (list)
		libxl_device_disk_list_free(list, num);
	return rc;
}

/*
 * libxl's record of each asked-for disk alone (libxl_vdev_to_device_disk
 * reads its own path under /libxl, as the list does): a run that waits
 * for one disk or fingerprints one reads its keys, not every disk's,
 * several times a second under emulation.
 */
int xvbd_tstack_disks_of(struct xvbd_tstack *ts, uint32_t domid,
			 const uint32_t *devids, size_t ndevids,
			 struct xvbd_disk **disks_out, size_t *n_out)
{
	struct xvbd_disk *disks = calloc(ndevids ? ndevids : 1,
					 sizeof(*disks));
	char vdev[32];
	size_t i, n = 0;
	int rc = 0, got;

	if (!disks)
		return -ENOMEM;
	for (i = 0; i < ndevids && !rc; i++) {
		libxl_device_disk d;

		if (xvbd_vdev_name(devids[i], vdev, sizeof(vdev)))
			continue;
		libxl_device_disk_init(&d);
		/* A disk the domain does not have is an answer here, not an
		 * error of libxl's to print ("Missing xenstore node"). */
		xtl_stdiostream_set_minlevel(ts->logger, XTL_CRITICAL);
		got = libxl_vdev_to_device_disk(ts->ctx, domid, vdev, &d);
		xtl_stdiostream_set_minlevel(ts->logger, ts->log_level);
		if (!got) {
			rc = fill_disk(ts, domid, &d, &disks[n]);
			n++;
		}
		libxl_device_disk_dispose(&d);
	}
	if (rc) {
		xvbd_tstack_disks_free(disks, n);
		return rc;
	}
	*disks_out = disks;
	*n_out = n;
	return 0;
}

int xvbd_tstack_disk_find(struct xvbd_tstack *ts, uint32_t domid,
			  uint32_t devid, struct xvbd_disk **disks, size_t *n,
			  struct xvbd_disk **found)
{
	struct xvbd_disk *list = NULL;
	size_t num = 0, i;
	int rc = xvbd_tstack_disks(ts, domid, &list, &num);

	if (rc)
		return rc;
	for (i = 0; i < num; i++) {
		if (list[i].devid == devid) {
			*disks = list;
			*n = num;
			*found = &list[i];
			return 0;
		}
	}
	xvbd_tstack_disks_free(list, num);
	return -ENOENT;
}

/* ---- disk add/remove ---- */

struct xvbd_tstack_disk {
	libxl_device_disk disk;
};

int xvbd_tstack_disk_parse(const char *spec, struct xvbd_tstack_disk **out,
			   char *why, size_t why_len)
{
	struct xvbd_tstack_disk *d = NULL;
	const char *p;
	char *report = NULL;
	size_t report_len = 0;
	FILE *rf = NULL;
	XLU_Config *cfg = NULL;
	int rc;

	why[0] = '\0';
	/* libxlutil's scanner exits the program ("flex scanner jammed") on
	 * some control bytes, e.g. "=\n" (fuzz_diskspec); a spec is one
	 * printable word. */
	for (p = spec; *p; p++) {
		if ((unsigned char)*p < 0x20 || *p == 0x7f) {
			snprintf(why, why_len, "control byte 0x%02x in the "
				 "disk spec", (unsigned char)*p);
			return -EINVAL;
		}
	}
	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	libxl_device_disk_init(&d->disk);
	/* libxlutil reports to a stream; keep it for a one-line error. */
	rf = open_memstream(&report, &report_len);
	if (!rf) {
		rc = -ENOMEM;
		goto out;
	}
	cfg = xlu_cfg_init(rf, "disk spec");
	if (!cfg) {
		rc = -ENOMEM;
		goto out;
	}
	rc = xlu_disk_parse(cfg, 1, &spec, &d->disk);
	/* "vdev=," parses as an empty name: no vdev either (fuzz_diskspec) */
	if (!rc && (!d->disk.vdev || !*d->disk.vdev)) {
		snprintf(why, why_len, "no vdev in the disk spec");
		rc = EINVAL;
	}
	rc = -rc;
out:
	if (cfg)
		xlu_cfg_destroy(cfg);
	if (rf)
		fclose(rf);
	if (rc && !why[0] && report) {
		char *nl = strchr(report, '\n');
		const char *msg = report;

		if (nl)
			*nl = '\0';
		/* "disk spec: config parsing error in disk specification..." */
		if (!strncmp(msg, "disk spec: ", 11))
			msg += 11;
		snprintf(why, why_len, "%s", *msg ? msg : "invalid disk spec");
	}
	if (rc && !why[0])
		snprintf(why, why_len, "%s", strerror(-rc));
	free(report);
	if (rc) {
		xvbd_tstack_disk_free(d);
		return rc;
	}
	*out = d;
	return 0;
}

void xvbd_tstack_disk_free(struct xvbd_tstack_disk *disk)
{
	if (!disk)
		return;
	libxl_device_disk_dispose(&disk->disk);
	free(disk);
}

void xvbd_tstack_disk_describe(const struct xvbd_tstack_disk *disk,
			       struct xvbd_tstack_disk_info *info)
{
	const libxl_device_disk *d = &disk->disk;

	info->vdev = d->vdev;
	info->target = d->pdev_path;
	info->script = d->script;
	info->format = libxl_disk_format_to_string(d->format);
	info->backend = libxl_disk_backend_to_string(d->backend);
	info->backend_dom0 = !d->backend_domname && !d->backend_domid;
	info->backend_domname = d->backend_domname;
	info->readwrite = d->readwrite;
	info->is_cdrom = d->is_cdrom;
}

int xvbd_tstack_disk_set_vdev(struct xvbd_tstack_disk *disk, const char *vdev)
{
	char *copy = strdup(vdev);

	if (!copy)
		return -ENOMEM;
	free(disk->disk.vdev);
	disk->disk.vdev = copy;
	return 0;
}

int xvbd_tstack_disk_set_script(struct xvbd_tstack_disk *disk,
				const char *script)
{
	char *copy = strdup(script);

	if (!copy)
		return -ENOMEM;
	free(disk->disk.script);
	disk->disk.script = copy;
	return 0;
}

static int is_op_complete(const libxl_event *ev, void *user)
{
	(void)user;
	return ev->type == LIBXL_EVENT_TYPE_OPERATION_COMPLETE;
}

/* Start disk i's add; its completion is an event tagged i + 1. */
static int start_add(struct xvbd_tstack *ts, uint32_t domid,
		     struct xvbd_tstack_disk *disk, size_t i)
{
	libxl_asyncop_how how = { .callback = NULL };

	how.u.for_event = i + 1;
	return libxl_device_disk_add(ts->ctx, domid, &disk->disk, &how) ?
		-EIO : -EINPROGRESS;
}

int xvbd_tstack_disks_add(struct xvbd_tstack *ts, uint32_t domid,
			  struct xvbd_tstack_disk *const *disks, size_t n,
			  size_t max_inflight, int *errs)
{
	size_t i, next = 0, inflight = 0;
	int rc = 0;

	if (!max_inflight)
		max_inflight = 1;
	for (;;) {
		libxl_event *ev = NULL;

		/*
		 * A window, not all at once: each hotplug script must finish
		 * within libxl's fixed hotplug timeout, and they share dom0's
		 * CPUs (and the block script's lock).
		 */
		while (next < n && inflight < max_inflight) {
			errs[next] = start_add(ts, domid, disks[next], next);
			if (errs[next] == -EINPROGRESS)
				inflight++;
			next++;
		}
		if (!inflight)
			break;
		if (libxl_event_wait(ts->ctx, &ev, LIBXL_EVENTMASK_ALL,
				     is_op_complete, NULL)) {
			/* The event loop broke: nothing more will report. */
			for (i = 0; i < n; i++)
				if (errs[i] == -EINPROGRESS || i >= next)
					errs[i] = -EIO;
			break;
		}
		i = (size_t)ev->for_user - 1;
		if (i < next && errs[i] == -EINPROGRESS) {
			errs[i] = ev->u.operation_complete.rc ? -EIO : 0;
			inflight--;
		}
		libxl_event_free(ts->ctx, ev);
	}
	for (i = 0; i < n; i++)
		if (errs[i])
			rc = -EIO;
	return rc;
}

int xvbd_tstack_disk_remove(struct xvbd_tstack *ts, uint32_t domid,
			    const char *vdev, bool force)
{
	libxl_device_disk disk;
	int rc;

	libxl_device_disk_init(&disk);
	if (libxl_vdev_to_device_disk(ts->ctx, domid, vdev, &disk)) {
		libxl_device_disk_dispose(&disk);
		return -ENOENT;
	}
	rc = force ? libxl_device_disk_destroy(ts->ctx, domid, &disk, NULL) :
		libxl_device_disk_remove(ts->ctx, domid, &disk, NULL);
	libxl_device_disk_dispose(&disk);
	return rc ? -EIO : 0;
}

int xvbd_tstack_targets_under(struct xvbd_tstack *ts, const char *prefix,
			      size_t *count)
{
	size_t len = strlen(prefix), ndom = 0, i, j;
	uint32_t *domids = NULL;
	int rc;

	*count = 0;
	rc = xvbd_tstack_domains(ts, &domids, &ndom);
	if (rc)
		return rc;
	for (i = 0; i < ndom; i++) {
		int num = 0;
		libxl_device_disk *list =
			libxl_device_disk_list(ts->ctx, domids[i], &num);

		for (j = 0; list && j < (size_t)num; j++) {
			const char *t = list[j].pdev_path;

			if (t && !strncmp(t, prefix, len) &&
			    (t[len] == '\0' || t[len] == '/'))
				(*count)++;
		}
		if (list)
			libxl_device_disk_list_free(list, num);
	}
	free(domids);
	return 0;
}
