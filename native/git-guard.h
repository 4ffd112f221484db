/* The .git guard of tscodex-sandbox: see git-guard.c. */
#ifndef TSCODEX_GIT_GUARD_H
#define TSCODEX_GIT_GUARD_H

/*
 * Call last, in the process about to exec the command, once it is fully restricted (mount
 * namespace, Landlock, capabilities, no_new_privs, seccomp). Forks: returns 0 in the child,
 * which has the guard's seccomp filter installed and goes on to exec the command; the calling
 * process becomes the command's supervisor and never returns (it exits with the command's
 * exact status). -1 with errno set when nothing could be started (nothing forked).
 */
int git_guard_start(void);

#endif
