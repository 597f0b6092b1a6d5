/*
 * ab_recorder.c - one recorded run (include/xvbd/ab_recorder.h): the
 * domain and its VBDs, the record's head with the fingerprint taken
 * while the guest runs, the run itself (src/ab_recorder_loop.c), the
 * atomic write, and the report.  `ab record` and `ab run` call it.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "xvbd/ab/ab.h"
#include "xvbd/ab/ab_record_impl.h"
#include "xvbd/cmd/ab/ab_recorder.h"
#include "ab_recorder_impl.h"
#include "xvbd/xen/blkif.h"
#include "xvbd/cmd/cmd.h"
#include "xvbd/base/sig.h"
#include "xvbd/base/vocab.h"
#include "xvbd/stats/stats.h"
#include "xvbd/xen/xs.h"

#define NS_PER_S		UINT64_C(1000000000)
#define ID_TRIES		4
#define DOM0_DOMID		0
#define BLKBACK_KIND		"vbd"
/* Errors go out under the calling command's name. */
#define CMD_OF(r)		((r)->ctx->cmd->name)

/* What one recorded run works with. */
struct recorder {
	struct xvbd_ctx *ctx;
	const struct xvbd_ab_rec_opts *o;
	uint32_t domid;
	char *domain;
	uint32_t devids[XVBD_AB_VDEVS_MAX];
	char *vdevs[XVBD_AB_VDEVS_MAX];
	size_t nvdevs;
	struct xvbd_ab_record rec;
	struct xvbd_ab_run run;
};

/* ---- the domain and its VBDs ---- */

/* The VBDs to record: those asked for, else all the guest's blkback ones. */
static int resolve_vbds(struct recorder *r)
{
	struct xvbd_disk *disks = NULL;
	size_t ndisks = 0, i, j;
	char name[XVBD_STATS_VDEV_MAX];
	int err, rc = XVBD_EXIT_OK;

	err = xvbd_tstack_disks(r->ctx->ts, r->domid, &disks, &ndisks);
	if (err) {
		xvbd_err(CMD_OF(r), "disks", "domain %s: %s", r->domain,
			 strerror(-err));
		return XVBD_EXIT_FAIL;
	}
	for (i = 0; i < (r->o->nvdev_args ? r->o->nvdev_args : ndisks); i++) {
		const struct xvbd_disk *disk = NULL;
		struct xvbd_xs_be_path be;
		uint32_t devid;

		if (r->o->nvdev_args) {
			xvbd_vdev_parse(r->o->vdev_args[i], &devid);
			for (j = 0; j < ndisks && !disk; j++)
				if (disks[j].devid == devid)
					disk = &disks[j];
			if (!disk) {
				rc = xvbd_cmd_disk_error(r->ctx, -ENOENT,
							 r->o->vdev_args[i],
							 r->domain);
				goto out;
			}
		} else {
			disk = &disks[i];
		}
		if (xvbd_vdev_name(disk->devid, name, sizeof(name)))
			snprintf(name, sizeof(name), "%u", disk->devid);
		/* blkback in dom0 keeps counters; qdisk and others do not. */
		if (!disk->backend_path ||
		    xvbd_xs_parse_backend_path(disk->backend_path, &be) ||
		    be.be_domid != DOM0_DOMID ||
		    strcmp(be.kind, BLKBACK_KIND)) {
			if (!r->o->nvdev_args)
				continue;
			xvbd_err(CMD_OF(r), name, "not served by blkback in "
				 "dom0 (backend %s): it has no counters to "
				 "record",
				 disk->backend_path ? disk->backend_path :
				 "unknown");
			rc = XVBD_EXIT_FAIL;
			goto out;
		}
		if (r->nvdevs == XVBD_AB_VDEVS_MAX)
			break;
		r->devids[r->nvdevs] = disk->devid;
		r->vdevs[r->nvdevs] = strdup(name);
		if (!r->vdevs[r->nvdevs]) {
			xvbd_err(CMD_OF(r), "vdevs", "%s", strerror(ENOMEM));
			rc = XVBD_EXIT_FAIL;
			goto out;
		}
		r->nvdevs++;
	}
	if (!r->nvdevs) {
		xvbd_err(CMD_OF(r), "domain", "%s has no disk served by "
			 "blkback in dom0: nothing to record", r->domain);
		rc = XVBD_EXIT_FAIL;
	}
out:
	xvbd_tstack_disks_free(disks, ndisks);
	return rc;
}

