/* Process containment of tscodex-sandbox: see contain.c. */
#ifndef TSCODEX_CONTAIN_H
#define TSCODEX_CONTAIN_H

/*
 * unshare(flags); when that is not permitted, together with a new user namespace that maps
 * our uid and gid to themselves (the unprivileged way to the same capability).
 */
int unshare_as_self(int flags);

/*
 * --pid-namespace: moves the rest of the run into a new PID namespace. Returns 0 in the
 * process that goes on to exec the command (pid 2 inside); the calling process stays outside
 * as the command's stand-in and never returns (it exits with the command's status). -1 with
 * errno set when no namespace can be made (nothing forked).
 */
int enter_pid_namespace(void);

/* Mounts a /proc of the current PID namespace on /proc; call inside a private mount namespace. */
int mount_own_proc(void);

/*
 * --contain-only: the same shape without any namespace (host pids, host /proc): a keeper
 * that is a child subreaper, in a session of its own, runs the command and kills whatever of
 * its tree is left when the command or the stand-in ends. Returns 0 in the command's process.
 */
int enter_keeper(void);

/* Signals a process may be asked to handle and that a stand-in passes on to its command. */
int passed_on(int sig);

/* Ends the calling process the way a child ended (`status` from waitpid): same exit code, or
 * death by the same signal (re-raised, core dump suppressed). */
_Noreturn void mirror(int status);

#endif
