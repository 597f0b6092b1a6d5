/*
 * fuzz_plandisk.c - a plan's disk object (plan_disk.h: apply's "disks",
 * ab run's experiment levels) on hostile JSON text: the plan reader's
 * checks (size, NUL bytes, depth, \u0000), yajl's tree, the key check,
 * then each key through the disk layer's parser.  A disk it passes names
 * a vdev (or auto) and a target that cannot add keys to the xl disk spec
 * an experiment level stands for (no ',', quote or blank), and every
 * error is one bounded line.
 */
#include "fuzz.h"
#include "xvbd/cmd/plan_disk.h"

#define DEPTH_MAX	4

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct xvbd_disk_desc *d = malloc(sizeof(*d));
	char why[600], *text;
	struct xvbd_plan_err e = { why, sizeof(why) };
	unsigned sources;
	yajl_val root;
	int err;

	if (!d)
		abort();
	if (len > 8192)
		len = 8192;
	text = fuzz_str(data, len);
	why[0] = '\0';
	/* the first byte's low bit: apply's sources, or an experiment's */
	sources = XVBD_DISK_SOURCE(XVBD_DISK_FILE) |
		  XVBD_DISK_SOURCE(XVBD_DISK_PHY);
	if (len && (data[0] & 1))
		sources |= XVBD_DISK_SOURCE(XVBD_DISK_SHARE);
	err = xvbd_plan_tree(text, len, 8192, DEPTH_MAX, &root, why,
			     sizeof(why));
	if (!err && YAJL_IS_OBJECT(root)) {
		err = xvbd_plan_disk_keys(&e, "levels[0].disk", root);
		if (!err)
			err = xvbd_plan_disk_desc(&e, "levels[0].disk", root,
						  sources, d);
		if (!err) {
			FUZZ_ASSERT(d->auto_vdev || d->vdev[0]);
			FUZZ_ASSERT(!strpbrk(d->vdev, ",:= \t\n"));
			FUZZ_ASSERT(!strpbrk(d->target, ",\"' \t\n\\"));
			FUZZ_ASSERT(xvbd_disk_desc_same(d, d));
		}
	}
	if (root)
		yajl_tree_free(root);
	FUZZ_ASSERT(memchr(why, '\0', sizeof(why)));
	FUZZ_ASSERT(!strchr(why, '\n'));
	free(text);
	free(d);
	return 0;
}
