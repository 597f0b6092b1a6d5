/*
 * tstack.h - the toolstack: libxl context, domain lookup, disk records.
 *
 * Security rule: a VBD's backend path comes from libxl's own record
 * (/libxl/<domid>/device/vbd/<devid>/backend, dom0-only), never from
 * the guest-writable frontend "backend" key.
 * Functions return 0 / negative errno.
 */
#ifndef XVBD_TSTACK_H
#define XVBD_TSTACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct xvbd_tstack;

/* verbosity 0: XTL_ERROR; 1 warnings; 2 info; 3+ debug.  NULL on error. */
struct xvbd_tstack *xvbd_tstack_open(int verbosity);
void xvbd_tstack_close(struct xvbd_tstack *ts);	/* NULL ok */

/*
 * Domain by name or decimal id.  -EINVAL: given as a path (contains
 * '/'), a usage error; -ENOENT: no such domain.
 * *name is malloc'd (the domain's name, or the id if it has none).
 */
int xvbd_tstack_domain_lookup(struct xvbd_tstack *ts, const char *spec,
			      uint32_t *domid, char **name);
/* The "why" for a lookup error, and its exit code (2 for -EINVAL). */
const char *xvbd_tstack_lookup_why(int err);
int xvbd_tstack_lookup_exit(int err);
/* All running domains, ascending domid; *domids malloc'd. */
int xvbd_tstack_domains(struct xvbd_tstack *ts, uint32_t **domids,
			size_t *n);

/* One disk as the toolstack recorded it. */
struct xvbd_disk {
	char *vdev;		/* as configured ("xvda") */
	uint32_t devid;
	uint32_t backend_domid;
	char *backend_path;	/* libxl record; NULL if unavailable */
	char *frontend_path;
	char *target;		/* pdev_path: the "params" given to libxl */
	bool readwrite;
};

int xvbd_tstack_disks(struct xvbd_tstack *ts, uint32_t domid,
		      struct xvbd_disk **disks, size_t *n);
void xvbd_tstack_disks_free(struct xvbd_disk *disks, size_t n);

#endif /* XVBD_TSTACK_H */
