/*
 * xs.c - libxenstore wrapper (the paths themselves: src/xs_path.c).
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <xenstore.h>

#include "xvbd/base/sig.h"
#include "xvbd/xen/xs.h"

/* Commits that lose a race with another writer are retried this often. */
#define XS_TXN_RETRIES	16
#define XS_KEY_MAX	256
/* Longest poll() of a watch wait between looks at the interrupt flag */
#define WAIT_SLICE_MS	250

struct xvbd_xs {
	struct xs_handle *h;
	bool writable;
};

struct xvbd_xs_txn {
	struct xvbd_xs *xs;
	xs_transaction_t t;
};

struct xvbd_xs *xvbd_xs_open(bool writable)
{
	struct xvbd_xs *xs = calloc(1, sizeof(*xs));

	if (!xs)
		return NULL;
	xs->h = xs_open(0);
	if (!xs->h) {
		int saved = errno;

		free(xs);
		errno = saved;
		return NULL;
	}
	xs->writable = writable;
	return xs;
}

void xvbd_xs_close(struct xvbd_xs *xs)
{
	if (!xs)
		return;
	xs_close(xs->h);
	free(xs);
}

static char *read_in(struct xvbd_xs *xs, xs_transaction_t t,
		     const char *path)
{
	unsigned int len;
	char *value = xs_read(xs->h, t, path, &len);

	/* xs_read NUL-terminates; a value with embedded NULs is cut there */
	return value;
}

char *xvbd_xs_read(struct xvbd_xs *xs, const char *path)
{
	return read_in(xs, XBT_NULL, path);
}

int xvbd_xs_read_uint(struct xvbd_xs *xs, const char *path, uint64_t max,
		      uint64_t *out)
{
	char *value = xvbd_xs_read(xs, path);
	int rc;

	if (!value)
		return errno ? -errno : -ENOENT;
	rc = xvbd_parse_uint(value, max, out);
	free(value);
	return rc;
}

char *xvbd_xs_read_dir_key(struct xvbd_xs *xs, const char *dir,
			   const char *key)
{
	char *path = xvbd_xs_path_printf("%s/%s", dir, key), *value;
	int saved;

	if (!path)
		return NULL;
	value = xvbd_xs_read(xs, path);
	saved = errno;
	free(path);
	errno = saved;
	return value;
}

int xvbd_xs_read_dir_uint(struct xvbd_xs *xs, const char *dir,
			  const char *key, uint64_t max, uint64_t *out)
{
	char *path = xvbd_xs_path_printf("%s/%s", dir, key);
	int rc;

	if (!path)
		return -ENOMEM;
	rc = xvbd_xs_read_uint(xs, path, max, out);
	free(path);
	return rc;
}

/* Reject names a sane xenstore would never list back to us. */
static bool name_ok(const char *name)
{
	return *name && strlen(name) < XS_KEY_MAX && !strchr(name, '/') &&
	       strcmp(name, ".") && strcmp(name, "..");
}

/* One frontend domain's vbd backends (root/fe/devid): 1 found, 0, -errno. */
static int phys_under(struct xvbd_xs *xs, const char *dir, const char *phys,
		      const char *except, char *who, size_t who_len)
{
	unsigned int n = 0, i;
	char **devs = xs_directory(xs->h, XBT_NULL, dir, &n);
	int rc = 0;

	for (i = 0; devs && i < n && !rc; i++) {
		char *be, *val;

		if (!name_ok(devs[i]))
			continue;
		be = xvbd_xs_path_printf("%s/%s", dir, devs[i]);
		if (!be) {
			rc = -ENOMEM;
			break;
		}
		val = xvbd_xs_read_dir_key(xs, be, "physical-device");
		if (val && !strcmp(val, phys) && (!except || strcmp(be, except))) {
			snprintf(who, who_len, "%s", be);
			rc = 1;
		}
		free(val);
		free(be);
	}
	free(devs);
	return rc;
}

