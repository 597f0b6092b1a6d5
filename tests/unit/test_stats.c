/*
 * Unit tests: the sampler's rate math (deltas, wraps, resets, CPU%
 * sanity), the sysfs parsers, and the sampler itself fed by a fake
 * source and a fake sysfs tree in a temporary directory.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <yajl/yajl_tree.h>

#include "xvbd/stats/stats.h"
#include "xvbd/dom0/sysfs.h"

#define NS	1000000000ull

/* ---- pure math ---- */

static void test_delta(void **state)
{
	uint64_t d;

	(void)state;
	assert_int_equal(xvbd_stats_delta(10, 25, 64, &d), XVBD_IV_OK);
	assert_int_equal(d, 15);
	assert_int_equal(xvbd_stats_delta(7, 7, 64, &d), XVBD_IV_OK);
	assert_int_equal(d, 0);
	/* 64-bit counters do not wrap: backwards is a reset. */
	assert_int_equal(xvbd_stats_delta(UINT64_MAX - 1, 3, 64, &d),
			 XVBD_IV_RESET);
	assert_int_equal(xvbd_stats_delta(1000, 999, 64, &d), XVBD_IV_RESET);
	/* 32-bit ms tick counters wrap at 2^32. */
	assert_int_equal(xvbd_stats_delta(UINT32_MAX - 9, 5, 32, &d),
			 XVBD_IV_OK);
	assert_int_equal(d, 15);
	/* ... but a counter far from 2^32 going back was reset. */
	assert_int_equal(xvbd_stats_delta(1000000, 5, 32, &d),
			 XVBD_IV_RESET);
	/* A value beyond 32 bits was never a 32-bit counter. */
	assert_int_equal(xvbd_stats_delta(1ull << 40, 5, 32, &d),
			 XVBD_IV_RESET);
}

static void test_per_s(void **state)
{
	(void)state;
	assert_true(xvbd_stats_per_s(100, NS) == 100.0);
	assert_true(xvbd_stats_per_s(100, NS / 2) == 200.0);
	assert_true(xvbd_stats_per_s(100, 0) == 0.0);
}

static void test_cpu_pct(void **state)
{
	double pct;

	(void)state;
	/* Half a second of CPU in one second. */
	assert_int_equal(xvbd_stats_cpu_pct(NS, NS + NS / 2, NS, 0, 1, &pct),
			 XVBD_IV_OK);
	assert_true(pct > 49.999 && pct < 50.001);
	/* Two vCPUs spinning: 200 %. */
	assert_int_equal(xvbd_stats_cpu_pct(0, 2 * NS, NS, 0, 2, &pct),
			 XVBD_IV_OK);
	assert_true(pct > 199.999 && pct < 200.001);
	/* Slightly above 100 % x vCPUs, explained by the slack: clamped. */
	assert_int_equal(xvbd_stats_cpu_pct(0, NS + NS / 100, NS, NS / 50, 1,
					    &pct), XVBD_IV_OK);
	assert_true(pct == 100.0);
	/* Far above: a time-base problem, no number. */
	assert_int_equal(xvbd_stats_cpu_pct(0, 2 * NS, NS, NS / 100, 1, &pct),
			 XVBD_IV_IMPOSSIBLE);
	assert_true(pct == 0.0);
	/* The seed's hypervisor clock 50 % fast: 150 % on one vCPU. */
	assert_int_equal(xvbd_stats_cpu_pct(0, 3 * NS / 2, NS, 0, 1, &pct),
			 XVBD_IV_IMPOSSIBLE);
	/* Backwards (domain replaced): reset, never negative. */
	assert_int_equal(xvbd_stats_cpu_pct(5 * NS, NS, NS, 0, 1, &pct),
			 XVBD_IV_RESET);
	assert_true(pct == 0.0);
	/*
	 * A few ms back: the CPUs' clocks apart (3.4 ms in the lab), no
	 * CPU time and no new domain; beyond 10 ms per vCPU, a reset.
	 */
	assert_int_equal(xvbd_stats_cpu_pct(NS, NS - 3400000, NS, 0, 1, &pct),
			 XVBD_IV_OK);
	assert_true(pct == 0.0);
	assert_int_equal(xvbd_stats_cpu_pct(NS, NS - 10000001, NS, 0, 1,
					     &pct), XVBD_IV_RESET);
	assert_int_equal(xvbd_stats_cpu_pct(NS, NS - 15000000, NS, 0, 2,
					     &pct), XVBD_IV_OK);
	/* Idle. */
	assert_int_equal(xvbd_stats_cpu_pct(NS, NS, NS, 0, 4, &pct),
			 XVBD_IV_OK);
	assert_true(pct == 0.0);
	/* A short interval on 2 vCPUs whose clocks are ms apart (lab:
	 * 49 ms in 19 ms): within the absolute tolerance. */
	assert_int_equal(xvbd_stats_cpu_pct(0, 49 * NS / 1000, 19 * NS / 1000,
					    0, 2, &pct), XVBD_IV_OK);
	assert_true(pct == 200.0);
	/* ... but not 100 ms more than the vCPUs could run. */
	assert_int_equal(xvbd_stats_cpu_pct(0, 138 * NS / 1000, 19 * NS / 1000,
					    0, 2, &pct), XVBD_IV_IMPOSSIBLE);
	/* No wall time but CPU time: impossible. */
	assert_int_equal(xvbd_stats_cpu_pct(0, 1, 0, 0, 1, &pct),
			 XVBD_IV_IMPOSSIBLE);
	/* No vCPU online but CPU time used: impossible. */
	assert_int_equal(xvbd_stats_cpu_pct(0, NS, NS, 0, 0, &pct),
			 XVBD_IV_IMPOSSIBLE);
}

static void test_vbd_rates(void **state)
{
	struct xvbd_blkback_counters a = { .rd_req = 100, .rd_sect = 1000,
					   .wr_req = 5, .wr_sect = 40,
					   .f_req = 1, .ds_req = 0,
					   .oo_req = 2 };
	struct xvbd_blkback_counters b = a;
	struct xvbd_stats_vbd v = { 0 };

	(void)state;
	/* The guest read exactly 64 MiB in 512 requests, over 2 s. */
	b.rd_req += 512;
	b.rd_sect += 64 * 1024 * 1024 / 512;
	b.f_req += 4;
	assert_int_equal(xvbd_stats_vbd_rates(&a, &b, 2 * NS, &v), XVBD_IV_OK);
	assert_true(v.rd_req_s == 256.0);
	assert_true(v.rd_bytes_s == 32.0 * 1024 * 1024);
	assert_true(v.wr_req_s == 0.0 && v.wr_bytes_s == 0.0);
	assert_true(v.f_req_s == 2.0);
	assert_true(v.oo_req_s == 0.0 && v.ds_req_s == 0.0);
	/* Any counter backwards (re-attached): reset. */
	b = a;
	b.rd_req += 10;
	b.oo_req = 0;
	assert_int_equal(xvbd_stats_vbd_rates(&a, &b, NS, &v),
			 XVBD_IV_RESET);
	assert_int_equal(xvbd_stats_vbd_rates(&a, &a, 0, &v), XVBD_IV_RESET);
}

