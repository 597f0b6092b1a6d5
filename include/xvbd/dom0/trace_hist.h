/*
 * trace_hist.h - the text of an ftrace hist trigger's "hist" file, read
 * into entries (pure: unit tested with the kernel's own output).
 *
 * One file holds one section per hist trigger of the event:
 *
 *	# trigger info: hist:keys=vk,t.buckets=1000000000,... [active]
 *	{ vk:          5, t: ~ 12000000000-12999999999, lat: ~ 2048-4095 }
 *	hitcount:          3  lat:       9000
 *		max:       3500  lat:       3500
 *	Totals:
 *	    Hits: 3
 *	    Entries: 1
 *	    Dropped: 0
 *
 * (the entry's "{ ... } hitcount: ..." is one line; the "max:" line of
 * an onmax() handler follows it).  A key is "name: value" or, with the
 * .buckets modifier, "name: ~ low-high"; either way the entry keeps the
 * low end.  Every number is a plain decimal; anything else is -EINVAL:
 * the file is the kernel's, and a format xvbd does not know is said, not
 * guessed at.
 */
#ifndef XVBD_TRACE_HIST_H
#define XVBD_TRACE_HIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define XVBD_HIST_KEYS_MAX	3	/* TRACING_MAP_KEYS_MAX */
#define XVBD_HIST_VALS_MAX	3	/* TRACING_MAP_VALS_MAX */
#define XVBD_HIST_NAME_MAX	32

struct xvbd_hist_entry {
	size_t section;		/* which trigger of the file, from 0 */
	/* Its trigger's text, after "# trigger info: " (not terminated:
	 * info_len bytes, within the parsed text). */
	const char *info;
	size_t info_len;
	size_t nkeys, nvals;
	char key_name[XVBD_HIST_KEYS_MAX][XVBD_HIST_NAME_MAX];
	uint64_t key[XVBD_HIST_KEYS_MAX];	/* a bucket's low end */
	uint64_t hitcount;
	char val_name[XVBD_HIST_VALS_MAX][XVBD_HIST_NAME_MAX];
	uint64_t val[XVBD_HIST_VALS_MAX];	/* sums */
	bool has_max;
	uint64_t max;		/* onmax(): the largest value seen */
};

struct xvbd_hist_totals {
	size_t sections;
	uint64_t hits, entries, dropped;	/* summed over the sections */
};

/*
 * Parse text (len bytes, need not be NUL-terminated); fn is called for
 * every entry once its max line (if any) is read, and a non-zero return
 * stops the parse and is returned.  0, -EINVAL (not a hist file), or
 * fn's value.
 */
int xvbd_hist_parse(const char *text, size_t len,
		    int (*fn)(void *arg, const struct xvbd_hist_entry *e),
		    void *arg, struct xvbd_hist_totals *totals);

/* The value of key or val name in e: 0, or -ENOENT. */
int xvbd_hist_key(const struct xvbd_hist_entry *e, const char *name,
		  uint64_t *v);
int xvbd_hist_val(const struct xvbd_hist_entry *e, const char *name,
		  uint64_t *v);

#endif /* XVBD_TRACE_HIST_H */
