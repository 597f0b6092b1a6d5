/*
 * ab_fp.c - fingerprint differences and what each one may distort.
 *
 * A comparison is only as good as the sameness of everything but the
 * variable under test.  Every fact that differs between two fingerprints
 * is named, with a sentence for a Xen storage engineer saying which
 * numbers it can move and how.  The table below is that knowledge; the
 * seed posts of the project are the mistakes it was written against:
 *	000: a 7 GB test file on one side, 4 GB on the other;
 *	001: a file-backed disk whose reads dom0's page cache served,
 *	     compared with a physical partition;
 *	002: Linux on two CPUs against a one-CPU dom0, and a clock that ran
 *	     50 % fast.
 * Pure: no I/O (unit-tested).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xvbd/ab/ab.h"

struct distort {
	/* Dotted key; a component "*" matches any one component (a vdev). */
	const char *pattern;
	const char *text;
};

static const struct distort distorts[] = {
	{ "guest.vcpus",
	  "guest vCPUs differ: a guest with more vCPUs keeps more requests "
	  "in flight and spreads its CPU time over more CPUs, so IOPS, "
	  "latency and guest CPU% follow the CPU count, not the storage path "
	  "(one side on two CPUs made a 4 % overhead look like 10 %)" },
	{ "guest.mem_bytes",
	  "guest memory differs: the guest's own page cache absorbs more or "
	  "less of a buffered workload, so rates may measure guest RAM" },
	{ XVBD_AB_FP_CONFIG_KEY,
	  "the guest's xl config file differs (edited between experiments): "
	  "anything it sets may differ besides the variable under test" },
	{ "guest.pinning",
	  "guest vCPU pinning differs: sharing cores (or NUMA nodes) with "
	  "dom0's blkback threads changes latency and CPU%" },
	{ "guest.type",
	  "guest type differs (PV, PVH, HVM): the I/O path (blkfront or an "
	  "emulated device) and how CPU time is accounted differ" },
	{ "dom0.vcpus",
	  "dom0 vCPUs differ: blkback's kernel threads and event handling "
	  "get more or fewer CPUs, so throughput and dom0 CPU% shift" },
	{ "dom0.mem_bytes",
	  "dom0 memory differs: dom0's page cache, which serves file-backed "
	  "disks, is larger or smaller, so read rates may measure dom0's RAM" },
	{ "dom0.pinning",
	  "dom0 vCPU pinning differs: blkback runs on other CPUs, possibly "
	  "sharing them with the guest; latency and CPU% shift" },
	{ "dom0.clocksource",
	  "dom0's clocksource differs: every rate and CPU% is counted per "
	  "dom0 second, so a clock running fast or slow scales them all "
	  "(a hypervisor clock 50 % fast made Xen look 50 % slower)" },
	{ "dom0.kernel",
	  "dom0 kernel differs: blkback, the block layer, the loop driver "
	  "and the I/O schedulers are different code" },
	{ "xen.version",
	  "Xen version differs: scheduler, grant table and event channel "
	  "code differ" },
	{ "host.cpus",
	  "host CPU count differs: different hardware or hypervisor boot "
	  "options; nothing is like for like" },
	{ "blkback.*",
	  "a xen_blkback module parameter differs: a dom0-wide default "
	  "(ring order, queues, persistent grants, indirect segments, "
	  "buffer pool) changes what every VBD negotiates and blkback's "
	  "per-request cost" },
	{ "vbd.*.backend",
	  "backends differ: phy, a file via loop and qdisk take different "
	  "paths through dom0 (block layer, loop thread and page cache, "
	  "user space)" },
	{ "vbd.*.target",
	  "backing stores differ: another file or device has its own "
	  "placement, fragmentation, contents and hardware" },
	{ "vbd.*.size_bytes",
	  "disk sizes differ: a workload sized to the disk (a test file "
	  "grown to fill it, a percentage) does different work, and seek "
	  "spans and cache hit rates differ (a 7 GB test file against a "
	  "4 GB one)" },
	{ "vbd.*.dom0_cache",
	  "dom0 caching differs: dom0's page cache can serve reads of a "
	  "file-backed disk from memory and absorb its writes, so those "
	  "rates measure dom0's RAM, not the disk (a file-backed VBD "
	  "against a physical partition)" },
	{ "vbd.*.ring_pages",
	  "negotiated ring sizes differ: ring pages bound the requests in "
	  "flight (32 per page), so IOPS at depth and latency shift" },
	{ "vbd.*.queues",
	  "negotiated queue counts differ: multi-queue spreads requests "
	  "over more rings, event channels and blkback threads" },
	{ "vbd.*.indirect_segments",
	  "negotiated indirect segments differ: without indirect "
	  "descriptors a request carries at most 11 segments (44 KiB), so "
	  "large I/O is split into more requests" },
	{ "vbd.*.persistent_grants",
	  "persistent grants differ: copying through persistently mapped "
	  "pages against map/unmap per request; CPU% and small-I/O IOPS "
	  "shift" },
	{ "vbd.*.discard",
	  "discard support differs: the guest's discards reach the backing "
	  "store or not, which changes write cost and space" },
	{ "vbd.*.offer.ring_order",
	  "the backend's ring order offer differs: the frontend may take "
	  "up to 2^order ring pages, so requests in flight, IOPS at depth "
	  "and latency may shift (see the negotiated ring_pages)" },
	{ "vbd.*.offer.queues",
	  "the backend's queue offer differs: the frontend may open more "
	  "or fewer rings and blkback threads (see the negotiated queues)" },
	{ "vbd.*.offer.indirect_segments",
	  "the backend's indirect segment offer differs: the largest "
	  "request the frontend may send differs, so large I/O may be split "
	  "differently" },
	{ "vbd.*.offer.persistent_grants",
	  "the backend's persistent grant offer differs: grant copying "
	  "against map/unmap per request where the frontend takes it; "
	  "CPU% and small-I/O IOPS shift" },
	{ "vbd.*.offer.discard",
	  "the backend's discard offer differs: the guest's discards may "
	  "reach the backing store or not" },
	{ "vbd.*.offer.overridden",
	  "whether an offer was written over blkback's own differs: one "
	  "side ran with a per-VBD override (xvbd --vbd), the other not" },
	{ "vbd.*.dev.number",
	  "the backing block device differs: another disk or partition has "
	  "its own hardware, placement and queue" },
	{ "vbd.*.dev.logical_block_size",
	  "the backing device's logical block size differs: the smallest "
	  "I/O it takes, so small or unaligned writes may cost a "
	  "read-modify-write" },
	{ "vbd.*.dev.physical_block_size",
	  "the backing device's physical block size differs: writes "
	  "smaller than it, or unaligned to it, cost a read-modify-write "
	  "in the device" },
	{ "vbd.*.dev.rotational",
	  "one backing device rotates and the other not: seeks make "
	  "random I/O orders of magnitude slower on a spinning disk" },
	{ "vbd.*.dev.scheduler",
	  "the backing device's I/O scheduler differs: merging, ordering "
	  "and fairness of requests change latency and throughput, most "
	  "under mixed or random load" },
	{ "vbd.*.dev.fstype",
	  "the filesystem holding the image differs: its allocation, "
	  "journalling, extent layout and direct I/O support change what a "
	  "guest's I/O costs" },
	{ "guest.cmdline",
	  "the guest's kernel command line differs: anything it sets (the "
	  "I/O scheduler, blkfront's limits, mitigations, memory) may "
	  "differ besides the variable under test" },
	{ "guest.blkfront.*",
	  "a xen_blkfront parameter on the guest's command line differs: "
	  "the frontend's own limits (ring order, queues, indirect segments, "
	  "persistent grants) bound what it takes of any offer" },
	{ "vbd.*.path",
	  "the disk's path differs: a disk not Connected through blkfront "
	  "(emulated, or stuck in another state) is not the PV path measured" },
	{ "workload.fio.*",
	  "fio's jobs differ: another block size, pattern, queue depth, "
	  "engine, size or file does different work (a 1K job against a 4K "
	  "one); the runs are not comparable" },
	{ "workload.bench.config.*",
	  "the benchmark's configuration differs (its CPU, OS, package): "
	  "the runs are not the same experiment" },
	{ "workload.bench.*",
	  "another benchmark or unit in this slot: the runs measured "
	  "different things" },
	{ "workload",
	  "workloads differ: another command, size, pattern or duration "
	  "does different work; the runs are not comparable" },
	{ "xvbd.version",
	  "xvbd versions differ: how runs were recorded and counted may "
	  "differ" },
};

