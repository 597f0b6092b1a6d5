/*
 * share.h - network shares (NFS, SMB) mounted in dom0 for image files,
 * and the validation every path, URL and mount option goes through
 * before it reaches mount(8), libxl or a hotplug script.
 *
 * Plain libc only (no Xen libraries): the parsers are unit-tested.
 *
 * URLs:
 *	nfs://SERVER/EXPORT/DIR.../IMAGE  mounts SERVER:/EXPORT/DIR... (the
 *					  directory holding the image)
 *	smb://SERVER/SHARE/DIR.../IMAGE   mounts //SERVER/SHARE
 * SERVER is a host name or IPv4 address; no user info (credentials come
 * from a file, never the URL or argv), no port, no percent-encoding.  Path
 * components are [A-Za-z0-9._+-], neither "." nor "..", not dash-led.
 *
 * A share is mounted on XVBD_SHARE_DIR/<name> (one directory per share);
 * XVBD_SHARE_DIR/<name>.mount records that xvbd mounted it, so that the
 * detach of the last VBD whose image lives there unmounts it.
 * Functions return 0 / negative errno; *why (static text) or a why
 * buffer says what was wrong, fit for "xvbd: <cmd>: <what>: <why>".
 */
#ifndef XVBD_SHARE_H
#define XVBD_SHARE_H

#include <sys/stat.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define XVBD_SHARE_DIR		"/run/xvbd/shares"
#define XVBD_PATH_MAX		1024

enum xvbd_share_proto {
	XVBD_SHARE_NFS,
	XVBD_SHARE_SMB,
};

struct xvbd_share_url {
	enum xvbd_share_proto proto;
	char server[256];
	char share[XVBD_PATH_MAX];	/* nfs: "/srv/export/dir"; smb: "share" */
	char image[XVBD_PATH_MAX];	/* below the mount: "img", "dir/img" */
	char source[XVBD_PATH_MAX + 300]; /* "srv:/srv/export", "//srv/share" */
	char name[128];			/* mount directory's name */
};

const char *xvbd_share_proto_name(enum xvbd_share_proto proto);
/* mount(8) file system type: "nfs" or "cifs". */
const char *xvbd_share_fstype(enum xvbd_share_proto proto);

int xvbd_share_parse_url(const char *url, struct xvbd_share_url *u,
			 const char **why);

/*
 * An absolute path that is safe to hand to libxl, a hotplug script and
 * mount: [A-Za-z0-9._+-@:/], no "." / ".." / empty components, no
 * dash-led component, at most XVBD_PATH_MAX - 1 bytes.
 */
int xvbd_path_check(const char *path, const char **why);

/*
 * A word handed to libxl as is (a script-backed target such as
 * "iscsi:iqn...", a script name): [A-Za-z0-9._+-@:=/], not dash-led, no
 * "." / ".." components, shorter than XVBD_PATH_MAX.
 */
int xvbd_token_check(const char *s, const char **why);

/*
 * User mount options: "key[=value],..." with keys from a per-protocol
 * allow list (credentials and passwords never: use --credentials), values
 * [A-Za-z0-9._+-/:@].  NULL and "" are fine.
 */
int xvbd_share_opts_check(enum xvbd_share_proto proto, const char *opts,
			  const char **why);
/* Mount options every share gets, whatever the user asked for. */
#define XVBD_SHARE_FORCED_OPTS	"nosuid,nodev,noexec"

/*
 * The -o string for mount: the protocol's defaults (nfs:
 * "vers=3,proto=tcp,nolock,retry=0"; smb: "vers=3.0"), then the
 * user's options, then XVBD_SHARE_FORCED_OPTS (later ones win in mount
 * helpers), then "credentials=FILE" for SMB.  -ENAMETOOLONG if it does
 * not fit.
 */
int xvbd_share_build_opts(enum xvbd_share_proto proto, const char *user_opts,
			  const char *credentials, char *buf, size_t len);

/*
 * The line of a mount helper's output that says what failed (its first
 * non-empty one), escaped for a terminal (xvbd_escape) into why.
 */
void xvbd_share_helper_line(const char *out, char *why, size_t why_len);

/* XVBD_SHARE_DIR "/<name>" into buf. */
int xvbd_share_mountpoint(const struct xvbd_share_url *u, char *buf,
			  size_t len);

/* ---- dom0 side effects (mount table, mount, umount, lock) ---- */

/*
 * Is path a mount point?  1 yes (source/fstype copied when non-NULL), 0
 * no, negative errno when /proc/self/mountinfo cannot be read.
 */
int xvbd_mount_lookup(const char *path, char *source, size_t source_len,
		      char *fstype, size_t fstype_len);
/* Where is block device major:minor mounted?  1 (mount point in buf), 0. */
int xvbd_mount_find_dev(unsigned major, unsigned minor, char *buf,
			size_t len);

/*
 * Exclusive lock over XVBD_SHARE_DIR (mount/umount decisions) for command
 * cmd: waited for at most timeout_s, as xvbd_lock_wait_s (xvbd/lock.h)
 * waits; tell: say on stderr what for after a second.  fd, or -ETIMEDOUT
 * (another holder), -EINTR (a caught signal, xvbd/sig.h), another -errno;
 * nothing is held then.
 */
int xvbd_share_lock(const char *cmd, unsigned timeout_s, bool tell);
/* The same in directory dir (tests). */
int xvbd_share_lock_at(const char *dir, const char *cmd, unsigned timeout_s,
		       bool tell);
void xvbd_share_unlock(int fd);
/*
 * The same lock for a layer that prints nothing: waiting (NULL: none) is
 * called once after XVBD_LOCK_TELL_MS with whom it waits for and the
 * lock's path.
 */
int xvbd_share_lock_cb(unsigned timeout_s,
		       void (*waiting)(void *arg, const char *whom,
				       const char *path), void *arg);

/*
 * Mount u (options from xvbd_share_build_opts) on its mount point,
 * creating the directory; the mount helper runs without a shell and is
 * killed after timeout_ms.  Writes the record file on success.  On
 * failure nothing is left behind and why holds the helper's last line.
 * Already mounted there by xvbd (same source, a record): 0, *reused =
 * true; a mount there without xvbd's record is not adopted (-EEXIST).
 */
int xvbd_share_mount(const struct xvbd_share_url *u, const char *opts,
		     int timeout_ms, bool *reused, char *why, size_t why_len);
/*
 * Unmount XVBD_SHARE_DIR/<name>, remove its directory and record.
 * Only for mounts that have a record (mounted by xvbd).
 */
int xvbd_share_umount(const char *name, char *why, size_t why_len);
/*
 * If target lies under XVBD_SHARE_DIR/<name>/ and <name> has a record,
 * copy <name> into buf and return 1; else 0.
 */
int xvbd_share_of_target(const char *target, char *buf, size_t len);
/*
 * lstat(path), never blocking on a file server: looked at in a thread of
 * its own given timeout_ms (a hard NFS mount whose server stopped
 * answering blocks every stat on it for ever, and Ctrl-C does not end
 * it), -ETIMEDOUT when it did not answer (the thread is left blocked;
 * the process's exit ends it).  Any path, not only one under
 * XVBD_SHARE_DIR: an admin's own NFS or CIFS mount can be anywhere.
 * 0, or the lstat's -errno.
 */
int xvbd_share_lstat(const char *path, int timeout_ms, struct stat *st);

#endif /* XVBD_SHARE_H */
