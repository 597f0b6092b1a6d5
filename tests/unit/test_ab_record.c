/*
 * Unit tests: A/B records.  Fingerprint facts, labels and ids, the JSON
 * round trip (counters above LLONG_MAX included), every kind of damage a
 * record file can have (one-line error, nothing leaked), and the store:
 * atomic writes that never replace, listing that skips temporaries,
 * selection by path, id and label.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "xvbd/ab/ab.h"
#include "xvbd/ab/ab_record_impl.h"
#include "xvbd/dom0/sysfs.h"

#define NS	UINT64_C(1000000000)
/* 2024-05-01T12:00:00Z */
#define T0_NS	(INT64_C(1714564800) * (int64_t)NS)

/* ---- fingerprint ---- */

static void test_fp(void **state)
{
	struct xvbd_ab_fp fp = { 0 };

	(void)state;
	assert_int_equal(xvbd_ab_fp_set(&fp, "xen.version", "%s", "4.17.7"),
			 0);
	assert_int_equal(xvbd_ab_fp_set(&fp, "guest.vcpus", "%u", 2u), 0);
	assert_int_equal(xvbd_ab_fp_set(&fp, "blkback.max_ring_page_order",
					"%d", 4), 0);
	assert_int_equal(xvbd_ab_fp_set(&fp, "vbd.xvda.backend", "phy"), 0);
	/* kept sorted */
	assert_int_equal(fp.n, 4);
	assert_string_equal(fp.facts[0].key, "blkback.max_ring_page_order");
	assert_string_equal(fp.facts[3].key, "xen.version");
	/* replace */
	assert_int_equal(xvbd_ab_fp_set(&fp, "guest.vcpus", "%u", 4u), 0);
	assert_int_equal(fp.n, 4);
	assert_string_equal(xvbd_ab_fp_get(&fp, "guest.vcpus"), "4");
	assert_null(xvbd_ab_fp_get(&fp, "guest.mem_bytes"));
	/* control bytes and non-ASCII are escaped on the way in */
	assert_int_equal(xvbd_ab_fp_set(&fp, "vbd.xvda.target", "a\nb\x7f\xc3"),
			 0);
	assert_string_equal(xvbd_ab_fp_get(&fp, "vbd.xvda.target"),
			    "a\\x0ab\\x7f\\xc3");
	/* keys: dotted lower case only */
	assert_int_equal(xvbd_ab_fp_set(&fp, "Xen", "1"), -EINVAL);
	assert_int_equal(xvbd_ab_fp_set(&fp, "", "1"), -EINVAL);
	assert_int_equal(xvbd_ab_fp_set(&fp, ".a", "1"), -EINVAL);
	assert_int_equal(xvbd_ab_fp_set(&fp, "a.", "1"), -EINVAL);
	assert_int_equal(xvbd_ab_fp_set(&fp, "a..b", "1"), -EINVAL);
	assert_int_equal(xvbd_ab_fp_set(&fp, "a b", "1"), -EINVAL);
	assert_int_equal(fp.n, 5);
	xvbd_ab_fp_free(&fp);
	assert_int_equal(fp.n, 0);
	assert_null(fp.facts);
}

/* ---- labels and ids ---- */

static void test_labels_ids(void **state)
{
	char id[XVBD_AB_ID_MAX], label[XVBD_AB_ID_MAX];
	char long_label[XVBD_AB_LABEL_MAX + 2];

	(void)state;
	assert_true(xvbd_ab_label_valid("base"));
	assert_true(xvbd_ab_label_valid("ring-order_4.x"));
	assert_true(xvbd_ab_label_valid("A"));
	assert_false(xvbd_ab_label_valid(""));
	assert_false(xvbd_ab_label_valid(NULL));
	assert_false(xvbd_ab_label_valid(".hidden"));
	assert_false(xvbd_ab_label_valid("-opt"));
	assert_false(xvbd_ab_label_valid("../x"));
	assert_false(xvbd_ab_label_valid("a/b"));
	assert_false(xvbd_ab_label_valid("a b"));
	assert_false(xvbd_ab_label_valid("caf\xc3\xa9"));
	memset(long_label, 'a', sizeof(long_label) - 1);
	long_label[XVBD_AB_LABEL_MAX] = '\0';
	assert_true(xvbd_ab_label_valid(long_label));
	long_label[XVBD_AB_LABEL_MAX] = 'a';
	long_label[XVBD_AB_LABEL_MAX + 1] = '\0';
	assert_false(xvbd_ab_label_valid(long_label));

	assert_int_equal(xvbd_ab_make_id("base-1", T0_NS + 5, id, sizeof(id)),
			 0);
	assert_int_equal(strlen(id), strlen("base-1-20240501T120000-abcd"));
	assert_memory_equal(id, "base-1-20240501T120000-", 23);
	assert_true(xvbd_ab_id_split(id, label, sizeof(label)));
	assert_string_equal(label, "base-1");
	assert_int_equal(xvbd_ab_make_id("../x", T0_NS, id, sizeof(id)),
			 -EINVAL);
	assert_int_equal(xvbd_ab_make_id("base", -1, id, sizeof(id)),
			 -EINVAL);
	assert_int_equal(xvbd_ab_make_id("base", T0_NS, id, 10),
			 -ENAMETOOLONG);
	/* the longest label still makes an id */
	long_label[XVBD_AB_LABEL_MAX] = '\0';
	assert_int_equal(xvbd_ab_make_id(long_label, T0_NS, id, sizeof(id)),
			 0);
	assert_true(xvbd_ab_id_split(id, label, sizeof(label)));

	assert_false(xvbd_ab_id_split("base", label, sizeof(label)));
	assert_false(xvbd_ab_id_split("base-20240501T120000-ABCD", label,
				      sizeof(label)));
	assert_false(xvbd_ab_id_split("base-2024050xT120000-abcd", label,
				      sizeof(label)));
	assert_false(xvbd_ab_id_split(".b-20240501T120000-abcd", label,
				      sizeof(label)));
	assert_false(xvbd_ab_id_split("-20240501T120000-abcd", label,
				      sizeof(label)));
	assert_string_equal(xvbd_ab_mode_name(XVBD_AB_MODE_UNTIL_SHUTDOWN),
			    "until-shutdown");
}

/* ---- a record to play with ---- */

