/*
 * modparam.c - xen_blkback module parameters, bound devices, reload and
 * persistence.  The only place these sysfs and modprobe.d paths live.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "xvbd/base/journal.h"
#include "xvbd/dom0/modparam.h"
#include "xvbd/base/sig.h"
#include "xvbd/base/spawn.h"
#include "xvbd/base/util.h"

#define SYS_MODULE_PARAMS_FMT	"/sys/module/%s/parameters"
#define SYS_BACKEND_DRIVER_FMT	"/sys/bus/xen-backend/drivers/%s"
#define MODPROBE_D		"/etc/modprobe.d"
#define PERSIST_FILE_FMT	"%s/xvbd-%s.conf"
#define PARAM_VALUE_MAX		256
#define PERSIST_ITEMS_MAX	64
#define SYS_DIR_MAX		128	/* the two formats with a name_ok() name */

/* Linux 6.1 drivers/block/xen-blkback/blkback.c and xenbus.c. */
const struct xvbd_modparam_info xvbd_blkback_params[] = {
	{ "buffer_squeeze_duration_ms", XVBD_MP_UINT, 0, UINT32_MAX,
	  "how long free page buffers are squeezed after memory pressure" },
	{ "feature_persistent", XVBD_MP_BOOL, 0, 1,
	  "offer persistent grants (feature-persistent) at connect" },
	{ "log_stats", XVBD_MP_UINT, 0, INT32_MAX,
	  "print per-device request statistics to the kernel log" },
	{ "max_buffer_pages", XVBD_MP_UINT, 0, INT32_MAX,
	  "free pages each backend thread keeps for reuse" },
	{ "max_persistent_grants", XVBD_MP_UINT, 0, INT32_MAX,
	  "persistent grants a backend maps at most per ring" },
	{ "max_queues", XVBD_MP_UINT, 0, UINT32_MAX,
	  "multi-queue-max-queues offered at probe (0: one per dom0 CPU)" },
	{ "max_ring_page_order", XVBD_MP_UINT, 0, XVBD_BLKBACK_RING_ORDER_MAX,
	  "max-ring-page-order offered at probe (read-only after load)" },
	{ "persistent_grant_unused_seconds", XVBD_MP_UINT, 0, UINT32_MAX,
	  "unused persistent grants are unmapped after this time" },
};
const size_t xvbd_blkback_nparams =
	sizeof(xvbd_blkback_params) / sizeof(xvbd_blkback_params[0]);

const struct xvbd_modparam_info *xvbd_modparam_info(const char *name)
{
	size_t i;

	for (i = 0; i < xvbd_blkback_nparams; i++)
		if (!strcmp(xvbd_blkback_params[i].name, name))
			return &xvbd_blkback_params[i];
	return NULL;
}

/* Parameter and device names: what sysfs and modprobe.d can carry. */
static bool name_ok(const char *name)
{
	size_t i;

	if (!*name || strlen(name) > 64)
		return false;
	for (i = 0; name[i]; i++)
		if (!((name[i] >= 'a' && name[i] <= 'z') ||
		      (name[i] >= '0' && name[i] <= '9') || name[i] == '_' ||
		      name[i] == '-'))
			return false;
	return true;
}

/* sysfs directories of a module's parameters and of a backend driver. */
static int params_dir(const char *module, char *buf, size_t len)
{
	if (!name_ok(module))
		return -EINVAL;
	snprintf(buf, len, SYS_MODULE_PARAMS_FMT, module);
	return 0;
}

static int driver_dir(const char *driver, char *buf, size_t len)
{
	if (!name_ok(driver))
		return -EINVAL;
	snprintf(buf, len, SYS_BACKEND_DRIVER_FMT, driver);
	return 0;
}

/* items (room for *cap of size bytes) grown to hold items[n]; NULL: ENOMEM */
static void *grow(void *items, size_t n, size_t *cap, size_t size)
{
	size_t ncap;
	void *grown;

	if (n < *cap)
		return items;
	ncap = *cap ? *cap * 2 : 16;
	grown = reallocarray(items, ncap, size);
	if (grown)
		*cap = ncap;
	return grown;
}

static int read_small(int dirfd, const char *name, char **out)
{
	char buf[PARAM_VALUE_MAX + 1];
	ssize_t n;
	int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	n = read(fd, buf, PARAM_VALUE_MAX);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	*out = strdup(buf);
	return *out ? 0 : -ENOMEM;
}

static int cmp_param(const void *a, const void *b)
{
	return strcmp(((const struct xvbd_modparam *)a)->name,
		      ((const struct xvbd_modparam *)b)->name);
}

