/*
 * test_vocab.c - one name per quantity: the vocabulary's table itself,
 * and every name `xvbd stats` writes in JSON (its latency object too),
 * CSV and the Prometheus textfile, and every metric --metric takes, found
 * in it.  (The ab
 * commands' JSON and CSV: tests/cli-vocab.sh.)
 */
#include <ctype.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <yajl/yajl_tree.h>

#include "xvbd/ab/ab.h"
#include "xvbd/ab/ab_lat.h"
#include "xvbd/base/out.h"
#include "xvbd/base/vocab.h"
#include "xvbd/stats/stats.h"

#define NS	UINT64_C(1000000000)

/* The keys of a stats document that name no quantity: what a row is. */
static const char *const not_quantities[] = {
	"time", "seq", "type", "domid", "domain", "vdev", "devid", "pid",
	"backing", "interval", "reset", "cpu_interval", "backend_interval",
	"lat_state", "domains", "vbds", "rings", "latency_clock",
	/* the latency object: its state, the distributions' places */
	"latency", "state", "read", "write", "buckets",
	/* a record's pv_path: whence each side, the percentile it is at */
	"pv_path", "vdev", "guest_from", "device_from", "p50", "p99", "lines",
	NULL,
};

static bool is_snake(const char *s)
{
	if (!*s || !islower((unsigned char)*s))
		return false;
	for (; *s; s++)
		if (!islower((unsigned char)*s) &&
		    !isdigit((unsigned char)*s) && *s != '_')
			return false;
	return true;
}

static bool listed(const char *const *list, const char *s)
{
	for (; *list; list++)
		if (!strcmp(*list, s))
			return true;
	return false;
}

/* The keys found in no table so far, each once: all named at the end. */
static char unknown[1024];
static size_t nunknown;

/* A name of the table, or a key that names no quantity; else noted. */
static void known_key(const char *where, const char *key)
{
	bool old;
	size_t len = strlen(unknown);
	char word[80];

	if (listed(not_quantities, key))
		return;
	if (xvbd_q_find(key, &old) >= 0 && !old)
		return;
	snprintf(word, sizeof(word), " %s", key);
	if (strstr(unknown, word))
		return;
	nunknown++;
	snprintf(unknown + len, sizeof(unknown) - len, "%s", word);
	print_message("%s: \"%s\" is no name of the vocabulary\n", where,
		      key);
}

/* None noted since the last call. */
static void all_known(const char *where)
{
	size_t n = nunknown;

	nunknown = 0;
	if (n)
		fail_msg("%s: %zu names not in the table:%s", where, n,
			 unknown);
	unknown[0] = '\0';
}

static void test_table(void **state)
{
	int q, r;

	(void)state;
	for (q = 0; q < XVBD_Q_N; q++) {
		const struct xvbd_quantity *v = &xvbd_quantities[q];
		char old[256], *w, *save = NULL;
		bool was_old;

		assert_non_null(v->name);
		assert_non_null(v->unit);
		assert_non_null(v->old);
		assert_true(v->meaning && *v->meaning);
		if (!is_snake(v->name))
			fail_msg("\"%s\": not snake_case", v->name);
		for (r = 0; r < q; r++) {
			const struct xvbd_quantity *u = &xvbd_quantities[r];

			if (!strcmp(u->name, v->name))
				fail_msg("\"%s\" twice", v->name);
			if (u->abbrev && v->abbrev &&
			    !strcmp(u->abbrev, v->abbrev))
				fail_msg("abbreviation \"%s\" of %s and %s",
					 v->abbrev, u->name, v->name);
			if (u->prom && v->prom && !strcmp(u->prom, v->prom))
				fail_msg("Prometheus family %s of %s and %s",
					 v->prom, u->name, v->name);
		}
		if (v->prom && strncmp(v->prom, "xvbd_", 5))
			fail_msg("%s: family %s", v->name, v->prom);
		/* each old name reads as this quantity, none is a name */
		snprintf(old, sizeof(old), "%s", v->old);
		for (w = strtok_r(old, " ", &save); w;
		     w = strtok_r(NULL, " ", &save)) {
			assert_int_equal(xvbd_q_find(w, &was_old), q);
			assert_true(was_old);
		}
		assert_int_equal(xvbd_q_find(v->name, &was_old), q);
		assert_false(was_old);
	}
	assert_int_equal(xvbd_q_find("bogus", NULL), -1);
	assert_int_equal(xvbd_q_find("", NULL), -1);
	assert_int_equal(xvbd_q_find(NULL, NULL), -1);
}

