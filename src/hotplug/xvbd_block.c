/*
 * xvbd_block.c - xvbd-block, a Xen hotplug script in C for raw image
 * files: what Xen's bash "block" script does for a regular file, without
 * forking losetup, stat, sed and a dozen xenstore-* per disk (under TCG
 * that was most of a hot-attach: bench/README.md, attach-8).
 *
 * libxl runs it as "xvbd-block add|remove" for disks whose backend key
 * "script" names it (xvbd attach sets that for raw image files), with
 * XENBUS_PATH=backend/vbd/<domid>/<devid> (relative to this domain's home
 * in xenstore), XENBUS_TYPE=vbd and XENBUS_BASE_PATH=backend.
 *
 * Run as xvbd-block-direct (a link to the same program: xvbd attach
 * --cache none) it binds the loop device with direct I/O, so that dom0's
 * page cache stays out of the guest's I/O, and refuses the disk where the
 * kernel could not turn direct I/O on (xvbd/cache.h says why the mode is
 * in the name).
 *
 *   add     the backend's params must be an absolute path to a regular
 *           file, its state InitWait.  The block script's sharing rule: a
 *           file may back several loop devices only if every use is
 *           read-only.  Binds a free loop device (read-only for mode "r")
 *           and publishes it in one transaction: node,
 *           physical-device-path, physical-device (what blkback waits
 *           for) and hotplug-status=connected.  Direct: the loop's dio
 *           attribute must read 1 after the bind, or the loop is freed
 *           and the add refused.
 *   remove  unbinds the loop device in node if it is still backed by
 *           params (a refused add left no node: nothing to do).
 *
 * SIGINT, SIGTERM and SIGHUP are held from the bind (add) or the read of
 * node (remove) to the exit: killed in between, the script would leave a
 * loop device bound that no node names.
 *
 * Errors as the block script reports them: hotplug-error and
 * hotplug-status ("error"; "busy" for a sharing conflict or a read-only
 * file, like its ebusy) in the backend directory, a line in syslog and on
 * stderr (the hotplug log), exit 1.  The check and the bind run under the
 * block script's own lock, so that the two never race each other.
 * Nothing goes through a shell.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>

#include "xvbd/base/journal.h"
#include "xvbd/dom0/cache.h"
#include "xvbd/dom0/image.h"
#include "xvbd/base/lock.h"
#include "xvbd/dom0/loop.h"
#include "xvbd/dom0/share.h"
#include "xvbd/base/sig.h"
#include "xvbd/dom0/sysfs.h"
#include "xvbd/xen/xs.h"

/* Where Xen's hotplug scripts send stderr (xen-hotplug-common.sh). */
#define HOTPLUG_LOG	"/var/log/xen/xen-hotplug.log"
/* The block script's lock (locking.sh, claim_lock "block"). */
#define LOCK_DIR	"/var/run/xen-hotplug"
#define LOCK_FILE	LOCK_DIR "/block"
#define MSG_MAX		1024
/* Transactions that fail for another reason than a lost race */
#define PUBLISH_TRIES	3
/* blkif.h XenbusStateInitWait, as the backend writes it */
#define STATE_INITWAIT	"2"

struct hotplug {
	const char *prog;		/* the name it runs as, for messages */
	bool direct_io;			/* run as xvbd-block-direct */
	const char *xenbus_path;	/* for messages */
	struct xvbd_xs_be_path be;
	struct xvbd_xs *xs;
};

static void say(const struct hotplug *h, int prio, const char *fmt, ...)
	XVBD_PRINTF(3, 4);