/* Distinct numbers everywhere, so that the JSON text can be edited. */
static void make_record(struct xvbd_ab_record *rec, const char *label,
			int64_t started_ns, size_t nsamples)
{
	struct xvbd_ab_vbd_sample vbds[2];
	struct xvbd_ab_sample s;
	char id[XVBD_AB_ID_MAX];
	size_t i;

	memset(rec, 0, sizeof(*rec));
	assert_int_equal(xvbd_ab_make_id(label, started_ns, id, sizeof(id)),
			 0);
	rec->id = strdup(id);
	rec->label = strdup(label);
	rec->started_unix_ns = started_ns;
	rec->domain = strdup("bench-guest");
	rec->nvdevs = 2;
	rec->vdevs = calloc(2, sizeof(*rec->vdevs));
	rec->vdevs[0] = strdup("xvda");
	rec->vdevs[1] = strdup("xvdb");
	rec->mode = XVBD_AB_MODE_RUN;
	rec->workload = strdup("lab-guest wait g1");
	rec->workload_status = 3;
	rec->interval_ns = NS;
	rec->warmup_ns = 2 * NS;
	rec->complete = true;
	assert_int_equal(xvbd_ab_fp_set(&rec->fp, "xen.version", "4.17.7"),
			 0);
	assert_int_equal(xvbd_ab_fp_set(&rec->fp, "guest.vcpus", "2"), 0);
	assert_int_equal(xvbd_ab_record_note(rec, "guest %s shut down", "g1"),
			 0);
	for (i = 0; i < nsamples; i++) {
		memset(vbds, 0, sizeof(vbds));
		vbds[0].c.rd_req = 1000 + i;
		vbds[0].c.wr_req = 2000 + i;
		vbds[0].c.rd_sect = 3000 + i;
		vbds[0].c.wr_sect = 4000 + i;
		vbds[0].c.f_req = 5000 + i;
		vbds[0].c.ds_req = 6000 + i;
		vbds[0].c.oo_req = 7000 + i;
		vbds[0].has_blk = true;
		vbds[0].blk_rd_ios = 8000 + i;
		vbds[0].blk_wr_ios = 9000 + i;
		vbds[0].blk_rd_ticks_ms = 10000 + i;
		vbds[0].blk_wr_ticks_ms = UINT32_MAX - i;
		/* the baseline as an older record wrote it: no io_ticks */
		vbds[0].has_io_ticks = i > 0;
		vbds[0].blk_io_ticks_ms = i ? 20000 + i : 0;
		/* counters beyond what long long holds */
		vbds[1].c.rd_sect = UINT64_MAX - i;
		vbds[1].c.wr_sect = (UINT64_C(1) << 63) + i;
		vbds[1].reset = i == 1;
		memset(&s, 0, sizeof(s));
		s.t_ns = i * NS + (i ? 123 : 0);
		s.guest_cpu_ns = 11000 + i;
		s.dom0_cpu_ns = 12000 + i;
		s.guest_vcpus = 2;
		s.dom0_vcpus = 1;
		s.vbds = vbds;
		assert_int_equal(xvbd_ab_record_add(rec, &s), 0);
	}
}

static void assert_same_record(const struct xvbd_ab_record *a,
			       const struct xvbd_ab_record *b)
{
	size_t i, j;

	assert_string_equal(a->id, b->id);
	assert_string_equal(a->label, b->label);
	assert_true(a->started_unix_ns == b->started_unix_ns);
	assert_string_equal(a->domain, b->domain);
	assert_int_equal(a->nvdevs, b->nvdevs);
	for (i = 0; i < a->nvdevs; i++)
		assert_string_equal(a->vdevs[i], b->vdevs[i]);
	assert_int_equal(a->mode, b->mode);
	assert_string_equal(a->workload, b->workload);
	assert_int_equal(a->workload_status, b->workload_status);
	assert_true(a->interval_ns == b->interval_ns);
	assert_true(a->warmup_ns == b->warmup_ns);
	assert_int_equal(a->complete, b->complete);
	assert_int_equal(a->fp.n, b->fp.n);
	for (i = 0; i < a->fp.n; i++) {
		assert_string_equal(a->fp.facts[i].key, b->fp.facts[i].key);
		assert_string_equal(a->fp.facts[i].value,
				    b->fp.facts[i].value);
	}
	assert_int_equal(a->nnotes, b->nnotes);
	for (i = 0; i < a->nnotes; i++)
		assert_string_equal(a->notes[i], b->notes[i]);
	assert_int_equal(a->nsamples, b->nsamples);
	for (i = 0; i < a->nsamples; i++) {
		const struct xvbd_ab_sample *x = &a->samples[i];
		const struct xvbd_ab_sample *y = &b->samples[i];

		assert_true(x->t_ns == y->t_ns);
		assert_true(x->guest_cpu_ns == y->guest_cpu_ns);
		assert_true(x->dom0_cpu_ns == y->dom0_cpu_ns);
		assert_int_equal(x->guest_vcpus, y->guest_vcpus);
		assert_int_equal(x->dom0_vcpus, y->dom0_vcpus);
		for (j = 0; j < a->nvdevs; j++) {
			const struct xvbd_ab_vbd_sample *v = &x->vbds[j];
			const struct xvbd_ab_vbd_sample *w = &y->vbds[j];

			assert_memory_equal(&v->c, &w->c, sizeof(v->c));
			assert_int_equal(v->reset, w->reset);
			assert_int_equal(v->has_blk, w->has_blk);
			if (!v->has_blk)
				continue;
			assert_true(v->blk_rd_ios == w->blk_rd_ios);
			assert_true(v->blk_wr_ios == w->blk_wr_ios);
			assert_true(v->blk_rd_ticks_ms == w->blk_rd_ticks_ms);
			assert_true(v->blk_wr_ticks_ms == w->blk_wr_ticks_ms);
			assert_int_equal(v->has_io_ticks, w->has_io_ticks);
			assert_true(v->blk_io_ticks_ms == w->blk_io_ticks_ms);
		}
	}
}

static char *to_json(const struct xvbd_ab_record *rec)
{
	char *json = NULL;
	size_t len = 0;

	assert_int_equal(xvbd_ab_record_to_json(rec, &json, &len), 0);
	assert_int_equal(strlen(json), len);
	return json;
}

