/* Unit tests: xenstore paths.  The parsers take what dom0 trusts from
 * elsewhere (libxl's record of a disk's backend, a hotplug script's
 * XENBUS_PATH): only the exact canonical form may pass. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "xvbd/xen/xs.h"

static void test_backend_path(void **state)
{
	struct xvbd_xs_be_path p;
	char *back;

	(void)state;
	assert_int_equal(xvbd_xs_parse_backend_path(
		"/local/domain/0/backend/vbd/7/51712", &p), 0);
	assert_int_equal(p.be_domid, 0);
	assert_string_equal(p.kind, "vbd");
	assert_int_equal(p.fe_domid, 7);
	assert_int_equal(p.devid, 51712);
	back = xvbd_xs_path_backend(&p);
	assert_string_equal(back, "/local/domain/0/backend/vbd/7/51712");
	free(back);
	assert_int_equal(xvbd_xs_parse_backend_path(
		"/local/domain/3/backend/qdisk/12/768", &p), 0);
	assert_int_equal(p.be_domid, 3);
	assert_string_equal(p.kind, "qdisk");
}

static void test_backend_path_refused(void **state)
{
	static const char *const bad[] = {
		"/local/domain/0/backend/vif/7/0",	/* not a disk */
		"/local/domain/0/backend/vbd/7",	/* no devid */
		"/local/domain/0/backend/vbd/7/51712/",
		"/local/domain/0/backend/vbd/7/51712/state",
		"/local/domain/0/backend/vbd/07/51712",	/* not canonical */
		"/local/domain/0/backend/vbd/+7/51712",
		"/local/domain/0/backend/vbd/ 7/51712",
		"/local/domain/0/backend/vbd/-1/51712",
		"/local/domain/0/backend/vbd/7/99999999999",
		"/local/domain/0/backend/../backend/vbd/7/51712",
		"local/domain/0/backend/vbd/7/51712",
		"/local/domain/7/device/vbd/51712",
		"",
	};
	struct xvbd_xs_be_path p;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(xvbd_xs_parse_backend_path(bad[i], &p),
				 -EINVAL);
}

static void test_hotplug_path(void **state)
{
	struct xvbd_xs_be_path p = { .be_domid = 99 };
	char *key;

	(void)state;
	assert_int_equal(xvbd_xs_parse_hotplug_path("backend/vbd/5/51728",
						    &p), 0);
	assert_int_equal(p.be_domid, 0);
	assert_string_equal(p.kind, "vbd");
	assert_int_equal(p.fe_domid, 5);
	assert_int_equal(p.devid, 51728);
	key = xvbd_xs_path_hotplug_key(&p, "physical-device");
	assert_string_equal(key, "backend/vbd/5/51728/physical-device");
	free(key);
	/* what an environment variable must never steer xvbd-block to */
	assert_int_equal(xvbd_xs_parse_hotplug_path(
		"/local/domain/0/backend/vbd/5/51728", &p), -EINVAL);
	assert_int_equal(xvbd_xs_parse_hotplug_path("backend/vbd/5/51728/x",
						    &p), -EINVAL);
	assert_int_equal(xvbd_xs_parse_hotplug_path("backend/vif/5/0", &p),
			 -EINVAL);
	assert_int_equal(xvbd_xs_parse_hotplug_path("../backend/vbd/5/1",
						    &p), -EINVAL);
	assert_int_equal(xvbd_xs_parse_hotplug_path("backend/vbd/05/51728",
						    &p), -EINVAL);
	assert_int_equal(xvbd_xs_parse_hotplug_path("", &p), -EINVAL);
}

static void test_paths(void **state)
{
	struct xvbd_xs_be_path p = {
		.be_domid = 0, .kind = "vbd", .fe_domid = 4, .devid = 768,
	};
	char *s;

	(void)state;
	s = xvbd_xs_path_frontend_vbd(4, 768);
	assert_string_equal(s, "/local/domain/4/device/vbd/768");
	free(s);
	s = xvbd_xs_path_libxl_vbd(4, 768);
	assert_string_equal(s, "/libxl/4/device/vbd/768");
	free(s);
	s = xvbd_xs_path_backend_key(&p, "state");
	assert_string_equal(s, "/local/domain/0/backend/vbd/4/768/state");
	free(s);
	s = xvbd_xs_path_backend_error(&p);
	assert_string_equal(s,
		"/local/domain/0/error/backend/vbd/4/768/error");
	free(s);
	s = xvbd_xs_path_backend_root(0, "vbd");
	assert_string_equal(s, "/local/domain/0/backend/vbd");
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_backend_path),
		cmocka_unit_test(test_backend_path_refused),
		cmocka_unit_test(test_hotplug_path),
		cmocka_unit_test(test_paths),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
