/*
 * attach.h - xvbd attach's work for another command (apply) that holds
 * the guest's domain lock (xvbd/base/lock.h) for longer than one attach:
 * the same arguments, checks, messages and cleanup as the command line
 * "xvbd attach ARGS...", without taking the lock again (an flock of a
 * second descriptor in the same process would wait for the first).
 */
#ifndef XVBD_CMD_ATTACH_H
#define XVBD_CMD_ATTACH_H

struct xvbd_ctx;

/*
 * argv as attach's own (options, then <Domain>; argv[-1] must exist, as
 * for any handler).  Renders attach's rows into ctx->out; returns the
 * exit code.  The caller must hold the domain's lock.
 */
int xvbd_attach_locked(struct xvbd_ctx *ctx, int argc, char **argv);

#endif
