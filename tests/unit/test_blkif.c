/*
 * Unit tests: the blkif key table, state names, backend kinds, and the
 * effective-value / warning model fed with in-memory key/value maps
 * (pure logic: no xenstore is faked here).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "xvbd/xen/blkif.h"

static void test_table_sane(void **state)
{
	size_t i, j;

	(void)state;
	assert_true(xvbd_blkif_nkeys > 40);
	for (i = 0; i < xvbd_blkif_nkeys; i++) {
		const struct xvbd_blkif_key *r = &xvbd_blkif_keys[i];

		assert_non_null(r->name);
		assert_true(r->name[0] != '\0');
		assert_non_null(r->meaning);
		assert_true(r->meaning[0] != '\0');
		assert_non_null(r->when);
		assert_true(r->side <= XVBD_SIDE_TOOLSTACK);
		assert_true(r->dir <= XVBD_DIR_FRONTEND);
		if (r->type != XVBD_KT_STRING)
			assert_true(r->min <= r->max);
		if (r->type == XVBD_KT_BOOL)
			assert_true(r->min == 0 && r->max == 1);
		if (r->type == XVBD_KT_STATE)
			assert_true(r->max == XVBD_STATE_MAX);
		/* a default must itself be valid */
		if (r->default_value)
			assert_int_equal(xvbd_blkif_key_check(r,
					 r->default_value), 0);
		/* the row is found by its own name (patterns: sample it) */
		if (!strchr(r->name, '%'))
			assert_ptr_equal(xvbd_blkif_key_find(r->dir, r->name),
					 r);
		for (j = i + 1; j < xvbd_blkif_nkeys; j++) {
			const struct xvbd_blkif_key *o = &xvbd_blkif_keys[j];

			if (r->dir == o->dir && !strcmp(r->name, o->name))
				fail_msg("duplicate key %s", r->name);
		}
	}
}

