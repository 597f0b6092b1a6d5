/*
 * Unit tests: xen_blkback module parameters on a fake sysfs tree, bound
 * devices, value checks, the modprobe.d file, and spawn.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "xvbd/dom0/modparam.h"
#include "xvbd/base/spawn.h"

struct tree {
	char dir[64];
};

static void put(const char *dir, const char *name, const char *text,
		mode_t mode)
{
	char path[256];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	assert_int_equal(chmod(path, mode), 0);
}

static char *slurp(const char *path)
{
	static char buf[1024];
	ssize_t n;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return NULL;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n < 0 ? 0 : n] = '\0';
	return buf;
}

static int setup(void **state)
{
	struct tree *t = calloc(1, sizeof(*t));

	snprintf(t->dir, sizeof(t->dir), "/tmp/xvbd-test-mp-XXXXXX");
	if (!mkdtemp(t->dir))
		return -1;
	*state = t;
	return 0;
}

static int teardown(void **state)
{
	struct tree *t = *state;
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", t->dir);
	if (system(cmd))
		return -1;
	free(t);
	return 0;
}

static void test_list(void **state)
{
	struct tree *t = *state;
	struct xvbd_modparams mp = { 0 };
	uint64_t v;
	bool b;
	char sub[128];

	put(t->dir, "max_ring_page_order", "4\n", 0444);
	put(t->dir, "max_queues", "2\n", 0644);
	put(t->dir, "feature_persistent", "Y\n", 0644);
	put(t->dir, "Bad Name", "x\n", 0644);
	snprintf(sub, sizeof(sub), "%s/subdir", t->dir);
	assert_int_equal(mkdir(sub, 0755), 0);
	assert_int_equal(xvbd_modparam_list_at(t->dir, &mp), 0);
	assert_int_equal(mp.n, 3);
	assert_string_equal(mp.items[0].name, "feature_persistent");
	assert_string_equal(mp.items[1].name, "max_queues");
	assert_string_equal(mp.items[2].name, "max_ring_page_order");
	assert_string_equal(mp.items[2].value, "4");
	assert_false(mp.items[2].writable);
	assert_true(mp.items[1].writable);
	assert_int_equal(xvbd_modparam_get_uint(&mp, "max_ring_page_order",
						&v), 0);
	assert_int_equal(v, 4);
	assert_int_equal(xvbd_modparam_get_bool(&mp, "feature_persistent",
						&b), 0);
	assert_true(b);
	assert_int_equal(xvbd_modparam_get_uint(&mp, "nope", &v), -ENOENT);
	assert_int_equal(xvbd_modparam_get_bool(&mp, "max_queues", &b),
			 -EINVAL);
	xvbd_modparams_free(&mp);
	assert_int_equal(xvbd_modparam_list_at("/nonexistent/xvbd", &mp),
			 -ENOENT);
}

static void test_check(void **state)
{
	char canon[32];
	size_t i;

	(void)state;
	assert_int_equal(xvbd_modparam_check("max_ring_page_order", "3", canon,
					     sizeof(canon)), 0);
	assert_string_equal(canon, "3");
	assert_int_equal(xvbd_modparam_check("max_ring_page_order", "5", canon,
					     sizeof(canon)), -ERANGE);
	assert_int_equal(xvbd_modparam_check("max_queues", "01", canon,
					     sizeof(canon)), -EINVAL);
	assert_int_equal(xvbd_modparam_check("max_queues", "-1", canon,
					     sizeof(canon)), -EINVAL);
	assert_int_equal(xvbd_modparam_check("feature_persistent", "y", canon,
					     sizeof(canon)), 0);
	assert_string_equal(canon, "Y");
	assert_int_equal(xvbd_modparam_check("feature_persistent", "0", canon,
					     sizeof(canon)), 0);
	assert_string_equal(canon, "N");
	assert_int_equal(xvbd_modparam_check("feature_persistent", "maybe",
					     canon, sizeof(canon)), -EINVAL);
	assert_int_equal(xvbd_modparam_check("no_such", "1", canon,
					     sizeof(canon)), -ENOENT);
	for (i = 0; i < xvbd_blkback_nparams; i++)
		assert_ptr_equal(xvbd_modparam_info(
				 xvbd_blkback_params[i].name),
				 &xvbd_blkback_params[i]);
}

static void test_write(void **state)
{
	struct tree *t = *state;
	char path[128];

	put(t->dir, "max_buffer_pages", "1024\n", 0644);
	put(t->dir, "max_ring_page_order", "4\n", 0444);
	assert_int_equal(xvbd_modparam_write_at(t->dir, "max_buffer_pages",
						"512"), 0);
	snprintf(path, sizeof(path), "%s/max_buffer_pages", t->dir);
	assert_string_equal(slurp(path), "512");
	/* root could write a 0444 file: the mode is what counts */
	assert_int_equal(xvbd_modparam_write_at(t->dir, "max_ring_page_order",
						"1"), -EACCES);
	snprintf(path, sizeof(path), "%s/max_ring_page_order", t->dir);
	assert_string_equal(slurp(path), "4\n");
	assert_int_equal(xvbd_modparam_write_at(t->dir, "../etc", "1"),
			 -EINVAL);
	assert_int_equal(xvbd_modparam_write_at(t->dir, "absent", "1"),
			 -ENOENT);
}

