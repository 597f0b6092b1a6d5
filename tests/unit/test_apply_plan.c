/*
 * Unit tests: xvbd apply's plan: what a good plan becomes (sources,
 * targets, options, offers as attach's key=value), and each bad plan's
 * error naming its place in the plan, with the grammar of attach and
 * tune (the override parser's range, the share URL's refusal of a
 * password, the size and cache parsers).
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

#include "xvbd/cmd/apply_plan.h"

static int parse(const char *text, struct xvbd_apply_plan *p, char *why,
		 size_t len)
{
	return xvbd_apply_plan_parse(text, strlen(text), p, why, len);
}

static void test_good(void **state)
{
	const char *text = "{\"guest\": \"g1\", \"disks\": ["
		"{\"vdev\": \"xvdb\", \"file\": \"/scratch/b.img\", "
		"\"size\": \"64M\", \"prealloc\": true, \"cache\": \"none\", "
		"\"ring_order\": 1, \"queues\": 2, \"indirect_segments\": 64, "
		"\"discard\": false, \"trusted\": \"on\"},"
		"{\"vdev\": \"xvdc\", \"phy\": \"/dev/vdb1\", \"access\": \"ro\"},"
		"{\"vdev\": \"xvdd\", \"share\": "
		"\"nfs://127.0.0.1/srv/nfs/export/d.img\", \"size\": 1048576}]}";
	struct xvbd_apply_plan p;
	const struct xvbd_apply_disk *d;
	char why[512] = "";

	(void)state;
	assert_int_equal(parse(text, &p, why, sizeof(why)), 0);
	assert_string_equal(p.guest, "g1");
	assert_int_equal(p.n, 3);
	d = &p.disks[0];
	assert_string_equal(d->where, "disks[0]");
	assert_int_equal(d->devid, 51728);
	assert_int_equal(d->kind, XVBD_APPLY_FILE);
	assert_string_equal(d->target, "/scratch/b.img");
	assert_true(d->have_size);
	assert_int_equal(d->size_bytes, 64ull << 20);
	assert_true(d->prealloc);
	assert_true(d->readwrite);
	assert_int_equal(d->cache, XVBD_CACHE_NONE);
	assert_int_equal(d->ovr.n, 5);
	assert_string_equal(d->ovr_kv[XVBD_OVR_RING_ORDER], "ring-order=1");
	assert_string_equal(d->ovr_kv[XVBD_OVR_QUEUES], "queues=2");
	assert_string_equal(d->ovr_kv[XVBD_OVR_INDIRECT],
			    "indirect-segments=64");
	assert_string_equal(d->ovr_kv[XVBD_OVR_DISCARD], "discard=0");
	assert_string_equal(d->ovr_kv[XVBD_OVR_TRUSTED], "trusted=1");
	assert_int_equal(xvbd_override_get(&d->ovr, XVBD_OVR_QUEUES)->value,
			 2);
	d = &p.disks[1];
	assert_int_equal(d->kind, XVBD_APPLY_PHY);
	assert_false(d->readwrite);
	assert_int_equal(d->cache, XVBD_CACHE_NA);
	assert_int_equal(d->ovr.n, 0);
	assert_string_equal(d->ovr_kv[XVBD_OVR_RING_ORDER], "");
	d = &p.disks[2];
	assert_int_equal(d->kind, XVBD_APPLY_SHARE);
	assert_int_equal(d->cache, XVBD_CACHE_HOST);
	assert_int_equal(d->size_bytes, 1048576);
	/* libxl's record will hold the image below the mount point */
	assert_true(strncmp(d->target, XVBD_SHARE_DIR "/", 17) == 0);
	assert_non_null(strstr(d->target, "/d.img"));
	xvbd_apply_plan_free(&p);
	assert_int_equal(p.n, 0);
	/* a plan with no disks is a plan (apply --prune empties a guest) */
	assert_int_equal(parse("{\"guest\": 7, \"disks\": []}", &p, why,
			       sizeof(why)), 0);
	assert_string_equal(p.guest, "7");
	xvbd_apply_plan_free(&p);
}

#define DISK(rest) "{\"guest\": \"g\", \"disks\": [" rest "]}"
#define OK_DISK "{\"vdev\": \"xvdb\", \"file\": \"/s/b.img\"}"