static void test_round_trip(void **state)
{
	struct xvbd_ab_record a, b;
	struct xvbd_ab_err e = { "" };
	char *j1, *j2;

	(void)state;
	make_record(&a, "base", T0_NS, 3);
	j1 = to_json(&a);
	/* raw counters, the layout of ab.h */
	assert_non_null(strstr(j1, "\"format\":\"xvbd-ab-record\","
			       "\"version\":1,"));
	assert_non_null(strstr(j1, "\"started\":\"2024-05-01T12:00:00Z\""));
	assert_non_null(strstr(j1, "\"rd_sect\":18446744073709551615"));
	assert_non_null(strstr(j1, "\"blk\":null"));
	assert_non_null(strstr(j1, "\"mode\":\"run\""));
	assert_non_null(strstr(j1, "\"wr_ticks_ms\":4294967294,"
			       "\"io_ticks_ms\":20001}"));
	assert_non_null(strstr(j1, "\"wr_ticks_ms\":4294967295},"));
	assert_int_equal(xvbd_ab_record_from_json(j1, strlen(j1), &b, &e), 0);
	assert_same_record(&a, &b);
	/* and the same bytes again */
	j2 = to_json(&b);
	assert_string_equal(j1, j2);
	free(j1);
	free(j2);
	xvbd_ab_record_free(&b);

	/* a record cut short by a signal: one sample, not complete */
	xvbd_ab_record_free(&a);
	make_record(&a, "base", T0_NS, 1);
	a.complete = false;
	a.mode = XVBD_AB_MODE_UNTIL_SHUTDOWN;
	a.workload_status = 0;
	j1 = to_json(&a);
	assert_int_equal(xvbd_ab_record_from_json(j1, strlen(j1), &b, &e), 0);
	assert_same_record(&a, &b);
	free(j1);
	xvbd_ab_record_free(&b);
	xvbd_ab_record_free(&a);
}

/* The writer refuses what the reader would refuse. */
static void test_write_checks(void **state)
{
	struct xvbd_ab_record a;
	char *json = (char *)"x";
	size_t len = 1;
	uint64_t t;

	(void)state;
	make_record(&a, "base", T0_NS, 3);
	t = a.samples[2].t_ns;
	a.samples[2].t_ns = a.samples[1].t_ns;
	assert_int_equal(xvbd_ab_record_to_json(&a, &json, &len), -EINVAL);
	assert_null(json);
	assert_int_equal(len, 0);
	a.samples[2].t_ns = t;
	a.workload_status = 3;
	a.mode = XVBD_AB_MODE_DURATION;	/* only --run has a status */
	assert_int_equal(xvbd_ab_record_to_json(&a, &json, &len), -EINVAL);
	a.mode = XVBD_AB_MODE_RUN;
	free(a.domain);
	a.domain = strdup("bad\nname");
	assert_int_equal(xvbd_ab_record_to_json(&a, &json, &len), -EINVAL);
	xvbd_ab_record_free(&a);
}

/* ---- damage ---- */

/* s with the one occurrence of old replaced; malloc'd. */
static char *replace1(const char *s, const char *old, const char *new)
{
	const char *at = strstr(s, old);
	size_t lo = strlen(old), ln = strlen(new), ls = strlen(s);
	char *out;

	if (!at || strstr(at + 1, old))
		fail_msg("\"%s\" is not once in the document", old);
	out = malloc(ls - lo + ln + 1);
	memcpy(out, s, (size_t)(at - s));
	memcpy(out + (at - s), new, ln);
	strcpy(out + (at - s) + ln, at + lo);
	return out;
}

struct damage {
	const char *old, *new;	/* NULL old: special, see below */
	const char *msg;	/* expected prefix of e.msg */
};

static void expect_bad(const char *json, size_t len, const char *msg)
{
	struct xvbd_ab_record r;
	struct xvbd_ab_err e = { "" };

	memset(&r, 0x5a, sizeof(r));
	assert_int_not_equal(xvbd_ab_record_from_json(json, len, &r, &e), 0);
	if (strncmp(e.msg, msg, strlen(msg)))
		fail_msg("expected \"%s...\", got \"%s\"", msg, e.msg);
	assert_null(strchr(e.msg, '\n'));
	/* nothing left behind (ASan/valgrind see leaks) */
	assert_null(r.id);
	assert_null(r.samples);
	assert_int_equal(r.nsamples, 0);
}

