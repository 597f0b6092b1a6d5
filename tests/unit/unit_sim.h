/*
 * unit_sim.h - how many experiments a unit test's simulation runs.
 * Valgrind runs a binary some 50 times slower and looks for memory
 * errors, which the first few hundred experiments of a simulation reach
 * as surely as the thousands its statistical limit wants; so `make
 * check-valgrind` sets XVBD_UNIT_SIM_DIVISOR (10) and the native and
 * sanitizer runs keep the full counts.  Every limit a test asserts is
 * derived from the count run.
 */
#ifndef UNIT_SIM_H
#define UNIT_SIM_H

#include <stddef.h>
#include <stdlib.h>

static inline size_t sim_count(size_t full)
{
	const char *e = getenv("XVBD_UNIT_SIM_DIVISOR");
	unsigned long div = e ? strtoul(e, NULL, 10) : 1;

	if (div < 1 || div > 100)
		div = 1;
	return full / div;
}

#endif /* UNIT_SIM_H */
