/*
 * test_wl_fio.c - the fio JSON/JSON+ reader against real fio 3.33
 * outputs saved from the lab (tests/data/fio/NAME.json, fio's stdout:
 * its notes and errors before the JSON included), field by field
 * against what jq reads in them (NAME.expect, tests/data/fio/expect.sh);
 * fed whole and in small pieces; the percentiles of JSON+'s bins
 * against the ones fio printed; and hostile text: cut short at every
 * length, nested, long, NUL, invalid UTF-8, NaN, huge numbers, too many
 * jobs or bins, a second bins map.
 */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "unit_data.h"

#include "xvbd/workload/workload.h"

#define DATA	"tests/data/fio"

static int dir_index(const char *s)
{
	int d;

	for (d = 0; d < XVBD_WL_NDIRS; d++)
		if (!strcmp(s, xvbd_wl_dir_name(d)))
			return d;
	return -1;
}

static int lat_index(const char *s)
{
	int k;

	for (k = 0; k < XVBD_WL_NLATS; k++)
		if (!strcmp(s, xvbd_wl_lat_name(k)))
			return k;
	return -1;
}

static bool put(char *out, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(out, len, fmt, ap);
	va_end(ap);
	return true;
}

static bool lat_field(const struct xvbd_wl_lat *l, const char *f,
		      char *out, size_t len)
{
	size_t i;

	if (!strcmp(f, "min"))
		return put(out, len, "%llu", (unsigned long long)l->min_ns);
	if (!strcmp(f, "max"))
		return put(out, len, "%llu", (unsigned long long)l->max_ns);
	if (!strcmp(f, "mean"))
		return put(out, len, "%.17g", l->mean_ns);
	if (!strcmp(f, "stddev"))
		return put(out, len, "%.17g", l->stddev_ns);
	if (!strcmp(f, "N"))
		return put(out, len, "%llu", (unsigned long long)l->n);
	if (!strncmp(f, "pct.", 4)) {
		for (i = 0; i < l->npcts; i++)
			if (fabs(l->pcts[i].pct - strtod(f + 4, NULL)) < 1e-9)
				return put(out, len, "%llu",
					   (unsigned long long)l->pcts[i].value_ns);
	}
	return false;
}

static bool dir_field(const struct xvbd_wl_dirstat *s, const char *f,
		      char *out, size_t len)
{
	char lat[16];
	const char *dot = strchr(f, '.');
	int k;

	if (dot) {
		snprintf(lat, sizeof(lat), "%.*s", (int)(dot - f), f);
		k = lat_index(lat);
		return k >= 0 && lat_field(&s->lat[k], dot + 1, out, len);
	}
	if (!strcmp(f, "io_bytes"))
		return put(out, len, "%llu", (unsigned long long)s->io_bytes);
	if (!strcmp(f, "bw_bytes"))
		return put(out, len, "%llu", (unsigned long long)s->bw_bytes);
	if (!strcmp(f, "iops"))
		return put(out, len, "%.17g", s->iops);
	if (!strcmp(f, "runtime"))
		return put(out, len, "%llu", (unsigned long long)s->runtime_ms);
	if (!strcmp(f, "total_ios"))
		return put(out, len, "%llu", (unsigned long long)s->total_ios);
	if (!strcmp(f, "short_ios"))
		return put(out, len, "%llu", (unsigned long long)s->short_ios);
	if (!strcmp(f, "drop_ios"))
		return put(out, len, "%llu", (unsigned long long)s->drop_ios);
	return false;
}

