/*
 * Unit tests: xvbd apply's reading of a guest with more disks than any
 * fixed table would hold (a guest may have hundreds: libxl's list has no
 * bound, and a plan may add 64 more).  apply_read (apply_run.c) runs under
 * ASan against a disk layer faked here with N disks: every disk gets its
 * item, none is written past the end, and the warnings stay bounded.  The
 * disk layer's actions are faked too; nothing here touches Xen.
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

#include "../../src/cmd/apply/apply_impl.h"

static size_t fake_n;

/* ---- the disk layer, faked: fake_n disks xvdb, xvdc, ... ---- */

int xvbd_disk_observe_all(const struct xvbd_disk_env *env,
			  const struct xvbd_disk_dom *dom,
			  struct xvbd_disk_seen **seen, size_t *n)
{
	size_t i;

	(void)env;
	(void)dom;
	*seen = calloc(fake_n ? fake_n : 1, sizeof(**seen));
	if (!*seen)
		return -ENOMEM;
	for (i = 0; i < fake_n; i++) {
		struct xvbd_disk_seen *s = &(*seen)[i];

		/* devids 51728 + 16 i: xvdb, xvdc, ..., past xvdz as 202:N */
		s->handle.devid = 51728 + 16 * (uint32_t)i;
		snprintf(s->handle.vdev, sizeof(s->handle.vdev), "%u",
			 s->handle.devid);
		snprintf(s->desc.target, sizeof(s->desc.target),
			 "/s/%zu.img", i);
		s->desc.readwrite = true;
		s->bstate = s->fstate = XVBD_STATE_CONNECTED;
	}
	*n = fake_n;
	return 0;
}

int xvbd_disk_attach(const struct xvbd_disk_env *env,
		     struct xvbd_disk_dom *dom,
		     const struct xvbd_disk_desc *descs, size_t n,
		     const struct xvbd_disk_attach_opts *opts,
		     struct xvbd_disk_handle *handles,
		     struct xvbd_disk_attach_result *res)
{
	(void)env; (void)dom; (void)descs; (void)n; (void)opts;
	(void)handles; (void)res;
	return XVBD_EXIT_FAIL;
}

int xvbd_disk_tune(const struct xvbd_disk_env *env, struct xvbd_disk_dom *dom,
		   const struct xvbd_disk_handle *h,
		   const struct xvbd_ovr_set *set,
		   const struct xvbd_disk_tune_opts *opts,
		   struct xvbd_disk_tune_result *res)
{
	(void)env; (void)dom; (void)h; (void)set; (void)opts; (void)res;
	return XVBD_EXIT_FAIL;
}

void xvbd_disk_tune_free(struct xvbd_disk_tune_result *res)
{
	(void)res;
}

int xvbd_disk_detach(const struct xvbd_disk_env *env,
		     const struct xvbd_disk_handle *h,
		     const struct xvbd_disk_detach_opts *opts,
		     struct xvbd_disk_detach_result *res)
{
	(void)env; (void)h; (void)opts;
	memset(res, 0, sizeof(*res));
	return XVBD_EXIT_FAIL;
}

/* ---- cmd_apply.c's helpers (its command needs a connection) ---- */

/* Counted only (cmd_apply.c keeps at most 16). */
void apply_warn(struct apply *ap, const char *fmt, ...)
{
	(void)fmt;
	ap->nwarnings++;
}

const char *apply_key_name(enum apply_key k)
{
	return k < K_OFFER ? "key" : "offer";
}

const char *apply_act_name(enum apply_act a)
{
	return a == ACT_DETACH ? "detach" : "other";
}

/* ---- the tests ---- */

static struct apply *read_guest(const char *plan, size_t present,
				bool prune)
{
	struct apply *ap = calloc(1, sizeof(*ap));
	char why[512];

	assert_non_null(ap);
	assert_int_equal(xvbd_apply_plan_parse(plan, strlen(plan), &ap->plan,
					       why, sizeof(why)), 0);
	ap->plan_path = "plan.json";
	ap->prune = prune;
	ap->dom.lock_fd = -1;
	fake_n = present;
	assert_int_equal(apply_read(ap), 0);
	return ap;
}

static void done(struct apply *ap)
{
	apply_free(ap);
	free(ap);
}

/* An empty plan beside 129, 130 and 600 disks: one item each. */
static void test_many_present(void **state)
{
	static const size_t counts[] = { 0, 128, 129, 130, 600 };
	struct apply *ap;
	size_t c, i;

	(void)state;
	for (c = 0; c < sizeof(counts) / sizeof(counts[0]); c++) {
		ap = read_guest("{\"guest\": \"g\", \"disks\": []}",
				counts[c], false);
		assert_int_equal(ap->n, counts[c]);
		for (i = 0; i < ap->n; i++) {
			assert_null(ap->items[i].plan);
			assert_int_equal(ap->items[i].act, ACT_NONE);
			assert_int_equal(ap->items[i].devid,
					 51728 + 16 * (uint32_t)i);
		}
		/* "not in the plan: kept", one each */
		assert_int_equal(ap->nwarnings, counts[c]);
		done(ap);
	}
	ap = read_guest("{\"guest\": \"g\", \"disks\": []}", 300, true);
	assert_int_equal(ap->n, 300);
	assert_int_equal(ap->items[299].act, ACT_DETACH);
	done(ap);
}

/* A full plan (64 disks) beside 200 others, two of them planned. */
static void test_plan_and_present(void **state)
{
	char *plan = malloc(64 * 80 + 64);
	size_t n, i, planned = 0, attach = 0;
	struct apply *ap;

	(void)state;
	assert_non_null(plan);
	n = (size_t)sprintf(plan, "{\"guest\": \"g\", \"disks\": [");
	for (i = 0; i < 64; i++)
		n += (size_t)sprintf(plan + n, "%s{\"vdev\": \"%u\", \"file\": "
				     "\"/p/%zu.img\"}", i ? "," : "",
				     51728 + 16 * (unsigned)(i * 3), i);
	sprintf(plan + n, "]}");
	ap = read_guest(plan, 200, false);
	/* planned: 64; present and not planned: 200 - those the plan
	 * names (devid index 0, 3, ... 189: 64 of them) */
	assert_int_equal(ap->n, 64 + 200 - 64);
	for (i = 0; i < ap->n; i++) {
		planned += ap->items[i].plan != NULL;
		attach += ap->items[i].act == ACT_ATTACH;
	}
	assert_int_equal(planned, 64);
	assert_int_equal(attach, 0);	/* each planned vdev is present */
	done(ap);
	free(plan);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_many_present),
		cmocka_unit_test(test_plan_and_present),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