/* Every --metric is a quantity of the table, each a different one. */
static void test_metrics(void **state)
{
	int m, k;

	(void)state;
	for (m = 0; m < XVBD_AB_NMETRICS; m++) {
		assert_true(xvbd_ab_metrics[m].q < XVBD_Q_N);
		for (k = 0; k < m; k++)
			assert_int_not_equal(xvbd_ab_metrics[k].q,
					     xvbd_ab_metrics[m].q);
		assert_string_equal(xvbd_ab_metric_name(m),
				    xvbd_quantities[xvbd_ab_metrics[m].q].name);
	}
}

static void fake_sample(struct xvbd_stats_sample *s,
			struct xvbd_stats_dom *dom, struct xvbd_stats_vbd *v)
{
	memset(s, 0, sizeof(*s));
	memset(dom, 0, sizeof(*dom));
	s->seq = 1;
	s->interval_ns = NS;
	s->realtime_ns = 1700000000 * (int64_t)NS;
	dom->domid = 7;
	snprintf(dom->name, sizeof(dom->name), "g");
	dom->vcpus = 1;
	dom->mem_bytes = 1u << 30;
	dom->cpu_ns = NS;
	dom->cpu_iv = XVBD_IV_OK;
	dom->cpu_pct = 1;
	*v = (struct xvbd_stats_vbd){
		.domid = 7, .domain = "g", .vdev = "xvda", .devid = 51712,
		.raw = { .rd_req = 1000, .wr_req = 20, .rd_sect = 131072,
			 .wr_sect = 160, .f_req = 3, .ds_req = 1 },
		.iv = XVBD_IV_OK, .rd_req_s = 256, .wr_req_s = 1,
		.rd_bytes_s = 33554432, .wr_bytes_s = 4096,
		.has_blk = true, .blk_major = 7, .blk_iv = XVBD_IV_OK,
		.rd_lat_known = true, .rd_lat_ms = 2.5, .wr_lat_known = true,
		.wr_lat_ms = 1, .queue_depth = 1.25, .be_known = true,
		.be_iv = XVBD_IV_OK, .be_cpu_ns = NS, .be_cpu_pct = 3,
		.be_us_per_req = 10, .be_us_per_req_known = true,
		.rd_kib_known = true, .rd_kib_per_req = 64,
		.wr_kib_known = true, .wr_kib_per_req = 4,
		.ceiling_known = true, .ceiling_segments = 32,
		.ceiling_kib = 128, .rd_ceiling_pct = 50, .wr_ceiling_pct = 3,
		.nrings = 1,
	};
	v->rings[0] = (struct xvbd_stats_ring){ .ring = 0, .pid = 42,
						.cpu_ns = NS, .iv = XVBD_IV_OK,
						.cpu_pct = 2 };
	s->doms = dom;
	s->ndoms = 1;
	s->vbds = v;
	s->nvbds = 1;
}

/* --latency's: each distribution of the VBD's device with requests. */
static void fake_latency(struct xvbd_stats_sample *s,
			 struct xvbd_lat_result *lat)
{
	size_t k, d;

	memset(lat, 0, sizeof(*lat));
	lat->state = XVBD_LAT_OK;
	lat->i2c_timed = true;	/* its names too */
	s->vbds[0].lat_state = XVBD_LAT_OK;
	for (k = 0; k < XVBD_LAT_NKINDS; k++)
		for (d = 0; d < XVBD_LAT_NDIRS; d++) {
			xvbd_lathist_init(&lat->h[k][d]);
			assert_int_equal(xvbd_lathist_add(&lat->h[k][d],
							  250000 * (k + d + 1),
							  100), 0);
		}
	s->lat_asked = s->lat_on = true;
	s->lat = s->lat_total = lat;
}

static void free_latency(struct xvbd_lat_result *lat)
{
	size_t k, d;

	for (k = 0; k < XVBD_LAT_NKINDS; k++)
		for (d = 0; d < XVBD_LAT_NDIRS; d++)
			xvbd_lathist_free(&lat->h[k][d]);
}