#define NDISTORTS	(sizeof(distorts) / sizeof(distorts[0]))

static const char default_text[] =
	"a fact of the environment differs: it may move any metric";

/* Dotted key against a pattern whose "*" components match any one. */
static bool key_matches(const char *pattern, const char *key)
{
	while (*pattern) {
		const char *pe = strchr(pattern, '.');
		const char *ke = strchr(key, '.');
		size_t pl = pe ? (size_t)(pe - pattern) : strlen(pattern);
		size_t kl = ke ? (size_t)(ke - key) : strlen(key);

		if (!kl)
			return false;
		/* A trailing "*" takes the rest ("blkback.*"). */
		if (pl == 1 && *pattern == '*' && !pe)
			return true;
		if (!(pl == 1 && *pattern == '*') &&
		    (pl != kl || strncmp(pattern, key, pl)))
			return false;
		if (!pe || !ke)
			return !pe && !ke;
		pattern = pe + 1;
		key = ke + 1;
	}
	return !*key;
}

const char *xvbd_ab_fp_distorts(const char *key)
{
	size_t i;

	if (!key)
		return default_text;
	for (i = 0; i < NDISTORTS; i++)
		if (key_matches(distorts[i].pattern, key))
			return distorts[i].text;
	return default_text;
}

/* What a value means, where the value alone says little. */
static const char *gloss(const char *key, const char *value)
{
	if (!value)
		return "not recorded";
	if (key_matches("vbd.*.dom0_cache", key)) {
		if (!strcmp(value, "host"))
			return "dom0's page cache can serve reads";
		if (!strcmp(value, "none"))
			return "direct I/O";
		if (!strcmp(value, "n/a"))
			return "phy";
	}
	return NULL;
}

