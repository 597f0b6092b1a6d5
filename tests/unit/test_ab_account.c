/*
 * test_ab_account.c - where a run's I/O went: fio's bytes (a real fio
 * output: 4 MiB read from /dev/xvda in 1208 ms of fio's clock) against
 * blkback's sectors and the backing device's: the device read 2 % of it
 * (98 % from dom0's page cache), all of it (no flag), blkback saw half
 * (the job ran elsewhere), twice (other I/O), merges and splits (request
 * counts off, bytes equal: no flag), a job on a disk not recorded, the
 * guest's clock fast against a short run, a reset interval left out; and
 * ab compare naming the cached runs.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "ab_testrec.h"
#include "wl_testload.h"
#include "xvbd/workload/workload.h"

#define MIB_SECT	2048	/* 512-byte sectors in a MiB */

static struct xvbd_wl_results fio;	/* randread-jsonplus: 4 MiB read */

static int setup(void **state)
{
	(void)state;
	return wl_test_load_fio("tests/data/fio/randread-jsonplus.json", &fio);
}

static int teardown(void **state)
{
	(void)state;
	xvbd_wl_results_free(&fio);
	return 0;
}

/*
 * A --run record of ms milliseconds on xvda: blkback serves bb_sect
 * read sectors in req requests, the device reads dev_sect, in two
 * intervals.
 */
static void make(struct trec *t, uint64_t ms, uint64_t bb_sect,
		 uint64_t req, uint64_t dev_sect)
{
	uint64_t i;

	trec_init(t, "a", "a-20240501T120000-0000", 1);
	t->vdevs[0] = (char *)"xvda";
	t->r.mode = XVBD_AB_MODE_RUN;
	t->r.results = &fio;
	for (i = 0; i <= 2; i++) {
		struct xvbd_ab_sample *s = trec_add(t, i * ms / 2, i * req / 2,
						    0, i * bb_sect / 2, 0,
						    0, 0);

		s->vbds[0].has_blk_sect = true;
		s->vbds[0].blk_rd_sect = i * dev_sect / 2;
	}
}

static void account(const struct trec *t, struct xvbd_ab_account *a)
{
	assert_int_equal(xvbd_ab_account(&t->r, a), 0);
}

static char *text(const struct xvbd_ab_account *a, size_t k)
{
	static char line[512];

	return xvbd_ab_account_text(a, k, line, sizeof(line)) ? NULL : line;
}

static void test_cache(void **state)
{
	struct xvbd_ab_account a;
	struct trec t;

	(void)state;
	/* 4 MiB through blkback, the device read 2 % of it */
	make(&t, 2000, 4 * MIB_SECT, 1024, 4 * MIB_SECT * 2 / 100);
	account(&t, &a);
	assert_int_equal(a.guest_rd_bytes, 4 << 20);
	assert_int_equal(a.bb_rd_bytes, 4 << 20);
	assert_true(a.cached);
	assert_false(a.guest_more || a.blkback_more || a.clock_fast);
	assert_string_equal(text(&a, 0), "guest read 4.0 MiB, blkback 4.0 "
			    "MiB, backing device 82 KiB: 98 % served from "
			    "dom0's page cache");
	assert_null(text(&a, 1));
	/* all of it from the device; readahead reads more: no flag */
	make(&t, 2000, 4 * MIB_SECT, 1024, 5 * MIB_SECT);
	account(&t, &a);
	assert_false(a.cached);
	assert_null(text(&a, 0));
	/* merged 4:1, then split 1:4: bytes equal, counts not: no flag */
	make(&t, 2000, 4 * MIB_SECT, 256, 4 * MIB_SECT);
	account(&t, &a);
	assert_int_equal(a.bb_rd_req, 256);
	assert_null(text(&a, 0));
	make(&t, 2000, 4 * MIB_SECT, 4096, 4 * MIB_SECT);
	account(&t, &a);
	assert_null(text(&a, 0));
}

static void test_bytes_elsewhere(void **state)
{
	struct xvbd_ab_account a;
	struct trec t;

	(void)state;
	make(&t, 2000, 2 * MIB_SECT, 512, 2 * MIB_SECT);
	account(&t, &a);
	assert_true(a.guest_more);
	assert_true(a.ratio == 2.0);
	assert_string_equal(text(&a, 0), "fio counted 2.0x the bytes blkback "
			    "saw (4.0 MiB against 2.0 MiB): the job did not "
			    "run (only) on the recorded VBDs, or the guest's "
			    "page cache served it");
	make(&t, 2000, 8 * MIB_SECT, 2048, 8 * MIB_SECT);
	account(&t, &a);
	assert_true(a.blkback_more);
	assert_non_null(strstr(text(&a, 0), "blkback saw 2.0x the bytes fio "
				"counted"));
	/* the job's /dev/xvda is not the recorded VBD */
	make(&t, 2000, 4 * MIB_SECT, 1024, 4 * MIB_SECT);
	t.vdevs[0] = (char *)"xvdb";
	account(&t, &a);
	assert_string_equal(text(&a, 0), "fio's job used /dev/xvda, which is "
			    "not one of the recorded VBDs: its figures are "
			    "another disk's");
}

