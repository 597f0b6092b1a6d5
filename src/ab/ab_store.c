/*
 * ab_store.c - the store: a directory of record files, one per run,
 * named <id>.json.
 *
 * Writing never replaces a record and never leaves a half-written one
 * under a record's name: the document goes into an O_EXCL temporary
 * beside it (".<id>.json.XXXXXX": hidden, so no reader takes it for a
 * record), is fsync'd, then renamed with RENAME_NOREPLACE (or linked,
 * where the file system lacks it), and the directory is fsync'd.  A
 * failure removes the temporary; a kill -9 can leave one, which the list
 * skips.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <yajl/yajl_parse.h>

#include "xvbd/ab/ab.h"
#include "xvbd/ab/ab_record_impl.h"
#include "xvbd/base/safepath.h"
#include "xvbd/base/util.h"

#define JSON_SUFFIX	".json"

#define err_set xvbd_ab_err_set

static bool ends_with(const char *s, const char *suffix)
{
	size_t ls = strlen(s), lx = strlen(suffix);

	return ls >= lx && !strcmp(s + ls - lx, suffix);
}

/* A directory records may live in: root's alone, the whole way to it. */
static int check_dir(const char *dir, struct xvbd_ab_err *e)
{
	struct xvbd_safe_why why;
	int rc = xvbd_path_check_safe(dir, XVBD_SAFE_DIR, &why);

	xvbd_safe_why_free(&why);
	if (rc == -EPERM)
		err_set(e, "%s: records there could be anyone's (the store "
			"must be a directory only root can change)", why.msg);
	else if (rc)
		err_set(e, "%s: %s", dir, rc == -ENOTDIR ? "not a directory" :
			strerror(-rc));
	return rc;
}

int xvbd_ab_store_ensure(const char *dir, struct xvbd_ab_err *e)
{
	char path[PATH_MAX];
	size_t len = strlen(dir), i;

	if (!len || len >= sizeof(path)) {
		err_set(e, "\"%s\": not a directory name", dir);
		return -EINVAL;
	}
	memcpy(path, dir, len + 1);
	/* Like mkdir -p, but every directory made is private. */
	for (i = 1; i <= len; i++) {
		if (path[i] != '/' && path[i] != '\0')
			continue;
		if (path[i - 1] == '/')
			continue;
		path[i] = '\0';
		if (mkdir(path, 0700) && errno != EEXIST) {
			err_set(e, "%s: %s", path, strerror(errno));
			return -errno;
		}
		path[i] = dir[i];
	}
	return check_dir(dir, e);
}

/* Give tmp the name path unless path exists. */
static int rename_noreplace(const char *tmp, const char *path)
{
	if (!renameat2(AT_FDCWD, tmp, AT_FDCWD, path, RENAME_NOREPLACE))
		return 0;
	if (errno != EINVAL && errno != ENOSYS)
		return -errno;
	/* No RENAME_NOREPLACE here: link() fails on an existing name too. */
	if (link(tmp, path))
		return -errno;
	unlink(tmp);
	return 0;
}

int xvbd_ab_store_write(const char *dir, struct xvbd_ab_record *rec,
			struct xvbd_ab_err *e)
{
	char path[PATH_MAX], tmp[PATH_MAX];
	struct xvbd_ab_err ce;
	char *json = NULL;
	size_t len;
	int fd = -1, rc, n;

