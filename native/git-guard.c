/*
 * The .git guard: no sandboxed command can give any file a new name `.git` (any case), so it
 * cannot plant a repository whose config (core.fsmonitor, hooks) the user's next git command
 * runs outside the sandbox. Nor `.codex`, `.agents` or `.tscodex` (a project config layer,
 * whose MCP servers a trusted project starts unsandboxed; skills; our home's name): the list,
 * and why it holds anywhere, is guarded_names in git-guard-calls.c. Mounts and Landlock only
 * protect inodes that already exist; a name that does not exist yet needs someone who sees the
 * name (a placeholder made on the host instead would be left there, and make a repository).
 *
 * The command runs under a seccomp filter that hands every name-creating call to us (seccomp
 * user notification): mkdir, mknod, open/creat with O_CREAT, rename, link, symlink (and their
 * *at forms). We copy the path out of the caller's memory, refuse a last component `.git` (or
 * another guarded name) with EPERM, and otherwise make the call ourselves on our copy, relative
 * to the caller's directory fd, cwd or root (opened through /proc/PID), with the caller's
 * umask, then answer with its result (an opened file goes back with SECCOMP_IOCTL_NOTIF_ADDFD).
 * The caller's call never runs itself, so changing its memory after our check changes nothing
 * (we never answer SECCOMP_USER_NOTIF_FLAG_CONTINUE). openat2 fails with ENOSYS (its flags are in a
 * struct the filter cannot read; libc falls back to openat), io_uring_setup with EPERM (it
 * creates files without syscalls), and so do btrfs's subvolume and snapshot ioctls (they make
 * directories under any name) and a nested filter that asks for its own listener (which
 * would answer before us).
 *
 * We are the process that restricted itself and then forked the command: same mount
 * namespace, Landlock domain, credentials and no capabilities, so whatever we do on the
 * command's behalf it could have done itself. We are its parent (a child subreaper, so also
 * the ancestor of its orphans, as Yama's ptrace_scope=1 requires for reading their memory),
 * not dumpable (it cannot ptrace us or steal our listener), and its stand-in: it dies with us,
 * we exit with its exact status and pass on the signals our parent sends us alone. If we are
 * gone, the kernel fails its guarded calls with ENOSYS: closed, not open.
 */
#define _GNU_SOURCE
#include "git-guard.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#if __has_include(<linux/btrfs.h>)
#include <linux/btrfs.h>
#endif
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "contain.h"
#include "git-guard-calls.h"

#ifndef SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV
#define SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV (1UL << 5)
#endif

#if defined(__x86_64__)
#define GUARD_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define GUARD_AUDIT_ARCH AUDIT_ARCH_AARCH64
#elif defined(__riscv) && __riscv_xlen == 64
#define GUARD_AUDIT_ARCH AUDIT_ARCH_RISCV64
#endif

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define GUARD_ARG_LOW(n) (offsetof(struct seccomp_data, args) + 8 * (n))
#else
#define GUARD_ARG_LOW(n) (offsetof(struct seccomp_data, args) + 8 * (n) + 4)
#endif

/* ---- the command's filter ----------------------------------------------------------- */

#define RET(action) BPF_STMT(BPF_RET | BPF_K, (action))
#define RET_ERRNO(err) RET(SECCOMP_RET_ERRNO | ((err) & SECCOMP_RET_DATA))
#define LOAD(off) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, (off))
#define IF_NR(nr, skip) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), 0, (skip))

/* Installs the filter on the calling thread; returns the listener fd, or -1. */
static int install_filter(void) {
  struct sock_filter filter[96];
  unsigned n = 0;
#define PUSH(insn) (filter[n++] = (struct sock_filter)insn)
  PUSH(LOAD(offsetof(struct seccomp_data, arch)));
  PUSH(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, GUARD_AUDIT_ARCH, 1, 0));
  PUSH(RET(SECCOMP_RET_KILL_PROCESS));
  PUSH(LOAD(offsetof(struct seccomp_data, nr)));
#ifdef __x86_64__
  /* x32 numbers reach the same handlers under other numbers. */
  PUSH(BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, 0x40000000U, 0, 1));
  PUSH(RET_ERRNO(EPERM));
#endif
  /* Calls whose flags decide: open/openat notify only with O_CREAT (plain opens stay fast). */
#ifdef __NR_open
  PUSH(IF_NR(__NR_open, 4));
  PUSH(LOAD(GUARD_ARG_LOW(1)));
  PUSH(BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, O_CREAT, 0, 1));
  PUSH(RET(SECCOMP_RET_USER_NOTIF));
  PUSH(RET(SECCOMP_RET_ALLOW));
