/*
 * Unit tests: how fingerprint differences hang together (ab_fp_offer.c)
 * - an offer that differs while the frontend's choice does not is named,
 * for each offer kind, with the side that refused it and the parameter
 * that would let it; a choice that moved with its offer, or with the
 * guest's own limit, follows it; and the distort texts of the offer,
 * backing device and guest command line keys.
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

#include "xvbd/ab/ab.h"
#include "ab_testrec.h"

struct pair {
	struct trec a, b;
	struct xvbd_ab_fpdiff *d;
	size_t n, alone;
};

static void diff_pair(struct pair *p)
{
	assert_int_equal(xvbd_ab_fp_diff(&p->a.r.fp, &p->b.r.fp, &p->d,
					 &p->n), 0);
	p->alone = xvbd_ab_fp_relate(&p->a.r.fp, &p->b.r.fp, p->d, p->n);
}

static const struct xvbd_ab_fpdiff *get(const struct pair *p,
					const char *key)
{
	size_t i;

	for (i = 0; i < p->n; i++)
		if (!strcmp(p->d[i].key, key))
			return &p->d[i];
	fail_msg("no difference %s", key);
	return NULL;
}

/*
 * One offer differs, its choice does not: the sentence, the side and
 * the parameter.  Facts are added in key order: choice keys (vbd.X.c)
 * sort after "vbd.X.offer.*" only for some names, so both are added by
 * the caller's order.
 */
static void not_taken(const char *offer_key, const char *offer_a,
		      const char *offer_b, const char *choice_key,
		      const char *choice, const char *want,
		      const char *parameter)
{
	struct pair p;
	const struct xvbd_ab_fpdiff *d;
	char line[1024];
	bool choice_first = strcmp(choice_key, offer_key) < 0;

	trec_init(&p.a, "A", "A-1", 1);
	trec_init(&p.b, "B", "B-1", 1);
	if (choice_first) {
		trec_fact(&p.a, choice_key, choice);
		trec_fact(&p.b, choice_key, choice);
	}
	trec_fact(&p.a, offer_key, offer_a);
	trec_fact(&p.b, offer_key, offer_b);
	if (!choice_first) {
		trec_fact(&p.a, choice_key, choice);
		trec_fact(&p.b, choice_key, choice);
	}
	diff_pair(&p);
	assert_int_equal(p.n, 1);
	assert_int_equal(p.alone, 1);
	d = get(&p, offer_key);
	assert_true(d->not_taken);
	assert_string_equal(d->refused_by, "frontend");
	if (parameter)
		assert_string_equal(d->parameter, parameter);
	else
		assert_null(d->parameter);
	assert_int_equal(xvbd_ab_fp_not_taken_text(d, line, sizeof(line)), 0);
	fprintf(stderr, "# %s\n", line);
	assert_string_equal(line, want);
	assert_int_equal(xvbd_ab_fp_not_taken_text(d, line, 30), -ENOSPC);
	free(p.d);
}

static void test_not_taken_ring(void **state)
{
	(void)state;
	not_taken("vbd.xvda.offer.ring_order", "0", "2", "vbd.xvda.ring_pages",
		  "1", "vbd.xvda.offer.ring_order: B offered ring order 2 "
		  "(A 0); the frontend chose 1 ring page on both sides: its "
		  "limit, the guest kernel's xen_blkfront.max_ring_page_order, "
		  "refused it: the change never took effect",
		  "xen_blkfront.max_ring_page_order");
}

static void test_not_taken_queues(void **state)
{
	(void)state;
	not_taken("vbd.xvda.offer.queues", "1", "4", "vbd.xvda.queues", "2",
		  "vbd.xvda.offer.queues: B offered 4 queues (A 1); the "
		  "frontend chose 2 queues on both sides: its limit, the "
		  "guest kernel's xen_blkfront.max_queues, refused it: the "
		  "change never took effect", "xen_blkfront.max_queues");
}

static void test_not_taken_indirect(void **state)
{
	(void)state;
	not_taken("vbd.xvda.offer.indirect_segments", "64", "256",
		  "vbd.xvda.indirect_segments", "32",
		  "vbd.xvda.offer.indirect_segments: B offered 256 indirect "
		  "segments (A 64); the frontend used 32 indirect segments on "
		  "both sides: its limit, the guest kernel's "
		  "xen_blkfront.max_indirect_segments, refused it: the change "
		  "never took effect", "xen_blkfront.max_indirect_segments");
}