/* --interval, or the mode's default (0: not given). */
static uint64_t rec_interval(const struct xvbd_ab_rec_opts *o)
{
	if (o->interval_ns)
		return o->interval_ns;
	return o->mode == XVBD_AB_MODE_RUN ? XVBD_AB_INTERVAL_RUN_NS :
	       XVBD_AB_INTERVAL_DEFAULT_NS;
}

static void describe_workload(const struct xvbd_ab_rec_opts *o, char *buf,
			      size_t len)
{
	switch (o->mode) {
	case XVBD_AB_MODE_DURATION:
		snprintf(buf, len, "duration %gs",
			 (double)o->duration_ns / NS_PER_S);
		break;
	case XVBD_AB_MODE_RUN:
		snprintf(buf, len, "%s", o->run_cmd);
		break;
	case XVBD_AB_MODE_UNTIL_SHUTDOWN:
		snprintf(buf, len, "until-shutdown");
		break;
	}
}

/* The record's head: everything but the samples. */
static int prepare_record(struct recorder *r)
{
	struct xvbd_ab_record *rec = &r->rec;
	char workload[XVBD_AB_TEXT_MAX + 1];
	size_t i;

	describe_workload(r->o, workload, sizeof(workload));
	rec->label = strdup(r->o->label);
	rec->domain = xvbd_escape(r->domain);
	rec->workload = strdup(workload);
	rec->vdevs = calloc(r->nvdevs, sizeof(*rec->vdevs));
	if (!rec->label || !rec->domain || !rec->workload || !rec->vdevs)
		goto nomem;
	if (strlen(rec->domain) > 63)
		rec->domain[63] = '\0';
	for (i = 0; i < r->nvdevs; i++) {
		rec->vdevs[i] = strdup(r->vdevs[i]);
		if (!rec->vdevs[i])
			goto nomem;
		rec->nvdevs++;
	}
	if (r->o->experiment) {
		rec->experiment = strdup(r->o->experiment);
		if (!rec->experiment)
			goto nomem;
		rec->pair = r->o->pair;
		rec->position = r->o->position;
	}
	rec->mode = r->o->mode;
	rec->interval_ns = rec_interval(r->o);
	rec->warmup_ns = r->o->warmup_ns;
	return 0;
nomem:
	xvbd_err(CMD_OF(r), "record", "%s", strerror(ENOMEM));
	return -ENOMEM;
}

/*
 * At the baseline, after the warmup: a guest just started (ab
 * run) has connected its disks by then, so the negotiated facts are
 * known; and while the guest runs (a shutdown takes its VBDs along).
 */
static int take_fingerprint(void *arg)
{
	struct recorder *r = arg;
	struct xvbd_ab_err e = { "" };
	int err;

	err = xvbd_ab_fingerprint(r->ctx->ts, r->ctx->xs, r->domid,
				  (const char *const *)r->vdevs, r->nvdevs,
				  r->rec.workload, &r->rec.fp, &e);
	if (!err && r->o->config_sha256 && *r->o->config_sha256)
		err = xvbd_ab_fp_set(&r->rec.fp, XVBD_AB_FP_CONFIG_KEY, "%s",
				     r->o->config_sha256);
	if (err)
		xvbd_err(CMD_OF(r), "fingerprint", "%s",
			 e.msg[0] ? e.msg : strerror(-err));
	return err;
}

/* Write the record under a fresh id if its id is taken. */
static int write_record(struct recorder *r)
{
	struct xvbd_ab_err e = { "" };
	char id[XVBD_AB_ID_MAX];
	int err = -EEXIST, tries;

	for (tries = 0; err == -EEXIST && tries < ID_TRIES; tries++) {
		if (tries) {
			err = xvbd_ab_make_id(r->o->label,
					      r->rec.started_unix_ns, id,
					      sizeof(id));
			if (err)
				break;
			free(r->rec.id);
			r->rec.id = strdup(id);
			if (!r->rec.id) {
				err = -ENOMEM;
				break;
			}
		}
		err = xvbd_ab_store_write(r->o->dir, &r->rec, &e);
	}
	if (err)
		xvbd_err(CMD_OF(r), "writing the record", "%s",
			 e.msg[0] ? e.msg : strerror(-err));
	return err;
}

/* ---- the report ---- */

/*
 * Totals over the record's intervals, leaving out those a reset made
 * meaningless: raw counts, no rates (ab show/compare recompute those).
 */
