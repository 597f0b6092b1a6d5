/*
 * ab_recorder_filedev.c - for a VBD whose backing device is a loop
 * device, the device that holds the loop's file, sampled with the rest:
 * blkback and the loop device count every request, but only what dom0's
 * page cache did not serve reaches the disk under the file (the
 * accounting's "served from dom0's page cache", src/ab/ab_account.c).
 * Found once per run (the loop's st_dev of its file), its stat file
 * opened once and re-read at each sample.
 */
#include <string.h>

#include "ab_recorder_impl.h"
#include "xvbd/dom0/loop.h"
#include "xvbd/dom0/sysfs.h"
#include "xvbd/stats/stats.h"

void xvbd_ab_filedev_sample(struct xvbd_ab_filedev *f,
			    struct xvbd_sysfs *sys,
			    const struct xvbd_stats_vbd *v,
			    struct xvbd_ab_vbd_sample *o)
{
	struct xvbd_blkstat bs;
	struct xvbd_loop lo;

	if (!f->tried && v->has_blk) {
		/* Tried once: a device that is no loop stays without. */
		f->tried = true;
		if (xvbd_loop_find_dev(v->blk_major, v->blk_minor, &lo) &&
		    xvbd_sysfs_blk_open(sys, lo.file_major, lo.file_minor,
					&f->blk))
			f->blk = NULL;
	}
	if (!f->blk || xvbd_sysfs_blk_read(f->blk, &bs))
		return;
	o->has_file_dev = true;
	o->file_dev_rd_sect = bs.rd_sectors;
	o->file_dev_wr_sect = bs.wr_sectors;
}

void xvbd_ab_filedev_close(struct xvbd_ab_filedev *f)
{
	xvbd_sysfs_blk_close(f->blk);
	memset(f, 0, sizeof(*f));
}
