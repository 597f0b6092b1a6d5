/*
 * share.c - share URLs, path and mount option validation, and the dom0
 * mounts of NFS/SMB shares that hold image files.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <pthread.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "xvbd/base/journal.h"
#include "xvbd/base/lock.h"
#include "xvbd/dom0/share.h"
#include "xvbd/base/spawn.h"
#include "xvbd/base/util.h"

#define MOUNT_PROG	"/bin/mount"
#define MOUNTINFO	"/proc/self/mountinfo"
/* The shares' lock: XVBD_SHARE_DIR/.lock (no share has that name). */
#define LOCK_NAME	".lock"
#define SHARE_LOCK_WHOM	"another xvbd attach or detach of a share"

const char *xvbd_share_proto_name(enum xvbd_share_proto proto)
{
	return proto == XVBD_SHARE_NFS ? "nfs" : "smb";
}

const char *xvbd_share_fstype(enum xvbd_share_proto proto)
{
	return proto == XVBD_SHARE_NFS ? "nfs" : "cifs";
}

static bool is_alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9');
}

/* Why a character is refused, named so the user sees the attack class. */
static const char *bad_char_why(char c)
{
	if (c == ',')
		return "comma not allowed (it would inject options)";
	if (c == '%')
		return "percent-encoding not supported";
	if (c == ' ' || c == '\t' || c == '\n' || c == '\r')
		return "white space not allowed";
	if ((unsigned char)c < 0x20 || (unsigned char)c >= 0x7f)
		return "control or non-ASCII byte not allowed";
	if (strchr(";&|`$()<>*?[]{}!~'\"\\#=", c))
		return "shell metacharacter not allowed";
	return "character not allowed";
}

/*
 * One path component: [A-Za-z0-9._+-] plus extra (e.g. "@:" for local
 * paths), not "." or "..", not dash-led.
 */
static int component_check(const char *s, size_t len, const char *extra,
			   const char **why)
{
	size_t i;

	if (!len) {
		*why = "empty path component (\"//\")";
		return -EINVAL;
	}
	if ((len == 1 && s[0] == '.') || (len == 2 && !strncmp(s, "..", 2))) {
		*why = "\".\" and \"..\" components not allowed";
		return -EINVAL;
	}
	if (s[0] == '-') {
		*why = "component starting with '-' not allowed";
		return -EINVAL;
	}
	for (i = 0; i < len; i++) {
		char c = s[i];

		if (is_alnum(c) || c == '.' || c == '_' || c == '+' ||
		    c == '-' || (c && strchr(extra, c)))
			continue;
		*why = bad_char_why(c);
		return -EINVAL;
	}
	return 0;
}

/* "a/b/c" (no leading slash): every component checked. */
static int rel_path_check(const char *p, const char *extra, const char **why)
{
	for (;;) {
		const char *slash = strchr(p, '/');
		size_t len = slash ? (size_t)(slash - p) : strlen(p);
		int err = component_check(p, len, extra, why);

		if (err)
			return err;
		if (!slash)
			return 0;
		p = slash + 1;
	}
}

int xvbd_path_check(const char *path, const char **why)
{
	if (!path || path[0] != '/') {
		*why = "not an absolute path";
		return -EINVAL;
	}
	if (strlen(path) >= XVBD_PATH_MAX) {
		*why = "path too long";
		return -ENAMETOOLONG;
	}
	if (!path[1]) {
		*why = "\"/\" is not a file";
		return -EINVAL;
	}
	return rel_path_check(path + 1, "@:", why);
}

int xvbd_token_check(const char *s, const char **why)
{
	if (!s || !*s) {
		*why = "empty";
		return -EINVAL;
	}
	if (strlen(s) >= XVBD_PATH_MAX) {
		*why = "too long";
		return -ENAMETOOLONG;
	}
	if (s[0] == '-') {
		*why = "starting with '-' not allowed";
		return -EINVAL;
	}
	return rel_path_check(s[0] == '/' ? s + 1 : s, "@:=", why);
}

