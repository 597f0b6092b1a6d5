/*
 * fuzz_diskdesc.c - the disk layer's one parser (xvbd/disk/disk.h) on
 * hostile (key, value) pairs, as a plan file or a key=value list hands
 * them: fields split at '\x01', key then value, in either grammar's
 * words.  A description the parser passes names a vdev (or auto), a
 * source, and a target without option injection; its one-line text and
 * the same-disk test run on it.
 */
#include "fuzz.h"
#include "xvbd/disk/disk.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct xvbd_disk_desc *d = malloc(sizeof(*d));
	struct xvbd_report rep;
	char text[4096], *key, *value;
	size_t pos = 0;
	int rc = 0;

	if (!d)
		abort();
	if (len > 8192)
		len = 8192;
	xvbd_report_init(&rep, NULL, NULL);
	xvbd_disk_desc_init(d, len && (data[0] & 1) ? XVBD_DISK_WORDS_OPTIONS :
			    XVBD_DISK_WORDS_KEYS, XVBD_DISK_SOURCES_ALL);
	while (!rc && pos < len) {
		key = fuzz_field(data, len, &pos);
		value = fuzz_field(data, len, &pos);
		rc = xvbd_disk_desc_set(d, key, value, &rep);
		free(key);
		free(value);
	}
	if (!rc && !xvbd_disk_desc_check(d, &rep)) {
		FUZZ_ASSERT(d->auto_vdev || d->vdev[0]);
		FUZZ_ASSERT(!strpbrk(d->target, ",\"' \t\n\\"));
		xvbd_disk_desc_text(d, text, sizeof(text));
		FUZZ_ASSERT(memchr(text, '\0', sizeof(text)));
		FUZZ_ASSERT(xvbd_disk_desc_same(d, d));
	}
	FUZZ_ASSERT(memchr(rep.why, '\0', sizeof(rep.why)));
	free(d);
	return 0;
}