static void test_blk_rates(void **state)
{
	struct xvbd_blkstat a = { .rd_ios = 10, .rd_ticks_ms = 100,
				  .wr_ios = 4, .wr_ticks_ms = 40,
				  .time_in_queue_ms = 1000, .nfields = 17 };
	struct xvbd_blkstat b = a;
	struct xvbd_stats_vbd v = { 0 };

	(void)state;
	b.rd_ios += 20;
	b.rd_ticks_ms += 50;		/* 2.5 ms per read */
	b.time_in_queue_ms += 1500;	/* 1.5 s queued in 1 s: depth 1.5 */
	assert_int_equal(xvbd_stats_blk_rates(&a, &b, NS, &v), XVBD_IV_OK);
	assert_true(v.rd_lat_known && v.rd_lat_ms == 2.5);
	assert_false(v.wr_lat_known);	/* no writes: unknown, not 0 */
	assert_true(v.queue_depth == 1.5);
	/* time_in_queue wraps at 2^32 ms. */
	a.time_in_queue_ms = UINT32_MAX - 99;
	b.time_in_queue_ms = 400;
	assert_int_equal(xvbd_stats_blk_rates(&a, &b, NS, &v), XVBD_IV_OK);
	assert_true(v.queue_depth == 0.5);
	/* I/O count backwards: reset. */
	b = a;
	b.rd_ios = 1;
	assert_int_equal(xvbd_stats_blk_rates(&a, &b, NS, &v),
			 XVBD_IV_RESET);
}

/* ---- parsers ---- */

static void test_parse_counter(void **state)
{
	uint64_t v;

	(void)state;
	assert_int_equal(xvbd_sysfs_parse_counter("123\n", 4, &v), 0);
	assert_int_equal(v, 123);
	assert_int_equal(xvbd_sysfs_parse_counter("0", 1, &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(xvbd_sysfs_parse_counter("18446744073709551615\n",
						  21, &v), 0);
	assert_true(v == UINT64_MAX);
	assert_int_equal(xvbd_sysfs_parse_counter("18446744073709551616", 20,
						  &v), -ERANGE);
	assert_int_equal(xvbd_sysfs_parse_counter("", 0, &v), -EINVAL);
	assert_int_equal(xvbd_sysfs_parse_counter("\n", 1, &v), -EINVAL);
	assert_int_equal(xvbd_sysfs_parse_counter("-1\n", 3, &v), -EINVAL);
	assert_int_equal(xvbd_sysfs_parse_counter("12 \n", 4, &v), -EINVAL);
}

static void test_parse_blkstat(void **state)
{
	static const char l17[] =
		"     150        3     6000      250       20        0      160"
		"       80        2      300      330        1        0        8"
		"        5        6        7\n";
	static const char l11[] = "1 2 3 4 5 6 7 8 9 10 11\n";
	static const char l20[] =
		"1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20\n";
	struct xvbd_blkstat st;

	(void)state;
	assert_int_equal(xvbd_sysfs_parse_blkstat(l17, strlen(l17), &st), 0);
	assert_int_equal(st.nfields, 17);
	assert_int_equal(st.rd_ios, 150);
	assert_int_equal(st.rd_sectors, 6000);
	assert_int_equal(st.rd_ticks_ms, 250);
	assert_int_equal(st.wr_ios, 20);
	assert_int_equal(st.in_flight, 2);
	assert_int_equal(st.time_in_queue_ms, 330);
	assert_int_equal(st.fl_ticks_ms, 7);
	assert_int_equal(xvbd_sysfs_parse_blkstat(l11, strlen(l11), &st), 0);
	assert_int_equal(st.nfields, 11);
	assert_int_equal(st.time_in_queue_ms, 11);
	assert_int_equal(st.ds_ios, 0);
	/* A newer kernel's extra fields are ignored. */
	assert_int_equal(xvbd_sysfs_parse_blkstat(l20, strlen(l20), &st), 0);
	assert_int_equal(st.nfields, 17);
	assert_int_equal(st.fl_ticks_ms, 17);
	assert_int_equal(xvbd_sysfs_parse_blkstat("1 2 3\n", 6, &st),
			 -EINVAL);
	assert_int_equal(xvbd_sysfs_parse_blkstat("1 2 3 4 5 6 7 8 9 10 x\n",
						  23, &st), -EINVAL);
	assert_int_equal(xvbd_sysfs_parse_blkstat("1 2 3 4 5 6 7 8 9 10 -1",
						  23, &st), -EINVAL);
	assert_int_equal(xvbd_sysfs_parse_blkstat(
			 "1 2 3 4 5 6 7 8 9 10 11\n12", 26, &st), -EINVAL);
}

static void test_parse_devnum(void **state)
{
	unsigned ma, mi;

	(void)state;
	assert_int_equal(xvbd_sysfs_parse_devnum("7:0", &ma, &mi), 0);
	assert_int_equal(ma, 7);
	assert_int_equal(mi, 0);
	/* Hex, as the block script writes it (stat %t:%T). */
	assert_int_equal(xvbd_sysfs_parse_devnum("fe:11", &ma, &mi), 0);
	assert_int_equal(ma, 254);
	assert_int_equal(mi, 17);
	assert_int_equal(xvbd_sysfs_parse_devnum("FE:1a", &ma, &mi), 0);
	assert_int_equal(mi, 26);
	assert_int_equal(xvbd_sysfs_parse_devnum("7", &ma, &mi), -EINVAL);
	assert_int_equal(xvbd_sysfs_parse_devnum(":1", &ma, &mi), -EINVAL);
	assert_int_equal(xvbd_sysfs_parse_devnum("7:", &ma, &mi), -EINVAL);
	assert_int_equal(xvbd_sysfs_parse_devnum("-7:1", &ma, &mi), -EINVAL);
	assert_int_equal(xvbd_sysfs_parse_devnum("7:1/..", &ma, &mi),
			 -EINVAL);
	assert_int_equal(xvbd_sysfs_parse_devnum("1000:0", &ma, &mi),
			 -ERANGE);
	assert_int_equal(xvbd_sysfs_parse_devnum("0:100000", &ma, &mi),
			 -ERANGE);
	assert_int_equal(xvbd_sysfs_parse_devnum("123456789:0", &ma, &mi),
			 -EINVAL);
}

/* ---- the sampler, with a fake source and a fake /sys ---- */

struct fake {
	char root[64];
	struct xvbd_stats_dominfo doms[4];
	size_t ndoms;
	struct xvbd_stats_vbdinfo vbds[4];
	size_t nvbds;
	bool changed;
	int domain_calls, vbds_calls;
};

static int fake_domains(void *arg, struct xvbd_stats_dominfo *buf,
			size_t cap, size_t *n)
{
	struct fake *f = arg;

	f->domain_calls++;
	*n = f->ndoms;
	if (f->ndoms > cap)
		return -ENOSPC;
	memcpy(buf, f->doms, f->ndoms * sizeof(*buf));
	return 0;
}

/* 80 characters: libxl has no limit on a domain's name */
#define LONG_NAME "a-guest-whose-name-is-long-" \
	"0123456789012345678901234567890123456789012345678901x"

static int fake_name(void *arg, uint32_t domid, char *buf, size_t len)
{
	(void)arg;
	if (domid == 77)
		snprintf(buf, len, "%s", LONG_NAME);
	else if (domid == 0)
		snprintf(buf, len, "Domain-0");
	else
		snprintf(buf, len, "guest%u", domid);
	return 0;
}

static int fake_vbds(void *arg, struct xvbd_stats_vbdinfo **out, size_t *n)
{
	struct fake *f = arg;

	f->vbds_calls++;
	f->changed = false;
	*out = malloc((f->nvbds ? f->nvbds : 1) * sizeof(**out));
	if (!*out)
		return -ENOMEM;
	memcpy(*out, f->vbds, f->nvbds * sizeof(**out));
	*n = f->nvbds;
	return 0;
}

static bool fake_changed(void *arg)
{
	return ((struct fake *)arg)->changed;
}

static void put(const struct fake *f, const char *rel, const char *text)
{
	char path[256];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", f->root, rel);
	fp = fopen(path, "w");
	assert_non_null(fp);
	fputs(text, fp);
	fclose(fp);
}

static void mkdirs(const struct fake *f, const char *rel)
{
	char path[256], *p;

	snprintf(path, sizeof(path), "%s/%s", f->root, rel);
	for (p = path + strlen(f->root) + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		mkdir(path, 0755);
		*p = '/';
	}
	mkdir(path, 0755);
}

/* Write a VBD's seven counters into the fake tree. */
static void put_vbd(const struct fake *f, uint32_t domid, uint32_t devid,
		    const struct xvbd_blkback_counters *c)
{
	char dir[128], rel[192], val[32];
	int i;

	snprintf(dir, sizeof(dir),
		 "bus/xen-backend/devices/vbd-%u-%u/statistics", domid, devid);
	mkdirs(f, dir);
	for (i = 0; i < XVBD_BLKBACK_NFIELDS; i++) {
		snprintf(rel, sizeof(rel), "%s/%s", dir,
			 xvbd_blkback_fields[i].name);
		snprintf(val, sizeof(val), "%llu\n", (unsigned long long)
			 *(const uint64_t *)((const char *)c +
					     xvbd_blkback_fields[i].offset));
		put(f, rel, val);
	}
}

static void rm_vbd(const struct fake *f, uint32_t domid, uint32_t devid)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd),
		 "rm -rf %s/bus/xen-backend/devices/vbd-%u-%u", f->root,
		 domid, devid);
	assert_int_equal(system(cmd), 0);
}