static void say(const struct hotplug *h, int prio, const char *fmt, ...)
{
	char msg[MSG_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	syslog(prio, "%s: %s", h->xenbus_path, msg);
	fprintf(stderr, "%s: %s: %s\n", h->prog, h->xenbus_path, msg);
}

static char *read_key(const struct hotplug *h, const char *key)
{
	char *path = xvbd_xs_path_hotplug_key(&h->be, key), *value;

	if (!path)
		return NULL;
	value = xvbd_xs_read(h->xs, path);
	free(path);
	return value;
}

static void write_key(const struct hotplug *h, const char *key,
		      const char *value)
{
	char *path = xvbd_xs_path_hotplug_key(&h->be, key);

	if (path && xvbd_xs_write(h->xs, path, value))
		say(h, LOG_ERR, "cannot write %s", path);
	free(path);
}

/*
 * The block script's fatal() (status "error") and ebusy() ("busy"):
 * libxl logs hotplug-error, then runs "remove" and tears the device
 * down.  Returns the exit code.
 */
static int refuse(const struct hotplug *h, const char *status,
		  const char *fmt, ...) XVBD_PRINTF(3, 4);

static int refuse(const struct hotplug *h, const char *status,
		  const char *fmt, ...)
{
	char msg[MSG_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	write_key(h, "hotplug-error", msg);
	write_key(h, "hotplug-status", status);
	say(h, LOG_ERR, "%s", msg);
	return 1;
}

/*
 * locking.sh's protocol, so that the block script and xvbd-block
 * exclude each other (xvbd_lock_hold: a flock error is returned, never
 * taken as held).
 */
static int lock_hotplug(void)
{
	if (mkdir(LOCK_DIR, 0755) && errno != EEXIST)
		return -errno;
	return xvbd_lock_hold(LOCK_FILE, 0644);
}

/* release_lock: unlink while still holding it, then let go. */
static void unlock_hotplug(int fd)
{
	xvbd_lock_release(LOCK_FILE, fd);
}

/* ---- add ---- */

struct share_check {
	const struct stat *st;
	bool want_write;
	struct xvbd_loop other;		/* the conflicting use */
};

static int share_conflict(const struct xvbd_loop *lo, void *arg)
{
	struct share_check *sc = arg;

	if (!xvbd_loop_backs(lo, sc->st))
		return 0;
	if (!sc->want_write && lo->read_only)
		return 0;
	sc->other = *lo;
	return 1;
}

struct publish {
	const struct hotplug *h;
	const char *node;
	const char *physical;		/* "%x:%x" */
	char why[128];
};

static int txn_write_key(struct xvbd_xs_txn *txn, const struct hotplug *h,
			 const char *key, const char *value)
{
	char *path = xvbd_xs_path_hotplug_key(&h->be, key);
	int err;

	if (!path)
		return -ENOMEM;
	err = xvbd_xs_txn_write(txn, path, value);
	free(path);
	return err;
}

static char *txn_read_key(struct xvbd_xs_txn *txn, const struct hotplug *h,
			  const char *key)
{
	char *path = xvbd_xs_path_hotplug_key(&h->be, key), *value;

	if (!path)
		return NULL;
	value = xvbd_xs_txn_read(txn, path);
	free(path);
	return value;
}

/*
 * All keys at once, and only while the backend still waits for them: a
 * device removed (or timed out by libxl) meanwhile gets nothing.
 */
static int publish_txn(struct xvbd_xs_txn *txn, void *arg)
{
	struct publish *p = arg;
	const struct {
		const char *key, *value;
	} keys[] = {
		{ "node", p->node },
		{ "physical-device-path", p->node },
		{ "physical-device", p->physical },
		{ "hotplug-status", "connected" },
	};
	char *state = txn_read_key(txn, p->h, "state");
	size_t i;
	int err = 0;

	if (!state || strcmp(state, STATE_INITWAIT)) {
		snprintf(p->why, sizeof(p->why), "backend state %s",
			 state ? state : "gone");
		free(state);
		return -ECANCELED;
	}
	free(state);
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]) && !err; i++) {
		err = txn_write_key(txn, p->h, keys[i].key, keys[i].value);
		if (err)
			snprintf(p->why, sizeof(p->why), "writing %s: %s",
				 keys[i].key, strerror(-err));
	}
	return err;
}

static const char *xs_why(int err, char *buf, size_t len)
{
	snprintf(buf, len, "transaction: %s", strerror(-err));
	return buf;
}

/*
 * Asked for with LO_FLAGS_DIRECT_IO, but the kernel binds without it
 * where the file cannot do O_DIRECT (tmpfs) or has larger blocks than the
 * loop: read back what xvbd list and show will read, the dio attribute of
 * the device named by the physical-device value about to be published.
 */
