/*
 * sig.h - signals for commands that change the host (attach, start,
 * tune, detach, defaults) and for xvbd-block.
 *
 * A Ctrl-C that kills a command between two of its steps leaves debris:
 * a created image, a mount without its record, a half-added disk, a
 * loop device nobody will free.  So those commands catch SIGINT,
 * SIGTERM, SIGHUP and SIGQUIT with a handler that only sets a flag; they
 * look at it at their step boundaries (xvbd_interrupted()), take their
 * cleanup path and exit 1 ("interrupted").  The waits of the layers (xenstore
 * watches, the domain and shares' locks) end early when it is set.
 *
 * SIGPIPE is ignored by every command: a reader that went away (xvbd
 * ... | head -1) turns writes into EPIPE errors, never a death in the
 * middle of a step with the guest paused.
 *
 *	xvbd_sig_setup()	once, in main()
 *	xvbd_interrupted()	the flag (0: not interrupted; else the signal)
 *	xvbd_sig_hold()		INT/TERM/HUP/QUIT blocked across a section
 *				that must finish (modprobe -r .. reload; a
 *				paused guest's window in start and attach;
 *				in xvbd-block, the loop's bind .. publish)
 *	xvbd_sig_held_pending()	one of them arrived while held
 *	xvbd_test_stop()	the lab's fault injection (XVBD_TEST_STOP_AT)
 *
 * One list of signals for catching, holding and the pending check, and
 * their names: here only.
 */
#ifndef XVBD_SIG_H
#define XVBD_SIG_H

#include <signal.h>
#include <stdbool.h>

/*
 * SIGPIPE ignored; with catch, SIGINT, SIGTERM, SIGHUP and SIGQUIT set
 * the flag (SA_RESTART: libxl and libxenstore are not interrupted; poll()
 * and sleeps still return early, and the layers' waits check the flag).
 * Without catch they keep their default action (the commands that change
 * nothing, or handle them themselves: stats, ab record, ab run).  One
 * ignored on entry stays ignored (nohup xvbd ...: SIGHUP).
 */
void xvbd_sig_setup(bool catch);

/* The signal that interrupted the command (SIGINT...), or 0. */
int xvbd_interrupted(void);

/* "SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT", else "a signal". */
const char *xvbd_sig_name(int sig);

/*
 * SIGINT, SIGTERM, SIGHUP and SIGQUIT blocked (the old mask in *old) until
 * xvbd_sig_release(old); one that arrived meanwhile is then delivered
 * (caught: sets the flag; not caught: its default action).  A caller that
 * acts on one itself (a paused guest's window: unpause, then say
 * "interrupted") asks xvbd_sig_held_pending() first.
 */
void xvbd_sig_hold(sigset_t *old);
void xvbd_sig_release(const sigset_t *old);
/* While held (also by a caller's own mask): has one of them arrived? */
bool xvbd_sig_held_pending(void);

/* Tests only: the flag cleared. */
void xvbd_sig_clear(void);

/*
 * Fault injection for the lab's signal tests (tests/lab/README.md): when
 * the environment variable XVBD_TEST_STOP_AT names step, the process
 * stops itself (SIGSTOP) there, so that a test can send a signal at
 * exactly that point and then SIGCONT.  The only place it is read.
 * Compiled into test builds only (XVBD_TEST_HOOKS: make TEST_HOOKS=1 or
 * SANITIZE=1): in the installed xvbd and xvbd-block it is nothing, so an
 * environment kept by sudo cannot stop root's command holding a lock.
 */
#ifdef XVBD_TEST_HOOKS
void xvbd_test_stop(const char *step);
#else
static inline void xvbd_test_stop(const char *step)
{
	(void)step;
}
#endif

#endif /* XVBD_SIG_H */
