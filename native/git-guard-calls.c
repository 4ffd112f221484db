/*
 * The .git guard's side of each call (see git-guard.c): read the caller's path(s), refuse a
 * new guarded name (`.git`, `.codex`, `.agents`, `.tscodex`: see guarded_names), else make the
 * call for the caller, resolved as the caller would (its cwd, directory fd or root through
 * /proc/PID; /proc/self and /dev/fd as the caller's own), and answer. Never SECCOMP_USER_NOTIF_FLAG_CONTINUE: the caller's memory may change after we read.
 */
#define _GNU_SOURCE
#include "git-guard-calls.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#define PATH_MAX_LEN 4096
#define MAX_SYMLINKS 40

/* ---- reading the call ----------------------------------------------------------------- */

/* The NUL-terminated string at `addr` in `pid`; 0 or a negative errno. */
static int read_string(pid_t pid, uint64_t addr, char *out, size_t size) {
  size_t done = 0;
  while (done < size) {
    /* Page by page: the string may end just before an unmapped page. */
    uint64_t at = addr + done;
    size_t chunk = 4096 - (size_t)(at & 4095);
    if (chunk > size - done) chunk = size - done;
    struct iovec local = {out + done, chunk}, remote = {(void *)(uintptr_t)at, chunk};
    ssize_t got = process_vm_readv(pid, &local, 1, &remote, 1, 0);
    if (got <= 0) return got == 0 ? -EFAULT : (errno == ESRCH ? -ESRCH : -EFAULT);
    char *nul = memchr(out + done, 0, (size_t)got);
    if (nul) return 0;
    done += (size_t)got;
  }
  return -ENAMETOOLONG;
}

/* A call waiting for our answer: the caller's pid (a thread id) and the notification. */
struct call {
  pid_t pid;
  uint64_t id;
  int listener;
};

/* Whether the call is still waiting, so its pid was not reused by another process since we
 * looked at /proc/PID. */
static int still_waiting(const struct call *call) {
  uint64_t id = call->id;
  return ioctl(call->listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) == 0;
}

/* open() of a /proc/PID path, valid only if the call is still waiting afterwards. */
static int open_proc(const struct call *call, const char *path, int flags) {
  int fd = open(path, flags | O_CLOEXEC);
  if (fd < 0) return -errno;
  if (still_waiting(call)) return fd;
  close(fd);
  return -ESRCH;
}

/*
 * Names no sandboxed command may create, in any case (git finds `.GIT` as `.git` on a
 * case-insensitive file system, and so would the config loader find `.CODEX`): `.git` (its
 * config and hooks run on the user's next git command), `.codex` (a project config layer: its
 * MCP server commands run outside every sandbox in a trusted project), `.agents` (skills) and
 * `.tscodex` (our home's name). Refused anywhere, not only at a writable root's top: config
 * layers are read from `.codex/` in every directory between the project root and the cwd (and
 * skills from `.agents/skills` there), so a nested one is live as soon as a session starts at or
 * below it; a root's top need not be the project root; and we know neither the roots nor the
 * next session's cwd. Existing ones are bound read-only (src/policy/sandbox/layout.ts).
 */
static const char *const guarded_names[] = {".git", ".codex", ".agents", ".tscodex"};

/* Whether the name a path creates (its last component, trailing slashes ignored) is guarded. */
static int is_guarded_name(const char *path) {
  size_t end = strlen(path);
  while (end > 0 && path[end - 1] == '/') end--;
  size_t start = end;
  while (start > 0 && path[start - 1] != '/') start--;
  for (size_t i = 0; i < sizeof guarded_names / sizeof *guarded_names; i++) {
    size_t len = strlen(guarded_names[i]);
    if (end - start == len && strncasecmp(path + start, guarded_names[i], len) == 0) return 1;
  }
  return 0;
}