static bool direct_io_on(const char *physical)
{
	struct xvbd_sysfs *sys = xvbd_sysfs_open(NULL);
	bool on = xvbd_cache_of_device(sys, physical) == XVBD_CACHE_NONE;

	xvbd_sysfs_close(sys);
	return on;
}

/*
 * The journal's entry of a bound loop device (journal.h): its number,
 * the identity of its file, the backend it was bound for, and the
 * device's disk sequence number, which only this binding has (the same
 * file bound again to the same number by losetup or Xen's block script
 * gets another).
 */
static void loop_entry(const struct hotplug *h, const struct xvbd_loop *lo,
		       char *buf, size_t len)
{
	char *be = xvbd_xs_path_backend(&h->be);

	snprintf(buf, len, "%u %x:%x:%llu %s %llu", lo->nr, lo->file_major,
		 lo->file_minor, (unsigned long long)lo->file_ino,
		 be ? be : h->xenbus_path, (unsigned long long)lo->diskseq);
	free(be);
	xvbd_journal_note(XVBD_J_LOOP, "%s", buf);
}

static void unbind(const struct xvbd_loop *lo, const char *entry)
{
	if (!xvbd_loop_unbind(lo->nr))
		xvbd_journal_done(XVBD_J_LOOP, "%s", entry);
}

/* Locked: InitWait, the sharing rule, the bind, the dio check, the keys. */
static int add_locked(const struct hotplug *h, const char *params,
		      int file_fd, const struct stat *st, bool want_write,
		      bool check_sharing)
{
	struct share_check sc = { .st = st, .want_write = want_write };
	struct publish pub = { .h = h };
	struct xvbd_loop lo;
	char node[32], physical[32], why[64], entry[320];
	char *state;
	int err, attempt;

	/* The block script's guard against a remove racing this add. */
	state = read_key(h, "state");
	if (!state || strcmp(state, STATE_INITWAIT)) {
		err = refuse(h, "error", "Path closed or removed during hotplug "
			     "add: %s state: %s", h->xenbus_path,
			     state ? state : "unknown");
		free(state);
		return err;
	}
	free(state);
	if (check_sharing) {
		err = xvbd_loop_each(share_conflict, &sc);
		if (err < 0)
			return refuse(h, "error", "Cannot list the loop "
				      "devices: %s", strerror(-err));
		if (err > 0) {
			xvbd_loop_node(sc.other.nr, node, sizeof(node));
			return refuse(h, "busy", "File %s is loopback-mounted "
				      "%sthrough %s, and so cannot be mounted "
				      "%s now.", params,
				      sc.other.read_only ? "read-only " :
				      "read-write ", node, want_write ?
				      "read-write" : "read-only");
		}
	}
	/*
	 * libxl runs this in xvbd's (or xl's) process group: the terminal's
	 * Ctrl-C reaches it too.  Killed between the bind and the publish,
	 * it would leave a loop device that no node names, which remove
	 * then cannot find.  Held from here to the exit: the add finishes
	 * (published, or the loop freed again), and the caller, who got the
	 * same signal, undoes it through remove if it wants to.
	 */
	xvbd_sig_hold(&(sigset_t){ 0 });
	err = xvbd_loop_bind(file_fd, !want_write, h->direct_io, params, &lo);
	/* A SIGKILL cannot be held: the next xvbd names the loop. */
	if (!err)
		loop_entry(h, &lo, entry, sizeof(entry));
	xvbd_test_stop("block-bound");
	if (err)
		return refuse(h, "error", "Failed to find an unused loop "
			      "device for %s: %s", params, strerror(-err));
	xvbd_loop_node(lo.nr, node, sizeof(node));
	/* Lower-case hex, as the block script's stat %t:%T writes it. */
	snprintf(physical, sizeof(physical), "%x:%x", lo.major, lo.minor);
	if (h->direct_io && !direct_io_on(physical)) {
		unbind(&lo, entry);
		return refuse(h, "error", "Direct I/O is not available for %s: "
			      "its file system cannot do O_DIRECT, or its "
			      "block size is above the loop device's 512 "
			      "bytes; attach it with --cache host.", params);
	}
	pub.node = node;
	pub.physical = physical;
	/*
	 * The layer retries lost races (EAGAIN).  Anything else but a
	 * backend that stopped waiting gets a few more tries: a commit
	 * failed once with EIO in the lab (loaded TCG host), and giving up
	 * fails the whole attach.
	 */
	for (attempt = 0; attempt < PUBLISH_TRIES; attempt++) {
		pub.why[0] = '\0';
		err = xvbd_xs_txn_run(h->xs, publish_txn, &pub);
		if (!err || err == -ECANCELED)
			break;
		say(h, LOG_WARNING, "publishing %s: %s%s", node, pub.why[0] ?
		    pub.why : xs_why(err, why, sizeof(why)),
		    attempt + 1 < PUBLISH_TRIES ? ", trying again" : "");
		usleep(100000);
	}
	if (err) {
		unbind(&lo, entry);
		return refuse(h, "error", "Cannot publish %s for %s: %s", node,
			      params, pub.why[0] ? pub.why :
			      xs_why(err, why, sizeof(why)));
	}
	/* Published: remove finds it by its node. */
	xvbd_journal_done(XVBD_J_LOOP, "%s", entry);
	return 0;
}

