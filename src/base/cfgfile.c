/*
 * cfgfile.c - a configuration file edited in place: read once, replaced
 * atomically with a backup, refused when it changed in between.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "xvbd/base/cfgfile.h"
#include "xvbd/base/safepath.h"
#include "xvbd/base/sig.h"
#include "xvbd/base/util.h"

/* The whole of fd (a regular file of st->st_size bytes) into *out. */
static int read_all(int fd, const struct stat *st, size_t max_bytes,
		    char **out, size_t *out_len)
{
	size_t len = (size_t)st->st_size, got = 0;
	char *buf;

	if (st->st_size < 0 || (size_t)st->st_size > max_bytes)
		return -EFBIG;
	buf = malloc(len + 1);
	if (!buf)
		return -ENOMEM;
	while (got < len) {
		ssize_t n = read(fd, buf + got, len - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			free(buf);
			return n < 0 ? -errno : -EIO;	/* shrank: changed */
		}
		got += (size_t)n;
	}
	buf[len] = '\0';
	*out = buf;
	*out_len = len;
	return 0;
}

int xvbd_cfgfile_read(const char *path, size_t max_bytes,
		      struct xvbd_cfgfile *f, char *why, size_t why_len)
{
	struct xvbd_safe_why sw;
	int fd, rc;

	memset(f, 0, sizeof(*f));
	/*
	 * Links are followed (/etc/xen/auto), but root edits nothing that
	 * someone else could have pointed it at or could swap meanwhile.
	 */
	fd = xvbd_safe_open_file(path, &f->st, &sw);
	if (fd == -EISDIR || fd == -EINVAL) {
		snprintf(why, why_len, "not a regular file");
		return -EINVAL;
	}
	if (fd < 0) {
		if (fd == -EPERM)
			snprintf(why, why_len, "%s: root edits only a file and "
				 "directories nobody else can change", sw.msg);
		else
			snprintf(why, why_len, "%s", strerror(-fd));
		return fd;
	}
	f->real = sw.real;
	rc = read_all(fd, &f->st, max_bytes, &f->data, &f->len);
	close(fd);
	if (rc == -EFBIG)
		snprintf(why, why_len, "larger than %zu bytes: not an xl "
			 "config", max_bytes);
	else if (rc)
		snprintf(why, why_len, "reading: %s", strerror(-rc));
	else if (memchr(f->data, '\0', f->len)) {
		snprintf(why, why_len, "has NUL bytes: not a text file");
		rc = -EINVAL;
	}
	if (rc)
		goto fail;
	return 0;
fail:
	if (rc == -EFBIG)
		rc = -EINVAL;
	xvbd_cfgfile_free(f);
	return rc;
}

void xvbd_cfgfile_free(struct xvbd_cfgfile *f)
{
	free(f->real);
	free(f->data);
	memset(f, 0, sizeof(*f));
}

int xvbd_cfgfile_check_writable(const struct xvbd_cfgfile *f, char *why,
				size_t why_len)
{
	/* root may write anything: the mode bits are the owner's intent. */
	if (!(f->st.st_mode & (S_IWUSR | S_IWGRP | S_IWOTH)) ||
	    access(f->real, W_OK)) {
		snprintf(why, why_len, "read-only (mode %04o): make it "
			 "writable to have it edited",
			 (unsigned)(f->st.st_mode & 07777));
		return -EACCES;
	}
	if (f->st.st_nlink > 1) {
		snprintf(why, why_len, "has %lu hard links, which replacing "
			 "it would split: edit it by hand",
			 (unsigned long)f->st.st_nlink);
		return -EMLINK;
	}
	return 0;
}

/* The directory part of a path, malloc'd. */
static char *dir_of(const char *path)
{
	char *copy = strdup(path), *dir;

	if (!copy)
		return NULL;
	dir = strdup(dirname(copy));
	free(copy);
	return dir;
}

/*
 * A temporary file ".NAME.xvbd-XXXXXX" beside target holding data, with
 * st's owner and mode, synced.  *tmp malloc'd.
 */
