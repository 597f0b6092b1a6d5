/*
 * cmd_report.h - how a command renders what a layer reports through
 * struct xvbd_report (xvbd/base/report.h): errors as "xvbd: <command>:
 * <what>: <why>", their fixes and progress notes unless -q, details with
 * -v; all on stderr, as they happen.
 */
#ifndef XVBD_CMD_REPORT_H
#define XVBD_CMD_REPORT_H

#include "xvbd/base/report.h"
#include "xvbd/cmd/cmd.h"

/* rep prints for ctx's command. */
void xvbd_cmd_report_init(struct xvbd_ctx *ctx, struct xvbd_report *rep);
/* The printer itself (arg: the struct xvbd_ctx). */
void xvbd_cmd_report_print(void *arg, enum xvbd_say kind, const char *what,
			   const char *text);

#endif /* XVBD_CMD_REPORT_H */