/* Host name (RFC 1123 labels) or dotted IPv4 address. */
static int server_check(const char *s, size_t len, const char **why)
{
	size_t i, label = 0;

	if (!len) {
		*why = "no server";
		return -EINVAL;
	}
	if (len >= 256) {
		*why = "server name too long";
		return -EINVAL;
	}
	for (i = 0; i < len; i++) {
		char c = s[i];

		if (c == '.') {
			if (!label || s[i - 1] == '-') {
				*why = "bad server name";
				return -EINVAL;
			}
			label = 0;
			continue;
		}
		if (c == '-' && !label) {
			*why = "server name label starting with '-'";
			return -EINVAL;
		}
		if (c == '[' || c == ']') {
			*why = "IPv6 literals not supported: use a host name";
			return -EINVAL;
		}
		if (!is_alnum(c) && c != '-') {
			*why = bad_char_why(c);
			return -EINVAL;
		}
		if (++label > 63) {
			*why = "server name label too long";
			return -EINVAL;
		}
	}
	if (!label) {
		*why = "bad server name";
		return -EINVAL;
	}
	return 0;
}

/* FNV-1a: keeps per-share directory names apart after '/' -> '_'. */
static uint32_t fnv1a(const char *s)
{
	uint32_t h = 2166136261u;

	while (*s) {
		h ^= (unsigned char)*s++;
		h *= 16777619u;
	}
	return h;
}

static void make_name(struct xvbd_share_url *u)
{
	char flat[64];
	size_t i, n = 0;
	const char *p = u->share;

	while (*p == '/')
		p++;
	for (; *p && n < sizeof(flat) - 1; p++)
		flat[n++] = *p == '/' ? '_' : *p;
	flat[n] = '\0';
	/* Only validated characters reach here: the name is safe as is. */
	snprintf(u->name, sizeof(u->name), "%s-%.40s-%s-%08x",
		 xvbd_share_proto_name(u->proto), u->server, flat,
		 fnv1a(u->source));
	for (i = 0; u->name[i]; i++)
		if (u->name[i] == '/')
			u->name[i] = '_';
}

int xvbd_share_parse_url(const char *url, struct xvbd_share_url *u,
			 const char **why)
{
	const char *host, *path, *last, *p;
	size_t host_len;
	int err;

	memset(u, 0, sizeof(*u));
	if (!strncmp(url, "nfs://", 6)) {
		u->proto = XVBD_SHARE_NFS;
	} else if (!strncmp(url, "smb://", 6)) {
		u->proto = XVBD_SHARE_SMB;
	} else {
		*why = "not an nfs:// or smb:// URL";
		return -EINVAL;
	}
	if (strlen(url) >= XVBD_PATH_MAX) {
		*why = "URL too long";
		return -ENAMETOOLONG;
	}
	host = url + 6;
	path = strchr(host, '/');
	host_len = path ? (size_t)(path - host) : strlen(host);
	if (memchr(host, '@', host_len)) {
		*why = u->proto == XVBD_SHARE_SMB ?
			"user or password in the URL: use --credentials FILE" :
			"user info in the URL not supported";
		return -EINVAL;
	}
	if (memchr(host, '[', host_len)) {
		*why = "IPv6 literals not supported: use a host name";
		return -EINVAL;
	}
	for (p = host; p < host + host_len; p++) {
		if (*p == ':') {
			*why = "port in the URL not supported (use --share-opts port=N)";
			return -EINVAL;
		}
	}
	err = server_check(host, host_len, why);
	if (err)
		return err;
	memcpy(u->server, host, host_len);
	if (!path || !path[1]) {
		*why = "no path to an image file";
		return -EINVAL;
	}
	err = rel_path_check(path + 1, "", why);
	if (err)
		return err;
	last = strrchr(path, '/');
	if (u->proto == XVBD_SHARE_NFS) {
		/* The image's directory is what gets mounted. */
		if (last == path) {
			*why = "no export directory before the image name";
			return -EINVAL;
		}
		snprintf(u->share, sizeof(u->share), "%.*s",
			 (int)(last - path), path);
		snprintf(u->image, sizeof(u->image), "%s", last + 1);
		snprintf(u->source, sizeof(u->source), "%s:%s", u->server,
			 u->share);
	} else {
		const char *share_end = strchr(path + 1, '/');

		if (!share_end) {
			*why = "no image path after the share name";
			return -EINVAL;
		}
		snprintf(u->share, sizeof(u->share), "%.*s",
			 (int)(share_end - path - 1), path + 1);
		snprintf(u->image, sizeof(u->image), "%s", share_end + 1);
		snprintf(u->source, sizeof(u->source), "//%s/%s", u->server,
			 u->share);
	}
	make_name(u);
	return 0;
}

