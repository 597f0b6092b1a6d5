/*
 * sha256.h - SHA-256 (FIPS 180-4) of a buffer, as lower-case hex: what
 * sha256sum(1) prints for the same bytes, so that a record's hash of a
 * file can be checked with the system's own tool.
 */
#ifndef XVBD_SHA256_H
#define XVBD_SHA256_H

#include <stddef.h>

#define XVBD_SHA256_HEX_LEN	65	/* 64 hex digits and the NUL */

void xvbd_sha256_hex(const void *data, size_t len,
		     char hex[XVBD_SHA256_HEX_LEN]);

#endif /* XVBD_SHA256_H */
