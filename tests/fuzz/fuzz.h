/*
 * fuzz.h - shared helpers of the libFuzzer harnesses (tests/fuzz/fuzz_NAME.c).
 *
 * Parsers take NUL-terminated strings: each harness copies the input into
 * a buffer of exactly len + 1 bytes, so ASan sees a read past the end.
 * Harnesses with several inputs split the data at '\x01' bytes (a byte no
 * valid input holds, so the fuzzer learns it from the seeds).
 */
#ifndef XVBD_FUZZ_H
#define XVBD_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Read-write: xvbd's parsers write only their own buffers. */
static inline char *fuzz_str(const uint8_t *data, size_t len)
{
	char *s = malloc(len + 1);

	if (!s)
		abort();
	memcpy(s, data, len);
	s[len] = '\0';
	return s;
}

/*
 * The next field of data (up to '\x01' or the end) as a malloc'd string;
 * *pos moves past it.  Past the end: "".
 */
static inline char *fuzz_field(const uint8_t *data, size_t len, size_t *pos)
{
	size_t start = *pos, end = start;

	while (end < len && data[end] != 1)
		end++;
	*pos = end < len ? end + 1 : end;
	return fuzz_str(data + start, end - start);
}

/* A harness's own check failed: a bug, reported like a crash. */
#define FUZZ_ASSERT(cond) do { if (!(cond)) abort(); } while (0)

#endif /* XVBD_FUZZ_H */
