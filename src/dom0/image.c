/*
 * image.c - create or check image files for file-backed VBDs.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/openat2.h>

#include "xvbd/dom0/image.h"
#include "xvbd/base/journal.h"
#include "xvbd/dom0/share.h"
#include "xvbd/base/util.h"

/* The kernel's own limit on links followed in one lookup (MAXSYMLINKS). */
#define LINKS_MAX	40

/* ---- resolving a path without letting others choose the file ---- */

/*
 * A directory whose entries only root can change: a symbolic link in it
 * says what root meant.
 */
static bool dir_trusted(int dirfd)
{
	struct stat st;

	return !fstat(dirfd, &st) && st.st_uid == 0 &&
	       !(st.st_mode & (S_IWGRP | S_IWOTH));
}

static void replace_fd(int *fd, int nfd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = nfd;
}

/*
 * Walk path from dirfd (an absolute path starts at "/") to its last
 * component, opening each directory with O_PATH|O_NOFOLLOW: *parent (an
 * O_PATH descriptor the caller closes) holds name.  strict: no symbolic
 * link, no "." or "..", no directory on another file system than dirfd's.
 * Otherwise a link is followed only where dir_trusted() says root put it.
 * The last component is not opened (it may not exist: -ENOENT with
 * *parent set, so that the caller can create it); a link there is
 * followed under the same rules if follow_last, else left to the
 * caller's O_NOFOLLOW.
 */
