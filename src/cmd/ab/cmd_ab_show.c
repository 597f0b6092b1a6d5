/*
 * cmd_ab_show.c - xvbd ab show [--interference-cpu P] [--dir DIR] ID
 *		   xvbd ab show --latency [--dir DIR] LABEL|ID
 *
 * One record: what was run and how, its summary (recomputed from the raw
 * counters, with the intervals left out and why), what else used the
 * host during it (other domains' CPU, the backing device's I/O that was
 * not the VBD's) and whether that flags it, its fingerprint and the
 * recorder's notes, and the guest's own results.  ID is a record id or
 * file; a label with more than one run shows its runs and, from their
 * fio JSON+ bins, their merged completion latency; without bins it is
 * refused (the runs are listed with `ab list LABEL`).  With --latency,
 * a label's runs' latency distributions merged: each VBD's percentiles
 * over all of their requests.  Each of the three puts fio's completion
 * latency beside the device's where runs have both (pv_path,
 * src/ab/ab_pvsplit.c).
 */
#include <stdlib.h>
#include <string.h>

#include "xvbd/ab/ab.h"
#include "xvbd/ab/ab_lat.h"
#include "xvbd/cmd/cmd.h"
#include "xvbd/cmd/ab/cmd_ab.h"
#include "xvbd/base/util.h"
#include "xvbd/base/vocab.h"


/* The unit of the merged latencies (a note, not a field). */
#define MS	"ms"

static const struct xvbd_out_label show_labels[] = {
	{ "duration_s", "seconds" },
	{ "interval_s", "interval (s)" },
	{ "warmup_s", "warm-up (s)" },
	{ "left_out", "left out" },
	{ "workload_status", "exit status" },
	{ "intervals_reset", "left out (reset)" },
	{ "intervals_flagged", "left out (flagged)" },
	{ "used_s", "seconds counted" },
	{ "busy_s", "busy span (s)" },
	{ "window", "over the window" },
	{ "others_window", "others over the window" },
	{ "others_busy", "others over the busy span" },
	{ "cpu_threshold_pct", "CPU threshold (% of host)" },
	{ "cpu_flagged", "others' CPU flagged" },
	{ "other_domains", "other domains" },
	{ "host_cpus", "host CPUs" },
	{ "device_flagged", "device I/O flagged" },
	{ "device_ios", "device I/Os" },
	{ "vbd_requests", "VBD requests" },
	{ "foreign_ios", "I/Os beyond the VBD's" },
	{ "device_sectors", "device sectors" },
	{ "vbd_sectors", "VBD sectors" },
	{ "foreign_sectors", "sectors not the VBD's" },
	{ "foreign_of", "share of" },
	{ "foreign_pct", "not the VBD's (%)" },
	{ "interference_flags", "interference flags" },
	/* the latency rows (ab_lat_render.c) */
	{ "vdev", "VDEV" },
	{ "kind", "FROM" },
	{ "direction", "DIR" },
	{ "runs", "RUNS" },
	{ "incomplete", "INCOMPLETE" },
	{ "count", "REQUESTS" },
	{ "p50_ms", "P50(ms)" },
	{ "p99_ms", "P99(ms)" },
	{ "p99_9_ms", "P99.9(ms)" },
	{ "max_ms", "MAX(ms)" },
	{ "mean_ms", "MEAN(ms)" },
	{ "latency_error", "error" },
	{ "selected_runs", "runs" },
	{ "runs_with_latency", "runs with latency" },
	{ "merged_clat", "merged guest clat (JSON+ bins)" },
	{ "max_bin_ms", "largest bin (ms)" },
	{ "accounting", "where the I/O went" },
	{ "run_s", "the command's run (s, dom0's clock)" },
	{ "guest_runtime_s", "fio's runtime (s, the guest's clock)" },
	/* the guest against its device (ab_pvsplit.c) */
	{ "pv_path", "guest against device (fio's clat, the device's d2c)" },
	{ "guest_from", "guest from" },
	{ "device_from", "device from" },
	{ "device_requests", "device requests" },
	{ "guest_ms", "guest (ms)" },
	{ "device_ms", "device (ms)" },
	{ "pv_path_ms", "in the PV path (ms)" },
	{ "pv_path_pct", "in the PV path (%)" },
	{ NULL, NULL },
};