static void test_damage(void **state)
{
	static const struct damage damages[] = {
		/* wrong format / version */
		{ "\"format\":\"xvbd-ab-record\"", "\"format\":\"other\"",
		  "format: not \"xvbd-ab-record\"" },
		{ "\"format\":\"xvbd-ab-record\",", "", "format: not" },
		{ "\"version\":1,", "\"version\":2,", "version: not 1" },
		{ "\"version\":1,", "\"version\":\"1\",", "version: not 1" },
		{ "\"version\":1,", "\"version\":1.0,", "version: not 1" },
		/* wrong types */
		{ "\"label\":\"base\"", "\"label\":1", "label: not a string" },
		{ "\"complete\":true", "\"complete\":\"yes\"",
		  "complete: not true or false" },
		{ "\"complete\":true", "\"complete\":1",
		  "complete: not true or false" },
		{ "\"rd_req\":1001", "\"rd_req\":\"1001\"",
		  "samples[1].vbds[0].rd_req: not an unsigned integer" },
		{ "\"vdevs\":[\"xvda\",\"xvdb\"]", "\"vdevs\":\"xvda\"",
		  "vdevs: not an array" },
		{ "\"vdevs\":[\"xvda\",\"xvdb\"]", "\"vdevs\":[\"xvda\",2]",
		  "vdevs[1]: not a string" },
		{ "\"notes\":[\"guest g1 shut down\"]", "\"notes\":[{}]",
		  "notes[0]: not a string" },
		{ "\"xen.version\":\"4.17.7\"", "\"xen.version\":4",
		  "fingerprint.xen.version: not a string" },
		{ "\"fingerprint\":{", "\"fingerprint\":[],\"x\":{",
		  "unknown key \"x\"" },
		{ "9223372036854775808,\"f_req\":0,\"ds_req\":0,\"oo_req\":0,"
		  "\"reset\":false,\"blk\":null",
		  "9223372036854775808,\"f_req\":0,\"ds_req\":0,\"oo_req\":0,"
		  "\"reset\":false,\"blk\":0",
		  "samples[0].vbds[1].blk: not an object" },
		{ "\"mode\":\"run\"", "\"mode\":\"forever\"",
		  "mode: not duration, run or until-shutdown" },
		/* negative, fractional, huge numbers */
		{ "\"t_ns\":1000000123", "\"t_ns\":-1",
		  "samples[1].t_ns: not an unsigned integer" },
		{ "\"t_ns\":1000000123", "\"t_ns\":-0",
		  "samples[1].t_ns: not an unsigned integer" },
		{ "\"t_ns\":1000000123", "\"t_ns\":1.5",
		  "samples[1].t_ns: not an unsigned integer" },
		{ "\"t_ns\":1000000123", "\"t_ns\":1e9",
		  "samples[1].t_ns: not an unsigned integer" },
		{ "\"rd_sect\":18446744073709551614",
		  "\"rd_sect\":18446744073709551616",
		  "samples[1].vbds[1].rd_sect: out of range" },
		{ "\"rd_sect\":18446744073709551614",
		  "\"rd_sect\":99999999999999999999999999",
		  "samples[1].vbds[1].rd_sect: out of range" },
		{ "\"guest_vcpus\":2,\"dom0_vcpus\":1,"
		  "\"vbds\":[{\"rd_req\":1001",
		  "\"guest_vcpus\":4294967296,\"dom0_vcpus\":1,\"vbds\":"
		  "[{\"rd_req\":1001",
		  "samples[1].guest_vcpus: out of range" },
		{ "\"wr_ticks_ms\":4294967294", "\"wr_ticks_ms\":4294967296",
		  "samples[1].vbds[0].blk.wr_ticks_ms: out of range" },
		{ "\"io_ticks_ms\":20001", "\"io_ticks_ms\":4294967296",
		  "samples[1].vbds[0].blk.io_ticks_ms: out of range" },
		{ "\"io_ticks_ms\":20001", "\"io_ticks_ms\":true",
		  "samples[1].vbds[0].blk.io_ticks_ms: not an unsigned "
		  "integer" },
		{ "\"workload_status\":3", "\"workload_status\":256",
		  "workload_status: out of range" },
		{ "\"workload_status\":3", "\"workload_status\":-1",
		  "workload_status: not an unsigned integer" },
		{ "\"interval_ns\":1000000000", "\"interval_ns\":0",
		  "interval_ns: not 1 ns to 1 day" },
		{ "\"started_unix_ns\":1714564800000000000",
		  "\"started_unix_ns\":9223372036854775808",
		  "started_unix_ns: out of range" },
		/* missing and doubled fields */
		{ "\"warmup_ns\":2000000000,", "", "missing \"warmup_ns\"" },
		{ "\"oo_req\":7001,", "",
		  "samples[1].vbds[0]: missing \"oo_req\"" },
		{ "\"warmup_ns\":2000000000,",
		  "\"warmup_ns\":2000000000,\"warmup_ns\":1,",
		  "\"warmup_ns\" twice" },
		{ "\"rd_ios\":8001,", "\"rd_ios\":8001,\"queue\":1,",
		  "samples[1].vbds[0].blk: unknown key \"queue\"" },
		/* semantic damage */
		{ "\"t_ns\":2000000123", "\"t_ns\":1000000123",
		  "samples[2].t_ns: not after samples[1]" },
		{ "\"t_ns\":2000000123", "\"t_ns\":999",
		  "samples[2].t_ns: not after samples[1]" },
		{ "\"t_ns\":0", "\"t_ns\":5",
		  "samples[0].t_ns: the baseline is not at 0" },
		{ "\"vdevs\":[\"xvda\",\"xvdb\"]", "\"vdevs\":[\"xvda\"]",
		  "samples[0].vbds: 2 entries for 1 vdevs" },
		{ "\"vdevs\":[\"xvda\",\"xvdb\"]",
		  "\"vdevs\":[\"xvda\",\"xvda\"]", "vdevs[1]: \"xvda\" twice" },
		{ "\"vdevs\":[\"xvda\",\"xvdb\"]",
		  "\"vdevs\":[\"xvda\",\"../b\"]", "vdevs[1]: not a vdev" },
		{ "\"samples\":[", "\"samples\":[],\"x\":[",
		  "unknown key \"x\"" },
		{ "\"started\":\"2024-05-01T12:00:00Z\"",
		  "\"started\":\"2024-05-01T12:00:01Z\"",
		  "started: does not match started_unix_ns" },
		{ "\"label\":\"base\"", "\"label\":\"tuned\"",
		  "id: not \"tuned-<yyyymmddThhmmss>-<4 hex>\"" },
		{ "\"label\":\"base\"", "\"label\":\"../x\"",
		  "label: not a valid label" },
		{ "\"domain\":\"bench-guest\"", "\"domain\":\"a\\u0007b\"",
		  "domain: not 1 to 63 printable" },
		{ "\"domain\":\"bench-guest\"", "\"domain\":\"\"",
		  "domain: not 1 to 63 printable" },
		{ "\"xen.version\":\"4.17.7\"", "\"Xen\":\"4.17.7\"",
		  "fingerprint: \"Xen\": not a fact name" },
		{ "\"xen.version\":\"4.17.7\"",
		  "\"xen.version\":\"4\\n17\"",
		  "fingerprint.xen.version: not printable" },
		{ "\"xen.version\":\"4.17.7\"",
		  "\"guest.vcpus\":\"4\"",
		  "fingerprint: \"guest.vcpus\" twice" },
		{ "\"notes\":[\"guest g1 shut down\"]",
		  "\"notes\":[\"\\u001b[2J\"]", "notes[0]: not printable" },
		/* a \u0000 inside: as a C string it would be cut there */
		{ "\"label\":\"base\"", "\"label\":\"base\\u0000x\"",
		  "label: a \\u0000 (NUL) inside the string" },
		{ "\"xen.version\":\"4.17.7\"",
		  "\"xen.version\":\"4.17.7\\u0000-evil\"",
		  "fingerprint.xen.version: a \\u0000 (NUL) inside" },
		{ "\"xen.version\":\"4.17.7\"",
		  "\"xen.version\\u0000x\":\"4.17.7\"",
		  "fingerprint: key \"xen.version\\u0000x\": a \\u0000" },
		{ "\"notes\":[\"guest g1 shut down\"]",
		  "\"notes\":[\"a\",\"guest g1\\u0000 shut down\"]",
		  "notes[1]: a \\u0000 (NUL) inside" },
		/* not JSON */
		{ "\"complete\":true", "\"complete\":tru", "not valid JSON" },
		/* streamed: refused at the '[', before the syntax error */
		{ "{\"format\"", "[{\"format\"", "not a JSON object" },
	};
	struct xvbd_ab_record a;
	char *json, *bad;
	size_t i, len;

	(void)state;
	make_record(&a, "base", T0_NS, 3);
	json = to_json(&a);
	len = strlen(json);
	for (i = 0; i < sizeof(damages) / sizeof(damages[0]); i++) {
		bad = replace1(json, damages[i].old, damages[i].new);
		expect_bad(bad, strlen(bad), damages[i].msg);
		free(bad);
	}
	/* truncated anywhere */
	for (i = 0; i < len - 1; i += len / 37 + 1)
		expect_bad(json, i, i ? "not valid JSON" : "not valid JSON");
	expect_bad(json, len - 2, "not valid JSON");
	/* trailing garbage, a second document */
	bad = malloc(2 * len + 1);
	memcpy(bad, json, len);
	memcpy(bad + len, json, len + 1);
	expect_bad(bad, 2 * len, "not valid JSON");
	/* a NUL inside */
	memcpy(bad, json, len + 1);
	bad[len / 2] = '\0';
	expect_bad(bad, len, "not JSON text");
	free(bad);
	/* not an object */
	expect_bad("[]", 2, "not a JSON object");
	expect_bad("\"x\"", 3, "not a JSON object");
	expect_bad("", 0, "not valid JSON");
	/* nesting deeper than a record (yajl frees recursively) */
	bad = malloc(200001);
	memset(bad, '[', 100000);
	memset(bad + 100000, ']', 100000);
	bad[200000] = '\0';
	expect_bad(bad, 200000, "nested deeper than a record");
	free(bad);
	/* invalid UTF-8 in a string */
	bad = replace1(json, "\"bench-guest\"", "\"bench\xff\"");
	expect_bad(bad, strlen(bad), "not valid JSON");
	free(bad);
	free(json);
	xvbd_ab_record_free(&a);
}

