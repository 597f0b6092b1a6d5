/*
 * journal.c - a command's journal of what it has under way (journal.h):
 * writing it, and reading one back.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "xvbd/base/journal.h"

static struct {
	char cmd[32];
	char path[64];
	int fd;			/* -1: not made yet (or failed) */
	pid_t pid;		/* whose journal it is (a fork is not it) */
} jr = { .fd = -1 };

void xvbd_journal_begin(const char *cmd)
{
	snprintf(jr.cmd, sizeof(jr.cmd), "%s", cmd);
}

/* Command names with a blank ("ab run") are written with a dash. */
static void header(char *buf, size_t len, unsigned long long start)
{
	char cmd[sizeof(jr.cmd)];
	char *p;

	snprintf(cmd, sizeof(cmd), "%s", jr.cmd);
	for (p = cmd; *p; p++)
		if (*p == ' ' || *p == '\n')
			*p = '-';
	snprintf(buf, len, "xvbd %s %llu\n", cmd, start);
}

static int make(void)
{
	unsigned long long start;
	char head[80];
	ssize_t n;
	int fd;

	if (jr.fd >= 0 && jr.pid == getpid())
		return 0;
	/* Only a command keeps one (not a unit test of a layer). */
	if (!jr.cmd[0])
		return -ENOENT;
	jr.fd = -1;
	jr.pid = getpid();
	if (xvbd_proc_start_time(jr.pid, &start))
		return -ESRCH;
	if (mkdir("/run/xvbd", 0700) && errno != EEXIST)
		return -errno;
	if (mkdir(XVBD_JOURNAL_DIR, 0700) && errno != EEXIST)
		return -errno;
	/* pid and start time: unique, and never a dead process's file. */
	snprintf(jr.path, sizeof(jr.path), XVBD_JOURNAL_DIR "/%ld.%llu",
		 (long)jr.pid, start);
	fd = open(jr.path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND |
		  O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	header(head, sizeof(head), start);
	n = write(fd, head, strlen(head));
	if (n != (ssize_t)strlen(head)) {
		close(fd);
		unlink(jr.path);
		return n < 0 ? -errno : -EIO;
	}
	jr.fd = fd;
	return 0;
}

/*
 * One line, one write(2) (O_APPEND): a SIGKILL comes before or after
 * it, never in the middle.  A newline in ARGS (a domain name can hold
 * anything libxl accepts) would start a line of its own: '?'.
 */
static int append(char sign, const char *kind, const char *fmt, va_list ap)
{
	char line[1024];
	int n, len, err;

	err = make();
	if (err)
		return err;
	n = snprintf(line, sizeof(line), "%c%s ", sign, kind);
	len = vsnprintf(line + n, sizeof(line) - n - 1, fmt, ap);
	if (len < 0 || (size_t)(n + len) >= sizeof(line) - 1)
		return -ENAMETOOLONG;
	len += n;
	for (n = 0; n < len; n++)
		if (line[n] == '\n')
			line[n] = '?';
	line[len++] = '\n';
	return write(jr.fd, line, len) == len ? 0 : -EIO;
}

int xvbd_journal_note(const char *kind, const char *fmt, ...)
{
	va_list ap;
	int err;

	va_start(ap, fmt);
	err = append('+', kind, fmt, ap);
	va_end(ap);
	return err;
}

void xvbd_journal_done(const char *kind, const char *fmt, ...)
{
	va_list ap;

	/* Nothing noted, nothing to take back. */
	if (jr.fd < 0 || jr.pid != getpid())
		return;
	va_start(ap, fmt);
	append('-', kind, fmt, ap);
	va_end(ap);
}

void xvbd_journal_end(void)
{
	if (jr.fd < 0 || jr.pid != getpid())
		return;
	unlink(jr.path);
	close(jr.fd);
	jr.fd = -1;
}

/* ---- reading ---- */

static int add_open(struct xvbd_journal *j, const char *kind, size_t klen,
		    const char *args, size_t alen)
{
	struct xvbd_jentry *grown, *e;

	grown = realloc(j->open, (j->nopen + 1) * sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	j->open = grown;
	e = &j->open[j->nopen];
	snprintf(e->kind, sizeof(e->kind), "%.*s", (int)klen, kind);
	e->args = strndup(args, alen);
	if (!e->args)
		return -ENOMEM;
	j->nopen++;
	return 0;
}

/* A "-" line closes the latest open entry with its kind and args. */
static void close_open(struct xvbd_journal *j, const char *kind, size_t klen,
		       const char *args, size_t alen)
{
	size_t i = j->nopen;

	while (i-- > 0) {
		struct xvbd_jentry *e = &j->open[i];

		if (strlen(e->kind) == klen && !strncmp(e->kind, kind, klen) &&
		    strlen(e->args) == alen && !strncmp(e->args, args, alen)) {
			free(e->args);
			memmove(e, e + 1, (j->nopen - i - 1) * sizeof(*e));
			j->nopen--;
			return;
		}
	}
}

int xvbd_journal_parse(const char *text, struct xvbd_journal *j)
{
	const char *line = text, *nl;
	char cmd[sizeof(j->cmd)];
	int n = 0;

	memset(j, 0, sizeof(*j));
	if (sscanf(text, "xvbd %31s %llu%n", cmd, &j->start, &n) != 2 ||
	    (text[n] != '\n' && text[n]))
		return -EINVAL;
	snprintf(j->cmd, sizeof(j->cmd), "%s", cmd);
	for (line = strchr(text, '\n'); line; line = nl) {
		const char *kind, *sp;
		size_t len;

		line++;
		nl = strchr(line, '\n');
		/* A line without its newline was never finished. */
		if (!nl)
			break;
		len = nl - line;
		if (len < 2 || (line[0] != '+' && line[0] != '-'))
			continue;
		kind = line + 1;
		sp = memchr(kind, ' ', nl - kind);
		if (!sp || sp == kind || (size_t)(sp - kind) >= 16)
			continue;
		if (line[0] == '+') {
			if (add_open(j, kind, sp - kind, sp + 1,
				     nl - sp - 1)) {
				xvbd_journal_free(j);
				return -ENOMEM;
			}
		} else {
			close_open(j, kind, sp - kind, sp + 1, nl - sp - 1);
		}
	}
	return 0;
}

void xvbd_journal_free(struct xvbd_journal *j)
{
	size_t i;

	for (i = 0; i < j->nopen; i++)
		free(j->open[i].args);
	free(j->open);
	j->open = NULL;
	j->nopen = 0;
}

int xvbd_proc_start_time(pid_t pid, unsigned long long *start)
{
	char path[32], buf[1024], *p;
	ssize_t n;
	int fd, field;

	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -ESRCH;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -ESRCH;
	buf[n] = '\0';
	/* comm may hold blanks and parentheses: fields follow the last ')'. */
	p = strrchr(buf, ')');
	if (!p)
		return -ESRCH;
	/* Field 3 (state) follows ") "; field 22 is 19 blanks further. */
	for (field = 2; field < 22 && p; field++)
		p = strchr(p + 1, ' ');
	if (!p)
		return -ESRCH;
	*start = strtoull(p + 1, NULL, 10);
	return 0;
}

int xvbd_journal_domid(const char *args, long *domid, const char **rest)
{
	char *end;

	errno = 0;
	*domid = strtol(args, &end, 10);
	if (errno || end == args || *end != ' ' || *domid < -1 ||
	    *domid > 0x7fef)
		return -EINVAL;
	*rest = end + 1;
	return 0;
}

/* The text of a journal: a root-owned regular file, bounded. */
static char *slurp(int dirfd, const char *name, long long *mtime_s)
{
	struct stat st;
	char *text;
	ssize_t n;
	int fd;

	fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
		    O_CLOEXEC);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_uid != 0 ||
	    st.st_size > XVBD_JOURNAL_MAX_BYTES) {
		close(fd);
		return NULL;
	}
	*mtime_s = (long long)st.st_mtime;
	text = malloc(st.st_size + 1);
	n = text ? read(fd, text, st.st_size) : -1;
	close(fd);
	if (n < 0) {
		free(text);
		return NULL;
	}
	text[n] = '\0';
	return text;
}

