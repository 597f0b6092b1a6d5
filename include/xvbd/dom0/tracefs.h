/*
 * tracefs.h - the kernel's tracing filesystem, as xvbd uses it: an
 * instance of its own, its events enabled and filtered, its clock, and
 * its per-CPU ring buffers read raw.  Every tracefs path of xvbd is
 * spelled in src/dom0/tracefs.c and nowhere else:
 *
 *	/sys/kernel/tracing (or /sys/kernel/debug/tracing), a tracefs mount
 *	  events/header_page			a ring buffer page's layout
 *	  instances/<name>/			mkdir / rmdir
 *	  instances/<name>/trace_clock, buffer_size_kb
 *	  instances/<name>/events/<system>/<event>/enable, filter, format
 *	  instances/<name>/per_cpu/cpu<N>/trace_pipe_raw
 *	  instances/<name>/error_log		why a filter was refused
 *	  synthetic_events			an older xvbd's leftovers
 *
 * Everything an xvbd process creates is named after it (its pid), so two
 * of them never touch each other's: an instance's events, filters,
 * clock and buffers are its own.
 *
 * root NULL is the system's tracefs (found by its mount, statfs' magic);
 * another root is a plain directory tree standing for it (unit tests).
 * rmdir of an instance disables its events; an open trace_pipe_raw
 * keeps it (EBUSY).
 * Names given to these functions must be [A-Za-z0-9_-]+: they become
 * path components and definitions.  Functions return 0 or -errno.
 */
#ifndef XVBD_TRACEFS_H
#define XVBD_TRACEFS_H

#include <stdbool.h>
#include <stddef.h>

struct xvbd_tracefs;

/*
 * Find tracefs and check that it has what latency tracking needs:
 * instances, the block layer's request tracepoints, and write access.
 * On failure *why says what is missing in a few words ("tracefs is not
 * mounted", "no block request tracepoints in ...", "not root") and the
 * result is -ENOENT, -EOPNOTSUPP or -EACCES.
 */
int xvbd_tracefs_open(const char *root, struct xvbd_tracefs **out,
		      char *why, size_t why_len);
void xvbd_tracefs_close(struct xvbd_tracefs *t);	/* NULL ok */
/* The directory found ("/sys/kernel/tracing"). */
const char *xvbd_tracefs_root(const struct xvbd_tracefs *t);

/* instances/<name>: create (-EEXIST if there), remove, is it there. */
int xvbd_tracefs_instance_add(struct xvbd_tracefs *t, const char *name);
int xvbd_tracefs_instance_remove(struct xvbd_tracefs *t, const char *name);
bool xvbd_tracefs_instance_exists(struct xvbd_tracefs *t, const char *name);

/*
 * Is a synthetic event of that name defined?  1, 0 or -errno.  (xvbd
 * makes none now; an older xvbd killed while tracing left one.)
 */
int xvbd_tracefs_synth_exists(struct xvbd_tracefs *t, const char *name);

/*
 * instances/<inst>/events/<system>/<event>/filter: only the records
 * that match text are written.  When the kernel refuses it, err gets
 * the kernel's reason from the instance's error_log, or strerror.
 */
int xvbd_tracefs_event_filter(struct xvbd_tracefs *t, const char *inst,
			      const char *system, const char *event,
			      const char *text, char *err, size_t err_len);
/* instances/<inst>/trace_clock: the clock its records are stamped by. */
int xvbd_tracefs_clock(struct xvbd_tracefs *t, const char *inst,
		       const char *clock);

/*
 * instances/<inst>/events/<system>/<event>/enable: the event written
 * into the instance's own ring buffer (on) or not.
 */
int xvbd_tracefs_event_enable(struct xvbd_tracefs *t, const char *inst,
			      const char *system, const char *event, bool on);
/*
 * instances/<inst>/events/<system>/<event>/format whole into *buf
 * (malloc'd, NUL-terminated, *len bytes).
 */
int xvbd_tracefs_event_format(struct xvbd_tracefs *t, const char *inst,
			      const char *system, const char *event,
			      char **buf, size_t *len);
/* events/header_page: the layout of a ring buffer page's header. */
int xvbd_tracefs_header_page(struct xvbd_tracefs *t, char **buf,
			     size_t *len);
/* instances/<inst>/buffer_size_kb: each CPU's ring buffer, in KiB. */
int xvbd_tracefs_buffer_kb(struct xvbd_tracefs *t, const char *inst,
			   unsigned kb);
/*
 * instances/<inst>/per_cpu/cpu<N>/trace_pipe_raw of every CPU the
 * instance has a buffer for, opened non-blocking: *fds (malloc'd, *n of
 * them), which the caller closes before removing the instance (an open
 * one holds it).  Each read(2) of a page's size takes one page of
 * events off that CPU's buffer; -EAGAIN when it is empty.
 */
int xvbd_tracefs_raw_open(struct xvbd_tracefs *t, const char *inst,
			  int **fds, size_t *n);

/*
 * The shell command that removes an instance and a synthetic event left
 * behind (a killed process's): the triggers of each of events
 * ("system/event"), in that order, cleared (an older xvbd's hist
 * triggers: one whose variables another one uses stays until that one
 * is gone); then the instance can be removed, and the synthetic event,
 * no longer used, with it.  Either may be NULL.
 */
void xvbd_tracefs_remedy(const struct xvbd_tracefs *t, const char *inst,
			 const char *synth, const char *const *events,
			 size_t nevents, char *buf, size_t len);
/* The instance's directory, for messages. */
void xvbd_tracefs_instance_path(const struct xvbd_tracefs *t,
				const char *inst, char *buf, size_t len);

#endif /* XVBD_TRACEFS_H */
