/*
 * Unit tests: a backing device's queue attributes and the filesystem
 * type of a device (sysfs.c through a fake /sys and /proc tree,
 * sysfs_parse.c on its own): the whole disk's queue for a partition,
 * every unknown attribute with its own reason, hostile text refused.
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

#include <cmocka.h>

#include "xvbd/dom0/sysfs.h"

static char root[64];

static void put(const char *rel, const char *text)
{
	char path[256], *p;
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (p = path + strlen(root) + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		mkdir(path, 0700);
		*p = '/';
	}
	fp = fopen(path, "w");
	assert_non_null(fp);
	fputs(text, fp);
	fclose(fp);
}

static int setup(void **state)
{
	(void)state;
	snprintf(root, sizeof(root), "/tmp/xvbd-test-queue.XXXXXX");
	return mkdtemp(root) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd);
}

static void test_queue(void **state)
{
	struct xvbd_sysfs *sys;
	struct xvbd_blk_queue q;

	(void)state;
	put("dev/block/8:0/queue/logical_block_size", "512\n");
	put("dev/block/8:0/queue/physical_block_size", "4096\n");
	put("dev/block/8:0/queue/rotational", "1\n");
	put("dev/block/8:0/queue/scheduler", "none [mq-deadline] kyber\n");
	put("dev/block/259:0/queue/logical_block_size", "4096\n");
	put("dev/block/259:0/queue/rotational", "7\n");
	put("dev/block/259:0/queue/scheduler", "none\n");
	sys = xvbd_sysfs_open(root);
	assert_non_null(sys);
	xvbd_sysfs_blk_queue(sys, 8, 0, &q);
	assert_int_equal(q.lbs_rc, 0);
	assert_int_equal(q.logical_block_size, 512);
	assert_int_equal(q.physical_block_size, 4096);
	assert_int_equal(q.rot_rc, 0);
	assert_true(q.rotational);
	assert_string_equal(q.scheduler, "mq-deadline");
	/* each attribute on its own: missing, out of range, bare name */
	xvbd_sysfs_blk_queue(sys, 259, 0, &q);
	assert_int_equal(q.lbs_rc, 0);
	assert_int_equal(q.pbs_rc, -ENOENT);
	assert_int_equal(q.rot_rc, -EINVAL);
	assert_string_equal(q.scheduler, "none");
	/* no such device */
	xvbd_sysfs_blk_queue(sys, 8, 16, &q);
	assert_int_equal(q.lbs_rc, -ENOENT);
	assert_int_equal(q.sched_rc, -ENOENT);
	xvbd_sysfs_blk_queue(sys, 0x1000, 0, &q);
	assert_int_equal(q.lbs_rc, -ERANGE);
	xvbd_sysfs_close(sys);
}

static void test_scheduler_text(void **state)
{
	char out[32];

	(void)state;
	assert_int_equal(xvbd_sysfs_parse_scheduler("[bfq] none\n", 11, out,
						    sizeof(out)), 0);
	assert_string_equal(out, "bfq");
	assert_int_equal(xvbd_sysfs_parse_scheduler("[x y] none", 10, out,
						    sizeof(out)), -EINVAL);
	assert_int_equal(xvbd_sysfs_parse_scheduler("[bfq none", 9, out,
						    sizeof(out)), -EINVAL);
	assert_int_equal(xvbd_sysfs_parse_scheduler("\n", 1, out,
						    sizeof(out)), -EINVAL);
	assert_int_equal(xvbd_sysfs_parse_scheduler("[a\033]", 4, out,
						    sizeof(out)), -EINVAL);
	assert_int_equal(xvbd_sysfs_parse_scheduler(
		"[aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa]", 42, out,
		sizeof(out)), -EINVAL);
}

static const char mountinfo[] =
	"22 1 0:21 / /proc rw,nosuid shared:12 - proc proc rw\n"
	"28 1 8:2 / / rw,relatime shared:1 - ext4 /dev/sda2 rw\n"
	"40 28 8:3 / /var/lib/xen\\040images rw shared:20 master:3 - xfs "
	"/dev/sda3 rw\n"
	"41 28 0:45 / /mnt/nfs rw - nfs4 srv:/x rw\n"
	"42 28 8:5 / /odd rw - ext4\xff /dev/sda5 rw\n"
	"43 28 8:6 / /nosep rw ext4 /dev/sda6 rw";

static void test_mountinfo_text(void **state)
{
	size_t len = sizeof(mountinfo) - 1;
	char out[32];

	(void)state;
	assert_int_equal(xvbd_proc_parse_mountinfo_fstype(mountinfo, len, 8, 2,
							  out, sizeof(out)),
			 0);
	assert_string_equal(out, "ext4");
	assert_int_equal(xvbd_proc_parse_mountinfo_fstype(mountinfo, len, 8, 3,
							  out, sizeof(out)),
			 0);
	assert_string_equal(out, "xfs");
	assert_int_equal(xvbd_proc_parse_mountinfo_fstype(mountinfo, len, 0,
							  45, out,
							  sizeof(out)), 0);
	assert_string_equal(out, "nfs4");
	assert_int_equal(xvbd_proc_parse_mountinfo_fstype(mountinfo, len, 8, 5,
							  out, sizeof(out)),
			 -EINVAL);
	assert_int_equal(xvbd_proc_parse_mountinfo_fstype(mountinfo, len, 8, 6,
							  out, sizeof(out)),
			 -EINVAL);
	assert_int_equal(xvbd_proc_parse_mountinfo_fstype(mountinfo, len, 8, 1,
							  out, sizeof(out)),
			 -ENOENT);
	/* "8:2" must not match "8:21" or "18:2" */
	assert_int_equal(xvbd_proc_parse_mountinfo_fstype(
		"1 1 8:21 / / rw - ext4 x rw\n1 1 18:2 / / rw - xfs x rw", 53,
		8, 2, out, sizeof(out)), -ENOENT);
}

static void test_mountinfo_file(void **state)
{
	struct xvbd_sysfs *sys;
	char out[32];

	(void)state;
	put("proc/self/mountinfo", mountinfo);
	sys = xvbd_sysfs_open(root);
	assert_non_null(sys);
	assert_int_equal(xvbd_proc_mount_fstype(sys, 8, 3, out, sizeof(out)),
			 0);
	assert_string_equal(out, "xfs");
	assert_int_equal(xvbd_proc_mount_fstype(sys, 9, 9, out, sizeof(out)),
			 -ENOENT);
	xvbd_sysfs_close(sys);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_queue),
		cmocka_unit_test(test_scheduler_text),
		cmocka_unit_test(test_mountinfo_text),
		cmocka_unit_test(test_mountinfo_file),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
