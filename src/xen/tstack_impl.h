/*
 * tstack_impl.h - for the toolstack layer's own files (src/tstack*.c)
 * only: the libxl context behind a struct xvbd_tstack.  Commands never
 * include this; they call the functions of tstack.h.
 */
#ifndef XVBD_TSTACK_IMPL_H
#define XVBD_TSTACK_IMPL_H

#include <stdbool.h>
#include <stdint.h>

#include <libxl.h>
#include <libxlutil.h>

#include "xvbd/xen/tstack.h"

libxl_ctx *xvbd_tstack_libxl(struct xvbd_tstack *ts);
/*
 * What the handle remembers of one domain, for as long as it is open:
 * only what cannot change while the domain lives (its kernel command
 * line).  Xen hands out domids in increasing order, so within one
 * process a domid names one domain.
 */
struct xvbd_tstack_memo {
	bool known;
	uint32_t domid;
	int rc;
	char *cmdline;
};
struct xvbd_tstack_memo *xvbd_tstack_memo(struct xvbd_tstack *ts);
/* What xvbd needs of a parsed xl config (src/tstack_create.c). */
int xvbd_tstack_xlcfg_fill(XLU_Config *cfg, struct xvbd_xlcfg *out);

#endif /* XVBD_TSTACK_IMPL_H */