static void test_bound(void **state)
{
	static const char *const entries[] = {
		"bind", "unbind", "uevent", "module", "vbd-12-51728",
		"vbd-2-51712", "vbd-1-51712", "vbd-x-1", "vbd-1-", "vbd-01-2",
	};
	struct tree *t = *state;
	uint32_t domid, devid;
	char **names = NULL;
	size_t n = 0, i;

	for (i = 0; i < sizeof(entries) / sizeof(entries[0]); i++)
		put(t->dir, entries[i], "", 0200);
	assert_int_equal(xvbd_modparam_bound_devices_at(t->dir, &names, &n),
			 0);
	assert_int_equal(n, 3);
	assert_string_equal(names[0], "vbd-1-51712");
	assert_string_equal(names[1], "vbd-2-51712");
	assert_string_equal(names[2], "vbd-12-51728");
	xvbd_modparam_names_free(names, n);
	assert_int_equal(xvbd_modparam_parse_vbd_name("vbd-12-51728", &domid,
						      &devid), 0);
	assert_int_equal(domid, 12);
	assert_int_equal(devid, 51728);
	assert_int_equal(xvbd_modparam_parse_vbd_name("vif-1-0", &domid,
						      &devid), -EINVAL);
}

static void test_persist(void **state)
{
	struct tree *t = *state;
	char *first[] = { "max_ring_page_order=2", "feature_persistent=N",
			  NULL };
	char *second[] = { "max_ring_page_order=3", "max_queues=1", NULL };
	char *evil[] = { "max_queues=1;reboot", NULL };
	char *path = NULL, want[256];

	assert_int_equal(xvbd_modparam_persist_at(t->dir, "xen_blkback", first,
						  &path), 0);
	snprintf(want, sizeof(want), "%s/xvbd-xen_blkback.conf", t->dir);
	assert_string_equal(path, want);
	free(path);
	assert_non_null(strstr(slurp(want), "\noptions xen_blkback "
			       "max_ring_page_order=2 feature_persistent=N\n"));
	/* kept, replaced, added */
	assert_int_equal(xvbd_modparam_persist_at(t->dir, "xen_blkback",
						  second, &path), 0);
	free(path);
	assert_non_null(strstr(slurp(want), "\noptions xen_blkback "
			       "max_ring_page_order=3 feature_persistent=N "
			       "max_queues=1\n"));
	assert_int_equal(xvbd_modparam_persist_at(t->dir, "xen_blkback", evil,
						  &path), -EINVAL);
	assert_int_equal(xvbd_modparam_persist_at(t->dir, "../x", first,
						  &path), -EINVAL);
}

