/*
 * safepath.h - may root trust a path?  The rule of ssh's StrictModes.
 *
 * xvbd runs as root and edits or reads files that users name (a guest's
 * xl config, a directory of A/B records).  Whoever can change a
 * directory on the way can redirect it: replace the file, or a symbolic
 * link, or add files.  So the path is walked the way the kernel resolves
 * it, symbolic links followed (/etc/xen/auto holds links), and every
 * directory entered, every link met and the final file or directory must
 * be owned by root (or by the user xvbd runs as) and not writable by its
 * group or others.  One exception, as the kernel's own protected links
 * and sticky directories intend: a sticky directory (/tmp) may be
 * writable by others on the way, since nobody else can rename or remove
 * what root owns in it; never the directory that holds the target, nor
 * the target directory itself, where anybody could add names.
 *
 * Plain libc: unit-tested with trees made under a temporary directory.
 */
#ifndef XVBD_SAFEPATH_H
#define XVBD_SAFEPATH_H

#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

enum xvbd_safe_kind {
	XVBD_SAFE_FILE,		/* a regular file, in a safe directory */
	XVBD_SAFE_DIR,		/* a directory that nobody else can write */
};

struct xvbd_safe_why {
	char msg[512];		/* "<component>: <what is wrong>" */
	uid_t owner;		/* of the unsafe component */
	uid_t target_owner;	/* of the target, once reached */
	char *real;		/* the path resolved (malloc'd), or NULL */
};

/*
 * 0 when path is safe, with why->real its resolved form; -EPERM when a
 * component is unsafe (why->msg names it, why->owner its owner, and
 * why->real is still set when the walk reached the end); another
 * negative errno when the walk failed (ENOENT, ENOTDIR, ELOOP...), named
 * in why->msg.  Free why->real with xvbd_safe_why_free.
 */
int xvbd_path_check_safe(const char *path, enum xvbd_safe_kind kind,
			 struct xvbd_safe_why *why);
void xvbd_safe_why_free(struct xvbd_safe_why *why);

/*
 * The regular file at path, checked as above (XVBD_SAFE_FILE) and opened
 * for reading by its resolved form with O_NOFOLLOW and O_NONBLOCK (a FIFO
 * does not block), the rule checked again on the descriptor's own stat
 * (*st): what the caller reads is what was judged, read once from this
 * descriptor.  The descriptor (O_CLOEXEC; why->real set), or a negative
 * errno with why->msg and why->real NULL: -EPERM unsafe, -EISDIR or
 * -EINVAL not a regular file, or the walk's or the open's error.
 */
int xvbd_safe_open_file(const char *path, struct stat *st,
			struct xvbd_safe_why *why);

/* "uid 65534 (nobody)", or "uid N" when it has no name. */
void xvbd_owner_name(uid_t uid, char *buf, size_t len);

#endif /* XVBD_SAFEPATH_H */
