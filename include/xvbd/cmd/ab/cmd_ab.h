/*
 * cmd_ab.h - what the `xvbd ab` commands that read records share
 * (src/cmd_ab_common.c): operand and option checks before any file is
 * touched, selecting records, and small formatters.
 */
#ifndef XVBD_CMD_AB_H
#define XVBD_CMD_AB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "xvbd/ab/ab.h"
#include "xvbd/ab/ab_sweep.h"
#include "xvbd/base/optval.h"
#include "xvbd/cmd/cmd.h"

/*
 * A selection operand: a label or id ([A-Za-z0-9._-], not led by '.' or
 * '-', shorter than XVBD_AB_ID_MAX) or a record file path (holds '/' or
 * ends in ".json", printable, shorter than PATH_MAX).  Usage error
 * (exit 2, printed) otherwise; XVBD_EXIT_OK when fine.
 */
int xvbd_ab_cli_operand(const struct xvbd_cmd *cmd, const char *op);
/* --dir: non-empty, printable, shorter than PATH_MAX. */
int xvbd_ab_cli_dir(const struct xvbd_cmd *cmd, const char *dir);
/*
 * One --metric NAME: its metric, or -1.  An earlier name of it is read
 * with a warning naming the new one (none under -q).
 */
int xvbd_ab_cli_metric(const char *cmd_name, const char *name);
/* --metric NAME[,NAME...] into shown[XVBD_AB_NMETRICS] (ORed in). */
int xvbd_ab_cli_metrics(const struct xvbd_cmd *cmd, const char *arg,
			bool *shown);
/*
 * No --metric: the default set for these levels' runs, in shown (and
 * *some set) when it leaves anything out (the latency metrics when no
 * run has latency); else shown untouched.
 */
struct xvbd_ab_level;
void xvbd_ab_cli_default_metrics(const struct xvbd_ab_level *lv, size_t n,
				 bool *shown, bool *some);
/* --min-effect P and --equivalence P (ab compare, ab run): the ranges in
 * one place (the rows below). */
#define XVBD_AB_MIN_EFFECT_MIN_PCT	0.1
#define XVBD_AB_MIN_EFFECT_MAX_PCT	99.9
#define XVBD_AB_EQUIVALENCE_MIN_PCT	0.1
#define XVBD_AB_EQUIVALENCE_MAX_PCT	50
/*
 * The option rows the ab commands share (cmd_opt.h), so that one option
 * has one name, one grammar, one range and one description everywhere.
 */
#define XVBD_AB_ROW_DIR							\
	XVBD_OPT_STR("dir", 0, "DIR", 0, "the record store (default "	\
		     XVBD_AB_DIR_DEFAULT ")")
#define XVBD_AB_ROW_METRIC(what)					\
	XVBD_OPT_STR("metric", 0, "M[,M...]", XVBD_OPT_REPEAT, what)
#define XVBD_AB_ROW_TEST						\
	XVBD_OPT_W("test", 0, "welch|mwu", "the test per metric: Welch's "\
		   "t on the log, or Mann-Whitney U (default welch)")
#define XVBD_AB_ROW_CONFIDENCE						\
	XVBD_OPT_P("confidence", 0, XVBD_CONFIDENCE_MIN_PCT,		\
		   XVBD_CONFIDENCE_MAX_PCT, "confidence level in % "	\
		   "(default 95)")
#define XVBD_AB_ROW_MIN_EFFECT						\
	XVBD_OPT_P("min-effect", 0, XVBD_AB_MIN_EFFECT_MIN_PCT,		\
		   XVBD_AB_MIN_EFFECT_MAX_PCT, "the smallest change in % "\
		   "that matters (default 5)")
#define XVBD_AB_ROW_EQUIVALENCE						\
	XVBD_OPT_P("equivalence", 0, XVBD_AB_EQUIVALENCE_MIN_PCT,	\
		   XVBD_AB_EQUIVALENCE_MAX_PCT, "call A and B the same "	\
		   "when the interval lies within +-P %")
#define XVBD_AB_ROW_INTERFERENCE_CPU					\
	XVBD_OPT_P("interference-cpu", 0, XVBD_AB_INTERF_CPU_MIN_PCT,	\
		   XVBD_AB_INTERF_CPU_MAX_PCT, "flag a run whose other "	\
		   "domains used more than P % of the host's CPUs "	\
		   "(default 10)")
/*
 * --fail-if-worse P (ab compare): the gate's threshold, in % (not a
 * fraction: the gate compares it with the % column).  Above 100 only
 * latency, CPU and time can be that much worse.
 */
