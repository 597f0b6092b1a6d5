/*
 * workload.h - the workload layer: what a benchmark run in the guest
 * printed, read into numbers.  Uses base only; ab builds records and
 * comparisons on it.
 *
 * Two formats, both read from a stream (the --run command's stdout,
 * chunk by chunk, never held whole):
 *  - fio's JSON and JSON+ (--output-format=json, json+, and normal,json):
 *    per job (or group, with group_reporting) and direction, fio's own
 *    figures; JSON+'s latency bins summed over the jobs, so that runs
 *    merge exactly (src/workload/fio_json.c, fio_frame.c, fio_model.c);
 *  - benchfmt, the Go benchmark format benchstat reads
 *    ("BenchmarkName-N  iterations  value unit ...", "key: value"
 *    configuration lines; src/workload/benchfmt.c).
 * The output is hostile: a guest writes it.  Every parser is bounded in
 * memory whatever the input's size (the limits below, and no token
 * longer than XVBD_WL_TOKEN_MAX is buffered), takes string lengths from
 * the parser (a NUL inside a string is refused), and says in one line
 * why it found nothing usable.
 */
#ifndef XVBD_WORKLOAD_H
#define XVBD_WORKLOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "xvbd/base/util.h"

/* Why results are absent, or a parser's complaint: one line. */
#define XVBD_WL_WHY_MAX		256

/* ---- limits: a document beyond one of them is refused ---- */
/* A record keeps them all: the limits bound its size (a few MiB). */
#define XVBD_WL_JOBS_MAX	128	/* jobs (or groups) in one document */
#define XVBD_WL_OPTS_MAX	64	/* options of a job, global options */
#define XVBD_WL_PCTS_MAX	32	/* percentiles of one latency (fio
					   prints at most 20) */
#define XVBD_WL_BINS_MAX	4096	/* distinct bins of one histogram
					   (fio 3.x has 1856) */
#define XVBD_WL_DISKS_MAX	64	/* disk_util entries */
#define XVBD_WL_DEPTH_MAX	16	/* JSON nesting (fio's is 6) */
#define XVBD_WL_TOKEN_MAX	65536	/* one JSON string or number, bytes */
#define XVBD_WL_TEXT_MAX	4096	/* a kept string (option, name) */
#define XVBD_WL_BENCH_MAX	1024	/* benchmark result lines */
#define XVBD_WL_UNITS_MAX	16	/* value/unit pairs on one line */
#define XVBD_WL_CONFIG_MAX	256	/* benchfmt configuration keys */
#define XVBD_WL_LINE_MAX	4096	/* a benchfmt line, bytes */

/* ---- fio ---- */

enum xvbd_wl_dir {
	XVBD_WL_READ,
	XVBD_WL_WRITE,
	XVBD_WL_TRIM,
	XVBD_WL_NDIRS,
};
/* "read", "write", "trim" (fio's keys). */
const char *xvbd_wl_dir_name(enum xvbd_wl_dir d);

/* fio's three latencies: submission, completion, total (slat + clat). */
enum xvbd_wl_lat_kind {
	XVBD_WL_SLAT,
	XVBD_WL_CLAT,
	XVBD_WL_LAT,
	XVBD_WL_NLATS,
};
/* "slat_ns", "clat_ns", "lat_ns" */
const char *xvbd_wl_lat_name(enum xvbd_wl_lat_kind k);

struct xvbd_wl_pct {
	double pct;			/* 0 < pct <= 100, as fio printed it */
	uint64_t value_ns;
};

/* One latency of one direction of one job, as fio printed it. */
struct xvbd_wl_lat {
	uint64_t n;			/* fio's N: 0 means no samples */
	uint64_t min_ns, max_ns;
	double mean_ns, stddev_ns;
	size_t npcts;
	struct xvbd_wl_pct *pcts;	/* in fio's order */
};

struct xvbd_wl_dirstat {
	uint64_t io_bytes, bw_bytes;	/* bytes, bytes/s */
	double iops;
	uint64_t runtime_ms;		/* this direction's, fio's clock */
	uint64_t total_ios, short_ios, drop_ios;
	struct xvbd_wl_lat lat[XVBD_WL_NLATS];
};