/* Like a detach whose device lingers: the next one gets a new inode. */
static void move_vbd_away(const struct fake *f, uint32_t domid,
			  uint32_t devid)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd),
		 "mv %s/bus/xen-backend/devices/vbd-%u-%u %s/old-%u-%u",
		 f->root, domid, devid, f->root, domid, devid);
	assert_int_equal(system(cmd), 0);
}

static struct xvbd_stats_source fake_source(struct fake *f)
{
	struct xvbd_stats_source src = {
		.domains = fake_domains, .domain_name = fake_name,
		.vbds = fake_vbds, .vbds_changed = fake_changed, .arg = f,
	};
	return src;
}

static void fake_init(struct fake *f)
{
	memset(f, 0, sizeof(*f));
	snprintf(f->root, sizeof(f->root), "/tmp/xvbd-test-stats.XXXXXX");
	assert_non_null(mkdtemp(f->root));
	f->ndoms = 2;
	f->doms[0] = (struct xvbd_stats_dominfo){ .domid = 0, .cpu_ns = NS,
						  .vcpus_online = 2,
						  .mem_bytes = 1u << 30 };
	f->doms[1] = (struct xvbd_stats_dominfo){ .domid = 3, .cpu_ns = NS,
						  .vcpus_online = 1,
						  .uuid = { 3 } };
	f->nvbds = 2;
	f->vbds[0] = (struct xvbd_stats_vbdinfo){ .domid = 3, .devid = 51712,
						  .vdev = "xvda",
						  .has_blkdev = true,
						  .blk_major = 7 };
	f->vbds[1] = (struct xvbd_stats_vbdinfo){ .domid = 3, .devid = 51728,
						  .vdev = "xvdb" };
	mkdirs(f, "dev/block/7:0");
	put(f, "dev/block/7:0/stat", "10 0 80 20 0 0 0 0 0 20 20\n");
}

static void fake_fini(struct fake *f)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", f->root);
	assert_int_equal(system(cmd), 0);
}

static const struct xvbd_stats_vbd *find(const struct xvbd_stats_sample *s,
					 uint32_t devid)
{
	size_t i;

	for (i = 0; i < s->nvbds; i++)
		if (s->vbds[i].devid == devid)
			return &s->vbds[i];
	return NULL;
}

static void test_parse_proc(void **state)
{
	const char *st = "1234 (1.xvda-0) S 2 0 0 0 -1 2129984 0 0 0 0 5 7";
	const char *odd = "77 (a) b) c) R 1 1 1 0 -1 4194560 0";
	char comm[XVBD_COMM_MAX];
	uint64_t flags, ns, slices;

	(void)state;
	assert_int_equal(xvbd_proc_parse_stat(st, strlen(st), comm,
					      sizeof(comm), &flags), 0);
	assert_string_equal(comm, "1.xvda-0");
	assert_true(flags & XVBD_PF_KTHREAD);
	/* The name may hold ") ": the last ')' ends it. */
	assert_int_equal(xvbd_proc_parse_stat(odd, strlen(odd), comm,
					      sizeof(comm), &flags), 0);
	assert_string_equal(comm, "a) b) c");
	assert_false(flags & XVBD_PF_KTHREAD);
	assert_int_equal(xvbd_proc_parse_stat("1 (x", 4, comm, sizeof(comm),
					      &flags), -EINVAL);
	assert_int_equal(xvbd_proc_parse_schedstat("2600000000 5 42\n", 16,
						   &ns, &slices), 0);
	assert_true(ns == 2600000000ull && slices == 42);
	assert_int_equal(xvbd_proc_parse_schedstat("12 5", 4, &ns, &slices),
			 -EINVAL);
	assert_int_equal(xvbd_proc_parse_schedstat("-1 5 6", 6, &ns, &slices),
			 -EINVAL);
}

