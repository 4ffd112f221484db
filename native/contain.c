/*
 * Process containment for tscodex-sandbox: ending the call (or its caller) ends everything
 * the command started, setsid daemons included. Two shapes, one stand-in:
 *
 *   --pid-namespace (Landlock backend):
 *     caller ── stand-in (outside) ── init (pid 1 of a new PID namespace) ── command
 *   --contain-only (danger-full-access: host pids and /proc stay visible and signalable):
 *     caller ── stand-in ── keeper (child subreaper, own session) ── command
 *
 * The stand-in keeps the pid the caller spawned: it exits with the command's exact status
 * (re-raising a fatal signal on itself) and passes on the signals it is sent. init / the
 * keeper reaps orphans and, once the command exited, kills whatever is left of the tree.
 * Everything dies with its parent (PR_SET_PDEATHSIG). In a PID namespace the kernel kills all
 * of it when init dies. The keeper sits in a session of its own, out of reach of the caller's
 * kills of the stand-in's group and session: when the stand-in dies (even by SIGKILL) the
 * keeper is told and SIGKILLs every process below it (orphans are re-parented to it).
 */
#define _GNU_SOURCE
#include "contain.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

static int write_text(const char *path, const char *text) {
  int fd = open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  size_t len = strlen(text);
  ssize_t written = write(fd, text, len);
  int saved = errno;
  close(fd);
  errno = saved;
  return written == (ssize_t)len ? 0 : -1;
}

int unshare_as_self(int flags) {
  uid_t uid = geteuid();
  gid_t gid = getegid();
  if (unshare(flags) == 0) return 0;
  if (unshare(CLONE_NEWUSER | flags) != 0) return -1;
  char map[64];
  if (write_text("/proc/self/setgroups", "deny") != 0 && errno != ENOENT) return -1;
  snprintf(map, sizeof map, "%u %u 1\n", (unsigned)uid, (unsigned)uid);
  if (write_text("/proc/self/uid_map", map) != 0) return -1;
  snprintf(map, sizeof map, "%u %u 1\n", (unsigned)gid, (unsigned)gid);
  return write_text("/proc/self/gid_map", map);
}

int mount_own_proc(void) {
  return mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL);
}

/* Real-time signals between the stand-in and its child: a signal for the command (number in
 * si_value), and the keeper's parent-death signal. */
static int forward_signal(void) {
  return SIGRTMIN + 1;
}
static int stand_in_gone(void) {
  return SIGRTMIN + 2;
}

/* The rest (SIGCHLD, SIGWINCH, stops) are not passed on. */
int passed_on(int sig) {
  switch (sig) {
  case SIGHUP: case SIGINT: case SIGQUIT: case SIGTERM: case SIGUSR1: case SIGUSR2: case SIGALRM:
  case SIGCONT:
    return 1;
  default:
    return 0;
  }
}

_Noreturn void mirror(int status) {
  if (WIFEXITED(status)) _exit(WEXITSTATUS(status));
  int sig = WIFSIGNALED(status) ? WTERMSIG(status) : SIGKILL;
  /* Our own core dump would say nothing about the command. */
  struct rlimit none = {0, 0};
  setrlimit(RLIMIT_CORE, &none);
  signal(sig, SIG_DFL);
  sigset_t one;
  sigemptyset(&one);
  sigaddset(&one, sig);
  sigprocmask(SIG_UNBLOCK, &one, NULL);
  raise(sig);
  _exit(128 + sig);
}

/*
 * The stand-in: waits for its child, passes on signals meant for the command, mirrors the
 * command's status. `shares_group`: the command is in our process group; when we lead that
 * group (a detached spawn), what our parent sends is a signal to the group (the caller only
 * signals its detached children's groups) and reached the command directly.
 */
