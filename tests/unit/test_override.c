/*
 * Unit tests: per-VBD overrides (parse, validate against model and
 * backend, plan, verify), ring memory cost, guest command line, and the
 * xl config rewrite.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "xvbd/vbd/override.h"

static char why[320];

static int parse(struct xvbd_ovr_set *set, const char *spec)
{
	return xvbd_override_parse_vbd(set, spec, why, sizeof(why));
}

static void test_key_table(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < XVBD_OVR_NKEYS; i++) {
		const struct xvbd_ovr_key *k = &xvbd_ovr_keys[i];

		assert_int_equal(k->id, i);
		/* every key is a row of the blkif model */
		assert_non_null(xvbd_blkif_key_find(k->dir, k->xs_key));
		assert_ptr_equal(xvbd_ovr_key_find(k->name), k);
		assert_ptr_equal(xvbd_ovr_key_find(k->xs_key), k);
		assert_true((k->cls == XVBD_OVR_REFUSED) ==
			    (k->refused_why != NULL));
	}
	assert_null(xvbd_ovr_key_find("state"));
	assert_null(xvbd_ovr_key_find("ring-page-order"));
}

static void test_parse_good(void **state)
{
	struct xvbd_ovr_set set;
	const struct xvbd_ovr *o;

	(void)state;
	assert_int_equal(parse(&set, "xvda:ring-order=2,queues=1,"
			       "indirect-segments=64,discard=0"), 0);
	assert_string_equal(set.vdev, "xvda");
	assert_int_equal(set.devid, 51712);
	assert_int_equal(set.n, 4);
	o = xvbd_override_get(&set, XVBD_OVR_RING_ORDER);
	assert_non_null(o);
	assert_int_equal(o->value, 2);
	assert_int_equal(xvbd_override_get(&set, XVBD_OVR_QUEUES)->value, 1);
	assert_int_equal(xvbd_override_get(&set, XVBD_OVR_INDIRECT)->value,
			 64);
	assert_true(xvbd_override_has(&set, XVBD_OVR_NEGOTIATED));
	assert_true(xvbd_override_has(&set, XVBD_OVR_TOOLSTACK));
	/* blkif key names work as well as the short ones */
	assert_int_equal(parse(&set, "51728:max-ring-page-order=0,"
			       "discard-enable=1,trusted=0,direct-io-safe=1"),
			 0);
	assert_int_equal(set.devid, 51728);
	assert_int_equal(set.n, 4);
	assert_false(xvbd_override_has(&set, XVBD_OVR_REFUSED));
}

static void test_parse_bad(void **state)
{
	static const char *const bad[] = {
		"xvda:ring-order=5", "xvda:ring-order=-1", "xvda:ring-order=abc",
		"xvda:ring-order=", "xvda:ring-order", "xvda:ring-order=02",
		"xvda:queues=0", "xvda:discard=2", "xvda:trusted=maybe",
		"xvda:colour=blue", "xvda:persistent=0",
		"xvda:feature-persistent=1", "xvda:ring-order=1,ring-order=2",
		"xvda:ring-order=1,", "xvda:", "xvda", ":ring-order=1",
		"xvd1:ring-order=1", "sdzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz:queues=1",
		"xvda:ring-order=1,,queues=1", "xvda:ring-order=18446744073709551616",
	};
	struct xvbd_ovr_set set;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		why[0] = '\0';
		assert_int_equal(parse(&set, bad[i]), -EINVAL);
		assert_true(why[0] != '\0');
		assert_null(strchr(why, '\n'));
	}
	assert_int_equal(parse(&set, "xvda:persistent=0"), -EINVAL);
	assert_non_null(strstr(why, "dom0-wide"));
	assert_int_equal(parse(&set, "xvda:ring-order=9"), -EINVAL);
	assert_non_null(strstr(why, "0..4"));
}

