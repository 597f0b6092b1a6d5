/*
 * report.h - the one error carrier of the layers: what a layer has to
 * say (an error, its fix, a progress note, a -v detail) goes to the
 * caller's struct xvbd_report, never to stderr; the command renders it
 * ("xvbd: <command>: <what>: <text>", src/cmd/cmd_report.c), so a
 * command that calls a layer for another one (apply attaching a disk)
 * speaks in its own name and decides what a user sees.
 *
 *	struct xvbd_report rep;
 *	xvbd_report_init(&rep, print_fn, arg);	(print_fn NULL: keep only)
 *	rc = some_layer_call(..., &rep);
 *	if (rc && !print_fn) ... rep.what, rep.why, rep.hint ...
 *
 * The first error is kept (what, why, hint) for callers that word it
 * themselves (apply's plan names the place in the plan); every message
 * also goes to fn as it happens, so that it keeps its order with what
 * libxl prints meanwhile.  Plain libc.
 */
#ifndef XVBD_REPORT_H
#define XVBD_REPORT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

#include "xvbd/base/util.h"

#define XVBD_REPORT_WHAT_MAX	1200
#define XVBD_REPORT_WHY_MAX	1024
#define XVBD_REPORT_HINT_MAX	512

enum xvbd_say {
	XVBD_SAY_ERROR,		/* something failed: "xvbd: cmd: what: why" */
	XVBD_SAY_HINT,		/* the obvious fix of the error before it */
	XVBD_SAY_NOTE,		/* progress a user is told (not with -q) */
	XVBD_SAY_VERBOSE,	/* -v: where the time went, what was chosen */
};

struct xvbd_report {
	/* each message as it is said; NULL: only kept below */
	void (*fn)(void *arg, enum xvbd_say kind, const char *what,
		   const char *text);
	void *arg;
	/* errors said so far, and the first one with its hint */
	unsigned nerrors;
	bool has_what;				/* false: about the call */
	char what[XVBD_REPORT_WHAT_MAX];
	char why[XVBD_REPORT_WHY_MAX];
	char hint[XVBD_REPORT_HINT_MAX];
};

void xvbd_report_init(struct xvbd_report *r,
		      void (*fn)(void *arg, enum xvbd_say kind,
				 const char *what, const char *text),
		      void *arg);
/* Forget what was kept (nerrors 0); fn stays. */
void xvbd_report_clear(struct xvbd_report *r);
/* An error about what (NULL: the call as a whole). */
void xvbd_report_err(struct xvbd_report *r, const char *what,
		     const char *fmt, ...) XVBD_PRINTF(3, 4);
/* The fix for the error just said (kept with the first one). */
void xvbd_report_hint(struct xvbd_report *r, const char *fmt, ...)
	XVBD_PRINTF(2, 3);
/* Progress (NOTE) or detail (VERBOSE) about what (NULL: none). */
void xvbd_report_say(struct xvbd_report *r, enum xvbd_say kind,
		     const char *what, const char *fmt, ...) XVBD_PRINTF(4, 5);

#endif /* XVBD_REPORT_H */