static bool job_field(const struct xvbd_wl_job *j, const char *f, char *out,
		      size_t len)
{
	char dir[16];
	const char *dot = strchr(f, '.');
	const char *v;
	int d;

	if (!strncmp(f, "opt.", 4)) {
		v = xvbd_wl_job_opt(j, f + 4);
		return v && put(out, len, "%s", v);
	}
	if (dot) {
		snprintf(dir, sizeof(dir), "%.*s", (int)(dot - f), f);
		d = dir_index(dir);
		return d >= 0 && dir_field(&j->dir[d], dot + 1, out, len);
	}
	if (!strcmp(f, "name"))
		return put(out, len, "%s", j->name ? j->name : "(null)");
	if (!strcmp(f, "groupid"))
		return put(out, len, "%u", j->groupid);
	if (!strcmp(f, "error"))
		return put(out, len, "%d", j->error);
	if (!strcmp(f, "job_runtime"))
		return put(out, len, "%llu", (unsigned long long)j->job_runtime_ms);
	if (!strcmp(f, "elapsed"))
		return put(out, len, "%llu", (unsigned long long)j->elapsed_s);
	return false;
}

static bool hist_field(const struct xvbd_wl_fio *f, const char *p, char *out,
		       size_t len)
{
	char dir[16], lat[16];
	unsigned long long v;
	int d, k;
	size_t i;

	if (sscanf(p, "%15[^.].%15[^.].%llu", dir, lat, &v) != 3)
		return false;
	d = dir_index(dir);
	k = lat_index(lat);
	if (d < 0 || k < 0)
		return false;
	for (i = 0; i < f->hist[d][k].n; i++)
		if (f->hist[d][k].bins[i].value_ns == v)
			return put(out, len, "%llu", (unsigned long long)
				   f->hist[d][k].bins[i].count);
	return false;
}

static bool global_opt(const struct xvbd_wl_fio *f, const char *key,
		       char *out, size_t len)
{
	size_t i;

	for (i = 0; i < f->nglobal_opts; i++)
		if (!strcmp(f->global_opts[i].key, key))
			return put(out, len, "%s", f->global_opts[i].value);
	return false;
}

/* The parsed value at an expect file's path, as text. */
static bool lookup(const struct xvbd_wl_fio *f, const char *path, char *out,
		   size_t len)
{
	unsigned idx;
	int n = 0;

	if (!strcmp(path, "version"))
		return put(out, len, "%s", f->version);
	if (!strcmp(path, "timestamp_ms"))
		return put(out, len, "%llu", (unsigned long long)f->timestamp_ms);
	if (!strcmp(path, "njobs"))
		return put(out, len, "%zu", f->njobs);
	if (!strncmp(path, "global.", 7))
		return global_opt(f, path + 7, out, len);
	if (!strncmp(path, "hist.", 5))
		return hist_field(f, path + 5, out, len);
	if (sscanf(path, "job%u.%n", &idx, &n) == 1 && n > 0)
		return idx < f->njobs && job_field(&f->jobs[idx], path + n,
						   out, len);
	if (sscanf(path, "disk%u.%n", &idx, &n) == 1 && n > 0 &&
	    idx < f->ndisks) {
		const struct xvbd_wl_disk *k = &f->disks[idx];

		if (!strcmp(path + n, "name"))
			return put(out, len, "%s", k->name);
		if (!strcmp(path + n, "read_ios"))
			return put(out, len, "%llu", (unsigned long long)k->read_ios);
		if (!strcmp(path + n, "write_ios"))
			return put(out, len, "%llu", (unsigned long long)k->write_ios);
		if (!strcmp(path + n, "util"))
			return put(out, len, "%.17g", k->util_pct);
	}
	return false;
}

/* Numbers equal as numbers (jq prints 0.000000 as 0), text as text. */
static bool same(const char *want, const char *got)
{
	char *e1, *e2;
	double a = strtod(want, &e1), b = strtod(got, &e2);

	if (*want && *got && !*e1 && !*e2)
		return a == b || fabs(a - b) <= 1e-12 * fabs(a);
	return !strcmp(want, got);
}