int xvbd_share_mountpoint(const struct xvbd_share_url *u, char *buf,
			  size_t len)
{
	int n = snprintf(buf, len, "%s/%s", XVBD_SHARE_DIR, u->name);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/* Options a user may give; everything else is refused. */
static const char *const nfs_opts[] = {
	"vers", "nfsvers", "proto", "port", "nolock", "lock", "hard", "soft",
	"softerr", "timeo", "retrans", "retry", "rsize", "wsize", "ac",
	"noac", "actimeo", "acregmin", "acregmax", "acdirmin", "acdirmax",
	"sec", "ro", "rw", "nosuid", "nodev", "noexec", "noatime",
	"relatime", "nconnect", "mountport", "mountproto", "mountvers",
	"lookupcache", "local_lock", "sync", "async", "cto", "nocto",
	"intr", "nointr", "fsc", "nofsc", NULL,
};

static const char *const smb_opts[] = {
	"vers", "sec", "uid", "gid", "forceuid", "forcegid", "file_mode",
	"dir_mode", "cache", "rsize", "wsize", "ro", "rw", "nosuid", "nodev",
	"noexec", "domain", "seal", "nounix", "unix", "serverino",
	"noserverino", "actimeo", "hard", "soft", "echo_interval",
	"nosharesock", "mfsymlinks", "noperm", "perm", "port", "iocharset",
	"sfu", "nobrl", "noatime", "relatime", "handletimeout", NULL,
};

static bool key_allowed(const char *const *list, const char *key, size_t len)
{
	for (; *list; list++)
		if (strlen(*list) == len && !strncmp(*list, key, len))
			return true;
	return false;
}

int xvbd_share_opts_check(enum xvbd_share_proto proto, const char *opts,
			  const char **why)
{
	const char *const *list = proto == XVBD_SHARE_NFS ? nfs_opts : smb_opts;
	const char *p = opts;

	if (!opts || !*opts)
		return 0;
	if (strlen(opts) >= 512) {
		*why = "mount options too long";
		return -EINVAL;
	}
	for (;;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		const char *eq = memchr(p, '=', len);
		size_t klen = eq ? (size_t)(eq - p) : len, i;

		if (!klen) {
			*why = "empty mount option";
			return -EINVAL;
		}
		if ((klen == 11 && !strncmp(p, "credentials", 11)) ||
		    (klen == 4 && !strncmp(p, "cred", 4)) ||
		    (klen >= 4 && !strncmp(p, "pass", 4)) ||
		    (klen >= 4 && !strncmp(p, "user", 4))) {
			*why = "credentials in mount options: use --credentials FILE";
			return -EINVAL;
		}
		if (!key_allowed(list, p, klen)) {
			*why = "mount option not in xvbd's allow list";
			return -EINVAL;
		}
		for (i = eq ? klen + 1 : len; i < len; i++) {
			char c = p[i];

			if (is_alnum(c) || strchr("._+-/:@", c))
				continue;
			*why = bad_char_why(c);
			return -EINVAL;
		}
		if (eq && klen + 1 == len) {
			*why = "mount option with an empty value";
			return -EINVAL;
		}
		if (!comma)
			return 0;
		p = comma + 1;
	}
}

int xvbd_share_build_opts(enum xvbd_share_proto proto, const char *user_opts,
			  const char *credentials, char *buf, size_t len)
{
	/*
	 * nfs: v3 over TCP works with no statd/idmapd; nolock: the image is
	 * used through a loop device, which takes no POSIX locks.  retry=0:
	 * an unreachable server fails now, not after two minutes.
	 */
	const char *defaults = proto == XVBD_SHARE_NFS ?
		"vers=3,proto=tcp,nolock,retry=0" : "vers=3.0";
	bool user = user_opts && *user_opts;
	bool cred = proto == XVBD_SHARE_SMB && credentials;
	/*
	 * Always, and after the user's (the last one wins): the server owns
	 * every byte on the share, so no set-uid program, no device node
	 * and no executable of it is honoured in dom0.
	 */
	int n = snprintf(buf, len, "%s%s%s,%s%s%s", defaults, user ? "," : "",
			 user ? user_opts : "", XVBD_SHARE_FORCED_OPTS,
			 cred ? ",credentials=" : "", cred ? credentials : "");

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/* ---- mount table ---- */

/* mountinfo escapes blanks and backslashes as \ooo; decode in place. */
static void unescape(char *s)
{
	char *d = s;

	while (*s) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' &&
		    s[2] >= '0' && s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*d++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 +
				      (s[3] - '0'));
			s += 4;
		} else {
			*d++ = *s++;
		}
	}
	*d = '\0';
}

