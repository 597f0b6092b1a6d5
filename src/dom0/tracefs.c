/*
 * tracefs.c - xvbd's tracefs paths, all of them (tracefs.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "xvbd/dom0/tracefs.h"

/* Where tracefs is mounted: its own mount point, then debugfs' one. */
static const char *const tracefs_mounts[] = {
	"/sys/kernel/tracing",
	"/sys/kernel/debug/tracing",
};
#define TRACEFS_MAGIC		0x74726163	/* include/uapi/linux/magic.h */
#define SYNTH_EVENTS		"synthetic_events"
#define INSTANCE_FMT		"%s/instances/%s"
#define EVENT_FILE_FMT		"%s/instances/%s/events/%s/%s"
#define ERROR_LOG_FMT		"%s/instances/%s/error_log"
#define PER_CPU_FMT		"%s/instances/%s/per_cpu"
#define HEADER_PAGE		"events/header_page"
#define FORMAT_MAX		(64u << 10)
#define RAW_CPUS_MAX		8192
/* What latency tracking needs, relative to the root. */
#define NEED_REQUEST_EVENT	"events/block/block_rq_issue"
#define NEED_INSTANCES		"instances"
#define ERROR_LOG_MAX		(64u << 10)
#define SYNTH_LIST_MAX		(1u << 20)

struct xvbd_tracefs {
	char root[PATH_MAX];
};

static bool name_ok(const char *s)
{
	const char *p;

	if (!s || !*s || strlen(s) > NAME_MAX)
		return false;
	for (p = s; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || *p == '_' || *p == '-'))
			return false;
	return true;
}

