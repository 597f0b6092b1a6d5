/*
 * Unit tests: one set of out_* calls renders text and JSON; the JSON
 * parses back (yajl_tree) to the same values.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <yajl/yajl_tree.h>

#include "xvbd/base/out.h"
#include "xvbd/base/util.h"

static const struct xvbd_out_label labels[] = {
	{ "domid", "ID" },
	{ NULL, NULL },
};

/* The same description, as a command would emit it. */
static void describe(struct xvbd_out *o)
{
	xvbd_out_labels(o, labels);
	xvbd_out_obj_begin(o, NULL);
	xvbd_out_uint(o, "domid", 7);
	xvbd_out_str(o, "domain", "guest\x01\"q\"");
	xvbd_out_size_opt(o, "size_bytes", true, 3ull << 30);
	xvbd_out_uint(o, "big", UINT64_MAX);
	xvbd_out_bool(o, "persistent", true);
	xvbd_out_uint_opt(o, "queues", false, 0);
	xvbd_out_obj_begin(o, "backend");
	xvbd_out_str(o, "state", "4");
	xvbd_out_note(o, "Connected");
	xvbd_out_obj_end(o);
	xvbd_out_arr_begin(o, "negotiated");
	xvbd_out_obj_begin(o, NULL);
	xvbd_out_str(o, "key", "ring-page-order");
	xvbd_out_uint(o, "offer", 4);
	xvbd_out_null(o, "choice");
	xvbd_out_obj_end(o);
	xvbd_out_obj_begin(o, NULL);
	xvbd_out_str(o, "key", "feature-persistent");
	xvbd_out_uint(o, "offer", 1);
	xvbd_out_uint(o, "choice", 1);
	xvbd_out_obj_end(o);
	xvbd_out_arr_end(o);
	xvbd_out_arr_begin(o, "warnings");
	xvbd_out_str(o, NULL, "one");
	xvbd_out_arr_end(o);
	xvbd_out_obj_end(o);
}

static char *render(bool json, int *rc)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct xvbd_out *o;

	assert_non_null(f);
	o = xvbd_out_new(f, json);
	assert_non_null(o);
	describe(o);
	*rc = xvbd_out_finish(o);
	xvbd_out_free(o);
	fclose(f);
	return buf;
}

static void test_json_roundtrip(void **state)
{
	static const char *p_domid[] = { "domid", NULL };
	static const char *p_domain[] = { "domain", NULL };
	static const char *p_size[] = { "size_bytes", NULL };
	static const char *p_big[] = { "big", NULL };
	static const char *p_pers[] = { "persistent", NULL };
	static const char *p_queues[] = { "queues", NULL };
	static const char *p_state[] = { "backend", "state", NULL };
	static const char *p_neg[] = { "negotiated", NULL };
	static const char *p_warn[] = { "warnings", NULL };
	char err[256];
	yajl_val root, v, row;
	int rc;
	char *json = render(true, &rc);

	(void)state;
	assert_int_equal(rc, 0);
	/* one document, one line, no beautify */
	assert_non_null(strchr(json, '\n'));
	assert_int_equal(strchr(json, '\n')[1], '\0');
	root = yajl_tree_parse(json, err, sizeof(err));
	if (!root)
		fail_msg("invalid JSON: %s: %s", err, json);
	v = yajl_tree_get(root, p_domid, yajl_t_number);
	assert_non_null(v);
	assert_int_equal(YAJL_GET_INTEGER(v), 7);
	v = yajl_tree_get(root, p_domain, yajl_t_string);
	assert_string_equal(YAJL_GET_STRING(v), "guest\\x01\"q\"");
	v = yajl_tree_get(root, p_size, yajl_t_number);
	assert_true(YAJL_GET_INTEGER(v) == 3ll << 30);
	v = yajl_tree_get(root, p_big, yajl_t_number);
	assert_string_equal(YAJL_GET_NUMBER(v), "18446744073709551615");
	assert_true(YAJL_IS_TRUE(yajl_tree_get(root, p_pers, yajl_t_any)));
	assert_true(YAJL_IS_NULL(yajl_tree_get(root, p_queues, yajl_t_any)));
	v = yajl_tree_get(root, p_state, yajl_t_string);
	assert_string_equal(YAJL_GET_STRING(v), "4");
	v = yajl_tree_get(root, p_neg, yajl_t_array);
	assert_int_equal(YAJL_GET_ARRAY(v)->len, 2);
	row = YAJL_GET_ARRAY(v)->values[0];
	assert_true(YAJL_IS_OBJECT(row));
	assert_int_equal(YAJL_GET_OBJECT(row)->len, 3);
	assert_true(YAJL_IS_NULL(YAJL_GET_OBJECT(row)->values[2]));
	v = yajl_tree_get(root, p_warn, yajl_t_array);
	assert_string_equal(YAJL_GET_STRING(YAJL_GET_ARRAY(v)->values[0]),
			    "one");
	yajl_tree_free(root);
	free(json);
}