struct mnt_entry {
	unsigned major, minor;
	char *point, *fstype, *source;
};

/* Split one mountinfo line (modified in place). 0 or -EINVAL. */
static int parse_mountinfo(char *line, struct mnt_entry *e)
{
	char *field[6], *save = NULL, *tok, *sep;
	int i;

	for (i = 0; i < 6; i++) {
		tok = strtok_r(i ? NULL : line, " \n", &save);
		if (!tok)
			return -EINVAL;
		field[i] = tok;
	}
	if (sscanf(field[2], "%u:%u", &e->major, &e->minor) != 2)
		return -EINVAL;
	e->point = field[4];
	/* Optional fields end at " - "; then fstype and source. */
	sep = strstr(save ? save : "", "- ");
	if (!sep)
		return -EINVAL;
	e->fstype = strtok_r(sep + 2, " \n", &save);
	e->source = strtok_r(NULL, " \n", &save);
	if (!e->fstype || !e->source)
		return -EINVAL;
	unescape(e->point);
	unescape(e->source);
	return 0;
}

typedef bool (*mnt_match_fn)(const struct mnt_entry *e, const void *arg);

/* The last matching entry wins (what is visible). 1 found, 0, -errno. */
static int mount_scan(mnt_match_fn match, const void *arg,
		      char *a, size_t a_len, char *b, size_t b_len)
{
	FILE *f = fopen(MOUNTINFO, "re");
	char *line = NULL;
	size_t cap = 0;
	int found = 0;

	if (!f)
		return -errno;
	while (getline(&line, &cap, f) > 0) {
		struct mnt_entry e;

		if (parse_mountinfo(line, &e) || !match(&e, arg))
			continue;
		found = 1;
		if (a)
			snprintf(a, a_len, "%s", e.source);
		if (b)
			snprintf(b, b_len, "%s", e.fstype);
	}
	free(line);
	fclose(f);
	return found;
}

static bool match_point(const struct mnt_entry *e, const void *arg)
{
	return !strcmp(e->point, arg);
}

int xvbd_mount_lookup(const char *path, char *source, size_t source_len,
		      char *fstype, size_t fstype_len)
{
	return mount_scan(match_point, path, source, source_len, fstype,
			  fstype_len);
}

struct dev_arg {
	unsigned major, minor;
	char *point;
	size_t len;
};

static bool match_dev(const struct mnt_entry *e, const void *arg)
{
	const struct dev_arg *d = arg;

	if (e->major != d->major || e->minor != d->minor)
		return false;
	snprintf(d->point, d->len, "%s", e->point);
	return true;
}

