/* Unit tests: PV or emulated disk path - xl's guest types, the on/off
 * plan, and the verdict on a VBD from (possibly hostile) xenbus states. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "xvbd/xen/pvpath.h"

static char why[256];

static void test_guest_type(void **state)
{
	enum xvbd_guest_type t;

	(void)state;
	assert_int_equal(xvbd_guest_type_from_xl(NULL, NULL, &t), 0);
	assert_int_equal(t, XVBD_GUEST_PV);
	assert_int_equal(xvbd_guest_type_from_xl("hvm", NULL, &t), 0);
	assert_int_equal(t, XVBD_GUEST_HVM);
	assert_int_equal(xvbd_guest_type_from_xl("pvh", NULL, &t), 0);
	assert_int_equal(t, XVBD_GUEST_PVH);
	/* xl's prefix rule: "h" is hvm, "p" is pv, "" is hvm */
	assert_int_equal(xvbd_guest_type_from_xl("h", NULL, &t), 0);
	assert_int_equal(t, XVBD_GUEST_HVM);
	assert_int_equal(xvbd_guest_type_from_xl("p", NULL, &t), 0);
	assert_int_equal(t, XVBD_GUEST_PV);
	assert_int_equal(xvbd_guest_type_from_xl("", NULL, &t), 0);
	assert_int_equal(t, XVBD_GUEST_HVM);
	assert_int_equal(xvbd_guest_type_from_xl(NULL, "hvm", &t), 0);
	assert_int_equal(t, XVBD_GUEST_HVM);
	assert_int_equal(xvbd_guest_type_from_xl(NULL, "generic", &t), 0);
	assert_int_equal(t, XVBD_GUEST_PV);
	assert_int_equal(xvbd_guest_type_from_xl("hvm", "hvm", &t), 0);
	assert_int_equal(xvbd_guest_type_from_xl("pv", "hvm", &t), -EINVAL);
	assert_int_equal(xvbd_guest_type_from_xl("hvmx", NULL, &t), -EINVAL);
	assert_int_equal(xvbd_guest_type_from_xl(NULL, "linux", &t), -EINVAL);
	assert_string_equal(xvbd_guest_type_name(XVBD_GUEST_PVH), "pvh");
}

static void test_unplug_never(void **state)
{
	(void)state;
	assert_true(xvbd_pv_unplug_never("console=hvc0 xen_emul_unplug=never"));
	assert_true(xvbd_pv_unplug_never("xen_emul_unplug=ide-disks,never"));
	assert_false(xvbd_pv_unplug_never("xen_emul_unplug=all"));
	assert_false(xvbd_pv_unplug_never("xen_emul_unplug=nevermore"));
	assert_false(xvbd_pv_unplug_never("x.xen_emul_unplug=never"));
	assert_false(xvbd_pv_unplug_never(NULL));
	assert_false(xvbd_pv_unplug_never(""));
}

/* A config text, its facts (as libxlutil would read them), a want. */
struct plan_case {
	const char *text;
	struct xvbd_pv_facts f;
	struct xvbd_pv_want w;
};

static int plan(const struct plan_case *c, char **out,
		struct xvbd_pv_plan *p)
{
	struct xvbd_xlcfg_scan scan;
	int rc;

	*out = NULL;
	rc = xvbd_xlcfg_scan(c->text, strlen(c->text), &scan, why,
			     sizeof(why));
	assert_int_equal(rc, 0);
	rc = xvbd_pv_plan(&scan, &c->f, &c->w, p, why, sizeof(why));
	if (!rc)
		assert_int_equal(xvbd_xlcfg_apply(c->text, strlen(c->text),
						  &p->edits, out, NULL), 0);
	xvbd_xlcfg_scan_free(&scan);
	return rc;
}

static void expect_plan(const struct plan_case *c, const char *want)
{
	struct xvbd_pv_plan p;
	char *out;

	if (plan(c, &out, &p))
		fail_msg("plan of \"%s\": %s", c->text, why);
	assert_string_equal(out, want);
	free(out);
	xvbd_pv_plan_free(&p);
}

