/*
 * override_run.h - one run of per-VBD overrides on a paused guest, shared
 * by `start` (guest created paused) and `attach` (running guest paused
 * around the hot-attach):
 *
 *	xvbd_sig_hold() (sig.h)		Ctrl-C held until the unpause
 *	... pause / create paused, add the disks ...
 *	xvbd_ovr_run_apply()		bind to the toolstack's records, wait
 *					for InitWait, one transaction
 *	... unpause (always) ...
 *	xvbd_ovr_run_verify()		Connected, then what the frontend chose
 *	xvbd_ovr_run_verdict()		"applied" / "not applied: ..."
 *	xvbd_ovr_run_free()
 *
 * Nothing here pauses or unpauses: the caller owns the guest's state and
 * must unpause whatever these functions return.
 */
#ifndef XVBD_OVERRIDE_RUN_H
#define XVBD_OVERRIDE_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "xvbd/vbd/override.h"
#include "xvbd/xen/tstack.h"
#include "xvbd/vbd/vbd.h"
#include "xvbd/xen/xs.h"

/* One tuned device, from the overrides to the verdict. */
struct xvbd_ovr_dev {
	struct xvbd_ovr_target target;	/* set: the caller's */
	const struct xvbd_disk *disk;	/* toolstack record (bound) */
	struct xvbd_ovr_result res[XVBD_OVR_NKEYS];
	struct xvbd_vbd_view view;	/* after Connected, if verified */
	bool verified;
	char why[256];			/* device-level failure */
};

/*
 * List domid's disks (*disks, *ndisks: the caller frees them with
 * xvbd_tstack_disks_free, after devs), bind each device to its record
 * (by devid), wait until every backend has probed (InitWait), then write
 * all overrides in one transaction.  On failure why says which device
 * and why, nothing is written, and every device is marked not applied.
 */
int xvbd_ovr_run_apply(struct xvbd_tstack *ts, struct xvbd_xs *xs,
		       uint32_t domid, struct xvbd_ovr_dev *devs, size_t n,
		       struct xvbd_disk **disks, size_t *ndisks,
		       int timeout_ms, char *why, size_t len);

/*
 * After the unpause: wait for each device to connect, then compare what
 * the frontend chose with what was written.  Failures land in the
 * device's results, not in a return value.
 */
void xvbd_ovr_run_verify(struct xvbd_xs *xs, uint32_t domid,
			 struct xvbd_ovr_dev *devs, size_t n, int timeout_ms);

/*
 * "applied", or "not applied: VDEV KEY: why" for the first override that
 * was not.  Returns the count not applied.  only: just that device
 * (NULL: all).
 */
size_t xvbd_ovr_run_verdict(const struct xvbd_ovr_dev *devs, size_t n,
			    const struct xvbd_ovr_dev *only, char *buf,
			    size_t len);

/* Arrays "overrides" (one row per key) and "negotiated" (verified ones). */
void xvbd_ovr_run_render(struct xvbd_out *o, const struct xvbd_ovr_dev *devs,
			 size_t n);

void xvbd_ovr_run_free(struct xvbd_ovr_dev *devs, size_t n);

#endif /* XVBD_OVERRIDE_RUN_H */
