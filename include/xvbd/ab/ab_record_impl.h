/*
 * ab_record_impl.h - what the record's files share beyond ab.h
 * (src/ab_record.c, src/ab_json.c, src/ab_store.c), and the limits a
 * recorder must stay within so that the reader accepts its records.
 */
#ifndef XVBD_AB_RECORD_IMPL_H
#define XVBD_AB_RECORD_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "xvbd/ab/ab.h"
#include "xvbd/base/util.h"

/*
 * The largest record file: the reader refuses more (by its size, before
 * reading), the writer never produces more (-EFBIG).  The recorder keeps
 * its samples within half of it, thinning them past that (a sample of
 * one VBD is about 410 bytes: 11 hours of 1-second samples before the
 * first thinning); the rest is the head's room.  The reader holds the
 * file's text and what it keeps (ab_json_read.c), so reading a record
 * costs about the file's size and a half, never more than ~50 MiB.
 */
#define XVBD_AB_FILE_MAX	(32 << 20)
#define XVBD_AB_TEXT_MAX	4096	/* a fact value, a note, a workload */
#define XVBD_AB_FACTS_MAX	4096
#define XVBD_AB_NOTES_MAX	1024
#define XVBD_AB_VDEVS_MAX	64
#define XVBD_AB_INTERVAL_MAX_NS	(86400 * UINT64_C(1000000000))
#define XVBD_AB_WARMUP_MAX_NS	(86400 * UINT64_C(1000000000))

/* e->msg (e may be NULL). */
void xvbd_ab_err_set(struct xvbd_ab_err *e, const char *fmt, ...)
	XVBD_PRINTF(2, 3);
/* Only printable ASCII, at most max bytes. */
bool xvbd_ab_printable(const char *s, size_t max);
/* Dotted lower case: [a-z0-9_-] words joined by single dots. */
bool xvbd_ab_fact_key_valid(const char *key);
/* "2024-05-01T12:00:00Z" (UTC, whole seconds); -EINVAL if negative. */
int xvbd_ab_format_started(int64_t unix_ns, char *buf, size_t len);
/* "duration", "run", "until-shutdown"; -EINVAL otherwise. */
int xvbd_ab_mode_parse(const char *s, enum xvbd_ab_mode *mode);
/*
 * Is id "<label>-<yyyymmddThhmmss>-<4 hex>" with a valid label?  The
 * label into label[len].
 */
bool xvbd_ab_id_split(const char *id, char *label, size_t len);
/*
 * The checks beyond JSON types, run before writing and after reading:
 * everything but the samples (head), or all.  e may be NULL.
 */
int xvbd_ab_record_check_head(const struct xvbd_ab_record *rec,
			      struct xvbd_ab_err *e);
int xvbd_ab_record_check(const struct xvbd_ab_record *rec,
			 struct xvbd_ab_err *e);

#endif /* XVBD_AB_RECORD_IMPL_H */