static void test_req_sizes(void **state)
{
	struct xvbd_blkback_counters a = { .rd_req = 10, .rd_sect = 80 };
	struct xvbd_blkback_counters b = { .rd_req = 110, .rd_sect = 80 + 8800,
					   .wr_req = 0 };
	struct xvbd_stats_vbd v = { .ceiling_known = true };

	(void)state;
	assert_int_equal(xvbd_stats_ceiling_segments(0), 11);
	assert_int_equal(xvbd_stats_ceiling_segments(8), 11);
	assert_int_equal(xvbd_stats_ceiling_segments(256), 256);
	v.ceiling_kib = 44;
	xvbd_stats_req_sizes(&a, &b, &v);
	/* 8800 sectors in 100 requests: 88 sectors = 44 KiB each. */
	assert_true(v.rd_kib_known && v.rd_kib_per_req == 44.0);
	assert_true(v.rd_ceiling_pct == 100.0);
	/* No write: unknown, not 0. */
	assert_false(v.wr_kib_known);
	/* Counters back: nothing known. */
	xvbd_stats_req_sizes(&b, &a, &v);
	assert_false(v.rd_kib_known);
}

/* A fake /proc/<pid> of a kernel thread with a schedstat. */
static void put_thread(const struct fake *f, int pid, const char *comm,
		       uint64_t run_ns, bool kthread)
{
	char rel[64], val[160];

	snprintf(rel, sizeof(rel), "proc/%d", pid);
	mkdirs(f, rel);
	snprintf(rel, sizeof(rel), "proc/%d/stat", pid);
	snprintf(val, sizeof(val), "%d (%s) S 2 0 0 0 -1 %u 0 0\n", pid, comm,
		 kthread ? XVBD_PF_KTHREAD | 0x40u : 0x400000u);
	put(f, rel, val);
	snprintf(rel, sizeof(rel), "proc/%d/schedstat", pid);
	snprintf(val, sizeof(val), "%llu 0 9\n", (unsigned long long)run_ns);
	put(f, rel, val);
}

static void test_sampler_rings(void **state)
{
	struct xvbd_blkback_counters a = { .rd_req = 4, .rd_sect = 64 };
	struct xvbd_blkback_counters b = { 0 };
	struct xvbd_stats_sample s = { 0 };
	struct xvbd_stats_source src;
	struct xvbd_stats *st = NULL;
	struct xvbd_sysfs *sys;
	const struct xvbd_stats_vbd *v;
	struct fake f;
	char rel[128];

	(void)state;
	fake_init(&f);
	snprintf(f.vbds[0].thread_prefix, sizeof(f.vbds[0].thread_prefix),
		 "3.xvda");
	f.vbds[0].connected = true;
	f.vbds[0].indirect_known = true;
	snprintf(f.vbds[1].thread_prefix, sizeof(f.vbds[1].thread_prefix),
		 "3.xvdb");
	f.vbds[1].connected = true;
	put_vbd(&f, 3, 51712, &a);
	put_vbd(&f, 3, 51728, &b);
	mkdirs(&f, "proc");
	put_thread(&f, 100, "3.xvda-0", 1000, true);
	put_thread(&f, 101, "3.xvda-1", 2000, true);
	/* A user process named like a ring thread is not one. */
	put_thread(&f, 102, "3.xvdb-0", 5000, false);
	put_thread(&f, 103, "13.xvda-0", 7000, true);
	sys = xvbd_sysfs_open(f.root);
	assert_non_null(sys);
	src = fake_source(&f);
	assert_int_equal(xvbd_stats_open(&src, sys, NULL, &st), 0);
	assert_int_equal(xvbd_stats_sample(st, &s), 0);
	v = find(&s, 51712);
	assert_true(v->be_known);
	assert_int_equal(v->nrings, 2);
	assert_int_equal(v->be_cpu_ns, 3000);
	assert_int_equal(v->be_iv, XVBD_IV_NEW);
	assert_int_equal(v->ceiling_segments, 11);
	v = find(&s, 51728);
	assert_false(v->be_known);	/* unknown, never 0 */

	/* 100 ms of ring CPU over the interval, 2 requests of 64 KiB. */
	a.rd_req += 2;
	a.rd_sect += 256;
	put_vbd(&f, 3, 51712, &a);
	put_thread(&f, 100, "3.xvda-0", 1000 + 60000000, true);
	put_thread(&f, 101, "3.xvda-1", 2000 + 40000000, true);
	assert_int_equal(xvbd_stats_sample(st, &s), 0);
	v = find(&s, 51712);
	assert_int_equal(v->be_iv, XVBD_IV_OK);
	assert_true(v->be_cpu_pct > 0);
	assert_true(v->be_us_per_req_known);
	assert_true(v->be_us_per_req > 49999.9 && v->be_us_per_req < 50000.1);
	assert_true(v->rd_kib_known && v->rd_kib_per_req == 64.0);

	/*
	 * Ring 1's thread exits (its kept-open schedstat reads as nothing,
	 * as a dead task's does): a reset, never a negative.
	 */
	put(&f, "proc/101/schedstat", "");
	snprintf(rel, sizeof(rel), "rm -rf %s/proc/101/stat", f.root);
	assert_int_equal(system(rel), 0);
	put_thread(&f, 100, "3.xvda-0", 10, true);
	assert_int_equal(xvbd_stats_sample(st, &s), 0);
	v = find(&s, 51712);
	assert_int_equal(v->be_iv, XVBD_IV_RESET);
	assert_false(v->be_known);
	xvbd_stats_sample_free(&s);
	xvbd_stats_close(st);
	xvbd_sysfs_close(sys);
	fake_fini(&f);
}