int xvbd_journal_each_dead(int (*fn)(long pid, const struct xvbd_journal *j,
					void *arg),
			   void *arg, bool forget)
{
	DIR *dir;
	struct dirent *de;
	int n = 0;

	dir = opendir(XVBD_JOURNAL_DIR);
	if (!dir)
		return 0;
	while ((de = readdir(dir))) {
		unsigned long long start, now;
		struct xvbd_journal j;
		long long mtime_s;
		char *text, *end;
		long pid;
		int rc;

		errno = 0;
		pid = strtol(de->d_name, &end, 10);
		if (errno || pid <= 0 || *end != '.')
			continue;
		start = strtoull(end + 1, &end, 10);
		if (*end)
			continue;
		if (!xvbd_proc_start_time(pid, &now) && now == start)
			continue;	/* still at work */
		text = slurp(dirfd(dir), de->d_name, &mtime_s);
		if (!text)
			continue;
		rc = xvbd_journal_parse(text, &j);
		free(text);
		if (rc)
			continue;
		j.written_s = mtime_s;
		n++;
		rc = fn(pid, &j, arg);
		xvbd_journal_free(&j);
		/* Nothing left to name: forgotten. */
		if (!rc && forget)
			unlinkat(dirfd(dir), de->d_name, 0);
	}
	closedir(dir);
	return n;
}

int xvbd_journal_done_for(long pid, const struct xvbd_journal *j,
			  const char *kind, const char *args)
{
	char path[sizeof(XVBD_JOURNAL_DIR) + 48], *line;
	int fd, len, err = 0;

	snprintf(path, sizeof(path), "%s/%ld.%llu", XVBD_JOURNAL_DIR, pid,
		 j->start);
	len = asprintf(&line, "-%s %s\n", kind, args);
	if (len < 0)
		return -ENOMEM;
	fd = open(path, O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		err = -errno;
	else if (write(fd, line, (size_t)len) != len)
		err = -EIO;
	if (fd >= 0 && close(fd) && !err)
		err = -errno;
	free(line);
	return err;
}