static int walk(int dirfd, const char *path, bool strict, bool follow_last,
		int *parent, char *name, char *why, size_t why_len)
{
	char buf[PATH_MAX], target[PATH_MAX], tmp[PATH_MAX];
	const char *p, *next;
	struct stat st, root;
	int cur = -1, nfd, links = 0, err;
	size_t len;
	bool last;

	*parent = -1;
	if (snprintf(buf, sizeof(buf), "%s", path) >= (int)sizeof(buf))
		return -ENAMETOOLONG;
	if (strict && fstat(dirfd, &root))
		return -errno;
	p = buf;
	cur = openat(*p == '/' ? AT_FDCWD : dirfd, *p == '/' ? "/" : ".",
		     O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (cur < 0)
		return -errno;
	if (strict && *p == '/') {
		snprintf(why, why_len, "not a relative path");
		err = -EINVAL;
		goto fail;
	}
	for (;;) {
		while (*p == '/')
			p++;
		len = strcspn(p, "/");
		if (!len) {
			snprintf(why, why_len, "not a file name");
			err = -EINVAL;
			goto fail;
		}
		if (len > NAME_MAX) {
			err = -ENAMETOOLONG;
			goto fail;
		}
		memcpy(name, p, len);
		name[len] = '\0';
		for (next = p + len; *next == '/'; next++)
			;
		last = !*next;
		if (!strcmp(name, ".") || !strcmp(name, "..")) {
			if (strict || last) {
				snprintf(why, why_len, "\"%s\" in the path",
					 name);
				err = -EINVAL;
				goto fail;
			}
			nfd = openat(cur, name, O_PATH | O_DIRECTORY |
				     O_CLOEXEC);
			if (nfd < 0) {
				err = -errno;
				goto fail;
			}
			replace_fd(&cur, nfd);
			p = next;
			continue;
		}
		nfd = openat(cur, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (nfd < 0) {
			err = -errno;
			if (err == -ENOENT && last)
				*parent = cur;
			else
				close(cur);
			if (err == -ENOENT)
				snprintf(why, why_len, "does not exist");
			return err;
		}
		if (fstat(nfd, &st)) {
			err = -errno;
			close(nfd);
			goto fail;
		}
		if (S_ISLNK(st.st_mode) && last && !follow_last && !strict) {
			close(nfd);
			*parent = cur;
			return 0;
		}
		if (S_ISLNK(st.st_mode)) {
			ssize_t n;

			close(nfd);
			if (strict || !dir_trusted(cur)) {
				snprintf(why, why_len, "%s: a symbolic link %s",
					 name, strict ? "on the share" :
					 "in a directory other users can "
					 "write to");
				err = -ELOOP;
				goto fail;
			}
			n = readlinkat(cur, name, target, sizeof(target) - 1);
			if (n <= 0 || ++links > LINKS_MAX) {
				err = n < 0 ? -errno : -ELOOP;
				goto fail;
			}
			target[n] = '\0';
			if (snprintf(tmp, sizeof(tmp), "%s%s%s", target,
				     last ? "" : "/", next) >=
			    (int)sizeof(tmp)) {
				err = -ENAMETOOLONG;
				goto fail;
			}
			memcpy(buf, tmp, sizeof(buf));
			p = buf;
			if (*p == '/') {
				nfd = open("/", O_PATH | O_DIRECTORY |
					   O_CLOEXEC);
				if (nfd < 0) {
					err = -errno;
					goto fail;
				}
				replace_fd(&cur, nfd);
			}
			continue;
		}
		if (strict && st.st_dev != root.st_dev) {
			close(nfd);
			snprintf(why, why_len, "%s: on another file system "
				 "than the share", name);
			err = -EXDEV;
			goto fail;
		}
		if (last) {
			close(nfd);
			*parent = cur;
			return 0;
		}
		if (!S_ISDIR(st.st_mode)) {
			close(nfd);
			err = -ENOTDIR;
			goto fail;
		}
		replace_fd(&cur, nfd);
		p = next;
	}
fail:
	close(cur);
	return err;
}

static int openat2_beneath(int dirfd, const char *rel, int flags,
			   mode_t mode)
{
	struct open_how how = {
		.flags = (uint64_t)(flags | O_NOFOLLOW | O_CLOEXEC),
		.mode = flags & O_CREAT ? mode : 0,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
			RESOLVE_NO_XDEV | RESOLVE_NO_MAGICLINKS,
	};
	long fd = syscall(SYS_openat2, dirfd, rel, &how, sizeof(how));

	return fd < 0 ? -errno : (int)fd;
}

int xvbd_image_openat_beneath(int dirfd, const char *rel, int flags,
			      mode_t mode, bool use_openat2)
{
	char name[NAME_MAX + 1], why[128];
	int parent, fd, err;

	if (use_openat2) {
		fd = openat2_beneath(dirfd, rel, flags, mode);
		if (fd != -ENOSYS)
			return fd;
	}
	err = walk(dirfd, rel, true, false, &parent, name, why, sizeof(why));
	if (err && !(err == -ENOENT && parent >= 0 && (flags & O_CREAT))) {
		if (parent >= 0)
			close(parent);
		return err;
	}
	fd = openat(parent, name, flags | O_NOFOLLOW | O_CLOEXEC, mode);
	err = fd < 0 ? -errno : fd;
	close(parent);
	return err;
}

/*
 * XVBD_SHARE_DIR/<name>/<rest>: *mnt_fd the share's mount point (O_PATH),
 * *rest points into path.  0 for a path elsewhere, 1 for a share's, or
 * -errno (the share is not mounted: -ENOENT).
 */
static int share_root(const char *path, int *mnt_fd, const char **rest,
		      char *why, size_t why_len)
{
	static const char dir[] = XVBD_SHARE_DIR "/";
	char point[XVBD_PATH_MAX], name[NAME_MAX + 1];
	const char *slash;
	struct stat pst, mst;
	int parent, fd, err;

	if (strncmp(path, dir, sizeof(dir) - 1))
		return 0;
	slash = strchr(path + sizeof(dir) - 1, '/');
	if (!slash || slash == path + sizeof(dir) - 1 ||
	    (size_t)(slash - path) >= sizeof(point))
		return 0;
	snprintf(point, sizeof(point), "%.*s", (int)(slash - path), path);
	/* The mount point's own path is root's (XVBD_SHARE_DIR is 0700). */
	err = walk(AT_FDCWD, point, false, false, &parent, name, why, why_len);
	if (err) {
		if (parent >= 0)
			close(parent);
		return err;
	}
	fd = openat(parent, name, O_PATH | O_DIRECTORY | O_NOFOLLOW |
		    O_CLOEXEC);
	err = fd < 0 ? -errno : 0;
	if (!err && (fstat(parent, &pst) || fstat(fd, &mst)))
		err = -errno;
	close(parent);
	if (!err && pst.st_dev == mst.st_dev) {
		snprintf(why, why_len, "the share is not mounted on %s",
			 point);
		err = -ENOENT;
	}
	if (err) {
		if (fd >= 0)
			close(fd);
		return err;
	}
	*mnt_fd = fd;
	*rest = slash + 1;
	return 1;
}

static int why_err(int err, char *why, size_t why_len, const char *text)
{
	if (!why[0])
		snprintf(why, why_len, "%s", text ? text : strerror(-err));
	return err;
}

/* A share's file: beneath the mount, on it, and the mount nosuid,nodev. */
static int open_on_share(int mnt_fd, const char *rest, int flags,
			 struct stat *st, char *why, size_t why_len)
{
	struct stat mst;
	struct statvfs vfs;
	int fd, err;

	fd = xvbd_image_openat_beneath(mnt_fd, rest, flags, 0, true);
	if (fd == -ELOOP)
		return why_err(fd, why, why_len,
			       "a symbolic link on the share (refused: the "
			       "file server would choose a dom0 file)");
	if (fd == -EXDEV)
		return why_err(fd, why, why_len,
			       "not on the share's own file system");
	if (fd == -ENOENT)
		return why_err(fd, why, why_len, "does not exist");
	if (fd < 0)
		return why_err(fd, why, why_len, NULL);
	err = 0;
	if (fstat(fd, st) || fstat(mnt_fd, &mst) || fstatvfs(fd, &vfs))
		err = why_err(-errno, why, why_len, NULL);
	else if (st->st_dev != mst.st_dev)
		err = why_err(-EXDEV, why, why_len,
			      "not on the share's own file system");
	else if ((vfs.f_flag & (ST_NOSUID | ST_NODEV)) !=
		 (ST_NOSUID | ST_NODEV))
		err = why_err(-EINVAL, why, why_len,
			      "the share is mounted without nosuid,nodev "
			      "(not by this xvbd: detach its disks so that "
			      "it is mounted again)");
	if (err) {
		close(fd);
		return err;
	}
	return fd;
}

/* Any other path: links only where root put them. */
static int open_local(const char *path, int flags, struct stat *st,
		      char *why, size_t why_len)
{
	char name[NAME_MAX + 1];
	int parent, fd, err;

	err = walk(AT_FDCWD, path, false, true, &parent, name, why, why_len);
	if (err) {
		if (parent >= 0)
			close(parent);
		return why_err(err, why, why_len, NULL);
	}
	fd = openat(parent, name, flags | O_NOFOLLOW | O_CLOEXEC);
	err = fd < 0 ? -errno : 0;
	close(parent);
	if (err == -ELOOP)	/* swapped for a link since the walk */
		return why_err(err, why, why_len, "a symbolic link appeared "
			       "in its place");
	if (err)
		return why_err(err, why, why_len, NULL);
	if (fstat(fd, st)) {
		err = why_err(-errno, why, why_len, NULL);
		close(fd);
		return err;
	}
	return fd;
}

/*
 * Look (O_PATH) before opening for real: a FIFO or device node is refused
 * without being opened.  The real open then must find the same inode.
 */
int xvbd_image_open(const char *path, int flags, struct stat *st_out,
		    char *why, size_t why_len)
{
	struct stat pst = { 0 }, st;
	const char *rest = NULL;
	int mnt_fd = -1, pfd, fd, share, pass;

	why[0] = '\0';
	if (!path || path[0] != '/')
		return why_err(-EINVAL, why, why_len, "not an absolute path");
	share = share_root(path, &mnt_fd, &rest, why, why_len);
	if (share < 0)
		return why_err(share, why, why_len, NULL);
	pfd = -1;
	for (pass = 0; pass < 2; pass++) {
		int f = pass ? (flags & O_ACCMODE) | O_NONBLOCK | O_NOCTTY :
			O_PATH;

		fd = share ? open_on_share(mnt_fd, rest, f, &st, why,
					   why_len) :
			open_local(path, f, &st, why, why_len);
		if (fd < 0)
			break;
		if (S_ISLNK(st.st_mode)) {
			close(fd);
			fd = why_err(-ELOOP, why, why_len, share ?
				     "a symbolic link on the share (refused: "
				     "the file server would choose a dom0 "
				     "file)" : "a symbolic link appeared in "
				     "its place");
			break;
		}
		if (!S_ISREG(st.st_mode) ||
		    (pass && (st.st_dev != pst.st_dev ||
			      st.st_ino != pst.st_ino))) {
			close(fd);
			fd = why_err(-EINVAL, why, why_len,
				     S_ISREG(st.st_mode) ? "replaced while "
				     "being opened" : "not a regular file");
			break;
		}
		if (!pass) {
			pst = st;
			pfd = fd;
		}
	}
	if (pfd >= 0)
		close(pfd);
	if (mnt_fd >= 0)
		close(mnt_fd);
	if (fd < 0)
		return fd;
	/* Regular: O_NONBLOCK did its job (nothing blocked) and goes. */
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	if (st_out)
		*st_out = st;
	return fd;
}

int xvbd_image_plan(const struct stat *st, bool have_size,
		    uint64_t want_bytes, enum xvbd_image_action *action,
		    uint64_t *size_bytes, char *why, size_t why_len)
{
	char have[32], want[32];

	if (have_size && (!want_bytes || want_bytes % XVBD_SECTOR_BYTES)) {
		snprintf(why, why_len, "--size must be a non-zero multiple of "
			 "%u bytes", XVBD_SECTOR_BYTES);
		return -EINVAL;
	}
	if (!st) {
		if (!have_size) {
			snprintf(why, why_len, "does not exist (give --size "
				 "to create it)");
			return -ENOENT;
		}
		*action = XVBD_IMAGE_CREATE;
		*size_bytes = want_bytes;
		return 0;
	}
	if (!S_ISREG(st->st_mode)) {
		snprintf(why, why_len, "not a regular file");
		return -EINVAL;
	}
	if (have_size && (uint64_t)st->st_size != want_bytes) {
		xvbd_fmt_size((uint64_t)st->st_size, have, sizeof(have));
		xvbd_fmt_size(want_bytes, want, sizeof(want));
		snprintf(why, why_len, "exists with %s (%" PRIu64 " bytes), "
			 "not the %s asked for: refusing to %s it", have,
			 (uint64_t)st->st_size, want,
			 want_bytes < (uint64_t)st->st_size ? "shrink" :
			 "resize");
		return -EEXIST;
	}
	if (!st->st_size || st->st_size % XVBD_SECTOR_BYTES) {
		snprintf(why, why_len, "size %" PRIu64 " is not a non-zero "
			 "multiple of %u bytes", (uint64_t)st->st_size,
			 XVBD_SECTOR_BYTES);
		return -EINVAL;
	}
	*action = XVBD_IMAGE_USE;
	*size_bytes = (uint64_t)st->st_size;
	return 0;
}

/*
 * Where a new image goes: the directory holding it, resolved under the
 * same rules as xvbd_image_open (a link as the last component is never
 * followed: O_EXCL refuses it, unlink removes the link).  *parent and
 * name for the caller's openat/unlinkat.
 */
static int image_parent(const char *path, int *parent, char *name,
			char *why, size_t why_len)
{
	const char *rest = NULL;
	int mnt_fd = -1, share, err;

	*parent = -1;
	share = share_root(path, &mnt_fd, &rest, why, why_len);
	if (share < 0)
		return share;
	err = walk(share ? mnt_fd : AT_FDCWD, share ? rest : path,
		   share, false, parent, name, why, why_len);
	if (mnt_fd >= 0)
		close(mnt_fd);
	if (err == -ENOENT && *parent >= 0)
		err = 0;	/* the file itself is missing: fine */
	if (err && *parent >= 0) {
		close(*parent);
		*parent = -1;
	}
	return err;
}

static int create(const char *path, uint64_t size, bool prealloc, char *why,
		  size_t why_len)
{
	struct stat st = { 0 };
	char name[NAME_MAX + 1];
	int parent, fd, err;

	why[0] = '\0';
	err = image_parent(path, &parent, name, why, why_len);
	if (err)
		return why_err(err, why, why_len, NULL);
	fd = openat(parent, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
		    O_NONBLOCK | O_CLOEXEC, 0600);
	if (fd < 0) {
		err = -errno;
		close(parent);
		snprintf(why, why_len, "cannot create: %s", strerror(-err));
		return err;
	}
	/* Killed from here on (a long --prealloc), it is the next run's to
	 * name: this file, not whatever has its name later. */
	if (!fstat(fd, &st))
		xvbd_journal_note(XVBD_J_IMAGE, XVBD_J_IMAGE_FMT,
				  (unsigned long long)st.st_dev,
				  (unsigned long long)st.st_ino, path);
	if (prealloc)
		err = posix_fallocate(fd, 0, (off_t)size);
	else if (ftruncate(fd, (off_t)size))
		err = errno;
	if (!err && fsync(fd))
		err = errno;
	if (close(fd) && !err)
		err = errno;
	if (err) {
		snprintf(why, why_len, "cannot %s: %s",
			 prealloc ? "allocate" : "size", strerror(err));
		if (!unlinkat(parent, name, 0))
			xvbd_journal_done(XVBD_J_IMAGE, XVBD_J_IMAGE_FMT,
					  (unsigned long long)st.st_dev,
					  (unsigned long long)st.st_ino, path);
	}
	close(parent);
	return -err;
}

int xvbd_image_remove(const char *path)
{
	char name[NAME_MAX + 1], why[128];
	struct stat st;
	int parent, err;

	err = image_parent(path, &parent, name, why, sizeof(why));
	if (err)
		return err;
	/* Only the regular file this process made, never a link put there. */
	if (fstatat(parent, name, &st, AT_SYMLINK_NOFOLLOW))
		err = -errno;
	else if (!S_ISREG(st.st_mode))
		err = -EINVAL;
	else if (unlinkat(parent, name, 0))
		err = -errno;
	else
		xvbd_journal_done(XVBD_J_IMAGE, XVBD_J_IMAGE_FMT,
				  (unsigned long long)st.st_dev,
				  (unsigned long long)st.st_ino, path);
	close(parent);
	return err;
}

void xvbd_image_handed_over(const char *path)
{
	char name[NAME_MAX + 1], why[128];
	struct stat st;
	int parent;

	if (image_parent(path, &parent, name, why, sizeof(why)))
		return;
	if (!fstatat(parent, name, &st, AT_SYMLINK_NOFOLLOW))
		xvbd_journal_done(XVBD_J_IMAGE, XVBD_J_IMAGE_FMT,
				  (unsigned long long)st.st_dev,
				  (unsigned long long)st.st_ino, path);
	close(parent);
}

int xvbd_image_check(const char *path, bool have_size, uint64_t want_bytes,
		     enum xvbd_image_action *action, uint64_t *size_bytes,
		     char *why, size_t why_len)
{
	char name[NAME_MAX + 1];
	struct stat st;
	int fd, parent, err;

	fd = xvbd_image_open(path, O_RDONLY, &st, why, why_len);
	if (fd >= 0) {
		close(fd);
		return xvbd_image_plan(&st, have_size, want_bytes, action,
				       size_bytes, why, why_len);
	}
	if (fd != -ENOENT)
		return fd;
	/* Missing: only the file itself, in a directory it may go in. */
	err = image_parent(path, &parent, name, why, why_len);
	if (err)
		return err;
	close(parent);
	return xvbd_image_plan(NULL, have_size, want_bytes, action,
			       size_bytes, why, why_len);
}

int xvbd_image_prepare(const char *path, bool have_size, uint64_t want_bytes,
		       bool prealloc, bool *created, uint64_t *size_bytes,
		       char *why, size_t why_len)
{
	enum xvbd_image_action action;
	int err;

	*created = false;
	err = xvbd_image_check(path, have_size, want_bytes, &action,
			       size_bytes, why, why_len);
	if (err || action == XVBD_IMAGE_USE)
		return err;
	err = create(path, want_bytes, prealloc, why, why_len);
	if (!err)
		*created = true;
	return err;
}
