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

/*
 * A lock under XVBD_RUN_DIR: fd, or -errno with the one line a user gets
 * (what, why) filled in.
 */
static int lock_why(const char *path, unsigned timeout_s,
		    void (*waiting)(void *arg), void *arg, const char *whom,
		    const char *what, char *subject, size_t subject_len,
		    char *why, size_t why_len)
{
	int64_t timeout_ms = (int64_t)timeout_s * 1000;
	int fd;

	if (mkdir(XVBD_RUN_DIR, 0700) && errno != EEXIST) {
		fd = -errno;
		snprintf(subject, subject_len, "%s", XVBD_RUN_DIR);
		snprintf(why, why_len, "%s", strerror(-fd));
		return fd;
	}
	fd = xvbd_lock_wait(path, timeout_ms > INT_MAX ? INT_MAX :
			    (int)timeout_ms, waiting, arg);
	if (fd == -ETIMEDOUT) {
		snprintf(subject, subject_len, "%s", what);
		snprintf(why, why_len, "%s held its lock (%s) for %u s; "
			 "nothing done", whom, path, timeout_s);
	} else if (fd == -EINTR) {
		snprintf(subject, subject_len, "interrupted");
		snprintf(why, why_len, "by %s while waiting for the lock of "
			 "%s; nothing done", xvbd_sig_name(xvbd_interrupted()),
			 what);
	} else if (fd < 0) {
		snprintf(subject, subject_len, "lock");
		snprintf(why, why_len, "%s: %s", path, strerror(-fd));
	}
	return fd;
}

/* A lock under XVBD_RUN_DIR for cmd: fd, or -1 after one line. */
static int run_lock(const char *cmd, const char *path, unsigned timeout_s,
		    bool tell, const char *whom, const char *what)
{
	struct tell_arg t = { cmd, whom, path };
	char subject[320], why[PATH_MAX + 400];
	int fd;

	fd = lock_why(path, timeout_s, tell ? tell_waiting : NULL, &t, whom,
		      what, subject, sizeof(subject), why, sizeof(why));
	if (fd < 0) {
		xvbd_err(cmd, subject, "%s", why);
		return -1;
	}
	return fd;
}

/* Who else takes a domain's lock, and its name in messages. */
static int domain_words(uint32_t domid, const char *domain, char *path,
			size_t path_len, char *whom, size_t whom_len,
			char *what, size_t what_len)
{
	if (xvbd_domain_lock_path(domid, path, path_len))
		return -ENAMETOOLONG;
	snprintf(whom, whom_len, "another xvbd attach or tune of domain %s",
		 domain);
	snprintf(what, what_len, "domain %s", domain);
	return 0;
}

struct why_tell {
	void (*fn)(void *arg, const char *whom, const char *path);
	void *arg;
	const char *whom, *path;
};

static void why_tell_waiting(void *arg)
{
	const struct why_tell *t = arg;

	t->fn(t->arg, t->whom, t->path);
}

int xvbd_domain_lock_why(uint32_t domid, const char *domain,
			 unsigned timeout_s,
			 void (*waiting)(void *arg, const char *whom,
					 const char *path),
			 void *arg, char *subject, size_t subject_len,
			 char *why, size_t why_len)
{
	struct why_tell t;
	char path[64], whom[320], what[300];
	int err;

	err = domain_words(domid, domain, path, sizeof(path), whom,
			   sizeof(whom), what, sizeof(what));
	if (err) {
		snprintf(subject, subject_len, "lock");
		snprintf(why, why_len, "%s", strerror(-err));
		return err;
	}
	t = (struct why_tell){ waiting, arg, whom, path };
	return lock_why(path, timeout_s, waiting ? why_tell_waiting : NULL,
			&t, whom, what, subject, subject_len, why, why_len);
}

int xvbd_domain_lock(const char *cmd, uint32_t domid, const char *domain,
		     unsigned timeout_s, bool tell)
{
	char path[64], whom[320], what[300];

	if (domain_words(domid, domain, path, sizeof(path), whom,
			 sizeof(whom), what, sizeof(what)))
		return -1;
	return run_lock(cmd, path, timeout_s, tell, whom, what);
}

/* FNV-1a: a name for the lock of any path, fixed length. */
static uint64_t path_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return h;
}

int xvbd_file_lock_path(const char *real, char *buf, size_t len)
{
	int n = snprintf(buf, len, XVBD_RUN_DIR "/file.%016llx.lock",
			 (unsigned long long)path_hash(real));

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

int xvbd_file_lock(const char *cmd, const char *real, unsigned timeout_s,
		   bool tell)
{
	char path[64], whom[PATH_MAX + 64], what[PATH_MAX + 8];

	if (xvbd_file_lock_path(real, path, sizeof(path)))
		return -1;
	snprintf(whom, sizeof(whom), "another xvbd editing %s", real);
	snprintf(what, sizeof(what), "%s", real);
	return run_lock(cmd, path, timeout_s, tell, whom, what);
}

void xvbd_file_unlock(const char *real, int fd)
{
	char path[64];

	if (fd < 0 || xvbd_file_lock_path(real, path, sizeof(path)))
		return;
	xvbd_lock_release(path, fd);
}

void xvbd_domain_unlock(uint32_t domid, int fd)
{
	char path[64];

	if (fd < 0 || xvbd_domain_lock_path(domid, path, sizeof(path)))
		return;
	xvbd_lock_release(path, fd);
}
