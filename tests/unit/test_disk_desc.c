/*
 * Unit tests: the disk layer's one parser (xvbd/disk/disk.h).  The same
 * disk written in each grammar that names disks -- attach's options,
 * an xl disk spec (key=value and xl's positional form, read by
 * libxlutil), apply's plan keys (through the plan parser itself), ab
 * run's --disk-a/--cache-a/--vbd-a -- is the same description, and one
 * setting changed in any of them is not; errors name the key the way
 * the grammar spells it.
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
#include "xvbd/disk/disk.h"

#define IMG	"/srv/x.img"
#define ALL	XVBD_DISK_SOURCES_ALL

static int set_all(struct xvbd_disk_desc *d, const char *const (*kv)[2],
		   size_t n, struct xvbd_report *rep)
{
	size_t i;
	int rc;

	for (i = 0; i < n; i++) {
		rc = xvbd_disk_desc_set(d, kv[i][0], kv[i][1], rep);
		if (rc)
			return rc;
	}
	return xvbd_disk_desc_check(d, rep);
}

/* attach G --file IMG --vdev xvdb --access ro --cache none
 *	--ring-order 1 --discard on (as its option parser hands them on) */
static void attach_options(struct xvbd_disk_desc *d, const char *access)
{
	const char *const kv[][2] = {
		{ "file", IMG }, { "vdev", "xvdb" }, { "access", access },
		{ "cache", "none" }, { "ring-order", "1" },
		{ "discard", "on" },
	};
	struct xvbd_report rep;

	xvbd_report_init(&rep, NULL, NULL);
	xvbd_disk_desc_init(d, XVBD_DISK_WORDS_OPTIONS, ALL);
	assert_int_equal(set_all(d, kv, 6, &rep), 0);
}

/* attach G SPEC --cache none --ring-order 1 --discard on */
static void attach_spec(struct xvbd_disk_desc *d, const char *spec)
{
	const char *const kv[][2] = {
		{ "spec", spec }, { "cache", "none" }, { "ring-order", "1" },
		{ "discard", "1" },
	};
	struct xvbd_report rep;

	xvbd_report_init(&rep, NULL, NULL);
	xvbd_disk_desc_init(d, XVBD_DISK_WORDS_OPTIONS, ALL);
	assert_int_equal(set_all(d, kv, 4, &rep), 0);
}

/* The plan file's disk, through xvbd_apply_plan_parse. */
static void plan(struct xvbd_disk_desc *d, const char *access)
{
	char text[512], why[512] = "";
	struct xvbd_apply_plan p;

	snprintf(text, sizeof(text), "{\"guest\": \"g\", \"disks\": [{"
		 "\"vdev\": \"xvdb\", \"file\": \"" IMG "\", \"access\": "
		 "\"%s\", \"cache\": \"none\", \"ring_order\": 1, "
		 "\"discard\": true}]}", access);
	assert_int_equal(xvbd_apply_plan_parse(text, strlen(text), &p, why,
					       sizeof(why)), 0);
	assert_int_equal(p.n, 1);
	*d = p.disks[0].desc;
	xvbd_apply_plan_free(&p);
}

/* ab run --disk-a SPEC --cache-a none --vbd-a xvdb:ring-order=1,discard=1 */
static void hot_ab(struct xvbd_disk_desc *d, const char *spec)
{
	struct xvbd_ovr_set set;
	struct xvbd_report rep;
	char why[256];

	xvbd_report_init(&rep, NULL, NULL);
	assert_int_equal(xvbd_override_parse_vbd(&set, "xvdb:ring-order=1,"
						 "discard=1", why,
						 sizeof(why)), 0);
	xvbd_disk_desc_init(d, XVBD_DISK_WORDS_KEYS,
			    XVBD_DISK_SOURCE(XVBD_DISK_SPEC));
	assert_int_equal(xvbd_disk_desc_set(d, "spec", spec, &rep), 0);
	assert_int_equal(xvbd_disk_desc_set(d, "cache", "none", &rep), 0);
	assert_int_equal(xvbd_disk_desc_set_offers(d, &set, &rep), 0);
	assert_int_equal(xvbd_disk_desc_check(d, &rep), 0);
}