struct xvbd_wl_opt {
	char *key;
	char *value;
};
/* n options and their strings. */
void xvbd_wl_opts_free(struct xvbd_wl_opt *o, size_t n);

struct xvbd_wl_job {
	char *name;
	uint32_t groupid;
	int32_t error;			/* fio's errno for the job; 0 ok */
	uint64_t job_runtime_ms;	/* the job's run time, fio's clock */
	uint64_t elapsed_s;
	struct xvbd_wl_opt *opts;	/* "job options", in fio's order */
	size_t nopts;
	struct xvbd_wl_dirstat dir[XVBD_WL_NDIRS];
};

/* One bin of a JSON+ histogram: fio's bin value and its I/O count. */
struct xvbd_wl_bin {
	uint64_t value_ns;
	uint64_t count;
};

/*
 * JSON+'s bins of one direction and latency, summed over the jobs (and,
 * in ab, over runs): sorted by value, each value once.  fio's bins are
 * fixed ranges (plat_idx_to_val), so equal values are the same bin.
 */
struct xvbd_wl_hist {
	struct xvbd_wl_bin *bins;
	size_t n;
	uint64_t total;			/* sum of counts */
};

/* fio's own view of a guest disk (disk_util): its counters over the run. */
struct xvbd_wl_disk {
	char *name;			/* "xvda" */
	uint64_t read_ios, write_ios, read_merges, write_merges;
	uint64_t read_ticks_ms, write_ticks_ms, in_queue_ms;
	double util_pct;
};

struct xvbd_wl_fio {
	char *version;			/* "fio-3.33" */
	uint64_t timestamp_ms;		/* the guest's clock at the end */
	struct xvbd_wl_job *jobs;
	size_t njobs;
	struct xvbd_wl_opt *global_opts;
	size_t nglobal_opts;
	struct xvbd_wl_hist hist[XVBD_WL_NDIRS][XVBD_WL_NLATS];
	struct xvbd_wl_disk *disks;
	size_t ndisks;
};

void xvbd_wl_fio_free(struct xvbd_wl_fio *f);

/*
 * The streaming reader.  fio's JSON is found in text: a line that starts
 * with "{" begins a document (fio's notes and "fio: pid=..." errors come
 * before it on stdout; --output-format=normal,json puts the text report
 * first), and the document ends where its braces close.  Each complete
 * document replaces the one before (--status-interval prints one per
 * interval: the last is the final report); a document that fails after
 * one that did not makes the output unusable (its last report broke).
 */
struct xvbd_wl_fio_reader;

struct xvbd_wl_fio_reader *xvbd_wl_fio_reader_new(void);
/* 0, or -ENOMEM (the reader is then spent). */
int xvbd_wl_fio_reader_feed(struct xvbd_wl_fio_reader *r, const char *buf,
			    size_t len);
/*
 * End of the stream: 0 and *out (owned by the caller) with fio's last
 * report; -ENODATA with why ("no fio JSON in the output", "fio's JSON
 * ends inside jobs[2]", "jobs[1].read.iops: not a number >= 0") or
 * -ENOMEM.  Does not judge fio's error fields (xvbd_wl_fio_failed).
 */
int xvbd_wl_fio_reader_finish(struct xvbd_wl_fio_reader *r,
			      struct xvbd_wl_fio *out, char *why,
			      size_t whylen);
/* Whether the reader has seen a document start (auto detection). */
bool xvbd_wl_fio_reader_seen(const struct xvbd_wl_fio_reader *r);
void xvbd_wl_fio_reader_free(struct xvbd_wl_fio_reader *r);

/* The whole text at once (tests, fuzzing): new, feed, finish, free. */
int xvbd_wl_fio_parse(const char *buf, size_t len, struct xvbd_wl_fio *out,
		      char *why, size_t whylen);

/*
 * A job that failed (error != 0): true and why ("job 'ro' failed: error
 * 1 (Operation not permitted)").
 */