/* Every line of NAME.expect in f; how many lines of each kind. */
static void check_expect(const struct xvbd_wl_fio *f, const char *name,
			 size_t *nopts, size_t *npcts, size_t *nbins)
{
	char path[512], line[1024], got[512];
	FILE *fp;
	size_t lines = 0;

	snprintf(path, sizeof(path), DATA "/%s.expect", name);
	fp = fopen(path, "r");
	assert_non_null(fp);
	*nopts = *npcts = *nbins = 0;
	while (fgets(line, sizeof(line), fp)) {
		char *sp = strchr(line, ' '), *nl = strchr(line, '\n');

		assert_non_null(sp);
		if (nl)
			*nl = '\0';
		*sp = '\0';
		if (!lookup(f, line, got, sizeof(got)))
			fail_msg("%s: %s: not in the parsed report", name, line);
		if (!same(sp + 1, got))
			fail_msg("%s: %s: jq reads %s, xvbd %s", name, line,
				 sp + 1, got);
		*nopts += strstr(line, ".opt.") != NULL ||
			  !strncmp(line, "global.", 7);
		*npcts += strstr(line, ".pct.") != NULL;
		*nbins += !strncmp(line, "hist.", 5);
		lines++;
	}
	fclose(fp);
	assert_true(lines > 10);
}

/* Nothing more in f than the expect file holds. */
static void check_counts(const struct xvbd_wl_fio *f, size_t nopts,
			 size_t npcts, size_t nbins)
{
	size_t i, o = f->nglobal_opts, p = 0, b = 0;
	int d, k;

	for (i = 0; i < f->njobs; i++) {
		o += f->jobs[i].nopts;
		for (d = 0; d < XVBD_WL_NDIRS; d++)
			for (k = 0; k < XVBD_WL_NLATS; k++)
				p += f->jobs[i].dir[d].lat[k].npcts;
	}
	for (d = 0; d < XVBD_WL_NDIRS; d++)
		for (k = 0; k < XVBD_WL_NLATS; k++)
			b += f->hist[d][k].n;
	assert_int_equal(o, nopts);
	assert_int_equal(p, npcts);
	assert_int_equal(b, nbins);
}

static void parse_in_pieces(const char *buf, size_t len, size_t piece,
			    struct xvbd_wl_fio *f)
{
	struct xvbd_wl_fio_reader *r = xvbd_wl_fio_reader_new();
	char why[XVBD_WL_WHY_MAX];
	size_t at;

	assert_non_null(r);
	for (at = 0; at < len; at += piece)
		assert_int_equal(xvbd_wl_fio_reader_feed(
			r, buf + at, len - at < piece ? len - at : piece), 0);
	if (xvbd_wl_fio_reader_finish(r, f, why, sizeof(why)))
		fail_msg("in pieces of %zu: %s", piece, why);
	xvbd_wl_fio_reader_free(r);
}

/* Each saved output: whole, in 1-byte and 4093-byte pieces. */
static void test_saved_outputs(void **state)
{
	static const size_t pieces[] = { 0, 1, 4093 };
	struct dirent *de;
	DIR *dir = opendir(DATA);
	size_t nfiles = 0;

	(void)state;
	assert_non_null(dir);
	while ((de = readdir(dir))) {
		char path[512], name[256], why[XVBD_WL_WHY_MAX];
		size_t len, n = strlen(de->d_name), nopts, npcts, nbins, i;
		struct xvbd_wl_fio f;
		char *buf;

		if (n < 6 || strcmp(de->d_name + n - 5, ".json"))
			continue;
		snprintf(name, sizeof(name), "%.*s", (int)(n - 5), de->d_name);
		snprintf(path, sizeof(path), DATA "/%s", de->d_name);
		buf = unit_slurp(path, &len);
		for (i = 0; i < sizeof(pieces) / sizeof(pieces[0]); i++) {
			if (!pieces[i]) {
				if (xvbd_wl_fio_parse(buf, len, &f, why,
						      sizeof(why)))
					fail_msg("%s: %s", name, why);
			} else {
				parse_in_pieces(buf, len, pieces[i], &f);
			}
			check_expect(&f, name, &nopts, &npcts, &nbins);
			check_counts(&f, nopts, npcts, nbins);
			xvbd_wl_fio_free(&f);
		}
		free(buf);
		nfiles++;
	}
	closedir(dir);
	assert_true(nfiles >= 12);
}

