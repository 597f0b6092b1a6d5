/*
 * unit_data.h - the unit tests' saved data (tests/data/: real fio
 * outputs from the lab, benchmark lines), read whole.  The tests run
 * from the top of the tree (make check-unit, check-valgrind).
 */
#ifndef UNIT_DATA_H
#define UNIT_DATA_H

#include <stdio.h>
#include <stdlib.h>

/* path's bytes, NUL-terminated (*len without it); fails the test if
 * it cannot be read.  Free it. */
static inline char *unit_slurp(const char *path, size_t *len)
{
	FILE *fp = fopen(path, "rb");
	char *buf;
	long n;

	assert_non_null(fp);
	assert_int_equal(fseek(fp, 0, SEEK_END), 0);
	n = ftell(fp);
	assert_true(n >= 0);
	rewind(fp);
	buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, fp), (size_t)n);
	buf[n] = '\0';
	fclose(fp);
	*len = (size_t)n;
	return buf;
}

#endif /* UNIT_DATA_H */
