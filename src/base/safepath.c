/*
 * safepath.c - a path walked as the kernel resolves it, every component
 * checked on the way (safepath.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "xvbd/base/safepath.h"

/* The kernel's own limit on links followed in one resolution. */
#define LINKS_MAX	40

struct walk {
	char resolved[PATH_MAX];	/* real so far: no link, no "." */
	struct stat dir_st;		/* of resolved: a directory */
	char *rest;			/* what is left to walk */
	const char *p;			/* into rest */
	struct xvbd_safe_why *why;
	int rc;				/* first unsafe component: -EPERM */
};

static bool owner_ok(const struct stat *st)
{
	return st->st_uid == 0 || st->st_uid == geteuid();
}

void xvbd_owner_name(uid_t uid, char *buf, size_t len)
{
	struct passwd pw, *res = NULL;
	char pwbuf[1024];

	if (!getpwuid_r(uid, &pw, pwbuf, sizeof(pwbuf), &res) && res)
		snprintf(buf, len, "uid %u (%.64s)", (unsigned)uid, pw.pw_name);
	else
		snprintf(buf, len, "uid %u", (unsigned)uid);
}

/* The first unsafe component is the one named. */
static void unsafe(struct walk *w, const char *what, const struct stat *st,
		   const char *problem)
{
	char owner[96];

	if (w->rc)
		return;
	w->rc = -EPERM;
	w->why->owner = st->st_uid;
	if (!strcmp(problem, "owner")) {
		xvbd_owner_name(st->st_uid, owner, sizeof(owner));
		snprintf(w->why->msg, sizeof(w->why->msg), "%.300s: %s owned "
			 "by %s, not root", what, S_ISLNK(st->st_mode) ?
			 "a symbolic link" : S_ISDIR(st->st_mode) ?
			 "a directory" : "a file", owner);
	} else {
		snprintf(w->why->msg, sizeof(w->why->msg), "%.300s: writable "
			 "by %s (mode %04o)", what, problem,
			 (unsigned)(st->st_mode & 07777));
	}
}

/*
 * A directory on the way, or (strict) the one that holds the target or
 * is the target: sticky and writable by others only on the way.
 */
static void check_dir(struct walk *w, const char *path,
		      const struct stat *st, bool strict)
{
	if (!owner_ok(st))
		unsafe(w, path, st, "owner");
	else if ((st->st_mode & (S_IWGRP | S_IWOTH)) &&
		 (strict || !(st->st_mode & S_ISVTX)))
		unsafe(w, path, st, st->st_mode & S_IWOTH ? "others" :
		       "its group");
}

static int fail(struct walk *w, int rc, const char *what)
{
	snprintf(w->why->msg, sizeof(w->why->msg), "%.300s: %s", what,
		 strerror(-rc));
	return rc;
}

/* The next component of w->p into comp; false at the end. */
static bool next_comp(struct walk *w, char *comp, size_t len)
{
	size_t n;

	while (*w->p == '/')
		w->p++;
	if (!*w->p)
		return false;
	n = strcspn(w->p, "/");
	if (n >= len)
		n = len - 1;	/* lstat then says ENAMETOOLONG */
	memcpy(comp, w->p, n);
	comp[n] = '\0';
	w->p += strcspn(w->p, "/");
	return true;
}

/* Walk on from a link at path: its target, then what was left. */
static int follow(struct walk *w, const char *path, int *links)
{
	char target[PATH_MAX], *rest;
	ssize_t n;

	if (++*links > LINKS_MAX)
		return fail(w, -ELOOP, path);
	n = readlink(path, target, sizeof(target) - 1);
	if (n < 0)
		return fail(w, -errno, path);
	target[n] = '\0';
	if (asprintf(&rest, "%s/%s", target, w->p) < 0)
		return fail(w, -ENOMEM, path);
	free(w->rest);
	w->rest = rest;
	w->p = rest;
	if (target[0] == '/') {
		strcpy(w->resolved, "/");
		if (lstat("/", &w->dir_st))
			return fail(w, -errno, "/");
	}
	return 0;
}

/* Up one: resolved is real, so its parent is its dirname. */
static int go_up(struct walk *w)
{
	char *slash = strrchr(w->resolved, '/');

	if (slash == w->resolved)
		slash[1] = '\0';
	else
		*slash = '\0';
	return lstat(w->resolved, &w->dir_st) ? fail(w, -errno, w->resolved)
					       : 0;
}

/* A file: root's (or ours), writable by nobody else. */
static void check_file(struct walk *w, const char *path,
		       const struct stat *st)
{
	if (!owner_ok(st))
		unsafe(w, path, st, "owner");
	else if (st->st_mode & (S_IWGRP | S_IWOTH))
		unsafe(w, path, st, st->st_mode & S_IWOTH ? "others" :
		       "its group");
}