static char *render(enum xvbd_stats_fmt fmt, bool prom)
{
	struct xvbd_stats_sample s;
	struct xvbd_stats_dom dom;
	struct xvbd_stats_vbd v;
	struct xvbd_lat_result lat;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	fake_sample(&s, &dom, &v);
	fake_latency(&s, &lat);
	if (prom)
		xvbd_stats_prom_render(f, &s);
	else
		assert_int_equal(xvbd_stats_render(f, fmt, &s, true), 0);
	fclose(f);
	free_latency(&lat);
	return buf;
}

/* Every key of an object (and of the objects in it), known. */
static size_t keys_known(const char *where, yajl_val v)
{
	size_t i, n = 0;

	if (YAJL_IS_ARRAY(v))
		for (i = 0; i < v->u.array.len; i++)
			n += keys_known(where, v->u.array.values[i]);
	if (!YAJL_IS_OBJECT(v))
		return n;
	for (i = 0; i < v->u.object.len; i++) {
		known_key(where, v->u.object.keys[i]);
		n += 1 + keys_known(where, v->u.object.values[i]);
	}
	return n;
}

static void test_stats_json(void **state)
{
	char *json = render(XVBD_STATS_JSON, false), err[128];
	yajl_val root = yajl_tree_parse(json, err, sizeof(err));
	size_t n;

	(void)state;
	assert_non_null(root);
	/* every key, the latency object's too, and the quantities the
	 * sample has all there */
	n = keys_known("stats --json", root);
	all_known("stats --json");
	assert_true(n > 80);
	assert_non_null(strstr(json, "\"read_mb_per_s\":33.554432,"));
	assert_non_null(strstr(json, "\"d2c\":{\"read\":{\"count\":100,"));
	assert_null(strstr(json, "bytes_per_s"));
	yajl_tree_free(root);
	free(json);
}

static void test_stats_csv(void **state)
{
	char *csv = render(XVBD_STATS_CSV, false), *nl, *col, *save = NULL;
	size_t n = 0;

	(void)state;
	nl = strchr(csv, '\n');
	assert_non_null(nl);
	*nl = '\0';
	for (col = strtok_r(csv, ",", &save); col;
	     col = strtok_r(NULL, ",", &save), n++)
		known_key("stats --csv's header", col);
	assert_true(n > 40);
	all_known("stats --csv");
	free(csv);
}

/* Each family the textfile writes: a quantity's, named by the table. */
static void test_stats_prometheus(void **state)
{
	char *prom = render(0, true), *line, *save = NULL, fam[128];
	size_t nfam = 0;
	int q;

	(void)state;
	for (line = strtok_r(prom, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		bool found = false;

		if (sscanf(line, "# TYPE %127s", fam) != 1)
			continue;
		for (q = 0; q < XVBD_Q_N && !found; q++)
			found = xvbd_quantities[q].prom &&
				!strcmp(xvbd_quantities[q].prom, fam);
		if (!found)
			fail_msg("family %s: no quantity's", fam);
		nfam++;
	}
	assert_true(nfam >= 18);
	free(prom);
}

/* A record's pv_path object (ab show): the guest against its device. */
static void test_pv_path(void **state)
{
	struct xvbd_ab_pv_split sp = { 0 };
	struct xvbd_out *o;
	char *json = NULL, err[128];
	size_t len = 0, n;
	FILE *f = open_memstream(&json, &len);
	yajl_val root;

	(void)state;
	assert_non_null(f);
	sp.dir[XVBD_LAT_READ] = (struct xvbd_ab_pv_dir){
		.known = true, .guest_bins = true, .vdev = "xvdb", .runs = 3,
		.guest_ios = 3000, .device_requests = 3000,
		.guest_ms = { 0.5, 2 }, .device_ms = { 0.25, 1 },
	};
	o = xvbd_out_new(f, true);
	assert_non_null(o);
	xvbd_out_obj_begin(o, NULL);
	xvbd_ab_pv_split_render(o, "pv_path", &sp);
	xvbd_out_obj_end(o);
	assert_int_equal(xvbd_out_finish(o), 0);
	xvbd_out_free(o);
	fclose(f);
	root = yajl_tree_parse(json, err, sizeof(err));
	assert_non_null(root);
	n = keys_known("ab show's pv_path", root);
	all_known("ab show's pv_path");
	assert_true(n >= 17);
	assert_non_null(strstr(json, "\"pv_path_ms\":1.000,"));
	yajl_tree_free(root);
	free(json);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_metrics),
		cmocka_unit_test(test_stats_json),
		cmocka_unit_test(test_stats_csv),
		cmocka_unit_test(test_stats_prometheus),
		cmocka_unit_test(test_pv_path),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