static void assert_same(const struct xvbd_disk_desc *a,
			const struct xvbd_disk_desc *b, bool same)
{
	char ta[2048], tb[2048];

	xvbd_disk_desc_text(a, ta, sizeof(ta));
	xvbd_disk_desc_text(b, tb, sizeof(tb));
	if (xvbd_disk_desc_same(a, b) != same || !strcmp(ta, tb) != same)
		fail_msg("want %s:\n  %s\n  %s", same ? "the same" :
			 "different", ta, tb);
}

static void test_four_grammars(void **state)
{
	struct xvbd_disk_desc *d = calloc(8, sizeof(*d));
	char text[2048];
	size_t i;

	(void)state;
	assert_non_null(d);
	attach_options(&d[0], "ro");
	attach_spec(&d[1], "vdev=xvdb,access=ro,target=" IMG);
	attach_spec(&d[2], IMG ",raw,xvdb,ro");	/* xl's positional form */
	plan(&d[3], "ro");
	hot_ab(&d[4], "format=raw,vdev=xvdb,access=ro,target=" IMG);
	for (i = 1; i < 5; i++)
		assert_same(&d[0], &d[i], true);
	xvbd_disk_desc_text(&d[0], text, sizeof(text));
	assert_string_equal(text, "format=raw,vdev=xvdb,access=ro,target="
			    IMG " cache=none ring-order=1 discard=1");
	assert_int_equal(d[0].devid, 51728);
	assert_int_equal(d[0].offers.n, 2);
	assert_int_equal(d[3].offers.devid, 51728);
	/* one setting otherwise, in any grammar: another disk */
	attach_options(&d[5], "rw");
	assert_same(&d[0], &d[5], false);
	plan(&d[6], "rw");
	assert_same(&d[3], &d[6], false);
	assert_same(&d[5], &d[6], true);
	hot_ab(&d[7], "format=raw,vdev=xvdc,access=ro,target=" IMG);
	assert_same(&d[4], &d[7], false);
	/* a spec that says more than a path (its own script) is its own */
	attach_spec(&d[7], "vdev=xvdb,access=ro,script=block,target=" IMG);
	assert_same(&d[1], &d[7], false);
	free(d);
}

