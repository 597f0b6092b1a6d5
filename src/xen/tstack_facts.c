/*
 * tstack_facts.c - what the A/B fingerprint asks of the toolstack: Xen's
 * version, the host's CPUs, a domain's type and its vCPU pinning, as
 * libxl reports them (facts of the running system, not of a config).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxl.h>
#include <libxl_utils.h>

#include "xvbd/xen/tstack.h"
#include "tstack_impl.h"

int xvbd_tstack_xen_version(struct xvbd_tstack *ts, char *buf, size_t len)
{
	const libxl_version_info *v =
		libxl_get_version_info(xvbd_tstack_libxl(ts));
	int n;

	if (!v)
		return -EIO;
	/* As `xl info` prints xen_version. */
	n = snprintf(buf, len, "%d.%d%s", v->xen_version_major,
		     v->xen_version_minor,
		     v->xen_version_extra ? v->xen_version_extra : "");
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

int xvbd_tstack_host_cpus(struct xvbd_tstack *ts, uint32_t *cpus)
{
	libxl_physinfo info;
	int rc;

	libxl_physinfo_init(&info);
	rc = libxl_get_physinfo(xvbd_tstack_libxl(ts), &info);
	if (!rc)
		*cpus = info.nr_cpus;
	libxl_physinfo_dispose(&info);
	return rc ? -EIO : 0;
}

int xvbd_tstack_domain_type(struct xvbd_tstack *ts, uint32_t domid,
			    const char **type)
{
	libxl_dominfo info;
	int rc;

	libxl_dominfo_init(&info);
	rc = libxl_domain_info(xvbd_tstack_libxl(ts), &info, domid);
	if (rc) {
		libxl_dominfo_dispose(&info);
		return rc == ERROR_DOMAIN_NOTFOUND ? -ENOENT : -EIO;
	}
	switch (info.domain_type) {
	case LIBXL_DOMAIN_TYPE_PV:
		*type = "pv";
		break;
	case LIBXL_DOMAIN_TYPE_PVH:
		*type = "pvh";
		break;
	case LIBXL_DOMAIN_TYPE_HVM:
		*type = "hvm";
		break;
	default:
		*type = NULL;
		break;
	}
	libxl_dominfo_dispose(&info);
	return *type ? 0 : -EINVAL;
}

static int read_cmdline(struct xvbd_tstack *ts, uint32_t domid,
			char **cmdline)
{
	libxl_domain_config dc;
	int rc = 0;

	*cmdline = NULL;
	libxl_domain_config_init(&dc);
	if (libxl_retrieve_domain_configuration(xvbd_tstack_libxl(ts), domid,
						&dc, NULL))
		rc = -ENOENT;
	else if (dc.b_info.cmdline && !(*cmdline = strdup(dc.b_info.cmdline)))
		rc = -ENOMEM;
	libxl_domain_config_dispose(&dc);
	return rc;
}

/*
 * Remembered per domain: libxl's stored configuration takes a quarter to
 * half a second to read under load, once per run of an experiment on one
 * running guest, and a running kernel's command line does not change.
 */
int xvbd_tstack_domain_cmdline(struct xvbd_tstack *ts, uint32_t domid,
			       char **cmdline)
{
	struct xvbd_tstack_memo *m = xvbd_tstack_memo(ts);
	char *got = NULL;
	int rc;

	*cmdline = NULL;
	if (!m->known || m->domid != domid) {
		rc = read_cmdline(ts, domid, &got);
		if (rc == -ENOMEM)
			return rc;	/* not an answer to remember */
		free(m->cmdline);
		m->cmdline = got;
		m->rc = rc;
		m->domid = domid;
		m->known = true;
	}
	if (m->rc)
		return m->rc;
	if (m->cmdline && !(*cmdline = strdup(m->cmdline)))
		return -ENOMEM;
	return 0;
}

/* "0-3,6": the set bits of m among CPUs [0, ncpus). */
static void cpu_list(const libxl_bitmap *m, int ncpus, char *buf, size_t len)
{
	size_t used = 0;
	int cpu = 0, first;

	buf[0] = '\0';
	while (cpu < ncpus) {
		if (!libxl_bitmap_test(m, cpu)) {
			cpu++;
			continue;
		}
		first = cpu;
		while (cpu + 1 < ncpus && libxl_bitmap_test(m, cpu + 1))
			cpu++;
		if (used < len)
			used += (size_t)snprintf(buf + used, len - used,
						 first == cpu ? "%s%d" :
						 "%s%d-%d", used ? "," : "",
						 first, cpu);
		cpu++;
	}
	if (!buf[0])
		snprintf(buf, len, "none");
}

static bool all_cpus(const libxl_bitmap *m, int ncpus)
{
	int cpu;

	for (cpu = 0; cpu < ncpus; cpu++)
		if (!libxl_bitmap_test(m, cpu))
			return false;
	return true;
}

int xvbd_tstack_vcpu_pinning(struct xvbd_tstack *ts, uint32_t domid,
			     char *buf, size_t len)
{
	libxl_ctx *ctx = xvbd_tstack_libxl(ts);
	int nb = 0, nr_cpus = 0, ncpus, i;
	libxl_vcpuinfo *info;
	bool same = true;
	size_t used = 0;
	char one[256];

	if (!len)
		return -EINVAL;
	ncpus = libxl_get_max_cpus(ctx);
	info = libxl_list_vcpu(ctx, domid, &nb, &nr_cpus);
	if (!info)
		return -EIO;
	if (ncpus <= 0)
		ncpus = nr_cpus;
	for (i = 1; i < nb; i++)
		if (!libxl_bitmap_equal(&info[i].cpumap, &info[0].cpumap,
					ncpus))
			same = false;
	buf[0] = '\0';
	/* Hard affinity: where the scheduler may run each vCPU. */
	if (nb > 0 && same) {
		if (all_cpus(&info[0].cpumap, ncpus))
			snprintf(buf, len, "all");
		else
			cpu_list(&info[0].cpumap, ncpus, buf, len);
	}
	for (i = 0; !same && i < nb; i++) {
		if (all_cpus(&info[i].cpumap, ncpus))
			snprintf(one, sizeof(one), "all");
		else
			cpu_list(&info[i].cpumap, ncpus, one, sizeof(one));
		if (used < len)
			used += (size_t)snprintf(buf + used, len - used,
						 "%svcpu%u:%s", i ? " " : "",
						 info[i].vcpuid, one);
	}
	libxl_vcpuinfo_list_free(info, nb);
	return nb > 0 ? 0 : -ENOENT;
}