/* The target reached: its kind, and the strict checks. */
static int finish(struct walk *w, const char *path, const struct stat *st,
		  const char *dir, enum xvbd_safe_kind kind)
{
	if (kind == XVBD_SAFE_DIR) {
		if (!S_ISDIR(st->st_mode))
			return fail(w, -ENOTDIR, path);
		check_dir(w, path, st, true);
	} else {
		if (S_ISDIR(st->st_mode))
			return fail(w, -EISDIR, path);
		check_dir(w, dir, &w->dir_st, true);
		check_file(w, path, st);
	}
	w->why->target_owner = st->st_uid;
	w->why->real = strdup(path);
	return w->why->real ? w->rc : fail(w, -ENOMEM, path);
}

static int walk(struct walk *w, enum xvbd_safe_kind kind)
{
	char comp[NAME_MAX + 2], path[PATH_MAX], dir[PATH_MAX];
	struct stat st;
	int links = 0, rc, n;

	strcpy(w->resolved, "/");
	if (lstat("/", &w->dir_st))
		return fail(w, -errno, "/");
	st = w->dir_st;
	strcpy(path, "/");
	strcpy(dir, "/");
	for (;;) {
		if (!next_comp(w, comp, sizeof(comp))) {
			/* What was last walked into is the target. */
			return finish(w, w->resolved, &w->dir_st, dir, kind);
		}
		if (!strcmp(comp, "."))
			continue;
		if (!strcmp(comp, "..")) {
			rc = go_up(w);
			if (rc)
				return rc;
			continue;
		}
		n = snprintf(path, sizeof(path), "%s%s%s", w->resolved,
			     strcmp(w->resolved, "/") ? "/" : "", comp);
		if (n < 0 || (size_t)n >= sizeof(path))
			return fail(w, -ENAMETOOLONG, w->resolved);
		if (lstat(path, &st))
			return fail(w, -errno, path);
		if (S_ISLNK(st.st_mode)) {
			/* Its directory was checked; the link is its owner's. */
			if (!owner_ok(&st))
				unsafe(w, path, &st, "owner");
			rc = follow(w, path, &links);
			if (rc)
				return rc;
			continue;
		}
		strcpy(dir, w->resolved);
		if (!S_ISDIR(st.st_mode)) {
			while (*w->p == '/')
				w->p++;
			if (*w->p)
				return fail(w, -ENOTDIR, path);
			return finish(w, path, &st, dir, kind);
		}
		check_dir(w, path, &st, false);
		strcpy(w->resolved, path);
		w->dir_st = st;
	}
}

int xvbd_path_check_safe(const char *path, enum xvbd_safe_kind kind,
			 struct xvbd_safe_why *why)
{
	struct walk w = { .why = why };
	char *cwd = NULL;
	int rc;

	memset(why, 0, sizeof(*why));
	if (!*path) {
		snprintf(why->msg, sizeof(why->msg), "empty path");
		return -ENOENT;
	}
	if (path[0] != '/') {
		/* The working directory's own chain counts too. */
		cwd = getcwd(NULL, 0);
		if (!cwd) {
			rc = -errno;
			snprintf(why->msg, sizeof(why->msg), "the working "
				 "directory: %s", strerror(-rc));
			return rc;
		}
	}
	if (asprintf(&w.rest, "%s/%s", cwd ? cwd : "", path) < 0) {
		free(cwd);
		snprintf(why->msg, sizeof(why->msg), "%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	free(cwd);
	w.p = w.rest;
	rc = walk(&w, kind);
	free(w.rest);
	if (rc && rc != -EPERM) {
		free(why->real);
		why->real = NULL;
	}
	return rc;
}

int xvbd_safe_open_file(const char *path, struct stat *st,
			struct xvbd_safe_why *why)
{
	struct walk w = { .why = why };
	int fd, rc = xvbd_path_check_safe(path, XVBD_SAFE_FILE, why);

	if (rc)
		goto fail;
	/*
	 * The resolved path has no link left: one put there since is
	 * refused (ELOOP).  A FIFO must not block root (O_NONBLOCK).
	 */
	fd = open(why->real, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW |
		  O_NONBLOCK);
	if (fd < 0) {
		rc = fail(&w, -errno, why->real);
		goto fail;
	}
	if (fstat(fd, st)) {
		rc = fail(&w, -errno, why->real);
	} else if (!S_ISREG(st->st_mode)) {
		snprintf(why->msg, sizeof(why->msg), "%.300s: not a regular "
			 "file", why->real);
		rc = -EINVAL;
	} else {
		/* The rule again on what is read, not on a name of it. */
		check_file(&w, why->real, st);
		rc = w.rc;
	}
	if (!rc)
		return fd;
	close(fd);
fail:
	free(why->real);
	why->real = NULL;
	return rc;
}

void xvbd_safe_why_free(struct xvbd_safe_why *why)
{
	free(why->real);
	why->real = NULL;
}