static void stand_in(pid_t child, pid_t parent, int status_fd, const sigset_t *all, int shares_group) {
  int group_signals = shares_group && getpgrp() == getpid();
  for (;;) {
    siginfo_t info;
    int sig = sigwaitinfo(all, &info);
    if (sig < 0) continue;
    if (sig == SIGCHLD) {
      int status;
      if (waitpid(child, &status, WNOHANG) != child) continue;
      int command_status;
      if (read(status_fd, &command_status, sizeof command_status) == sizeof command_status)
        status = command_status;
      mirror(status);
    }
    /* si_code > 0: sent by the kernel (a terminal's ^C, a hangup) to a whole group. */
    int reached_it = group_signals && info.si_pid == parent;
    if (passed_on(sig) && info.si_code <= 0 && !reached_it)
      sigqueue(child, forward_signal(), (union sigval){.sival_int = sig});
  }
}

/* Reaps every exited child; returns -1 once none is left (ECHILD). Notes the command's status. */
static int reap(pid_t command, int *command_status, int *command_done) {
  for (;;) {
    int status;
    pid_t pid = waitpid(-1, &status, WNOHANG);
    if (pid == 0) return 0;
    if (pid < 0) return errno == EINTR ? 0 : -1;
    if (pid == command) {
      *command_status = status;
      *command_done = 1;
    }
  }
}

static void report_and_exit(int status_fd, int command_status) {
  ssize_t written = write(status_fd, &command_status, sizeof command_status);
  _exit(written == sizeof command_status ? 0 : 125);
}

/* Forks off the stand-in's child (signals already blocked, so no SIGCHLD is lost). */
static pid_t split(int status_pipe[2], int life_pipe[2]) {
  if (pipe2(status_pipe, O_CLOEXEC) != 0 || pipe2(life_pipe, O_CLOEXEC) != 0) return -1;
  return fork();
}

/* In the stand-in's child, after its PDEATHSIG is set: the stand-in's end closed means it is gone. */
static int stand_in_alive(int life_fd) {
  struct pollfd life = {.fd = life_fd, .events = POLLIN};
  return poll(&life, 1, 0) == 0;
}

/* ---- --pid-namespace ---------------------------------------------------------------- */

static void run_init(pid_t command, int status_fd, const sigset_t *all) {
  int command_status = 0, command_done = 0;
  for (;;) {
    siginfo_t info;
    int sig = sigwaitinfo(all, &info);
    if (sig == SIGCHLD) {
      int none_left = reap(command, &command_status, &command_done) < 0;
      if (none_left && command_done) report_and_exit(status_fd, command_status);
      /* The call is over: nothing it started may outlive it. Again on every later SIGCHLD,
       * for a process forked while the previous kill went round. */
      if (command_done) kill(-1, SIGKILL);
    } else if (sig == forward_signal() && !command_done) {
      kill(command, info.si_value.sival_int);
    }
  }
}

int enter_pid_namespace(void) {
  pid_t parent = getppid();
  if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0 || getppid() != parent) return -1;
  if (unshare_as_self(CLONE_NEWPID) != 0) return -1;
  sigset_t all, original;
  int status_pipe[2], life_pipe[2];
  sigfillset(&all);
  sigprocmask(SIG_BLOCK, &all, &original);
  pid_t init_pid = split(status_pipe, life_pipe);
  if (init_pid < 0) return -1;
  if (init_pid > 0) {
    close(status_pipe[1]);
    close(life_pipe[0]);
    stand_in(init_pid, parent, status_pipe[0], &all, 1);
  }
  close(status_pipe[0]);
  close(life_pipe[1]);
  prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
  if (!stand_in_alive(life_pipe[0])) _exit(125);
  pid_t command = fork();
  if (command < 0) _exit(125);
  if (command > 0) run_init(command, status_pipe[1], &all);

  close(status_pipe[1]);
  close(life_pipe[0]);
  sigprocmask(SIG_SETMASK, &original, NULL);
  if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0 || getppid() != 1) _exit(125);
  return 0;
}

/* ---- --contain-only ----------------------------------------------------------------- */

struct proc_entry {
  pid_t pid, ppid;
  char state;
};