/* A directory of the caller as an O_PATH fd: its root, cwd or fd `dirfd`; or ours, `own_dir`. */
static int open_base(const struct call *call, const char *path, int dirfd, int own_dir) {
  pid_t pid = call->pid;
  char proc[64];
  if (path[0] != '/' && own_dir >= 0) {
    int fd = fcntl(own_dir, F_DUPFD_CLOEXEC, 0);
    return fd < 0 ? -errno : fd;
  }
  if (path[0] == '/')
    snprintf(proc, sizeof proc, "/proc/%d/root", (int)pid);
  else if (dirfd == AT_FDCWD)
    snprintf(proc, sizeof proc, "/proc/%d/cwd", (int)pid);
  else
    snprintf(proc, sizeof proc, "/proc/%d/fd/%d", (int)pid, dirfd);
  int fd = open_proc(call, proc, O_PATH);
  return fd == -ENOENT && path[0] != '/' && dirfd != AT_FDCWD ? -EBADF : fd;
}

static int on_fs(int fd, long type) {
  struct statfs fs;
  return fstatfs(fd, &fs) == 0 && fs.f_type == type;
}

/*
 * `dir` as the caller sees it when it is in our own /proc/PID (reached through /proc/self,
 * /dev/fd, /dev/stdout...): the same directory of the caller's /proc/PID. Closes `dir`.
 */
static int as_caller(int dir, const struct call *call) {
  pid_t pid = call->pid;
  char link[64], where[PATH_MAX_LEN], own[32], mapped[PATH_MAX_LEN + 32];
  snprintf(link, sizeof link, "/proc/self/fd/%d", dir);
  ssize_t len = readlink(link, where, sizeof where - 1);
  if (len < 0) return dir;
  where[len] = 0;
  int own_len = snprintf(own, sizeof own, "/proc/%d", (int)getpid());
  if (strncmp(where, own, (size_t)own_len) != 0 || (where[own_len] != '/' && where[own_len] != 0)) return dir;
  const char *rest = where + own_len;
  /* /proc/self/task/SELF is /proc/thread-self: the calling thread's. */
  char task[48];
  int task_len = snprintf(task, sizeof task, "/task/%d", (int)getpid());
  if (strncmp(rest, task, (size_t)task_len) == 0 && (rest[task_len] == '/' || rest[task_len] == 0))
    snprintf(mapped, sizeof mapped, "/proc/%d/task/%d%s", (int)pid, (int)pid, rest + task_len);
  else
    snprintf(mapped, sizeof mapped, "/proc/%d%s", (int)pid, rest);
  close(dir);
  return open_proc(call, mapped, O_PATH | O_DIRECTORY);
}

/*
 * Opens the directory that holds `path`'s last component, as the caller would resolve it
 * (absolute paths inside its root); *name points into `path` at that component (trailing
 * slashes kept, the *at calls treat them as the kernel would). A relative path starts at
 * `own_dir` when that is an fd of ours (>= 0). Returns an fd or -errno.
 */
static int open_parent(const struct call *call, int dirfd, int own_dir, char *path, const char **name) {
  if (path[0] == 0) return -ENOENT;
  int base = open_base(call, path, dirfd, own_dir);
  if (base < 0) return base;
  size_t end = strlen(path);
  while (end > 1 && path[end - 1] == '/') end--;
  size_t start = end;
  while (start > 0 && path[start - 1] != '/') start--;
  *name = path + start;
  if (start == 0) return on_fs(base, PROC_SUPER_MAGIC) ? as_caller(base, call) : base;
  /* Only slashes before the name: the caller's root itself. */
  size_t dir_end = start;
  while (dir_end > 0 && path[dir_end - 1] == '/') dir_end--;
  if (dir_end == 0) return base;
  char dir[PATH_MAX_LEN];
  memcpy(dir, path, dir_end);
  dir[dir_end] = 0;
  const char *relative = dir;
  while (*relative == '/') relative++;
  /* Symlinks on the way resolve in our root: the caller's unless it chroot'ed in a user
   * namespace of its own, where it would only miss its own files. */
  int fd = openat(base, relative, O_PATH | O_DIRECTORY | O_CLOEXEC);
  int saved = errno;
  close(base);
  if (fd < 0) return -saved;
  return on_fs(fd, PROC_SUPER_MAGIC) ? as_caller(fd, call) : fd;
}

/* The caller's umask, from /proc/PID/status; 022 when it cannot be read. */
static mode_t caller_umask(pid_t pid) {
  char path[64], text[2048];
  snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 022;
  ssize_t len = read(fd, text, sizeof text - 1);
  close(fd);
  if (len <= 0) return 022;
  text[len] = 0;
  char *line = strstr(text, "\nUmask:");
  return line ? (mode_t)strtoul(line + 7, NULL, 8) : 022;
}