#endif
  PUSH(IF_NR(__NR_openat, 4));
  PUSH(LOAD(GUARD_ARG_LOW(2)));
  PUSH(BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, O_CREAT, 0, 1));
  PUSH(RET(SECCOMP_RET_USER_NOTIF));
  PUSH(RET(SECCOMP_RET_ALLOW));
  PUSH(IF_NR(__NR_seccomp, 4));
  PUSH(LOAD(GUARD_ARG_LOW(1)));
  PUSH(BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, SECCOMP_FILTER_FLAG_NEW_LISTENER, 0, 1));
  PUSH(RET_ERRNO(EPERM));
  PUSH(RET(SECCOMP_RET_ALLOW));
#ifdef BTRFS_IOC_SUBVOL_CREATE
  /* btrfs makes a subvolume or snapshot (a directory) under any name the ioctl asks for. */
  PUSH(IF_NR(__NR_ioctl, 7));
  PUSH(LOAD(GUARD_ARG_LOW(1)));
  PUSH(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)BTRFS_IOC_SNAP_CREATE, 4, 0));
  PUSH(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)BTRFS_IOC_SUBVOL_CREATE, 3, 0));
  PUSH(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)BTRFS_IOC_SNAP_CREATE_V2, 2, 0));
  PUSH(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)BTRFS_IOC_SUBVOL_CREATE_V2, 1, 0));
  PUSH(RET(SECCOMP_RET_ALLOW));
  PUSH(RET_ERRNO(EPERM));
#endif
  PUSH(IF_NR(__NR_openat2, 1));
  PUSH(RET_ERRNO(ENOSYS));
  PUSH(IF_NR(__NR_io_uring_setup, 1));
  PUSH(RET_ERRNO(EPERM));
  /* Always notified. */
  /* BPF compares the syscall number as an unsigned 32-bit constant. */
  static const __u32 creating[] = {
#ifdef __NR_mkdir
      __NR_mkdir,
#endif
#ifdef __NR_creat
      __NR_creat,
#endif
#ifdef __NR_mknod
      __NR_mknod,
#endif
#ifdef __NR_rename
      __NR_rename,
#endif
#ifdef __NR_link
      __NR_link,
#endif
#ifdef __NR_symlink
      __NR_symlink,
#endif
#ifdef __NR_renameat
      __NR_renameat,
#endif
      __NR_mkdirat, __NR_mknodat, __NR_renameat2, __NR_linkat, __NR_symlinkat,
  };
  for (size_t i = 0; i < sizeof creating / sizeof *creating; i++) {
    PUSH(IF_NR(creating[i], 1));
    PUSH(RET(SECCOMP_RET_USER_NOTIF));
  }
  PUSH(RET(SECCOMP_RET_ALLOW));
#undef PUSH
  struct sock_fprog prog = {.len = (unsigned short)n, .filter = filter};
  /* Killable once we hold the call: a signal must not restart a call we already made. */
  int fd = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
                        SECCOMP_FILTER_FLAG_NEW_LISTENER | SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV, &prog);
  if (fd < 0 && errno == EINVAL)
    fd = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
  return fd;
}

/* ---- the supervisor -------------------------------------------------------------------- */

static void send_fd(int socket, int fd) {
  char byte = 0;
  struct iovec iov = {&byte, 1};
  union {
    char buf[CMSG_SPACE(sizeof(int))];
    struct cmsghdr align;
  } control;
  memset(&control, 0, sizeof control);
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.buf,
                       .msg_controllen = sizeof control.buf};
  struct cmsghdr *cmsg = CMSG_FIRSTHDR(&msg);
  cmsg->cmsg_level = SOL_SOCKET;
  cmsg->cmsg_type = SCM_RIGHTS;
  cmsg->cmsg_len = CMSG_LEN(sizeof(int));
  memcpy(CMSG_DATA(cmsg), &fd, sizeof fd);
  if (sendmsg(socket, &msg, MSG_NOSIGNAL) != 1) _exit(125);
}

static int receive_fd(int socket) {
  char byte;
  struct iovec iov = {&byte, 1};
  union {
    char buf[CMSG_SPACE(sizeof(int))];
    struct cmsghdr align;
  } control;
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.buf,
                       .msg_controllen = sizeof control.buf};
  if (recvmsg(socket, &msg, MSG_CMSG_CLOEXEC) != 1) return -1;
  struct cmsghdr *cmsg = CMSG_FIRSTHDR(&msg);
  if (!cmsg || cmsg->cmsg_type != SCM_RIGHTS) return -1;
  int fd;
  memcpy(&fd, CMSG_DATA(cmsg), sizeof fd);
  return fd;
}

