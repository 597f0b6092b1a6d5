/*
 * spawn.c - fork + exec + waitpid, without a shell.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "xvbd/base/spawn.h"
#include "xvbd/base/util.h"

/*
 * The environment of every program xvbd runs: nothing of the caller's
 * (MODPROBE_OPTIONS under sudo -E would make modprobe run any install
 * line; LD_PRELOAD, a PATH to a user's bin...), the same as mount gets.
 */
#define FIXED_PATH	"/usr/sbin:/usr/bin:/sbin:/bin"
static char *const fixed_env[] = {
	"PATH=" FIXED_PATH, "LC_ALL=C", NULL,
};

/*
 * execvp with fixed_env and FIXED_PATH, not the caller's PATH: the
 * search by hand (no allocation: this runs between fork and exec).
 */
static void exec_fixed(char *const argv[])
{
	const char *dir = FIXED_PATH, *end;
	char path[512];
	size_t dlen, nlen = strlen(argv[0]);
	int first_errno = ENOENT;

	if (strchr(argv[0], '/')) {
		execve(argv[0], argv, fixed_env);
		return;
	}
	for (; *dir; dir = *end ? end + 1 : end) {
		end = strchr(dir, ':');
		if (!end)
			end = dir + strlen(dir);
		dlen = (size_t)(end - dir);
		if (dlen + 1 + nlen + 1 > sizeof(path))
			continue;
		memcpy(path, dir, dlen);
		path[dlen] = '/';
		memcpy(path + dlen + 1, argv[0], nlen + 1);
		execve(path, argv, fixed_env);
		if (errno != ENOENT && first_errno == ENOENT)
			first_errno = errno;
	}
	errno = first_errno;
}

/*
 * Every signal back to its default action.  exec resets caught signals
 * but keeps ignored ones: xvbd ignores SIGPIPE, and a workload, xl or
 * mount started with SIGPIPE ignored never dies of a closed pipe (a
 * pipeline that relies on it spins).  sigaction only: this runs between
 * fork and exec.
 */