static void test_validate(void **state)
{
	struct xvbd_ovr_caps caps;
	struct xvbd_ovr_set set;
	struct xvbd_kvmap be = { 0 };

	(void)state;
	memset(&caps, 0, sizeof(caps));
	assert_int_equal(parse(&set, "xvda:ring-order=2,queues=2,"
			       "indirect-segments=256,discard=1"), 0);
	/* nothing known: nothing to exceed */
	assert_int_equal(xvbd_override_validate(&set, &caps, why,
						sizeof(why)), 0);
	xvbd_override_cap(&caps, XVBD_OVR_RING_ORDER, 1,
			  "xen_blkback.max_ring_page_order");
	assert_int_equal(xvbd_override_validate(&set, &caps, why,
						sizeof(why)), -ERANGE);
	assert_non_null(strstr(why, "xen_blkback.max_ring_page_order"));
	/* a higher bound never loosens a lower one */
	xvbd_override_cap(&caps, XVBD_OVR_RING_ORDER, 4, "later");
	assert_int_equal(caps.cap[XVBD_OVR_RING_ORDER].max, 1);
	memset(&caps, 0, sizeof(caps));
	xvbd_override_caps_blkback_model(&caps);
	assert_int_equal(xvbd_override_validate(&set, &caps, why,
						sizeof(why)), 0);
	/* the probe values of the backend */
	assert_int_equal(xvbd_kvmap_set(&be, "max-ring-page-order", "4"), 0);
	assert_int_equal(xvbd_kvmap_set(&be, "multi-queue-max-queues", "1"),
			 0);
	assert_int_equal(xvbd_kvmap_set(&be, "feature-max-indirect-segments",
					"256"), 0);
	xvbd_override_caps_backend(&caps, &be);
	assert_int_equal(xvbd_override_validate(&set, &caps, why,
						sizeof(why)), -ERANGE);
	assert_non_null(strstr(why, "multi-queue-max-queues"));
	xvbd_kvmap_free(&be);
	/* no max-ring-page-order key: single-page rings only (blkif.h) */
	memset(&caps, 0, sizeof(caps));
	assert_int_equal(xvbd_kvmap_set(&be, "state", "2"), 0);
	xvbd_override_caps_backend(&caps, &be);
	assert_true(caps.cap[XVBD_OVR_RING_ORDER].known);
	assert_int_equal(caps.cap[XVBD_OVR_RING_ORDER].max, 0);
	xvbd_kvmap_free(&be);
}

static void test_plan(void **state)
{
	struct xvbd_ovr_plan plan = { 0 };
	struct xvbd_ovr_set set;

	(void)state;
	assert_int_equal(parse(&set, "xvda:ring-order=2,trusted=0"), 0);
	assert_int_equal(xvbd_override_plan(&plan, &set,
					    "/local/domain/0/backend/vbd/3/51712",
					    "/local/domain/3/device/vbd/51712"),
			 0);
	assert_int_equal(plan.n, 2);
	assert_string_equal(plan.w[0].path,
			    "/local/domain/0/backend/vbd/3/51712/"
			    "max-ring-page-order");
	assert_string_equal(plan.w[0].value, "2");
	/* trusted lives in the frontend directory */
	assert_string_equal(plan.w[1].path,
			    "/local/domain/3/device/vbd/51712/trusted");
	assert_string_equal(plan.w[1].value, "0");
	assert_string_equal(plan.w[1].vdev, "xvda");
	xvbd_override_plan_free(&plan);
	assert_int_equal(plan.n, 0);
}

/* Snapshot helpers: "k=v" pairs. */
static void fill(struct xvbd_kvmap *m, const char *const *kv)
{
	for (; *kv; kv += 2)
		assert_int_equal(xvbd_kvmap_set(m, kv[0], kv[1]), 0);
}