/* Waits for our children; exits like the command once it is done. */
static void reap_children(pid_t command) {
  for (;;) {
    int status;
    pid_t pid = waitpid(-1, &status, WNOHANG);
    if (pid <= 0) return;
    if (pid == command) mirror(status);
  }
}

static void supervise(pid_t command, int listener, const sigset_t *all) {
  pid_t parent = getppid();
  int signals = signalfd(-1, all, SFD_CLOEXEC);
  /* Not dumpable: the command may not ptrace us, read our memory or take our listener. */
  prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
  /* The ancestor of its orphans too (Yama ptrace_scope=1 lets us read only descendants). */
  prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
  /* The command's output is its own: its readers must not wait for us. */
  int null = open("/dev/null", O_RDWR | O_CLOEXEC);
  for (int fd = 0; fd < 3 && null >= 0; fd++) dup3(null, fd, 0);
  if (null > 2) close(null);
  struct pollfd fds[2] = {{.fd = signals, .events = POLLIN}, {.fd = listener, .events = POLLIN}};
  struct seccomp_notif *req = calloc(1, sizeof *req + 256);
  if (signals < 0 || !req) _exit(125);
  reap_children(command);
  for (;;) {
    if (poll(fds, 2, -1) < 0) continue;
    if (fds[1].revents & POLLIN) git_guard_answer(listener, req);
    /* Every task under the filter has exited: nothing more will come. */
    else if (fds[1].revents & (POLLHUP | POLLERR | POLLNVAL)) fds[1].fd = -1;
    if (!(fds[0].revents & POLLIN)) continue;
    struct signalfd_siginfo info;
    if (read(signals, &info, sizeof info) != sizeof info) continue;
    int sig = (int)info.ssi_signo;
    if (sig == SIGCHLD) {
      reap_children(command);
      continue;
    }
    /* What our parent sent us alone (init's or the stand-in's forward); a signal to our group
     * (we lead it) or from the terminal reached the command too. */
    int to_group = getpgrp() == getpid();
    if (passed_on(sig) && info.ssi_code <= 0 && (pid_t)info.ssi_pid == parent && !to_group) kill(command, sig);
  }
}

int git_guard_start(void) {
  int channel[2];
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, channel) != 0) return -1;
  sigset_t all, original;
  sigfillset(&all);
  sigprocmask(SIG_BLOCK, &all, &original);
  /* An ignored SIGCHLD (inherited through exec) would reap the command before we could read
   * its status; the command gets back whatever it inherited. */
  struct sigaction inherited, standard = {.sa_handler = SIG_DFL};
  sigaction(SIGCHLD, &standard, &inherited);
  pid_t supervisor = getpid();
  pid_t command = fork();
  if (command < 0) {
    int saved = errno;
    sigaction(SIGCHLD, &inherited, NULL);
    sigprocmask(SIG_SETMASK, &original, NULL);
    close(channel[0]);
    close(channel[1]);
    errno = saved;
    return -1;
  }
  if (command == 0) {
    close(channel[0]);
    sigaction(SIGCHLD, &inherited, NULL);
    sigprocmask(SIG_SETMASK, &original, NULL);
    if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0 || getppid() != supervisor) _exit(125);
    int listener = install_filter();
    if (listener < 0) {
      fprintf(stderr, "tscodex-sandbox: cannot install the .git guard: %s\n", strerror(errno));
      _exit(125);
    }
    /* Handing over opened files needs SECCOMP_ADDFD_FLAG_SEND (Linux 5.14): an unknown id
     * answers ENOENT where it exists. Without it every O_CREAT would fail: say so instead. */
    struct seccomp_notif_addfd probe = {.flags = SECCOMP_ADDFD_FLAG_SEND, .srcfd = (uint32_t)listener};
    if (ioctl(listener, SECCOMP_IOCTL_NOTIF_ADDFD, &probe) == 0 || errno != ENOENT) {
      fprintf(stderr, "tscodex-sandbox: the .git guard needs Linux 5.14 or newer (seccomp ADDFD_FLAG_SEND)\n");
      _exit(125);
    }
    send_fd(channel[1], listener);
    close(listener);
    close(channel[1]);
    return 0;
  }
  close(channel[1]);
  int listener = receive_fd(channel[0]);
  close(channel[0]);
  if (listener < 0) {
    /* The command failed before its filter was in place: it exits 125 on its own. */
    for (;;) {
      int status;
      if (waitpid(command, &status, 0) == command) mirror(status);
      if (errno == ECHILD) _exit(125);
    }
  }
  supervise(command, listener, &all);
  return -1;
}