static void report(struct xvbd_out *out, const struct recorder *r)
{
	static const struct xvbd_out_label labels[] = {
		{ "vdev", "VDEV" }, { "rd_req", "RD_REQ" },
		{ "wr_req", "WR_REQ" }, { "intervals_reset", "RESET" },
		{ NULL, NULL },
	};
	const struct xvbd_ab_record *rec = &r->rec;
	const struct xvbd_ab_sample *first = &rec->samples[0];
	const struct xvbd_ab_sample *last = &rec->samples[rec->nsamples - 1];
	size_t i, j;

	xvbd_out_labels(out, labels);
	xvbd_out_obj_begin(out, NULL);
	xvbd_out_str(out, "id", rec->id);
	xvbd_out_str(out, "path", rec->path);
	xvbd_out_str(out, "label", rec->label);
	xvbd_out_str(out, "domain", rec->domain);
	xvbd_out_str(out, "mode", xvbd_ab_mode_name(rec->mode));
	xvbd_out_bool(out, "complete", rec->complete);
	if (rec->mode == XVBD_AB_MODE_RUN)
		xvbd_out_uint(out, "workload_status",
			      (uint64_t)rec->workload_status);
	if (rec->results) {
		xvbd_out_str(out, "results",
			     xvbd_wl_format_name(rec->results->format));
		if (rec->results->format == XVBD_WL_ABSENT)
			xvbd_out_str(out, "results_why", rec->results->why);
	}
	xvbd_out_fixed_opt(out, XVBD_QN(DURATION_S), true,
			   (double)last->t_ns / NS_PER_S, 3);
	xvbd_out_uint(out, XVBD_QN(SAMPLES), rec->nsamples);
	xvbd_out_fixed_opt(out, XVBD_QN(GUEST_CPU_S),
			   last->guest_cpu_ns >= first->guest_cpu_ns,
			   (double)(last->guest_cpu_ns - first->guest_cpu_ns) /
			   NS_PER_S, 3);
	xvbd_out_fixed_opt(out, XVBD_QN(DOM0_CPU_S),
			   last->dom0_cpu_ns >= first->dom0_cpu_ns,
			   (double)(last->dom0_cpu_ns - first->dom0_cpu_ns) /
			   NS_PER_S, 3);
	xvbd_out_arr_begin(out, "vbds");
	for (j = 0; j < rec->nvdevs; j++) {
		struct xvbd_blkback_counters sum = { 0 };
		size_t nreset = 0;

		for (i = 1; i < rec->nsamples; i++) {
			const struct xvbd_ab_vbd_sample *a =
				&rec->samples[i - 1].vbds[j];
			const struct xvbd_ab_vbd_sample *b =
				&rec->samples[i].vbds[j];

			if (b->reset || b->c.rd_req < a->c.rd_req ||
			    b->c.wr_req < a->c.wr_req ||
			    b->c.rd_sect < a->c.rd_sect ||
			    b->c.wr_sect < a->c.wr_sect) {
				nreset++;
				continue;
			}
			sum.rd_req += b->c.rd_req - a->c.rd_req;
			sum.wr_req += b->c.wr_req - a->c.wr_req;
			sum.rd_sect += b->c.rd_sect - a->c.rd_sect;
			sum.wr_sect += b->c.wr_sect - a->c.wr_sect;
		}
		xvbd_out_obj_begin(out, NULL);
		xvbd_out_str(out, "vdev", rec->vdevs[j]);
		xvbd_out_uint(out, XVBD_QN(RD_REQ), sum.rd_req);
		xvbd_out_uint(out, XVBD_QN(WR_REQ), sum.wr_req);
		xvbd_out_size_opt(out, XVBD_QN(READ_BYTES), true,
				  sum.rd_sect * XVBD_SECTOR_BYTES);
		xvbd_out_size_opt(out, XVBD_QN(WRITE_BYTES), true,
				  sum.wr_sect * XVBD_SECTOR_BYTES);
		xvbd_out_uint(out, XVBD_QN(INTERVALS_RESET), nreset);
		xvbd_out_obj_end(out);
	}
	xvbd_out_arr_end(out);
	xvbd_out_arr_begin(out, "notes");
	for (i = 0; i < rec->nnotes; i++)
		xvbd_out_str(out, NULL, rec->notes[i]);
	xvbd_out_arr_end(out);
	xvbd_out_obj_end(out);
}

/* Running (not shut down, not dying): 1; ended: 0; -errno. */
static int guest_running(struct recorder *r)
{
	struct xvbd_dominfo info;
	int err = xvbd_tstack_domain_info(r->ctx->ts, r->domid, &info);

	if (err == -ENOENT)
		return 0;
	if (err)
		return err;
	return !(info.shutdown || info.dying);
}

