/*
 * Unit tests: dom0 cache modes (attach --cache): the option's values, the
 * hotplug program's two names, the read-back from a loop device's dio
 * attribute on a fake sysfs tree, and which script (and mode) a disk gets.
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

#include "xvbd/vbd/attach_script.h"
#include "xvbd/dom0/cache.h"

static void test_parse(void **state)
{
	enum xvbd_cache c = XVBD_CACHE_NA;

	(void)state;
	assert_int_equal(xvbd_cache_parse("host", &c), 0);
	assert_int_equal(c, XVBD_CACHE_HOST);
	assert_int_equal(xvbd_cache_parse("none", &c), 0);
	assert_int_equal(c, XVBD_CACHE_NONE);
	/* n/a is what xvbd reports, never what it is asked for */
	assert_int_equal(xvbd_cache_parse("n/a", &c), -EINVAL);
	assert_int_equal(xvbd_cache_parse("", &c), -EINVAL);
	assert_int_equal(xvbd_cache_parse("Host", &c), -EINVAL);
	assert_int_equal(xvbd_cache_parse("none ", &c), -EINVAL);
	assert_int_equal(xvbd_cache_parse("writeback", &c), -EINVAL);
	assert_int_equal(c, XVBD_CACHE_NONE);
}

static void test_name(void **state)
{
	(void)state;
	assert_string_equal(xvbd_cache_name(XVBD_CACHE_HOST), "host");
	assert_string_equal(xvbd_cache_name(XVBD_CACHE_NONE), "none");
	assert_string_equal(xvbd_cache_name(XVBD_CACHE_NA), "n/a");
	assert_string_equal(xvbd_cache_name((enum xvbd_cache)42), "n/a");
}

static void test_of_script(void **state)
{
	(void)state;
	assert_int_equal(xvbd_cache_of_script("/etc/xen/scripts/xvbd-block"),
			 XVBD_CACHE_HOST);
	assert_int_equal(xvbd_cache_of_script(
		"/etc/xen/scripts/xvbd-block-direct"), XVBD_CACHE_NONE);
	assert_int_equal(xvbd_cache_of_script("xvbd-block-direct"),
			 XVBD_CACHE_NONE);
	assert_int_equal(xvbd_cache_of_script("./xvbd-block"),
			 XVBD_CACHE_HOST);
	assert_int_equal(xvbd_cache_of_script("/etc/xen/scripts/block"),
			 XVBD_CACHE_NA);
	assert_int_equal(xvbd_cache_of_script("/x/xvbd-block-direct/sh"),
			 XVBD_CACHE_NA);
	assert_int_equal(xvbd_cache_of_script("xvbd-block-directx"),
			 XVBD_CACHE_NA);
	assert_int_equal(xvbd_cache_of_script(""), XVBD_CACHE_NA);
	assert_int_equal(xvbd_cache_of_script(NULL), XVBD_CACHE_NA);
}

/* ---- read-back on a fake sysfs tree ---- */

struct fake {
	char root[64];
};

static void put(const struct fake *f, const char *rel, const char *text)
{
	char path[256], *p;
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", f->root, rel);
	for (p = path + strlen(f->root) + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		mkdir(path, 0755);
		*p = '/';
	}
	fp = fopen(path, "w");
	assert_non_null(fp);
	fputs(text, fp);
	fclose(fp);
}