static void test_not_taken_persistent(void **state)
{
	(void)state;
	not_taken("vbd.xvda.offer.persistent_grants", "no", "yes",
		  "vbd.xvda.persistent_grants", "no",
		  "vbd.xvda.offer.persistent_grants: B offered persistent "
		  "grants yes (A no); persistent grants in use: no on both "
		  "sides: the frontend, by the guest kernel's "
		  "xen_blkfront.feature_persistent, refused it: the change "
		  "never took effect", "xen_blkfront.feature_persistent");
}

static void test_not_taken_discard(void **state)
{
	(void)state;
	not_taken("vbd.xvda.offer.discard", "no", "yes", "vbd.xvda.discard",
		  "no", "vbd.xvda.offer.discard: B offered discard yes (A no); "
		  "discard in use: no on both sides: the frontend refused it "
		  "(blkfront has no parameter for discard: the guest's kernel "
		  "or the device decided): the change never took effect",
		  NULL);
}

/* Offer and choice both differ: one variable, the choice follows. */
static void test_offer_taken(void **state)
{
	struct pair p;
	const struct xvbd_ab_fpdiff *d;
	char line[256];

	(void)state;
	trec_init(&p.a, "A", "A-1", 1);
	trec_init(&p.b, "B", "B-1", 1);
	trec_fact(&p.a, "vbd.xvda.offer.overridden", "no");
	trec_fact(&p.a, "vbd.xvda.offer.ring_order", "0");
	trec_fact(&p.a, "vbd.xvda.ring_pages", "1");
	trec_fact(&p.b, "vbd.xvda.offer.overridden", "ring_order (blkback's "
		  "own 2)");
	trec_fact(&p.b, "vbd.xvda.offer.ring_order", "2");
	trec_fact(&p.b, "vbd.xvda.ring_pages", "4");
	diff_pair(&p);
	assert_int_equal(p.n, 3);
	assert_int_equal(p.alone, 1);
	d = get(&p, "vbd.xvda.offer.ring_order");
	assert_false(d->not_taken);
	assert_null(d->follows);
	assert_int_equal(xvbd_ab_fp_not_taken_text(d, line, sizeof(line)),
			 -EINVAL);
	assert_string_equal(get(&p, "vbd.xvda.ring_pages")->follows,
			    "vbd.xvda.offer.ring_order");
	assert_string_equal(get(&p, "vbd.xvda.offer.overridden")->follows,
			    "vbd.xvda.offer.ring_order");
	free(p.d);
}

/*
 * Not taken needs a known choice on both sides; another vdev's choice
 * says nothing; the guest's limit that changed carries the choice.
 */
static void test_offer_edges(void **state)
{
	struct pair p;

	(void)state;
	trec_init(&p.a, "A", "A-1", 1);
	trec_init(&p.b, "B", "B-1", 1);
	trec_fact(&p.a, "guest.blkfront.max_queues", "1");
	trec_fact(&p.a, "vbd.xvda.offer.ring_order", "0");
	trec_fact(&p.a, "vbd.xvda.queues", "1");
	trec_fact(&p.a, "vbd.xvda.ring_pages", "unknown (frontend "
		  "Initialising)");
	trec_fact(&p.a, "vbd.xvdb.ring_pages", "1");
	trec_fact(&p.b, "guest.blkfront.max_queues", "4");
	trec_fact(&p.b, "vbd.xvda.offer.ring_order", "2");
	trec_fact(&p.b, "vbd.xvda.queues", "4");
	trec_fact(&p.b, "vbd.xvda.ring_pages", "unknown (frontend "
		  "Initialising)");
	trec_fact(&p.b, "vbd.xvdb.ring_pages", "1");
	diff_pair(&p);
	assert_int_equal(p.n, 3);
	assert_int_equal(p.alone, 2);
	assert_false(get(&p, "vbd.xvda.offer.ring_order")->not_taken);
	assert_string_equal(get(&p, "vbd.xvda.queues")->follows,
			    "guest.blkfront.max_queues");
	assert_null(get(&p, "guest.blkfront.max_queues")->follows);
	free(p.d);

	/* An offer on one side only: nothing to say it was refused. */
	trec_init(&p.a, "A", "A-1", 1);
	trec_init(&p.b, "B", "B-1", 1);
	trec_fact(&p.a, "vbd.xvda.ring_pages", "1");
	trec_fact(&p.b, "vbd.xvda.offer.ring_order", "2");
	trec_fact(&p.b, "vbd.xvda.ring_pages", "1");
	diff_pair(&p);
	assert_int_equal(p.n, 1);
	assert_false(p.d[0].not_taken);
	free(p.d);
}

