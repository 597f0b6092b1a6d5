/*
 * tstack_create.c - toolstack side of `xvbd start`: the xl config as
 * libxlutil reads it, creating a domain paused with xl itself (xl's full
 * config parser lives in xl, not in a library), unpausing, domain state.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <libxl.h>
#include <libxl_utils.h>
#include <libxlutil.h>

#include "xvbd/base/spawn.h"
#include "tstack_impl.h"
#include "xvbd/base/util.h"

static int dup_opt(const XLU_Config *cfg, const char *key, char **out)
{
	const char *v = NULL;

	*out = NULL;
	if (xlu_cfg_get_string(cfg, key, &v, 1) || !v)
		return 0;
	*out = strdup(v);
	return *out ? 0 : -ENOMEM;
}

void xvbd_tstack_xlcfg_free(struct xvbd_xlcfg *cfg)
{
	size_t i;

	if (!cfg)
		return;
	free(cfg->name);
	free(cfg->type);
	free(cfg->builder);
	free(cfg->kernel);
	free(cfg->extra);
	free(cfg->cmdline);
	for (i = 0; i < cfg->nvdevs; i++)
		free(cfg->vdevs[i]);
	free(cfg->vdevs);
	memset(cfg, 0, sizeof(*cfg));
}

static int read_disks(XLU_Config *cfg, struct xvbd_xlcfg *out)
{
	XLU_ConfigList *list = NULL;
	int n = 0, i, rc = 0;

	if (xlu_cfg_get_list(cfg, "disk", &list, &n, 1) || n <= 0)
		return 0;
	out->vdevs = calloc((size_t)n, sizeof(*out->vdevs));
	if (!out->vdevs)
		return -ENOMEM;
	for (i = 0; i < n && !rc; i++) {
		const char *spec = xlu_cfg_get_listitem(list, i);
		libxl_device_disk disk;

		if (!spec)
			continue;
		libxl_device_disk_init(&disk);
		if (xlu_disk_parse(cfg, 1, &spec, &disk)) {
			rc = -EINVAL;	/* libxlutil said why on stderr */
		} else if (disk.vdev) {
			out->vdevs[out->nvdevs] = strdup(disk.vdev);
			if (!out->vdevs[out->nvdevs])
				rc = -ENOMEM;
			else
				out->nvdevs++;
		}
		libxl_device_disk_dispose(&disk);
	}
	return rc;
}

int xvbd_tstack_xlcfg_fill(XLU_Config *cfg, struct xvbd_xlcfg *out)
{
	long l;
	int rc;

	memset(out, 0, sizeof(*out));
	rc = dup_opt(cfg, "name", &out->name);
	if (!rc)
		rc = dup_opt(cfg, "type", &out->type);
	if (!rc)
		rc = dup_opt(cfg, "builder", &out->builder);
	if (!rc)
		rc = dup_opt(cfg, "kernel", &out->kernel);
	if (!rc)
		rc = dup_opt(cfg, "extra", &out->extra);
	if (!rc)
		rc = dup_opt(cfg, "cmdline", &out->cmdline);
	if (rc)
		goto out;
	if (!xlu_cfg_get_long(cfg, "memory", &l, 1) && l > 0)
		out->memory_mib = (uint64_t)l;
	if (!xlu_cfg_get_long(cfg, "vcpus", &l, 1) && l > 0)
		out->vcpus = (uint64_t)l;
	rc = read_disks(cfg, out);
out:
	if (rc)
		xvbd_tstack_xlcfg_free(out);
	return rc;
}

int xvbd_tstack_xlcfg_read(const char *path, struct xvbd_xlcfg *out)
{
	XLU_Config *cfg;
	struct stat st;
	char *report = NULL;
	size_t report_len = 0;
	FILE *rf;
	int rc;

	memset(out, 0, sizeof(*out));
	/* libxlutil's own message for a missing file ends in "Success". */
	if (access(path, R_OK) || stat(path, &st))
		return -errno;
	if (!S_ISREG(st.st_mode)) {
		snprintf(out->error, sizeof(out->error), "not a regular file");
		return -EINVAL;
	}
	/* libxlutil reports to a stream: its first line, for one line. */
	rf = open_memstream(&report, &report_len);
	if (!rf)
		return -ENOMEM;
	cfg = xlu_cfg_init(rf, path);
	if (!cfg) {
		fclose(rf);
		free(report);
		return -ENOMEM;
	}
	if (xlu_cfg_readfile(cfg, path))
		rc = -EINVAL;
	else
		rc = xvbd_tstack_xlcfg_fill(cfg, out);	/* (clears out) */
	xlu_cfg_destroy(cfg);
	fclose(rf);
	if (rc == -EINVAL) {
		const char *msg = report && *report ? report :
				  "not an xl config";
		size_t n = strcspn(msg, "\n");

		snprintf(out->error, sizeof(out->error), "%.*s", (int)n, msg);
	}
	free(report);
	return rc;
}