static void test_text(void **state)
{
	int rc;
	char *text = render(false, &rc);

	(void)state;
	assert_int_equal(rc, 0);
	/* the same values, the text way */
	assert_non_null(strstr(text, "ID:         7\n"));
	assert_non_null(strstr(text, "domain:     guest\\x01\"q\"\n"));
	assert_non_null(strstr(text, "size_bytes: 3G\n"));
	assert_non_null(strstr(text, "persistent: yes\n"));
	assert_non_null(strstr(text, "queues:     -\n"));
	assert_non_null(strstr(text, "backend:\n  state: 4  # Connected\n"));
	assert_non_null(strstr(text,
		"negotiated:\n"
		"  KEY                 OFFER  CHOICE\n"
		"  ring-page-order     4      -\n"
		"  feature-persistent  1      1\n"));
	assert_non_null(strstr(text, "warnings:\n  - one\n"));
	assert_null(strchr(text, '\x01'));
	free(text);
}

static void test_table_and_empty(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct xvbd_out *o = xvbd_out_new(f, false);

	(void)state;
	xvbd_out_arr_begin(o, NULL);
	xvbd_out_arr_end(o);
	assert_int_equal(xvbd_out_finish(o), 0);
	xvbd_out_free(o);
	fclose(f);
	assert_int_equal(len, 0);	/* empty list: no rows, no header */
	free(buf);

	buf = NULL;
	f = open_memstream(&buf, &len);
	o = xvbd_out_new(f, true);
	xvbd_out_arr_begin(o, NULL);
	xvbd_out_arr_end(o);
	assert_int_equal(xvbd_out_finish(o), 0);
	xvbd_out_free(o);
	fclose(f);
	assert_string_equal(buf, "[]\n");
	free(buf);
}

static void test_misuse_and_write_error(void **state)
{
	FILE *f = fopen("/dev/null", "w");
	struct xvbd_out *o;

	(void)state;
	assert_non_null(f);
	/* unbalanced */
	o = xvbd_out_new(f, true);
	xvbd_out_obj_begin(o, NULL);
	assert_int_equal(xvbd_out_finish(o), -1);
	xvbd_out_free(o);
	/* scalar outside a container, text */
	o = xvbd_out_new(f, false);
	xvbd_out_uint(o, "x", 1);
	assert_int_equal(xvbd_out_finish(o), -1);
	xvbd_out_free(o);
	/* two documents */
	o = xvbd_out_new(f, false);
	xvbd_out_arr_begin(o, NULL);
	xvbd_out_arr_end(o);
	xvbd_out_arr_begin(o, NULL);
	xvbd_out_arr_end(o);
	assert_int_equal(xvbd_out_finish(o), -1);
	xvbd_out_free(o);
	/* nothing emitted is fine */
	o = xvbd_out_new(f, true);
	assert_int_equal(xvbd_out_finish(o), 0);
	xvbd_out_free(o);
	fclose(f);

	/* a full disk: the write error is reported */
	f = fopen("/dev/full", "w");
	if (!f)
		skip();
	o = xvbd_out_new(f, true);
	xvbd_out_arr_begin(o, NULL);
	xvbd_out_str(o, NULL, "x");
	xvbd_out_arr_end(o);
	assert_int_equal(xvbd_out_finish(o), -1);
	xvbd_out_free(o);
	fclose(f);
}

