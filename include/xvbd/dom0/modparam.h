/*
 * modparam.h - kernel module parameters of dom0's block backend
 * (/sys/module/xen_blkback/parameters), the devices bound to its driver,
 * reloading the module and the modprobe.d line that persists values.
 *
 * Every sysfs and modprobe.d path of this layer is spelled in
 * src/modparam.c.  The *_at() variants take the directory explicitly so
 * unit tests can run them on a temporary tree.
 * Functions return 0 / negative errno.
 */
#ifndef XVBD_MODPARAM_H
#define XVBD_MODPARAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The module as sysfs names it, and as modprobe(8) is asked for it. */
#define XVBD_BLKBACK_MODULE	"xen_blkback"

/* XENBUS_MAX_RING_GRANT_ORDER: no backend and no frontend goes beyond. */
#define XVBD_BLKBACK_RING_ORDER_MAX	4

enum xvbd_modparam_type {
	XVBD_MP_UINT,		/* decimal */
	XVBD_MP_BOOL,		/* sysfs shows Y/N; 0/1/Y/N accepted */
};

/* What xvbd knows about a parameter of Linux 6.1 xen-blkback. */
struct xvbd_modparam_info {
	const char *name;
	enum xvbd_modparam_type type;
	uint64_t min, max;
	const char *meaning;
};

/* NULL when xvbd does not know the parameter. */
const struct xvbd_modparam_info *xvbd_modparam_info(const char *name);
extern const struct xvbd_modparam_info xvbd_blkback_params[];
extern const size_t xvbd_blkback_nparams;

/* One parameter as sysfs shows it. */
struct xvbd_modparam {
	char *name;
	char *value;		/* trailing newline stripped */
	bool writable;		/* mode has the owner write bit (0644) */
};

struct xvbd_modparams {
	struct xvbd_modparam *items;	/* sorted by name */
	size_t n;
};

/* -ENOENT: the module is not loaded. */
int xvbd_modparam_list(const char *module, struct xvbd_modparams *out);
int xvbd_modparam_list_at(const char *dir, struct xvbd_modparams *out);
void xvbd_modparams_free(struct xvbd_modparams *params);
const struct xvbd_modparam *xvbd_modparam_find(
	const struct xvbd_modparams *params, const char *name);
/* Value of a decimal parameter: 0, -ENOENT, -EINVAL. */
int xvbd_modparam_get_uint(const struct xvbd_modparams *params,
			   const char *name, uint64_t *out);
/* Value of a bool parameter ("Y"/"N", also "1"/"0"). */
int xvbd_modparam_get_bool(const struct xvbd_modparams *params,
			   const char *name, bool *out);

/*
 * Check value against xvbd_modparam_info (type, range) and put the
 * spelling to write in canon (bools become Y/N).  -ENOENT unknown name,
 * -EINVAL malformed, -ERANGE out of range.
 */
int xvbd_modparam_check(const char *name, const char *value, char *canon,
			size_t len);

/* Write a runtime-writable parameter (sysfs); -EACCES if read-only. */
int xvbd_modparam_write(const char *module, const char *name,
			const char *value);
int xvbd_modparam_write_at(const char *dir, const char *name,
			   const char *value);

/*
 * Devices bound to a xen-backend driver ("vbd" for blkback), e.g.
 * "vbd-1-51712": the devices that keep the module from being reloaded.
 * *names is a malloc'd array of malloc'd strings, sorted.
 */
int xvbd_modparam_bound_devices(const char *driver, char ***names,
				size_t *n);
int xvbd_modparam_bound_devices_at(const char *dir, char ***names,
				   size_t *n);
void xvbd_modparam_names_free(char **names, size_t n);
/* "vbd-1-51712" -> 1, 51712; -EINVAL otherwise. */
int xvbd_modparam_parse_vbd_name(const char *name, uint32_t *domid,
				 uint32_t *devid);

/*
 * modprobe -r module, then modprobe module NAME=VALUE...  If loading
 * with the new values fails, the module is loaded again with restore[]
 * (its values before).  *step says which step failed ("unload", "load",
 * "load (restored the old values)", "load (restore failed too)").
 */
int xvbd_modparam_reload(const char *module, char *const params[],
			 char *const restore[], const char **step);

/*
 * The modprobe.d file xvbd writes for module (one "options" line).
 * Existing NAME=VALUE items of that file are kept unless params[]
 * replaces them.  *path_out (malloc'd) names the file written.
 */
int xvbd_modparam_persist(const char *module, char *const params[],
			  char **path_out);
int xvbd_modparam_persist_at(const char *dir, const char *module,
			     char *const params[], char **path_out);
/* The file persist would write (malloc'd), for -N. */
char *xvbd_modparam_persist_path(const char *module);

#endif /* XVBD_MODPARAM_H */