bool xvbd_wl_fio_failed(const struct xvbd_wl_fio *f, char *why,
			size_t whylen);

/* A job's option (NULL when the job does not set it). */
const char *xvbd_wl_job_opt(const struct xvbd_wl_job *j, const char *key);

/*
 * The value at percentile pct (0 < pct <= 100) of a histogram, as fio
 * computes its own: the first bin at which the running count reaches
 * pct / 100 of the total.  false for an empty histogram.
 */
bool xvbd_wl_hist_percentile(const struct xvbd_wl_hist *h, double pct,
			     uint64_t *value_ns);
/*
 * Add count to the bin value_ns (a new bin keeps the order).  -E2BIG
 * beyond XVBD_WL_BINS_MAX bins, -EOVERFLOW when a count would wrap,
 * -ENOMEM.
 */
int xvbd_wl_hist_add(struct xvbd_wl_hist *h, uint64_t value_ns,
		     uint64_t count);
/* Every bin of src into dst (the merge of runs): as xvbd_wl_hist_add. */
int xvbd_wl_hist_merge(struct xvbd_wl_hist *dst,
		       const struct xvbd_wl_hist *src);
void xvbd_wl_hist_free(struct xvbd_wl_hist *h);

/*
 * A run's figures of one direction over every job (jobs of one group ran
 * side by side; groups one after the other, as fio runs them):
 * ios and bytes summed, runtime the longest job of each group summed
 * over the groups, iops and bw from them (with one job: fio's own
 * iops and bw_bytes); clat's mean weighted by N, its max the largest,
 * its percentiles fio's own with one job, else from the summed JSON+
 * bins, else unknown (they cannot be combined).
 */
struct xvbd_wl_dir_total {
	bool active;			/* some I/O in this direction */
	uint64_t ios, bytes, runtime_ms;
	bool rate_known;		/* iops and bw_bytes (a runtime) */
	double iops, bw_bytes;
	uint64_t short_ios, drop_ios;
	bool clat_known;		/* N > 0 */
	double clat_mean_ns;
	uint64_t clat_max_ns, clat_n;
	/* p50, p99, p99.9 of clat; known[i] */
	bool pct_known[3];
	uint64_t pct_ns[3];
	bool pct_from_bins;		/* computed from JSON+ bins */
};
extern const double xvbd_wl_total_pcts[3];	/* 50, 99, 99.9 */

void xvbd_wl_fio_total(const struct xvbd_wl_fio *f, enum xvbd_wl_dir d,
		       struct xvbd_wl_dir_total *t);

/* ---- benchfmt ---- */

enum xvbd_wl_better {
	XVBD_WL_LOWER_BETTER,
	XVBD_WL_HIGHER_BETTER,
};

struct xvbd_wl_bench_value {
	double value;
	char *unit;			/* "ns/op", "MB/s", "sec/op" */
};

/* One result line: "BenchmarkCopy-4  1  2.5e9 ns/op  400 MB/s". */
struct xvbd_wl_bench_line {
	char *name;			/* "BenchmarkCopy-4" */
	uint64_t iterations;
	struct xvbd_wl_bench_value *values;
	size_t nvalues;
};

struct xvbd_wl_bench_unit {		/* "Unit x better=higher" lines */
	char *unit;
	enum xvbd_wl_better better;
};

struct xvbd_wl_bench {
	struct xvbd_wl_opt *config;	/* "key: value", the last of a key */
	size_t nconfig;
	struct xvbd_wl_bench_line *lines;
	size_t nlines;
	struct xvbd_wl_bench_unit *units;
	size_t nunits;
	/* Lines that began "Benchmark" and were refused, and the first why. */
	size_t nbad;
	char first_bad[XVBD_WL_WHY_MAX];
};

void xvbd_wl_bench_free(struct xvbd_wl_bench *b);

struct xvbd_wl_bench_reader;

struct xvbd_wl_bench_reader *xvbd_wl_bench_reader_new(void);
int xvbd_wl_bench_reader_feed(struct xvbd_wl_bench_reader *r,
			      const char *buf, size_t len);