int xvbd_mount_find_dev(unsigned major, unsigned minor, char *buf, size_t len)
{
	struct dev_arg d = { major, minor, buf, len };

	return mount_scan(match_dev, &d, NULL, 0, NULL, 0);
}

/* ---- lock, mount, umount ---- */

static int mkdir_p(const char *path, mode_t mode)
{
	char buf[XVBD_PATH_MAX];
	char *p;

	snprintf(buf, sizeof(buf), "%s", path);
	for (p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, mode) && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(buf, mode) && errno != EEXIST)
		return -errno;
	return 0;
}

int xvbd_share_lock_at(const char *dir, const char *cmd, unsigned timeout_s,
		       bool tell)
{
	char path[XVBD_PATH_MAX];
	int err = mkdir_p(dir, 0700);

	if (err)
		return err;
	if (snprintf(path, sizeof(path), "%s/" LOCK_NAME, dir) >=
	    (int)sizeof(path))
		return -ENAMETOOLONG;
	/*
	 * Polled, not a blocking flock: with the signals caught as a flag
	 * (SA_RESTART), Ctrl-C would wait for the holder, and a holder
	 * stuck on a dead server would hold the caller for ever.
	 */
	return xvbd_lock_wait_s(cmd, path, timeout_s, tell, SHARE_LOCK_WHOM);
}

int xvbd_share_lock(const char *cmd, unsigned timeout_s, bool tell)
{
	return xvbd_share_lock_at(XVBD_SHARE_DIR, cmd, timeout_s, tell);
}

struct share_tell {
	void (*fn)(void *arg, const char *whom, const char *path);
	void *arg;
	char path[XVBD_PATH_MAX];
};

static void share_waiting(void *arg)
{
	const struct share_tell *t = arg;

	t->fn(t->arg, SHARE_LOCK_WHOM, t->path);
}

int xvbd_share_lock_cb(unsigned timeout_s,
		       void (*waiting)(void *arg, const char *whom,
				       const char *path), void *arg)
{
	struct share_tell t = { waiting, arg, "" };
	int64_t timeout_ms = (int64_t)timeout_s * 1000;
	int err = mkdir_p(XVBD_SHARE_DIR, 0700);

	if (err)
		return err;
	snprintf(t.path, sizeof(t.path), "%s/" LOCK_NAME, XVBD_SHARE_DIR);
	return xvbd_lock_wait(t.path, timeout_ms > INT_MAX ? INT_MAX :
			      (int)timeout_ms, waiting ? share_waiting : NULL,
			      &t);
}

void xvbd_share_unlock(int fd)
{
	/* Released, the file stays: it is the shares' directory's. */
	if (fd >= 0)
		close(fd);
}

/*
 * The first non-empty line of a mount helper's output, escaped by
 * xvbd_escape (control bytes, DEL and everything from 0x80: a C1 byte
 * such as 0x9b is a terminal escape of its own): the error itself.  What
 * follows is a pointer to documentation (mount.cifs: "Refer to the
 * mount.cifs(8) manual page ...", mount(8): "dmesg(1) may have more
 * information ...").
 */
void xvbd_share_helper_line(const char *out, char *why, size_t why_len)
{
	char line[512], *esc;
	size_t len;

	while (*out == '\n' || *out == ' ')
		out++;
	len = strcspn(out, "\n");
	snprintf(line, sizeof(line), "%.*s", (int)len, out);
	esc = xvbd_escape(line);
	snprintf(why, why_len, "%s", esc ? esc : "(no memory)");
	free(esc);
}

/*
 * Run argv (no shell, a fixed environment) with stdout+stderr captured;
 * keep the first non-empty output line in why.  Killed after timeout_ms
 * (spawn.c kills the whole process group: mount.nfs/mount.cifs too).
 * Returns the exit status, or -ETIMEDOUT / -errno.
 */