/* ---- making the call ------------------------------------------------------------------- */


static int answer_fd(const struct call *call, int fd, int cloexec) {
  /* Never a file of /proc or an anonymous inode (our listener): a path into our own /proc/PID
   * (by number) would hand the caller our memory or fds. Nothing there is made by O_CREAT. */
  if (on_fs(fd, PROC_SUPER_MAGIC) || on_fs(fd, ANON_INODE_FS_MAGIC)) return -EACCES;
  struct seccomp_notif_addfd addfd = {
      .id = call->id,
      .flags = SECCOMP_ADDFD_FLAG_SEND,
      .srcfd = (uint32_t)fd,
      .newfd_flags = cloexec ? O_CLOEXEC : 0,
  };
  int result = ioctl(call->listener, SECCOMP_IOCTL_NOTIF_ADDFD, &addfd);
  return result < 0 ? -errno : 0;
}

/* A blocking open (a FIFO, a device) made on a thread of its own, so no other call waits. */
struct slow_open {
  struct call call;
  int parent, flags;
  char name[PATH_MAX_LEN];
};

static void answer_error(const struct call *call, int err) {
  struct seccomp_notif_resp resp = {.id = call->id, .error = err};
  ioctl(call->listener, SECCOMP_IOCTL_NOTIF_SEND, &resp);
}

static void *slow_open_thread(void *arg) {
  struct slow_open *open_ = arg;
  int fd = openat(open_->parent, open_->name, (open_->flags | O_CLOEXEC) & ~(O_CREAT | O_EXCL));
  int result = fd < 0 ? -errno : answer_fd(&open_->call, fd, open_->flags & O_CLOEXEC);
  if (result != 0) answer_error(&open_->call, result);
  if (fd >= 0) close(fd);
  close(open_->parent);
  free(open_);
  return NULL;
}

/* 1 when the call will be answered on a thread (it now owns `parent`), else 0. `flags` are
 * the caller's, plus O_NOFOLLOW unless the last component is to be followed. */
static int open_on_thread(const struct call *call, int parent, const char *name, int flags) {
  struct slow_open *open_ = malloc(sizeof *open_);
  if (!open_) return 0;
  *open_ = (struct slow_open){.call = *call, .parent = parent, .flags = flags};
  snprintf(open_->name, sizeof open_->name, "%s", name);
  pthread_t thread;
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  int started = pthread_create(&thread, &attr, slow_open_thread, open_) == 0;
  pthread_attr_destroy(&attr);
  if (!started) free(open_);
  return started;
}

/*
 * Opens an existing `name` with `flags` (no O_CREAT) and answers; a FIFO on a thread (its open
 * waits for the other end). Takes `parent`. 0 when answered, else the negative errno.
 */
static int open_existing(const struct call *call, int parent, const char *name, int flags) {
  struct stat st;
  int at = (flags & O_NOFOLLOW) ? AT_SYMLINK_NOFOLLOW : 0;
  if (fstatat(parent, name, &st, at) == 0 && S_ISFIFO(st.st_mode) && !(flags & O_NONBLOCK) &&
      open_on_thread(call, parent, name, flags))
    return 0;
  int fd = openat(parent, name, flags | O_CLOEXEC);
  int result = fd < 0 ? -errno : answer_fd(call, fd, flags & O_CLOEXEC);
  if (fd >= 0) close(fd);
  close(parent);
  return result;
}

/*
 * open/openat/creat with O_CREAT. The kernel never follows the final component on our behalf:
 * a symlink there is read and its target checked like the path itself (a dangling
 * `x -> sub/.git` must not create `sub/.git`). Answers the call itself when it returns 0;
 * else returns the negative errno to answer.
 */