static void test_of_device(void **state)
{
	struct xvbd_sysfs *sys;
	struct fake f;
	char cmd[128];

	(void)state;
	snprintf(f.root, sizeof(f.root), "/tmp/xvbd-test-cache.XXXXXX");
	assert_non_null(mkdtemp(f.root));
	put(&f, "dev/block/7:0/loop/dio", "0\n");
	put(&f, "dev/block/7:1/loop/dio", "1\n");
	put(&f, "dev/block/7:2/loop/dio", "2\n");
	put(&f, "dev/block/254:0/stat", "0 0 0 0 0 0 0 0 0 0 0\n");
	/* minor 0x10 (16): physical-device is hex */
	put(&f, "dev/block/7:16/loop/dio", "1\n");
	sys = xvbd_sysfs_open(f.root);
	assert_non_null(sys);

	assert_int_equal(xvbd_cache_of_device(sys, "7:0"), XVBD_CACHE_HOST);
	assert_int_equal(xvbd_cache_of_device(sys, "7:1"), XVBD_CACHE_NONE);
	assert_int_equal(xvbd_cache_of_device(sys, "7:10"), XVBD_CACHE_NONE);
	/* a value the kernel never writes: not trusted either way */
	assert_int_equal(xvbd_cache_of_device(sys, "7:2"), XVBD_CACHE_NA);
	/* a real disk (no loop group), an unbound minor, no key */
	assert_int_equal(xvbd_cache_of_device(sys, "fe:0"), XVBD_CACHE_NA);
	assert_int_equal(xvbd_cache_of_device(sys, "7:3"), XVBD_CACHE_NA);
	assert_int_equal(xvbd_cache_of_device(sys, NULL), XVBD_CACHE_NA);
	assert_int_equal(xvbd_cache_of_device(NULL, "7:1"), XVBD_CACHE_NA);
	/* not a device number: never a path into sysfs */
	assert_int_equal(xvbd_cache_of_device(sys, "7:1/../../7:1"),
			 XVBD_CACHE_NA);
	assert_int_equal(xvbd_cache_of_device(sys, "/dev/loop1"),
			 XVBD_CACHE_NA);
	assert_int_equal(xvbd_cache_of_device(sys, ""), XVBD_CACHE_NA);
	assert_int_equal(xvbd_cache_of_device(sys, "7:"), XVBD_CACHE_NA);

	xvbd_sysfs_close(sys);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", f.root);
	assert_int_equal(system(cmd), 0);
}

static void test_check_direct(void **state)
{
	char why[128];

	(void)state;
	why[0] = '\0';
	assert_int_equal(xvbd_cache_check_direct("/nonexistent/x.img", why,
						 sizeof(why)), -ENOENT);
	assert_non_null(strstr(why, "No such file"));
	/* a character device has no direct I/O: open(2) says EINVAL */
	assert_int_equal(xvbd_cache_check_direct("/dev/null", why,
						 sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "direct I/O"));
}

/* ---- which hotplug script ---- */

static struct xvbd_tstack_disk_info raw_file(const char *target)
{
	struct xvbd_tstack_disk_info info = {
		.vdev = "xvdb", .target = target, .format = "raw",
		.backend = "unknown", .backend_dom0 = true, .readwrite = true,
	};
	return info;
}

static void test_choose_host(void **state)
{
	struct xvbd_tstack_disk_info info = raw_file("/scratch/a.img");
	struct xvbd_script_choice ch;
	const char *hint;
	char why[256];
	int installed = 1;

	(void)state;
	assert_int_equal(xvbd_script_choose(&info, true, XVBD_CACHE_HOST,
					    &installed, &ch, why, sizeof(why),
					    &hint), 0);
	assert_true(ch.ours);
	assert_string_equal(ch.script,
			    XVBD_XEN_SCRIPT_DIR "/" XVBD_BLOCK_SCRIPT);
	assert_int_equal(ch.cache, XVBD_CACHE_HOST);

	/* not installed: Xen's block script, a buffered loop too */
	installed = 0;
	assert_int_equal(xvbd_script_choose(&info, true, XVBD_CACHE_HOST,
					    &installed, &ch, why, sizeof(why),
					    &hint), 0);
	assert_false(ch.ours);
	assert_string_equal(ch.script, "block");
	assert_int_equal(ch.cache, XVBD_CACHE_HOST);

	/* a block device: no loop at all */
	installed = 1;
	assert_int_equal(xvbd_script_choose(&info, false, XVBD_CACHE_HOST,
					    &installed, &ch, why, sizeof(why),
					    &hint), 0);
	assert_false(ch.ours);
	assert_int_equal(ch.cache, XVBD_CACHE_NA);

	/* the user's own script: kept, mode unknown */
	info.script = "iscsi";
	assert_int_equal(xvbd_script_choose(&info, true, XVBD_CACHE_HOST,
					    &installed, &ch, why, sizeof(why),
					    &hint), 0);
	assert_false(ch.ours);
	assert_string_equal(ch.script, "iscsi");
	assert_int_equal(ch.cache, XVBD_CACHE_NA);

	/* qcow2, cdroms, driver domains: libxl's choice */
	info = raw_file("/scratch/a.qcow2");
	info.format = "qcow2";
	assert_int_equal(xvbd_script_choose(&info, true, XVBD_CACHE_HOST,
					    &installed, &ch, why, sizeof(why),
					    &hint), 0);
	assert_false(ch.ours);
	info = raw_file("/scratch/a.iso");
	info.is_cdrom = true;
	assert_int_equal(xvbd_script_choose(&info, true, XVBD_CACHE_HOST,
					    &installed, &ch, why, sizeof(why),
					    &hint), 0);
	assert_false(ch.ours);
	info = raw_file("/scratch/a.img");
	info.backend_dom0 = false;
	assert_int_equal(xvbd_script_choose(&info, true, XVBD_CACHE_HOST,
					    &installed, &ch, why, sizeof(why),
					    &hint), 0);
	assert_false(ch.ours);
}