#define XVBD_AB_GATE_MIN_PCT	0.1
#define XVBD_AB_GATE_MAX_PCT	1000
#define XVBD_AB_ROW_FAIL_IF_WORSE					\
	XVBD_OPT_P("fail-if-worse", 0, XVBD_AB_GATE_MIN_PCT,		\
		   XVBD_AB_GATE_MAX_PCT, "exit 3 when a level is proven "\
		   "worse than the baseline by P % or more")
#define XVBD_AB_ROW_BASELINE						\
	XVBD_OPT_STR("baseline", 0, "Label", 0, "the label the others "	\
		     "are compared with (default: the first)")
/* --test welch|mwu */
int xvbd_ab_cli_test(const struct xvbd_cmd *cmd, const char *arg,
		     enum xvbd_ab_test *test);

/*
 * The records the operands select (each operand a path, id or label),
 * in operand order, a record named twice kept once; with no operands,
 * every record of dir.  One line on a read error, naming the file;
 * returns the exit code (XVBD_EXIT_OK, or XVBD_EXIT_FAIL with nothing
 * to free).
 */
int xvbd_ab_cli_select(const struct xvbd_cmd *cmd, const char *dir,
		       char **ops, int nops, struct xvbd_ab_record **recs,
		       size_t *n);

/*
 * The operands of a command over levels (ab compare, ab plot): 2 to
 * XVBD_AB_LEVELS_MAX, each a valid operand and given once, and the
 * baseline (NULL: the first) among them, its index into *base.  what
 * ends the --baseline error ("compared").  Usage error (exit 2, printed)
 * otherwise; XVBD_EXIT_OK when fine.
 */
int xvbd_ab_cli_levels(const struct xvbd_cmd *cmd, char **ops, size_t nops,
		       const char *baseline, const char *what, size_t *base);
/*
 * The records of each operand into lv[i] (label: the first record's),
 * recs[i] owning them (xvbd_ab_records_free(recs[i], lv[i].n), also on
 * failure); a run selected by two operands is an error (it would be
 * compared with itself).  Returns the exit code.
 */
int xvbd_ab_cli_select_levels(const struct xvbd_cmd *cmd, const char *dir,
			      char **ops, size_t nops,
			      struct xvbd_ab_level *lv,
			      struct xvbd_ab_record **recs);

/*
 * --fail-if-worse P over comparisons cmp[n] (NULL entries: the
 * baseline), as ab compare and ab run apply it: the gate judged by the
 * ab layer (xvbd_ab_gate_judge) on the metrics shown (NULL: all), each
 * metric worse by P % or more told on stderr (failing, or not proven),
 * then what it comes to (a failure as the command's error); under key of
 * out when out is given and JSON.  XVBD_EXIT_OK, XVBD_AB_GATE_EXIT or
 * XVBD_EXIT_FAIL.
 */
struct xvbd_ab_comparison;
struct xvbd_out;
int xvbd_ab_cli_gate(const struct xvbd_cmd *cmd,
		     const struct xvbd_ab_comparison *const *cmp, size_t n,
		     const bool *shown, double gate_pct, double confidence,
		     struct xvbd_out *out, const char *key);

/*
 * The same gate over levels lv[n] (the first the baseline), compared as
 * ab compare compares them: two levels the A/B comparison, more the
 * sweep against the baseline, Holm over the metrics shown (NULL: all)
 * and the levels.  For a command that gates records it did not compare
 * that way itself (ab run).
 */
struct xvbd_ab_compare_opts;
int xvbd_ab_cli_gate_levels(const struct xvbd_cmd *cmd,
			    const struct xvbd_ab_level *lv, size_t n,
			    const struct xvbd_ab_compare_opts *co,
			    const bool *shown, double gate_pct,
			    struct xvbd_out *out, const char *key);

/* "2024-05-01T12:00:00Z" (UTC, whole seconds); "-" if out of range. */
void xvbd_ab_cli_time(int64_t unix_ns, char *buf, size_t len);
/* The record's length: its last sample's time since the baseline. */
uint64_t xvbd_ab_cli_duration_ns(const struct xvbd_ab_record *rec);
/*
 * A few facts that tell runs apart, in one short line: "vcpus 2; xvdb
 * phy cache n/a ring 8 queues 1".
 */
void xvbd_ab_cli_key_facts(const struct xvbd_ab_record *rec, char *buf,
			   size_t len);

#endif /* XVBD_CMD_AB_H */
