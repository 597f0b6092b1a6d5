/*
 * fuzz_vdev.c - virtual device names (the <VDev> of show, tune, detach,
 * --vbd, --vdev): xvbd_vdev_parse, and the round trip through
 * xvbd_vdev_name (a devid that has a name parses back to itself).
 */
#include "fuzz.h"
#include "xvbd/xen/blkif.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	char *s = fuzz_str(data, len), name[32];
	uint32_t devid = 0, again = 0;

	if (!xvbd_vdev_parse(s, &devid) &&
	    !xvbd_vdev_name(devid, name, sizeof(name))) {
		FUZZ_ASSERT(!xvbd_vdev_parse(name, &again));
		FUZZ_ASSERT(again == devid);
	}
	free(s);
	return 0;
}