	rc = xvbd_ab_record_check(rec, &ce);
	if (rc) {
		err_set(e, "record: %s", ce.msg);
		return rc;
	}
	n = snprintf(path, sizeof(path), "%s/%s" JSON_SUFFIX, dir, rec->id);
	if (n < 0 || (size_t)n >= sizeof(path) ||
	    snprintf(tmp, sizeof(tmp), "%s/.%s" JSON_SUFFIX ".XXXXXX", dir,
		     rec->id) >= (int)sizeof(tmp)) {
		err_set(e, "%s: name too long", dir);
		return -ENAMETOOLONG;
	}
	rc = xvbd_ab_record_to_json(rec, &json, &len);
	if (rc) {
		err_set(e, "%s: %s", path, rc == -EFBIG ?
			"record larger than a record file may be" :
			strerror(-rc));
		return rc;
	}
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		rc = -errno;
		err_set(e, "%s: %s", dir, strerror(errno));
		free(json);
		return rc;
	}
	rc = xvbd_write_all(fd, json, len);
	free(json);
	if (!rc && fchmod(fd, 0600))
		rc = -errno;
	if (!rc && fsync(fd))
		rc = -errno;
	if (close(fd) && !rc)
		rc = -errno;
	if (rc) {
		err_set(e, "%s: %s", tmp, strerror(-rc));
		goto fail;
	}
	rc = rename_noreplace(tmp, path);
	if (rc) {
		err_set(e, "%s: %s", path, rc == -EEXIST ?
			"a record of that id exists (not replaced)" :
			strerror(-rc));
		goto fail;
	}
	/* The name is durable only once the directory is on disk too. */
	rc = xvbd_fsync_dir(dir);
	if (rc) {
		err_set(e, "%s: %s", dir, strerror(-rc));
		/* The record is there (just maybe not durable): keep it. */
		return rc;
	}
	free(rec->path);
	rec->path = strdup(path);
	if (!rec->path) {
		err_set(e, "%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	return 0;
fail:
	unlink(tmp);
	return rc;
}

/* A record file of the store: root's, and nobody else may write it. */
static int untrusted_file(const struct stat *st, struct xvbd_ab_err *e)
{
	char owner[96];

	if (st->st_uid != 0 && st->st_uid != geteuid()) {
		xvbd_owner_name(st->st_uid, owner, sizeof(owner));
		err_set(e, "owned by %s, not root: not a record of this "
			"store (name the file to read it anyway)", owner);
		return -EPERM;
	}
	if (st->st_mode & (S_IWGRP | S_IWOTH)) {
		err_set(e, "writable by group or others (mode %04o): not a "
			"record of this store", (unsigned)(st->st_mode & 07777));
		return -EPERM;
	}
	return 0;
}

/*
 * A path named on purpose: its resolved form in *real (malloc'd); when
 * it is not root's alone, rec->untrusted says so.
 */
static int check_named(const char *path, struct xvbd_ab_record *rec,
		       char **real, struct xvbd_ab_err *e)
{
	struct xvbd_safe_why why;
	char owner[96];
	int rc = xvbd_path_check_safe(path, XVBD_SAFE_FILE, &why);

	*real = why.real;
	if (rc == -EPERM) {
		xvbd_owner_name(why.target_owner, owner, sizeof(owner));
		if (asprintf(&rec->untrusted, "%s: the file, owned by %s, may "
			     "not be a record root made", why.msg, owner) < 0) {
			rec->untrusted = NULL;
			rc = -ENOMEM;
		} else {
			rc = 0;
		}
	}
	if (rc == -EISDIR || rc == -ENOENT || rc == -ENOTDIR)
		err_set(e, "%s", rc == -EISDIR ? "not a regular file" :
			strerror(-rc));
	else if (rc)
		err_set(e, "%s", why.msg);
	if (rc)
		xvbd_safe_why_free(&why);
	return rc;
}

/*
 * The whole regular file, at most max bytes; *buf malloc'd.  e->msg says
 * why not (without the path).
 */
static int read_file(const char *path, bool in_store, size_t max,
		     char **buf, size_t *len, struct xvbd_ab_err *e)
{
	struct stat st;
	size_t cap, used = 0;
	char *data;
	int fd, rc = 0;

	/* O_NONBLOCK: a FIFO given as a record must not hang the reader.
	 * In the store a link is not a record (whoever made it chose). */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK |
		  (in_store ? O_NOFOLLOW : 0));
	if (fd < 0) {
		rc = -errno;
		err_set(e, "%s", errno == ELOOP && in_store ?
			"a symbolic link, not a record" : strerror(errno));
		return rc;
	}
	if (fstat(fd, &st)) {
		rc = -errno;
		goto out_close;
	}
	if (!S_ISREG(st.st_mode)) {
		rc = S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
		err_set(e, "not a regular file");
		goto out_close;
	}
	if (in_store && (rc = untrusted_file(&st, e)))
		goto out_close;
	if ((uint64_t)st.st_size > max) {
		rc = -EFBIG;
		goto out_close;
	}
	cap = (size_t)st.st_size + 1;
	data = malloc(cap + 1);
	if (!data) {
		rc = -ENOMEM;
		goto out_close;
	}
	for (;;) {
		ssize_t n;

		if (used == cap) {
			/* It grew while we read: take up to max. */
			char *bigger;

			if (cap > max) {
				free(data);
				rc = -EFBIG;
				goto out_close;
			}
			cap = cap * 2 > max + 1 ? max + 1 : cap * 2;
			bigger = realloc(data, cap + 1);
			if (!bigger) {
				free(data);
				rc = -ENOMEM;
				goto out_close;
			}
			data = bigger;
		}
		n = read(fd, data + used, cap - used);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = -errno;
			free(data);
			goto out_close;
		}
		if (!n)
			break;
		used += (size_t)n;
	}
	data[used] = '\0';
	*buf = data;
	*len = used;