/*
 * The command line differs only in its xen_blkfront.* words: it follows
 * the parameter that differs.  Another word differing too: it stands on
 * its own.
 */
static void test_cmdline_follows(void **state)
{
	struct pair p;

	(void)state;
	trec_init(&p.a, "A", "A-1", 1);
	trec_init(&p.b, "B", "B-1", 1);
	trec_fact(&p.a, "guest.blkfront.max_ring_page_order", "0");
	trec_fact(&p.a, "guest.cmdline", "root=/dev/xvda1 "
		  "xen_blkfront.max_ring_page_order=0 ro");
	trec_fact(&p.b, "guest.blkfront.max_ring_page_order", "2");
	trec_fact(&p.b, "guest.cmdline", "root=/dev/xvda1 "
		  "xen_blkfront.max_ring_page_order=2 ro");
	diff_pair(&p);
	assert_int_equal(p.n, 2);
	assert_int_equal(p.alone, 1);
	assert_string_equal(get(&p, "guest.cmdline")->follows,
			    "guest.blkfront.max_ring_page_order");
	free(p.d);

	trec_init(&p.a, "A", "A-1", 1);
	trec_init(&p.b, "B", "B-1", 1);
	trec_fact(&p.a, "guest.blkfront.max_ring_page_order", "0");
	trec_fact(&p.a, "guest.cmdline", "xen_blkfront.max_ring_page_order=0 "
		  "ro");
	trec_fact(&p.b, "guest.blkfront.max_ring_page_order", "2");
	trec_fact(&p.b, "guest.cmdline", "xen_blkfront.max_ring_page_order=2 "
		  "rw");
	diff_pair(&p);
	assert_int_equal(p.alone, 2);
	assert_null(get(&p, "guest.cmdline")->follows);
	free(p.d);
}

static void distorts(const char *key, const char *want)
{
	const char *text = xvbd_ab_fp_distorts(key);

	if (!strstr(text, want))
		fail_msg("%s: \"%s\" lacks \"%s\"", key, text, want);
}

static void test_distorts_new_keys(void **state)
{
	(void)state;
	distorts("vbd.xvda.offer.ring_order", "ring order offer differs");
	distorts("vbd.xvda.offer.queues", "queue offer differs");
	distorts("vbd.xvda.offer.indirect_segments",
		 "indirect segment offer differs");
	distorts("vbd.xvda.offer.persistent_grants",
		 "persistent grant offer differs");
	distorts("vbd.xvda.offer.discard", "discard offer differs");
	distorts("vbd.xvda.offer.overridden", "per-VBD override");
	distorts("vbd.xvda.dev.number", "backing block device differs");
	distorts("vbd.xvda.dev.logical_block_size", "logical block size");
	distorts("vbd.xvda.dev.physical_block_size", "physical block size");
	distorts("vbd.xvda.dev.rotational", "spinning disk");
	distorts("vbd.xvda.dev.scheduler", "I/O scheduler differs");
	distorts("vbd.xvda.dev.fstype", "filesystem holding the image");
	distorts("guest.cmdline", "kernel command line differs");
	distorts("guest.blkfront.max_ring_page_order",
		 "xen_blkfront parameter");
	distorts("guest.blkfront.anything_else", "xen_blkfront parameter");
	/* Not swallowed by the new patterns. */
	distorts("vbd.xvda.offer", "a fact of the environment differs");
	distorts("vbd.xvda.offer.other", "a fact of the environment differs");
	distorts("guest.blkfront", "a fact of the environment differs");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_not_taken_ring),
		cmocka_unit_test(test_not_taken_queues),
		cmocka_unit_test(test_not_taken_indirect),
		cmocka_unit_test(test_not_taken_persistent),
		cmocka_unit_test(test_not_taken_discard),
		cmocka_unit_test(test_offer_taken),
		cmocka_unit_test(test_offer_edges),
		cmocka_unit_test(test_cmdline_follows),
		cmocka_unit_test(test_distorts_new_keys),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