bool xvbd_tstack_xlcfg_is_pv_direct(const struct xvbd_xlcfg *cfg)
{
	const char *type = cfg->type;

	/* xl: no type= means builder=, whose default is a PV guest. */
	if (!type)
		type = cfg->builder && !strcmp(cfg->builder, "hvm") ?
		       "hvm" : "pv";
	return cfg->kernel && (!strcmp(type, "pv") || !strcmp(type, "pvh"));
}

int xvbd_tstack_name_to_domid(struct xvbd_tstack *ts, const char *name,
			      uint32_t *domid)
{
	return libxl_name_to_domid(xvbd_tstack_libxl(ts), name, domid) ? -ENOENT : 0;
}

int xvbd_tstack_create(struct xvbd_tstack *ts, const char *cfg_path,
		       const char *name, bool paused, uint32_t *domid,
		       int *xl_status)
{
	char *argv[] = { "xl", "create", "-p", (char *)cfg_path, NULL };
	int rc;

	if (!paused) {		/* no -p */
		argv[2] = (char *)cfg_path;
		argv[3] = NULL;
	}
	*xl_status = 0;
	rc = xvbd_spawn(argv, xl_status);
	if (rc)
		return rc;
	if (*xl_status)
		return -EIO;
	return xvbd_tstack_name_to_domid(ts, name, domid);
}

int xvbd_tstack_create_paused(struct xvbd_tstack *ts, const char *cfg_path,
			      const char *name, uint32_t *domid,
			      int *xl_status)
{
	return xvbd_tstack_create(ts, cfg_path, name, true, domid, xl_status);
}

int xvbd_tstack_pause(struct xvbd_tstack *ts, uint32_t domid)
{
	return libxl_domain_pause(xvbd_tstack_libxl(ts), domid, NULL) ? -EIO : 0;
}

int xvbd_tstack_unpause(struct xvbd_tstack *ts, uint32_t domid)
{
	return libxl_domain_unpause(xvbd_tstack_libxl(ts), domid, NULL) ? -EIO : 0;
}

int xvbd_tstack_domain_destroy(struct xvbd_tstack *ts, uint32_t domid)
{
	/* Synchronous (no ao_how): devices torn down, hotplug scripts run. */
	int rc = libxl_domain_destroy(xvbd_tstack_libxl(ts), domid, NULL);

	if (rc == ERROR_DOMAIN_NOTFOUND)
		return -ENOENT;
	return rc ? -EIO : 0;
}

int xvbd_tstack_domain_info(struct xvbd_tstack *ts, uint32_t domid,
			    struct xvbd_dominfo *out)
{
	libxl_dominfo info;
	int rc;

	libxl_dominfo_init(&info);
	rc = libxl_domain_info(xvbd_tstack_libxl(ts), &info, domid);
	if (rc) {
		libxl_dominfo_dispose(&info);
		return rc == ERROR_DOMAIN_NOTFOUND ? -ENOENT : -EIO;
	}
	out->paused = info.paused;
	out->shutdown = info.shutdown;
	out->dying = info.dying;
	/* Asked of a paused guest only (the journal's evidence): dom0 has
	 * no start time, and libxl says so on stderr. */
	out->start_s = info.paused && domid ?
		libxl_vm_get_start_time(xvbd_tstack_libxl(ts), domid) : 0;
	out->shutdown_reason = info.shutdown ?
		libxl_shutdown_reason_to_string(info.shutdown_reason) : NULL;
	out->memory_kib = info.current_memkb;
	out->max_memory_kib = info.max_memkb;
	out->vcpus = info.vcpu_online;
	memcpy(out->uuid, libxl_uuid_bytearray(&info.uuid),
	       sizeof(out->uuid));
	libxl_dominfo_dispose(&info);
	return 0;
}