void xvbd_modparams_free(struct xvbd_modparams *params)
{
	size_t i;

	if (!params)
		return;
	for (i = 0; i < params->n; i++) {
		free(params->items[i].name);
		free(params->items[i].value);
	}
	free(params->items);
	params->items = NULL;
	params->n = 0;
}

int xvbd_modparam_list_at(const char *dir, struct xvbd_modparams *out)
{
	struct xvbd_modparams got = { 0 };
	struct dirent *de;
	size_t cap = 0;
	int rc = 0, dfd;
	DIR *d;

	d = opendir(dir);
	if (!d)
		return -errno;
	dfd = dirfd(d);
	while ((de = readdir(d))) {
		struct xvbd_modparam *p;
		struct stat st;
		void *grown;

		if (!name_ok(de->d_name))
			continue;
		if (fstatat(dfd, de->d_name, &st, 0) || !S_ISREG(st.st_mode))
			continue;
		grown = grow(got.items, got.n, &cap, sizeof(*got.items));
		if (!grown) {
			rc = -ENOMEM;
			goto out;
		}
		got.items = grown;
		p = &got.items[got.n];
		memset(p, 0, sizeof(*p));
		p->writable = st.st_mode & S_IWUSR;
		/* 0200 parameters exist in other modules: skip unreadable */
		if (!(st.st_mode & S_IRUSR))
			continue;
		p->name = strdup(de->d_name);
		if (!p->name) {
			rc = -ENOMEM;
			goto out;
		}
		got.n++;
		rc = read_small(dfd, de->d_name, &p->value);
		if (rc)
			goto out;
	}
	if (got.n)
		qsort(got.items, got.n, sizeof(*got.items), cmp_param);
	*out = got;
	got.items = NULL;
	got.n = 0;
out:
	closedir(d);
	xvbd_modparams_free(&got);
	return rc;
}

int xvbd_modparam_list(const char *module, struct xvbd_modparams *out)
{
	char dir[SYS_DIR_MAX];
	int rc = params_dir(module, dir, sizeof(dir));

	return rc ? rc : xvbd_modparam_list_at(dir, out);
}

const struct xvbd_modparam *xvbd_modparam_find(
	const struct xvbd_modparams *params, const char *name)
{
	size_t i;

	for (i = 0; params && i < params->n; i++)
		if (!strcmp(params->items[i].name, name))
			return &params->items[i];
	return NULL;
}

int xvbd_modparam_get_uint(const struct xvbd_modparams *params,
			   const char *name, uint64_t *out)
{
	const struct xvbd_modparam *p = xvbd_modparam_find(params, name);

	if (!p)
		return -ENOENT;
	return xvbd_parse_uint(p->value, UINT64_MAX, out);
}

static int parse_yn(const char *s, bool *out)
{
	if (!strcmp(s, "Y") || !strcmp(s, "y") || !strcmp(s, "1")) {
		*out = true;
		return 0;
	}
	if (!strcmp(s, "N") || !strcmp(s, "n") || !strcmp(s, "0")) {
		*out = false;
		return 0;
	}
	return -EINVAL;
}

int xvbd_modparam_get_bool(const struct xvbd_modparams *params,
			   const char *name, bool *out)
{
	const struct xvbd_modparam *p = xvbd_modparam_find(params, name);

	if (!p)
		return -ENOENT;
	return parse_yn(p->value, out);
}

int xvbd_modparam_check(const char *name, const char *value, char *canon,
			size_t len)
{
	const struct xvbd_modparam_info *info = xvbd_modparam_info(name);
	uint64_t v;
	bool b;
	int rc;

	if (!info)
		return -ENOENT;
	if (info->type == XVBD_MP_BOOL) {
		rc = parse_yn(value, &b);
		if (rc)
			return rc;
		snprintf(canon, len, "%s", b ? "Y" : "N");
		return 0;
	}
	rc = xvbd_parse_uint(value, info->max, &v);
	if (rc)
		return rc;
	if (v < info->min)
		return -ERANGE;
	snprintf(canon, len, "%llu", (unsigned long long)v);
	return 0;
}

int xvbd_modparam_write_at(const char *dir, const char *name,
			   const char *value)
{
	char *path;
	ssize_t n;
	int fd, rc = 0;
	struct stat st;

	if (!name_ok(name))
		return -EINVAL;
	if (asprintf(&path, "%s/%s", dir, name) < 0)
		return -ENOMEM;
	if (stat(path, &st)) {
		rc = -errno;
		goto out;
	}
	if (!(st.st_mode & S_IWUSR)) {
		rc = -EACCES;
		goto out;
	}
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0) {
		rc = -errno;
		goto out;
	}
	n = write(fd, value, strlen(value));
	if (n < 0)
		rc = -errno;
	else if ((size_t)n != strlen(value))
		rc = -EIO;
	if (close(fd) && !rc)
		rc = -errno;