/* Each grammar's words: "--size" with options, "size" with keys. */
static void test_words(void **state)
{
	struct xvbd_disk_desc d;
	struct xvbd_report rep;

	(void)state;
	xvbd_report_init(&rep, NULL, NULL);
	xvbd_disk_desc_init(&d, XVBD_DISK_WORDS_OPTIONS, ALL);
	assert_int_equal(xvbd_disk_desc_set(&d, "size", "8X", &rep),
			 XVBD_EXIT_USAGE);
	assert_string_equal(rep.what, "--size");
	assert_true(!strncmp(rep.why, "\"8X\": expected a size", 21));
	xvbd_report_clear(&rep);
	xvbd_disk_desc_init(&d, XVBD_DISK_WORDS_KEYS, ALL);
	assert_int_equal(xvbd_disk_desc_set(&d, "size", "8X", &rep),
			 XVBD_EXIT_USAGE);
	assert_string_equal(rep.what, "size");
	/* the one grammar's words in both (tests/cli-optval.sh) */
	assert_true(!strncmp(rep.why, "\"8X\": expected a size", 21));
	/* a path error names the path with options, the key with keys */
	xvbd_report_clear(&rep);
	assert_int_equal(xvbd_disk_desc_set(&d, "file", "rel/x.img", &rep),
			 XVBD_EXIT_USAGE);
	assert_string_equal(rep.what, "file");
	xvbd_report_clear(&rep);
	xvbd_disk_desc_init(&d, XVBD_DISK_WORDS_OPTIONS, ALL);
	assert_int_equal(xvbd_disk_desc_set(&d, "file", "rel/x.img", &rep),
			 XVBD_EXIT_USAGE);
	assert_string_equal(rep.what, "rel/x.img");
	/* the keys together: no subject */
	xvbd_report_clear(&rep);
	xvbd_disk_desc_init(&d, XVBD_DISK_WORDS_OPTIONS, ALL);
	assert_int_equal(xvbd_disk_desc_set(&d, "phy", "/dev/vdb1", &rep), 0);
	assert_int_equal(xvbd_disk_desc_set(&d, "cache", "none", &rep), 0);
	assert_int_equal(xvbd_disk_desc_check(&d, &rep), XVBD_EXIT_USAGE);
	assert_false(rep.has_what);
	assert_string_equal(rep.why, "--size, --prealloc and --cache are for "
			    "image files, not --phy");
	xvbd_report_clear(&rep);
	xvbd_disk_desc_init(&d, XVBD_DISK_WORDS_KEYS,
			    ALL & ~XVBD_DISK_SOURCE(XVBD_DISK_SPEC));
	assert_int_equal(xvbd_disk_desc_check(&d, &rep), XVBD_EXIT_USAGE);
	assert_string_equal(rep.why, "no source: give \"file\", \"phy\" or "
			    "\"share\"");
	/* a grammar without specs does not take one */
	xvbd_report_clear(&rep);
	assert_int_equal(xvbd_disk_desc_set(&d, "spec", "vdev=xvdb", &rep),
			 XVBD_EXIT_USAGE);
	assert_true(strstr(rep.why, "unknown key") != NULL);
	/* '_' for '-', and a key given twice */
	xvbd_report_clear(&rep);
	assert_int_equal(xvbd_disk_desc_set(&d, "share_opts", "vers=3", &rep),
			 0);
	assert_int_equal(xvbd_disk_desc_set(&d, "share-opts", "vers=4", &rep),
			 XVBD_EXIT_USAGE);
	assert_string_equal(rep.why, "given twice");
}

/* The spec's own checks, before anything runs. */
static void test_spec(void **state)
{
	struct xvbd_disk_desc d;
	struct xvbd_report rep;

	(void)state;
	xvbd_report_init(&rep, NULL, NULL);
	xvbd_disk_desc_init(&d, XVBD_DISK_WORDS_OPTIONS, ALL);
	assert_int_equal(xvbd_disk_desc_set(&d, "spec", "vdev=xvdb,script="
					    "/bin/sh,target=/x", &rep),
			 XVBD_EXIT_USAGE);
	assert_true(strstr(rep.why, "not in") != NULL);
	assert_true(rep.hint[0] != '\0');
	xvbd_report_clear(&rep);
	xvbd_disk_desc_init(&d, XVBD_DISK_WORDS_OPTIONS, ALL);
	assert_int_equal(xvbd_disk_desc_set(&d, "spec", "vdev=auto,access=ro,"
					    "target=/srv/a.img", &rep), 0);
	assert_int_equal(xvbd_disk_desc_check(&d, &rep), 0);
	assert_true(d.auto_vdev);
	assert_false(d.readwrite);
	assert_string_equal(d.target, "/srv/a.img");
	/* a spec says its own vdev: --vdev with one is refused */
	xvbd_disk_desc_init(&d, XVBD_DISK_WORDS_OPTIONS, ALL);
	assert_int_equal(xvbd_disk_desc_set(&d, "vdev", "xvdc", &rep), 0);
	assert_int_equal(xvbd_disk_desc_set(&d, "spec", "vdev=xvdb,target=/x",
					    &rep), 0);
	assert_int_equal(xvbd_disk_desc_check(&d, &rep), XVBD_EXIT_USAGE);
	assert_true(strstr(rep.why, "a disk spec says them itself") != NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_four_grammars),
		cmocka_unit_test(test_words),
		cmocka_unit_test(test_spec),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