/* Every process's pid, parent and state from /proc; NULL when /proc cannot be read. */
static struct proc_entry *list_processes(size_t *count) {
  DIR *dir = opendir("/proc");
  if (!dir) return NULL;
  size_t size = 256, n = 0;
  struct proc_entry *entries = malloc(size * sizeof *entries);
  struct dirent *entry;
  while (entries && (entry = readdir(dir)) != NULL) {
    if (!isdigit((unsigned char)entry->d_name[0])) continue;
    char path[300], stat[512];
    snprintf(path, sizeof path, "/proc/%s/stat", entry->d_name);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) continue;
    ssize_t len = read(fd, stat, sizeof stat - 1);
    close(fd);
    if (len <= 0) continue;
    stat[len] = 0;
    /* "pid (comm) state ppid ...": comm may hold spaces and parentheses. */
    char *end = strrchr(stat, ')');
    char state;
    int ppid;
    if (!end || sscanf(end + 1, " %c %d", &state, &ppid) != 2) continue;
    if (n == size) {
      struct proc_entry *grown = realloc(entries, (size *= 2) * sizeof *entries);
      if (!grown) break;
      entries = grown;
    }
    entries[n++] = (struct proc_entry){atoi(entry->d_name), ppid, state};
  }
  closedir(dir);
  *count = n;
  return entries;
}

/* Sends `sig` to every live process below us, from a scan of all of /proc; returns how many. */
static int signal_descendants_by_scan(int sig) {
  size_t n = 0;
  struct proc_entry *entries = list_processes(&n);
  if (!entries) return 0;
  char *below = calloc(n ? n : 1, 1);
  pid_t self = getpid();
  int found = 0;
  /* Mark children of marked processes until nothing changes (depth passes). */
  for (int changed = 1; changed && below;) {
    changed = 0;
    for (size_t i = 0; i < n; i++) {
      if (below[i]) continue;
      int parent_below = entries[i].ppid == self;
      for (size_t j = 0; j < n && !parent_below; j++)
        parent_below = below[j] && entries[j].pid == entries[i].ppid;
      if (parent_below) {
        below[i] = 1;
        changed = 1;
      }
    }
  }
  for (size_t i = 0; below && i < n; i++) {
    if (!below[i] || entries[i].state == 'Z') continue;
    kill(entries[i].pid, sig);
    found++;
  }
  free(below);
  free(entries);
  return found;
}

/* Appends the children of every thread of `pid` (/proc/PID/task/TID/children) to `queue`. */
static void add_children(pid_t pid, pid_t **queue, size_t *n, size_t *size) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
  DIR *tasks = opendir(path);
  if (!tasks) return;
  struct dirent *task;
  while ((task = readdir(tasks)) != NULL) {
    if (!isdigit((unsigned char)task->d_name[0])) continue;
    char file[300], text[4096];
    snprintf(file, sizeof file, "/proc/%d/task/%s/children", (int)pid, task->d_name);
    int fd = open(file, O_RDONLY | O_CLOEXEC);
    if (fd < 0) continue;
    ssize_t len = read(fd, text, sizeof text - 1);
    close(fd);
    if (len <= 0) continue;
    text[len] = 0;
    for (char *p = text; *p;) {
      char *end;
      long child = strtol(p, &end, 10);
      if (end == p) break;
      p = end;
      if (*n == *size) {
        pid_t *grown = realloc(*queue, (*size *= 2) * sizeof **queue);
        if (!grown) break;
        *queue = grown;
      }
      (*queue)[(*n)++] = (pid_t)child;
    }
  }
  closedir(tasks);
}

/*
 * Sends `sig` to every live process below us; returns how many there were. Walks down the
 * tree through the kernel's children lists (a few reads, not all of /proc); without them
 * (CONFIG_PROC_CHILDREN off) scans /proc. A child forked meanwhile may be missed: callers
 * that must not miss one repeat until nothing is left.
 */
