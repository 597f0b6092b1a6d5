/*
 * pvpath.h - which disk path a guest uses: PV (a VBD its PV driver
 * connected) or the device model's emulated disk.  Pure: what an xl
 * config asks for, the edit that switches it, and the verdict on a
 * running guest's VBD from the xenbus states.
 *
 * The switch (xl.cfg(5), Linux arch/x86/xen/platform-pci-unplug.c):
 *  - HVM guests find their PV drivers' way to xenstore and grant tables
 *    through the Xen platform PCI device; without it
 *    (xen_platform_pci = 0) the drivers cannot start and the guest
 *    keeps the emulated disks.  libxl's default is on.
 *  - A Linux HVM guest asks the device model to unplug the emulated
 *    disks before blkfront takes over; xen_emul_unplug=never on its
 *    kernel command line keeps them, and blkfront then leaves the disks
 *    alone.  xvbd edits it only for direct kernel boot (kernel=, the
 *    command line in cmdline= or else extra=, as xl reads them).
 *  - PV and PVH guests have no emulated disks: PV is their only path.
 */
#ifndef XVBD_PVPATH_H
#define XVBD_PVPATH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "xvbd/xen/blkif.h"
#include "xvbd/xen/xlcfg_edit.h"

#define XVBD_PV_PLATFORM_KEY	"xen_platform_pci"
#define XVBD_PV_UNPLUG_NEVER	"xen_emul_unplug=never"
/* An HVM disk whose frontend never left Initialising for this long is
 * taken to be on the emulated path (Windows and Linux PV drivers connect
 * early in boot, well within a minute even under emulation). */
#define XVBD_PV_SETTLE_S_DEFAULT	120

enum xvbd_guest_type {
	XVBD_GUEST_UNKNOWN,
	XVBD_GUEST_PV,
	XVBD_GUEST_PVH,
	XVBD_GUEST_HVM,
};

/* "pv", "pvh", "hvm", "unknown". */
const char *xvbd_guest_type_name(enum xvbd_guest_type type);
/*
 * xl's rule (xl_parse.c): type= names a type by any prefix of "hvm",
 * "pv", "pvh", tried in that order; the deprecated builder= by a prefix
 * of "hvm" or "generic" (PV); neither given: PV.  -EINVAL: an unknown
 * name, or builder= contradicting type=.
 */
int xvbd_guest_type_from_xl(const char *type, const char *builder,
			    enum xvbd_guest_type *out);

/* What libxlutil read from a config, or libxl stored for a domain. */
struct xvbd_pv_facts {
	enum xvbd_guest_type type;
	bool platform_set;		/* xen_platform_pci given */
	bool platform_on;		/* its value, else libxl's: on */
	bool kernel_direct;		/* kernel= */
	const char *cmdline_key;	/* "cmdline" if set, else "extra" */
	const char *cmdline;		/* that key's value; NULL: none */
};

/*
 * Does the kernel command line keep the emulated disks (a
 * xen_emul_unplug= word with "never" among its comma-separated values)?
 */
bool xvbd_pv_unplug_never(const char *cmdline);

enum xvbd_pv_expect {
	XVBD_PV_EXPECT_PV,		/* PV, PVH: the only path */
	XVBD_PV_EXPECT_EMULATED,	/* HVM, switched off */
	XVBD_PV_EXPECT_DRIVERS,		/* HVM: PV if it has PV drivers */
};
/* "pv", "emulated", "pv-if-drivers". */
const char *xvbd_pv_expect_name(enum xvbd_pv_expect e);
/* What the facts ask for; *why: a static sentence saying why. */
enum xvbd_pv_expect xvbd_pv_expect(const struct xvbd_pv_facts *f,
				   const char **why);

struct xvbd_pv_want {
	bool on;		/* on: PV drivers; off: the emulated disks */
	bool linux_unplug;	/* also xen_emul_unplug=never (off) / not */
};

struct xvbd_pv_plan {
	struct xvbd_xlcfg_edits edits;
	bool platform_edit;		/* xen_platform_pci is edited ... */
	bool platform_after;		/* ... to this */
	const char *cmdline_key;	/* the command line edited; NULL: not */
	char *cmdline_before, *cmdline_after;	/* expected values */
	bool pv_only;			/* a PV or PVH guest: nothing to do */
};

/*
 * The edits of the config text scan (whose settings libxlutil read as
 * facts) that give want.  No edit when the config already says so.
 * Refused: off for PV and PVH (-EPERM), --linux-unplug without direct
 * kernel boot (-EINVAL), xen_platform_pci set twice (-EEXIST), forms
 * xvbd does not edit (+=, lists, escapes: -EINVAL).
 */
int xvbd_pv_plan(const struct xvbd_xlcfg_scan *scan,
		 const struct xvbd_pv_facts *f, const struct xvbd_pv_want *w,
		 struct xvbd_pv_plan *plan, char *why, size_t why_len);
void xvbd_pv_plan_free(struct xvbd_pv_plan *plan);

/* ---- a running guest's VBD ---- */

enum xvbd_pv_path {
	XVBD_PATH_PV,			/* both sides Connected */
	XVBD_PATH_EMULATED,		/* HVM, frontend never connected */
	XVBD_PATH_NOT_CONNECTED,	/* not (yet) connected */
	XVBD_PATH_UNKNOWN,		/* states missing or invalid */
};
/* "pv", "emulated", "not-connected", "unknown": stable, for records. */
const char *xvbd_pv_path_name(enum xvbd_pv_path path);

struct xvbd_pv_path_in {
	enum xvbd_guest_type type;
	/* Raw xenstore values, NULL if absent.  The frontend's is written
	 * by the guest: parsed strictly, never trusted alone. */
	const char *frontend_state;
	const char *backend_state;
	bool uptime_known;
	uint64_t uptime_s;		/* since the domain was created */
	uint64_t settle_s;		/* XVBD_PV_SETTLE_S_DEFAULT */
	/* HVM: why PV drivers cannot connect at all ("xen_platform_pci is
	 * off"), NULL if nothing in the configuration stops them. */
	const char *pv_blocked;
};

struct xvbd_pv_verdict {
	enum xvbd_pv_path path;
	struct xvbd_opt frontend, backend;	/* parsed states */
	char evidence[224];
};

void xvbd_pv_classify(const struct xvbd_pv_path_in *in,
		      struct xvbd_pv_verdict *v);

#endif /* XVBD_PVPATH_H */