/* ---- the store ---- */

struct store_fixture {
	char root[64];
	char dir[128];
};

static int store_setup(void **state)
{
	struct store_fixture *f = calloc(1, sizeof(*f));

	strcpy(f->root, "/tmp/xvbd-ab-test.XXXXXX");
	if (!mkdtemp(f->root))
		return -1;
	snprintf(f->dir, sizeof(f->dir), "%s/a/b", f->root);
	*state = f;
	return 0;
}

static int store_teardown(void **state)
{
	struct store_fixture *f = *state;
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->root);
	if (system(cmd))
		return -1;
	free(f);
	return 0;
}

/* Names in dir, sorted, joined by ' '. */
static void dir_names(const char *dir, char *buf, size_t len)
{
	struct dirent **names;
	int n, i;

	buf[0] = '\0';
	n = scandir(dir, &names, NULL, alphasort);
	assert_true(n >= 0);
	for (i = 0; i < n; i++) {
		if (strcmp(names[i]->d_name, ".") &&
		    strcmp(names[i]->d_name, "..")) {
			strncat(buf, names[i]->d_name, len - strlen(buf) - 1);
			strncat(buf, " ", len - strlen(buf) - 1);
		}
		free(names[i]);
	}
	free(names);
}

static void write_file(const char *path, const char *content)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(content, f);
	assert_int_equal(fclose(f), 0);
}

static void test_store_write(void **state)
{
	struct store_fixture *f = *state;
	struct xvbd_ab_record a, b, r;
	struct xvbd_ab_err e = { "" };
	char names[1024], expect[512], path[256], *json;
	struct stat st;

	make_record(&a, "base", T0_NS, 3);
	assert_int_equal(xvbd_ab_store_ensure(f->dir, &e), 0);
	assert_int_equal(stat(f->dir, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0700);
	snprintf(path, sizeof(path), "%s/a", f->root);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0700);
	/* twice is fine */
	assert_int_equal(xvbd_ab_store_ensure(f->dir, &e), 0);

	assert_int_equal(xvbd_ab_store_write(f->dir, &a, &e), 0);
	snprintf(path, sizeof(path), "%s/%s.json", f->dir, a.id);
	assert_non_null(a.path);
	assert_string_equal(a.path, path);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	snprintf(expect, sizeof(expect), "%s.json ", a.id);
	dir_names(f->dir, names, sizeof(names));
	assert_string_equal(names, expect);	/* no temporary left */
	assert_int_equal(xvbd_ab_store_read(path, false, &r, &e), 0);
	assert_same_record(&a, &r);
	assert_string_equal(r.path, path);
	xvbd_ab_record_free(&r);

	/* never replaced: same id, other content */
	make_record(&b, "base", T0_NS, 2);
	free(b.id);
	b.id = strdup(a.id);
	assert_int_equal(xvbd_ab_store_write(f->dir, &b, &e), -EEXIST);
	assert_non_null(strstr(e.msg, "exists (not replaced)"));
	assert_non_null(strstr(e.msg, path));
	assert_null(b.path);
	dir_names(f->dir, names, sizeof(names));
	assert_string_equal(names, expect);
	assert_int_equal(xvbd_ab_store_read(path, false, &r, &e), 0);
	assert_int_equal(r.nsamples, 3);
	xvbd_ab_record_free(&r);

	/* a name taken by a directory: refused, no temporary */
	xvbd_ab_record_free(&b);
	make_record(&b, "dir", T0_NS, 2);
	snprintf(path, sizeof(path), "%s/%s.json", f->dir, b.id);
	assert_int_equal(mkdir(path, 0700), 0);
	assert_int_not_equal(xvbd_ab_store_write(f->dir, &b, &e), 0);
	assert_int_equal(rmdir(path), 0);
	dir_names(f->dir, names, sizeof(names));
	assert_string_equal(names, expect);

	/* a directory that cannot be written: nothing left either */
	snprintf(path, sizeof(path), "%s/missing", f->root);
	assert_int_not_equal(xvbd_ab_store_write(path, &b, &e), 0);
	assert_non_null(strstr(e.msg, path));
	snprintf(path, sizeof(path), "%s/file", f->root);
	write_file(path, "x");
	assert_int_equal(xvbd_ab_store_write(path, &b, &e), -ENOTDIR);
	assert_int_equal(xvbd_ab_store_ensure(path, &e), -ENOTDIR);
	assert_non_null(strstr(e.msg, "not a directory"));
	dir_names(f->root, names, sizeof(names));
	assert_string_equal(names, "a file ");

	/* an invalid record is not written */
	b.samples[1].t_ns = 0;
	assert_int_equal(xvbd_ab_store_write(f->dir, &b, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "record: samples[1].t_ns"));
	dir_names(f->dir, names, sizeof(names));
	assert_string_equal(names, expect);

	/* a directory others may write is not trusted */
	snprintf(path, sizeof(path), "%s/open", f->root);
	assert_int_equal(mkdir(path, 0700), 0);
	assert_int_equal(chmod(path, 0777), 0);
	assert_int_equal(xvbd_ab_store_ensure(path, &e), -EPERM);
	assert_non_null(strstr(e.msg, "writable by others (mode 0777)"));
	/* sticky, like /tmp: anyone may still add records there */
	assert_int_equal(chmod(path, 01777), 0);
	assert_int_equal(xvbd_ab_store_ensure(path, &e), -EPERM);
	assert_non_null(strstr(e.msg, "writable by others (mode 1777)"));

	/* a record file whose name is not its id */
	json = to_json(&a);
	snprintf(path, sizeof(path), "%s/copy.json", f->root);
	write_file(path, json);
	free(json);
	assert_int_equal(xvbd_ab_store_read(path, false, &r, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "is not the file's name"));
	/* ... but under another suffix it is just a file */
	snprintf(path, sizeof(path), "%s/copy.json", f->root);
	snprintf(expect, sizeof(expect), "%s/export", f->root);
	assert_int_equal(rename(path, expect), 0);
	assert_int_equal(xvbd_ab_store_read(expect, false, &r, &e), 0);
	xvbd_ab_record_free(&r);
	xvbd_ab_record_free(&a);
	xvbd_ab_record_free(&b);
}