static int path_of(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int path_of(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

static bool is_tracefs(const char *dir)
{
	struct statfs sfs;

	return !statfs(dir, &sfs) && (unsigned long)sfs.f_type ==
	       (unsigned long)TRACEFS_MAGIC;
}

static int check_needs(const struct xvbd_tracefs *t, char *why, size_t len)
{
	char p[PATH_MAX];

	if (path_of(p, sizeof(p), "%s/%s", t->root, NEED_REQUEST_EVENT) ||
	    access(p, F_OK)) {
		snprintf(why, len, "no block request tracepoints in %s",
			 t->root);
		return -EOPNOTSUPP;
	}
	if (path_of(p, sizeof(p), "%s/%s", t->root, NEED_INSTANCES) ||
	    access(p, F_OK)) {
		snprintf(why, len, "no tracing instances in %s", t->root);
		return -EOPNOTSUPP;
	}
	if (access(p, W_OK)) {
		snprintf(why, len, "%s is not writable: run as root", p);
		return -EACCES;
	}
	return 0;
}

int xvbd_tracefs_open(const char *root, struct xvbd_tracefs **out,
		      char *why, size_t why_len)
{
	struct xvbd_tracefs *t;
	size_t i;
	int err;

	*out = NULL;
	t = calloc(1, sizeof(*t));
	if (!t) {
		snprintf(why, why_len, "%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	if (root) {
		snprintf(t->root, sizeof(t->root), "%s", root);
	} else {
		for (i = 0; i < sizeof(tracefs_mounts) /
			    sizeof(tracefs_mounts[0]); i++) {
			if (is_tracefs(tracefs_mounts[i])) {
				snprintf(t->root, sizeof(t->root), "%s",
					 tracefs_mounts[i]);
				break;
			}
		}
		if (!t->root[0]) {
			snprintf(why, why_len, "tracefs is not mounted "
				 "(mount -t tracefs nodev %s)",
				 tracefs_mounts[0]);
			free(t);
			return -ENOENT;
		}
	}
	err = check_needs(t, why, why_len);
	if (err) {
		free(t);
		return err;
	}
	*out = t;
	return 0;
}

void xvbd_tracefs_close(struct xvbd_tracefs *t)
{
	free(t);
}

const char *xvbd_tracefs_root(const struct xvbd_tracefs *t)
{
	return t->root;
}

int xvbd_tracefs_instance_add(struct xvbd_tracefs *t, const char *name)
{
	char p[PATH_MAX];

	if (!name_ok(name))
		return -EINVAL;
	if (path_of(p, sizeof(p), INSTANCE_FMT, t->root, name))
		return -ENAMETOOLONG;
	return mkdir(p, 0700) ? -errno : 0;
}

int xvbd_tracefs_instance_remove(struct xvbd_tracefs *t, const char *name)
{
	char p[PATH_MAX];

	if (!name_ok(name))
		return -EINVAL;
	if (path_of(p, sizeof(p), INSTANCE_FMT, t->root, name))
		return -ENAMETOOLONG;
	return rmdir(p) ? -errno : 0;
}

bool xvbd_tracefs_instance_exists(struct xvbd_tracefs *t, const char *name)
{
	char p[PATH_MAX];
	struct stat st;

	return name_ok(name) &&
	       !path_of(p, sizeof(p), INSTANCE_FMT, t->root, name) &&
	       !lstat(p, &st) && S_ISDIR(st.st_mode);
}

/* One write(2) of a value to path (enable, filter, trace_clock...). */
static int write_value(const char *path, const char *text)
{
	size_t n = strlen(text);
	ssize_t w;
	int fd, err = 0;

	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	w = write(fd, text, n);
	if (w < 0)
		err = -errno;
	else if ((size_t)w != n)
		err = -EIO;
	if (close(fd) && !err)
		err = -errno;
	return err;
}

/* fd whole from its start, at most max bytes: 0, -EFBIG or -errno. */
static int read_whole(int fd, size_t max, char **buf, size_t *len)
{
	size_t cap = 4096, used = 0;
	char *b, *nb;
	ssize_t r;
	int err = 0;

	*buf = NULL;
	*len = 0;
	if (lseek(fd, 0, SEEK_SET) < 0)
		return -errno;
	b = malloc(cap + 1);
	if (!b)
		return -ENOMEM;
	/* tracefs files have no size: read until EOF. */
	for (;;) {
		if (used == cap) {
			if (cap >= max) {
				err = -EFBIG;
				break;
			}
			cap = cap * 2 > max ? max : cap * 2;
			nb = realloc(b, cap + 1);
			if (!nb) {
				err = -ENOMEM;
				break;
			}
			b = nb;
		}
		r = read(fd, b + used, cap - used);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			err = -errno;
			break;
		}
		if (!r)
			break;
		used += (size_t)r;
	}
	if (err) {
		free(b);
		return err;
	}
	b[used] = '\0';
	*buf = b;
	*len = used;
	return 0;
}

/* path whole, at most max bytes: 0, -EFBIG or -errno. */
static int slurp(const char *path, size_t max, char **buf, size_t *len)
{
	int fd, err;

	*buf = NULL;
	*len = 0;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	err = read_whole(fd, max, buf, len);
	close(fd);
	return err;
}

/* The last "error: ..." of an instance's error_log, for a refusal. */
static void kernel_reason(struct xvbd_tracefs *t, const char *inst, int err,
			  char *out, size_t len)
{
	char p[PATH_MAX], *buf = NULL, *e, *last = NULL, *nl;
	size_t n;

	snprintf(out, len, "%s", strerror(-err));
	if (!inst || path_of(p, sizeof(p), ERROR_LOG_FMT, t->root, inst) ||
	    slurp(p, ERROR_LOG_MAX, &buf, &n))
		return;
	for (e = strstr(buf, "error: "); e; e = strstr(e + 1, "error: "))
		last = e;
	if (last) {
		last += strlen("error: ");
		nl = strchr(last, '\n');
		if (nl)
			*nl = '\0';
		snprintf(out, len, "%s", last);
	}
	free(buf);
	/* Cleared, so that the next refusal is not read as this one. */
	if (!path_of(p, sizeof(p), ERROR_LOG_FMT, t->root, inst)) {
		int fd = open(p, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOFOLLOW);

		if (fd >= 0)
			close(fd);
	}
}

int xvbd_tracefs_synth_exists(struct xvbd_tracefs *t, const char *name)
{
	char p[PATH_MAX], *buf, *line, *save = NULL;
	size_t n, nlen = strlen(name);
	int rc, found = 0;

	if (!name_ok(name))
		return -EINVAL;
	if (path_of(p, sizeof(p), "%s/%s", t->root, SYNTH_EVENTS))
		return -ENAMETOOLONG;
	rc = slurp(p, SYNTH_LIST_MAX, &buf, &n);
	if (rc)
		return rc;
	/* One definition per line: "name\tu64 a; ..." */
	for (line = strtok_r(buf, "\n", &save); line && !found;
	     line = strtok_r(NULL, "\n", &save))
		found = !strncmp(line, name, nlen) &&
			(line[nlen] == '\t' || line[nlen] == ' ' ||
			 !line[nlen]);
	free(buf);
	return found;
}

int xvbd_tracefs_event_filter(struct xvbd_tracefs *t, const char *inst,
			      const char *system, const char *event,
			      const char *text, char *err, size_t err_len)
{
	char p[PATH_MAX];
	int rc;

	if (!name_ok(inst) || !name_ok(system) || !name_ok(event) ||
	    strchr(text, '\n'))
		return -EINVAL;
	if (path_of(p, sizeof(p), EVENT_FILE_FMT "/%s", t->root, inst,
		    system, event, "filter"))
		return -ENAMETOOLONG;
	rc = write_value(p, text);
	if (rc)
		kernel_reason(t, inst, rc, err, err_len);
	return rc;
}

int xvbd_tracefs_clock(struct xvbd_tracefs *t, const char *inst,
		       const char *clock)
{
	char p[PATH_MAX];

	if (!name_ok(inst) || !name_ok(clock))
		return -EINVAL;
	if (path_of(p, sizeof(p), INSTANCE_FMT "/%s", t->root, inst,
		    "trace_clock"))
		return -ENAMETOOLONG;
	return write_value(p, clock);
}

int xvbd_tracefs_event_enable(struct xvbd_tracefs *t, const char *inst,
			      const char *system, const char *event, bool on)
{
	char p[PATH_MAX];

	if (!name_ok(inst) || !name_ok(system) || !name_ok(event))
		return -EINVAL;
	if (path_of(p, sizeof(p), EVENT_FILE_FMT "/%s", t->root, inst,
		    system, event, "enable"))
		return -ENAMETOOLONG;
	return write_value(p, on ? "1" : "0");
}

int xvbd_tracefs_event_format(struct xvbd_tracefs *t, const char *inst,
			      const char *system, const char *event,
			      char **buf, size_t *len)
{
	char p[PATH_MAX];

	if (!name_ok(inst) || !name_ok(system) || !name_ok(event))
		return -EINVAL;
	if (path_of(p, sizeof(p), EVENT_FILE_FMT "/%s", t->root, inst,
		    system, event, "format"))
		return -ENAMETOOLONG;
	return slurp(p, FORMAT_MAX, buf, len);
}

int xvbd_tracefs_header_page(struct xvbd_tracefs *t, char **buf,
			     size_t *len)
{
	char p[PATH_MAX];

	if (path_of(p, sizeof(p), "%s/%s", t->root, HEADER_PAGE))
		return -ENAMETOOLONG;
	return slurp(p, FORMAT_MAX, buf, len);
}

int xvbd_tracefs_buffer_kb(struct xvbd_tracefs *t, const char *inst,
			   unsigned kb)
{
	char p[PATH_MAX], v[16];

	if (!name_ok(inst))
		return -EINVAL;
	if (path_of(p, sizeof(p), INSTANCE_FMT "/%s", t->root, inst,
		    "buffer_size_kb"))
		return -ENAMETOOLONG;
	snprintf(v, sizeof(v), "%u", kb);
	return write_value(p, v);
}

int xvbd_tracefs_raw_open(struct xvbd_tracefs *t, const char *inst,
			  int **fds, size_t *n)
{
	char p[PATH_MAX];
	struct dirent *de;
	int *v = NULL, *nv, fd, err = 0;
	size_t used = 0;
	DIR *d;

	*fds = NULL;
	*n = 0;
	if (!name_ok(inst))
		return -EINVAL;
	if (path_of(p, sizeof(p), PER_CPU_FMT, t->root, inst))
		return -ENAMETOOLONG;
	d = opendir(p);
	if (!d)
		return -errno;
	while (!err && (de = readdir(d))) {
		unsigned cpu;
		char rest;

		if (sscanf(de->d_name, "cpu%u%c", &cpu, &rest) != 1 ||
		    used >= RAW_CPUS_MAX)
			continue;
		if (path_of(p, sizeof(p), PER_CPU_FMT "/cpu%u/%s", t->root,
			    inst, cpu, "trace_pipe_raw")) {
			err = -ENAMETOOLONG;
			break;
		}
		fd = open(p, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW);
		if (fd < 0) {
			err = -errno;
			break;
		}
		nv = realloc(v, (used + 1) * sizeof(*v));
		if (!nv) {
			close(fd);
			err = -ENOMEM;
			break;
		}
		v = nv;
		v[used++] = fd;
	}
	closedir(d);
	if (!err && !used)
		err = -ENOENT;
	if (err) {
		while (used)
			close(v[--used]);
		free(v);
		return err;
	}
	*fds = v;
	*n = used;
	return 0;
}

void xvbd_tracefs_instance_path(const struct xvbd_tracefs *t,
				const char *inst, char *buf, size_t len)
{
	snprintf(buf, len, INSTANCE_FMT, t->root, inst);
}

void xvbd_tracefs_remedy(const struct xvbd_tracefs *t, const char *inst,
			 const char *synth, const char *const *events,
			 size_t nevents, char *buf, size_t len)
{
	size_t used = 0, i;
	int n;

	buf[0] = '\0';
	/* Each event's triggers cleared (O_TRUNC), in the order given:
	 * then the instance can go, and the synthetic event with it. */
	for (i = 0; inst && name_ok(inst) && i < nevents && used < len; i++) {
		n = snprintf(buf + used, len - used, ": > " EVENT_FILE_FMT
			     "; ", t->root, inst, events[i], "trigger");
		used += n > 0 ? (size_t)n : 0;
	}
	if (inst && name_ok(inst) && used < len) {
		n = snprintf(buf + used, len - used, "rmdir " INSTANCE_FMT,
			     t->root, inst);
		used += n > 0 ? (size_t)n : 0;
	}
	if (synth && name_ok(synth) && used < len)
		snprintf(buf + used, len - used, "%secho '!%s' >> %s/%s",
			 used ? " && " : "", synth, t->root, SYNTH_EVENTS);
}