int xvbd_xs_phys_published(struct xvbd_xs *xs, const char *phys,
			   const char *except, char *who, size_t who_len)
{
	char *root = xvbd_xs_path_backend_root(0, "vbd"), *dir;
	unsigned int n = 0, i;
	char **fes;
	int rc = 0;

	if (!root)
		return -ENOMEM;
	errno = 0;
	fes = xs_directory(xs->h, XBT_NULL, root, &n);
	if (!fes) {
		rc = errno && errno != ENOENT ? -errno : 0;
		free(root);
		return rc;
	}
	for (i = 0; i < n && !rc; i++) {
		if (!name_ok(fes[i]))
			continue;
		dir = xvbd_xs_path_printf("%s/%s", root, fes[i]);
		rc = dir ? phys_under(xs, dir, phys, except, who, who_len) :
			   -ENOMEM;
		free(dir);
	}
	free(fes);
	free(root);
	return rc;
}

static int read_tree_at(struct xvbd_xs *xs, const char *dir,
			const char *prefix, unsigned depth, size_t max_keys,
			struct xvbd_kvmap *map)
{
	unsigned int n = 0, i;
	char **names = xs_directory(xs->h, XBT_NULL, dir, &n);
	char *path = NULL, *key = NULL, *value = NULL;
	int rc = 0, sub;

	if (!names)
		return -(errno ? errno : ENOENT);
	for (i = 0; i < n; i++) {
		unsigned int nkids = 0;
		char **kids = NULL;

		if (!name_ok(names[i]))
			continue;
		if (map->len >= max_keys) {
			rc = 1;
			goto out;
		}
		path = xvbd_xs_path_printf("%s/%s", dir, names[i]);
		key = xvbd_xs_path_printf("%s%s", prefix, names[i]);
		if (!path || !key) {
			rc = -ENOMEM;
			goto out;
		}
		value = read_in(xs, XBT_NULL, path);
		if (depth > 0)
			kids = xs_directory(xs->h, XBT_NULL, path, &nkids);
		free(kids);
		/* A directory node (e.g. queue-0) has an empty value. */
		if (value && (*value || nkids == 0)) {
			rc = xvbd_kvmap_set(map, key, value);
			if (rc)
				goto out;
		}
		if (nkids > 0) {
			char *sub_prefix = xvbd_xs_path_printf("%s/", key);

			if (!sub_prefix) {
				rc = -ENOMEM;
				goto out;
			}
			sub = read_tree_at(xs, path, sub_prefix, depth - 1,
					   max_keys, map);
			free(sub_prefix);
			if (sub == 1 || (sub < 0 && sub != -ENOENT)) {
				rc = sub;
				goto out;
			}
		}
		free(path);
		free(key);
		free(value);
		path = key = value = NULL;
	}
out:
	free(path);
	free(key);
	free(value);
	free(names);
	return rc;
}

int xvbd_xs_read_tree(struct xvbd_xs *xs, const char *dir, unsigned depth,
		      size_t max_keys, struct xvbd_kvmap *map)
{
	int rc = read_tree_at(xs, dir, "", depth, max_keys, map);

	xvbd_kvmap_sort(map);
	return rc;
}

int xvbd_xs_write(struct xvbd_xs *xs, const char *path, const char *value)
{
	if (!xs->writable)
		return -EROFS;
	if (!xs_write(xs->h, XBT_NULL, path, value, strlen(value)))
		return -(errno ? errno : EIO);
	return 0;
}

char *xvbd_xs_txn_read(struct xvbd_xs_txn *txn, const char *path)
{
	return read_in(txn->xs, txn->t, path);
}

int xvbd_xs_txn_write(struct xvbd_xs_txn *txn, const char *path,
		      const char *value)
{
	if (!xs_write(txn->xs->h, txn->t, path, value, strlen(value)))
		return -(errno ? errno : EIO);
	return 0;
}

