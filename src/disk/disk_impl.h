/*
 * disk_impl.h - what the files of the disk layer share (xvbd/disk/disk.h
 * is what it promises):
 *   disk_desc.c     the description and its one parser
 * Internal to src/disk: nothing else includes it.
 */
#ifndef XVBD_DISK_IMPL_H
#define XVBD_DISK_IMPL_H

#include "xvbd/disk/disk.h"

/* The keys of xvbd_disk_keys[], by index (the bits of desc->given). */
enum disk_key {
	KEY_SPEC, KEY_FILE, KEY_PHY, KEY_SHARE,
	KEY_VDEV, KEY_ACCESS, KEY_SIZE, KEY_PREALLOC, KEY_CACHE,
	KEY_CREDENTIALS, KEY_SHARE_OPTS,
	KEY_RING_ORDER, KEY_QUEUES, KEY_INDIRECT, KEY_DISCARD, KEY_TRUSTED,
	KEY_N,
};
#define KEY_BIT(k)	(1u << (k))

#endif
