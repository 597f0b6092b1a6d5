/*
 * unit_sig.h - for unit tests that catch signals as xvbd's commands do
 * (test_sig, test_lock): back to the default dispositions, nothing
 * blocked, the interrupt flag clear, between tests.
 */
#ifndef XVBD_UNIT_SIG_H
#define XVBD_UNIT_SIG_H

#include <signal.h>
#include <string.h>

#include "xvbd/base/sig.h"

static inline void unit_sig_reset(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT,
				    SIGPIPE };
	struct sigaction dfl;
	sigset_t none;
	size_t i;

	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &dfl, NULL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	xvbd_sig_clear();
}

#endif