out_close:
	close(fd);
	if (rc == -EFBIG)
		err_set(e, "larger than a record file may be (%d MiB)",
			XVBD_AB_FILE_MAX >> 20);
	else if (rc && rc != -EINVAL && rc != -EISDIR && rc != -EPERM)
		err_set(e, "%s", strerror(-rc));
	return rc;
}

/* The file name's part before ".json" (a pointer into path). */
static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

int xvbd_ab_store_read(const char *path, bool in_store,
		       struct xvbd_ab_record *rec, struct xvbd_ab_err *e)
{
	struct xvbd_ab_record named = { 0 };
	struct xvbd_ab_err inner;
	const char *base = base_name(path);
	char *buf = NULL, *real = NULL;
	size_t len = 0;
	int rc;

	memset(rec, 0, sizeof(*rec));
	rc = in_store ? 0 : check_named(path, &named, &real, &inner);
	if (!rc)
		rc = read_file(real ? real : path, in_store, XVBD_AB_FILE_MAX,
			       &buf, &len, &inner);
	free(real);
	if (!rc) {
		rc = xvbd_ab_record_from_json(buf, len, rec, &inner);
		free(buf);
	}
	if (!rc) {
		rec->untrusted = named.untrusted;
		named.untrusted = NULL;
	}
	free(named.untrusted);
	/*
	 * A record file is named by its id: select, rm and compare find
	 * records by file name, so a renamed copy would be a second
	 * record under a false name.
	 */
	if (!rc && ends_with(base, JSON_SUFFIX) &&
	    (strlen(base) - strlen(JSON_SUFFIX) != strlen(rec->id) ||
	     strncmp(base, rec->id, strlen(rec->id)))) {
		snprintf(inner.msg, sizeof(inner.msg),
			 "id: \"%s\" is not the file's name", rec->id);
		rc = -EINVAL;
		xvbd_ab_record_free(rec);
	}
	if (!rc) {
		rec->path = strdup(path);
		if (!rec->path) {
			xvbd_ab_record_free(rec);
			rc = -ENOMEM;
			snprintf(inner.msg, sizeof(inner.msg), "%s",
				 strerror(ENOMEM));
		}
	}
	if (rc) {
		char *esc = xvbd_escape(path);

		err_set(e, "%.200s: %s", esc ? esc : path, inner.msg);
		free(esc);
	}
	return rc;
}

/* ---- listing ---- */

/*
 * Sorting needs each record's start time, not the whole record: a
 * streaming parse stops at the top level's "started_unix_ns" (the writer
 * puts it near the front).
 */
struct peek {
	int depth;
	bool at_key;		/* the next top-level value is the one */
	bool found;
	int64_t started_ns;
};

static int peek_start_map(void *ctx)
{
	struct peek *p = ctx;

	p->depth++;
	p->at_key = false;
	return 1;
}

static int peek_end(void *ctx)
{
	struct peek *p = ctx;

	p->depth--;
	p->at_key = false;
	return 1;
}