static int emulate_open(const struct call *call, int dirfd, char *path, int flags, mode_t mode) {
  int follow = !(flags & (O_EXCL | O_NOFOLLOW));
  int own_dir = -1; /* the directory of the last symlink followed */
  int result = -ELOOP;
  for (int hops = 0; hops <= MAX_SYMLINKS; hops++) {
    if (is_guarded_name(path)) {
      result = -EPERM;
      break;
    }
    const char *name;
    int parent = open_parent(call, dirfd, own_dir, path, &name);
    if (parent < 0) {
      result = parent;
      break;
    }
    struct stat st;
    if (on_fs(parent, PROC_SUPER_MAGIC)) {
      /* Nothing can be created in /proc: open what is there as the caller would, following
       * a magic link (/proc/PID/fd/N) to the caller's open file. */
      result = open_existing(call, parent, name, flags & ~(O_CREAT | O_EXCL));
      break;
    }
    int exists = fstatat(parent, name, &st, AT_SYMLINK_NOFOLLOW) == 0;
    if (exists && S_ISLNK(st.st_mode) && follow) {
      char target[PATH_MAX_LEN];
      ssize_t len = readlinkat(parent, name, target, sizeof target - 1);
      if (len >= 0) {
        target[len] = 0;
        memcpy(path, target, (size_t)len + 1);
        if (own_dir >= 0) close(own_dir);
        own_dir = parent;
        continue;
      }
    }
    if (exists && S_ISFIFO(st.st_mode) && !(flags & O_EXCL)) {
      result = open_existing(call, parent, name, flags | O_NOFOLLOW);
      break;
    }
    /* O_NONBLOCK: a FIFO put there since fstatat must not hold up every other call. O_EXCL
     * when it was missing: a symlink put there meanwhile is not followed. */
    int fd = openat(parent, name, flags | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | (exists ? 0 : O_EXCL), mode);
    int err = errno;
    close(parent);
    if (fd < 0) {
      /* Created, or replaced by a symlink, meanwhile: look again. */
      if (!(flags & O_EXCL) && (err == EEXIST || (err == ELOOP && follow))) continue;
      result = -err;
      break;
    }
    if (!(flags & O_NONBLOCK)) fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    result = answer_fd(call, fd, flags & O_CLOEXEC);
    close(fd);
    break;
  }
  if (own_dir >= 0) close(own_dir);
  return result;
}

/* The calls handled, by what they do. */
enum kind { MKDIR, MKNOD, OPEN, RENAME, LINK, SYMLINK, OTHER };

struct args {
  enum kind kind;
  int from_dirfd, to_dirfd;  /* dirfds of the old and the new name */
  uint64_t from, to;         /* the old name (or symlink target) and the new name */
  uint64_t flags, mode, dev; /* as the syscall takes them */
};

static struct args decode(const struct seccomp_data *data) {
  const __u64 *a = data->args;
  int cwd = AT_FDCWD;
  switch (data->nr) {
#ifdef __NR_mkdir
  case __NR_mkdir: return (struct args){MKDIR, 0, cwd, 0, a[0], 0, a[1], 0};
#endif
  case __NR_mkdirat: return (struct args){MKDIR, 0, (int)a[0], 0, a[1], 0, a[2], 0};
#ifdef __NR_mknod
  case __NR_mknod: return (struct args){MKNOD, 0, cwd, 0, a[0], 0, a[1], a[2]};
#endif
  case __NR_mknodat: return (struct args){MKNOD, 0, (int)a[0], 0, a[1], 0, a[2], a[3]};
#ifdef __NR_open
  case __NR_open: return (struct args){OPEN, 0, cwd, 0, a[0], a[1], a[2], 0};
#endif
#ifdef __NR_creat
  case __NR_creat: return (struct args){OPEN, 0, cwd, 0, a[0], O_CREAT | O_WRONLY | O_TRUNC, a[1], 0};
#endif
  case __NR_openat: return (struct args){OPEN, 0, (int)a[0], 0, a[1], a[2], a[3], 0};
#ifdef __NR_rename
  case __NR_rename: return (struct args){RENAME, cwd, cwd, a[0], a[1], 0, 0, 0};
#endif
#ifdef __NR_renameat
  case __NR_renameat: return (struct args){RENAME, (int)a[0], (int)a[2], a[1], a[3], 0, 0, 0};
#endif
  case __NR_renameat2: return (struct args){RENAME, (int)a[0], (int)a[2], a[1], a[3], a[4], 0, 0};
#ifdef __NR_link
  case __NR_link: return (struct args){LINK, cwd, cwd, a[0], a[1], 0, 0, 0};
#endif
  case __NR_linkat: return (struct args){LINK, (int)a[0], (int)a[2], a[1], a[3], a[4], 0, 0};
#ifdef __NR_symlink
  case __NR_symlink: return (struct args){SYMLINK, 0, cwd, a[0], a[1], 0, 0, 0};
#endif
  case __NR_symlinkat: return (struct args){SYMLINK, 0, (int)a[1], a[0], a[2], 0, 0, 0};
  default: return (struct args){OTHER, 0, 0, 0, 0, 0, 0, 0};
  }
}

