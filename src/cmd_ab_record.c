/*
 * cmd_ab_record.c - xvbd ab record Label --domain D [--vdev V]...
 *		     (--duration S | --run CMD | --until-shutdown)
 *		     [--interval S] [--warmup S] [--dir DIR] [--json]
 *
 * One run = one record.  The stats layer samples (no second sampler):
 * per-VBD blkback counters and backing-device statistics, the guest's and
 * dom0's CPU time.  The record keeps the raw cumulative counters of every
 * sample, never rates, plus the fingerprint of the environment taken at
 * the start while the guest runs.
 *
 *	parse -> connect -> domain, VBDs -> store directory -> fingerprint
 *	-> the run (src/ab_recorder.c) -> write -> report
 *
 * SIGINT/SIGTERM/SIGHUP end the run early: the record is still written,
 * marked incomplete, and the exit code is 1.  Nothing is written before
 * the run ends: a kill -9 leaves no record (at most a hidden temporary).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "xvbd/ab.h"
#include "xvbd/ab_record_impl.h"
#include "xvbd/ab_recorder.h"
#include "xvbd/blkif.h"
#include "xvbd/cmd.h"
#include "xvbd/stats.h"
#include "xvbd/xs.h"

#define CMD			"ab record"
#define NS_PER_S		UINT64_C(1000000000)
#define INTERVAL_DEFAULT_NS	NS_PER_S
#define INTERVAL_MIN_NS		UINT64_C(10000000)	/* 10 ms */
#define SECONDS_MAX		UINT64_C(86400)
#define ID_TRIES		4
#define DOM0_DOMID		0

struct rec_opts {
	const char *label;
	const char *domain_spec;
	const char **vdev_args;
	size_t nvdev_args;
	enum xvbd_ab_mode mode;
	uint64_t duration_ns;
	const char *run_cmd;
	uint64_t interval_ns, warmup_ns;
	const char *dir;
	bool json;
};

/* What the command works with. */
struct recorder {
	struct xvbd_ctx *ctx;
	const struct rec_opts *o;
	uint32_t domid;
	char *domain;
	uint32_t devids[XVBD_AB_VDEVS_MAX];
	char *vdevs[XVBD_AB_VDEVS_MAX];
	size_t nvdevs;
	struct xvbd_ab_record rec;
	struct xvbd_ab_run run;
};

/* ---- options ---- */

static int parse_secs(const struct xvbd_cmd *cmd, const char *opt,
		      const char *arg, uint64_t min_ns, uint64_t *ns)
{
	if (xvbd_parse_seconds(arg, SECONDS_MAX, ns) || *ns < min_ns)
		return xvbd_usage_error(cmd, "%s: \"%s\": expected seconds "
					"from %s to %" PRIu64, opt, arg,
					min_ns >= NS_PER_S ? "1" :
					min_ns ? "0.01" : "0", SECONDS_MAX);
	return XVBD_EXIT_OK;
}

static int set_mode(const struct xvbd_cmd *cmd, struct rec_opts *o,
		    bool *have_mode, enum xvbd_ab_mode mode)
{
	if (*have_mode)
		return xvbd_usage_error(cmd, "--duration, --run and "
					"--until-shutdown exclude each other");
	*have_mode = true;
	o->mode = mode;
	return XVBD_EXIT_OK;
}

static int parse_opts(struct xvbd_ctx *ctx, int argc, char **argv,
		      struct rec_opts *o)
{
	enum { O_DOMAIN = 256, O_VDEV, O_DURATION, O_RUN, O_UNTIL,
	       O_INTERVAL, O_WARMUP, O_DIR, O_JSON };
	static const struct option longopts[] = {
		{ "domain", required_argument, NULL, O_DOMAIN },
		{ "vdev", required_argument, NULL, O_VDEV },
		{ "duration", required_argument, NULL, O_DURATION },
		{ "run", required_argument, NULL, O_RUN },
		{ "until-shutdown", no_argument, NULL, O_UNTIL },
		{ "interval", required_argument, NULL, O_INTERVAL },
		{ "warmup", required_argument, NULL, O_WARMUP },
		{ "dir", required_argument, NULL, O_DIR },
		{ "json", no_argument, NULL, O_JSON },
		{ NULL, 0, NULL, 0 },
	};
	const struct xvbd_cmd *cmd = ctx->cmd;
	bool have_mode = false;
	uint32_t devid;
	size_t i;
	int c, rc = 0, first;

