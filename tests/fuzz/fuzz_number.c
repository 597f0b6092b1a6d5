/*
 * fuzz_number.c - numbers from the command line and xenstore: strict
 * decimals with a bound (xvbd_parse_uint), booleans (xvbd_parse_bool),
 * sizes with suffixes (xvbd_parse_size) and their rendering.  A parsed
 * number respects its bound; a decimal renders back to its digits.
 */
#include <inttypes.h>
#include <stdio.h>

#include "fuzz.h"
#include "xvbd/base/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	/* The first byte picks the bound: 0, 1, 2^8-1 ... UINT64_MAX. */
	static const uint64_t bounds[] = {
		0, 1, 255, 65535, 1000000, UINT32_MAX, (1ull << 53),
		UINT64_MAX,
	};
	uint64_t max = len ? bounds[data[0] % 8] : UINT64_MAX, v = 0;
	char *s = fuzz_str(len ? data + 1 : data, len ? len - 1 : 0);
	char buf[64];
	bool b;

	if (!xvbd_parse_uint(s, max, &v)) {
		FUZZ_ASSERT(v <= max);
		snprintf(buf, sizeof(buf), "%" PRIu64, v);
		FUZZ_ASSERT(!strcmp(buf, s));	/* strict: one spelling */
	}
	if (!xvbd_parse_bool(s, &b))
		FUZZ_ASSERT(!strcmp(s, b ? "1" : "0"));
	if (!xvbd_parse_size(s, &v)) {
		xvbd_fmt_size(v, buf, sizeof(buf));
		FUZZ_ASSERT(memchr(buf, '\0', sizeof(buf)));
	}
	free(s);
	return 0;
}
