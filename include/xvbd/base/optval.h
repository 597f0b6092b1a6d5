/*
 * optval.h - one grammar for the values a user writes, shared by every
 * command option, tune's and start's key=value offers and apply's plans:
 * durations, percentages (confidences are percentages with fixed
 * bounds), counts, sizes and booleans.  Each parser checks the whole text
 * and the caller's bounds; on error it returns -EINVAL and writes the one
 * reason a user sees for that kind into why ("expected a duration from
 * 10ms to 24h ..."), so the same text gets the same verdict and the same
 * words wherever it is written.  The command layer adds the option's name.
 *
 * The grammar, for every kind:
 *   duration    a decimal number (up to 9 decimals) with a unit: ms, s,
 *               m (minutes) or h; a plain number is seconds
 *               ("500ms", "30s", "5m", "1h", "2.5")
 *   percentage  digits, optionally "." and up to 3 more, optionally "%"
 *               ("95", "99.5", "95%"); bounds inclusive
 *   count       digits: "0" or no leading zero
 *   size        digits with an optional binary multiple, upper or lower
 *               case: K, M, G, T, P, E (1K = 1024 bytes), also written
 *               KiB, MiB ...; B or nothing for bytes ("512", "8M", "10g",
 *               "4KiB")
 *   boolean     on, off, yes, no, true, false, 1, 0 (any case)
 * No sign, no blank, no exponent, nothing after.
 */
#ifndef XVBD_OPTVAL_H
#define XVBD_OPTVAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define XVBD_OPTVAL_WHY_MAX	160

/* A duration into ns, min_ns <= value <= max_ns. */
int xvbd_optval_seconds(const char *s, uint64_t min_ns, uint64_t max_ns,
			uint64_t *ns, char *why, size_t len);
/* A percentage lo <= v <= hi, as a fraction (95 -> 0.95). */
int xvbd_optval_percent(const char *s, double lo, double hi,
			double *fraction, char *why, size_t len);
/* A confidence level: a percentage from 50 to 99.999. */
#define XVBD_CONFIDENCE_MIN_PCT	50.0
#define XVBD_CONFIDENCE_MAX_PCT	99.999
int xvbd_optval_confidence(const char *s, double *level, char *why,
			   size_t len);
int xvbd_optval_count(const char *s, uint64_t min, uint64_t max,
		      uint64_t *out, char *why, size_t len);
int xvbd_optval_size(const char *s, uint64_t min, uint64_t max,
		     uint64_t *bytes, char *why, size_t len);
int xvbd_optval_bool(const char *s, bool *out, char *why, size_t len);
/* The grammar alone (no bounds, no message): 0, -EINVAL or -ERANGE. */
int xvbd_optval_parse_size(const char *s, uint64_t *bytes);
int xvbd_optval_parse_bool(const char *s, bool *out);
/* "0", "0.01", "1.5", "86400": seconds as a plain number. */
void xvbd_optval_fmt_seconds(uint64_t ns, char *buf, size_t len);
/* "10ms", "30s", "5m", "24h", "1.5s": a duration in its largest unit
 * that writes it exactly. */
void xvbd_optval_fmt_duration(uint64_t ns, char *buf, size_t len);

#endif /* XVBD_OPTVAL_H */