static int peek_map_key(void *ctx, const unsigned char *key, size_t len)
{
	struct peek *p = ctx;

	p->at_key = p->depth == 1 && len == strlen("started_unix_ns") &&
		    !memcmp(key, "started_unix_ns", len);
	return 1;
}

static int peek_number(void *ctx, const char *s, size_t len)
{
	struct peek *p = ctx;
	char buf[24];
	uint64_t v;

	if (!p->at_key)
		return 1;
	p->at_key = false;
	if (len >= sizeof(buf))
		return 1;
	memcpy(buf, s, len);
	buf[len] = '\0';
	if (!xvbd_parse_uint(buf, INT64_MAX, &v)) {
		p->started_ns = (int64_t)v;
		p->found = true;
		return 0;	/* enough: stop parsing */
	}
	return 1;
}

static int peek_other(void *ctx)
{
	((struct peek *)ctx)->at_key = false;
	return 1;
}

static int peek_bool(void *ctx, int b)
{
	(void)b;
	return peek_other(ctx);
}

static int peek_string(void *ctx, const unsigned char *s, size_t len)
{
	(void)s;
	(void)len;
	return peek_other(ctx);
}

static const yajl_callbacks peek_callbacks = {
	.yajl_null = peek_other,
	.yajl_boolean = peek_bool,
	.yajl_number = peek_number,
	.yajl_string = peek_string,
	.yajl_start_map = peek_start_map,
	.yajl_map_key = peek_map_key,
	.yajl_end_map = peek_end,
	.yajl_start_array = peek_start_map,
	.yajl_end_array = peek_end,
};

/* The start time of a record file; false when it cannot be seen. */
static bool peek_started(int dirfd, const char *name, int64_t *started_ns)
{
	struct peek p = { 0 };
	unsigned char buf[4096];
	yajl_handle h;
	size_t total = 0;
	int fd;

	fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW |
		    O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return false;
	h = yajl_alloc(&peek_callbacks, NULL, &p);
	if (!h) {
		close(fd);
		return false;
	}
	while (!p.found && total < XVBD_AB_FILE_MAX) {
		ssize_t n = read(fd, buf, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0 || yajl_parse(h, buf, (size_t)n) != yajl_status_ok)
			break;
		total += (size_t)n;
	}
	yajl_free(h);
	close(fd);
	if (p.found)
		*started_ns = p.started_ns;
	return p.found;
}

struct entry {
	char *path;
	bool known;		/* start time read */
	int64_t started_ns;
	const char *name;	/* into path */
};

/* Start time, then name; files whose start cannot be read go last. */
static int entry_cmp(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	if (x->known != y->known)
		return x->known ? -1 : 1;
	if (x->known && x->started_ns != y->started_ns)
		return x->started_ns < y->started_ns ? -1 : 1;
	return strcmp(x->name, y->name);
}

static bool is_record_name(const char *name)
{
	return name[0] != '.' && ends_with(name, JSON_SUFFIX) &&
	       strlen(name) > strlen(JSON_SUFFIX);
}

int xvbd_ab_store_list(const char *dir, char ***paths, size_t *n,
		       struct xvbd_ab_err *e)
{
	struct entry *ents = NULL;
	size_t nents = 0, cap = 0, i;
	struct dirent *de;
	DIR *d;
	int rc = 0;

	*paths = NULL;
	*n = 0;
	rc = check_dir(dir, e);
	if (rc)
		return rc;
	d = opendir(dir);
	if (!d) {
		rc = -errno;
		err_set(e, "%s: %s", dir, strerror(errno));
		return rc;
	}
	while ((errno = 0, de = readdir(d))) {
		struct stat st;
		struct entry *ent;

		/* Hidden: an interrupted write's temporary, or not ours. */
		if (!is_record_name(de->d_name))
			continue;
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) ||
		    !S_ISREG(st.st_mode))
			continue;
		if (nents == cap) {
			struct entry *bigger;

			cap = cap ? cap * 2 : 32;
			bigger = realloc(ents, cap * sizeof(*ents));
			if (!bigger) {
				rc = -ENOMEM;
				goto out;
			}
			ents = bigger;
		}
		ent = &ents[nents];
		if (asprintf(&ent->path, "%s/%s", dir, de->d_name) < 0) {
			rc = -ENOMEM;
			goto out;
		}
		nents++;
		ent->name = base_name(ent->path);
		ent->known = peek_started(dirfd(d), de->d_name,
					  &ent->started_ns);
	}
	if (errno) {
		rc = -errno;
		goto out;
	}
	if (nents)
		qsort(ents, nents, sizeof(*ents), entry_cmp);
	*paths = calloc(nents ? nents : 1, sizeof(**paths));
	if (!*paths) {
		rc = -ENOMEM;
		goto out;
	}
	for (i = 0; i < nents; i++) {
		(*paths)[i] = ents[i].path;
		ents[i].path = NULL;
	}
	*n = nents;