/*
 * --run: what its command printed, read, into the record; one warning
 * line when results were looked for and none came (the record is kept
 * with dom0's figures either way).
 */
static int keep_results(struct recorder *r)
{
	struct xvbd_wl_results *res;

	if (r->o->mode != XVBD_AB_MODE_RUN)
		return XVBD_EXIT_OK;
	res = calloc(1, sizeof(*res));
	if (!res) {
		xvbd_err(CMD_OF(r), "--results", "%s", strerror(ENOMEM));
		return XVBD_EXIT_FAIL;
	}
	if (r->run.capture) {
		xvbd_wl_capture_finish(r->run.capture,
				       r->rec.workload_status, res);
	} else {
		res->mode = XVBD_WL_RESULTS_NONE;
		res->quiet = true;
		snprintf(res->why, sizeof(res->why),
			 "not read (--results none)");
	}
	r->rec.results = res;
	/* What the workload itself says it ran: its fingerprint. */
	if (xvbd_ab_fp_add_results(&r->rec.fp, res)) {
		xvbd_err(CMD_OF(r), "fingerprint", "%s", strerror(ENOMEM));
		return XVBD_EXIT_FAIL;
	}
	if (res->format == XVBD_WL_ABSENT && !res->quiet)
		xvbd_err(CMD_OF(r), "warning", "%s: no workload results in "
			 "the record: %s", r->o->label, res->why);
	return XVBD_EXIT_OK;
}

static int record(struct recorder *r, bool report_it)
{
	struct xvbd_ab_run *run = &r->run;
	struct xvbd_ab_err e = { "" };
	int rc, err;

	rc = xvbd_cmd_domain_lookup(r->ctx, r->o->domain_spec, &r->domid,
				    &r->domain);
	if (rc)
		return rc;
	if (r->domid == DOM0_DOMID) {
		xvbd_err(CMD_OF(r), "domain", "dom0 has no VBDs of its own: "
			 "record a guest");
		return XVBD_EXIT_USAGE;
	}
	err = guest_running(r);
	if (err <= 0) {
		xvbd_err(CMD_OF(r), "domain", "%s: %s", r->domain,
			 err ? strerror(-err) : "not running (shut down)");
		return XVBD_EXIT_FAIL;
	}
	rc = resolve_vbds(r);
	if (rc)
		return rc;
	/* Before measuring: no point in a run that cannot be kept. */
	err = xvbd_ab_store_ensure(r->o->dir, &e);
	if (err) {
		xvbd_err(CMD_OF(r), "--dir", "%s", e.msg);
		return XVBD_EXIT_FAIL;
	}
	if (prepare_record(r))
		return XVBD_EXIT_FAIL;
	run->cmd = CMD_OF(r);
	run->label = r->o->label;
	run->domid = r->domid;
	run->domain = r->domain;
	run->devids = r->devids;
	run->ndevids = r->nvdevs;
	run->has_under_test = r->o->under_test_vdev &&
			      !xvbd_vdev_parse(r->o->under_test_vdev,
					       &run->under_test_devid);
	run->mode = r->o->mode;
	run->duration_ns = r->o->duration_ns;
	run->run_cmd = r->o->run_cmd;
	run->interval_ns = rec_interval(r->o);
	run->warmup_ns = r->o->warmup_ns;
	run->latency = r->o->latency;
	run->progress = isatty(STDERR_FILENO) && !r->ctx->opts->quiet;
	run->at_baseline = take_fingerprint;
	run->arg = r;
	if (r->o->ready_timeout_ns) {
		rc = xvbd_ab_recorder_ready(r->ctx->ts, r->ctx->xs, run,
					    r->o->ready_cmd,
					    r->o->ready_timeout_ns);
		if (rc)
			return rc;
	}
	if (r->o->mode == XVBD_AB_MODE_RUN &&
	    r->o->results_mode != XVBD_WL_RESULTS_NONE) {
		run->capture = xvbd_wl_capture_new(r->o->results_mode,
						   XVBD_WL_OUTPUT_MAX);
		if (!run->capture) {
			xvbd_err(CMD_OF(r), "--results", "%s",
				 strerror(ENOMEM));
			return XVBD_EXIT_FAIL;
		}
		run->echo_output = !r->ctx->opts->quiet;
	}
	if (xvbd_ab_recorder_loop(r->ctx->ts, r->ctx->xs, run, &r->rec))
		return XVBD_EXIT_FAIL;
	rc = keep_results(r);
	if (rc)
		return rc;
	if (write_record(r))
		return XVBD_EXIT_FAIL;
	if (report_it)
		report(r->ctx->out, r);
	/* How it ended: the caller of a series of runs says it its way. */
	if (run->stop_signal) {
		if (report_it)
			xvbd_err(CMD_OF(r), "interrupted", "by %s: record %s "
				 "kept, marked incomplete",
				 xvbd_sig_name(run->stop_signal),
				 r->rec.id);
		return XVBD_EXIT_FAIL;
	}
	if (!r->rec.complete) {
		xvbd_err(CMD_OF(r), "incomplete", "the run ended early (%s): "
			 "record %s kept, marked incomplete",
			 r->rec.nnotes ? r->rec.notes[r->rec.nnotes - 1] :
			 "see its notes", r->rec.id);
		return XVBD_EXIT_FAIL;
	}
	if (r->rec.workload_status) {
		xvbd_err(CMD_OF(r), "--run", "the command exited with status "
			 "%d (record %s kept)", r->rec.workload_status,
			 r->rec.id);
		return XVBD_EXIT_FAIL;
	}
	return XVBD_EXIT_OK;
}