out:
	free(path);
	return rc;
}

int xvbd_modparam_write(const char *module, const char *name,
			const char *value)
{
	char dir[SYS_DIR_MAX];
	int rc = params_dir(module, dir, sizeof(dir));

	return rc ? rc : xvbd_modparam_write_at(dir, name, value);
}

void xvbd_modparam_names_free(char **names, size_t n)
{
	size_t i;

	for (i = 0; names && i < n; i++)
		free(names[i]);
	free(names);
}

static int cmp_name(const void *a, const void *b)
{
	return xvbd_natcmp(*(char *const *)a, *(char *const *)b);
}

int xvbd_modparam_bound_devices_at(const char *dir, char ***names_out,
				   size_t *n_out)
{
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	int rc = 0;
	DIR *d = opendir(dir);

	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		uint32_t domid, devid;
		void *grown;

		/* bind, unbind, uevent, module are not devices */
		if (xvbd_modparam_parse_vbd_name(de->d_name, &domid, &devid))
			continue;
		grown = grow(names, n, &cap, sizeof(*names));
		if (!grown) {
			rc = -ENOMEM;
			goto out;
		}
		names = grown;
		names[n] = strdup(de->d_name);
		if (!names[n]) {
			rc = -ENOMEM;
			goto out;
		}
		n++;
	}
	if (n)
		qsort(names, n, sizeof(*names), cmp_name);
	*names_out = names;
	*n_out = n;
	names = NULL;
	n = 0;
out:
	closedir(d);
	xvbd_modparam_names_free(names, n);
	return rc;
}

int xvbd_modparam_bound_devices(const char *driver, char ***names,
				size_t *n)
{
	char dir[SYS_DIR_MAX];
	int rc = driver_dir(driver, dir, sizeof(dir));

	return rc ? rc : xvbd_modparam_bound_devices_at(dir, names, n);
}

int xvbd_modparam_parse_vbd_name(const char *name, uint32_t *domid,
				 uint32_t *devid)
{
	const char *dash;
	char part[16];
	uint64_t d, v;
	size_t len;

	if (strncmp(name, "vbd-", 4))
		return -EINVAL;
	name += 4;
	dash = strchr(name, '-');
	if (!dash)
		return -EINVAL;
	len = (size_t)(dash - name);
	if (len == 0 || len >= sizeof(part))
		return -EINVAL;
	memcpy(part, name, len);
	part[len] = '\0';
	if (xvbd_parse_uint(part, UINT32_MAX, &d) ||
	    xvbd_parse_uint(dash + 1, UINT32_MAX, &v))
		return -EINVAL;
	*domid = (uint32_t)d;
	*devid = (uint32_t)v;
	return 0;
}

/* "NAME=VALUE" with a known parameter name and a plain value. */
static bool item_ok(const char *item)
{
	const char *eq = strchr(item, '=');
	char name[65];
	size_t len, i;

	if (!eq || eq == item || (size_t)(eq - item) >= sizeof(name))
		return false;
	len = (size_t)(eq - item);
	memcpy(name, item, len);
	name[len] = '\0';
	if (!name_ok(name) || !eq[1] || strlen(eq + 1) > 32)
		return false;
	for (i = 1; eq[i]; i++)
		if (!((eq[i] >= '0' && eq[i] <= '9') ||
		      (eq[i] >= 'A' && eq[i] <= 'Z') ||
		      (eq[i] >= 'a' && eq[i] <= 'z')))
			return false;
	return true;
}

/* At most PERSIST_ITEMS_MAX items, each item_ok(); params may be NULL. */
static bool items_ok(char *const params[])
{
	size_t i;

	for (i = 0; params && params[i]; i++)
		if (i >= PERSIST_ITEMS_MAX || !item_ok(params[i]))
			return false;
	return true;
}

static int modprobe(char *const argv[])
{
	int status, rc = xvbd_spawn(argv, &status);

	if (rc)
		return rc;
	return status ? -EIO : 0;
}

static int load(const char *module, char *const params[])
{
	char *argv[2 + PERSIST_ITEMS_MAX + 1];
	size_t n = 0, i;

	if (!items_ok(params))
		return -EINVAL;
	argv[n++] = "modprobe";
	argv[n++] = (char *)module;
	for (i = 0; params && params[i]; i++)
		argv[n++] = params[i];
	argv[n] = NULL;
	return modprobe(argv);
}

