/*
 * fuzz_sysfs.c - what dom0's sysfs hands xvbd stats: one-counter files
 * (blkback's statistics/rd_req ...), a block device's stat line, the
 * "major:minor" of a backend's physical-device key (written by a hotplug
 * script), and blkback's device names ("vbd-DOMID-DEVID").
 */
#include "fuzz.h"
#include "xvbd/dom0/modparam.h"
#include "xvbd/dom0/sysfs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct xvbd_blkstat st;
	char *s = fuzz_str(data, len);
	uint64_t v;
	unsigned major, minor;
	uint32_t domid, devid;

	/* Unterminated buffers, as read(2) returns them. */
	(void)xvbd_sysfs_parse_counter((const char *)data, len, &v);
	if (!xvbd_sysfs_parse_blkstat((const char *)data, len, &st))
		FUZZ_ASSERT(st.nfields >= 11);
	(void)xvbd_sysfs_parse_devnum(s, &major, &minor);
	(void)xvbd_modparam_parse_vbd_name(s, &domid, &devid);
	free(s);
	return 0;
}