static const struct {
	const char *plan;
	const char *why;	/* the start of the error */
} bad[] = {
	{ DISK(OK_DISK ", {\"vdev\": \"xvdc\", \"file\": \"/s/c\", "
	       "\"ring_ordr\": 2}"), "disks[1].ring_ordr: unknown key" },
	{ DISK("{\"vdev\": \"xvdb\", \"file\": \"/s/b\", \"ring_order\": 9}"),
	  "disks[0].ring_order: ring-order=9: expected a number 0..4" },
	{ DISK("{\"vdev\": \"xvdb\", \"file\": \"/s/b\", \"ring_order\": -1}"),
	  "disks[0].ring_order: ring-order=-1" },
	{ DISK("{\"vdev\": \"xvdb\", \"file\": \"/s/b\", \"queues\": 1.5}"),
	  "disks[0].queues: queues=1.5" },
	{ DISK("{\"vdev\": \"xvdb\", \"size\": \"8M\"}"),
	  "disks[0]: no source" },
	{ DISK("{\"vdev\": \"xvdb\", \"file\": \"/a\", \"phy\": \"/dev/b\"}"),
	  "disks[0]: file, phy and share are one disk each" },
	{ DISK(OK_DISK ", {\"vdev\": \"xvdb\", \"file\": \"/s/c\"}"),
	  "disks[1].vdev: xvdb given twice (also disks[0])" },
	{ DISK(OK_DISK ", {\"vdev\": \"xvdc\", \"file\": \"/s/b.img\"}"),
	  "disks[1]: target /s/b.img given twice" },
	{ DISK("{\"vdev\": \"xvdb\", \"share\": "
	       "\"smb://u:pw@srv/share/i.img\", \"credentials\": \"/c\"}"),
	  "disks[0].share: user or password in the URL" },
	{ DISK("{\"vdev\": \"xvdb\", \"share\": \"smb://srv/share/i.img\"}"),
	  "disks[0].share: an smb:// share needs \"credentials\"" },
	{ DISK("{\"vdev\": \"xvdb\", \"share\": \"nfs://srv/e/i.img\", "
	       "\"credentials\": \"/c\"}"),
	  "disks[0].credentials: is for smb:// shares" },
	{ DISK("{\"vdev\": \"xvdb\", \"file\": \"/a\", \"credentials\": "
	       "\"/c\"}"), "disks[0].credentials: goes with share" },
	{ DISK("{\"vdev\": \"xvdb\", \"share\": \"nfs://srv/e/i.img\", "
	       "\"share_opts\": \"password=x\"}"), "disks[0].share_opts: " },
	{ DISK("{\"vdev\": \"xvdb\", \"phy\": \"/dev/vdb1\", \"cache\": "
	       "\"none\"}"), "disks[0]: size, prealloc and cache are for" },
	{ DISK("{\"vdev\": \"xvdb\", \"file\": \"/a\", \"cache\": \"wb\"}"),
	  "disks[0].cache: host or none, not \"wb\"" },
	{ DISK("{\"vdev\": \"xvdb\", \"file\": \"/a\", \"size\": \"8Q\"}"),
	  "disks[0].size: \"8Q\": expected a size from 512 to 1E" },
	{ DISK("{\"vdev\": \"xvdb\", \"file\": \"/a\", \"access\": \"rx\"}"),
	  "disks[0].access: rw or ro, not \"rx\"" },
	{ DISK("{\"vdev\": \"xvdb\", \"file\": \"/a\", \"discard\": 1}"),
	  "disks[0].discard: true or false" },
	{ DISK("{\"vdev\": \"xvdb\", \"file\": \"/a\", \"prealloc\": \"y\"}"),
	  "disks[0].prealloc: \"y\": expected on or off" },
	{ DISK("{\"vdev\": \"auto\", \"file\": \"/a\"}"),
	  "disks[0].vdev: \"auto\": not a virtual device name (apply needs" },
	{ DISK("{\"file\": \"/a\"}"), "disks[0].vdev: missing" },
	{ DISK("{\"vdev\": 2, \"file\": \"/a\"}"),
	  "disks[0].vdev: a string, not a number" },
	{ DISK("{\"vdev\": \"xvdb\", \"file\": \"rel/a\"}"), "disks[0].file: " },
	{ DISK("{\"vdev\": \"xvdb\", \"file\": \"/a/../etc\"}"),
	  "disks[0].file: " },
	{ DISK("{\"vdev\": \"xvdb\", \"file\": \"/a\", \"file\": \"/b\"}"),
	  "disks[0].file: given twice" },
	{ DISK("7"), "disks[0]: an object" },
	{ "{\"guest\": \"g\", \"disk\": []}", "plan.disk: unknown key" },
	{ "{\"disks\": []}", "guest: missing" },
	{ "{\"guest\": \"\", \"disks\": []}", "guest: empty" },
	{ "{\"guest\": \"g\"}", "disks: missing" },
	{ "{\"guest\": \"g\", \"disks\": {}}", "disks: not an array" },
	{ "{\"guest\": \"g\", \"guest\": \"h\", \"disks\": []}",
	  "plan.guest: given twice" },
	{ "[]", "plan: an object" },
	{ "{\"guest\": \"g\", \"disks\": [", "plan: not valid JSON" },
	{ "{\"guest\": \"g\", \"disks\": [[[[[]]]]]}",
	  "plan: nested deeper than a plan" },
	{ "", "plan: not valid JSON" },
	/*
	 * yajl decodes \u0000 into the string and reports its length; as a
	 * C string "/a\u0000b" is "/a", "file\u0000x" is "file": refused,
	 * with the place.
	 */
	{ DISK("{\"vdev\": \"xvdb\", \"file\": \"/a\\u0000b\"}"),
	  "disks[0].file: a \\u0000 (NUL) inside the string" },
	{ DISK(OK_DISK ", {\"vdev\": \"xvdc\\u0000\", \"file\": \"/c\"}"),
	  "disks[1].vdev: a \\u0000 (NUL) inside the string" },
	{ "{\"guest\": \"victim\\u0000x\", \"disks\": []}",
	  "guest: a \\u0000 (NUL) inside the string" },
	{ DISK("{\"vdev\": \"xvdb\", \"file\\u0000x\": \"/a\"}"),
	  "disks[0]: key \"file\\u0000x\": a \\u0000 (NUL) inside" },
	{ DISK("{\"vdev\": \"xvdb\", \"file\": \"/a\", \"access\": "
	       "\"ro\\u0000\"}"), "disks[0].access: a \\u0000 (NUL)" },
	/* a value or key with a newline is quoted escaped: still one line */
	{ DISK("{\"vdev\": \"xvdb\", \"file\": \"/a\", \"prealloc\": "
	       "\"\\n\"}"),
	  "disks[0].prealloc: \"\\n\": expected on or off" },
	{ DISK("{\"vdev\": \"xv\\ndb\", \"file\": \"/a\"}"),
	  "disks[0].vdev: \"xv\\ndb\": not a virtual device name" },
	{ DISK("{\"vdev\": \"xvdb\", \"file\": \"/a\", \"k\\u001b\": 1}"),
	  "disks[0].k\\x1b: unknown key" },
};

