/*
 * ab_recorder_cmd.c - the --run (and --ready) command: started with
 * /bin/sh -c in a fixed environment; its stdout, when it is read as the
 * workload's results, a pipe the recorder reads between samples (its
 * wait polls it beside the signals), each piece handed to the workload
 * layer's capture and echoed to stderr, so that the user still sees the
 * command's output as it comes.  Nothing of it is held here: the capture
 * keeps what it parses, within its bound, and counts the rest.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "xvbd/ab/ab_record_impl.h"
#include "ab_recorder_impl.h"
#include "xvbd/base/spawn.h"
#include "xvbd/base/util.h"
#include "xvbd/workload/workload.h"

#define SH			"/bin/sh"
#define PATH_DEFAULT		"/usr/local/sbin:/usr/local/bin:/usr/sbin:" \
				"/usr/bin:/sbin:/bin"

/* --run: /bin/sh -c CMD with a fixed environment. */
int xvbd_ab_run_sh(const struct xvbd_ab_run *run, const char *cmd,
		   pid_t *pid)
{
	/* Its output goes to stderr: stdout is the report's. */
	return xvbd_ab_run_sh_out(run, cmd, STDERR_FILENO, pid);
}

int xvbd_ab_run_sh_out(const struct xvbd_ab_run *run, const char *cmd,
		       int out_fd, pid_t *pid)
{
	char *path = NULL, *home = NULL, *label = NULL, *dom = NULL,
	     *domid = NULL;
	const char *p = getenv("PATH"), *h = getenv("HOME");
	char *argv[] = { SH, "-c", (char *)cmd, NULL };
	int err = -ENOMEM;

	/*
	 * PATH and HOME as the caller has them (the command must be found
	 * as the user would find it), the C locale, and what the record is
	 * about; nothing else leaks in.
	 */
	if (asprintf(&path, "PATH=%s", p && *p ? p : PATH_DEFAULT) < 0)
		path = NULL;
	if (asprintf(&home, "HOME=%s", h && *h ? h : "/") < 0)
		home = NULL;
	if (asprintf(&label, "XVBD_AB_LABEL=%s", run->label) < 0)
		label = NULL;
	if (asprintf(&dom, "XVBD_AB_DOMAIN=%s", run->domain) < 0)
		dom = NULL;
	if (asprintf(&domid, "XVBD_AB_DOMID=%u", run->domid) < 0)
		domid = NULL;
	if (path && home && label && dom && domid) {
		char *envp[] = { path, home, "LC_ALL=C", label, dom, domid,
				 NULL };

		err = xvbd_spawn_start_split(argv, envp, out_fd,
					     STDERR_FILENO, pid);
	}
	free(path);
	free(home);
	free(label);
	free(dom);
	free(domid);
	return err;
}


/* One read; a few per wakeup, so that a flood does not starve sampling. */
#define PIECE_BYTES	65536
#define PIECES_PER_CALL	16

int xvbd_ab_output_open(struct xvbd_ab_output *o, int *child_fd)
{
	int p[2];

	if (pipe2(p, O_CLOEXEC))
		return -errno;
	/* Ours never blocks: the wait polls it. */
	if (fcntl(p[0], F_SETFL, O_NONBLOCK)) {
		int err = -errno;

		close(p[0]);
		close(p[1]);
		return err;
	}
	o->fd = p[0];
	*child_fd = p[1];
	return 0;
}

void xvbd_ab_output_read(struct xvbd_ab_output *o)
{
	char buf[PIECE_BYTES];
	int i;

	for (i = 0; o->fd >= 0 && i < PIECES_PER_CALL; i++) {
		ssize_t n = read(o->fd, buf, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return;
		if (n <= 0) {
			/* EOF (or a broken pipe): every writer is gone. */
			xvbd_ab_output_close(o);
			return;
		}
		o->bytes += (uint64_t)n;
		xvbd_wl_capture_feed(o->capture, buf, (size_t)n);
		/* The user's view of the command, as before it was read;
		 * a failed write to stderr is not the run's failure. */
		if (o->echo && xvbd_write_all(STDERR_FILENO, buf, (size_t)n))
			o->echo = false;
	}
}

bool xvbd_ab_output_drain(struct xvbd_ab_output *o, int timeout_ms)
{
	int64_t deadline = xvbd_now_ms() + timeout_ms;

	while (o->fd >= 0) {
		struct pollfd p = { .fd = o->fd, .events = POLLIN };
		int64_t left = deadline - xvbd_now_ms();

		if (left <= 0)
			return false;
		if (poll(&p, 1, (int)left) < 0 && errno != EINTR)
			return false;
		xvbd_ab_output_read(o);
	}
	return true;
}

void xvbd_ab_output_close(struct xvbd_ab_output *o)
{
	if (o->fd >= 0)
		close(o->fd);
	o->fd = -1;
}

void xvbd_ab_output_finish(struct xvbd_ab_output *o,
			   struct xvbd_ab_record *rec)
{
	if (o->fd < 0)
		return;
	if (!xvbd_ab_output_drain(o, XVBD_AB_OUTPUT_DRAIN_MS))
		xvbd_ab_record_note(rec, "the command's stdout was still "
				    "open %d s after it ended (a process it "
				    "started holds it): read until then",
				    XVBD_AB_OUTPUT_DRAIN_MS / 1000);
	xvbd_ab_output_close(o);
}