static void test_choose_none(void **state)
{
	struct xvbd_tstack_disk_info info = raw_file("/nonexistent/a.img");
	struct xvbd_script_choice ch;
	const char *hint;
	char why[256];
	int installed = 1;

	(void)state;
	/* an image still to be created (-N): its file system is checked
	 * once it exists */
	assert_int_equal(xvbd_script_choose(&info, true, XVBD_CACHE_NONE,
					    &installed, &ch, why, sizeof(why),
					    &hint), 0);
	assert_true(ch.ours);
	assert_string_equal(ch.script,
			    XVBD_XEN_SCRIPT_DIR "/" XVBD_BLOCK_DIRECT_SCRIPT);
	assert_int_equal(ch.cache, XVBD_CACHE_NONE);

	/* xvbd-block-direct missing: Xen's block script cannot do it */
	installed = 0;
	assert_int_equal(xvbd_script_choose(&info, true, XVBD_CACHE_NONE,
					    &installed, &ch, why, sizeof(why),
					    &hint), -EINVAL);
	assert_non_null(strstr(why, "--cache none: "));
	assert_non_null(strstr(why, XVBD_BLOCK_DIRECT_SCRIPT
				" is not installed"));
	assert_non_null(hint);

	/* a block device */
	installed = 1;
	assert_int_equal(xvbd_script_choose(&info, false, XVBD_CACHE_NONE,
					    &installed, &ch, why, sizeof(why),
					    &hint), -EINVAL);
	assert_non_null(strstr(why, "not a regular file"));

	/* a script of the user's */
	info.script = "block";
	assert_int_equal(xvbd_script_choose(&info, true, XVBD_CACHE_NONE,
					    &installed, &ch, why, sizeof(why),
					    &hint), -EINVAL);
	assert_non_null(strstr(why, "its own hotplug script"));

	/* an existing target without O_DIRECT */
	info = raw_file("/dev/null");
	assert_int_equal(xvbd_script_choose(&info, true, XVBD_CACHE_NONE,
					    &installed, &ch, why, sizeof(why),
					    &hint), -EINVAL);
	assert_non_null(strstr(why, "cannot do direct I/O"));
	assert_non_null(strstr(hint, "--cache host"));
}

/* A share's image needs xvbd's program: what is asked, and its name. */
static void test_script_installed(void **state)
{
	int installed = 0;

	(void)state;
	assert_false(xvbd_script_installed(XVBD_CACHE_HOST, &installed));
	installed = 1;
	assert_true(xvbd_script_installed(XVBD_CACHE_NONE, &installed));
	assert_string_equal(xvbd_script_path(XVBD_CACHE_HOST),
			    XVBD_XEN_SCRIPT_DIR "/xvbd-block");
	assert_string_equal(xvbd_script_path(XVBD_CACHE_NONE),
			    XVBD_XEN_SCRIPT_DIR "/xvbd-block-direct");
	/* not looked at yet: looked at (this host has no Xen scripts) */
	installed = -1;
	xvbd_script_installed(XVBD_CACHE_HOST, &installed);
	assert_true(installed == 0 || installed == 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_name),
		cmocka_unit_test(test_of_script),
		cmocka_unit_test(test_of_device),
		cmocka_unit_test(test_check_direct),
		cmocka_unit_test(test_choose_host),
		cmocka_unit_test(test_choose_none),
		cmocka_unit_test(test_script_installed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