out:
	if (rc)
		err_set(e, "%s: %s", dir, strerror(-rc));
	for (i = 0; i < nents; i++)
		free(ents[i].path);
	free(ents);
	closedir(d);
	return rc;
}

/* ---- selecting ---- */

static int recs_push(struct xvbd_ab_record **recs, size_t *n,
		     const char *path, bool in_store, struct xvbd_ab_err *e)
{
	struct xvbd_ab_record *bigger;
	int rc;

	bigger = realloc(*recs, (*n + 1) * sizeof(**recs));
	if (!bigger) {
		err_set(e, "%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	*recs = bigger;
	rc = xvbd_ab_store_read(path, in_store, &(*recs)[*n], e);
	if (!rc)
		(*n)++;
	return rc;
}

static bool is_regular(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISREG(st.st_mode);
}

int xvbd_ab_store_select(const char *dir, const char *what,
			 struct xvbd_ab_record **recs, size_t *n,
			 struct xvbd_ab_err *e)
{
	char label[XVBD_AB_ID_MAX], path[PATH_MAX];
	char **paths = NULL;
	size_t npaths = 0, i;
	int rc = 0;

	*recs = NULL;
	*n = 0;
	/* A path: ids and labels never hold '/'. */
	if (strchr(what, '/') || (ends_with(what, JSON_SUFFIX) &&
				  is_regular(what))) {
		rc = recs_push(recs, n, what, false, e);
		goto out;
	}
	/* By id or label: what the store holds, if it can be trusted. */
	if (xvbd_ab_id_split(what, label, sizeof(label)) &&
	    snprintf(path, sizeof(path), "%s/%s" JSON_SUFFIX, dir, what) <
	    (int)sizeof(path) && is_regular(path)) {
		rc = check_dir(dir, e);
		if (!rc)
			rc = recs_push(recs, n, path, true, e);
		goto out;
	}
	if (!xvbd_ab_label_valid(what)) {
		char *esc = xvbd_escape(what);

		err_set(e, "\"%.100s\": not a record file, id or label",
			esc ? esc : "?");
		free(esc);
		rc = -ENOENT;
		goto out;
	}
	rc = xvbd_ab_store_list(dir, &paths, &npaths, e);
	for (i = 0; !rc && i < npaths; i++) {
		const char *base = base_name(paths[i]);
		size_t stem = strlen(base) - strlen(JSON_SUFFIX);

		if (stem >= sizeof(label))
			continue;
		memcpy(path, base, stem);
		path[stem] = '\0';
		/* The label is the id's part before its fixed suffix. */
		if (!xvbd_ab_id_split(path, label, sizeof(label)) ||
		    strcmp(label, what))
			continue;
		rc = recs_push(recs, n, paths[i], true, e);
	}
	if (!rc && !*n) {
		err_set(e, "no record with id or label \"%s\" in %s", what,
			dir);
		rc = -ENOENT;
	}
out:
	for (i = 0; i < npaths; i++)
		free(paths[i]);
	free(paths);
	if (rc) {
		xvbd_ab_records_free(*recs, *n);
		*recs = NULL;
		*n = 0;
	}
	return rc;
}

void xvbd_ab_records_free(struct xvbd_ab_record *recs, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		xvbd_ab_record_free(&recs[i]);
	free(recs);
}