static int fact_cmp(const void *x, const void *y)
{
	const struct xvbd_ab_fact *const *a = x, *const *b = y;

	return strcmp((*a)->key, (*b)->key);
}

/* Pointers to fp's facts sorted by key (the model keeps them sorted;
 * sorting again costs little and does not depend on it). */
static int sorted_facts(const struct xvbd_ab_fp *fp,
			const struct xvbd_ab_fact ***out)
{
	const struct xvbd_ab_fact **v;
	size_t i;

	*out = NULL;
	if (!fp->n)
		return 0;
	v = calloc(fp->n, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (i = 0; i < fp->n; i++)
		v[i] = &fp->facts[i];
	qsort(v, fp->n, sizeof(*v), fact_cmp);
	*out = v;
	return 0;
}

int xvbd_ab_fp_diff(const struct xvbd_ab_fp *a, const struct xvbd_ab_fp *b,
		    struct xvbd_ab_fpdiff **out, size_t *n)
{
	const struct xvbd_ab_fact **fa = NULL, **fb = NULL;
	struct xvbd_ab_fpdiff *d = NULL;
	size_t i = 0, j = 0, nd = 0;
	int rc;

	*out = NULL;
	*n = 0;
	rc = sorted_facts(a, &fa);
	if (!rc)
		rc = sorted_facts(b, &fb);
	if (rc)
		goto out;
	if (a->n + b->n) {
		d = calloc(a->n + b->n, sizeof(*d));
		if (!d) {
			rc = -ENOMEM;
			goto out;
		}
	}
	/* Merge walk: a key on one side only differs too ("absent"). */
	while (i < a->n || j < b->n) {
		int c = i >= a->n ? 1 : j >= b->n ? -1 :
			strcmp(fa[i]->key, fb[j]->key);
		const char *key, *va = NULL, *vb = NULL;

		if (c <= 0) {
			key = fa[i]->key;
			va = fa[i++]->value;
		}
		if (c >= 0) {
			key = fb[j]->key;
			vb = fb[j++]->value;
		}
		if (va && vb && !strcmp(va, vb))
			continue;
		d[nd].key = key;
		d[nd].a = va;
		d[nd].b = vb;
		d[nd].distorts = xvbd_ab_fp_distorts(key);
		nd++;
	}
	if (!nd) {
		free(d);
		d = NULL;
	}
	*out = d;
	*n = nd;
out:
	free(fa);
	free(fb);
	return rc;
}

int xvbd_ab_fp_diff_text(const struct xvbd_ab_fpdiff *d, char *buf,
			 size_t len)
{
	const char *ga = gloss(d->key, d->a), *gb = gloss(d->key, d->b);
	int n;

	n = snprintf(buf, len, "%s: A %s%s%s%s, B %s%s%s%s: %s", d->key,
		     d->a ? d->a : "-", ga ? " (" : "", ga ? ga : "",
		     ga ? ")" : "",
		     d->b ? d->b : "-", gb ? " (" : "", gb ? gb : "",
		     gb ? ")" : "", d->distorts);
	if (n < 0)
		return -EINVAL;
	/* Cut at the buffer's end: the key and values come first. */
	return (size_t)n >= len ? -ENOSPC : 0;
}