int xvbd_modparam_reload(const char *module, char *const params[],
			 char *const restore[], const char **step)
{
	char *unload[] = { "modprobe", "-r", (char *)module, NULL };
	char dir[128];
	sigset_t old_mask;
	int rc;

	*step = "arguments";
	if (!name_ok(module) || !items_ok(params))
		return -EINVAL;
	/*
	 * Never leave dom0 without its block backend: a signal from the
	 * unload to the end of the reload waits for it (modprobe runs in
	 * its own process group: a terminal's Ctrl-C does not reach it).
	 */
	xvbd_sig_hold(&old_mask);
	*step = "unload";
	/* A SIGKILL cannot be held: the next run names it. */
	xvbd_journal_note(XVBD_J_UNLOADED, "%s", module);
	rc = modprobe(unload);
	if (rc)
		goto out;
	xvbd_test_stop("defaults-unloaded");
	*step = "load";
	rc = load(module, params);
	if (!rc)
		goto out;
	*step = load(module, restore) ?
		"load (restore failed too)" : "load (restored the old values)";
out:
	/* Loaded again (new values or restored): nothing to name. */
	if (!params_dir(module, dir, sizeof(dir)) && !access(dir, F_OK))
		xvbd_journal_done(XVBD_J_UNLOADED, "%s", module);
	xvbd_sig_release(&old_mask);
	return rc;
}

char *xvbd_modparam_persist_path(const char *module)
{
	char *path;

	if (!name_ok(module))
		return NULL;
	if (asprintf(&path, PERSIST_FILE_FMT, MODPROBE_D, module) < 0)
		return NULL;
	return path;
}

static bool same_name(const char *a, const char *b)
{
	size_t la = strcspn(a, "="), lb = strcspn(b, "=");

	return la == lb && !strncmp(a, b, la);
}

/* The "options MODULE ..." items of an earlier xvbd file, if any. */
static size_t read_items(const char *path, const char *module,
			 char items[][100], size_t max)
{
	char line[1024], *tok, *save;
	size_t n = 0;
	FILE *f = fopen(path, "re");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		tok = strtok_r(line, " \t\n", &save);
		if (!tok || strcmp(tok, "options"))
			continue;
		tok = strtok_r(NULL, " \t\n", &save);
		if (!tok || strcmp(tok, module))
			continue;
		while ((tok = strtok_r(NULL, " \t\n", &save)) && n < max)
			if (item_ok(tok) && strlen(tok) < 100)
				snprintf(items[n++], 100, "%s", tok);
	}
	fclose(f);
	return n;
}

int xvbd_modparam_persist_at(const char *dir, const char *module,
			     char *const params[], char **path_out)
{
	char items[PERSIST_ITEMS_MAX][100];
	char *path = NULL, *tmp = NULL;
	size_t n, i, j;
	FILE *f = NULL;
	int fd, rc = 0;

	if (!name_ok(module))
		return -EINVAL;
	for (i = 0; params[i]; i++)
		if (!item_ok(params[i]) || strlen(params[i]) >= 100)
			return -EINVAL;
	if (asprintf(&path, PERSIST_FILE_FMT, dir, module) < 0)
		return -ENOMEM;
	if (asprintf(&tmp, "%s.XXXXXX", path) < 0) {
		free(path);
		return -ENOMEM;
	}
	n = read_items(path, module, items, PERSIST_ITEMS_MAX);
	for (i = 0; params[i]; i++) {
		for (j = 0; j < n && !same_name(items[j], params[i]); j++)
			;
		if (j == n) {
			if (n == PERSIST_ITEMS_MAX) {
				rc = -E2BIG;
				goto out;
			}
			n++;
		}
		snprintf(items[j], 100, "%s", params[i]);
	}
	if (mkdir(dir, 0755) && errno != EEXIST) {
		rc = -errno;
		goto out;
	}
	/* Write a temporary file and rename it: never a half-written file. */
	fd = mkstemp(tmp);
	if (fd < 0) {
		rc = -errno;
		goto out;
	}
	f = fdopen(fd, "w");
	if (!f) {
		rc = -errno;
		close(fd);
		unlink(tmp);
		goto out;
	}
	fprintf(f, "# Written by xvbd defaults --persist; read when %s "
		"is loaded.\noptions %s", module, module);
	for (i = 0; i < n; i++)
		fprintf(f, " %s", items[i]);
	fputc('\n', f);
	if (fchmod(fd, 0644) || fflush(f) || fsync(fd))
		rc = -errno;
	if (fclose(f) && !rc)
		rc = -errno;
	if (!rc && rename(tmp, path))
		rc = -errno;
	if (rc)
		unlink(tmp);
	else
		*path_out = strdup(path);
out:
	free(tmp);
	free(path);
	return rc;
}

int xvbd_modparam_persist(const char *module, char *const params[],
			  char **path_out)
{
	return xvbd_modparam_persist_at(MODPROBE_D, module, params, path_out);
}
