/*
 * optval.h - one grammar for option values, shared by every command:
 * seconds, percentages (confidences are percentages with fixed bounds),
 * counts and sizes.  Each parser checks the whole text and the option's
 * bounds; on error it returns -EINVAL and writes the one reason a user
 * sees for that kind into why ("expected seconds from 0.01 to 86400"),
 * so the same text gets the same verdict and the same words from every
 * command.  The command layer adds the option's name (xvbd_opt_*(),
 * cmd.h).
 *
 * The grammar, for every kind:
 *   seconds     digits, optionally "." and up to 9 more ("30", "0.25")
 *   percentage  digits, optionally "." and up to 3 more, optionally "%"
 *               ("95", "99.5", "95%"); bounds inclusive
 *   count       digits: "0" or no leading zero
 *   size        digits with an optional binary suffix: B, K (KiB, k),
 *               M (MiB), G (GiB), T (TiB)
 * No sign, no blank, no exponent, nothing after.
 */
#ifndef XVBD_OPTVAL_H
#define XVBD_OPTVAL_H

#include <stddef.h>
#include <stdint.h>

#define XVBD_OPTVAL_WHY_MAX	128

/* Seconds into ns, min_ns <= value <= max_s seconds. */
int xvbd_optval_seconds(const char *s, uint64_t min_ns, uint64_t max_s,
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
/* "0", "0.01", "1.5", "86400": seconds as the messages show them. */
void xvbd_optval_fmt_seconds(uint64_t ns, char *buf, size_t len);

#endif /* XVBD_OPTVAL_H */
