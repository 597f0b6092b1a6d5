/*
 * tstack.c - libxl / libxlutil glue.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxl.h>
#include <libxl_utils.h>
#include <xentoollog.h>

#include "xvbd/blkif.h"
#include "xvbd/tstack.h"
#include "xvbd/util.h"

/* DOMID_FIRST_RESERVED - 1 */
#define DOMID_MAX	32751

struct xvbd_tstack {
	libxl_ctx *ctx;
	xentoollog_logger_stdiostream *logger;
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
	ts->logger = xtl_createlogger_stdiostream(stderr, levels[idx], 0);
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
	if (ts->logger)
		xtl_logger_destroy((xentoollog_logger *)ts->logger);
	free(ts);
}

int xvbd_tstack_domain_lookup(struct xvbd_tstack *ts, const char *spec,
			      uint32_t *domid, char **name)
{
	uint64_t id;
	uint32_t found;
	char *found_name;

	if (strchr(spec, '/'))
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
	for (i = 0; i < num; i++) {
		libxl_device_disk *d = &list[i];
		struct xvbd_disk *x = &disks[i];
		libxl_diskinfo info;

		x->vdev = strdup(d->vdev ? d->vdev : "");
		x->target = d->pdev_path ? strdup(d->pdev_path) : NULL;
		x->readwrite = d->readwrite;
		x->backend_domid = d->backend_domid;
		if (!x->vdev || (d->pdev_path && !x->target)) {
			rc = -ENOMEM;
			goto out;
		}
		if (xvbd_vdev_parse(x->vdev, &x->devid))
			x->devid = UINT32_MAX;
		/* getinfo reads the backend path from libxl's own record. */
		libxl_diskinfo_init(&info);
		if (!libxl_device_disk_getinfo(ts->ctx, domid, d, &info)) {
			x->devid = (uint32_t)info.devid;
			x->backend_domid = info.backend_id;
			x->backend_path = info.backend ?
				strdup(info.backend) : NULL;
			x->frontend_path = info.frontend ?
				strdup(info.frontend) : NULL;
		}
		libxl_diskinfo_dispose(&info);
	}
	*disks_out = disks;
	*n_out = (size_t)num;
	disks = NULL;
out:
	xvbd_tstack_disks_free(disks, (size_t)num);
	if (list)
		libxl_device_disk_list_free(list, num);
	return rc;
}
