/*
 * guest_start.h - create a guest the way `xvbd start` does, for `start`
 * itself and for `ab run` (a fresh guest per run):
 *
 *	xvbd_start_prepare()	read the xl config, check the --vbd overrides
 *				against it and dom0's blkback, the guest's
 *				kernel command line (--guest-limits); connects
 *	xvbd_start_run()	xl create -p, overrides in the paused window,
 *				unpause, wait for Connected, verify
 *	xvbd_start_result_free(), xvbd_start_plan_free()
 *
 * Errors are printed under the calling command's name; functions return
 * the command's exit code (XVBD_EXIT_*).
 */
#ifndef XVBD_GUEST_START_H
#define XVBD_GUEST_START_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "xvbd/cmd/cmd.h"
#include "xvbd/dom0/modparam.h"
#include "xvbd/vbd/override.h"
#include "xvbd/vbd/override_run.h"

#define XVBD_START_MAX_DEVS	16

struct xvbd_start_req {
	const char *cfg_path;
	struct xvbd_ovr_set *sets;	/* nsets, owned by the caller */
	size_t nsets;
	bool guest_limits;
	int timeout_s;
	/*
	 * ab run: the config read once, into a private copy every run is
	 * created from (an edit of the file mid-experiment changes nothing),
	 * with a guest that never comes back: on_poweroff destroy, and
	 * on_reboot, on_watchdog, on_crash, on_soft_reset preserve (the
	 * domain stays, shut down, with its reason, until the run's end
	 * destroys it).
	 */
	bool pin;
};

struct xvbd_start_plan {
	const char *cfg_path;	/* the request's */
	struct xvbd_xlcfg cfg;
	bool have_cfg;
	struct xvbd_modparams mp;
	const char *cmd_key;	/* "extra"/"cmdline" edited, or NULL */
	char *cmdline;		/* the edited kernel command line */
	char *tmp_cfg;		/* private config copy with it */
	char *pin_cfg;		/* req->pin: the private copy */
	char cfg_sha256[65];	/* req->pin: of the file's bytes as read */
};

struct xvbd_start_result {
	uint32_t domid;
	bool created;		/* the domain exists (running) */
	struct xvbd_ovr_dev devs[XVBD_START_MAX_DEVS];
	size_t ndevs;
	struct xvbd_disk *disks;
	size_t ndisks;
	size_t not_applied;
	char verdict[320];
};

/*
 * Everything short of creating the guest: exit code; on success the plan
 * holds the config and what to create.  A domain of the config's name
 * must not exist.
 */
int xvbd_start_prepare(struct xvbd_ctx *ctx, const struct xvbd_start_req *req,
		       struct xvbd_start_plan *plan);
/* xl create -p (through the private copy when there is one). */
const char *xvbd_start_plan_cfg(const struct xvbd_start_plan *plan);
/*
 * Create, override, unpause, verify.  On return with res->created the
 * guest runs (whatever the exit code): the caller owns it.  Signals are
 * held from the creation to the unpause; one that arrived in that window
 * ends the run with XVBD_EXIT_FAIL after the unpause.
 */
int xvbd_start_run(struct xvbd_ctx *ctx, const struct xvbd_start_req *req,
		   const struct xvbd_start_plan *plan,
		   struct xvbd_start_result *res);
void xvbd_start_result_free(struct xvbd_start_result *res);
void xvbd_start_plan_free(struct xvbd_start_plan *plan);

#endif /* XVBD_GUEST_START_H */
