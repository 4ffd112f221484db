/* One call of a command under the .git guard's filter: see git-guard-calls.c. */
#ifndef TSCODEX_GIT_GUARD_CALLS_H
#define TSCODEX_GIT_GUARD_CALLS_H

#include <linux/seccomp.h>

/*
 * Receives the next notification on `listener` into `req` (SECCOMP_IOCTL_NOTIF_RECV), makes the
 * call for the caller unless it creates a guarded name (`.git`, `.codex`, `.agents`, `.tscodex`,
 * any case: EPERM), and answers it (an opened file through SECCOMP_IOCTL_NOTIF_ADDFD). Returns when answered, or at once if the caller is gone.
 */
void git_guard_answer(int listener, struct seccomp_notif *req);

#endif