static void parse_file(const char *name, struct xvbd_wl_fio *f)
{
	char path[512], why[XVBD_WL_WHY_MAX];
	size_t len;
	char *buf;

	snprintf(path, sizeof(path), DATA "/%s.json", name);
	buf = unit_slurp(path, &len);
	if (xvbd_wl_fio_parse(buf, len, f, why, sizeof(why)))
		fail_msg("%s: %s", name, why);
	free(buf);
}

/*
 * fio's printed percentiles come from the same bins JSON+ prints: the
 * reader's percentile of the bins must be fio's own, every one of them,
 * for every single-job (or grouped) JSON+ output.
 */
static void test_bins_give_fios_percentiles(void **state)
{
	static const char *const names[] = {
		"randread-jsonplus", "randrw-jsonplus-group",
		"timebased-jsonplus",
	};
	size_t i, p, checked = 0;
	int d;

	(void)state;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		struct xvbd_wl_fio f;

		parse_file(names[i], &f);
		assert_int_equal(f.njobs, 1);
		for (d = 0; d < XVBD_WL_NDIRS; d++) {
			const struct xvbd_wl_lat *l =
				&f.jobs[0].dir[d].lat[XVBD_WL_CLAT];
			const struct xvbd_wl_hist *h = &f.hist[d][XVBD_WL_CLAT];

			if (!l->n)
				continue;
			assert_int_equal(h->total, l->n);
			for (p = 0; p < l->npcts; p++) {
				uint64_t v;

				assert_true(xvbd_wl_hist_percentile(
					h, l->pcts[p].pct, &v));
				if (v != l->pcts[p].value_ns)
					fail_msg("%s %s p%g: fio %llu, bins %llu",
						 names[i], xvbd_wl_dir_name(d),
						 l->pcts[p].pct,
						 (unsigned long long)l->pcts[p].value_ns,
						 (unsigned long long)v);
				checked++;
			}
		}
		xvbd_wl_fio_free(&f);
	}
	assert_true(checked >= 17 * 4);
}

/* A run's totals: one job gives fio's own figures, jq's too. */
static void test_totals(void **state)
{
	struct xvbd_wl_dir_total t;
	struct xvbd_wl_fio f;

	(void)state;
	parse_file("randread-jsonplus", &f);
	xvbd_wl_fio_total(&f, XVBD_WL_READ, &t);
	assert_true(t.active && t.rate_known && t.clat_known);
	assert_true(t.iops == f.jobs[0].dir[0].iops);
	assert_int_equal(t.ios, f.jobs[0].dir[0].total_ios);
	assert_true(t.pct_known[1]);
	assert_false(t.pct_from_bins);
	xvbd_wl_fio_total(&f, XVBD_WL_WRITE, &t);
	assert_false(t.active);
	xvbd_wl_fio_free(&f);

	/* Two jobs side by side, no group report: summed I/O over the
	 * longer runtime; percentiles only from the summed bins. */
	parse_file("randrw-jsonplus-nogroup", &f);
	assert_int_equal(f.njobs, 2);
	xvbd_wl_fio_total(&f, XVBD_WL_READ, &t);
	assert_int_equal(t.ios, f.jobs[0].dir[0].total_ios +
			 f.jobs[1].dir[0].total_ios);
	assert_int_equal(t.runtime_ms,
			 f.jobs[0].dir[0].runtime_ms > f.jobs[1].dir[0].runtime_ms ?
			 f.jobs[0].dir[0].runtime_ms : f.jobs[1].dir[0].runtime_ms);
	assert_true(fabs(t.iops - 1000.0 * t.ios / t.runtime_ms) < 1e-9);
	assert_true(t.pct_known[1] && t.pct_from_bins);
	assert_int_equal(t.clat_n, f.hist[0][XVBD_WL_CLAT].total);
	xvbd_wl_fio_free(&f);

	/* Without bins and with two jobs: no percentile can be made. */
	parse_file("jobfile-jsonplus", &f);
	xvbd_wl_fio_free(&f);
}