static void test_sampler(void **state)
{
	struct xvbd_blkback_counters a = { .rd_req = 4, .rd_sect = 64 };
	struct xvbd_blkback_counters b = { 0 };
	struct xvbd_stats_sample s = { 0 };
	struct xvbd_stats_source src;
	struct xvbd_stats *st = NULL;
	struct xvbd_sysfs *sys;
	const struct xvbd_stats_vbd *v;
	struct fake f;

	(void)state;
	fake_init(&f);
	put_vbd(&f, 3, 51712, &a);
	put_vbd(&f, 3, 51728, &b);
	sys = xvbd_sysfs_open(f.root);
	assert_non_null(sys);
	src = fake_source(&f);
	assert_int_equal(xvbd_stats_open(&src, sys, NULL, &st), 0);

	/* Baseline: everything new, no rates. */
	assert_int_equal(xvbd_stats_sample(st, &s), 0);
	assert_int_equal(s.seq, 0);
	assert_int_equal(s.ndoms, 2);
	assert_string_equal(s.doms[0].name, "Domain-0");
	assert_int_equal(s.doms[1].cpu_iv, XVBD_IV_NEW);
	assert_int_equal(s.nvbds, 2);
	v = find(&s, 51712);
	assert_non_null(v);
	assert_int_equal(v->iv, XVBD_IV_NEW);
	assert_int_equal(v->raw.rd_sect, 64);
	assert_string_equal(v->domain, "guest3");
	assert_true(v->has_blk);
	assert_int_equal(v->blk_raw.rd_ios, 10);

	/* I/O happens: 128 more sectors read, 2 more requests. */
	a.rd_req += 2;
	a.rd_sect += 128;
	put_vbd(&f, 3, 51712, &a);
	put(&f, "dev/block/7:0/stat", "12 0 208 26 0 0 0 0 0 26 26\n");
	f.doms[1].cpu_ns += 1000;	/* 1 us of CPU: surely possible */
	usleep(2000);
	assert_int_equal(xvbd_stats_sample(st, &s), 0);
	assert_int_equal(s.seq, 1);
	assert_true(s.interval_ns > 0);
	assert_int_equal(s.doms[1].cpu_iv, XVBD_IV_OK);
	assert_true(s.doms[1].cpu_pct >= 0.0);
	v = find(&s, 51712);
	assert_int_equal(v->iv, XVBD_IV_OK);
	assert_int_equal(v->raw.rd_sect, 192);
	assert_true(v->rd_bytes_s > 0.0 && v->rd_req_s > 0.0);
	/* rates agree with each other: 128 sectors per 2 requests */
	assert_true(v->rd_bytes_s / v->rd_req_s > 32767.0 &&
		    v->rd_bytes_s / v->rd_req_s < 32769.0);
	assert_int_equal(v->blk_iv, XVBD_IV_OK);
	assert_true(v->rd_lat_known && v->rd_lat_ms == 3.0);
	assert_false(v->wr_lat_known);
	v = find(&s, 51728);
	assert_int_equal(v->iv, XVBD_IV_OK);
	assert_true(v->rd_req_s == 0.0);
	assert_false(v->has_blk);
	assert_int_equal(xvbd_stats_nwarnings(st), 0);

	/* A counter goes backwards without any event: reset, no rate. */
	a.rd_sect = 10;
	put_vbd(&f, 3, 51712, &a);
	assert_int_equal(xvbd_stats_sample(st, &s), 0);
	v = find(&s, 51712);
	assert_int_equal(v->iv, XVBD_IV_RESET);
	assert_true(v->rd_bytes_s == 0.0);
	/* ... and the interval after that is fine again. */
	a.rd_sect = 20;
	put_vbd(&f, 3, 51712, &a);
	assert_int_equal(xvbd_stats_sample(st, &s), 0);
	assert_int_equal(find(&s, 51712)->iv, XVBD_IV_OK);

	/*
	 * The ring reconnected (the backend's state changed: the source
	 * bumps connect_gen) and its counters, restarted at 0, already
	 * passed the old value: reset, not a small, wrong rate.
	 */
	a.rd_sect = 30;
	put_vbd(&f, 3, 51712, &a);
	assert_int_equal(xvbd_stats_sample(st, &s), 0);
	f.vbds[0].connect_gen++;
	f.changed = true;
	a.rd_sect = 40;
	put_vbd(&f, 3, 51712, &a);
	assert_int_equal(xvbd_stats_sample(st, &s), 0);
	assert_int_equal(find(&s, 51712)->iv, XVBD_IV_RESET);
	a.rd_sect = 50;
	put_vbd(&f, 3, 51712, &a);
	assert_int_equal(xvbd_stats_sample(st, &s), 0);
	assert_int_equal(find(&s, 51712)->iv, XVBD_IV_OK);

	/* Impossible CPU: 1000 s on one vCPU within milliseconds. */
	f.doms[1].cpu_ns += 1000 * NS;
	assert_int_equal(xvbd_stats_sample(st, &s), 0);
	assert_int_equal(s.doms[1].cpu_iv, XVBD_IV_IMPOSSIBLE);
	assert_int_equal(xvbd_stats_nwarnings(st), 1);
	assert_non_null(strstr(xvbd_stats_warning(st, 0), "guest3"));

	xvbd_stats_sample_free(&s);
	xvbd_stats_close(st);
	xvbd_sysfs_close(sys);
	fake_fini(&f);
}

/*
 * A ring that connected between the open and the first sample (ab
 * record's warmup while a fresh guest boots): part of the baseline, so
 * the first interval is a plain one, not a reset.
 */
static void test_sampler_connect_before_first(void **state)
{
	struct xvbd_blkback_counters a = { .rd_req = 0, .rd_sect = 0 };
	struct xvbd_stats_sample s = { 0 };
	struct xvbd_stats_source src;
	struct xvbd_stats *st = NULL;
	struct xvbd_sysfs *sys;
	struct fake f;

	(void)state;
	fake_init(&f);
	f.nvbds = 1;
	put_vbd(&f, 3, 51712, &a);
	sys = xvbd_sysfs_open(f.root);
	src = fake_source(&f);
	assert_int_equal(xvbd_stats_open(&src, sys, NULL, &st), 0);
	f.vbds[0].connect_gen++;
	f.changed = true;
	a.rd_req = 2;
	a.rd_sect = 24;
	put_vbd(&f, 3, 51712, &a);
	assert_int_equal(xvbd_stats_sample(st, &s), 0);
	assert_int_equal(find(&s, 51712)->iv, XVBD_IV_NEW);
	a.rd_sect = 1048;
	put_vbd(&f, 3, 51712, &a);
	assert_int_equal(xvbd_stats_sample(st, &s), 0);
	assert_int_equal(find(&s, 51712)->iv, XVBD_IV_OK);
	assert_true(find(&s, 51712)->rd_bytes_s > 0.0);

	xvbd_stats_sample_free(&s);
	xvbd_stats_close(st);
	xvbd_sysfs_close(sys);
	fake_fini(&f);
}