/*
 * 0 and *out; -ENODATA with why when no result line was read ("no
 * benchmark lines", or the first refused line's why), -ENOMEM.
 */
int xvbd_wl_bench_reader_finish(struct xvbd_wl_bench_reader *r,
				struct xvbd_wl_bench *out, char *why,
				size_t whylen);
/* Lines starting "Benchmark" seen, good or bad (auto detection). */
bool xvbd_wl_bench_reader_seen(const struct xvbd_wl_bench_reader *r);
void xvbd_wl_bench_reader_free(struct xvbd_wl_bench_reader *r);
int xvbd_wl_bench_parse(const char *buf, size_t len,
			struct xvbd_wl_bench *out, char *why, size_t whylen);

/*
 * Which way a unit is better: a "Unit" line's better=, else higher for
 * rates (a unit ending "/s", or "ops/sec"-like), lower for everything
 * else (time per operation, latency, bytes and allocations per op).
 */
enum xvbd_wl_better xvbd_wl_bench_better(const struct xvbd_wl_bench *b,
					 const char *unit);

/* ---- a command's output, captured (src/workload/capture.c) ---- */

/* --results: which reader takes the command's stdout. */
enum xvbd_wl_results_mode {
	XVBD_WL_RESULTS_AUTO,		/* fio if it holds fio's JSON, else
					   benchfmt if it has result lines */
	XVBD_WL_RESULTS_FIO,
	XVBD_WL_RESULTS_BENCHFMT,
	XVBD_WL_RESULTS_NONE,		/* not read */
};
/* "auto", "fio", "benchfmt", "none": 0 or -EINVAL. */
int xvbd_wl_results_mode_parse(const char *s, enum xvbd_wl_results_mode *m);
const char *xvbd_wl_results_mode_name(enum xvbd_wl_results_mode m);

/* What is read of a command's stdout; the rest is counted, not read. */
#define XVBD_WL_OUTPUT_MAX	(UINT64_C(64) << 20)

enum xvbd_wl_format {
	XVBD_WL_ABSENT,			/* nothing usable: why says so */
	XVBD_WL_FIO,
	XVBD_WL_BENCHFMT,
};
/* "absent", "fio", "benchfmt" */
const char *xvbd_wl_format_name(enum xvbd_wl_format f);

struct xvbd_wl_results {
	enum xvbd_wl_results_mode mode;	/* what was asked */
	enum xvbd_wl_format format;
	/* XVBD_WL_ABSENT: why, one line.  quiet: nothing worth a warning
	 * (not asked, or auto and the command printed nothing). */
	char why[XVBD_WL_WHY_MAX];
	bool quiet;
	uint64_t output_bytes;		/* its stdout, all of it */
	struct xvbd_wl_fio fio;		/* XVBD_WL_FIO */
	struct xvbd_wl_bench bench;	/* XVBD_WL_BENCHFMT */
};
void xvbd_wl_results_free(struct xvbd_wl_results *r);

struct xvbd_wl_capture;

/* NULL on ENOMEM. */
struct xvbd_wl_capture *xvbd_wl_capture_new(enum xvbd_wl_results_mode mode,
					    uint64_t max_bytes);
/*
 * The next piece of the command's stdout: read up to max_bytes, counted
 * beyond.  0 or -ENOMEM (then the results say so).
 */
int xvbd_wl_capture_feed(struct xvbd_wl_capture *c, const char *buf,
			 size_t len);
/*
 * The command has ended with exit_status (as xvbd_spawn gives it: 128 +
 * signal for a signal): the results into *out (owned by the caller).
 * Results are absent, with why, when the command failed, its output
 * passed the bound, the reader found nothing usable or a fio job
 * reported an error.
 */
void xvbd_wl_capture_finish(struct xvbd_wl_capture *c, int exit_status,
			    struct xvbd_wl_results *out);
void xvbd_wl_capture_free(struct xvbd_wl_capture *c);

#endif /* XVBD_WORKLOAD_H */