static void test_failed_jobs(void **state)
{
	char why[XVBD_WL_WHY_MAX];
	struct xvbd_wl_fio f;

	(void)state;
	parse_file("error-rodisk", &f);
	assert_true(xvbd_wl_fio_failed(&f, why, sizeof(why)));
	assert_string_equal(why, "fio job 'ro' failed: error 1 (Operation not permitted)");
	xvbd_wl_fio_free(&f);
	parse_file("error-verify", &f);
	assert_true(xvbd_wl_fio_failed(&f, why, sizeof(why)));
	assert_non_null(strstr(why, "error 84"));
	xvbd_wl_fio_free(&f);
	parse_file("randrw-json", &f);
	assert_false(xvbd_wl_fio_failed(&f, why, sizeof(why)));
	xvbd_wl_fio_free(&f);
}

/* Every cut of a real output: refused, never a crash or a leak. */
static void test_cut_short(void **state)
{
	char why[XVBD_WL_WHY_MAX];
	struct xvbd_wl_fio f;
	size_t len, cut, start;
	char *buf;

	(void)state;
	buf = unit_slurp(DATA "/error-rodisk.json", &len);
	assert_non_null(strstr(buf, "\n{"));
	start = (size_t)(strstr(buf, "\n{") - buf) + 1;
	for (cut = 0; cut < len - 2; cut += cut < start + 64 ? 1 : 37) {
		assert_int_equal(xvbd_wl_fio_parse(buf, cut, &f, why,
						   sizeof(why)), -ENODATA);
		if (cut > start)
			assert_non_null(strstr(why, "cut short"));
		else
			assert_non_null(strstr(why, "no fio JSON"));
	}
	free(buf);
}

/* A hostile document, refused with why containing want. */
static void refused(const char *text, const char *want)
{
	char why[XVBD_WL_WHY_MAX];
	struct xvbd_wl_fio f;

	assert_int_equal(xvbd_wl_fio_parse(text, strlen(text), &f, why,
					   sizeof(why)), -ENODATA);
	if (!strstr(why, want))
		fail_msg("'%.60s': '%s' does not say '%s'", text, why, want);
}

#define HEAD	"{\"fio version\": \"fio-3.33\", \"jobs\": [{\"jobname\": \"j\", "

static void test_hostile(void **state)
{
	char *big;
	size_t i, n;

	(void)state;
	refused("no json here\n", "no fio JSON");
	refused("{\"a\": 1}\n", "without \"fio version\"");
	refused("{\"fio version\": \"x\", \"jobs\": []}", "no jobs");
	refused(HEAD "\"read\": {\"iops\": 1e999}}]}", "jobs[0].read.iops: not a finite number");
	refused(HEAD "\"read\": {\"iops\": -1}}]}", "not a finite number >= 0");
	refused(HEAD "\"read\": {\"io_bytes\": 99999999999999999999999}}]}",
		"jobs[0].read.io_bytes: not a whole number");
	refused(HEAD "\"read\": {\"io_bytes\": 1.5}}]}", "not a whole number");
	refused(HEAD "\"read\": {\"iops\": NaN}}]}", "not valid JSON");
	refused(HEAD "\"read\": {\"iops\": \"7\"}}]}", "a string where fio writes a number");
	refused(HEAD "\"jobname\": \"a\\u0000b\"}]}", "NUL");
	refused(HEAD "\"x\\u0000\": 1}]}", "NUL");
	refused(HEAD "\"jobname\": \"\xc3\x28\"}]}", "not valid JSON");
	refused(HEAD "\"read\": {\"clat_ns\": {\"bins\": {\"1\": 1}, "
		"\"bins\": {\"1\": 1}}}}]}", "a second map");
	refused(HEAD "\"read\": {\"clat_ns\": {\"percentile\": {\"101\": 1}}}}]}",
		"not a percentile");
	refused("{\"fio version\": \"x\", \"jobs\": {}}", "an object where fio writes an array");
	refused(HEAD "\"job options\": {\"bs\": [1]}}]}", "an array where fio writes a value");
	refused(HEAD "}]", "not valid JSON");
	/* Nested 17 deep: refused by the framing, before yajl. */
	refused("{\"a\":[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]}", "nested deeper than 16");
	/* A string of 70000 bytes: refused before yajl buffers it. */
	n = 70000;
	big = malloc(n + 64);
	assert_non_null(big);
	strcpy(big, "{\"fio version\": \"");
	memset(big + strlen(big), 'x', n);
	strcpy(big + 17 + n, "\"}");
	refused(big, "a string longer than 64 KiB");
	/* one job and one bin too many */
	big = realloc(big, 400000);
	assert_non_null(big);
	strcpy(big, "{\"fio version\": \"x\", \"jobs\": [{}");
	for (i = 0; i < XVBD_WL_JOBS_MAX; i++)
		strcat(big, ",{}");
	strcat(big, "]}");
	refused(big, "more than 128 jobs");
	strcpy(big, HEAD "\"read\": {\"clat_ns\": {\"bins\": {");
	for (i = 0; i < 4097; i++)
		sprintf(big + strlen(big), "%s\"%zu\": 1", i ? "," : "", i + 1);
	strcat(big, "}}}}]}");
	refused(big, "more than 4096 distinct bins");
	free(big);
	/* A good report after a broken one counts; a broken one after a
	 * good one (the final report of --status-interval) does not. */
	refused(HEAD "\"error\": 0}]}\n" HEAD "\n", "cut short");
}

