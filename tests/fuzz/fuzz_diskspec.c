/*
 * fuzz_diskspec.c - attach's pre-validation of an xl disk spec (the
 * <DiskSpec> operand and --spec): libxlutil's parser through
 * xvbd_tstack_disk_parse, then the checks cmd_attach.c runs on what it
 * says (script and target words, target paths).  A spec that passes names
 * a vdev, and its target is a path or word without option injection.
 */
#include "fuzz.h"
#include "xvbd/dom0/share.h"
#include "xvbd/xen/tstack.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct xvbd_tstack_disk *disk = NULL;
	struct xvbd_tstack_disk_info info;
	char *s, why[512];
	const char *bad;
	int err;

	if (len > 4096)		/* a spec is one command-line word */
		return 0;
	s = fuzz_str(data, len);
	err = xvbd_tstack_disk_parse(s, &disk, why, sizeof(why));
	FUZZ_ASSERT(memchr(why, '\0', sizeof(why)));
	if (!err) {
		xvbd_tstack_disk_describe(disk, &info);
		FUZZ_ASSERT(info.vdev && *info.vdev);
		if (info.script)
			(void)xvbd_token_check(info.script, &bad);
		if (info.target && *info.target &&
		    !(info.script ? xvbd_token_check(info.target, &bad) :
		      xvbd_path_check(info.target, &bad)))
			FUZZ_ASSERT(!strpbrk(info.target, ",\"' \t\n\\"));
		(void)xvbd_tstack_disk_set_vdev(disk, "xvdb");
		xvbd_tstack_disk_free(disk);
	}
	free(s);
	return 0;
}