static void test_spawn(void **state)
{
	char *yes[] = { "true", NULL };
	char *no[] = { "false", NULL };
	char *missing[] = { "/nonexistent/xvbd-no-such-program", NULL };
	int status = -1;

	(void)state;
	assert_int_equal(xvbd_spawn(yes, &status), 0);
	assert_int_equal(status, 0);
	assert_int_equal(xvbd_spawn(no, &status), 0);
	assert_int_equal(status, 1);
	assert_int_equal(xvbd_spawn(missing, &status), -ENOENT);
}

static void test_spawn_capture(void **state)
{
	char *both[] = { "/bin/sh", "-c", "echo out; echo err >&2; exit 3",
			 NULL };
	char *env[] = { "/bin/sh", "-c", "echo \"${HOME:-}|$LC_ALL\"", NULL };
	char *slow[] = { "/bin/sh", "-c", "echo started; exec sleep 10",
			 NULL };
	char *chatty[] = { "/bin/sh", "-c", "printf abcdefghij", NULL };
	char *flood[] = { "/bin/sh", "-c", "echo first line; "
			  "head -c 200000 /dev/zero | tr '\\0' x", NULL };
	char *missing[] = { "/nonexistent/xvbd-no-such-program", NULL };
	char *yes[] = { "true", NULL };
	char *const envp[] = { "LC_ALL=C", NULL };
	char out[64], small[8];
	int status = -1;
	time_t t0;

	(void)state;
	assert_int_equal(xvbd_spawn_capture(both, envp, 5000, out,
					    sizeof(out), &status), 0);
	assert_int_equal(status, 3);
	assert_string_equal(out, "out\nerr\n");
	/* exactly the given environment */
	assert_int_equal(xvbd_spawn_capture(env, envp, 5000, out,
					    sizeof(out), &status), 0);
	assert_string_equal(out, "|C\n");
	/* no environment given: the caller's, and a PATH search */
	assert_int_equal(xvbd_spawn_capture(yes, NULL, 5000, out,
					    sizeof(out), &status), 0);
	assert_int_equal(status, 0);
	/* more than fits: the first part (a mount helper's error) */
	assert_int_equal(xvbd_spawn_capture(chatty, envp, 5000, small,
					    sizeof(small), &status), 0);
	assert_string_equal(small, "abcdefg");
	/* far more than a pipe holds: read to the end, the start kept */
	assert_int_equal(xvbd_spawn_capture(flood, envp, 5000, out,
					    sizeof(out), &status), 0);
	assert_int_equal(status, 0);
	assert_int_equal(strlen(out), sizeof(out) - 1);
	assert_memory_equal(out, "first line\n", 11);
	assert_int_equal(strspn(out + 11, "x"), sizeof(out) - 1 - 11);
	/*
	 * 2 s for the shell to say "started" (make check runs this at nice
	 * 19 beside the lab), far less than the 10 s it then sleeps.
	 */
	t0 = time(NULL);
	assert_int_equal(xvbd_spawn_capture(slow, envp, 2000, out,
					    sizeof(out), &status), -ETIMEDOUT);
	assert_true(time(NULL) - t0 < 8);
	assert_string_equal(out, "started\n");
	assert_int_equal(xvbd_spawn_capture(missing, envp, 5000, out,
					    sizeof(out), &status), -ENOENT);
	assert_string_equal(out, "");
}

#define TREE_TEST(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		TREE_TEST(test_list),
		cmocka_unit_test(test_check),
		TREE_TEST(test_write),
		TREE_TEST(test_bound),
		TREE_TEST(test_persist),
		cmocka_unit_test(test_spawn),
		cmocka_unit_test(test_spawn_capture),
	};

	return cmocka_run_group_tests_name("modparam", tests, NULL, NULL);
}