static void test_store_read_errors(void **state)
{
	struct store_fixture *f = *state;
	struct xvbd_ab_record a, r;
	struct xvbd_ab_err e = { "" };
	char path[256], expect[512], *json, *bad;

	make_record(&a, "base", T0_NS, 4);
	json = to_json(&a);
	assert_int_equal(xvbd_ab_store_ensure(f->dir, &e), 0);
	snprintf(path, sizeof(path), "%s/%s.json", f->dir, a.id);
	bad = replace1(json, "\"t_ns\":3000000123", "\"t_ns\":-3");
	write_file(path, bad);
	free(bad);
	assert_int_equal(xvbd_ab_store_read(path, false, &r, &e), -EINVAL);
	/* one line naming the file, the field, the problem */
	snprintf(expect, sizeof(expect),
		 "%s: samples[3].t_ns: not an unsigned integer", path);
	assert_string_equal(e.msg, expect);
	assert_null(r.id);

	/* truncated file */
	write_file(path, "{\"format\":\"xvbd-ab-record\",\"vers");
	assert_int_equal(xvbd_ab_store_read(path, false, &r, &e), -EINVAL);
	assert_non_null(strstr(e.msg, ": not valid JSON ("));
	assert_null(strchr(e.msg, '\n'));
	/* empty file */
	write_file(path, "");
	assert_int_equal(xvbd_ab_store_read(path, false, &r, &e), -EINVAL);
	assert_non_null(strstr(e.msg, ": not valid JSON"));
	/* missing, a directory, a FIFO */
	assert_int_equal(unlink(path), 0);
	assert_int_equal(xvbd_ab_store_read(path, false, &r, &e), -ENOENT);
	snprintf(expect, sizeof(expect), "%s: No such file or directory",
		 path);
	assert_string_equal(e.msg, expect);
	assert_int_equal(xvbd_ab_store_read(f->dir, false, &r, &e), -EISDIR);
	assert_non_null(strstr(e.msg, "not a regular file"));
	assert_int_equal(mkfifo(path, 0600), 0);
	assert_int_not_equal(xvbd_ab_store_read(path, false, &r, &e), 0);
	assert_non_null(strstr(e.msg, "not a regular file"));
	assert_int_equal(unlink(path), 0);
	free(json);
	xvbd_ab_record_free(&a);
}

static void test_store_list_select(void **state)
{
	struct store_fixture *f = *state;
	struct xvbd_ab_record recs[4], *sel = NULL;
	struct xvbd_ab_err e = { "" };
	char path[256], **paths = NULL;
	size_t n = 0, i;

	assert_int_equal(xvbd_ab_store_ensure(f->dir, &e), 0);
	/* empty */
	assert_int_equal(xvbd_ab_store_list(f->dir, &paths, &n, &e), 0);
	assert_int_equal(n, 0);
	free(paths);
	/* written out of order; base-x sorts before base by name */
	make_record(&recs[0], "base", T0_NS + 30 * (int64_t)NS, 2);
	make_record(&recs[1], "tuned", T0_NS + 20 * (int64_t)NS, 2);
	make_record(&recs[2], "base", T0_NS + 10 * (int64_t)NS, 2);
	make_record(&recs[3], "base-x", T0_NS + 40 * (int64_t)NS, 2);
	for (i = 0; i < 4; i++)
		assert_int_equal(xvbd_ab_store_write(f->dir, &recs[i], &e), 0);
	/* what is not a record: temporaries, hidden files, other names,
	 * directories, symlinks */
	snprintf(path, sizeof(path), "%s/.%s.json.AbC123", f->dir,
		 recs[0].id);
	write_file(path, "{\"format\":");
	snprintf(path, sizeof(path), "%s/.hidden.json", f->dir);
	write_file(path, "{}");
	snprintf(path, sizeof(path), "%s/notes.txt", f->dir);
	write_file(path, "x");
	snprintf(path, sizeof(path), "%s/sub.json", f->dir);
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/link.json", f->dir);
	assert_int_equal(symlink(recs[0].path, path), 0);

	assert_int_equal(xvbd_ab_store_list(f->dir, &paths, &n, &e), 0);
	assert_int_equal(n, 4);
	/* by start time */
	assert_string_equal(paths[0], recs[2].path);
	assert_string_equal(paths[1], recs[1].path);
	assert_string_equal(paths[2], recs[0].path);
	assert_string_equal(paths[3], recs[3].path);
	for (i = 0; i < n; i++)
		free(paths[i]);
	free(paths);

	/* by label: both "base" (not "base-x"), in start order */
	assert_int_equal(xvbd_ab_store_select(f->dir, "base", &sel, &n, &e),
			 0);
	assert_int_equal(n, 2);
	assert_string_equal(sel[0].id, recs[2].id);
	assert_string_equal(sel[1].id, recs[0].id);
	xvbd_ab_records_free(sel, n);
	assert_int_equal(xvbd_ab_store_select(f->dir, "base-x", &sel, &n, &e),
			 0);
	assert_int_equal(n, 1);
	assert_string_equal(sel[0].id, recs[3].id);
	xvbd_ab_records_free(sel, n);
	/* by id */
	assert_int_equal(xvbd_ab_store_select(f->dir, recs[1].id, &sel, &n,
					      &e), 0);
	assert_int_equal(n, 1);
	assert_string_equal(sel[0].label, "tuned");
	xvbd_ab_records_free(sel, n);
	/* by path */
	assert_int_equal(xvbd_ab_store_select("/nonexistent", recs[0].path,
					      &sel, &n, &e), 0);
	assert_int_equal(n, 1);
	assert_string_equal(sel[0].id, recs[0].id);
	xvbd_ab_records_free(sel, n);
	/* nothing */
	assert_int_equal(xvbd_ab_store_select(f->dir, "other", &sel, &n, &e),
			 -ENOENT);
	assert_null(sel);
	assert_int_equal(n, 0);
	assert_non_null(strstr(e.msg, "no record with id or label \"other\""));
	/* (a relative path that exists nowhere: "../x" was a directory
	 * beside one clone, and then not a record: -EINVAL) */
	assert_int_equal(xvbd_ab_store_select(f->dir,
					      "../xvbd-test-no-such-record",
					      &sel, &n, &e), -ENOENT);
	assert_int_equal(xvbd_ab_store_select(f->dir, "-x", &sel, &n, &e),
			 -ENOENT);
	assert_non_null(strstr(e.msg, "not a record file, id or label"));
	/* a damaged record of the label fails the selection, naming it */
	write_file(recs[2].path, "{");
	assert_int_equal(xvbd_ab_store_select(f->dir, "base", &sel, &n, &e),
			 -EINVAL);
	assert_null(sel);
	assert_non_null(strstr(e.msg, recs[2].path));
	/* ... and the list still has it (last: its start is unreadable) */
	assert_int_equal(xvbd_ab_store_list(f->dir, &paths, &n, &e), 0);
	assert_int_equal(n, 4);
	assert_string_equal(paths[3], recs[2].path);
	for (i = 0; i < n; i++)
		free(paths[i]);
	free(paths);
	assert_int_equal(xvbd_ab_store_list("/nonexistent/x", &paths, &n, &e),
			 -ENOENT);
	assert_non_null(strstr(e.msg, "/nonexistent/x: "));
	for (i = 0; i < 4; i++)
		xvbd_ab_record_free(&recs[i]);
}