static void test_verify(void **state)
{
	static const char *const be_kv[] = {
		"state", "4", "max-ring-page-order", "2",
		"multi-queue-max-queues", "1",
		"feature-max-indirect-segments", "64", "discard-enable", "0",
		"feature-discard", "0", NULL,
	};
	static const char *const fe_kv[] = {
		"state", "4", "ring-page-order", "2", "ring-ref0", "8",
		"ring-ref1", "9", "ring-ref2", "10", "ring-ref3", "11",
		"trusted", "1", NULL,
	};
	struct xvbd_kvmap be = { 0 }, fe = { 0 };
	struct xvbd_ovr_result res[XVBD_OVR_NKEYS];
	struct xvbd_ovr_set set;

	(void)state;
	fill(&be, be_kv);
	fill(&fe, fe_kv);
	assert_int_equal(parse(&set, "xvda:ring-order=2,queues=1,"
			       "indirect-segments=64,discard=0,trusted=1"), 0);
	assert_int_equal(xvbd_override_verify(&set, &be, &fe, res), 0);
	assert_int_equal(res[0].status, XVBD_OVR_APPLIED);
	assert_true(res[0].choice.known);
	assert_int_equal(res[0].choice.v, 2);
	/* no multi-queue keys beside rings: one queue */
	assert_int_equal(res[1].status, XVBD_OVR_APPLIED);
	assert_int_equal(res[1].choice.v, 1);
	assert_int_equal(res[2].status, XVBD_OVR_APPLIED);
	assert_non_null(strstr(res[2].why, "max_segments"));
	assert_int_equal(res[3].status, XVBD_OVR_APPLIED);
	assert_int_equal(res[4].status, XVBD_OVR_APPLIED);

	/* the frontend read the offer before the override: order 4 */
	assert_int_equal(xvbd_kvmap_set(&fe, "ring-page-order", "4"), 0);
	/* and blkback offers discard after all */
	assert_int_equal(xvbd_kvmap_set(&be, "feature-discard", "1"), 0);
	assert_int_equal(xvbd_override_verify(&set, &be, &fe, res), 2);
	assert_int_equal(res[0].status, XVBD_OVR_NOT_APPLIED);
	assert_non_null(strstr(res[0].why, "before the override"));
	assert_int_equal(res[3].status, XVBD_OVR_NOT_APPLIED);

	/* a guest whose own limit is lower: applied, with the reason */
	assert_int_equal(xvbd_kvmap_set(&fe, "ring-page-order", "0"), 0);
	assert_int_equal(xvbd_override_verify(&set, &be, &fe, res), 1);
	assert_int_equal(res[0].status, XVBD_OVR_APPLIED);
	assert_non_null(strstr(res[0].why, "xen_blkfront.max_ring_page_order"));

	/* the key itself changed behind our back */
	assert_int_equal(xvbd_kvmap_set(&be, "max-ring-page-order", "4"), 0);
	assert_int_equal(xvbd_kvmap_set(&be, "feature-discard", "0"), 0);
	assert_int_equal(xvbd_override_verify(&set, &be, &fe, res), 1);
	assert_int_equal(res[0].status, XVBD_OVR_NOT_APPLIED);
	assert_string_equal(xvbd_override_status_name(res[0].status),
			    "not applied");
	xvbd_kvmap_free(&be);
	xvbd_kvmap_free(&fe);

	/* nothing published: the choice is unknown, so not applied */
	fill(&be, be_kv);
	assert_int_equal(parse(&set, "xvda:ring-order=2"), 0);
	assert_int_equal(xvbd_override_verify(&set, &be, &fe, res), 1);
	assert_non_null(strstr(res[0].why, "no ring"));
	xvbd_kvmap_free(&be);
}

static void test_ring_cost(void **state)
{
	struct xvbd_ovr_cost c;

	(void)state;
	/* lab: order 4 + 128 segments hung a 256 MiB guest */
	xvbd_override_ring_cost(4, 1, 128, &c);
	assert_int_equal(c.requests_per_ring, 512);
	assert_int_equal(c.pages_per_request, 129);
	assert_int_equal(c.bytes, 512ull * 129 * 4096);
	assert_true(c.bytes > 256ull << 20);
	/* blkfront defaults: one page, 32 segments, one ring */
	xvbd_override_ring_cost(0, 1, 32, &c);
	assert_int_equal(c.bytes, 32ull * 33 * 4096);
	/* no indirect descriptors: 11 segments, no indirect page */
	xvbd_override_ring_cost(0, 2, 0, &c);
	assert_int_equal(c.pages_per_request, 11);
	assert_int_equal(c.bytes, 2ull * 32 * 11 * 4096);
	/* 1024 segments need two indirect pages */
	xvbd_override_ring_cost(1, 1, 1024, &c);
	assert_int_equal(c.pages_per_request, 1026);
}

static void test_guest_limits(void **state)
{
	struct xvbd_guest_limits gl;

	(void)state;
	xvbd_override_guest_limits("console=hvc0 xen_blkfront.max_ring_page_order=4 "
				   "xen_blkfront.max_indirect_segments=bad "
				   "xen_blkfront.max_queues=2 "
				   "xen_blkfront.max_queues=3", &gl);
	assert_true(gl.v[XVBD_OVR_RING_ORDER].known);
	assert_int_equal(gl.v[XVBD_OVR_RING_ORDER].v, 4);
	assert_false(gl.v[XVBD_OVR_INDIRECT].known);
	assert_int_equal(xvbd_override_guest_limit(&gl, XVBD_OVR_INDIRECT),
			 32);
	/* the kernel takes the last one */
	assert_int_equal(xvbd_override_guest_limit(&gl, XVBD_OVR_QUEUES), 3);
	xvbd_override_guest_limits(NULL, &gl);
	assert_int_equal(xvbd_override_guest_limit(&gl, XVBD_OVR_RING_ORDER),
			 0);
}