	o->interval_ns = INTERVAL_DEFAULT_NS;
	o->dir = XVBD_AB_DIR_DEFAULT;
	o->json = ctx->opts->json;
	o->vdev_args = calloc((size_t)argc + 1, sizeof(*o->vdev_args));
	if (!o->vdev_args) {
		xvbd_err(CMD, "options", "%s", strerror(ENOMEM));
		return XVBD_EXIT_FAIL;
	}
	xvbd_getopt_begin();
	while (!rc && (c = xvbd_getopt(argc, argv, ":", longopts)) != -1) {
		switch (c) {
		case O_DOMAIN:
			if (o->domain_spec)
				return xvbd_usage_error(cmd, "--domain given "
							"twice");
			o->domain_spec = optarg;
			break;
		case O_VDEV:
			if (xvbd_vdev_parse(optarg, &devid))
				return xvbd_usage_error(cmd, "--vdev: \"%s\": "
					"not a virtual device name", optarg);
			o->vdev_args[o->nvdev_args++] = optarg;
			break;
		case O_DURATION:
			rc = set_mode(cmd, o, &have_mode,
				      XVBD_AB_MODE_DURATION);
			if (!rc)
				rc = parse_secs(cmd, "--duration", optarg,
						INTERVAL_MIN_NS,
						&o->duration_ns);
			break;
		case O_RUN:
			rc = set_mode(cmd, o, &have_mode, XVBD_AB_MODE_RUN);
			if (!rc && (!optarg[0] ||
				    strlen(optarg) > XVBD_AB_TEXT_MAX ||
				    !xvbd_ab_printable(optarg,
						       XVBD_AB_TEXT_MAX)))
				rc = xvbd_usage_error(cmd, "--run: expected a "
					"command line of 1 to %d printable "
					"characters", XVBD_AB_TEXT_MAX);
			o->run_cmd = optarg;
			break;
		case O_UNTIL:
			rc = set_mode(cmd, o, &have_mode,
				      XVBD_AB_MODE_UNTIL_SHUTDOWN);
			break;
		case O_INTERVAL:
			rc = parse_secs(cmd, "--interval", optarg,
					INTERVAL_MIN_NS, &o->interval_ns);
			break;
		case O_WARMUP:
			rc = parse_secs(cmd, "--warmup", optarg, 0,
					&o->warmup_ns);
			break;
		case O_DIR:
			if (!optarg[0])
				return xvbd_usage_error(cmd, "--dir: empty");
			o->dir = optarg;
			break;
		case O_JSON:
			o->json = true;
			break;
		default:
			return xvbd_getopt_error(cmd, argv, c);
		}
	}
	if (rc)
		return rc;
	first = xvbd_getopt_index();
	if (argc - first != 1)
		return xvbd_usage_error(cmd, argc == first ? "<Label> missing" :
					"one <Label>, not %d", argc - first);
	o->label = argv[first];
	if (!xvbd_ab_label_valid(o->label))
		return xvbd_usage_error(cmd, "label \"%s\": expected 1 to %d "
					"of A-Z a-z 0-9 . _ -, not led by . "
					"or -", o->label, XVBD_AB_LABEL_MAX);
	if (!o->domain_spec)
		return xvbd_usage_error(cmd, "--domain missing");
	if (!have_mode)
		return xvbd_usage_error(cmd, "how long? --duration S, --run "
					"CMD or --until-shutdown");
	if (o->nvdev_args > XVBD_AB_VDEVS_MAX)
		return xvbd_usage_error(cmd, "more than %d --vdev",
					XVBD_AB_VDEVS_MAX);
	for (i = 0; i < o->nvdev_args; i++) {
		uint32_t a, b;
		size_t j;

		xvbd_vdev_parse(o->vdev_args[i], &a);
		for (j = 0; j < i; j++) {
			xvbd_vdev_parse(o->vdev_args[j], &b);
			if (a == b)
				return xvbd_usage_error(cmd, "--vdev %s: "
					"given twice", o->vdev_args[i]);
		}
	}
	return XVBD_EXIT_OK;
}

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
		xvbd_err(CMD, "disks", "domain %s: %s", r->domain,
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
		    be.be_domid != DOM0_DOMID || strcmp(be.kind, "vbd")) {
			if (!r->o->nvdev_args)
				continue;
			xvbd_err(CMD, name, "not served by blkback in dom0 "
				 "(backend %s): it has no counters to record",
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
			xvbd_err(CMD, "vdevs", "%s", strerror(ENOMEM));
			rc = XVBD_EXIT_FAIL;
			goto out;
		}
		r->nvdevs++;
	}
	if (!r->nvdevs) {
		xvbd_err(CMD, "domain", "%s has no disk served by blkback in "
			 "dom0: nothing to record", r->domain);
		rc = XVBD_EXIT_FAIL;
	}