static void default_dispositions(void)
{
	struct sigaction dfl;
	int sig;

	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	sigemptyset(&dfl.sa_mask);
	for (sig = 1; sig < NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			sigaction(sig, &dfl, NULL);	/* EINVAL: glibc's */
}

/*
 * In the child: its own process group, default signal dispositions, stdin /dev/null, out_fd (if any)
 * as stdout and errout_fd as stderr.  The group: a terminal's Ctrl-C reaches xvbd
 * alone, which lets xl, modprobe or mount finish and then cleans up (a
 * killed xl leaves a half-built domain, a killed mount a mount without
 * xvbd's record); and a timeout kills the helpers a program runs too
 * (mount(8) runs mount.nfs or mount.cifs, which could otherwise still
 * mount after xvbd gave up).
 */
static void __attribute__((noreturn))
child(char *const argv[], char *const envp[], int out_fd, int errout_fd,
      int err_fd)
{
	int fd = open("/dev/null", O_RDONLY), child_errno;
	sigset_t none;
	ssize_t n;

	if (setpgid(0, 0))
		goto fail;

	if (fd >= 0) {
		dup2(fd, STDIN_FILENO);
		if (fd != STDIN_FILENO)
			close(fd);
	}
	if (out_fd >= 0 && (dup2(out_fd, STDOUT_FILENO) < 0 ||
			    dup2(errout_fd, STDERR_FILENO) < 0))
		goto fail;
	default_dispositions();
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (envp)
		execve(argv[0], argv, envp);
	else
		exec_fixed(argv);
fail:
	child_errno = errno;
	n = write(err_fd, &child_errno, sizeof(child_errno));
	(void)n;
	_exit(127);
}

/* Wait for pid; its wait status in *status.  0 or -errno. */
static int reap(pid_t pid, int *status)
{
	while (waitpid(pid, status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return 0;
}

/*
 * Fork and exec; 0 with *pid running, or -errno when it could not be
 * started (then it has been reaped).
 */
static int start(char *const argv[], char *const envp[], int out_fd,
		 int errout_fd, pid_t *pid)
{
	int pipefd[2], child_errno = 0, status;
	ssize_t n;

	/* The pipe reports a failed exec (close-on-exec: EOF on success). */
	if (pipe2(pipefd, O_CLOEXEC))
		return -errno;
	*pid = fork();
	if (*pid < 0) {
		int saved = errno;

		close(pipefd[0]);
		close(pipefd[1]);
		return -saved;
	}
	if (*pid == 0) {
		close(pipefd[0]);
		child(argv, envp, out_fd, errout_fd, pipefd[1]);
	}
	/* Also here, so that the group exists before any kill(-pid). */
	setpgid(*pid, *pid);
	close(pipefd[1]);
	do {
		n = read(pipefd[0], &child_errno, sizeof(child_errno));
	} while (n < 0 && errno == EINTR);
	close(pipefd[0]);
	if (n != (ssize_t)sizeof(child_errno))
		return 0;
	reap(*pid, &status);
	return -(child_errno ? child_errno : ENOEXEC);
}

static int exit_status_of(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return 255;
}

int xvbd_spawn(char *const argv[], int *exit_status)
{
	int status, rc;
	pid_t pid;

	rc = start(argv, NULL, -1, -1, &pid);
	if (!rc)
		rc = reap(pid, &status);
	if (!rc)
		*exit_status = exit_status_of(status);
	return rc;
}

int xvbd_spawn_capture(char *const argv[], char *const envp[],
		       int timeout_ms, char *out, size_t out_len,
		       int *exit_status)
{
	int64_t deadline = xvbd_now_ms() + timeout_ms;
	bool killed = false;
	size_t used = 0;
	int pfd[2], status, rc;
	pid_t pid;

	if (!out_len)
		return -EINVAL;
	out[0] = '\0';
	if (pipe2(pfd, O_CLOEXEC))
		return -errno;
	rc = start(argv, envp, pfd[1], pfd[1], &pid);
	close(pfd[1]);
	if (rc) {
		close(pfd[0]);
		return rc;
	}
	for (;;) {
		struct pollfd p = { .fd = pfd[0], .events = POLLIN };
		int64_t left = deadline - xvbd_now_ms();
		ssize_t n;

		if (left <= 0) {
			kill(-pid, SIGKILL);	/* the whole group */
			killed = true;
			break;
		}
		rc = poll(&p, 1, (int)left);
		if (rc <= 0)
			continue;	/* EINTR, or the deadline */
		if (used < out_len - 1) {
			n = read(pfd[0], out + used, out_len - 1 - used);
		} else {
			char drain[512];	/* full: the rest is read, dropped */

			n = read(pfd[0], drain, sizeof(drain));
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (used < out_len - 1)
			used += (size_t)n;
	}
	close(pfd[0]);
	out[used] = '\0';
	rc = reap(pid, &status);
	if (rc)
		return rc;
	if (killed && WIFSIGNALED(status))
		return -ETIMEDOUT;
	*exit_status = exit_status_of(status);
	return 0;
}

int xvbd_spawn_start(char *const argv[], char *const envp[], int out_fd,
		     pid_t *pid)
{
	if (out_fd < 0 || !envp)
		return -EINVAL;
	return start(argv, envp, out_fd, out_fd, pid);
}

int xvbd_spawn_start_split(char *const argv[], char *const envp[],
			   int out_fd, int errout_fd, pid_t *pid)
{
	if (out_fd < 0 || errout_fd < 0 || !envp)
		return -EINVAL;
	return start(argv, envp, out_fd, errout_fd, pid);
}

int xvbd_spawn_reap(pid_t pid, bool wait, int *exit_status)
{
	int status;
	pid_t got;

	do {
		got = waitpid(pid, &status, wait ? 0 : WNOHANG);
	} while (got < 0 && errno == EINTR);
	if (got < 0)
		return -errno;
	if (got == 0)
		return 0;
	*exit_status = exit_status_of(status);
	return 1;
}
