/*
 * ab_order.c - the order of an experiment's runs: a Williams design
 * (Williams 1949, "Experimental designs balanced for the estimation of
 * residual effects of treatments"), of which ABBA is the k = 2 case.
 *
 * Row 0 interleaves the levels from both ends: 0, 1, k-1, 2, k-2, ...
 * Its successive differences mod k are then 1, -2, 3, -4, ..., all
 * distinct for k even, so the k cyclic shifts of the row have every
 * ordered pair (i, j) adjacent exactly once: each level follows each
 * other level once over k blocks, and stands at each position once
 * (a Latin square).  For k odd the differences repeat, and the shifts
 * of the mirrored row supply the missing pairs: 2k rows, each pair
 * twice.  Pure (unit-tested: tests/unit/test_ab_sweep.c checks both
 * balances for every k).
 */
#include <errno.h>
#include <stddef.h>

#include "xvbd/ab/ab_sweep.h"

size_t xvbd_ab_order_rows(size_t k)
{
	if (k < 2 || k > XVBD_AB_LEVELS_MAX)
		return 0;
	return k % 2 ? 2 * k : k;
}

/* Position pos of row 0: 0, 1, k-1, 2, k-2, ... */
static size_t first_row(size_t k, size_t pos)
{
	if (!pos)
		return 0;
	return pos % 2 ? (pos + 1) / 2 : k - pos / 2;
}

int xvbd_ab_order(size_t k, size_t block, size_t *order)
{
	size_t rows = xvbd_ab_order_rows(k), row, pos;
	bool mirror;

	if (!rows || !order)
		return -EINVAL;
	row = block % rows;
	mirror = row >= k;	/* k odd: the second half mirrors the first */
	row %= k;
	for (pos = 0; pos < k; pos++)
		order[pos] = (first_row(k, mirror ? k - 1 - pos : pos) + row) %
			     k;
	return 0;
}
