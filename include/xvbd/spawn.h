/*
 * spawn.h - run a program with an argv (fork + execvp), never a shell.
 *
 * The child gets an empty signal mask (a caller that blocks SIGINT around
 * a critical section must not hand that mask to xl or modprobe) and
 * /dev/null as stdin; stdout and stderr are the caller's.
 */
#ifndef XVBD_SPAWN_H
#define XVBD_SPAWN_H

/*
 * 0 when the program ran and exited; *exit_status is its exit status, or
 * 128 + signal number if a signal ended it.  -errno if it could not be
 * started (-ENOENT: not found on PATH).
 */
int xvbd_spawn(char *const argv[], int *exit_status);

#endif /* XVBD_SPAWN_H */
