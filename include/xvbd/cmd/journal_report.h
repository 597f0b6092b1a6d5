/*
 * journal_report.h - what killed commands left, named once libxl is open.
 */
#ifndef XVBD_JOURNAL_REPORT_H
#define XVBD_JOURNAL_REPORT_H

struct xvbd_ctx;

/*
 * The journals of killed commands (journal.h): what they left, named on
 * stderr with the command that removes it.  Called by xvbd_cmd_connect
 * once libxl is open.
 */
void xvbd_journal_report(struct xvbd_ctx *ctx);
#endif /* XVBD_JOURNAL_REPORT_H */
