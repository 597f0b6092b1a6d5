/*
 * Unit tests: module parameters on a guest's kernel command line
 * (kcmdline.c), read as Linux reads them, on hostile input: quotes,
 * repeated names, dashes, "--", very long words and too many of them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "xvbd/xen/kcmdline.h"

#define M	"xen_blkfront"

static const struct xvbd_kparam *param(const struct xvbd_kparams *kp,
				       const char *name)
{
	size_t i;

	for (i = 0; i < kp->n; i++)
		if (!strcmp(kp->items[i].name, name))
			return &kp->items[i];
	return NULL;
}

static void test_plain(void **state)
{
	struct xvbd_kparams kp;
	const struct xvbd_kparam *p;

	(void)state;
	xvbd_kcmdline_module_params("root=/dev/xvda1 ro "
				    "xen_blkfront.max_ring_page_order=2 "
				    "console=hvc0 xen_blkfront.max_queues=1\t"
				    "xen_blkfront.feature_persistent",
				    M, &kp);
	assert_int_equal(kp.n, 3);
	assert_int_equal(kp.skipped, 0);
	p = param(&kp, "max_ring_page_order");
	assert_non_null(p);
	assert_true(p->has_value);
	assert_string_equal(p->value, "2");
	assert_string_equal(param(&kp, "max_queues")->value, "1");
	p = param(&kp, "feature_persistent");
	assert_non_null(p);
	assert_false(p->has_value);
	/* Nothing of the module, or no command line at all. */
	xvbd_kcmdline_module_params("root=/dev/xvda1 xen_blkfrontx.a=1 "
				    "xen_blkfront. xen_blkfront", M, &kp);
	assert_int_equal(kp.n, 0);
	xvbd_kcmdline_module_params(NULL, M, &kp);
	assert_int_equal(kp.n, 0);
}

/* The kernel takes the last of a repeated name; '-' is '_'. */
static void test_repeated_and_dashes(void **state)
{
	struct xvbd_kparams kp;

	(void)state;
	xvbd_kcmdline_module_params("xen_blkfront.max_queues=4 "
				    "xen-blkfront.max-queues=2 "
				    "xen_blkfront.max_queues=1", M, &kp);
	assert_int_equal(kp.n, 1);
	assert_string_equal(kp.items[0].name, "max_queues");
	assert_string_equal(kp.items[0].value, "1");
}

/*
 * Case matters: Linux's parameq() makes only '-' and '_' alike, so
 * XEN_BLKFRONT.max_queues is no parameter of blkfront and
 * xen_blkfront.MAX_QUEUES none that blkfront knows (the kernel warns and
 * ignores it): neither is blkfront's max_queues.
 */
static void test_case_matters(void **state)
{
	struct xvbd_kparams kp;

	(void)state;
	xvbd_kcmdline_module_params("xen_blkfront.max_queues=1 "
				    "XEN_BLKFRONT.max_queues=4 "
				    "Xen_Blkfront.max_queues=5 "
				    "xen_blkfront.MAX_QUEUES=8", M, &kp);
	assert_string_equal(param(&kp, "max_queues")->value, "1");
	assert_null(param(&kp, "MAX_QUEUES"));
	/* a name the kernel has no parameter for is not kept */
	assert_int_equal(kp.n, 1);
	assert_int_equal(kp.skipped, 1);
	/* not the module's: the rest of the command line, compared */
	assert_false(xvbd_kcmdline_same_except("ro XEN_BLKFRONT.max_queues=1",
					       "ro XEN_BLKFRONT.max_queues=2",
					       M));
	assert_true(xvbd_kcmdline_same_except("ro xen-blkfront.max_queues=1",
					      "ro xen_blkfront.max_queues=2",
					      M));
}

/* Quotes keep blanks in a value and are taken off it. */
static void test_quotes(void **state)
{
	struct xvbd_kparams kp;

	(void)state;
	xvbd_kcmdline_module_params("a=\"x xen_blkfront.max_queues=9 y\" "
				    "xen_blkfront.x=\"two words\" "
				    "\"xen_blkfront.y=3\" "
				    "xen_blkfront.z=\"unclosed rest", M, &kp);
	/* inside a quoted value of another parameter: not a parameter */
	assert_null(param(&kp, "max_queues"));
	assert_string_equal(param(&kp, "x")->value, "two words");
	assert_string_equal(param(&kp, "y")->value, "3");
	assert_string_equal(param(&kp, "z")->value, "unclosed rest");
	assert_int_equal(kp.n, 3);
}

/* After "--" the words are init's, not the kernel's. */
static void test_end_of_params(void **state)
{
	struct xvbd_kparams kp;

	(void)state;
	xvbd_kcmdline_module_params("xen_blkfront.max_queues=2 -- "
				    "xen_blkfront.max_queues=8", M, &kp);
	assert_int_equal(kp.n, 1);
	assert_string_equal(kp.items[0].value, "2");
}

/* Very long words, odd names and too many names: bounded, counted. */
static void test_hostile_lengths(void **state)
{
	struct xvbd_kparams kp;
	size_t big = 1 << 20, i, len;
	char *line = malloc(big + 4096), *q;

	(void)state;
	assert_non_null(line);
	q = line;
	q += sprintf(q, "xen_blkfront.max_queues=");
	memset(q, '7', big);
	q += big;
	q += sprintf(q, " xen_blkfront.");
	memset(q, 'n', 200);
	q += 200;
	q += sprintf(q, "=1 xen_blkfront.a/b=1 xen_blkfront.a$b=1");
	for (i = 0; i < 20; i++)
		q += sprintf(q, " xen_blkfront.p%zu=%zu", i, i);
	*q = '\0';
	len = strlen(line);
	assert_true(len > big);
	xvbd_kcmdline_module_params(line, M, &kp);
	assert_true(param(&kp, "max_queues")->value_too_long);
	assert_string_equal(param(&kp, "max_queues")->value, "");
	assert_int_equal(kp.n, 16);
	/* the 200-byte name, two bad names, 5 beyond the 16 */
	assert_int_equal(kp.skipped, 3 + 5);
	assert_string_equal(param(&kp, "p14")->value, "14");
	assert_null(param(&kp, "p15"));
	/* a name already kept is updated even when the table is full */
	strcpy(q, " xen_blkfront.p0=x");
	xvbd_kcmdline_module_params(line, M, &kp);
	assert_string_equal(param(&kp, "p0")->value, "x");
	free(line);
}

static void test_same_except(void **state)
{
	(void)state;
	assert_true(xvbd_kcmdline_same_except(
		"root=/dev/xvda1 xen_blkfront.max_ring_page_order=0 ro",
		"root=/dev/xvda1  ro xen_blkfront.max_ring_page_order=2", M));
	assert_true(xvbd_kcmdline_same_except(NULL, "xen_blkfront.a=1", M));
	assert_false(xvbd_kcmdline_same_except("root=/dev/xvda1 ro",
					       "root=/dev/xvda1 rw", M));
	assert_false(xvbd_kcmdline_same_except("ro", "ro quiet", M));
	/* after "--" the module's words are init's: compared too */
	assert_false(xvbd_kcmdline_same_except("ro -- xen_blkfront.a=1",
					       "ro -- xen_blkfront.a=2", M));
	assert_true(xvbd_kcmdline_same_except("ro -- x", "ro  --  x", M));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain),
		cmocka_unit_test(test_repeated_and_dashes),
		cmocka_unit_test(test_case_matters),
		cmocka_unit_test(test_quotes),
		cmocka_unit_test(test_end_of_params),
		cmocka_unit_test(test_hostile_lengths),
		cmocka_unit_test(test_same_except),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
