/*
 * fuzz_ab_record.c - A/B record files (xvbd_ab_record_from_json): a
 * record is read from a directory others may write to.  What parses must
 * write back to JSON and parse again to the same text.
 */
#include "fuzz.h"
#include "xvbd/ab/ab.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct xvbd_ab_record rec, again;
	struct xvbd_ab_err e;
	char *json = NULL, *json2 = NULL;
	size_t jlen = 0, jlen2 = 0;

	if (xvbd_ab_record_from_json((const char *)data, len, &rec, &e)) {
		FUZZ_ASSERT(memchr(e.msg, '\0', sizeof(e.msg)));
		FUZZ_ASSERT(!strchr(e.msg, '\n'));
		return 0;
	}
	if (!xvbd_ab_record_to_json(&rec, &json, &jlen)) {
		FUZZ_ASSERT(!xvbd_ab_record_from_json(json, jlen, &again,
						      &e));
		FUZZ_ASSERT(!xvbd_ab_record_to_json(&again, &json2, &jlen2));
		FUZZ_ASSERT(jlen == jlen2 && !memcmp(json, json2, jlen));
		xvbd_ab_record_free(&again);
	}
	free(json);
	free(json2);
	xvbd_ab_record_free(&rec);
	return 0;
}
