/*
 * xs_path.c - the xenstore paths xvbd reads and writes, spelled here only,
 * and the parsers of paths that come from elsewhere (libxl's records, a
 * hotplug script's XENBUS_PATH).  No xenstore connection: pure, so that
 * the unit tests and xvbd-block link it too.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xvbd/xen/xs.h"

char *xvbd_xs_path_printf(const char *fmt, ...)
{
	va_list ap;
	char *path;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&path, fmt, ap);
	va_end(ap);
	return n < 0 ? NULL : path;
}

/* ---- paths ---- */

#define BACKEND_FMT	"/local/domain/%u/backend/%s/%u/%u"
#define BACKEND_ERR_FMT	"/local/domain/%u/error/backend/%s/%u/%u/error"
#define FRONTEND_FMT	"/local/domain/%u/device/vbd/%u"
#define LIBXL_VBD_FMT	"/libxl/%u/device/vbd/%u"

static bool kind_ok(const char *kind)
{
	static const char *const kinds[] = { "vbd", "qdisk", "vbd3" };
	size_t i;

	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (!strcmp(kind, kinds[i]))
			return true;
	return false;
}

int xvbd_xs_parse_backend_path(const char *path, struct xvbd_xs_be_path *p)
{
	unsigned be, fe, devid;
	char kind[16], *canonical;
	int consumed = 0, differ;

	if (sscanf(path, "/local/domain/%u/backend/%15[a-z0-9]/%u/%u%n",
		   &be, kind, &fe, &devid, &consumed) != 4 ||
	    path[consumed] || !kind_ok(kind))
		return -EINVAL;
	/* Round trip: no signs, blanks or leading zeros slipped through. */
	canonical = xvbd_xs_path_printf(BACKEND_FMT, be, kind, fe, devid);
	if (!canonical)
		return -ENOMEM;
	differ = strcmp(canonical, path);
	free(canonical);
	if (differ)
		return -EINVAL;
	p->be_domid = be;
	snprintf(p->kind, sizeof(p->kind), "%s", kind);
	p->fe_domid = fe;
	p->devid = devid;
	return 0;
}

/*
 * XENBUS_PATH of a hotplug script (libxl's get_hotplug_env): relative to
 * the home of the domain the script runs in, dom0.
 */
#define HOTPLUG_FMT	"backend/%s/%u/%u"

int xvbd_xs_parse_hotplug_path(const char *path, struct xvbd_xs_be_path *p)
{
	char *full = xvbd_xs_path_printf("/local/domain/0/%s", path);
	int err;

	if (!full)
		return -ENOMEM;
	err = xvbd_xs_parse_backend_path(full, p);
	free(full);
	return err;
}

char *xvbd_xs_path_hotplug_key(const struct xvbd_xs_be_path *p,
			       const char *key)
{
	return xvbd_xs_path_printf(HOTPLUG_FMT "/%s", p->kind, p->fe_domid, p->devid,
			   key);
}

char *xvbd_xs_path_backend(const struct xvbd_xs_be_path *p)
{
	return xvbd_xs_path_printf(BACKEND_FMT, p->be_domid, p->kind, p->fe_domid,
			   p->devid);
}

char *xvbd_xs_path_backend_error(const struct xvbd_xs_be_path *p)
{
	return xvbd_xs_path_printf(BACKEND_ERR_FMT, p->be_domid, p->kind,
			   p->fe_domid, p->devid);
}

char *xvbd_xs_path_frontend_vbd(uint32_t fe_domid, uint32_t devid)
{
	return xvbd_xs_path_printf(FRONTEND_FMT, fe_domid, devid);
}

char *xvbd_xs_path_libxl_vbd(uint32_t domid, uint32_t devid)
{
	return xvbd_xs_path_printf(LIBXL_VBD_FMT, domid, devid);
}

#define BACKEND_ROOT_FMT	"/local/domain/%u/backend/%s"

char *xvbd_xs_path_backend_root(uint32_t be_domid, const char *kind)
{
	return xvbd_xs_path_printf(BACKEND_ROOT_FMT, be_domid, kind);
}

char *xvbd_xs_path_backend_key(const struct xvbd_xs_be_path *p,
			       const char *key)
{
	return xvbd_xs_path_printf(BACKEND_FMT "/%s", p->be_domid, p->kind,
			   p->fe_domid, p->devid, key);
}