static void test_bad(void **state)
{
	struct xvbd_apply_plan p;
	char why[512];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		why[0] = '\0';
		if (parse(bad[i].plan, &p, why, sizeof(why)) != -EINVAL ||
		    strncmp(why, bad[i].why, strlen(bad[i].why)))
			fail_msg("plan %s: got \"%s\", want \"%s...\"",
				 bad[i].plan, why, bad[i].why);
		/* one line: the caller prints it as "xvbd: apply: ..." */
		assert_null(strchr(why, '\n'));
		assert_int_equal(p.n, 0);
		assert_null(p.disks);
	}
}

static void test_bounds(void **state)
{
	struct xvbd_apply_plan p;
	char why[512], *big, *many;
	size_t i, n;

	(void)state;
	big = calloc(1, XVBD_APPLY_PLAN_MAX + 2);
	assert_non_null(big);
	memset(big, ' ', XVBD_APPLY_PLAN_MAX + 1);
	assert_int_equal(xvbd_apply_plan_parse(big, XVBD_APPLY_PLAN_MAX + 1,
					       &p, why, sizeof(why)), -EFBIG);
	assert_non_null(strstr(why, "larger than 256 KiB"));
	free(big);
	assert_int_equal(xvbd_apply_plan_parse("{\"guest\":\0}", 11, &p, why,
					       sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "NUL"));
	/* 65 disks: one more than attach takes per call */
	many = malloc(65 * 64 + 64);
	assert_non_null(many);
	n = (size_t)sprintf(many, "{\"guest\": \"g\", \"disks\": [");
	for (i = 0; i < 65; i++)
		n += (size_t)sprintf(many + n, "%s{\"vdev\": \"xvd%c%c\", "
				     "\"file\": \"/s/%zu\"}", i ? "," : "",
				     (char)('a' + i / 26), (char)('a' + i % 26),
				     i);
	sprintf(many + n, "]}");
	assert_int_equal(parse(many, &p, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "disks: 65 disks: at most 64"));
	free(many);
}

static void test_offer_names(void **state)
{
	(void)state;
	assert_string_equal(xvbd_apply_offer_name(XVBD_OVR_RING_ORDER),
			    "ring_order");
	assert_string_equal(xvbd_apply_offer_name(XVBD_OVR_INDIRECT),
			    "indirect_segments");
	/* refused per device (tune refuses it too): not in a plan */
	assert_null(xvbd_apply_offer_name(XVBD_OVR_PERSISTENT));
	assert_null(xvbd_apply_offer_name(XVBD_OVR_DIRECT_IO_SAFE));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good),
		cmocka_unit_test(test_bad),
		cmocka_unit_test(test_bounds),
		cmocka_unit_test(test_offer_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
