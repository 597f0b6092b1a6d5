/*
 * tstack_impl.h - for the toolstack layer's own files (src/tstack*.c)
 * only: the libxl context behind a struct xvbd_tstack.  Commands never
 * include this; they call the functions of tstack.h.
 */
#ifndef XVBD_TSTACK_IMPL_H
#define XVBD_TSTACK_IMPL_H

#include <libxl.h>
#include <libxlutil.h>

#include "xvbd/xen/tstack.h"

libxl_ctx *xvbd_tstack_libxl(struct xvbd_tstack *ts);
/* What xvbd needs of a parsed xl config (src/tstack_create.c). */
int xvbd_tstack_xlcfg_fill(XLU_Config *cfg, struct xvbd_xlcfg *out);

#endif /* XVBD_TSTACK_IMPL_H */