static int write_temp(const char *target, const struct stat *st,
		      const char *data, size_t len, char **tmp, char *why,
		      size_t why_len)
{
	char *copy = strdup(target), *dir = dir_of(target);
	int fd = -1, rc = 0;

	*tmp = NULL;
	if (!copy || !dir ||
	    asprintf(tmp, "%s/.%s.xvbd-XXXXXX", dir, basename(copy)) < 0) {
		*tmp = NULL;
		rc = -ENOMEM;
		goto out;
	}
	fd = mkostemp(*tmp, O_CLOEXEC);
	if (fd < 0) {
		rc = -errno;
		snprintf(why, why_len, "cannot write in %s: %s", dir,
			 strerror(-rc));
		free(*tmp);
		*tmp = NULL;
		goto out;
	}
	rc = xvbd_write_all(fd, data, len);
	if (!rc && fchown(fd, st->st_uid, st->st_gid) &&
	    (st->st_uid != geteuid() || errno != EPERM))
		rc = -errno;
	if (!rc && fchmod(fd, st->st_mode & 07777))
		rc = -errno;
	if (!rc && fsync(fd))
		rc = -errno;
	if (close(fd) && !rc)
		rc = -errno;
	if (rc) {
		snprintf(why, why_len, "writing %s: %s", *tmp, strerror(-rc));
		unlink(*tmp);
		free(*tmp);
		*tmp = NULL;
	}
out:
	free(copy);
	free(dir);
	return rc;
}

/* Is the file at f->real still the one read, byte for byte? */
static bool unchanged(const struct xvbd_cfgfile *f)
{
	struct stat st;
	char *now = NULL;
	size_t len = 0;
	bool same;
	int fd = open(f->real, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);

	if (fd < 0)
		return false;
	same = !fstat(fd, &st) && st.st_dev == f->st.st_dev &&
	       st.st_ino == f->st.st_ino && st.st_size == f->st.st_size &&
	       st.st_mtim.tv_sec == f->st.st_mtim.tv_sec &&
	       st.st_mtim.tv_nsec == f->st.st_mtim.tv_nsec &&
	       !read_all(fd, &st, f->len, &now, &len) && len == f->len &&
	       !memcmp(now, f->data, len);
	close(fd);
	free(now);
	return same;
}

static int sync_dir(const char *path)
{
	char *dir = dir_of(path);
	int rc;

	if (!dir)
		return -ENOMEM;
	rc = xvbd_fsync_dir(dir);
	free(dir);
	return rc;
}

int xvbd_cfgfile_replace(const struct xvbd_cfgfile *f, const char *data,
			 size_t len, const char *backup_suffix,
			 void (*before_commit)(void *arg), void *arg,
			 char **backup_path, char *why, size_t why_len)
{
	char *tmp_new = NULL, *tmp_bak = NULL, *bak = NULL;
	int rc;

	*backup_path = NULL;
	if (asprintf(&bak, "%s%s", f->real, backup_suffix) < 0)
		return -ENOMEM;
	rc = write_temp(f->real, &f->st, data, len, &tmp_new, why, why_len);
	if (!rc)
		rc = write_temp(bak, &f->st, f->data, f->len, &tmp_bak, why,
				why_len);
	if (rc)
		goto out;
	if (before_commit)
		before_commit(arg);
	/* A caught Ctrl-C (sig.h) up to here: nothing written, no debris. */
	if (xvbd_interrupted()) {
		snprintf(why, why_len, "interrupted by %s: nothing written",
			 xvbd_sig_name(xvbd_interrupted()));
		rc = -EINTR;
		goto out;
	}
	/*
	 * Between this check and the rename another writer could still
	 * slip in (there is no lock editors honour); the window is a few
	 * system calls instead of the whole edit.
	 */
	if (!unchanged(f)) {
		snprintf(why, why_len, "it changed while xvbd was editing it:"
			 " nothing written, run the command again");
		rc = -ESTALE;
		goto out;
	}
	if (rename(tmp_bak, bak)) {
		rc = -errno;
		snprintf(why, why_len, "backup %s: %s", bak, strerror(-rc));
		goto out;
	}
	free(tmp_bak);
	tmp_bak = NULL;
	if (rename(tmp_new, f->real)) {
		rc = -errno;
		snprintf(why, why_len, "replacing it: %s", strerror(-rc));
		goto out;
	}
	free(tmp_new);
	tmp_new = NULL;
	rc = sync_dir(f->real);
	if (rc) {
		snprintf(why, why_len, "written, but syncing its directory "
			 "failed: %s", strerror(-rc));
		goto out;
	}
	*backup_path = bak;
	bak = NULL;
out:
	if (tmp_new)
		unlink(tmp_new);
	if (tmp_bak)
		unlink(tmp_bak);
	free(tmp_new);
	free(tmp_bak);
	free(bak);
	return rc;
}