/* Render describe_rows() in mode m into a string. */
static char *rows_to_string(enum xvbd_out_mode m, bool with_rows)
{
	static const char *const cols[] = { "time", "domid", "name", "pct",
					    "flag", "missing" };
	static const struct xvbd_out_prom_metric metrics[] = {
		{ "cpu_ns", "x_cpu_seconds_total", "counter", "cpu",
		  XVBD_PROM_NS_AS_S, NULL },
		{ "pct", "x_percent", "gauge", "pct", XVBD_PROM_AS_IS, NULL },
		{ "lat_ms", "x_latency_seconds", "gauge", "lat",
		  XVBD_PROM_MS_AS_S, NULL },
	};
	static const char *const labels_p[] = { "domid", "name" };
	char *buf = NULL;
	size_t len = 0, i;
	FILE *f = open_memstream(&buf, &len);
	struct xvbd_out *o;

	assert_non_null(f);
	o = xvbd_out_new_mode(f, m);
	assert_non_null(o);
	xvbd_out_csv_columns(o, cols, 6, true);
	xvbd_out_prom_metrics(o, metrics, 3, labels_p, 2);
	xvbd_out_obj_begin(o, NULL);
	xvbd_out_str(o, "time", "T1");	/* context of every row */
	xvbd_out_arr_begin(o, "rows");
	for (i = 0; with_rows && i < 2; i++) {
		xvbd_out_obj_begin(o, NULL);
		xvbd_out_uint(o, "domid", i);
		xvbd_out_str(o, "name", i ? "a,\"b\"\n" : "plain");
		xvbd_out_fixed_opt(o, "pct", i == 0, 12.5, 2);
		xvbd_out_bool(o, "flag", i);
		xvbd_out_uint(o, "cpu_ns", 1500000000u * (i + 1));
		xvbd_out_fixed_opt(o, "lat_ms", i == 1, 2.5, 3);
		/* Inside a row: no cells (arrays, nested objects). */
		xvbd_out_arr_begin(o, "list");
		xvbd_out_uint(o, NULL, 99);
		xvbd_out_arr_end(o);
		xvbd_out_obj_begin(o, "nested");
		xvbd_out_str(o, "time", "NESTED");
		xvbd_out_obj_end(o);
		xvbd_out_obj_end(o);
	}
	xvbd_out_arr_end(o);
	xvbd_out_obj_end(o);
	assert_int_equal(xvbd_out_finish(o), 0);
	xvbd_out_free(o);
	fclose(f);
	return buf;
}

/* CSV and Prometheus are modes of the same calls: rows with context. */
static void test_rows(void **state)
{
	char *s;

	(void)state;
	s = rows_to_string(XVBD_OUT_CSV, true);
	assert_string_equal(s, "time,domid,name,pct,flag,missing\n"
			    "T1,0,plain,12.50,false,\n"
			    "T1,1,\"a,\"\"b\"\"\\x0a\",,true,\n");
	free(s);
	s = rows_to_string(XVBD_OUT_CSV, false);
	assert_string_equal(s, "time,domid,name,pct,flag,missing\n");
	free(s);
	s = rows_to_string(XVBD_OUT_PROM, true);
	assert_string_equal(s,
		"# HELP x_cpu_seconds_total cpu\n"
		"# TYPE x_cpu_seconds_total counter\n"
		"x_cpu_seconds_total{domid=\"0\",name=\"plain\"} 1.500000000\n"
		"x_cpu_seconds_total{domid=\"1\",name=\"a,\\\"b\\\"\\n\"} "
		"3.000000000\n"
		"# HELP x_percent pct\n# TYPE x_percent gauge\n"
		"x_percent{domid=\"0\",name=\"plain\"} 12.50\n"
		"# HELP x_latency_seconds lat\n# TYPE x_latency_seconds gauge\n"
		"x_latency_seconds{domid=\"1\",name=\"a,\\\"b\\\"\\n\"} "
		"0.002500\n");
	free(s);
}

