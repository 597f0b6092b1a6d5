/*
 * cmd_report.h - how a command renders what a layer reports through
 * struct xvbd_report (xvbd/base/report.h): errors as "xvbd: <command>:
 * <what>: <why>", their fixes and progress notes unless -q, details with
 * -v; all on stderr, as they happen.  And the guest a command hands the
 * disk layer (xvbd/disk/disk.h).
 */
#ifndef XVBD_CMD_REPORT_H
#define XVBD_CMD_REPORT_H

#include "xvbd/base/report.h"
#include "xvbd/cmd/cmd.h"
#include "xvbd/disk/disk.h"

/* rep prints for ctx's command. */
void xvbd_cmd_report_init(struct xvbd_ctx *ctx, struct xvbd_report *rep);
/* The printer itself (arg: the struct xvbd_ctx). */
void xvbd_cmd_report_print(void *arg, enum xvbd_say kind, const char *what,
			   const char *text);

/*
 * Connect, look the <Domain> operand spec up (its errors said as
 * xvbd_cmd_domain_lookup says them), and the disk layer's environment
 * (rep printing for ctx's command) and guest.  Exit code.
 */
int xvbd_cmd_disk_domain(struct xvbd_ctx *ctx, const char *spec,
			 struct xvbd_report *rep, struct xvbd_disk_env *env,
			 struct xvbd_disk_dom *dom);

#endif /* XVBD_CMD_REPORT_H */