static void render_summary(struct xvbd_out *o, const struct xvbd_ab_record *r)
{
	struct xvbd_ab_summary s;
	struct xvbd_ab_interval iv;
	size_t i;
	int m;

	if (xvbd_ab_summarize(r, &s)) {
		xvbd_out_null(o, "summary");
		return;
	}
	xvbd_out_uint(o, XVBD_QN(INTERVALS), s.nintervals);
	xvbd_out_uint(o, XVBD_QN(INTERVALS_RESET), s.nreset);
	xvbd_out_uint(o, XVBD_QN(INTERVALS_FLAGGED), s.nflagged);
	xvbd_out_fixed_opt(o, XVBD_QN(USED_S), true, (double)s.used_ns / 1e9,
			   3);
	xvbd_out_fixed_opt(o, XVBD_QN(BUSY_S), true, (double)s.busy_ns / 1e9,
			   3);
	/* Rates say which time they are over; the window's follow. */
	xvbd_out_obj_begin(o, "summary");
	for (m = 0; m < XVBD_AB_NMETRICS; m++) {
		const char *bname, *bunit;
		char note[320];
		double mean;

		/* The guest's own figures where the results hold them. */
		if (xvbd_ab_metric_is_guest(m) && !s.known[m])
			continue;
		snprintf(note, sizeof(note), "%s%s", xvbd_ab_metric_unit(m),
			 xvbd_ab_metric_is_rate(m) ? " over the busy span" :
			 xvbd_ab_metric_is_guest(m) ? " (the guest's own)" : "");
		if (xvbd_ab_bench_slot(r, m, &bname, &bunit, &mean))
			snprintf(note, sizeof(note), "%.64s: %.200s (the "
				 "guest's own)", bunit, bname);
		xvbd_out_fixed_opt(o, xvbd_ab_metric_name(m), s.known[m],
				   s.value[m], xvbd_ab_metrics[m].decimals);
		xvbd_out_note(o, note);
	}
	xvbd_out_obj_end(o);
	xvbd_out_obj_begin(o, "window");
	for (m = 0; m < XVBD_AB_NMETRICS; m++) {
		if (!xvbd_ab_metric_is_rate(m))
			continue;
		xvbd_out_fixed_opt(o, xvbd_ab_metric_name(m), s.known[m],
				   s.window[m], xvbd_ab_metrics[m].decimals);
		xvbd_out_note(o, xvbd_ab_metric_unit(m));
	}
	xvbd_out_obj_end(o);
	/* Which intervals were left out, and why: the evidence. */
	xvbd_out_arr_begin(o, "left_out");
	for (i = 1; i < r->nsamples; i++) {
		char buf[160];

		if (xvbd_ab_interval_get(r, i, &iv) ||
		    iv.status == XVBD_AB_IV_OK)
			continue;
		snprintf(buf, sizeof(buf), "interval %zu (to %.3f s): %s", i,
			 (double)iv.t_ns / 1e9, iv.why);
		xvbd_out_str(o, NULL, buf);
	}
	xvbd_out_arr_end(o);
}

/* Other domains and the backing device: the figures, then any flag. */
static void render_interf(struct xvbd_out *o, const struct xvbd_ab_record *r,
			  double threshold)
{
	struct xvbd_ab_interf f;
	char buf[320];

	if (xvbd_ab_interference(r, threshold, &f)) {
		xvbd_out_null(o, "interference");
		return;
	}
	xvbd_ab_interf_render(o, "interference", &f);
	xvbd_out_arr_begin(o, "interference_flags");
	if (!xvbd_ab_interf_cpu_text(&f, buf, sizeof(buf)))
		xvbd_out_str(o, NULL, buf);
	if (!xvbd_ab_interf_dev_text(&f, r->nvdevs, buf, sizeof(buf)))
		xvbd_out_str(o, NULL, buf);
	xvbd_out_arr_end(o);
}

/*
 * The completion latency of the runs recs[n] from their JSON+ bins,
 * summed: the label's own distribution (each run's percentile is that
 * run's summary; this is the one of all their I/Os together).  Nothing
 * when no run has bins.
 */