static void test_plan(void **state)
{
	const struct xvbd_pv_facts hvm = { XVBD_GUEST_HVM, false, true, false,
					   "extra", NULL };
	struct plan_case c = { "name = 'w'\ntype = 'hvm'\n", hvm,
			       { false, false } };
	struct xvbd_pv_plan p;
	char *out;

	(void)state;
	/* off: appended; on with the default: nothing to do */
	expect_plan(&c, "name = 'w'\ntype = 'hvm'\nxen_platform_pci = 0\n");
	c.w.on = true;
	expect_plan(&c, c.text);

	c.text = "type='hvm' # t\nxen_platform_pci = 0 # no PV\n";
	c.f.platform_set = true;
	c.f.platform_on = false;
	expect_plan(&c, "type='hvm' # t\nxen_platform_pci = 1 # no PV\n");
	assert_int_equal(plan(&c, &out, &p), 0);
	assert_true(p.platform_edit);
	assert_true(p.platform_after);
	assert_null(p.cmdline_key);
	free(out);
	xvbd_pv_plan_free(&p);
	c.w.on = false;
	expect_plan(&c, c.text);	/* already off */

	/* set twice: refused whatever the wish */
	c.text = "xen_platform_pci = 0\nxen_platform_pci = 0\n";
	assert_int_equal(plan(&c, &out, &p), -EEXIST);
	c.w.on = true;
	assert_int_equal(plan(&c, &out, &p), -EEXIST);

	/* PV and PVH: off refused, on nothing to do */
	c.text = "type = 'pvh'\n";
	c.f.type = XVBD_GUEST_PVH;
	c.w.on = false;
	assert_int_equal(plan(&c, &out, &p), -EPERM);
	assert_non_null(strstr(why, "PVH"));
	c.f.type = XVBD_GUEST_PV;
	assert_int_equal(plan(&c, &out, &p), -EPERM);
	assert_non_null(strstr(why, "only disk path"));
	c.w.on = true;
	assert_int_equal(plan(&c, &out, &p), 0);
	assert_true(p.pv_only);
	assert_int_equal(p.edits.n, 0);
	free(out);
	xvbd_pv_plan_free(&p);
}

static void test_plan_linux_unplug(void **state)
{
	const struct xvbd_pv_facts hvm = { XVBD_GUEST_HVM, false, true, true,
					   "extra", "console=ttyS0" };
	struct plan_case c = { "kernel = '/k'\nextra = 'console=ttyS0'\n",
			       hvm, { false, true } };
	struct xvbd_pv_plan p;
	char *out;

	(void)state;
	expect_plan(&c, "kernel = '/k'\nextra = 'console=ttyS0 "
		    "xen_emul_unplug=never'\nxen_platform_pci = 0\n");
	assert_int_equal(plan(&c, &out, &p), 0);
	assert_string_equal(p.cmdline_key, "extra");
	assert_string_equal(p.cmdline_before, "console=ttyS0");
	assert_string_equal(p.cmdline_after,
			    "console=ttyS0 xen_emul_unplug=never");
	free(out);
	xvbd_pv_plan_free(&p);

	/* cmdline= wins over extra= in xl: that one is edited */
	c.text = "kernel='/k'\nextra='a'\ncmdline=\"b\"\nxen_platform_pci=1\n";
	c.f.cmdline_key = "cmdline";
	c.f.cmdline = "b";
	c.f.platform_set = true;
	expect_plan(&c, "kernel='/k'\nextra='a'\ncmdline=\"b "
		    "xen_emul_unplug=never\"\nxen_platform_pci=0\n");

	/* no command line yet: extra= appended */
	c.text = "kernel = '/k'\n";
	c.f.cmdline_key = "extra";
	c.f.cmdline = NULL;
	c.f.platform_set = false;
	expect_plan(&c, "kernel = '/k'\nxen_platform_pci = 0\n"
		    "extra = \"xen_emul_unplug=never\"\n");

	/* on: the word goes, the rest of the line stays */
	c.text = "kernel='/k'\nextra='a xen_emul_unplug=never b'\n"
		 "xen_platform_pci=0\n";
	c.f.cmdline = "a xen_emul_unplug=never b";
	c.f.platform_set = true;
	c.f.platform_on = false;
	c.w.on = true;
	expect_plan(&c, "kernel='/k'\nextra='a b'\nxen_platform_pci=1\n");
	/* ... but not when never hides among other values */
	c.text = "kernel='/k'\nextra='xen_emul_unplug=all,never'\n";
	c.f.cmdline = "xen_emul_unplug=all,never";
	c.f.platform_set = false;
	c.f.platform_on = true;
	assert_int_equal(plan(&c, &out, &p), -EINVAL);
	/* off when the line already keeps the disks: only the switch */
	c.w.on = false;
	expect_plan(&c, "kernel='/k'\nextra='xen_emul_unplug=all,never'\n"
		    "xen_platform_pci = 0\n");

	/* no direct kernel boot: refused */
	c.f.kernel_direct = false;
	assert_int_equal(plan(&c, &out, &p), -EINVAL);
	assert_non_null(strstr(why, "kernel="));
	/* libxlutil and the text disagree: refused */
	c.f.kernel_direct = true;
	c.f.cmdline = "other";
	assert_int_equal(plan(&c, &out, &p), -EINVAL);
}

static void test_expect(void **state)
{
	struct xvbd_pv_facts f = { XVBD_GUEST_HVM, false, true, false,
				   "extra", NULL };
	const char *w;

	(void)state;
	assert_int_equal(xvbd_pv_expect(&f, &w), XVBD_PV_EXPECT_DRIVERS);
	f.kernel_direct = true;
	f.cmdline = "xen_emul_unplug=never";
	assert_int_equal(xvbd_pv_expect(&f, &w), XVBD_PV_EXPECT_EMULATED);
	assert_non_null(strstr(w, "never"));
	f.platform_on = false;
	assert_int_equal(xvbd_pv_expect(&f, &w), XVBD_PV_EXPECT_EMULATED);
	assert_non_null(strstr(w, "xen_platform_pci"));
	f.type = XVBD_GUEST_PV;
	assert_int_equal(xvbd_pv_expect(&f, &w), XVBD_PV_EXPECT_PV);
	assert_string_equal(xvbd_pv_expect_name(XVBD_PV_EXPECT_DRIVERS),
			    "pv-if-drivers");
}