static int do_add(const struct hotplug *h)
{
	char *phys = NULL, *params = NULL, *mode = NULL;
	bool want_write, check_sharing;
	char why[256];
	struct stat fst;
	int rc, fd = -1, lock_fd = -1;

	/* Run twice (the block script's comment: depending on the hotplug
	 * configuration): the first run did it all. */
	phys = read_key(h, "physical-device");
	if (phys) {
		rc = 0;
		goto out;
	}
	params = read_key(h, "params");
	mode = read_key(h, "mode");
	if (!params || !*params || !mode) {
		rc = refuse(h, "error", "xenstore-read %s/%s failed.",
			    h->xenbus_path, !params || !*params ? "params" :
			    "mode");
		goto out;
	}
	/* The block script's canonicalise_mode: no "w" is read-only, "w!"
	 * skips the sharing check. */
	want_write = strchr(mode, 'w') != NULL;
	check_sharing = !(want_write && strchr(mode, '!'));
	if (params[0] != '/') {
		rc = refuse(h, "error", "%s is not an absolute path.", params);
		goto out;
	}
	/*
	 * Whatever xvbd attach checked may have changed since (a file server
	 * or a user swapping the entry), and a disk spec reaches here
	 * unchecked: image.h's rules again, on what is opened now.  What is
	 * bound is what was opened: its identity, not the path's.
	 */
	fd = xvbd_image_open(params, want_write ? O_RDWR : O_RDONLY, &fst,
			     why, sizeof(why));
	if (fd == -ENOENT) {
		rc = refuse(h, "error", "%s does not exist.", params);
		goto out;
	}
	if (fd < 0 && want_write && (fd == -EACCES || fd == -EROFS ||
				     fd == -EPERM || fd == -ETXTBSY)) {
		rc = refuse(h, "busy", "File %s is read-only, and so I will "
			    "not mount it read-write in a guest domain.",
			    params);
		goto out;
	}
	if (fd < 0) {
		rc = refuse(h, "error", "Cannot open %s: %s", params, why);
		goto out;
	}
	lock_fd = lock_hotplug();
	if (lock_fd < 0) {
		rc = refuse(h, "error", "Cannot lock %s: %s", LOCK_FILE,
			    strerror(-lock_fd));
		goto out;
	}
	rc = add_locked(h, params, fd, &fst, want_write, check_sharing);
out:
	unlock_hotplug(lock_fd);
	if (fd >= 0)
		close(fd);
	free(phys);
	free(params);
	free(mode);
	return rc;
}

/* ---- remove ---- */

/*
 * Still the image of this VBD.  Decided without touching the file under
 * the lock, where a hung file server would stall every hotplug on the
 * host: the loop device is the one the backend published
 * (physical-device, from xenstore), and sysfs' backing_file names params
 * (" (deleted)" when unlinked).  Where it names another path (params
 * reached the file through a link root put there), st is params' stat,
 * taken before the lock and never for a share's path; NULL otherwise.
 */