/* A fact the fingerprint reads from sysfs: dom0's clock source. */
static void test_sysfs_clocksource(void **state)
{
	struct store_fixture *f = *state;
	struct xvbd_sysfs *sys;
	char path[256], cs[32];

	snprintf(path, sizeof(path), "mkdir -p %s/devices/system/clocksource/"
		 "clocksource0", f->root);
	assert_int_equal(system(path), 0);
	snprintf(path, sizeof(path), "%s/devices/system/clocksource/"
		 "clocksource0/current_clocksource", f->root);
	sys = xvbd_sysfs_open(f->root);
	assert_non_null(sys);
	assert_int_equal(xvbd_sysfs_clocksource(sys, cs, sizeof(cs)),
			 -ENOENT);
	write_file(path, "xen\n");
	assert_int_equal(xvbd_sysfs_clocksource(sys, cs, sizeof(cs)), 0);
	assert_string_equal(cs, "xen");
	write_file(path, "tsc");
	assert_int_equal(xvbd_sysfs_clocksource(sys, cs, sizeof(cs)), 0);
	assert_string_equal(cs, "tsc");
	write_file(path, "a b\n");
	assert_int_equal(xvbd_sysfs_clocksource(sys, cs, sizeof(cs)),
			 -EINVAL);
	write_file(path, "\n");
	assert_int_equal(xvbd_sysfs_clocksource(sys, cs, sizeof(cs)),
			 -EINVAL);
	write_file(path, "a_very_long_clock_source_name_indeed\n");
	assert_int_equal(xvbd_sysfs_clocksource(sys, cs, sizeof(cs)),
			 -EOVERFLOW);
	xvbd_sysfs_close(sys);
}

/*
 * Records in places others control (needs root: chown).  The store and
 * its files must be root's alone for writing and for reading by id,
 * label or list; a file named by its path is read with a warning that
 * names its owner.
 */
#define OTHER_UID	65534

static void expect_msg(const struct xvbd_ab_err *e, const char *part)
{
	if (!strstr(e->msg, part))
		fail_msg("expected \"%s\" in \"%s\"", part, e->msg);
}

static void test_store_trust(void **state)
{
	struct store_fixture *f = *state;
	struct xvbd_ab_record a, b, r, *sel = NULL;
	struct xvbd_ab_err e = { "" };
	char path[256], theirs[256], link[256], **paths = NULL;
	size_t n = 0;

	if (geteuid())
		skip();
	make_record(&a, "base", T0_NS, 3);
	make_record(&b, "base", T0_NS + 10 * (int64_t)NS, 3);
	assert_int_equal(xvbd_ab_store_ensure(f->dir, &e), 0);
	assert_int_equal(xvbd_ab_store_write(f->dir, &a, &e), 0);
	assert_int_equal(xvbd_ab_store_write(f->dir, &b, &e), 0);
	/* the store as it should be: both by label */
	assert_int_equal(xvbd_ab_store_select(f->dir, "base", &sel, &n, &e),
			 0);
	assert_int_equal(n, 2);
	assert_null(sel[0].untrusted);
	xvbd_ab_records_free(sel, n);

	/* a record file someone else owns: not the store's */
	assert_int_equal(chown(b.path, OTHER_UID, 0), 0);
	assert_int_equal(xvbd_ab_store_select(f->dir, "base", &sel, &n, &e),
			 -EPERM);
	expect_msg(&e, "owned by uid 65534");
	assert_int_equal(xvbd_ab_store_select(f->dir, b.id, &sel, &n, &e),
			 -EPERM);
	/* ... named by its path: read, with a warning naming the owner */
	assert_int_equal(xvbd_ab_store_select(f->dir, b.path, &sel, &n, &e),
			 0);
	assert_non_null(sel[0].untrusted);
	assert_non_null(strstr(sel[0].untrusted, "owned by uid 65534"));
	xvbd_ab_records_free(sel, n);
	assert_int_equal(chown(b.path, 0, 0), 0);
	/* writable by others */
	assert_int_equal(chmod(b.path, 0666), 0);
	assert_int_equal(xvbd_ab_store_select(f->dir, b.id, &sel, &n, &e),
			 -EPERM);
	expect_msg(&e, "writable by group or others (mode 0666)");
	assert_int_equal(chmod(b.path, 0600), 0);

	/* selecting by id does not follow a link (to a record elsewhere) */
	snprintf(theirs, sizeof(theirs), "%s/%s.json", f->root, b.id);
	assert_int_equal(rename(b.path, theirs), 0);
	assert_int_equal(symlink(theirs, b.path), 0);
	assert_int_equal(xvbd_ab_store_select(f->dir, b.id, &sel, &n, &e),
			 -ELOOP);
	expect_msg(&e, "a symbolic link, not a record");
	assert_int_equal(unlink(b.path), 0);
	assert_int_equal(rename(theirs, b.path), 0);

	/* a store directory someone else owns: refused for all */
	assert_int_equal(chown(f->dir, OTHER_UID, 0), 0);
	assert_int_equal(xvbd_ab_store_ensure(f->dir, &e), -EPERM);
	expect_msg(&e, "a directory owned by uid 65534");
	assert_int_equal(xvbd_ab_store_list(f->dir, &paths, &n, &e), -EPERM);
	assert_int_equal(xvbd_ab_store_select(f->dir, "base", &sel, &n, &e),
			 -EPERM);
	assert_int_equal(xvbd_ab_store_select(f->dir, a.id, &sel, &n, &e),
			 -EPERM);
	expect_msg(&e, "records there could be anyone's");
	assert_int_equal(chown(f->dir, 0, 0), 0);
	/* ... or a directory above it that its group can write */
	snprintf(path, sizeof(path), "%s/a", f->root);
	assert_int_equal(chmod(path, 0770), 0);
	assert_int_equal(xvbd_ab_store_list(f->dir, &paths, &n, &e), -EPERM);
	expect_msg(&e, "writable by its group (mode 0770)");
	/* ... but a record named by path there is read, with a warning */
	assert_int_equal(xvbd_ab_store_read(a.path, false, &r, &e), 0);
	assert_non_null(r.untrusted);
	assert_non_null(strstr(r.untrusted, "owned by uid 0 (root)"));
	xvbd_ab_record_free(&r);
	assert_int_equal(chmod(path, 0700), 0);
	/* a link in the store made by root to a store's record: a path
	 * named on purpose reads it (root's alone the whole way) */
	snprintf(link, sizeof(link), "%s/ln.json", f->root);
	assert_int_equal(symlink(a.path, link), 0);
	assert_int_equal(xvbd_ab_store_read(link, false, &r, &e), -EINVAL);
	expect_msg(&e, "is not the file's name");
	xvbd_ab_record_free(&a);
	xvbd_ab_record_free(&b);
}

