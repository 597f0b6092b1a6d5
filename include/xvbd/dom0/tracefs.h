/*
 * tracefs.h - the kernel's tracing filesystem, as xvbd uses it: an
 * instance of its own, synthetic events, hist triggers on its instance's
 * events and their "hist" files.  Every tracefs path of xvbd is spelled
 * in src/dom0/tracefs.c and nowhere else:
 *
 *	/sys/kernel/tracing (or /sys/kernel/debug/tracing), a tracefs mount
 *	  synthetic_events			global: one name per process
 *	  instances/<name>/			mkdir / rmdir
 *	  instances/<name>/events/<system>/<event>/trigger, .../hist
 *	  instances/<name>/error_log		why a trigger was refused
 *
 * Everything an xvbd process creates is named after it (its pid), so two
 * of them never touch each other's: an instance's triggers are its own,
 * and a synthetic event, which is global, is removed only by name.
 *
 * root NULL is the system's tracefs (found by its mount, statfs' magic);
 * another root is a plain directory tree standing for it (unit tests).
 * rmdir of an instance refuses (EBUSY) while it has hist triggers.
 * Names given to these functions must be [A-Za-z0-9_-]+: they become
 * path components and definitions.  Functions return 0 or -errno.
 */
#ifndef XVBD_TRACEFS_H
#define XVBD_TRACEFS_H

#include <stdbool.h>
#include <stddef.h>

struct xvbd_tracefs;

/*
 * Find tracefs and check that it has what latency tracking needs: hist
 * triggers, synthetic events, the block layer's request tracepoints, and
 * write access.  On failure *why says what is missing in a few words
 * ("tracefs is not mounted", "no hist triggers in this kernel
 * (CONFIG_HIST_TRIGGERS)", "not root") and the result is -ENOENT,
 * -EOPNOTSUPP or -EACCES.
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
 * A synthetic event: def is its definition ("name u64 a; u64 b"),
 * appended to synthetic_events; removed by name ("!name").
 */
int xvbd_tracefs_synth_add(struct xvbd_tracefs *t, const char *def,
			   char *err, size_t err_len);
int xvbd_tracefs_synth_remove(struct xvbd_tracefs *t, const char *name);
/* Is a synthetic event of that name defined?  1, 0 or -errno. */
int xvbd_tracefs_synth_exists(struct xvbd_tracefs *t, const char *name);

/*
 * Append cmd to instances/<inst>/events/<system>/<event>/trigger (a
 * "!" in front removes it).  When the kernel refuses it, err gets the
 * kernel's reason from the instance's error_log ("Variable already
 * defined"), or strerror.
 */
int xvbd_tracefs_trigger(struct xvbd_tracefs *t, const char *inst,
			 const char *system, const char *event,
			 const char *cmd, char *err, size_t err_len);

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
 * ("system/event"), in that order, cleared (a trigger whose variables
 * another one uses stays until that one is gone); then the instance can
 * be removed, and the synthetic event, no longer used, with it.  Either
 * may be NULL.
 */
void xvbd_tracefs_remedy(const struct xvbd_tracefs *t, const char *inst,
			 const char *synth, const char *const *events,
			 size_t nevents, char *buf, size_t len);
/* Every trigger of inst's event sys_event ("block/block_rq_issue"). */
int xvbd_tracefs_trigger_clear(struct xvbd_tracefs *t, const char *inst,
			       const char *sys_event);
/* The instance's directory, for messages. */
void xvbd_tracefs_instance_path(const struct xvbd_tracefs *t,
				const char *inst, char *buf, size_t len);

#endif /* XVBD_TRACEFS_H */