static bool still_backs(const struct xvbd_loop *lo, const char *params,
			const char *physical, const struct stat *st)
{
	size_t n = strlen(params);
	char mine[32];

	if (physical) {
		snprintf(mine, sizeof(mine), "%x:%x", lo->major, lo->minor);
		if (strcmp(physical, mine))
			return false;
	}
	if (!strncmp(lo->backing, params, n) &&
	    (!lo->backing[n] || !strcmp(lo->backing + n, " (deleted)")))
		return true;
	return st && xvbd_loop_backs(lo, st);
}

/* A share's image: on a server that may not answer. */
static bool on_share(const char *path)
{
	static const char dir[] = XVBD_SHARE_DIR "/";

	return !strncmp(path, dir, sizeof(dir) - 1);
}

/*
 * A killed add's loop device for this backend (journal.h, XVBD_J_LOOP):
 * freed if it is still that binding (the same file, device and inode, and
 * the same disk sequence number: a loop that losetup or Xen's block script
 * bound to the same file since is not covered by any lock of ours) and no
 * backend publishes it as its physical-device: after xl-only activity
 * the same image bound for another guest (read-only, say) can have been
 * given loop N again, and that one is not ours to free.  Locked, so no
 * add is between its bind and its publish now.  Either way the entry is
 * closed in the dead journal: acted on once, never again.
 */
static int free_orphan_loop(long pid, const struct xvbd_journal *j,
			    void *arg)
{
	const struct hotplug *h = arg;
	char *mine = xvbd_xs_path_backend(&h->be), backend[256];
	char phys[32], who[256];
	unsigned nr, fmaj, fmin;
	int err, n;
	unsigned long long ino, seq = 0;
	struct xvbd_loop lo;
	size_t i;

	for (i = 0; mine && i < j->nopen; i++) {
		if (strcmp(j->open[i].kind, XVBD_J_LOOP))
			continue;
		n = sscanf(j->open[i].args, "%u %x:%x:%llu %255s %llu", &nr,
			   &fmaj, &fmin, &ino, backend, &seq);
		if (n < 5 || strcmp(backend, mine))
			continue;
		/* Bound again since (same number, same file): not ours. */
		if (xvbd_loop_status(nr, &lo) || lo.file_major != fmaj ||
		    lo.file_minor != fmin || lo.file_ino != ino ||
		    (n == 6 && seq && lo.diskseq && lo.diskseq != seq))
			continue;
		snprintf(phys, sizeof(phys), "%x:%x", lo.major, lo.minor);
		err = xvbd_xs_phys_published(h->xs, phys, NULL, who,
					     sizeof(who));
		if (err < 0)
			continue;	/* cannot tell: the next remove may */
		if (err > 0)
			say(h, LOG_NOTICE, "/dev/loop%u, named by a killed %s "
			    "(pid %ld), is %s's now: left alone", nr, h->prog,
			    pid, who);
		else if (xvbd_loop_unbind(nr))
			say(h, LOG_ERR, "cannot free /dev/loop%u, bound by a "
			    "killed %s (pid %ld)", nr, h->prog, pid);
		else
			say(h, LOG_NOTICE, "freed /dev/loop%u, bound to %s by "
			    "a killed %s (pid %ld) that never published it",
			    nr, lo.backing, h->prog, pid);
		if (err > 0 || xvbd_loop_status(nr, &lo) == -ENXIO)
			xvbd_journal_done_for(pid, j, XVBD_J_LOOP,
					      j->open[i].args);
	}
	free(mine);
	return 1;
}

