/*
 * journal.h - what a command has under way, for the run after it when it
 * is killed (SIGKILL, a crash, the OOM killer: no handler runs).
 *
 * A command that changes the host notes each change that would be debris
 * if it died there (an image it created, a share it mounted, a guest it
 * paused or created, blkback unloaded, a loop device bound, a removal
 * begun) in its journal, XVBD_JOURNAL_DIR/<pid>, and notes it done when
 * it is undone or handed over.  The journal goes when the command exits,
 * whatever its exit code: the command has said itself what it left.
 *
 * A journal whose process is gone is read by the next xvbd that connects
 * to Xen (journal_report.c): each open entry is checked against the host
 * (libxl, xenstore, /proc/mounts, sysfs), what is still there is named
 * with the command that removes it, and a journal with nothing left is
 * removed.  Nothing is removed for the user: a killed command's debris may
 * already be someone's (an image attached by hand since).
 *
 * Lines: "xvbd CMD START" first (START: the process's start time, field
 * 22 of /proc/PID/stat, so that a pid reused by another process is told
 * apart), then "+KIND ARGS" and "-KIND ARGS" with ARGS as noted.  An
 * entry is open when its "+" line has no later "-" line with the same
 * KIND and ARGS.  /run is a tmpfs: a journal lives as long as what it
 * describes (domains, mounts, loop devices, a module), except a created
 * image, which a reboot keeps and nobody then names.
 *
 * Plain libc (xvbd-block links it).
 */
#ifndef XVBD_JOURNAL_H
#define XVBD_JOURNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define XVBD_JOURNAL_DIR	"/run/xvbd/journal"
/* A journal is a few lines; a bigger file is not one of ours. */
#define XVBD_JOURNAL_MAX_BYTES	65536

/* Kinds, with their ARGS. */
#define XVBD_J_IMAGE	"image"		/* DEV:INO PATH: created by attach */
#define XVBD_J_IMAGE_FMT	"%llx:%llu %s"
#define XVBD_J_MOUNT	"mount"		/* POINT: a share mount made */
#define XVBD_J_PAUSED	"paused"	/* DOMID NAME: paused by attach */
#define XVBD_J_CREATED	"created"	/* DOMID NAME: start's xl create -p */
#define XVBD_J_GUEST	"guest"		/* DOMID NAME: an ab run's guest */
#define XVBD_J_UNLOADED	"unloaded"	/* MODULE: defaults --reload */
#define XVBD_J_DETACH	"detach"	/* DOMID DEVID VDEV NAME: removing */
#define XVBD_J_LOOP	"loop"		/* NR DEV:INO BACKEND DISKSEQ:
					 * xvbd-block */
#define XVBD_J_REBOOT	"reboot"	/* DOMID NAME: pv --reboot's */
#define XVBD_J_REBOOT_CFG "reboot-config" /* FILE: what recreates it */
#define XVBD_J_ABDISK	"abdisk"	/* DOMID DEVID VDEV TARGET NAME: ab
					 * run's disk under test, attached */
#define XVBD_J_TRACE	"trace"		/* INSTANCE SYNTH: a tracefs
					 * instance (SYNTH "-"; an older
					 * xvbd's synthetic event) */

/*
 * The writing side.  begin names the command (its journal is made at its
 * first note; a process that never began keeps none: a unit test).  note/done append one line; note returns 0 or -errno.  A
 * journal that cannot be written (no /run/xvbd) does not stop a command:
 * it works as it did before journals, and only its own SIGKILL would go
 * unnamed.  end removes this process's journal.
 */
void xvbd_journal_begin(const char *cmd);
int xvbd_journal_note(const char *kind, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void xvbd_journal_done(const char *kind, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void xvbd_journal_end(void);

/* The reading side's pure part: one journal's text. */
struct xvbd_jentry {
	char kind[16];
	char *args;
};

struct xvbd_journal {
	char cmd[32];
	unsigned long long start;
	/* Wall-clock time of its last line (the file's mtime, seconds):
	 * what the process did last, it did no later than this. */
	long long written_s;
	struct xvbd_jentry *open;	/* in the order they were noted */
	size_t nopen;
};

/* 0, -EINVAL (not a journal: no header), -ENOMEM. */
int xvbd_journal_parse(const char *text, struct xvbd_journal *j);
void xvbd_journal_free(struct xvbd_journal *j);

/* The start time of process pid (field 22): 0, or -ESRCH when gone. */
int xvbd_proc_start_time(pid_t pid, unsigned long long *start);

/*
 * fn for the journal of every process that is gone (pid, and what is
 * open in it); with forget, a journal whose fn returned 0 (nothing left)
 * is removed.  Only root-owned regular files of a sane size are read.
 * The number of such journals.
 */
int xvbd_journal_each_dead(int (*fn)(long pid, const struct xvbd_journal *j,
					void *arg),
			   void *arg, bool forget);

/*
 * Close an entry of a dead process's journal (pid, j as each_dead gave
 * them): what another process undid for it (xvbd-block freeing a killed
 * add's loop device), so that no later run acts on it or names it again.
 * 0 or -errno.
 */
int xvbd_journal_done_for(long pid, const struct xvbd_journal *j,
			  const char *kind, const char *args);

/*
 * Split "DOMID REST" (the kinds that start with a domid): 0, or -EINVAL.
 * *rest points into args.
 */
int xvbd_journal_domid(const char *args, long *domid, const char **rest);

#endif
