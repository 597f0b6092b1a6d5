/*
 * test_stats_lat.c - stats --latency's output: text and CSV carry the
 * same p50/p99/p99.9/max digits as JSON's ns, JSON's buckets add up to
 * the count, and the Prometheus textfile's histograms are cumulative
 * with _sum and _count.  With XVBD_TEST_PROM_OUT set, the Prometheus
 * text is also written there (tests/promtool.sh checks it with
 * promtool).
 */
#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <yajl/yajl_tree.h>

#include "xvbd/stats/stats.h"

struct fake {
	struct xvbd_stats_sample s;
	struct xvbd_stats_vbd v[2];
	struct xvbd_lat_result lat[2], total[2];
};

static void fill(struct xvbd_lathist *h, uint64_t base, unsigned n)
{
	unsigned i;

	/* base, base + 1%, ... and one far tail value. */
	for (i = 0; i < n; i++)
		assert_int_equal(xvbd_lathist_add(h, base + base / 100 * i, 1),
				 0);
	assert_int_equal(xvbd_lathist_add(h, base * 40, 1), 0);
}

static void fake(struct fake *f)
{
	size_t i, k, d;

	memset(f, 0, sizeof(*f));
	f->s.seq = 3;
	f->s.interval_ns = 1000000000;
	f->s.realtime_ns = 1700000000000000000ll;
	f->s.lat_asked = f->s.lat_on = true;
	for (i = 0; i < 2; i++) {
		f->v[i] = (struct xvbd_stats_vbd){
			.domid = 3, .domain = "g", .devid = 51728 + 16 * i,
			.iv = XVBD_IV_OK, .has_blk = true, .blk_major = 254,
			.blk_minor = 17 + i, .blk_iv = XVBD_IV_OK,
			.lat_state = i ? XVBD_LAT_UNSUPPORTED : XVBD_LAT_OK,
		};
		snprintf(f->v[i].vdev, sizeof(f->v[i].vdev), "xvd%c",
			 (int)('b' + i));
		f->lat[i].state = f->total[i].state = f->v[i].lat_state;
	}
	fill(&f->lat[0].h[XVBD_LAT_D2C][XVBD_LAT_READ], 62500000, 99);
	fill(&f->lat[0].h[XVBD_LAT_I2C][XVBD_LAT_READ], 63000000, 99);
	fill(&f->lat[0].h[XVBD_LAT_D2C][XVBD_LAT_WRITE], 150000, 20);
	for (k = 0; k < XVBD_LAT_NKINDS; k++) {
		for (d = 0; d < XVBD_LAT_NDIRS; d++) {
			assert_int_equal(xvbd_lathist_merge(
				&f->total[0].h[k][d], &f->lat[0].h[k][d]), 0);
			assert_int_equal(xvbd_lathist_merge(
				&f->total[0].h[k][d], &f->lat[0].h[k][d]), 0);
		}
	}
	f->s.vbds = f->v;
	f->s.nvbds = 2;
	f->s.lat = f->lat;
	f->s.lat_total = f->total;
	f->s.cap_lat = 2;
}

static void unfake(struct fake *f)
{
	size_t i, k, d;

	for (i = 0; i < 2; i++)
		for (k = 0; k < XVBD_LAT_NKINDS; k++)
			for (d = 0; d < XVBD_LAT_NDIRS; d++) {
				xvbd_lathist_free(&f->lat[i].h[k][d]);
				xvbd_lathist_free(&f->total[i].h[k][d]);
			}
}

static char *render(enum xvbd_stats_fmt fmt, const struct xvbd_stats_sample *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(xvbd_stats_render(f, fmt, s, true), 0);
	fclose(f);
	return buf;
}

static yajl_val path(yajl_val root, const char **p)
{
	yajl_val v = yajl_tree_get(root, p, yajl_t_any);

	assert_non_null(v);
	return v;
}