static int signal_descendants(int sig) {
  char probe[64];
  snprintf(probe, sizeof probe, "/proc/%d/task/%d/children", (int)getpid(), (int)getpid());
  if (access(probe, R_OK) != 0) return signal_descendants_by_scan(sig);
  size_t n = 0, size = 64;
  pid_t *queue = malloc(size * sizeof *queue);
  if (!queue) return signal_descendants_by_scan(sig);
  add_children(getpid(), &queue, &n, &size);
  int found = 0;
  for (size_t i = 0; i < n; i++) {
    if (kill(queue[i], sig) == 0) found++;
    add_children(queue[i], &queue, &n, &size);
  }
  free(queue);
  return found;
}

/*
 * SIGKILLs our whole tree, again and again (a process may fork meanwhile), reaping as we go.
 * Orphans are re-parented to us, so once we have no child at all there is nothing below us.
 */
static void kill_tree(pid_t command, int *command_status, int *command_done) {
  struct timespec pause = {0, 1000000};
  for (int round = 0; round < 10000; round++) {
    if (reap(command, command_status, command_done) < 0) return;
    /* Zombies count as none: they are ours to reap once they are re-parented. */
    signal_descendants(SIGKILL);
    nanosleep(&pause, NULL);
  }
}

static void run_keeper(pid_t command, int status_fd, const sigset_t *all, int own_session) {
  int command_status = 0, command_done = 0;
  for (;;) {
    siginfo_t info;
    int sig = sigwaitinfo(all, &info);
    if (sig == SIGCHLD) {
      reap(command, &command_status, &command_done);
      if (!command_done) continue;
      kill_tree(command, &command_status, &command_done);
      report_and_exit(status_fd, command_status);
    } else if (sig == stand_in_gone()) {
      kill_tree(command, &command_status, &command_done);
      _exit(125);
    } else if (sig == forward_signal() && !command_done) {
      /* Like a signal to the process group and session: the whole tree, daemons too. */
      if (own_session)
        signal_descendants(info.si_value.sival_int);
      else
        kill(command, info.si_value.sival_int);
    }
  }
}

int enter_keeper(void) {
  pid_t parent = getppid();
  if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0 || getppid() != parent) return -1;
  /* A detached spawn (the caller signals our group and session): the keeper leaves both. */
  int own_session = getsid(0) == getpid();
  int tty = own_session && isatty(0) && tcgetsid(0) == getpid();
  sigset_t all, original;
  int status_pipe[2], life_pipe[2];
  sigfillset(&all);
  sigprocmask(SIG_BLOCK, &all, &original);
  /* The terminal goes with the keeper: give it up first, and drop the SIGHUP and SIGCONT the
   * kernel then sends us (blocked, pending; they say nothing about the command). */
  if (tty) {
    if (ioctl(0, TIOCNOTTY) != 0) return -1;
    sigset_t hangup;
    sigemptyset(&hangup);
    sigaddset(&hangup, SIGHUP);
    sigaddset(&hangup, SIGCONT);
    struct timespec now = {0, 0};
    while (sigtimedwait(&hangup, NULL, &now) > 0) {
    }
  }
  pid_t keeper = split(status_pipe, life_pipe);
  if (keeper < 0) return -1;
  if (keeper > 0) {
    close(status_pipe[1]);
    close(life_pipe[0]);
    stand_in(keeper, parent, status_pipe[0], &all, !own_session);
  }
  close(status_pipe[0]);
  close(life_pipe[1]);
  prctl(PR_SET_PDEATHSIG, stand_in_gone(), 0, 0, 0);
  if (!stand_in_alive(life_pipe[0])) _exit(125);
  if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0) _exit(125);
  if (own_session && setsid() < 0) _exit(125);
  if (tty && ioctl(0, TIOCSCTTY, 0) != 0) _exit(125);
  pid_t keeper_pid = getpid();
  pid_t command = fork();
  if (command < 0) _exit(125);
  if (command > 0) run_keeper(command, status_pipe[1], &all, own_session);

  close(status_pipe[1]);
  close(life_pipe[0]);
  sigprocmask(SIG_SETMASK, &original, NULL);
  if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0 || getppid() != keeper_pid) _exit(125);
  return 0;
}