static int run_helper(char *const argv[], int timeout_ms, char *why,
		      size_t why_len)
{
	static char *const envp[] = {
		"PATH=/usr/sbin:/usr/bin:/sbin:/bin", "LC_ALL=C", NULL,
	};
	char out[4096];
	int status, rc;

	rc = xvbd_spawn_capture(argv, envp, timeout_ms, out, sizeof(out),
				&status);
	xvbd_share_helper_line(out, why, why_len);
	return rc ? rc : status;
}

static int record_path(const char *name, char *buf, size_t len)
{
	int n = snprintf(buf, len, "%s/%s.mount", XVBD_SHARE_DIR, name);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

static int write_record(const struct xvbd_share_url *u)
{
	char path[XVBD_PATH_MAX], tmp[XVBD_PATH_MAX + 8];
	FILE *f;
	int err = record_path(u->name, path, sizeof(path));

	if (err)
		return err;
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "we");
	if (!f)
		return -errno;
	fprintf(f, "proto=%s\nsource=%s\nfstype=%s\n",
		xvbd_share_proto_name(u->proto), u->source,
		xvbd_share_fstype(u->proto));
	if (fclose(f) || rename(tmp, path)) {
		err = -errno;
		unlink(tmp);
		return err;
	}
	return 0;
}

int xvbd_share_mount(const struct xvbd_share_url *u, const char *opts,
		     int timeout_ms, bool *reused, char *why, size_t why_len)
{
	char point[XVBD_PATH_MAX], source[XVBD_PATH_MAX + 300], fstype[32];
	char *argv[] = {
		MOUNT_PROG, "-t", (char *)xvbd_share_fstype(u->proto),
		"-o", (char *)opts, (char *)u->source, point, NULL,
	};
	bool made_dir = false;
	int err, rc;

	*reused = false;
	why[0] = '\0';
	err = xvbd_share_mountpoint(u, point, sizeof(point));
	if (err)
		return err;
	rc = xvbd_mount_lookup(point, source, sizeof(source), fstype,
			       sizeof(fstype));
	if (rc < 0)
		return rc;
	if (rc > 0) {
		char rec[XVBD_PATH_MAX];
		struct stat st;

		if (strcmp(source, u->source)) {
			snprintf(why, why_len, "%s is a mount of %s", point,
				 source);
			return -EEXIST;
		}
		/*
		 * Only a mount with xvbd's record is xvbd's to reuse (and to
		 * unmount with its last disk): one someone made there by hand
		 * may lack nosuid,nodev, and is theirs.
		 */
		if (record_path(u->name, rec, sizeof(rec)) || stat(rec, &st)) {
			snprintf(why, why_len, "%s is mounted, but not mounted "
				 "by xvbd: unmount it first", point);
			return -EEXIST;
		}
		*reused = true;
		return 0;
	}
	if (mkdir(point, 0700)) {
		if (errno != EEXIST)
			return -errno;
	} else {
		made_dir = true;
	}
	/* The helper runs in its own process group: a SIGKILL of ours
	 * does not stop it mounting. */
	xvbd_journal_note(XVBD_J_MOUNT, "%s", point);
	rc = run_helper(argv, timeout_ms, why, why_len);
	if (rc == 0 && xvbd_mount_lookup(point, NULL, 0, NULL, 0) != 1) {
		snprintf(why, why_len, "mount reported success but %s is not "
			 "mounted", point);
		rc = -EIO;
	}
	if (rc == 0)
		rc = write_record(u);
	else if (rc > 0)
		rc = -EIO;
	if (rc) {
		if (rc == -ETIMEDOUT && !why[0])
			snprintf(why, why_len, "no answer from %s",
				 u->server);
		if (xvbd_mount_lookup(point, NULL, 0, NULL, 0) == 1)
			umount2(point, MNT_DETACH);
		if (made_dir)
			rmdir(point);
		if (xvbd_mount_lookup(point, NULL, 0, NULL, 0) == 0)
			xvbd_journal_done(XVBD_J_MOUNT, "%s", point);
	}
	return rc;
}