static void test_json_and_text(void **state)
{
	struct fake f;
	char *json, *csv, *text, err[256], want[32];
	const char *rd[] = { "vbds", NULL };
	yajl_val root, vbds, lat, v;
	uint64_t p50;

	(void)state;
	fake(&f);
	json = render(XVBD_STATS_JSON, &f.s);
	root = yajl_tree_parse(json, err, sizeof(err));
	assert_non_null(root);
	vbds = path(root, rd);
	{
		const char *p[] = { "latency", "d2c", "read", NULL };

		lat = yajl_tree_get(vbds->u.array.values[0], p, yajl_t_object);
		assert_non_null(lat);
	}
	{
		const char *p[] = { "count", NULL }, *q[] = { "p50_ns", NULL },
			   *m[] = { "max_ns", NULL },
			   *b[] = { "buckets", NULL };
		yajl_val bk;
		uint64_t sum = 0;
		size_t i;

		assert_int_equal(YAJL_GET_INTEGER(path(lat, p)), 100);
		p50 = (uint64_t)YAJL_GET_INTEGER(path(lat, q));
		/* Within the stated 1/64 of the true median (the 50th of
		 * base + 1 % steps: base x 1.49). */
		assert_true(p50 >= 62500000ull * 149 / 100 * 63 / 64 &&
			    p50 <= 62500000ull * 149 / 100 * 65 / 64);
		assert_int_equal(YAJL_GET_INTEGER(path(lat, m)),
				 62500000ll * 40);
		bk = path(lat, b);
		for (i = 0; i < bk->u.array.len; i++)
			sum += (uint64_t)YAJL_GET_INTEGER(
				bk->u.array.values[i]->u.array.values[1]);
		assert_int_equal(sum, 100);
	}
	{
		const char *p[] = { "latency_clock", NULL },
			   *st[] = { "latency", "state", NULL };

		v = path(root, p);
		assert_string_equal(YAJL_GET_STRING(v), "mono");
		v = yajl_tree_get(vbds->u.array.values[1], st, yajl_t_string);
		assert_non_null(v);
		assert_string_equal(YAJL_GET_STRING(v), "unsupported");
	}
	/* Text and CSV: p50 in ms, the same digits. */
	snprintf(want, sizeof(want), "%.3f", (double)p50 / 1e6);
	text = render(XVBD_STATS_TEXT, &f.s);
	assert_non_null(strstr(text, "RD-P50(ms)"));
	assert_non_null(strstr(text, want));
	assert_non_null(strstr(text, "within 1.6 %"));
	csv = render(XVBD_STATS_CSV, &f.s);
	assert_non_null(strstr(csv, ",read_p50_ms,read_p99_ms,read_p99_9_ms,"
			       "read_max_ms,"));
	assert_non_null(strstr(csv, want));
	yajl_tree_free(root);
	free(json);
	free(text);
	free(csv);
	unfake(&f);
}

static void test_unavailable(void **state)
{
	struct fake f;
	char *json;

	(void)state;
	fake(&f);
	f.s.lat_on = false;
	snprintf(f.s.lat_unavailable, sizeof(f.s.lat_unavailable),
		 "tracefs is not mounted");
	json = render(XVBD_STATS_JSON, &f.s);
	assert_non_null(strstr(json, "\"latency_unavailable\":\"tracefs is "
			       "not mounted\""));
	assert_non_null(strstr(json, "\"latency\":null"));
	free(json);
	unfake(&f);
}

/* "name{labels} value": the value of the line that has all of frags. */
static uint64_t prom_value(const char *text, const char *name,
			   const char *frag1, const char *frag2)
{
	const char *p = text;
	size_t n = strlen(name);

	while ((p = strstr(p, name))) {
		const char *eol = strchr(p, '\n'), *sp;
		char line[512];

		assert_non_null(eol);
		snprintf(line, sizeof(line), "%.*s", (int)(eol - p), p);
		if ((p == text || p[-1] == '\n') && line[n] == '{' &&
		    strstr(line, frag1) && (!frag2 || strstr(line, frag2))) {
			sp = strrchr(line, ' ');
			return strtoull(sp + 1, NULL, 10);
		}
		p = eol;
	}
	fail_msg("no %s with %s", name, frag1);
	return 0;
}

/* i2c where it is timed (a queue with a scheduler); null and no series
 * where it is not, never zero requests. */