out:
	xvbd_tstack_disks_free(disks, ndisks);
	return rc;
}

static void describe_workload(const struct rec_opts *o, char *buf,
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
	struct xvbd_ab_err e = { "" };
	size_t i;
	int err;

	describe_workload(r->o, workload, sizeof(workload));
	rec->label = strdup(r->o->label);
	rec->domain = xvbd_ab_escape(r->domain);
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
	rec->mode = r->o->mode;
	rec->interval_ns = r->o->interval_ns;
	rec->warmup_ns = r->o->warmup_ns;
	/* While the guest runs: the shutdown takes its VBDs along. */
	err = xvbd_ab_fingerprint(r->ctx->ts, r->ctx->xs, r->domid,
				  (const char *const *)r->vdevs, r->nvdevs,
				  workload, &rec->fp, &e);
	if (err) {
		xvbd_err(CMD, "fingerprint", "%s", e.msg);
		return err;
	}
	return 0;
nomem:
	xvbd_err(CMD, "record", "%s", strerror(ENOMEM));
	return -ENOMEM;
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
		xvbd_err(CMD, "writing the record", "%s",
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
		{ "wr_req", "WR_REQ" }, { "rd_bytes", "RD_BYTES" },
		{ "wr_bytes", "WR_BYTES" }, { "intervals_reset", "RESET" },
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
	xvbd_out_fixed_opt(out, "seconds", true,
			   (double)last->t_ns / NS_PER_S, 3);
	xvbd_out_uint(out, "samples", rec->nsamples);
	xvbd_out_fixed_opt(out, "guest_cpu_seconds",
			   last->guest_cpu_ns >= first->guest_cpu_ns,
			   (double)(last->guest_cpu_ns - first->guest_cpu_ns) /
			   NS_PER_S, 3);
	xvbd_out_fixed_opt(out, "dom0_cpu_seconds",
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
		xvbd_out_uint(out, "rd_req", sum.rd_req);
		xvbd_out_uint(out, "wr_req", sum.wr_req);
		xvbd_out_size_opt(out, "rd_bytes", true,
				  sum.rd_sect * XVBD_SECTOR_BYTES);
		xvbd_out_size_opt(out, "wr_bytes", true,
				  sum.wr_sect * XVBD_SECTOR_BYTES);
		xvbd_out_uint(out, "intervals_reset", nreset);
		xvbd_out_obj_end(out);
	}
	xvbd_out_arr_end(out);
	xvbd_out_arr_begin(out, "notes");
	for (i = 0; i < rec->nnotes; i++)
		xvbd_out_str(out, NULL, rec->notes[i]);
	xvbd_out_arr_end(out);
	xvbd_out_obj_end(out);
}

/* ---- the command ---- */

static void recorder_free(struct recorder *r)
{
	size_t i;

	xvbd_ab_record_free(&r->rec);
	for (i = 0; i < r->nvdevs; i++)
		free(r->vdevs[i]);
	free(r->domain);
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

static int record(struct recorder *r)
{
	struct xvbd_ab_run *run = &r->run;
	struct xvbd_ab_err e = { "" };
	int rc, err;

	rc = xvbd_cmd_domain_lookup(r->ctx, r->o->domain_spec, &r->domid,
				    &r->domain);
	if (rc)
		return rc;
	if (r->domid == DOM0_DOMID) {
		xvbd_err(CMD, "--domain", "dom0 has no VBDs of its own: "
			 "record a guest");
		return XVBD_EXIT_USAGE;
	}
	err = guest_running(r);
	if (err <= 0) {
		xvbd_err(CMD, "domain", "%s: %s", r->domain,
			 err ? strerror(-err) : "not running (shut down)");
		return XVBD_EXIT_FAIL;
	}
	rc = resolve_vbds(r);
	if (rc)
		return rc;
	/* Before measuring: no point in a run that cannot be kept. */
	err = xvbd_ab_store_ensure(r->o->dir, &e);
	if (err) {
		xvbd_err(CMD, "--dir", "%s", e.msg);
		return XVBD_EXIT_FAIL;
	}
	if (prepare_record(r))
		return XVBD_EXIT_FAIL;
	run->cmd = CMD;
	run->label = r->o->label;
	run->domid = r->domid;
	run->domain = r->domain;
	run->devids = r->devids;
	run->mode = r->o->mode;
	run->duration_ns = r->o->duration_ns;
	run->run_cmd = r->o->run_cmd;
	run->interval_ns = r->o->interval_ns;
	run->warmup_ns = r->o->warmup_ns;
	run->progress = isatty(STDERR_FILENO) && !r->ctx->opts->quiet;
	if (xvbd_ab_recorder_run(r->ctx->ts, r->ctx->xs, run, &r->rec))
		return XVBD_EXIT_FAIL;
	if (write_record(r))
		return XVBD_EXIT_FAIL;
	report(r->ctx->out, r);
	if (run->stop_signal) {
		xvbd_err(CMD, "interrupted", "by %s: record %s kept, marked "
			 "incomplete", xvbd_ab_signal_name(run->stop_signal),
			 r->rec.id);
		return XVBD_EXIT_FAIL;
	}
	if (!r->rec.complete) {
		xvbd_err(CMD, "incomplete", "the run ended early (see the "
			 "record's notes): record %s kept, marked incomplete",
			 r->rec.id);
		return XVBD_EXIT_FAIL;
	}
	if (r->rec.workload_status) {
		xvbd_err(CMD, "--run", "the command exited with status %d "
			 "(record %s kept)", r->rec.workload_status,
			 r->rec.id);
		return XVBD_EXIT_FAIL;
	}
	return XVBD_EXIT_OK;
}

int cmd_ab_record(struct xvbd_ctx *ctx, int argc, char **argv)
{
	struct rec_opts o = { 0 };
	struct recorder r = { .ctx = ctx, .o = &o };
	int rc;

	rc = parse_opts(ctx, argc, argv, &o);
	if (!rc) {
		xvbd_ab_recorder_block_signals();
		rc = xvbd_cmd_connect(ctx);
	}
	if (!rc && o.json != ctx->opts->json) {
		/* --json after the command name: the same as before it. */
		xvbd_out_free(ctx->out);
		ctx->out = xvbd_out_new(stdout, o.json);
		if (!ctx->out) {
			xvbd_err(CMD, "output", "%s", strerror(ENOMEM));
			rc = XVBD_EXIT_FAIL;
		}
	}
	if (!rc) {
		rc = record(&r);
		/* The report stands also when the exit code says "failed". */
		if (rc && r.rec.path && xvbd_out_finish(ctx->out))
			xvbd_err(CMD, "stdout", "write failed");
	}
	recorder_free(&r);
	free(o.vdev_args);
	return rc;
}