/*
 * A hostile record: a valid format and version, then nothing but
 * "samples": [0,0,...] up to size bytes (the head misses its "id").
 */
static void write_hostile(const char *path, size_t size)
{
	static const char head[] =
		"{\"format\":\"xvbd-ab-record\",\"version\":1,\"samples\":[";
	size_t body = size - strlen(head) - 3, i;
	FILE *f = fopen(path, "w");
	char *buf = malloc(body);

	assert_non_null(f);
	assert_non_null(buf);
	for (i = 0; i < body; i++)
		buf[i] = i % 2 ? ',' : '0';
	if (body % 2)
		buf[body - 1] = ' ';
	assert_int_equal(fputs(head, f) >= 0, 1);
	assert_int_equal(fwrite(buf, 1, body, f), body);
	assert_int_equal(fputs("0]}", f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
	free(buf);
}

/*
 * Read path in a child: its peak RSS growth while reading (KiB,
 * getrusage), and the error.  The parent's memory is not the child's
 * to count: the growth is after minus before, in the child.
 */
static long read_peak_kib(const char *path, char *msg, size_t len)
{
	int fds[2], status;
	long kib = -1;
	pid_t pid;

	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		struct xvbd_ab_record r;
		struct xvbd_ab_err e = { "" };
		struct rusage before, after;
		char out[sizeof(e.msg) + 32];
		int n;

		getrusage(RUSAGE_SELF, &before);
		if (!xvbd_ab_store_read(path, false, &r, &e))
			_exit(3);
		getrusage(RUSAGE_SELF, &after);
		n = snprintf(out, sizeof(out), "%ld %s",
			     after.ru_maxrss - before.ru_maxrss, e.msg);
		_exit(write(fds[1], out, (size_t)n) == n ? 0 : 4);
	}
	close(fds[1]);
	memset(msg, 0, len);
	{
		char in[600] = "";
		ssize_t n = read(fds[0], in, sizeof(in) - 1);
		char *sp = n > 0 ? strchr(in, ' ') : NULL;

		if (sp) {
			kib = strtol(in, NULL, 10);
			snprintf(msg, len, "%s", sp + 1);
		}
	}
	close(fds[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	return kib;
}

/* 64 MB, as the finding measured it: dom0 must not pay more. */
#define HOSTILE_PEAK_MAX_KIB	(64000000 / 1024)

static void test_hostile_memory(void **state)
{
	struct store_fixture *f = *state;
	char path[256], msg[600];
	long kib;

	/* the file of the report: 64 MiB */
	snprintf(path, sizeof(path), "%s/big.json", f->root);
	write_hostile(path, 64 << 20);
	kib = read_peak_kib(path, msg, sizeof(msg));
	print_message("64 MiB hostile record: peak RSS grew %ld KiB: %s\n",
		      kib, msg);
	assert_true(kib >= 0 && kib < HOSTILE_PEAK_MAX_KIB);
	assert_non_null(strstr(msg, path));
	assert_null(strchr(msg, '\n'));
	unlink(path);
	/* just under the cap: read, and refused at its first sample's
	 * turn (the head misses its id) */
	write_hostile(path, XVBD_AB_FILE_MAX - 1);
	kib = read_peak_kib(path, msg, sizeof(msg));
	print_message("%d MiB - 1 hostile record: peak RSS grew %ld KiB: "
		      "%s\n", XVBD_AB_FILE_MAX >> 20, kib, msg);
	assert_true(kib >= 0 && kib < HOSTILE_PEAK_MAX_KIB);
	assert_non_null(strstr(msg, "missing \"id\""));
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fp),
		cmocka_unit_test(test_labels_ids),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_write_checks),
		cmocka_unit_test(test_damage),
		cmocka_unit_test_setup_teardown(test_store_write, store_setup,
						store_teardown),
		cmocka_unit_test_setup_teardown(test_store_read_errors,
						store_setup, store_teardown),
		cmocka_unit_test_setup_teardown(test_store_trust, store_setup,
						store_teardown),
		cmocka_unit_test_setup_teardown(test_hostile_memory,
						store_setup, store_teardown),
		cmocka_unit_test_setup_teardown(test_store_list_select,
						store_setup, store_teardown),
		cmocka_unit_test_setup_teardown(test_sysfs_clocksource,
						store_setup, store_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
