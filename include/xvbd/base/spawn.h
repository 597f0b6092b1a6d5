/*
 * spawn.h - run a program with an argv (fork + exec), never a shell.
 *
 * The child gets an empty signal mask (a caller that blocks SIGINT around
 * a critical section must not hand that mask to xl or modprobe), its own
 * process group (a terminal's Ctrl-C reaches xvbd only, which lets the
 * program finish and then cleans up: xvbd/sig.h) and /dev/null as stdin;
 * stdout and stderr are the caller's unless captured.
 */
#ifndef XVBD_SPAWN_H
#define XVBD_SPAWN_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/*
 * Run argv[0], found on the fixed PATH /usr/sbin:/usr/bin:/sbin:/bin
 * (or as given if it has a '/'), with exactly the environment PATH=that
 * and LC_ALL=C: nothing of the caller's reaches xl or modprobe.
 * 0 when the program ran and exited; *exit_status is its exit status, or
 * 128 + signal number if a signal ended it.  -errno if it could not be
 * started (-ENOENT: not found on PATH).
 */
int xvbd_spawn(char *const argv[], int *exit_status);

/*
 * xvbd_spawn() for a helper whose words are wanted and whose time is
 * bounded (mount):
 * - envp non-NULL: exactly that environment, and argv[0] is run as given
 *   (execve, no PATH search); NULL: xvbd_spawn()'s fixed one;
 * - stdout and stderr both go into out, NUL-terminated; when the program
 *   writes more than out_len - 1 bytes, out keeps the first out_len - 1
 *   (where a mount helper puts its error) and the rest is read and
 *   dropped, so that the program never blocks on a full pipe;
 * - it runs in its own process group, and the whole group is killed
 *   (SIGKILL) if its output has not ended after timeout_ms: then
 *   -ETIMEDOUT (out holds what it wrote).
 */
int xvbd_spawn_capture(char *const argv[], char *const envp[],
		       int timeout_ms, char *out, size_t out_len,
		       int *exit_status);

/*
 * Start a program and return at once (a workload the caller measures
 * while it runs): in its own process group, so that the caller can end
 * it with everything it started (kill(-pid, sig)); stdin /dev/null;
 * stdout and stderr to out_fd; exactly the environment envp (execve, no
 * PATH search).  0 with *pid running, or -errno if it could not start.
 */
int xvbd_spawn_start(char *const argv[], char *const envp[], int out_fd,
		     pid_t *pid);
/*
 * xvbd_spawn_start() with stdout and stderr apart: stdout to out_fd (a
 * pipe the caller reads: the workload's results), stderr to errout_fd.
 */
int xvbd_spawn_start_split(char *const argv[], char *const envp[],
			   int out_fd, int errout_fd, pid_t *pid);
/*
 * Reap pid, waiting for it or not: 1 when it has ended (*exit_status as
 * for xvbd_spawn()), 0 while it runs (only without wait), -errno.
 */
int xvbd_spawn_reap(pid_t pid, bool wait, int *exit_status);

#endif /* XVBD_SPAWN_H */