static void test_guest_cmdline(void **state)
{
	struct xvbd_ovr_set sets[2];
	char *out = NULL;

	(void)state;
	assert_int_equal(parse(&sets[0], "xvda:ring-order=2,"
			       "indirect-segments=64,discard=0"), 0);
	assert_int_equal(parse(&sets[1], "xvdb:ring-order=3,"
			       "indirect-segments=16"), 0);
	assert_int_equal(xvbd_override_guest_cmdline(
		"console=hvc0  xen_blkfront.max_ring_page_order=1 root=/dev/xvda",
		sets, 2, &out, why, sizeof(why)), 0);
	/* the largest value per key; a lower guest value is replaced */
	assert_string_equal(out, "console=hvc0 root=/dev/xvda "
			    "xen_blkfront.max_ring_page_order=3 "
			    "xen_blkfront.max_indirect_segments=64");
	free(out);
	/* a guest that already allows more keeps its own limit */
	assert_int_equal(xvbd_override_guest_cmdline(
		"xen_blkfront.max_ring_page_order=4", sets, 1, &out, why,
		sizeof(why)), 0);
	assert_string_equal(out, "xen_blkfront.max_ring_page_order=4 "
			    "xen_blkfront.max_indirect_segments=64");
	free(out);
	/* nothing to raise: blkfront's defaults already allow it */
	assert_int_equal(parse(&sets[0], "xvda:ring-order=0,queues=1,"
			       "indirect-segments=32"), 0);
	assert_int_equal(xvbd_override_guest_cmdline(NULL, sets, 1, &out, why,
						     sizeof(why)), 0);
	assert_string_equal(out, "");
	free(out);
	assert_int_equal(xvbd_override_guest_cmdline("a=\"b c\"", sets, 1,
						     &out, why, sizeof(why)),
			 -EINVAL);
}

static void expect_cfg(const char *in, const char *key, const char *value,
		       const char *want)
{
	char *out = NULL;

	assert_int_equal(xvbd_cfgtext_set_string(in, key, value, &out, why,
						 sizeof(why)), 0);
	assert_string_equal(out, want);
	free(out);
}

static void test_cfgtext(void **state)
{
	char *out = NULL;

	(void)state;
	expect_cfg("name = \"g\"\nextra = \"console=hvc0\"\nmemory = 256\n",
		   "extra", "console=hvc0 x=1",
		   "name = \"g\"\nextra = \"console=hvc0 x=1\"\nmemory = 256\n");
	/* single quotes, no blanks, a trailing comment and no newline */
	expect_cfg("extra='a' # boot args", "extra", "b",
		   "extra=\"b\" # boot args");
	/* the last assignment wins in xl: that one is replaced */
	expect_cfg("extra = \"a\"\nextra = \"b\";\n", "extra", "c",
		   "extra = \"a\"\nextra = \"c\";\n");
	/* extra_x and "# extra = " are other things */
	expect_cfg("extra_x = \"a\"\n# extra = \"b\"\n", "extra", "c",
		   "extra_x = \"a\"\n# extra = \"b\"\nextra = \"c\"\n");
	expect_cfg("name = \"g\"", "cmdline", "ro",
		   "name = \"g\"\ncmdline = \"ro\"\n");
	expect_cfg("", "extra", "x", "extra = \"x\"\n");
	/* not one plain string: refused */
	assert_int_equal(xvbd_cfgtext_set_string("extra = \"a\\\"b\"\n",
						 "extra", "x", &out, why,
						 sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "line 1"));
	assert_int_equal(xvbd_cfgtext_set_string("extra = \"a\" + \"b\"\n",
						 "extra", "x", &out, why,
						 sizeof(why)), -EINVAL);
	assert_int_equal(xvbd_cfgtext_set_string("extra = [ \"a\" ]\n",
						 "extra", "x", &out, why,
						 sizeof(why)), -EINVAL);
	assert_int_equal(xvbd_cfgtext_set_string("extra = \"a\n", "extra",
						 "x", &out, why, sizeof(why)),
			 -EINVAL);
	/* the new value must not need quoting */
	assert_int_equal(xvbd_cfgtext_set_string("", "extra", "a\"b", &out,
						 why, sizeof(why)), -EINVAL);
	assert_int_equal(xvbd_cfgtext_set_string("", "extra", "a\nb", &out,
						 why, sizeof(why)), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_key_table),
		cmocka_unit_test(test_parse_good),
		cmocka_unit_test(test_parse_bad),
		cmocka_unit_test(test_validate),
		cmocka_unit_test(test_plan),
		cmocka_unit_test(test_verify),
		cmocka_unit_test(test_ring_cost),
		cmocka_unit_test(test_guest_limits),
		cmocka_unit_test(test_guest_cmdline),
		cmocka_unit_test(test_cfgtext),
	};

	return cmocka_run_group_tests_name("override", tests, NULL, NULL);
}