static void render_merged(struct xvbd_out *o,
			  const struct xvbd_ab_record *recs, size_t n)
{
	static const double pcts[] = { 50, 90, 99, 99.9, 99.99 };
	static const enum xvbd_q keys[] = {
		XVBD_Q_P50_MS, XVBD_Q_P90_MS, XVBD_Q_P99_MS, XVBD_Q_P99_9_MS,
		XVBD_Q_P99_99_MS,
	};
	struct xvbd_wl_hist h[2];
	size_t runs[2], p;
	uint64_t v;
	int d;

	for (d = 0; d < 2; d++)
		if (xvbd_ab_merged_clat(recs, n, d, &h[d], &runs[d]))
			runs[d] = 0;
	if (!runs[0] && !runs[1]) {
		xvbd_wl_hist_free(&h[0]);
		xvbd_wl_hist_free(&h[1]);
		return;
	}
	xvbd_out_obj_begin(o, "merged_clat");
	for (d = 0; d < 2; d++) {
		if (!runs[d]) {
			xvbd_out_null(o, xvbd_wl_dir_name(d));
			continue;
		}
		xvbd_out_obj_begin(o, xvbd_wl_dir_name(d));
		xvbd_out_uint(o, XVBD_QN(RUNS), runs[d]);
		xvbd_out_uint(o, XVBD_QN(IOS), h[d].total);
		for (p = 0; p < sizeof(pcts) / sizeof(pcts[0]); p++) {
			bool known = xvbd_wl_hist_percentile(&h[d], pcts[p],
							     &v);

			xvbd_out_fixed_opt(o, xvbd_q_name(keys[p]), known,
					   (double)v / 1e6, 3);
			xvbd_out_note(o, MS);
		}
		xvbd_out_fixed_opt(o, XVBD_QN(MAX_BIN_MS), true,
				   (double)h[d].bins[h[d].n - 1].value_ns / 1e6,
				   3);
		xvbd_out_note(o, MS);
		xvbd_out_obj_end(o);
	}
	xvbd_out_obj_end(o);
	xvbd_wl_hist_free(&h[0]);
	xvbd_wl_hist_free(&h[1]);
}

/* The guest's clat beside its device's d2c, where runs have both. */
static void render_pv_split(struct xvbd_out *o,
			    const struct xvbd_ab_record *recs, size_t n)
{
	struct xvbd_ab_pv_split s;

	xvbd_ab_pv_split(recs, n, &s);
	if (xvbd_ab_pv_split_any(&s))
		xvbd_ab_pv_split_render(o, "pv_path", &s);
}

/* A label of several runs: which, and their merged distribution. */
static void render_label(struct xvbd_out *o,
			 const struct xvbd_ab_record *recs, size_t n)
{
	size_t i;

	xvbd_out_labels(o, show_labels);
	xvbd_out_obj_begin(o, NULL);
	xvbd_out_str(o, "label", recs[0].label);
	xvbd_out_arr_begin(o, "runs");
	for (i = 0; i < n; i++)
		xvbd_out_str(o, NULL, recs[i].id);
	xvbd_out_arr_end(o);
	render_merged(o, recs, n);
	render_pv_split(o, recs, n);
	xvbd_out_obj_end(o);
}

static bool have_bins(const struct xvbd_ab_record *recs, size_t n)
{
	struct xvbd_wl_hist h;
	size_t runs[2];
	int d;

	for (d = 0; d < 2; d++) {
		if (!xvbd_ab_merged_clat(recs, n, d, &h, &runs[d]))
			xvbd_wl_hist_free(&h);
		else
			runs[d] = 0;
	}
	return runs[0] || runs[1];
}

static void render(struct xvbd_out *o, const struct xvbd_ab_record *r,
		   double threshold)
{
	struct xvbd_ab_account acc;
	char buf[64];
	size_t i;

	xvbd_out_labels(o, show_labels);
	xvbd_out_obj_begin(o, NULL);
	xvbd_out_str(o, "id", r->id);
	xvbd_out_str(o, "label", r->label);
	xvbd_out_str(o, "path", r->path);
	xvbd_ab_cli_time(r->started_unix_ns, buf, sizeof(buf));
	xvbd_out_str(o, "started", buf);
	xvbd_out_fixed_opt(o, XVBD_QN(DURATION_S), true,
			   (double)xvbd_ab_cli_duration_ns(r) / 1e9, 3);
	xvbd_out_str(o, "domain", r->domain);
	xvbd_out_arr_begin(o, "vdevs");
	for (i = 0; i < r->nvdevs; i++)
		xvbd_out_str(o, NULL, r->vdevs[i]);
	xvbd_out_arr_end(o);
	xvbd_out_str(o, "mode", xvbd_ab_mode_name(r->mode));
	xvbd_out_str(o, "workload", r->workload);
	xvbd_out_uint(o, "workload_status", (uint64_t)r->workload_status);
	xvbd_out_fixed_opt(o, XVBD_QN(INTERVAL_S), true,
			   (double)r->interval_ns / 1e9, 3);
	xvbd_out_fixed_opt(o, XVBD_QN(WARMUP_S), true,
			   (double)r->warmup_ns / 1e9, 3);
	xvbd_out_bool(o, "complete", r->complete);
	xvbd_out_uint(o, XVBD_QN(SAMPLES), r->nsamples);
	render_summary(o, r);
	if (r->results) {
		xvbd_out_str(o, "results",
			     xvbd_wl_format_name(r->results->format));
		if (r->results->format == XVBD_WL_ABSENT)
			xvbd_out_str(o, "results_why", r->results->why);
	}
	render_merged(o, r, 1);
	if (!xvbd_ab_account(r, &acc))
		xvbd_ab_account_render(o, "accounting", &acc);
	render_interf(o, r, threshold);
	xvbd_out_obj_begin(o, "fingerprint");
	for (i = 0; i < r->fp.n; i++)
		xvbd_out_str(o, r->fp.facts[i].key, r->fp.facts[i].value);
	xvbd_out_obj_end(o);
	xvbd_out_arr_begin(o, "notes");
	for (i = 0; i < r->nnotes; i++)
		xvbd_out_str(o, NULL, r->notes[i]);
	xvbd_out_arr_end(o);
	if (r->lat)
		xvbd_ab_lat_render(o, "latency", r, 1);
	render_pv_split(o, r, 1);
	xvbd_out_obj_end(o);
}

