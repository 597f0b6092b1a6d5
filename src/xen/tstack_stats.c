/*
 * tstack_stats.c - what the stats sampler asks of the toolstack: every
 * domain's CPU time in one call, per-vCPU times, domain names.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxl.h>
#include <libxl_utils.h>
#include <xenctrl.h>

#include "xvbd/xen/tstack.h"
#include "tstack_impl.h"

/* Entries fetched per hypercall until more are needed: one page. */
#define DOMSTATS_BATCH	(4096 / sizeof(xc_domaininfo_t))

struct xvbd_domstats {
	xc_interface *xch;
	xc_domaininfo_t *info;
	size_t cap;
};

int xvbd_tstack_domstats_open(struct xvbd_domstats **out)
{
	struct xvbd_domstats *r = calloc(1, sizeof(*r));

	if (!r)
		return -ENOMEM;
	r->xch = xc_interface_open(NULL, NULL, 0);
	if (!r->xch) {
		int rc = -(errno ? errno : EIO);

		free(r);
		return rc;
	}
	*out = r;
	return 0;
}

void xvbd_tstack_domstats_close(struct xvbd_domstats *r)
{
	if (!r)
		return;
	xc_interface_close(r->xch);
	free(r->info);
	free(r);
}

int xvbd_tstack_domstats_read(struct xvbd_domstats *r,
			      struct xvbd_domstat *buf, size_t cap, size_t *n)
{
	/*
	 * Ask for one entry more than the caller can take: a full answer
	 * means there may be more.  A buffer of at most a page keeps the
	 * hypercall's bounce buffer in libxencall's cache (no mmap).
	 */
	size_t want = cap + 1, i;
	int got;

	if (want > r->cap) {
		xc_domaininfo_t *p = realloc(r->info, want * sizeof(*p));

		if (!p)
			return -ENOMEM;
		r->info = p;
		r->cap = want;
	}
	got = xc_domain_getinfolist(r->xch, 0, (unsigned)want, r->info);
	if (got < 0)
		return -(errno ? errno : EIO);
	if ((size_t)got == want) {
		/* Next try: fill the page, then double. */
		*n = want < DOMSTATS_BATCH ? DOMSTATS_BATCH - 1 : cap * 2;
		return -ENOSPC;
	}
	*n = (size_t)got;
	for (i = 0; i < *n; i++) {
		const xc_domaininfo_t *x = &r->info[i];
		struct xvbd_domstat *d = &buf[i];

		d->domid = x->domain;
		memcpy(d->uuid, x->handle, sizeof(d->uuid));
		d->cpu_ns = x->cpu_time;
		d->vcpus_online = x->nr_online_vcpus;
		d->mem_bytes = x->tot_pages * (uint64_t)XC_PAGE_SIZE;
	}
	return 0;
}

int xvbd_tstack_vcpu_times(struct xvbd_tstack *ts, uint32_t domid,
			   uint64_t *cpu_ns, size_t cap, size_t *n)
{
	int nb = 0, nr_cpus = 0, i;
	libxl_vcpuinfo *info = libxl_list_vcpu(xvbd_tstack_libxl(ts), domid,
					       &nb, &nr_cpus);

	if (!info)
		return -EIO;
	*n = nb > 0 ? (size_t)nb : 0;
	if (*n > cap) {
		libxl_vcpuinfo_list_free(info, nb);
		return -ENOSPC;
	}
	for (i = 0; i < nb; i++) {
		uint32_t id = info[i].vcpuid;

		/* Listed in vcpuid order; index by id to be sure. */
		if (id < *n)
			cpu_ns[id] = info[i].vcpu_time;
	}
	libxl_vcpuinfo_list_free(info, nb);
	return 0;
}

int xvbd_tstack_domain_name(struct xvbd_tstack *ts, uint32_t domid,
			    char *buf, size_t len)
{
	char *name = libxl_domid_to_name(xvbd_tstack_libxl(ts), domid);

	if (!name)
		return -ENOENT;
	snprintf(buf, len, "%s", name);
	free(name);
	return 0;
}