static void test_sampler_reattach(void **state)
{
	struct xvbd_blkback_counters a = { .rd_req = 40, .rd_sect = 640 };
	struct xvbd_stats_sample s = { 0 };
	struct xvbd_stats_source src;
	struct xvbd_stats *st = NULL;
	struct xvbd_sysfs *sys;
	struct fake f;
	int calls;

	(void)state;
	fake_init(&f);
	f.nvbds = 1;
	put_vbd(&f, 3, 51712, &a);
	sys = xvbd_sysfs_open(f.root);
	src = fake_source(&f);
	assert_int_equal(xvbd_stats_open(&src, sys, NULL, &st), 0);
	assert_int_equal(xvbd_stats_sample(st, &s), 0);
	assert_int_equal(xvbd_stats_sample(st, &s), 0);
	assert_int_equal(s.vbds[0].iv, XVBD_IV_OK);
	calls = f.vbds_calls;
	/* No change event: the VBD list is not read again. */
	assert_int_equal(xvbd_stats_sample(st, &s), 0);
	assert_int_equal(f.vbds_calls, calls);
	/* Domain list: one call per sample. */
	assert_int_equal(f.domain_calls, 3);

	/* Detach: gone from the list, files gone. */
	rm_vbd(&f, 3, 51712);
	f.nvbds = 0;
	f.changed = true;
	assert_int_equal(xvbd_stats_sample(st, &s), 0);
	assert_int_equal(f.vbds_calls, calls + 1);
	assert_int_equal(s.nvbds, 0);

	/* Re-attach with fresh counters, higher than before: still reset. */
	a.rd_req = 50;
	a.rd_sect = 800;
	put_vbd(&f, 3, 51712, &a);
	f.nvbds = 1;
	f.changed = true;
	assert_int_equal(xvbd_stats_sample(st, &s), 0);
	assert_int_equal(s.nvbds, 1);
	assert_int_equal(s.vbds[0].iv, XVBD_IV_RESET);
	assert_int_equal(xvbd_stats_sample(st, &s), 0);
	assert_int_equal(s.vbds[0].iv, XVBD_IV_OK);

	/*
	 * Detach and re-attach between two samples (same key, new device
	 * instance): noticed through the instance, reset.
	 */
	move_vbd_away(&f, 3, 51712);	/* keeps the old inode in use */
	a.rd_req = 60;
	a.rd_sect = 900;
	put_vbd(&f, 3, 51712, &a);
	f.changed = true;
	assert_int_equal(xvbd_stats_sample(st, &s), 0);
	assert_int_equal(s.nvbds, 1);
	assert_int_equal(s.vbds[0].iv, XVBD_IV_RESET);
	assert_int_equal(s.vbds[0].raw.rd_req, 60);

	xvbd_stats_sample_free(&s);
	xvbd_stats_close(st);
	xvbd_sysfs_close(sys);
	fake_fini(&f);
}

/* A domain named with 64+ characters: stats -d NAME still finds it. */
static void test_sampler_long_name(void **state)
{
	static const char *const keep[] = { LONG_NAME };
	struct xvbd_stats_opts opts = { .domains = keep, .ndomains = 1 };
	struct xvbd_blkback_counters a = { .rd_req = 1 };
	struct xvbd_stats_sample s = { 0 };
	struct xvbd_stats_source src;
	struct xvbd_stats *st = NULL;
	struct xvbd_sysfs *sys;
	struct fake f;

	(void)state;
	fake_init(&f);
	f.doms[1].domid = 77;
	f.nvbds = 1;
	f.vbds[0].domid = 77;
	f.vbds[0].has_blkdev = false;
	put_vbd(&f, 77, 51712, &a);
	sys = xvbd_sysfs_open(f.root);
	src = fake_source(&f);
	assert_int_equal(xvbd_stats_open(&src, sys, &opts, &st), 0);
	assert_int_equal(xvbd_stats_sample(st, &s), 0);
	assert_int_equal(s.ndoms, 1);
	assert_int_equal(s.doms[0].domid, 77);
	assert_string_equal(s.doms[0].name, LONG_NAME);
	assert_int_equal(s.nvbds, 1);
	assert_string_equal(s.vbds[0].domain, LONG_NAME);
	xvbd_stats_sample_free(&s);
	xvbd_stats_close(st);
	xvbd_sysfs_close(sys);
	fake_fini(&f);
}

static void test_sampler_domains(void **state)
{
	static const char *const keep[] = { "guest3" };
	struct xvbd_stats_opts opts = { .domains = keep, .ndomains = 1 };
	struct xvbd_blkback_counters a = { .rd_req = 1 };
	struct xvbd_stats_sample s = { 0 };
	struct xvbd_stats_source src;
	struct xvbd_stats *st = NULL;
	struct xvbd_sysfs *sys;
	struct fake f;
	size_t i;

	(void)state;
	fake_init(&f);
	f.nvbds = 1;
	put_vbd(&f, 3, 51712, &a);
	sys = xvbd_sysfs_open(f.root);
	src = fake_source(&f);
	assert_int_equal(xvbd_stats_open(&src, sys, &opts, &st), 0);
	assert_int_equal(xvbd_stats_sample(st, &s), 0);
	/* Only the asked-for domain. */
	assert_int_equal(s.ndoms, 1);
	assert_int_equal(s.doms[0].domid, 3);
	assert_int_equal(s.nvbds, 1);

	/* Same domid, another domain (uuid): reset, not a rate. */
	f.doms[1].uuid[0] = 9;
	f.doms[1].cpu_ns += NS;
	assert_int_equal(xvbd_stats_sample(st, &s), 0);
	assert_int_equal(s.doms[0].cpu_iv, XVBD_IV_RESET);

	/* Many domains: the buffer grows, the list is still complete. */
	xvbd_stats_close(st);
	f.ndoms = 4;
	for (i = 2; i < 4; i++)
		f.doms[i] = (struct xvbd_stats_dominfo){ .domid = (uint32_t)i +
							 10 };
	assert_int_equal(xvbd_stats_open(&src, sys, NULL, &st), 0);
	for (i = 0; i < 2; i++)
		assert_int_equal(xvbd_stats_sample(st, &s), 0);
	assert_int_equal(s.ndoms, 4);
	/* A domain that goes away leaves the sample and its VBDs too. */
	f.ndoms = 1;
	assert_int_equal(xvbd_stats_sample(st, &s), 0);
	assert_int_equal(s.ndoms, 1);
	assert_int_equal(s.nvbds, 0);

	xvbd_stats_sample_free(&s);
	xvbd_stats_close(st);
	xvbd_sysfs_close(sys);
	fake_fini(&f);
}

/*
 * A host with many domains, answering like tstack_stats.c's source over
 * xc_domain_getinfolist(): it asks the hypervisor for one entry more
 * than the caller can take, and a full answer means "maybe more": the
 * hint is a page's worth (35 entries of 112 bytes) first, then double.
 */
struct many {
	size_t ndoms;
	int calls;
};

static int many_domains(void *arg, struct xvbd_stats_dominfo *buf,
			size_t cap, size_t *n)
{
	struct many *m = arg;
	size_t want = cap + 1, i;

	m->calls++;
	if (m->ndoms >= want) {
		*n = want < 36 ? 35 : cap * 2;
		return -ENOSPC;
	}
	for (i = 0; i < m->ndoms; i++)
		buf[i] = (struct xvbd_stats_dominfo){
			.domid = (uint32_t)i, .cpu_ns = i, .vcpus_online = 1,
		};
	*n = m->ndoms;
	return 0;
}

static int many_vbds(void *arg, struct xvbd_stats_vbdinfo **out, size_t *n)
{
	(void)arg;
	*out = NULL;
	*n = 0;
	return 0;
}

static bool many_changed(void *arg)
{
	(void)arg;
	return false;
}

