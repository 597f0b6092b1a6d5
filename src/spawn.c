/*
 * spawn.c - fork + execvp + waitpid, without a shell.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "xvbd/spawn.h"

int xvbd_spawn(char *const argv[], int *exit_status)
{
	int pipefd[2], child_errno = 0, status;
	sigset_t none;
	ssize_t n;
	pid_t pid;

	/* The pipe reports a failed exec (close-on-exec: EOF on success). */
	if (pipe2(pipefd, O_CLOEXEC))
		return -errno;
	pid = fork();
	if (pid < 0) {
		int saved = errno;

		close(pipefd[0]);
		close(pipefd[1]);
		return -saved;
	}
	if (pid == 0) {
		int fd = open("/dev/null", O_RDONLY);

		if (fd >= 0) {
			dup2(fd, STDIN_FILENO);
			if (fd != STDIN_FILENO)
				close(fd);
		}
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		close(pipefd[0]);
		execvp(argv[0], argv);
		child_errno = errno;
		n = write(pipefd[1], &child_errno, sizeof(child_errno));
		(void)n;
		_exit(127);
	}
	close(pipefd[1]);
	do {
		n = read(pipefd[0], &child_errno, sizeof(child_errno));
	} while (n < 0 && errno == EINTR);
	close(pipefd[0]);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	if (n == (ssize_t)sizeof(child_errno))
		return -(child_errno ? child_errno : ENOEXEC);
	if (WIFEXITED(status))
		*exit_status = WEXITSTATUS(status);
	else if (WIFSIGNALED(status))
		*exit_status = 128 + WTERMSIG(status);
	else
		*exit_status = 255;
	return 0;
}