int xvbd_xs_txn_run(struct xvbd_xs *xs, xvbd_xs_txn_fn fn, void *arg)
{
	struct xvbd_xs_txn txn = { .xs = xs };
	unsigned attempt;
	int rc;

	if (!xs->writable)
		return -EROFS;
	for (attempt = 0; attempt < XS_TXN_RETRIES; attempt++) {
		txn.t = xs_transaction_start(xs->h);
		if (txn.t == XBT_NULL)
			return -(errno ? errno : EIO);
		rc = fn(&txn, arg);
		if (rc) {
			xs_transaction_end(xs->h, txn.t, true);
			return rc;
		}
		if (xs_transaction_end(xs->h, txn.t, false))
			return 0;
		if (errno != EAGAIN)
			return -(errno ? errno : EIO);
		/* Someone else committed first: back off a little, retry. */
		usleep(1000u << (attempt < 6 ? attempt : 6));
	}
	return -EAGAIN;
}

int xvbd_xs_watch_wait(struct xvbd_xs *xs, const char *path, int timeout_ms,
		       bool (*done)(struct xvbd_xs *xs, void *arg), void *arg)
{
	static const char token[] = "xvbd";
	int64_t deadline = xvbd_now_ms() + timeout_ms;
	struct pollfd pfd;
	int rc;

	if (!xs_watch(xs->h, path, token))
		return -(errno ? errno : EIO);
	pfd.fd = xs_fileno(xs->h);
	pfd.events = POLLIN;
	for (;;) {
		int64_t left;
		char **event;

		if (done(xs, arg)) {
			rc = 0;
			break;
		}
		/* Ctrl-C: the caller cleans up (xvbd/sig.h). */
		if (xvbd_interrupted()) {
			rc = -EINTR;
			break;
		}
		left = deadline - xvbd_now_ms();
		if (left <= 0) {
			rc = -ETIMEDOUT;
			break;
		}
		/* Slices: a signal between the check and poll() is seen at
		 * the next one. */
		rc = poll(&pfd, 1, left < WAIT_SLICE_MS ? (int)left :
			  WAIT_SLICE_MS);
		if (rc < 0 && errno != EINTR) {
			rc = -errno;
			break;
		}
		while ((event = xs_check_watch(xs->h)))
			free(event);
	}
	xs_unwatch(xs->h, path, token);
	return rc;
}

/* ---- standing watch ---- */

#define STANDING_TOKEN	"xvbd-standing"

/*
 * Drain queued events.  With libxenstore's reader thread (started by
 * xs_watch), xs_check_watch() only looks at an in-memory queue: no
 * system call while nothing arrived.
 */
bool xvbd_xs_watch_drain(struct xvbd_xs *xs,
			 void (*fn)(const char *path, void *arg), void *arg)
{
	bool any = false;
	char **event;

	while ((event = xs_check_watch(xs->h))) {
		any = true;
		if (fn)
			fn(event[XS_WATCH_PATH], arg);
		free(event);
	}
	return any;
}

bool xvbd_xs_watch_pending(struct xvbd_xs *xs)
{
	return xvbd_xs_watch_drain(xs, NULL, NULL);
}

int xvbd_xs_watch_add(struct xvbd_xs *xs, const char *path, int timeout_ms)
{
	struct pollfd pfd;

	if (!xs_watch(xs->h, path, STANDING_TOKEN))
		return -(errno ? errno : EIO);
	/* xenstored fires a new watch once at once: eat that event. */
	pfd.fd = xs_fileno(xs->h);
	pfd.events = POLLIN;
	if (pfd.fd >= 0 && poll(&pfd, 1, timeout_ms) > 0)
		xvbd_xs_watch_pending(xs);
	return 0;
}

void xvbd_xs_watch_remove(struct xvbd_xs *xs, const char *path)
{
	xs_unwatch(xs->h, path, STANDING_TOKEN);
}