static enum xvbd_pv_path classify(enum xvbd_guest_type type, const char *fe,
				  const char *be, uint64_t up,
				  const char *blocked,
				  struct xvbd_pv_verdict *v)
{
	struct xvbd_pv_path_in in = { type, fe, be, true, up,
				      XVBD_PV_SETTLE_S_DEFAULT, blocked };

	xvbd_pv_classify(&in, v);
	return v->path;
}

static void test_classify(void **state)
{
	struct xvbd_pv_verdict v;
	struct xvbd_pv_path_in in = { XVBD_GUEST_PV, "1", "2", false, 0,
				      120, NULL };

	(void)state;
	assert_int_equal(classify(XVBD_GUEST_PV, "4", "4", 30, NULL, &v),
			 XVBD_PATH_PV);
	assert_non_null(strstr(v.evidence, "Connected"));
	assert_int_equal(classify(XVBD_GUEST_HVM, "4", "4", 5, NULL, &v),
			 XVBD_PATH_PV);
	/* held back: never PV, with the time waited */
	assert_int_equal(classify(XVBD_GUEST_PV, "1", "2", 312, NULL, &v),
			 XVBD_PATH_NOT_CONNECTED);
	assert_non_null(strstr(v.evidence, "Initialising"));
	assert_non_null(strstr(v.evidence, "312 s"));
	assert_int_equal(classify(XVBD_GUEST_PVH, "1", "2", 9999, NULL, &v),
			 XVBD_PATH_NOT_CONNECTED);
	/* HVM: emulated only after the settle time ... */
	assert_int_equal(classify(XVBD_GUEST_HVM, "1", "2", 119, NULL, &v),
			 XVBD_PATH_NOT_CONNECTED);
	assert_non_null(strstr(v.evidence, "too early"));
	assert_int_equal(classify(XVBD_GUEST_HVM, "1", "2", 120, NULL, &v),
			 XVBD_PATH_EMULATED);
	assert_non_null(strstr(v.evidence, "120 s"));
	/* ... or at once when the configuration stops the drivers */
	assert_int_equal(classify(XVBD_GUEST_HVM, "1", "2", 3,
				  "xen_platform_pci is off", &v),
			 XVBD_PATH_EMULATED);
	assert_non_null(strstr(v.evidence, "xen_platform_pci is off"));
	/* the guest's word alone is not enough */
	assert_int_equal(classify(XVBD_GUEST_PV, "4", "2", 30, NULL, &v),
			 XVBD_PATH_NOT_CONNECTED);
	assert_int_equal(classify(XVBD_GUEST_PV, "4", NULL, 30, NULL, &v),
			 XVBD_PATH_NOT_CONNECTED);
	/* hostile or missing frontend values */
	assert_int_equal(classify(XVBD_GUEST_HVM, "04", "4", 300, NULL, &v),
			 XVBD_PATH_UNKNOWN);
	assert_int_equal(classify(XVBD_GUEST_HVM, "4 ", "4", 300, NULL, &v),
			 XVBD_PATH_UNKNOWN);
	assert_int_equal(classify(XVBD_GUEST_HVM, "9", "4", 300, NULL, &v),
			 XVBD_PATH_UNKNOWN);
	assert_int_equal(classify(XVBD_GUEST_HVM, "\x1b[2J", "4", 300, NULL,
				  &v), XVBD_PATH_UNKNOWN);
	assert_int_equal(classify(XVBD_GUEST_HVM, NULL, "4", 300, NULL, &v),
			 XVBD_PATH_UNKNOWN);
	assert_false(v.frontend.known);
	/* closed or connecting: not connected, whatever the type */
	assert_int_equal(classify(XVBD_GUEST_HVM, "6", "6", 300, NULL, &v),
			 XVBD_PATH_NOT_CONNECTED);
	assert_non_null(strstr(v.evidence, "Closed"));
	assert_int_equal(classify(XVBD_GUEST_PV, "3", "2", 300, NULL, &v),
			 XVBD_PATH_NOT_CONNECTED);
	/* uptime unknown: HVM cannot be judged */
	in.type = XVBD_GUEST_HVM;
	xvbd_pv_classify(&in, &v);
	assert_int_equal(v.path, XVBD_PATH_NOT_CONNECTED);
	assert_non_null(strstr(v.evidence, "unknown time"));
	assert_string_equal(xvbd_pv_path_name(XVBD_PATH_NOT_CONNECTED),
			    "not-connected");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_guest_type),
		cmocka_unit_test(test_unplug_never),
		cmocka_unit_test(test_plan),
		cmocka_unit_test(test_plan_linux_unplug),
		cmocka_unit_test(test_expect),
		cmocka_unit_test(test_classify),
	};

	return cmocka_run_group_tests_name("pvpath", tests, NULL, NULL);
}
