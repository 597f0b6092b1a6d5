/*
 * lock.c - the bounded, interruptible lock wait of xvbd's commands and
 * the per-domain lock of attach and tune (xvbd/lock.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "xvbd/base/lock.h"
#include "xvbd/base/sig.h"
#include "xvbd/base/util.h"

/* Between two tries: short next to an attach (seconds), cheap. */
#define LOCK_POLL_MS	50

int xvbd_domain_lock_path(uint32_t domid, char *buf, size_t len)
{
	int n = snprintf(buf, len, XVBD_RUN_DIR "/domain.%u.lock", domid);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/*
 * Is fd still the file at path (not unlinked by a holder that left)?
 * follow: path was opened following a symbolic link.
 */
static bool still_there(int fd, const char *path, bool follow)
{
	struct stat fst, pst;

	return !fstat(fd, &fst) &&
	       !(follow ? stat(path, &pst) : lstat(path, &pst)) &&
	       fst.st_dev == pst.st_dev && fst.st_ino == pst.st_ino;
}

int xvbd_lock_wait(const char *path, int timeout_ms,
		   void (*waiting)(void *arg), void *arg)
{
	const struct timespec poll = { 0, LOCK_POLL_MS * 1000000L };
	int64_t start = xvbd_now_ms(), now;
	bool told = false;
	int fd = -1, err;

	for (;;) {
		/* O_NOFOLLOW: the directory is root's, but a link is never
		 * ours. */
		if (fd < 0)
			fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW |
				  O_CLOEXEC, 0600);
		if (fd < 0)
			return -errno;
		if (!flock(fd, LOCK_EX | LOCK_NB)) {
			if (still_there(fd, path, false))
				return fd;
			/* The holder removed it on release: a new file. */
			close(fd);
			fd = -1;
			continue;
		}
		err = errno;
		if (err != EWOULDBLOCK && err != EINTR) {
			close(fd);
			return -err;
		}
		/* Ctrl-C while waiting: nothing is held yet. */
		if (xvbd_interrupted()) {
			close(fd);
			return -EINTR;
		}
		now = xvbd_now_ms();
		if (now - start >= timeout_ms) {
			close(fd);
			return -ETIMEDOUT;
		}
		if (!told && waiting && now - start >= XVBD_LOCK_TELL_MS) {
			waiting(arg);
			told = true;
		}
		nanosleep(&poll, NULL);
	}
}

int xvbd_lock_hold(const char *path, mode_t mode)
{
	int fd, err;

	for (;;) {
		/* Followed as locking.sh's `>>` follows it. */
		fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, mode);
		if (fd < 0)
			return -errno;
		while ((err = flock(fd, LOCK_EX) ? -errno : 0) == -EINTR)
			;
		/*
		 * Not held (ENOLCK, EBADF...): an error, never taken as held,
		 * or two hotplug scripts would bind at once.
		 */
		if (err) {
			close(fd);
			return err;
		}
		if (still_there(fd, path, true))
			return fd;
		/* The holder removed it on release: a new file. */
		close(fd);
	}
}

void xvbd_lock_release(const char *path, int fd)
{
	if (fd < 0)
		return;
	/* Unlinked while held, so nothing stays behind; a waiter that
	 * then gets the old file sees it is gone (still_there). */
	unlink(path);
	close(fd);
}

struct tell_arg {
	const char *cmd, *whom, *path;
};

static void tell_waiting(void *arg)
{
	const struct tell_arg *t = arg;

	fprintf(stderr, "xvbd: %s: waiting for %s (lock %s)\n", t->cmd,
		t->whom, t->path);
}

int xvbd_lock_wait_s(const char *cmd, const char *path, unsigned timeout_s,
		     bool tell, const char *whom)
{
	struct tell_arg t = { cmd, whom, path };
	int64_t timeout_ms = (int64_t)timeout_s * 1000;

	return xvbd_lock_wait(path, timeout_ms > INT_MAX ? INT_MAX :
			      (int)timeout_ms, tell ? tell_waiting : NULL, &t);
}

int xvbd_domain_lock(const char *cmd, uint32_t domid, const char *domain,
		     unsigned timeout_s, bool tell)
{
	char path[64], whom[320];
	int fd;

	if (xvbd_domain_lock_path(domid, path, sizeof(path)))
		return -1;
	if (mkdir(XVBD_RUN_DIR, 0700) && errno != EEXIST) {
		xvbd_err(cmd, XVBD_RUN_DIR, "%s", strerror(errno));
		return -1;
	}
	snprintf(whom, sizeof(whom), "another xvbd attach or tune of domain "
		 "%s", domain);
	fd = xvbd_lock_wait_s(cmd, path, timeout_s, tell, whom);
	if (fd == -ETIMEDOUT) {
		xvbd_err(cmd, "domain", "%s: another xvbd attach or tune held "
			 "its lock (%s) for %u s; nothing done", domain, path,
			 timeout_s);
		return -1;
	}
	if (fd == -EINTR) {
		xvbd_err(cmd, "interrupted", "by %s while waiting for the lock "
			 "of domain %s; nothing done",
			 xvbd_sig_name(xvbd_interrupted()), domain);
		return -1;
	}
	if (fd < 0) {
		xvbd_err(cmd, "lock", "%s: %s", path, strerror(-fd));
		return -1;
	}
	return fd;
}

void xvbd_domain_unlock(uint32_t domid, int fd)
{
	char path[64];

	if (fd < 0 || xvbd_domain_lock_path(domid, path, sizeof(path)))
		return;
	xvbd_lock_release(path, fd);
}
