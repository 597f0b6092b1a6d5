/*
 * xs.h - the libxenstore wrapper.  Every xenstore path template of xvbd
 * is spelled in src/xs_path.c (pure: no connection) and nowhere else.
 *
 * A handle opened read-only (writable == false) refuses every write and
 * transaction with -EROFS: read-only commands cannot write by mistake.
 * Functions return 0 / negative errno unless documented otherwise.
 */
#ifndef XVBD_XS_H
#define XVBD_XS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "xvbd/base/util.h"

struct xvbd_xs;
struct xvbd_xs_txn;

struct xvbd_xs *xvbd_xs_open(bool writable);	/* NULL + errno */
void xvbd_xs_close(struct xvbd_xs *xs);		/* NULL ok */

/* malloc'd value, or NULL + errno (ENOENT when absent). */
char *xvbd_xs_read(struct xvbd_xs *xs, const char *path);
/* Strict decimal, <= max: 0, -ENOENT, -EINVAL, -ERANGE. */
int xvbd_xs_read_uint(struct xvbd_xs *xs, const char *path, uint64_t max,
		      uint64_t *out);
/*
 * Snapshot of a directory into map, keys relative to dir ("state",
 * "queue-0/ring-ref0"), descending depth levels of subdirectories, at
 * most max_keys keys.  Returns 0, 1 if truncated, or -errno.
 */
int xvbd_xs_read_tree(struct xvbd_xs *xs, const char *dir, unsigned depth,
		      size_t max_keys, struct xvbd_kvmap *map);

/*
 * One key of a directory (dir "/" key): the value, malloc'd, or NULL +
 * errno; or a strict decimal <= max (0, -ENOENT, -EINVAL, -ERANGE).
 */
char *xvbd_xs_read_dir_key(struct xvbd_xs *xs, const char *dir,
			   const char *key);
int xvbd_xs_read_dir_uint(struct xvbd_xs *xs, const char *dir,
			  const char *key, uint64_t max, uint64_t *out);

/*
 * Does a dom0 vbd backend other than except (a backend path, or NULL)
 * publish physical-device phys ("7:3")?  1 (its path in who), 0, or
 * -errno.  A loop device one backend published is that backend's, even
 * when a stale journal entry of another names it.
 */
int xvbd_xs_phys_published(struct xvbd_xs *xs, const char *phys,
			   const char *except, char *who, size_t who_len);

/* One key, outside any transaction. */
int xvbd_xs_write(struct xvbd_xs *xs, const char *path, const char *value);

/*
 * Run fn inside one transaction; retried (bounded) when the commit
 * fails with EAGAIN.  fn returns 0 to commit, non-zero to abort (that
 * value is returned).  fn may run several times: no side effects there.
 */
typedef int (*xvbd_xs_txn_fn)(struct xvbd_xs_txn *txn, void *arg);
int xvbd_xs_txn_run(struct xvbd_xs *xs, xvbd_xs_txn_fn fn, void *arg);
char *xvbd_xs_txn_read(struct xvbd_xs_txn *txn, const char *path);
int xvbd_xs_txn_write(struct xvbd_xs_txn *txn, const char *path,
		      const char *value);

/*
 * Watch path and wait until done(xs, arg) returns true, re-checked after
 * every watch event, for at most timeout_ms.  0, -ETIMEDOUT or -errno;
 * -EINTR as soon as the command is interrupted (xvbd/sig.h).
 */
int xvbd_xs_watch_wait(struct xvbd_xs *xs, const char *path, int timeout_ms,
		       bool (*done)(struct xvbd_xs *xs, void *arg), void *arg);

/* ---- paths (malloc'd; NULL on ENOMEM) ---- */

/* A new string from a format (every path is built through this). */
char *xvbd_xs_path_printf(const char *fmt, ...) XVBD_PRINTF(1, 2);

/* A parsed backend path: /local/domain/<be>/backend/<kind>/<fe>/<devid> */
struct xvbd_xs_be_path {
	uint32_t be_domid;
	char kind[16];		/* vbd, qdisk, vbd3 */
	uint32_t fe_domid;
	uint32_t devid;
};

int xvbd_xs_parse_backend_path(const char *path, struct xvbd_xs_be_path *p);
char *xvbd_xs_path_backend(const struct xvbd_xs_be_path *p);
/* Where the backend driver reports errors (xenbus_dev_error). */
char *xvbd_xs_path_backend_error(const struct xvbd_xs_be_path *p);
char *xvbd_xs_path_frontend_vbd(uint32_t fe_domid, uint32_t devid);
char *xvbd_xs_path_libxl_vbd(uint32_t domid, uint32_t devid);
/* /local/domain/<be>/backend/<kind>: all backends of that kind. */
char *xvbd_xs_path_backend_root(uint32_t be_domid, const char *kind);
/* One key of a backend directory ("physical-device"). */
char *xvbd_xs_path_backend_key(const struct xvbd_xs_be_path *p,
			       const char *key);

/*
 * The backend directory libxl hands a hotplug script in XENBUS_PATH:
 * "backend/<kind>/<fe>/<devid>", relative to the home of the domain the
 * script runs in (xenstored resolves it, as for xenstore-read in Xen's
 * scripts).  be_domid is not part of it and is set to 0.
 */
int xvbd_xs_parse_hotplug_path(const char *path, struct xvbd_xs_be_path *p);
/* One key below it, in the same relative form. */
char *xvbd_xs_path_hotplug_key(const struct xvbd_xs_be_path *p,
			       const char *key);

/*
 * A standing watch on path and below (one per handle).  Events queue
 * inside libxenstore; xvbd_xs_watch_pending() drains them and says
 * whether any arrived since the last call, with no system call when none
 * did.  The event xenstored sends when a watch is set is drained by
 * xvbd_xs_watch_add() (waiting at most timeout_ms for it).
 */
int xvbd_xs_watch_add(struct xvbd_xs *xs, const char *path, int timeout_ms);
bool xvbd_xs_watch_pending(struct xvbd_xs *xs);
/* The same, calling fn with each event's path (NULL fn: just drain). */
bool xvbd_xs_watch_drain(struct xvbd_xs *xs,
			 void (*fn)(const char *path, void *arg), void *arg);
void xvbd_xs_watch_remove(struct xvbd_xs *xs, const char *path);

#endif /* XVBD_XS_H */