/* What JSON mode prints for a document (how: 0 nothing, 1 an object, 2
 * an array, 3 half an object) and an exit code. */
static char *finish_json(int how, int rc, bool status_always)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct xvbd_out *o;

	assert_non_null(f);
	o = xvbd_out_new(f, true);
	assert_non_null(o);
	if (status_always)
		xvbd_out_status_always(o, "xvdb attach");
	if (how == 1 || how == 3) {
		xvbd_out_obj_begin(o, NULL);
		xvbd_out_bool(o, "changed", true);
		if (how == 1)
			xvbd_out_obj_end(o);
	} else if (how == 2) {
		xvbd_out_arr_begin(o, NULL);
		xvbd_out_uint(o, NULL, 1);
		xvbd_out_arr_end(o);
	}
	xvbd_out_finish_rc(o, rc);
	/* once only: a second finish prints nothing more */
	xvbd_out_finish_rc(o, rc);
	xvbd_out_free(o);
	fclose(f);
	return buf;
}

static void test_json_failure(void **state)
{
	/* the first error is the msg; later ones and warnings are not */
	static const struct {
		int how, rc;
		bool always;
		const char *want;
	} cases[] = {
		{ 0, 1, false, "{\"changed\":false,\"failed\":true,\"msg\":"
		  "\"t: what: the cause\",\"rc\":1}\n" },
		{ 1, 1, false, "{\"changed\":true,\"failed\":true,\"msg\":"
		  "\"t: what: the cause\",\"rc\":1}\n" },
		{ 2, 2, false, "{\"failed\":true,\"msg\":\"t: what: the cause\","
		  "\"rc\":2,\"result\":[1]}\n" },
		{ 3, 1, false, "{\"changed\":false,\"failed\":true,\"msg\":"
		  "\"t: what: the cause\",\"rc\":1}\n" },
		{ 1, 0, false, "{\"changed\":true}\n" },
		{ 1, 0, true, "{\"changed\":true,\"failed\":false,\"msg\":"
		  "\"xvdb attach\",\"rc\":0}\n" },
		{ 0, 0, false, NULL },
	};
	size_t i;
	char *got;

	(void)state;
	xvbd_err("t", "warning", "not a failure's cause");
	xvbd_err("t", "what", "the cause");
	xvbd_err("t", "cleanup", "a consequence");
	assert_string_equal(xvbd_err_first(), "t: what: the cause");
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		got = finish_json(cases[i].how, cases[i].rc, cases[i].always);
		if (cases[i].want)
			assert_string_equal(got, cases[i].want);
		else
			assert_true(!got || !got[0]);
		free(got);
	}
}