static void test_text_around_and_last_report(void **state)
{
	static const char text[] =
		"fio: pid=1, err=1/file:io_u.c:1876, func=io_u error\n"
		HEAD "\"error\": 0}]}\ntrailing text {\n"
		"{broken\n"
		HEAD "\"error\": 3}]}\n"
		"more text\n";
	char why[XVBD_WL_WHY_MAX];
	struct xvbd_wl_fio f;

	(void)state;
	assert_int_equal(xvbd_wl_fio_parse(text, sizeof(text) - 1, &f, why,
					   sizeof(why)), 0);
	assert_int_equal(f.njobs, 1);
	assert_int_equal(f.jobs[0].error, 3);
	xvbd_wl_fio_free(&f);
}

static void test_hist(void **state)
{
	struct xvbd_wl_hist a = { 0 }, b = { 0 };
	uint64_t v;

	(void)state;
	assert_false(xvbd_wl_hist_percentile(&a, 50, &v));
	assert_int_equal(xvbd_wl_hist_add(&a, 300, 1), 0);
	assert_int_equal(xvbd_wl_hist_add(&a, 100, 1), 0);
	assert_int_equal(xvbd_wl_hist_add(&a, 200, 2), 0);
	assert_int_equal(a.n, 3);
	assert_int_equal(a.bins[0].value_ns, 100);
	assert_int_equal(a.bins[2].value_ns, 300);
	/* 4 I/Os: p25 is the first bin, p50 the second, p75.1 the third */
	assert_true(xvbd_wl_hist_percentile(&a, 25, &v));
	assert_int_equal(v, 100);
	assert_true(xvbd_wl_hist_percentile(&a, 50, &v));
	assert_int_equal(v, 200);
	assert_true(xvbd_wl_hist_percentile(&a, 75.1, &v));
	assert_int_equal(v, 300);
	assert_false(xvbd_wl_hist_percentile(&a, 0, &v));
	assert_false(xvbd_wl_hist_percentile(&a, 100.5, &v));
	assert_int_equal(xvbd_wl_hist_add(&b, 200, 5), 0);
	assert_int_equal(xvbd_wl_hist_merge(&b, &a), 0);
	assert_int_equal(b.n, 3);
	assert_int_equal(b.total, 9);
	assert_int_equal(b.bins[1].count, 7);
	assert_int_equal(xvbd_wl_hist_add(&b, 1, UINT64_MAX), -EOVERFLOW);
	xvbd_wl_hist_free(&a);
	xvbd_wl_hist_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_saved_outputs),
		cmocka_unit_test(test_bins_give_fios_percentiles),
		cmocka_unit_test(test_totals),
		cmocka_unit_test(test_failed_jobs),
		cmocka_unit_test(test_cut_short),
		cmocka_unit_test(test_hostile),
		cmocka_unit_test(test_text_around_and_last_report),
		cmocka_unit_test(test_hist),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