/* --latency: a label's runs, their latency merged. */
static int render_lat_merged(struct xvbd_ctx *ctx, const char *what,
			     const struct xvbd_ab_record *recs, size_t n)
{
	size_t i, with = 0;

	for (i = 0; i < n; i++)
		with += recs[i].lat != NULL;
	if (!with) {
		xvbd_err(ctx->cmd->name, what, "no run of it was recorded "
			 "with --latency");
		return XVBD_EXIT_FAIL;
	}
	xvbd_out_labels(ctx->out, show_labels);
	xvbd_out_obj_begin(ctx->out, NULL);
	xvbd_out_str(ctx->out, "label", recs[0].label);
	xvbd_out_uint(ctx->out, XVBD_QN(SELECTED_RUNS), n);
	xvbd_out_uint(ctx->out, XVBD_QN(RUNS_WITH_LATENCY), with);
	xvbd_ab_lat_render(ctx->out, "latency", recs, n);
	render_pv_split(ctx->out, recs, n);
	xvbd_out_obj_end(ctx->out);
	return XVBD_EXIT_OK;
}

enum { O_INTERFERENCE_CPU, O_LATENCY, O_DIR };

const struct xvbd_cmdopt cmd_ab_show_opts[] = {
	[O_INTERFERENCE_CPU] = XVBD_AB_ROW_INTERFERENCE_CPU,
	[O_LATENCY] = XVBD_OPT_F("latency", 0, "a label's runs, their "
		"latency distributions merged"),
	[O_DIR] = XVBD_AB_ROW_DIR,
	XVBD_OPT_END,
};

int cmd_ab_show(struct xvbd_ctx *ctx, int argc, char **argv)
{
	bool latency;
	const char *dir = XVBD_AB_DIR_DEFAULT;
	double threshold = XVBD_AB_INTERF_CPU_DEFAULT;
	const struct xvbd_optval *v;
	struct xvbd_ab_record *recs = NULL;
	size_t n = 0;
	int first = 0, rc;

	if ((v = xvbd_opt(ctx, O_INTERFERENCE_CPU)))
		threshold = v->fraction;
	latency = xvbd_opt(ctx, O_LATENCY) != NULL;
	if ((v = xvbd_opt(ctx, O_DIR))) {
		rc = xvbd_ab_cli_dir(ctx->cmd, v->arg);
		if (rc)
			return rc;
		dir = v->arg;
	}
	if (argc - first != 1)
		return xvbd_usage_error(ctx->cmd, argc - first ?
					"one record at a time" :
					"missing record id");
	rc = xvbd_ab_cli_operand(ctx->cmd, argv[first]);
	if (!rc)
		rc = xvbd_cmd_connect(ctx);
	if (!rc)
		rc = xvbd_ab_cli_select(ctx->cmd, dir, &argv[first], 1, &recs,
					&n);
	if (rc)
		return rc;
	if (latency) {
		rc = render_lat_merged(ctx, argv[first], recs, n);
	} else if (n > 1 && have_bins(recs, n)) {
		render_label(ctx->out, recs, n);
	} else if (n != 1) {
		xvbd_err(ctx->cmd->name, NULL, "\"%s\" selects %zu runs: name "
			 "one by its id (a label's runs with fio's JSON+ "
			 "bins show their merged latency)", argv[first], n);
		if (!ctx->opts->quiet)
			xvbd_hint("see \"xvbd ab list %s\"", argv[first]);
		rc = XVBD_EXIT_FAIL;
	} else {
		render(ctx->out, &recs[0], threshold);
	}
	xvbd_ab_records_free(recs, n);
	return rc;
}
