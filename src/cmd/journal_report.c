/*
 * journal_report.c - the journals of killed commands (journal.h): what
 * they left, checked against the host, named with the command that
 * removes it.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "xvbd/cmd/cmd.h"
#include "xvbd/cmd/journal_report.h"
#include "xvbd/base/journal.h"
#include "xvbd/dom0/loop.h"
#include "xvbd/dom0/modparam.h"
#include "xvbd/dom0/share.h"
#include "xvbd/dom0/lat_trace.h"
#include "xvbd/dom0/tracefs.h"
#include "xvbd/xen/xs.h"

/* How long the report waits for a share's file server to answer. */
#define SHARE_STAT_TIMEOUT_MS	5000

struct dead {
	struct xvbd_ctx *ctx;
	const struct xvbd_journal *j;
	long pid;
	const char *who;	/* "xvbd attach (pid 123)" */
};

static void warn(const struct dead *d, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void remedy(const struct dead *d, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void warn(const struct dead *d, const char *fmt, ...)
{
	char msg[768];
	va_list ap;

	char *safe;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* Domain names and paths: no control byte reaches the terminal. */
	safe = xvbd_escape(msg);
	xvbd_err(d->ctx->cmd->name, "warning", "%s", safe ? safe : msg);
	free(safe);
}

/* The command that removes it (-q: the warning alone). */
static void remedy(const struct dead *d, const char *fmt, ...)
{
	char msg[768];
	va_list ap;

	char *safe;

	if (d->ctx->opts->quiet)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	safe = xvbd_escape(msg);
	xvbd_hint("%s", safe ? safe : msg);
	free(safe);
}

/*
 * Each check: 1 the entry's debris is still there (named, with its
 * remedy), 0 it is gone or was handed over, -1 cannot tell now (kept for
 * a later run).
 */

/*
 * An image attach created (that file) and no disk of any domain uses.
 * Looked at only while no disk uses it and with a bound, wherever it is:
 * the report runs in every command, and a file server that stopped
 * answering must not hang them all, whether the share is attach's own
 * or the admin's NFS or CIFS mount (attach --file /mnt/nfs/x.img).
 */
static int left_image(const struct dead *d, const char *args)
{
	unsigned long long dev, ino;
	char path[4096];
	struct stat st;
	size_t users = 0;
	int err;

	if (sscanf(args, "%llx:%llu %4095s", &dev, &ino, path) != 3)
		return 0;
	if (xvbd_tstack_targets_under(d->ctx->ts, path, &users))
		return -1;
	if (users)
		return 0;
	err = xvbd_share_lstat(path, SHARE_STAT_TIMEOUT_MS, &st);
	if (err == -ETIMEDOUT) {
		warn(d, "%s was killed: it created %s, on a share that does "
		     "not answer (%d s): looked at again by the next command",
		     d->who, path, SHARE_STAT_TIMEOUT_MS / 1000);
		return -1;
	}
	if (err || !S_ISREG(st.st_mode) ||
	    (unsigned long long)st.st_dev != dev ||
	    (unsigned long long)st.st_ino != ino)
		return 0;
	warn(d, "%s was killed: it created %s, which no guest uses", d->who,
	     path);
	remedy(d, "remove it with: rm %s", path);
	return 1;
}

/* A share mounted by attach that no disk of any domain uses. */
static int left_mount(const struct dead *d, const char *point)
{
	size_t users = 0;
	int rc = xvbd_mount_lookup(point, NULL, 0, NULL, 0);

	if (rc < 0)
		return -1;
	if (rc == 0)
		return 0;
	if (xvbd_tstack_targets_under(d->ctx->ts, point, &users))
		return -1;
	if (users)
		return 0;
	warn(d, "%s was killed: it mounted %s, which no disk uses", d->who,
	     point);
	remedy(d, "unmount it with: umount %s && rmdir %s && rm -f %s.mount",
		  point, point, point);
	return 1;
}

/*
 * The domain an entry names, if it is still that domain: by domid, or by
 * name when the domid was not known yet (-1: noted before xl create,
 * which died).  A name alone could be anyone's guest started since: the
 * one xl create left is paused and was built no earlier than the
 * journal's last line (the -1 entry is the last thing noted before the
 * create).
 */
static int same_domain(const struct dead *d, const char *args, uint32_t *id,
		       const char **name, struct xvbd_dominfo *info)
{
	char cur[256];
	long domid;

	if (xvbd_journal_domid(args, &domid, name))
		return 0;
	if (domid < 0) {
		if (xvbd_tstack_name_to_domid(d->ctx->ts, *name, id))
			return 0;
	} else {
		*id = (uint32_t)domid;
	}
	if (xvbd_tstack_domain_name(d->ctx->ts, *id, cur, sizeof(cur)) ||
	    strcmp(cur, *name))
		return 0;
	if (xvbd_tstack_domain_info(d->ctx->ts, *id, info))
		return 0;
	if (domid < 0 && (!info->paused || !info->start_s ||
			  (long long)info->start_s < d->j->written_s))
		return 0;
	return 1;
}

/* attach paused a running guest to set its new disks' keys. */
static int left_paused(const struct dead *d, const char *args)
{
	struct xvbd_dominfo info;
	const char *name;
	uint32_t id;

	if (!same_domain(d, args, &id, &name, &info) || !info.paused)
		return 0;
	warn(d, "%s was killed: it left domain %s (%u) paused", d->who, name,
	     id);
	remedy(d, "let it run with: xl unpause %u", id);
	return 1;
}

/* start's guest, still paused: built, its keys perhaps not written. */
static int left_created(const struct dead *d, const char *args)
{
	struct xvbd_dominfo info;
	const char *name;
	uint32_t id;

	size_t i;

	if (!same_domain(d, args, &id, &name, &info) || !info.paused)
		return 0;
	/* An ab run's guest is named as that (left_guest). */
	for (i = 0; i < d->j->nopen; i++) {
		const struct xvbd_jentry *e = &d->j->open[i];
		const char *n;
		long g;

		if (!strcmp(e->kind, XVBD_J_GUEST) &&
		    !xvbd_journal_domid(e->args, &g, &n) && !strcmp(n, name))
			return 0;
	}
	warn(d, "%s was killed: domain %s (%u) is left paused, its "
	     "overrides not checked", d->who, name, id);
	remedy(d, "remove it with: xl destroy %u (and start it again), or "
		  "let it run as it is: xl unpause %u", id, id);
	return 1;
}

/* An ab run's guest: the experiment's, never the user's. */
static int left_guest(const struct dead *d, const char *args)
{
	struct xvbd_dominfo info;
	const char *name;
	uint32_t id;

	if (!same_domain(d, args, &id, &name, &info))
		return 0;
	warn(d, "guest %s (domid %u) was started by an ab run that died "
	     "(pid %ld)", name, id, d->pid);
	remedy(d, "remove it with: xl destroy %u", id);
	return 1;
}

/*
 * A hot ab run's disk under test: attached to the user's guest for one
 * run, to be detached after it.  Still there: it is the run's debris.
 */
static int left_abdisk(const struct dead *d, const char *args)
{
	struct xvbd_disk *disks = NULL, *disk = NULL;
	char vdev[32], target[4096], name[256], cur[256];
	size_t ndisks = 0;
	long domid;
	unsigned devid;
	bool same;
	int n;

	n = sscanf(args, "%ld %u %31s %4095s %255[^\n]", &domid, &devid, vdev,
		   target, name);
	/* (an entry of an xvbd before the target was noted: no target) */
	if (n == 4) {
		snprintf(name, sizeof(name), "%.255s", target);
		target[0] = '\0';
	} else if (n != 5) {
		return 0;
	}
	if (domid < 1)
		return 0;
	/* The same guest (a domid is reused by the next one created). */
	if (xvbd_tstack_domain_name(d->ctx->ts, (uint32_t)domid, cur,
				    sizeof(cur)) || strcmp(cur, name))
		return 0;
	if (xvbd_tstack_disk_find(d->ctx->ts, (uint32_t)domid, devid, &disks,
				  &ndisks, &disk))
		return 0;
	/* Another tool's disk at the vdev since (the run's attach failed on
	 * it, or came after the kill) is not the run's debris. */
	same = !target[0] || !strcmp(target, disk->target ? disk->target :
				     "-");
	xvbd_tstack_disks_free(disks, ndisks);
	if (!same)
		return 0;
	warn(d, "%s was killed during a run: its disk under test %s is "
	     "still attached to domain %s (%ld)", d->who, vdev, name, domid);
	remedy(d, "remove it with: xvbd detach %ld %s", domid, vdev);
	return 1;
}

/* defaults --reload unloaded the module and died before loading it. */
static int left_unloaded(const struct dead *d, const char *module)
{
	struct xvbd_modparams mp;
	int err = xvbd_modparam_list(module, &mp);

	if (!err) {
		xvbd_modparams_free(&mp);
		return 0;
	}
	if (err != -ENOENT)
		return -1;
	warn(d, "%s was killed: it had unloaded %s, which is still not "
	     "loaded", d->who, module);
	remedy(d, "load it with: modprobe %s (with the values of "
		  "`xvbd defaults`)", module);
	return 1;
}

/*
 * detach began libxl's removal (the backend is told to close) and died:
 * the disk is half removed.  One whose removal never began is simply
 * still there.
 */
static int left_detach(const struct dead *d, const char *args)
{
	struct xvbd_disk *disks = NULL, *disk = NULL;
	char vdev[32], name[256], *online = NULL;
	size_t ndisks = 0;
	long domid;
	unsigned devid;
	int rc = 0;

	if (sscanf(args, "%ld %u %31s %255[^\n]", &domid, &devid, vdev,
		   name) != 4 || domid < 1)
		return 0;
	if (!d->ctx->xs)
		return -1;
	if (xvbd_tstack_disk_find(d->ctx->ts, (uint32_t)domid, devid, &disks,
				  &ndisks, &disk))
		goto out;
	if (disk->backend_path)
		online = xvbd_xs_read_dir_key(d->ctx->xs, disk->backend_path,
					      "online");
	if (!online || strcmp(online, "0"))
		goto out;
	warn(d, "%s was killed while removing %s of domain %s: it is half "
	     "removed", d->who, vdev, name);
	remedy(d, "finish the removal with: xvbd detach %s %s --force", name,
		  vdev);
	rc = 1;
out:
	free(online);
	xvbd_tstack_disks_free(disks, ndisks);
	return rc;
}

/* xvbd-block bound a loop device and died before publishing it. */
static int left_loop(const struct dead *d, const char *args)
{
	unsigned nr, fmaj, fmin;
	unsigned long long ino, seq = 0;
	char backend[256], mine[32], who[256];
	struct xvbd_loop lo;
	int rc, n;

	n = sscanf(args, "%u %x:%x:%llu %255s %llu", &nr, &fmaj, &fmin, &ino,
		   backend, &seq);
	if (n < 5)
		return 0;
	/* Bound again since to the same file (losetup): another's loop. */
	if (xvbd_loop_status(nr, &lo) || lo.file_major != fmaj ||
	    lo.file_minor != fmin || lo.file_ino != ino ||
	    (n == 6 && seq && lo.diskseq && lo.diskseq != seq))
		return 0;
	if (!d->ctx->xs)
		return -1;
	/*
	 * Published after all (the kill came later), or given since to
	 * another backend (the same image bound again): that backend's.
	 */
	snprintf(mine, sizeof(mine), "%x:%x", lo.major, lo.minor);
	rc = xvbd_xs_phys_published(d->ctx->xs, mine, NULL, who, sizeof(who));
	if (rc)
		return rc < 0 ? -1 : 0;
	warn(d, "%s was killed: it bound /dev/loop%u to %s, and no backend "
	     "uses it", d->who, nr, lo.backing);
	remedy(d, "free it with: losetup -d /dev/loop%u", nr);
	return 1;
}

/*
 * pv --reboot shut the guest down to create it again from its config: a
 * guest of that name not there now is down because of it.
 */
static int left_rebooting(const struct dead *d, const char *args)
{
	const char *name, *config = NULL;
	uint32_t id;
	long domid;
	size_t i;

	if (xvbd_journal_domid(args, &domid, &name) ||
	    !xvbd_tstack_name_to_domid(d->ctx->ts, name, &id))
		return 0;
	for (i = 0; i < d->j->nopen; i++)
		if (!strcmp(d->j->open[i].kind, XVBD_J_REBOOT_CFG))
			config = d->j->open[i].args;
	warn(d, "%s was killed during --reboot: domain %s (was %ld) was shut "
	     "down and not created again", d->who, name, domid);
	if (config)
		remedy(d, "start it with: xl create %s", config);
	return 1;
}

/*
 * stats --latency's tracing: its tracefs instance (the block layer's
 * request events traced, which costs every request some time), and an
 * older xvbd's synthetic event.  Named after the dead process: no one
 * else's.
 */
static int left_trace(const struct dead *d, const char *args)
{
	char inst[64], synth[64], path[320], fix[1024], why[256];
	struct xvbd_tracefs *tf;
	bool inst_left, synth_left;

	if (sscanf(args, "%63s %63s", inst, synth) != 2)
		return 0;
	if (xvbd_tracefs_open(NULL, &tf, why, sizeof(why)))
		return -1;	/* tracefs not there now: ask again later */
	inst_left = xvbd_tracefs_instance_exists(tf, inst);
	synth_left = strcmp(synth, XVBD_LAT_NO_SYNTH) &&
		     xvbd_tracefs_synth_exists(tf, synth) > 0;
	if (!inst_left && !synth_left) {
		xvbd_tracefs_close(tf);
		return 0;
	}
	xvbd_tracefs_instance_path(tf, inst, path, sizeof(path));
	xvbd_lat_remedy(tf, inst_left ? inst : NULL, synth_left ? synth : NULL,
			fix, sizeof(fix));
	xvbd_tracefs_close(tf);
	if (inst_left)
		warn(d, "%s was killed: its latency tracing is still on: "
		     "tracefs instance %s (block request events traced)%s%s",
		     d->who, path, synth_left ?
		     " and synthetic event " : "", synth_left ? synth : "");
	else
		warn(d, "%s was killed: it left synthetic event %s in "
		     "tracefs", d->who, synth);
	remedy(d, "remove it with: %s", fix);
	return 1;
}

static int check(const struct dead *d, const struct xvbd_jentry *e)
{
	static const struct {
		const char *kind;
		int (*fn)(const struct dead *d, const char *args);
	} checks[] = {
		{ XVBD_J_IMAGE, left_image },
		{ XVBD_J_MOUNT, left_mount },
		{ XVBD_J_PAUSED, left_paused },
		{ XVBD_J_CREATED, left_created },
		{ XVBD_J_GUEST, left_guest },
		{ XVBD_J_UNLOADED, left_unloaded },
		{ XVBD_J_DETACH, left_detach },
		{ XVBD_J_LOOP, left_loop },
		{ XVBD_J_REBOOT, left_rebooting },
		{ XVBD_J_ABDISK, left_abdisk },
		{ XVBD_J_TRACE, left_trace },
	};
	size_t i;

	for (i = 0; i < sizeof(checks) / sizeof(checks[0]); i++)
		if (!strcmp(e->kind, checks[i].kind))
			return checks[i].fn(d, e->args);
	return 0;	/* a kind of a later xvbd: not ours to judge */
}

/* "xvbd attach (pid 12)", "xvbd ab run (pid 12)", "xvbd-block (pid 12)". */
static void name_of(const struct xvbd_journal *j, long pid, char *buf,
		    size_t len)
{
	char cmd[sizeof(j->cmd)], *p;

	snprintf(cmd, sizeof(cmd), "%s", j->cmd);
	/* A blank in a command's name was written as a dash. */
	if (!strncmp(cmd, "ab-", 3))
		for (p = cmd; *p; p++)
			if (*p == '-')
				*p = ' ';
	snprintf(buf, len, "%s%s (pid %ld)", strncmp(cmd, "xvbd-", 5) ?
		 "xvbd " : "", cmd, pid);
}

/* One killed command's journal: 1 if something is left. */
static int report_one(long pid, const struct xvbd_journal *j, void *arg)
{
	struct dead d = { .ctx = arg, .j = j, .pid = pid };
	char who[96];
	size_t i;
	int left = 0;

	name_of(j, pid, who, sizeof(who));
	d.who = who;
	/* Latest first: the order in which to undo them. */
	for (i = j->nopen; i-- > 0;)
		if (check(&d, &j->open[i]))
			left = 1;
	return left;
}

void xvbd_journal_report(struct xvbd_ctx *ctx)
{
	if (ctx->ts)
		xvbd_journal_each_dead(report_one, ctx, true);
}