static int do_remove(const struct hotplug *h)
{
	char *node = NULL, *params = NULL, *physical = NULL;
	struct xvbd_loop lo;
	struct stat st;
	bool have_st = false;
	unsigned nr;
	int rc = 0, err, lock_fd = -1;

	/* From the node read to the unbind (and the exit), as in add: a
	 * signal cannot leave the loop bound with its node gone. */
	xvbd_sig_hold(&(sigset_t){ 0 });
	/*
	 * No node: the add was refused or never ran, or an add killed
	 * (SIGKILL) between its bind and its publish left a loop device
	 * its journal names.
	 */
	node = read_key(h, "node");
	if (!node) {
		lock_fd = lock_hotplug();
		if (lock_fd >= 0)
			xvbd_journal_each_dead(free_orphan_loop, (void *)h,
					       false);
		goto out;
	}
	params = read_key(h, "params");
	physical = read_key(h, "physical-device");
	if (xvbd_loop_parse_node(node, &nr)) {
		say(h, LOG_WARNING, "node %s is not a loop device: left alone",
		    node);
		goto out;
	}
	if (params && !on_share(params))
		have_st = !stat(params, &st);
	lock_fd = lock_hotplug();
	if (lock_fd < 0) {
		say(h, LOG_ERR, "cannot lock %s: %s", LOCK_FILE,
		    strerror(-lock_fd));
		rc = 1;
		goto out;
	}
	err = xvbd_loop_status(nr, &lo);
	if (err == -ENXIO)
		goto out;		/* already free */
	if (err) {
		say(h, LOG_ERR, "%s: %s", node, strerror(-err));
		rc = 1;
		goto out;
	}
	if (!params || !still_backs(&lo, params, physical,
				    have_st ? &st : NULL)) {
		say(h, LOG_WARNING, "%s is backed by %s, not %s: left alone",
		    node, lo.backing, params ? params : "(no params)");
		goto out;
	}
	err = xvbd_loop_unbind(nr);
	if (err) {
		say(h, LOG_ERR, "cannot free %s: %s", node, strerror(-err));
		rc = 1;
	}
out:
	unlock_hotplug(lock_fd);
	free(node);
	free(params);
	free(physical);
	return rc;
}

int main(int argc, char **argv)
{
	struct hotplug h = { .xenbus_path = getenv("XENBUS_PATH") };
	const char *type = getenv("XENBUS_TYPE");
	int rc, fd;

	/* The mode is in the name libxl ran (the backend's script key);
	 * any other name is the default, buffered xvbd-block. */
	h.direct_io = argc > 0 &&
		xvbd_cache_of_script(argv[0]) == XVBD_CACHE_NONE;
	h.prog = h.direct_io ? XVBD_BLOCK_DIRECT_SCRIPT : XVBD_BLOCK_SCRIPT;
	openlog(h.prog, LOG_PID, LOG_DAEMON);
	/* libxl hands over its own stderr (xl's or xvbd's terminal); the
	 * block script appends to the hotplug log instead, and so do we. */
	fd = open(HOTPLUG_LOG, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC,
		  0644);
	if (fd > STDERR_FILENO) {
		dup2(fd, STDERR_FILENO);
		close(fd);
	}
	if (!h.xenbus_path)
		h.xenbus_path = "(no XENBUS_PATH)";
	if (argc != 2 || (strcmp(argv[1], "add") &&
			  strcmp(argv[1], "remove"))) {
		say(&h, LOG_ERR, "Invalid command: %s (usage: %s add|remove, "
		    "run by libxl)", argc > 1 ? argv[1] : "none", h.prog);
		return 1;
	}
	if (xvbd_xs_parse_hotplug_path(h.xenbus_path, &h.be) ||
	    strcmp(h.be.kind, "vbd") || (type && strcmp(type, "vbd"))) {
		say(&h, LOG_ERR, "not a vbd backend (XENBUS_PATH %s, "
		    "XENBUS_TYPE %s)", h.xenbus_path, type ? type : "unset");
		return 1;
	}
	h.xs = xvbd_xs_open(true);
	if (!h.xs) {
		say(&h, LOG_ERR, "cannot open xenstore: %s", strerror(errno));
		return 1;
	}
	xvbd_journal_begin(XVBD_BLOCK_SCRIPT);
	rc = strcmp(argv[1], "add") ? do_remove(&h) : do_add(&h);
	xvbd_journal_end();
	xvbd_xs_close(h.xs);
	closelog();
	return rc;
}
