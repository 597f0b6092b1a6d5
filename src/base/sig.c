/*
 * sig.c - the interrupt flag, SIGPIPE ignored, held sections and the
 * lab's stop points (see sig.h).
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "xvbd/base/sig.h"

static volatile sig_atomic_t interrupted_by;

/*
 * The one list: caught as the flag, held, and looked for as pending.
 * SIGQUIT (Ctrl-\) too: its default action (a core dump) in the middle
 * of a step leaves the same debris as SIGINT's.
 */
static const int interrupt_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
#define NSIGNALS (sizeof(interrupt_signals) / sizeof(interrupt_signals[0]))

static void on_interrupt(int sig)
{
	/* The first one counts: a second Ctrl-C does not change the story. */
	if (!interrupted_by)
		interrupted_by = sig;
}

void xvbd_sig_setup(bool catch)
{
	struct sigaction sa;
	size_t i;

	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, NULL);
	if (!catch)
		return;
	sa.sa_handler = on_interrupt;
	sa.sa_flags = SA_RESTART;
	for (i = 0; i < NSIGNALS; i++)
		sigaddset(&sa.sa_mask, interrupt_signals[i]);
	for (i = 0; i < NSIGNALS; i++) {
		struct sigaction cur;

		/* Ignored on entry (nohup: SIGHUP) stays ignored. */
		if (!sigaction(interrupt_signals[i], NULL, &cur) &&
		    cur.sa_handler == SIG_IGN)
			continue;
		sigaction(interrupt_signals[i], &sa, NULL);
	}
}

int xvbd_interrupted(void)
{
	return interrupted_by;
}

const char *xvbd_sig_name(int sig)
{
	switch (sig) {
	case SIGINT:
		return "SIGINT";
	case SIGTERM:
		return "SIGTERM";
	case SIGHUP:
		return "SIGHUP";
	case SIGQUIT:
		return "SIGQUIT";
	default:
		return "a signal";
	}
}

void xvbd_sig_hold(sigset_t *old)
{
	sigset_t set;
	size_t i;

	sigemptyset(&set);
	for (i = 0; i < NSIGNALS; i++)
		sigaddset(&set, interrupt_signals[i]);
	sigprocmask(SIG_BLOCK, &set, old);
}

void xvbd_sig_release(const sigset_t *old)
{
	sigprocmask(SIG_SETMASK, old, NULL);
}

bool xvbd_sig_held_pending(void)
{
	sigset_t pending;
	size_t i;

	if (sigpending(&pending))
		return false;
	for (i = 0; i < NSIGNALS; i++)
		if (sigismember(&pending, interrupt_signals[i]))
			return true;
	return false;
}

void xvbd_sig_clear(void)
{
	interrupted_by = 0;
}

#ifdef XVBD_TEST_HOOKS
void xvbd_test_stop(const char *step)
{
	const char *at = getenv("XVBD_TEST_STOP_AT");

	if (at && !strcmp(at, step))
		raise(SIGSTOP);
}
#endif