static void test_table_has_required_keys(void **state)
{
	static const struct {
		enum xvbd_dir dir;
		const char *name;
	} req[] = {
		{ XVBD_DIR_BACKEND, "max-ring-page-order" },
		{ XVBD_DIR_FRONTEND, "ring-page-order" },
		{ XVBD_DIR_BACKEND, "max-ring-pages" },
		{ XVBD_DIR_FRONTEND, "num-ring-pages" },
		{ XVBD_DIR_BACKEND, "multi-queue-max-queues" },
		{ XVBD_DIR_FRONTEND, "multi-queue-num-queues" },
		{ XVBD_DIR_FRONTEND, "queue-0/ring-ref3" },
		{ XVBD_DIR_FRONTEND, "queue-12/ring-ref" },
		{ XVBD_DIR_FRONTEND, "queue-1/event-channel" },
		{ XVBD_DIR_FRONTEND, "ring-ref" },
		{ XVBD_DIR_FRONTEND, "ring-ref15" },
		{ XVBD_DIR_FRONTEND, "event-channel" },
		{ XVBD_DIR_BACKEND, "feature-max-indirect-segments" },
		{ XVBD_DIR_BACKEND, "feature-persistent" },
		{ XVBD_DIR_FRONTEND, "feature-persistent" },
		{ XVBD_DIR_BACKEND, "feature-flush-cache" },
		{ XVBD_DIR_BACKEND, "feature-barrier" },
		{ XVBD_DIR_BACKEND, "feature-discard" },
		{ XVBD_DIR_BACKEND, "discard-granularity" },
		{ XVBD_DIR_BACKEND, "discard-alignment" },
		{ XVBD_DIR_BACKEND, "discard-secure" },
		{ XVBD_DIR_BACKEND, "discard-enable" },
		{ XVBD_DIR_FRONTEND, "trusted" },
		{ XVBD_DIR_BACKEND, "direct-io-safe" },
		{ XVBD_DIR_BACKEND, "sector-size" },
		{ XVBD_DIR_BACKEND, "physical-sector-size" },
		{ XVBD_DIR_BACKEND, "sectors" },
		{ XVBD_DIR_BACKEND, "info" },
		{ XVBD_DIR_BACKEND, "mode" },
		{ XVBD_DIR_BACKEND, "params" },
		{ XVBD_DIR_BACKEND, "type" },
		{ XVBD_DIR_FRONTEND, "protocol" },
		{ XVBD_DIR_BACKEND, "state" },
		{ XVBD_DIR_FRONTEND, "state" },
		{ XVBD_DIR_BACKEND, "hotplug-status" },
		{ XVBD_DIR_BACKEND, "physical-device" },
		{ XVBD_DIR_BACKEND, "node" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(req) / sizeof(req[0]); i++)
		if (!xvbd_blkif_key_find(req[i].dir, req[i].name))
			fail_msg("missing %s key %s",
				 xvbd_dir_name(req[i].dir), req[i].name);
	/* wildcards match canonical decimals only */
	assert_null(xvbd_blkif_key_find(XVBD_DIR_FRONTEND, "ring-ref01"));
	assert_null(xvbd_blkif_key_find(XVBD_DIR_FRONTEND, "ring-ref-1"));
	assert_null(xvbd_blkif_key_find(XVBD_DIR_FRONTEND, "queue-/ring-ref"));
	assert_null(xvbd_blkif_key_find(XVBD_DIR_FRONTEND,
					"ring-ref99999999999"));
	assert_null(xvbd_blkif_key_find(XVBD_DIR_BACKEND, "ring-page-order"));
}

static void test_key_check(void **state)
{
	const struct xvbd_blkif_key *order =
		xvbd_blkif_key_find(XVBD_DIR_FRONTEND, "ring-page-order");
	const struct xvbd_blkif_key *st =
		xvbd_blkif_key_find(XVBD_DIR_FRONTEND, "state");
	const struct xvbd_blkif_key *ssz =
		xvbd_blkif_key_find(XVBD_DIR_BACKEND, "sector-size");

	(void)state;
	assert_int_equal(xvbd_blkif_key_check(order, "4"), 0);
	assert_int_equal(xvbd_blkif_key_check(order, "5"), -ERANGE);
	assert_int_equal(xvbd_blkif_key_check(order, "x"), -EINVAL);
	assert_int_equal(xvbd_blkif_key_check(st, "8"), 0);
	assert_int_equal(xvbd_blkif_key_check(st, "9"), -ERANGE);
	assert_int_equal(xvbd_blkif_key_check(ssz, "256"), -ERANGE);
}

static void test_state_names(void **state)
{
	static const char *const names[] = {
		"Unknown", "Initialising", "InitWait", "Initialised",
		"Connected", "Closing", "Closed", "Reconfiguring",
		"Reconfigured",
	};
	unsigned i;

	(void)state;
	for (i = 0; i <= XVBD_STATE_MAX; i++)
		assert_string_equal(xvbd_state_name(i), names[i]);
	assert_null(xvbd_state_name(9));
	assert_null(xvbd_state_name(UINT64_MAX));
}

static void test_be_kind(void **state)
{
	(void)state;
	assert_int_equal(xvbd_be_kind("phy", "/dev/loop0", false),
			 XVBD_BE_FILE_LOOP);
	assert_int_equal(xvbd_be_kind("phy", NULL, true), XVBD_BE_FILE_LOOP);
	assert_int_equal(xvbd_be_kind("phy", "/dev/sdb", false), XVBD_BE_PHY);
	assert_int_equal(xvbd_be_kind("qdisk", NULL, true), XVBD_BE_QDISK);
	assert_int_equal(xvbd_be_kind("vbd3", NULL, false), XVBD_BE_TAP);
	assert_int_equal(xvbd_be_kind(NULL, NULL, false), XVBD_BE_UNKNOWN);
	assert_string_equal(xvbd_be_kind_name(XVBD_BE_FILE_LOOP),
			    "file-via-loop");
	assert_null(xvbd_be_kind_name(XVBD_BE_UNKNOWN));
}

/* ---- model ---- */

struct fixture {
	struct xvbd_kvmap be, fe;
	struct xvbd_blkif_eval ev;
};

static int setup(void **state)
{
	static struct fixture f;

	memset(&f, 0, sizeof(f));
	*state = &f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	xvbd_kvmap_free(&f->be);
	xvbd_kvmap_free(&f->fe);
	return 0;
}

/* "key=value" pairs, NULL-terminated */
static void fill(struct xvbd_kvmap *map, const char *const *pairs)
{
	char key[64];

	for (; *pairs; pairs++) {
		const char *eq = strchr(*pairs, '=');

		assert_non_null(eq);
		memcpy(key, *pairs, (size_t)(eq - *pairs));
		key[eq - *pairs] = '\0';
		assert_int_equal(xvbd_kvmap_set(map, key, eq + 1), 0);
	}
}

static void eval(struct fixture *f, const char *error_text)
{
	struct xvbd_blkif_input in = {
		.backend = &f->be, .frontend = &f->fe, .error_text = error_text,
	};

	xvbd_blkif_evaluate(&in, &f->ev);
}

static bool has_warning(const struct fixture *f, const char *needle)
{
	size_t i;

	for (i = 0; i < f->ev.nwarnings; i++)
		if (strstr(f->ev.warnings[i], needle))
			return true;
	return false;
}

/* What the lab saw: Linux 6.1 defaults, file via loop, Connected. */
static const char *const lab_backend[] = {
	"params=/images/a.img", "script=/etc/xen/scripts/block", "state=4",
	"type=phy", "mode=w", "node=/dev/loop0", "physical-device=7:0",
	"hotplug-status=connected", "feature-flush-cache=1",
	"feature-discard=1", "feature-barrier=0", "feature-persistent=1",
	"sectors=65536", "sector-size=512", "discard-granularity=4096",
	"max-ring-page-order=4", "multi-queue-max-queues=2",
	"feature-max-indirect-segments=256", NULL,
};

static void test_model_lab_default(void **state)
{
	struct fixture *f = *state;
	static const char *const fe[] = {
		"state=4", "protocol=x86_64-abi", "ring-ref=8",
		"event-channel=5", "feature-persistent=1", "trusted=1", NULL,
	};

	fill(&f->be, lab_backend);
	fill(&f->fe, fe);
	eval(f, NULL);
	assert_int_equal(f->ev.nwarnings, 0);
	assert_true(f->ev.ring_pages.known && f->ev.ring_pages.v == 1);
	assert_true(f->ev.queues.known && f->ev.queues.v == 1);
	assert_true(f->ev.indirect_offered.known &&
		    f->ev.indirect_offered.v == 256);
	assert_true(f->ev.persistent.known && f->ev.persistent.v == 1);
	assert_true(f->ev.size_bytes.known &&
		    f->ev.size_bytes.v == 65536ull * 512);
	assert_true(f->ev.nego[XVBD_NEGO_RING_ORDER].offer.v == 4);
	assert_true(f->ev.nego[XVBD_NEGO_RING_ORDER].choice.v == 0);
	/* blkfront's own limit is not in xenstore: effective unknown */
	assert_false(f->ev.nego[XVBD_NEGO_INDIRECT].effective.known);
	assert_true(f->ev.nego[XVBD_NEGO_DISCARD].effective.v == 1);
}

static void test_model_multipage_multiqueue(void **state)
{
	struct fixture *f = *state;
	static const char *const fe[] = {
		"state=4", "ring-page-order=1", "multi-queue-num-queues=2",
		"queue-0/ring-ref0=1", "queue-0/ring-ref1=2",
		"queue-0/event-channel=3", "queue-1/ring-ref0=4",
		"queue-1/ring-ref1=5", "queue-1/event-channel=6",
		"feature-persistent=0", NULL,
	};
	struct xvbd_blkif_input in = { 0 };

	fill(&f->be, lab_backend);
	fill(&f->fe, fe);
	in.backend = &f->be;
	in.frontend = &f->fe;
	in.fe_indirect_limit.known = true;
	in.fe_indirect_limit.v = 32;
	xvbd_blkif_evaluate(&in, &f->ev);
	assert_int_equal(f->ev.nwarnings, 0);
	assert_true(f->ev.ring_pages.v == 2);
	assert_true(f->ev.queues.v == 2);
	assert_true(f->ev.persistent.known && f->ev.persistent.v == 0);
	/* min(backend offer 256, frontend limit 32) */
	assert_true(f->ev.nego[XVBD_NEGO_INDIRECT].effective.known &&
		    f->ev.nego[XVBD_NEGO_INDIRECT].effective.v == 32);
}

static void test_model_too_big(void **state)
{
	struct fixture *f = *state;
	static const char *const be[] = {
		"state=6", "type=phy", "hotplug-status=connected",
		"max-ring-page-order=1", "multi-queue-max-queues=1",
		"max-ring-pages=4", NULL,
	};
	static const char *const fe[] = {
		"state=6", "ring-page-order=3", "num-ring-pages=4",
		"multi-queue-num-queues=2", NULL,
	};

	fill(&f->be, be);
	fill(&f->fe, fe);
	eval(f, "22 requested ring page order 3 exceed max:1");
	assert_true(has_warning(f, "ring-page-order 3 above backend "
				   "max-ring-page-order 1"));
	assert_true(has_warning(f, "multi-queue-num-queues 2 above"));
	assert_true(has_warning(f, "num-ring-pages=4 disagrees"));
	assert_true(has_warning(f, "max-ring-pages=4 disagrees"));
	assert_true(has_warning(f, "backend Closed: 22 requested ring page"));
	assert_false(f->ev.ring_pages.known);
	assert_false(f->ev.queues.known);
}

static void test_model_waiting(void **state)
{
	struct fixture *f = *state;
	static const char *const be[] = {
		"state=2", "type=phy", "max-ring-page-order=4", NULL,
	};
	static const char *const fe[] = { "state=1", NULL };

	fill(&f->be, be);
	fill(&f->fe, fe);
	eval(f, NULL);
	assert_true(has_warning(f, "waiting for the frontend (guest paused or "
				   "no blkfront?)"));
	assert_true(has_warning(f, "hotplug script failed / still running"));
	assert_false(f->ev.ring_pages.known);
	assert_false(f->ev.persistent.known);
	/* probe keys are due at InitWait: absent ones take defaults */
	assert_true(f->ev.indirect_offered.known &&
		    f->ev.indirect_offered.v == 0);
}

static void test_model_ring_refs(void **state)
{
	struct fixture *f = *state;
	static const char *const fe[] = {
		"state=4", "ring-page-order=2", "ring-ref0=1", "ring-ref1=2",
		"ring-ref2=3", "ring-ref9=4", "event-channel=7", NULL,
	};

	fill(&f->be, lab_backend);
	fill(&f->fe, fe);
	eval(f, NULL);
	assert_true(has_warning(f, "ring-ref count 3 (+1 extra) does not "
				   "match 2^ring-page-order = 4"));
}

static void test_model_hotplug_and_garbage(void **state)
{
	struct fixture *f = *state;
	static const char *const be[] = {
		"state=2", "type=phy", "hotplug-status=error", NULL,
	};
	static const char *const fe[] = {
		"state=banana", "ring-page-order=-1",
		"feature-persistent=2", "event-channel=99999999999", NULL,
	};

	fill(&f->be, be);
	fill(&f->fe, fe);
	eval(f, NULL);
	assert_true(has_warning(f, "hotplug-status \"error\""));
	assert_true(has_warning(f, "frontend key state: invalid value"));
	assert_true(has_warning(f, "frontend key ring-page-order: invalid"));
	assert_true(has_warning(f, "frontend key feature-persistent: out of "
				   "range"));
	assert_true(has_warning(f, "frontend key event-channel: out of range"));
	assert_false(f->ev.frontend_state.known);
	assert_false(f->ev.ring_pages.known);
}

static void test_model_sector_size(void **state)
{
	struct fixture *f = *state;
	static const char *const be[] = {
		"state=4", "sectors=1000", "sector-size=4096", NULL,
	};
	static const char *const fe[] = { "state=4", "ring-ref=1",
		"event-channel=2", NULL };

	fill(&f->be, be);
	fill(&f->fe, fe);
	eval(f, NULL);
	/* no feature-large-sector-size: 512-byte units (Linux blkback) */
	assert_true(f->ev.size_bytes.v == 512000);
	assert_true(has_warning(f, "lacks feature-large-sector-size"));
	xvbd_kvmap_set(&f->fe, "feature-large-sector-size", "1");
	eval(f, NULL);
	assert_true(f->ev.size_bytes.v == 4096000);
	assert_false(has_warning(f, "feature-large-sector-size"));
}

static void test_model_empty(void **state)
{
	struct fixture *f = *state;

	eval(f, NULL);
	assert_int_equal(f->ev.nwarnings, 0);
	assert_false(f->ev.backend_state.known);
	assert_false(f->ev.size_bytes.known);
	assert_false(f->ev.indirect_offered.known);
	assert_string_equal(f->ev.nego[XVBD_NEGO_QUEUES].key,
			    "multi-queue-num-queues");
}

#define MODEL_TEST(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table_sane),
		cmocka_unit_test(test_table_has_required_keys),
		cmocka_unit_test(test_key_check),
		cmocka_unit_test(test_state_names),
		cmocka_unit_test(test_be_kind),
		MODEL_TEST(test_model_lab_default),
		MODEL_TEST(test_model_multipage_multiqueue),
		MODEL_TEST(test_model_too_big),
		MODEL_TEST(test_model_waiting),
		MODEL_TEST(test_model_ring_refs),
		MODEL_TEST(test_model_hotplug_and_garbage),
		MODEL_TEST(test_model_sector_size),
		MODEL_TEST(test_model_empty),
	};

	return cmocka_run_group_tests_name("blkif", tests, NULL, NULL);
}