int xvbd_share_umount(const char *name, char *why, size_t why_len)
{
	char point[XVBD_PATH_MAX], rec[XVBD_PATH_MAX];
	int err;

	why[0] = '\0';
	if (snprintf(point, sizeof(point), "%s/%s", XVBD_SHARE_DIR, name) >=
	    (int)sizeof(point) || record_path(name, rec, sizeof(rec)))
		return -ENAMETOOLONG;
	if (xvbd_mount_lookup(point, NULL, 0, NULL, 0) == 1 &&
	    umount2(point, 0)) {
		err = -errno;
		snprintf(why, why_len, "umount %s: %s", point, strerror(-err));
		return err;
	}
	if (rmdir(point) && errno != ENOENT) {
		err = -errno;
		snprintf(why, why_len, "rmdir %s: %s", point, strerror(-err));
		return err;
	}
	xvbd_journal_done(XVBD_J_MOUNT, "%s", point);
	if (unlink(rec) && errno != ENOENT)
		return -errno;
	return 0;
}

int xvbd_share_of_target(const char *target, char *buf, size_t len)
{
	static const char dir[] = XVBD_SHARE_DIR "/";
	char rec[XVBD_PATH_MAX];
	const char *name, *slash;
	struct stat st;

	if (!target || strncmp(target, dir, sizeof(dir) - 1))
		return 0;
	name = target + sizeof(dir) - 1;
	slash = strchr(name, '/');
	if (!slash || slash == name || (size_t)(slash - name) >= len)
		return 0;
	snprintf(buf, len, "%.*s", (int)(slash - name), name);
	if (record_path(buf, rec, sizeof(rec)) || stat(rec, &st))
		return 0;
	return 1;
}

/*
 * One lstat in a thread of its own: the thread owns the request (it may
 * outlive the caller's wait, blocked on a server that does not answer;
 * the process's exit ends it, NFS waits are killable) and sends the
 * answer over a socket (MSG_NOSIGNAL: a caller gone is no SIGPIPE).
 */
struct lstat_req {
	int fd;
	char path[];
};

struct lstat_answer {
	int err;
	struct stat st;
};

static void *lstat_thread(void *arg)
{
	struct lstat_req *req = arg;
	struct lstat_answer a;
	ssize_t n;

	memset(&a, 0, sizeof(a));
	a.err = lstat(req->path, &a.st) ? -errno : 0;
	n = send(req->fd, &a, sizeof(a), MSG_NOSIGNAL);
	(void)n;
	close(req->fd);
	free(req);
	return NULL;
}

int xvbd_share_lstat(const char *path, int timeout_ms, struct stat *st)
{
	int64_t deadline = xvbd_now_ms() + timeout_ms;
	struct pollfd p = { .events = POLLIN };
	struct lstat_answer a;
	struct lstat_req *req;
	pthread_attr_t attr;
	pthread_t t;
	int sv[2], err;
	ssize_t n;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		return -errno;
	req = malloc(sizeof(*req) + strlen(path) + 1);
	if (!req) {
		close(sv[0]);
		close(sv[1]);
		return -ENOMEM;
	}
	req->fd = sv[1];
	strcpy(req->path, path);
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	err = -pthread_create(&t, &attr, lstat_thread, req);
	pthread_attr_destroy(&attr);
	if (err) {
		free(req);
		close(sv[0]);
		close(sv[1]);
		return err;
	}
	p.fd = sv[0];
	err = -ETIMEDOUT;
	for (;;) {
		int64_t left = deadline - xvbd_now_ms();

		if (left <= 0)
			break;
		if (poll(&p, 1, (int)left) <= 0)
			continue;	/* EINTR, or the deadline */
		n = recv(sv[0], &a, sizeof(a), MSG_WAITALL);
		if (n < 0 && errno == EINTR)
			continue;
		err = n == (ssize_t)sizeof(a) ? a.err : -EIO;
		if (!err)
			*st = a.st;
		break;
	}
	close(sv[0]);
	return err;
}