static void recorder_free(struct recorder *r)
{
	size_t i;

	xvbd_wl_capture_free(r->run.capture);
	xvbd_ab_record_free(&r->rec);
	for (i = 0; i < r->nvdevs; i++)
		free(r->vdevs[i]);
	free(r->domain);
}

int xvbd_ab_rec_value(const struct xvbd_cmd *cmd, enum xvbd_ab_rec_row which,
		      const struct xvbd_optval *v, struct xvbd_ab_rec_opts *o,
		      bool *have_mode)
{
	enum xvbd_ab_mode mode;

	switch (which) {
	case XVBD_AB_REC_INTERVAL:
		o->interval_ns = v->u;
		return XVBD_EXIT_OK;
	case XVBD_AB_REC_WARMUP:
		o->warmup_ns = v->u;
		return XVBD_EXIT_OK;
	case XVBD_AB_REC_LATENCY:
		o->latency = true;
		return XVBD_EXIT_OK;
	case XVBD_AB_REC_RESULTS:
		/* the parser took only the row's words */
		o->results_given = true;
		if (xvbd_wl_results_mode_parse(v->arg, &o->results_mode))
			return xvbd_usage_error(cmd, "--results: \"%s\": "
						"expected auto, fio, benchfmt "
						"or none", v->arg);
		return XVBD_EXIT_OK;
	case XVBD_AB_REC_DURATION:
		mode = XVBD_AB_MODE_DURATION;
		o->duration_ns = v->u;
		break;
	case XVBD_AB_REC_RUN:
		mode = XVBD_AB_MODE_RUN;
		break;
	default:
		mode = XVBD_AB_MODE_UNTIL_SHUTDOWN;
		break;
	}
	if (*have_mode)
		return xvbd_usage_error(cmd, "--duration, --run and "
					"--until-shutdown exclude each other");
	*have_mode = true;
	o->mode = mode;
	if (mode != XVBD_AB_MODE_RUN)
		return XVBD_EXIT_OK;
	/* The command line is kept in the record: one printable line. */
	if (!v->arg[0] || strlen(v->arg) > XVBD_AB_TEXT_MAX ||
	    !xvbd_ab_printable(v->arg, XVBD_AB_TEXT_MAX))
		return xvbd_usage_error(cmd, "--run: expected a command line "
					"of 1 to %d printable characters",
					XVBD_AB_TEXT_MAX);
	o->run_cmd = v->arg;
	return XVBD_EXIT_OK;
}

int xvbd_ab_rec_opts_check(const struct xvbd_cmd *cmd,
			   const struct xvbd_ab_rec_opts *o)
{
	if (o->results_given && o->mode != XVBD_AB_MODE_RUN)
		return xvbd_usage_error(cmd, "--results reads the output of "
					"--run's command: give --run CMD");
	return XVBD_EXIT_OK;
}

int xvbd_ab_recorder_run(struct xvbd_ctx *ctx,
			 const struct xvbd_ab_rec_opts *o, bool report_it,
			 struct xvbd_ab_record *rec, const char **stopped_by)
{
	struct recorder r = { .ctx = ctx, .o = o };
	int rc;

	memset(rec, 0, sizeof(*rec));
	*stopped_by = NULL;
	rc = record(&r, report_it);
	if (r.run.stop_signal)
		*stopped_by = xvbd_sig_name(r.run.stop_signal);
	/* The caller gets the record whenever it was written. */
	if (r.rec.path) {
		*rec = r.rec;
		memset(&r.rec, 0, sizeof(r.rec));
	}
	recorder_free(&r);
	return rc;
}