/* Makes the call for the caller; 0 or a negative errno (0 from OPEN: already answered). */
static int emulate(const struct call *call, const struct args *args) {
  static char to[PATH_MAX_LEN], from[PATH_MAX_LEN];
  int err = read_string(call->pid, args->to, to, sizeof to);
  if (err == 0 && (args->kind == RENAME || args->kind == LINK || args->kind == SYMLINK))
    err = read_string(call->pid, args->from, from, sizeof from);
  /* Read from the right process: the call is still waiting, so its pid was not reused. */
  if (!still_waiting(call)) return -ESRCH;
  if (err != 0) return err;
  if (is_guarded_name(to)) return -EPERM;
  /* RENAME_EXCHANGE gives the old name the new one's file: a name made too. */
  if (args->kind == RENAME && (args->flags & RENAME_EXCHANGE) && is_guarded_name(from)) return -EPERM;
  /* The caller's umask for what gets a mode (a symlink's is always 0777). */
  if (args->kind == OPEN || args->kind == MKDIR || args->kind == MKNOD) umask(caller_umask(call->pid));

  if (args->kind == OPEN) return emulate_open(call, args->to_dirfd, to, (int)args->flags, (mode_t)args->mode);
  const char *to_name;
  int to_parent = open_parent(call, args->to_dirfd, -1, to, &to_name);
  if (to_parent < 0) return to_parent;
  int from_parent = -1;
  const char *from_name = from;
  int result = 0;
  if (args->kind == RENAME || args->kind == LINK) {
    int empty_path = args->kind == LINK && (args->flags & AT_EMPTY_PATH) && from[0] == 0;
    if (empty_path) {
      /* linkat(fd, "", ..., AT_EMPTY_PATH): link the caller's open file itself. */
      snprintf(from, sizeof from, "/proc/%d/fd/%d", (int)call->pid, args->from_dirfd);
      from_parent = AT_FDCWD;
    } else {
      from_parent = open_parent(call, args->from_dirfd, -1, from, &from_name);
      if (from_parent < 0) result = from_parent;
    }
    if (result == 0) {
      if (args->kind == RENAME)
        result = (int)syscall(SYS_renameat2, from_parent, from_name, to_parent, to_name, (unsigned)args->flags);
      else
        result = linkat(from_parent, from_name, to_parent, to_name,
                        empty_path ? AT_SYMLINK_FOLLOW : (int)(args->flags & AT_SYMLINK_FOLLOW));
      if (result < 0) result = -errno;
    }
  } else if (args->kind == SYMLINK) {
    result = symlinkat(from, to_parent, to_name) == 0 ? 0 : -errno;
  } else if (args->kind == MKDIR) {
    result = mkdirat(to_parent, to_name, (mode_t)args->mode) == 0 ? 0 : -errno;
  } else if (args->kind == MKNOD) {
    result = mknodat(to_parent, to_name, (mode_t)args->mode, (dev_t)args->dev) == 0 ? 0 : -errno;
  } else {
    result = -ENOSYS;
  }
  if (from_parent >= 0) close(from_parent);
  close(to_parent);
  return result;
}

void git_guard_answer(int listener, struct seccomp_notif *req) {
  memset(req, 0, sizeof *req);
  if (ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, req) != 0) return; /* the caller is gone */
  struct call call = {.pid = (pid_t)req->pid, .id = req->id, .listener = listener};
  struct args args = decode(&req->data);
  int result = args.kind == OTHER ? -ENOSYS : emulate(&call, &args);
  if (args.kind == OPEN && result == 0) return;
  answer_error(&call, result);
}