/* stats used to give up after three tries: 71 domains failed. */
static void test_sampler_many_domains(void **state)
{
	static const size_t counts[] = { 1, 70, 71, 1000, 32000 };
	struct xvbd_stats_sample s = { 0 };
	struct xvbd_sysfs *sys;
	struct fake f;
	size_t i;

	(void)state;
	fake_init(&f);
	sys = xvbd_sysfs_open(f.root);
	for (i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
		struct many m = { .ndoms = counts[i] };
		struct xvbd_stats_source src = {
			.domains = many_domains, .domain_name = fake_name,
			.vbds = many_vbds, .vbds_changed = many_changed,
			.arg = &m,
		};
		struct xvbd_stats *st = NULL;

		assert_int_equal(xvbd_stats_open(&src, sys, NULL, &st), 0);
		assert_int_equal(xvbd_stats_sample(st, &s), 0);
		assert_int_equal(s.ndoms, counts[i]);
		assert_int_equal(s.doms[counts[i] - 1].domid, counts[i] - 1);
		/* Growth is geometric: a handful of calls, not hundreds. */
		assert_true(m.calls <= 12);
		/* The next sample fits at once. */
		m.calls = 0;
		assert_int_equal(xvbd_stats_sample(st, &s), 0);
		assert_int_equal(m.calls, 1);
		xvbd_stats_close(st);
	}
	xvbd_stats_sample_free(&s);
	xvbd_sysfs_close(sys);
	fake_fini(&f);
}

/* A source that never stops asking for more ends with an error. */
static int greedy_domains(void *arg, struct xvbd_stats_dominfo *buf,
			  size_t cap, size_t *n)
{
	(void)arg;
	(void)buf;
	*n = cap + 1;
	return -ENOSPC;
}

static void test_sampler_greedy_source(void **state)
{
	struct xvbd_stats_sample s = { 0 };
	struct xvbd_stats_source src = {
		.domains = greedy_domains, .domain_name = fake_name,
		.vbds = many_vbds, .vbds_changed = many_changed,
	};
	struct xvbd_stats *st = NULL;
	struct xvbd_sysfs *sys;
	struct fake f;

	(void)state;
	fake_init(&f);
	sys = xvbd_sysfs_open(f.root);
	assert_int_equal(xvbd_stats_open(&src, sys, NULL, &st), 0);
	assert_int_equal(xvbd_stats_sample(st, &s), -E2BIG);
	xvbd_stats_sample_free(&s);
	xvbd_stats_close(st);
	xvbd_sysfs_close(sys);
	fake_fini(&f);
}

/* ---- rendering: text, JSON and CSV carry the same digits ---- */

static void fake_sample(struct xvbd_stats_sample *s,
			struct xvbd_stats_dom *doms, struct xvbd_stats_vbd *v)
{
	memset(s, 0, sizeof(*s));
	memset(doms, 0, 2 * sizeof(*doms));
	memset(v, 0, sizeof(*v));
	s->seq = 5;
	s->interval_ns = 1000123456;
	s->realtime_ns = 1700000000123456789ll;
	doms[0] = (struct xvbd_stats_dom){ .domid = 0, .name = "Domain-0",
					   .vcpus = 2, .mem_bytes = 1u << 30,
					   .cpu_ns = 12 * NS,
					   .cpu_iv = XVBD_IV_OK,
					   .cpu_pct = 3.14159 };
	doms[1] = (struct xvbd_stats_dom){ .domid = 7, .name = "we,ird\"q",
					   .vcpus = 1, .mem_bytes = 768u << 20,
					   .cpu_ns = 99 * NS,
					   .cpu_iv = XVBD_IV_IMPOSSIBLE };
	s->doms = doms;
	s->ndoms = 2;
	*v = (struct xvbd_stats_vbd){
		.domid = 7, .domain = "we,ird\"q", .vdev = "xvda",
		.devid = 51712,
		.raw = { .rd_req = 1000, .wr_req = 20, .rd_sect = 131072,
			 .wr_sect = 160, .f_req = 3, .ds_req = 1,
			 .oo_req = 2 },
		.iv = XVBD_IV_OK, .rd_req_s = 256.333, .wr_req_s = 1.005,
		.f_req_s = 0.5, .ds_req_s = 0, .oo_req_s = 0.25,
		.rd_bytes_s = 33554432.7, .wr_bytes_s = 4096,
		.has_blk = true, .blk_major = 7, .blk_minor = 0,
		.blk_iv = XVBD_IV_OK, .rd_lat_known = true, .rd_lat_ms = 2.5,
		.wr_lat_known = false, .queue_depth = 1.25,
	};
	s->vbds = v;
	s->nvbds = 1;
}

static char *render_to_string(enum xvbd_stats_fmt fmt,
			      const struct xvbd_stats_sample *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(xvbd_stats_render(f, fmt, s, true), 0);
	fclose(f);
	return buf;
}

/* The raw text of a JSON number (yajl keeps it), or "null". */
static const char *json_num(yajl_val root, const char *arr, size_t idx,
			    const char *key)
{
	const char *p1[] = { arr, NULL };
	const char *p2[] = { key, NULL };
	yajl_val a = yajl_tree_get(root, p1, yajl_t_array), o, v;

	assert_non_null(a);
	assert_true(idx < YAJL_GET_ARRAY(a)->len);
	o = YAJL_GET_ARRAY(a)->values[idx];
	v = yajl_tree_get(o, p2, yajl_t_any);
	assert_non_null(v);
	if (YAJL_IS_NULL(v))
		return "null";
	if (YAJL_IS_STRING(v))
		return YAJL_GET_STRING(v);
	assert_true(YAJL_IS_NUMBER(v));
	return YAJL_GET_NUMBER(v);
}

/* Split a CSV line (quoted cells allowed) into at most n cells. */
static size_t csv_split(char *line, char **cells, size_t n)
{
	size_t k = 0;
	char *p = line, *w;

	while (k < n) {
		cells[k++] = w = p;
		if (*p == '"') {
			p++;
			for (;;) {
				if (*p == '"' && p[1] == '"') {
					*w++ = '"';
					p += 2;
				} else if (*p == '"') {
					p++;
					break;
				} else {
					*w++ = *p++;
				}
			}
		} else {
			while (*p && *p != ',')
				*w++ = *p++;
		}
		if (*p != ',') {
			*w = '\0';
			break;
		}
		*w = '\0';
		p++;
	}
	return k;
}

static const char *csv_get(char **hdr, char **row, size_t n, const char *k)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(hdr[i], k))
			return row[i];
	fail_msg("no CSV column %s", k);
	return NULL;
}

