/*
 * lock.h - the locks of xvbd's commands: an flock on a file, waited for
 * by polling with a bound, ending early on a caught signal, and said on a
 * terminal after a second (xvbd_lock_wait, the one such wait: the
 * per-domain lock here, the shares' lock of share.h).
 *
 * The per-domain lock of the commands that choose or change a domain's
 * VBDs (attach, tune) is a file under XVBD_RUN_DIR.
 *
 * Two `xvbd attach` of one guest would otherwise both pick the first
 * free vdev; under the lock the vdev choice and the
 * add are one step for xvbd callers.  Other toolstacks (xl block-attach)
 * do not take it: attach's cleanup checks that a device is its own.
 *
 * Plain libc only (unit-tested with a lock file of the test's); linked
 * into xvbd-block too (xvbd_lock_hold).
 */
#ifndef XVBD_LOCK_H
#define XVBD_LOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define XVBD_RUN_DIR		"/run/xvbd"
/* After this long waiting, a terminal is told what for. */
#define XVBD_LOCK_TELL_MS	1000
/* The wait of tune and detach (attach waits its --timeout). */
#define XVBD_LOCK_WAIT_S	120

/* The lock file of domain domid: 0, or -ENAMETOOLONG. */
int xvbd_domain_lock_path(uint32_t domid, char *buf, size_t len);

/*
 * An exclusive flock on path (created 0600, never through a symbolic
 * link), waiting at most timeout_ms; once XVBD_LOCK_TELL_MS have passed,
 * waiting(arg) is called (once).  The fd, or -ETIMEDOUT, or another
 * negative errno.  A signal ends the wait as it ends the process, or,
 * caught as a flag (xvbd/sig.h), with -EINTR (nothing is held while
 * waiting).  The file exists only while someone
 * holds or waits for it: xvbd_lock_release unlinks it (so a refused
 * command leaves /run/xvbd as it was), and a waiter that gets an
 * unlinked file's lock opens the path again.  (The process's exit
 * releases the lock too, leaving the file: the next holder removes it.)
 */
int xvbd_lock_wait(const char *path, int timeout_ms,
		   void (*waiting)(void *arg), void *arg);
/*
 * xvbd_lock_wait for command cmd, at most timeout_s: when tell (a
 * terminal, not -q), after XVBD_LOCK_TELL_MS stderr says "xvbd: <cmd>:
 * waiting for <whom> (lock <path>)".  Returns as xvbd_lock_wait; the
 * caller words -ETIMEDOUT and -EINTR.
 */
int xvbd_lock_wait_s(const char *cmd, const char *path, unsigned timeout_s,
		     bool tell, const char *whom);
/*
 * Xen's hotplug lock protocol (tools/hotplug/Linux/locking.sh, claim_lock),
 * for xvbd-block, which must exclude the block script: open path (created
 * with mode, a symbolic link followed as the script follows it), wait for
 * an exclusive flock without bound (EINTR retried), and hold it only if
 * path still names the locked file.  The fd, or a negative errno: a flock
 * error (ENOLCK...) is returned, never taken as held.  Released with
 * xvbd_lock_release (release_lock: unlink, then close).
 */
int xvbd_lock_hold(const char *path, mode_t mode);
/* Release a lock of xvbd_lock_wait or xvbd_lock_hold (fd < 0: nothing). */
void xvbd_lock_release(const char *path, int fd);

/*
 * The lock of domain domid (named domain in messages) for command cmd,
 * at most timeout_s: fd, or -1 after a one-line error.  tell: say on
 * stderr what it waits for after XVBD_LOCK_TELL_MS (a terminal, not -q).
 */
int xvbd_domain_lock(const char *cmd, uint32_t domid, const char *domain,
		     unsigned timeout_s, bool tell);
void xvbd_domain_unlock(uint32_t domid, int fd);
/*
 * The same lock for a layer that prints nothing: fd, or a negative errno
 * with the line a user gets in subject and why ("xvbd: <cmd>: <subject>:
 * <why>").  waiting (NULL: none) is called once after XVBD_LOCK_TELL_MS
 * with whom the lock waits for and its path.
 */
int xvbd_domain_lock_why(uint32_t domid, const char *domain,
			 unsigned timeout_s,
			 void (*waiting)(void *arg, const char *whom,
					 const char *path),
			 void *arg, char *subject, size_t subject_len,
			 char *why, size_t why_len);

/*
 * The lock of a file that xvbd edits in place (pv's xl configs), by its
 * resolved path: two edits of one file take turns, each reading the
 * file once it holds the lock, so neither loses the other's change.
 * Editors other than xvbd do not take it (the edit's own re-check before
 * its rename is what guards against them).  fd, or -1 after one line;
 * tell as for xvbd_domain_lock.
 */
int xvbd_file_lock_path(const char *real, char *buf, size_t len);
int xvbd_file_lock(const char *cmd, const char *real, unsigned timeout_s,
		   bool tell);
void xvbd_file_unlock(const char *real, int fd);

#endif