static void test_i2c_not_timed(void **state)
{
	struct fake f;
	char *out, *buf = NULL;
	size_t len = 0;
	FILE *fp;
	int timed;

	(void)state;
	fake(&f);
	for (timed = 0; timed < 2; timed++) {
		f.lat[0].i2c_timed = f.total[0].i2c_timed = timed;
		out = render(XVBD_STATS_JSON, &f.s);
		if (timed)
			assert_non_null(strstr(out, "\"i2c\":{\"read\":{"
					       "\"count\":100,"));
		else
			assert_non_null(strstr(out, "\"i2c\":null"));
		assert_non_null(strstr(out, "\"d2c\":{\"read\":{"));
		free(out);
		fp = open_memstream(&buf, &len);
		assert_non_null(fp);
		xvbd_stats_prom_render(fp, &f.s);
		fclose(fp);
		if (timed)
			assert_non_null(strstr(buf, "\nxvbd_vbd_backing_i2c_"
					       "seconds_count{"));
		else
			assert_null(strstr(buf, "\nxvbd_vbd_backing_i2c_"
					    "seconds_count{"));
		assert_non_null(strstr(buf, "\nxvbd_vbd_backing_d2c_seconds_"
				       "count{"));
		free(buf);
		buf = NULL;
	}
	unfake(&f);
}

static void test_prometheus(void **state)
{
	struct fake f;
	char *buf = NULL, *out;
	size_t len = 0;
	FILE *fp;
	const char *p;
	uint64_t last = 0, v;
	int lines = 0;

	(void)state;
	fake(&f);
	fp = open_memstream(&buf, &len);
	assert_non_null(fp);
	xvbd_stats_prom_render(fp, &f.s);
	fclose(fp);
	assert_non_null(strstr(buf, "# TYPE xvbd_vbd_backing_d2c_seconds "
			       "histogram\n"));
	assert_non_null(strstr(buf, "# TYPE xvbd_vbd_backing_i2c_seconds "
			       "histogram\n"));
	/* The totals: twice the interval's 100. */
	assert_int_equal(prom_value(buf, "xvbd_vbd_backing_d2c_seconds_count",
				    "vdev=\"xvdb\"", "direction=\"read\""),
			 200);
	assert_int_equal(prom_value(buf, "xvbd_vbd_backing_d2c_seconds_bucket",
				    "direction=\"read\"", "le=\"+Inf\""), 200);
	/* 1 ms holds none of the reads; 2^27 - 1 ns (134 ms) all but the
	 * two 2.5 s tails. */
	assert_int_equal(prom_value(buf, "xvbd_vbd_backing_d2c_seconds_bucket",
				    "direction=\"read\"",
				    "le=\"0.001048575\""), 0);
	assert_int_equal(prom_value(buf, "xvbd_vbd_backing_d2c_seconds_bucket",
				    "direction=\"read\"",
				    "le=\"0.134217727\""), 198);
	/* _sum in s, exact: twice sum_ns. */
	out = strstr(buf, "xvbd_vbd_backing_d2c_seconds_sum{domid=\"3\","
		     "domain=\"g\",vdev=\"xvdb\",devid=\"51728\","
		     "direction=\"read\"} ");
	assert_non_null(out);
	v = f.total[0].h[XVBD_LAT_D2C][XVBD_LAT_READ].sum_ns;
	{
		char want[64];

		snprintf(want, sizeof(want), "%" PRIu64 ".%09" PRIu64 "\n",
			 v / 1000000000u, v % 1000000000u);
		assert_int_equal(strncmp(strchr(out, '}') + 2, want,
					 strlen(want)), 0);
	}
	/* Cumulative: the read buckets never go down, 28 of them. */
	for (p = buf; (p = strstr(p, "xvbd_vbd_backing_d2c_seconds_bucket{"
				  "domid=\"3\",domain=\"g\",vdev=\"xvdb\","
				  "devid=\"51728\",direction=\"read\""));
	     p++) {
		char line[512];

		snprintf(line, sizeof(line), "%.*s",
			 (int)(strchr(p, '\n') - p), p);
		v = strtoull(strrchr(line, ' ') + 1, NULL, 10);
		assert_true(v >= last);
		last = v;
		lines++;
	}
	assert_int_equal(lines, 28);
	/* The unsupported device has no histogram. */
	assert_null(strstr(buf, "vdev=\"xvdc\",devid=\"51744\",direction"));
	if (getenv("XVBD_TEST_PROM_OUT")) {
		fp = fopen(getenv("XVBD_TEST_PROM_OUT"), "w");
		assert_non_null(fp);
		fputs(buf, fp);
		fclose(fp);
	}
	free(buf);
	unfake(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json_and_text),
		cmocka_unit_test(test_unavailable),
		cmocka_unit_test(test_prometheus),
		cmocka_unit_test(test_i2c_not_timed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