/* A histogram family: HELP and TYPE once, then suffixed samples. */
static void test_prom_histogram(void **state)
{
	static const struct xvbd_out_prom_metric metrics[] = {
		{ "le_count", "h_seconds", "histogram", "h", XVBD_PROM_AS_IS,
		  "_bucket" },
		{ "sum_ns", "h_seconds", NULL, NULL, XVBD_PROM_NS_AS_S, "_sum" },
		{ "count", "h_seconds", NULL, NULL, XVBD_PROM_AS_IS, "_count" },
	};
	static const char *const hlabels[] = { "dev", "le" };
	static const char want[] =
		"# HELP h_seconds h\n# TYPE h_seconds histogram\n"
		"h_seconds_bucket{dev=\"a\",le=\"0.5\"} 1\n"
		"h_seconds_bucket{dev=\"a\",le=\"+Inf\"} 2\n"
		"h_seconds_sum{dev=\"a\"} 1.500000000\n"
		"h_seconds_count{dev=\"a\"} 2\n";
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct xvbd_out *o;

	(void)state;
	assert_non_null(f);
	o = xvbd_out_new_mode(f, XVBD_OUT_PROM);
	assert_non_null(o);
	xvbd_out_prom_metrics(o, metrics, 3, hlabels, 2);
	xvbd_out_obj_begin(o, NULL);
	xvbd_out_arr_begin(o, "rows");
	xvbd_out_obj_begin(o, NULL);
	xvbd_out_str(o, "dev", "a");
	xvbd_out_str(o, "le", "0.5");
	xvbd_out_uint(o, "le_count", 1);
	xvbd_out_obj_end(o);
	xvbd_out_obj_begin(o, NULL);
	xvbd_out_str(o, "dev", "a");
	xvbd_out_str(o, "le", "+Inf");
	xvbd_out_uint(o, "le_count", 2);
	xvbd_out_obj_end(o);
	xvbd_out_obj_begin(o, NULL);
	xvbd_out_str(o, "dev", "a");
	xvbd_out_uint(o, "sum_ns", 1500000000);
	xvbd_out_uint(o, "count", 2);
	xvbd_out_obj_end(o);
	xvbd_out_arr_end(o);
	xvbd_out_obj_end(o);
	assert_int_equal(xvbd_out_finish(o), 0);
	xvbd_out_free(o);
	fclose(f);
	assert_string_equal(buf, want);
	free(buf);
}

/*
 * Wrapping at 20 columns: a value goes on under itself, broken between
 * words; a list item under its text; a word longer than the line whole;
 * a table as it is (the caller fits it); 0 never wraps.
 */
static void test_wrap(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct xvbd_out *o = xvbd_out_new(f, false);

	(void)state;
	xvbd_out_wrap(o, 20);
	xvbd_out_obj_begin(o, NULL);
	xvbd_out_str(o, "k", "one two three four five");
	xvbd_out_str(o, "long", "abcdefghijklmnopqrstuvwxyz end");
	xvbd_out_arr_begin(o, "list");
	xvbd_out_str(o, NULL, "alpha beta gamma delta");
	xvbd_out_arr_end(o);
	xvbd_out_arr_begin(o, "rows");
	xvbd_out_obj_begin(o, NULL);
	xvbd_out_str(o, "cell", "a cell of more than twenty columns");
	xvbd_out_obj_end(o);
	xvbd_out_arr_end(o);
	xvbd_out_obj_end(o);
	assert_int_equal(xvbd_out_finish(o), 0);
	xvbd_out_free(o);
	fclose(f);
	fprintf(stderr, "%s", buf);
	assert_non_null(strstr(buf, "k:    one two three\n      four five\n"));
	assert_non_null(strstr(buf, "long: abcdefghijklmnopqrstuvwxyz\n"
				    "      end\n"));
	assert_non_null(strstr(buf, "  - alpha beta gamma\n    delta\n"));
	assert_non_null(strstr(buf, "  a cell of more than twenty columns\n"));
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json_roundtrip),
		cmocka_unit_test(test_text),
		cmocka_unit_test(test_wrap),
		cmocka_unit_test(test_table_and_empty),
		cmocka_unit_test(test_misuse_and_write_error),
		cmocka_unit_test(test_rows),
		cmocka_unit_test(test_json_failure),
		cmocka_unit_test(test_prom_histogram),
	};

	return cmocka_run_group_tests_name("out", tests, NULL, NULL);
}