/* Text table cell: column by header label, row by a cell it contains. */
static void text_cell(const char *text, const char *label, const char *row_key,
		      char *out, size_t len)
{
	char *copy = strdup(text), *line, *save = NULL;
	char *hdr[32];
	int col = -1, ncol = 0, i;

	assert_non_null(copy);
	out[0] = '\0';
	for (line = strtok_r(copy, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *cells[32], *tok, *s2 = NULL;
		int n = 0;

		for (tok = strtok_r(line, " ", &s2); tok && n < 32;
		     tok = strtok_r(NULL, " ", &s2))
			cells[n++] = tok;
		for (i = 0; i < n && col < 0; i++)
			if (!strcmp(cells[i], label)) {
				col = i;
				ncol = n;
				memcpy(hdr, cells, sizeof(*cells) * (size_t)n);
			}
		if (col >= 0 && n == ncol && strcmp(cells[0], hdr[0])) {
			for (i = 0; i < n; i++)
				if (!strcmp(cells[i], row_key))
					break;
			if (i < n) {
				snprintf(out, len, "%s", cells[col]);
				break;
			}
		}
	}
	free(copy);
}

static void test_render_same_numbers(void **state)
{
	struct xvbd_stats_sample s;
	struct xvbd_stats_dom doms[2];
	struct xvbd_stats_vbd v;
	char *text, *json, *csv, err[128], cell[64];
	char *lines[4], *hdr[64], *row[64], *save = NULL;
	size_t nh, nr, nl = 0;
	yajl_val root;
	double mb;

	(void)state;
	fake_sample(&s, doms, &v);
	text = render_to_string(XVBD_STATS_TEXT, &s);
	json = render_to_string(XVBD_STATS_JSON, &s);
	csv = render_to_string(XVBD_STATS_CSV, &s);

	/* JSON Lines: one line, one object. */
	assert_non_null(strchr(json, '\n'));
	assert_int_equal(strchr(json, '\n')[1], '\0');
	root = yajl_tree_parse(json, err, sizeof(err));
	assert_non_null(root);
	assert_string_equal(json_num(root, "vbds", 0, "read_iops"),
			    "256.33");
	assert_string_equal(json_num(root, "vbds", 0, "rd_sect"), "131072");
	assert_string_equal(json_num(root, "vbds", 0, "devid"), "51712");
	assert_string_equal(json_num(root, "vbds", 0, "read_lat_ms"), "2.500");
	assert_string_equal(json_num(root, "vbds", 0, "write_lat_ms"), "null");
	assert_string_equal(json_num(root, "vbds", 0, "domain"), "we,ird\"q");
	assert_string_equal(json_num(root, "domains", 1, "cpu_pct"), "null");
	assert_string_equal(json_num(root, "domains", 1, "cpu_interval"),
			    "impossible");
	assert_string_equal(json_num(root, "domains", 0, "cpu_ns"),
			    "12000000000");

	/* CSV: header + 3 rows. */
	for (lines[nl] = strtok_r(csv, "\n", &save); lines[nl] && nl < 3;
	     lines[++nl] = strtok_r(NULL, "\n", &save))
		;
	assert_int_equal(nl, 3);
	assert_non_null(lines[3]);
	nh = csv_split(lines[0], hdr, 64);
	nr = csv_split(lines[3], row, 64);
	assert_int_equal(nh, nr);
	assert_string_equal(csv_get(hdr, row, nh, "type"), "vbd");
	assert_string_equal(csv_get(hdr, row, nh, "domain"), "we,ird\"q");
	/* Same digits as JSON, field by field. */
	{
		static const char *const keys[] = {
			"rd_req", "wr_req", "rd_sect", "wr_sect", "f_req",
			"ds_req", "oo_req", "read_iops", "write_iops",
			"read_mb_per_s", "write_mb_per_s", "flush_iops",
			"discard_iops", "oo_req_per_s", "read_lat_ms",
			"queue_depth", "devid", "domid",
		};
		size_t i;

		for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
			assert_string_equal(csv_get(hdr, row, nh, keys[i]),
					    json_num(root, "vbds", 0,
						     keys[i]));
		assert_string_equal(csv_get(hdr, row, nh, "write_lat_ms"), "");
	}

	/* Text: the same rates; MB/s to 2 decimals, JSON to the byte. */
	text_cell(text, "RD/s", "xvda", cell, sizeof(cell));
	assert_string_equal(cell, json_num(root, "vbds", 0, "read_iops"));
	text_cell(text, "QDEPTH", "xvda", cell, sizeof(cell));
	assert_string_equal(cell, json_num(root, "vbds", 0, "queue_depth"));
	text_cell(text, "WR-LAT(ms)", "xvda", cell, sizeof(cell));
	assert_string_equal(cell, "-");
	text_cell(text, "RD-MB/s", "xvda", cell, sizeof(cell));
	mb = strtod(json_num(root, "vbds", 0, "read_mb_per_s"), NULL);
	snprintf(err, sizeof(err), "%.2f", mb);
	assert_string_equal(cell, err);
	text_cell(text, "CPU%", "Domain-0", cell, sizeof(cell));
	assert_string_equal(cell, json_num(root, "domains", 0, "cpu_pct"));

	yajl_tree_free(root);
	free(text);
	free(json);
	free(csv);
}

static void test_render_prometheus(void **state)
{
	struct xvbd_stats_sample s;
	struct xvbd_stats_dom doms[2];
	struct xvbd_stats_vbd v;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	fake_sample(&s, doms, &v);
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	xvbd_stats_prom_render(f, &s);
	fclose(f);
	assert_non_null(strstr(buf, "# TYPE xvbd_vbd_read_bytes_total "
				    "counter\n"));
	assert_non_null(strstr(buf, "xvbd_vbd_read_bytes_total{domid=\"7\","
				    "domain=\"we,ird\\\"q\",vdev=\"xvda\","
				    "devid=\"51712\"} 67108864\n"));
	assert_non_null(strstr(buf, "xvbd_domain_cpu_seconds_total{domid="
				    "\"0\",domain=\"Domain-0\"} "
				    "12.000000000\n"));
	/* An impossible CPU% is left out, not printed. */
	assert_null(strstr(buf, "xvbd_domain_cpu_percent{domid=\"7\""));
	assert_null(strstr(buf, "xvbd_vbd_write_latency_seconds{"));
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_delta),
		cmocka_unit_test(test_per_s),
		cmocka_unit_test(test_cpu_pct),
		cmocka_unit_test(test_vbd_rates),
		cmocka_unit_test(test_blk_rates),
		cmocka_unit_test(test_parse_counter),
		cmocka_unit_test(test_parse_blkstat),
		cmocka_unit_test(test_parse_devnum),
		cmocka_unit_test(test_parse_proc),
		cmocka_unit_test(test_req_sizes),
		cmocka_unit_test(test_sampler_rings),
		cmocka_unit_test(test_sampler),
		cmocka_unit_test(test_sampler_connect_before_first),
		cmocka_unit_test(test_sampler_reattach),
		cmocka_unit_test(test_sampler_domains),
		cmocka_unit_test(test_sampler_long_name),
		cmocka_unit_test(test_sampler_many_domains),
		cmocka_unit_test(test_sampler_greedy_source),
		cmocka_unit_test(test_render_same_numbers),
		cmocka_unit_test(test_render_prometheus),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