static void test_clock(void **state)
{
	struct xvbd_ab_account a;
	struct trec t;

	(void)state;
	/* fio ran 1208 ms of its clock in a run of 600 ms of dom0's */
	make(&t, 600, 4 * MIB_SECT, 1024, 4 * MIB_SECT);
	account(&t, &a);
	assert_true(a.clock_fast);
	assert_string_equal(text(&a, 0), "the guest's clock ran 2.01x dom0's: "
			    "fio's runtime 1.2 s (the guest's clock) within a "
			    "run of 0.6 s (dom0's): the guest's rates are per "
			    "guest second");
	/* a warmup that started the command counts to its life */
	t.r.warmup_ns = 1000000000ull;
	account(&t, &a);
	assert_false(a.clock_fast);
	/* start-up around fio's runtime: a longer run is no flag */
	make(&t, 5000, 4 * MIB_SECT, 1024, 4 * MIB_SECT);
	account(&t, &a);
	assert_false(a.clock_fast);
	assert_true(a.window_s == 5.0);
}

/*
 * A file via loop: the loop device counts what blkback counts; the disk
 * holding the file read 2 %.  The figures survive the record's JSON.
 */
static void test_file_dev(void **state)
{
	struct xvbd_ab_record back;
	struct xvbd_ab_err e = { "" };
	struct xvbd_ab_account a;
	struct trec t;
	char *json;
	size_t len, i;

	(void)state;
	make(&t, 2000, 4 * MIB_SECT, 1024, 4 * MIB_SECT);
	for (i = 0; i <= 2; i++) {
		t.v[i][0].has_file_dev = true;
		t.v[i][0].file_dev_rd_sect = 1000 + i * 4 * MIB_SECT / 100;
		t.v[i][0].file_dev_wr_sect = 7;
	}
	account(&t, &a);
	assert_true(a.cached && a.dev_is_file_dev);
	assert_string_equal(text(&a, 0), "guest read 4.0 MiB, blkback 4.0 MiB, "
			    "the disk holding the image 82 KiB: 98 % served "
			    "from dom0's page cache");
	t.r.results = NULL;
	assert_int_equal(xvbd_ab_record_to_json(&t.r, &json, &len), 0);
	assert_non_null(strstr(json, "\"file_dev\":{\"rd_sectors\":1000,"));
	if (xvbd_ab_record_from_json(json, len, &back, &e))
		fail_msg("%s", e.msg);
	assert_true(back.samples[2].vbds[0].has_file_dev);
	assert_int_equal(back.samples[2].vbds[0].file_dev_rd_sect,
			 1000 + 2 * 4 * MIB_SECT / 100);
	assert_false(back.samples[2].vbds[0].has_io_ticks);
	xvbd_ab_record_free(&back);
	free(json);
}

/* A reset interval's counts are not the run's. */
static void test_reset(void **state)
{
	struct xvbd_ab_account a;
	struct trec t;

	(void)state;
	make(&t, 2000, 4 * MIB_SECT, 1024, 4 * MIB_SECT);
	t.v[2][0].reset = true;
	account(&t, &a);
	assert_int_equal(a.bb_rd_bytes, 2 << 20);
}

static void test_compare_names_cached(void **state)
{
	struct trec a[3], b[3];
	struct xvbd_ab_record ra[3], rb[3];
	struct xvbd_ab_comparison c;
	size_t i, said = 0;

	(void)state;
	for (i = 0; i < 3; i++) {
		make(&a[i], 2000, 4 * MIB_SECT, 1024, 4 * MIB_SECT);
		make(&b[i], 2000, 4 * MIB_SECT, 1024, MIB_SECT / 10);
		b[i].r.label = (char *)"b";
		b[i].r.id = (char *)(i == 0 ? "b-20240501T120010-0000" :
				     i == 1 ? "b-20240501T120011-0000" :
				     "b-20240501T120012-0000");
		a[i].r.id = (char *)(i == 0 ? "a-20240501T120000-0000" :
				     i == 1 ? "a-20240501T120001-0000" :
				     "a-20240501T120002-0000");
		ra[i] = a[i].r;
		rb[i] = b[i].r;
	}
	assert_int_equal(xvbd_ab_compare(ra, 3, rb, 3, 0.95,
					 XVBD_AB_TEST_WELCH, &c), 0);
	for (i = 0; i < c.nwarnings; i++) {
		if (strstr(c.warnings[i], "from dom0's page cache"))
			said++;
		/* A's runs read everything from the device */
		assert_null(strstr(c.warnings[i], "A run a-"));
	}
	assert_int_equal(said, 3);
	xvbd_ab_comparison_free(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cache),
		cmocka_unit_test(test_bytes_elsewhere),
		cmocka_unit_test(test_clock),
		cmocka_unit_test(test_reset),
		cmocka_unit_test(test_file_dev),
		cmocka_unit_test(test_compare_names_cached),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
