/*
 * tscodex-sandbox: the fallback Linux sandbox of tscodex, used when bubblewrap is missing or
 * cannot run, and bubblewrap's inner layer. It restricts itself, then forks the command and
 * stays as its supervisor (the .git guard) and stand-in: same exit code or fatal signal, same
 * process group, passes on signals sent to it alone, dies with its caller.
 *
 *   tscodex-sandbox [--allow-network] [--allow-unix-sockets] [--pid-namespace]
 *                   [--proxy-route PORT=SOCKPATH]... [--restrict-reads]
 *                   [--writable PATH | --read-only PATH | --deny PATH]... -- CMD [ARGS...]
 *   tscodex-sandbox --probe      print "landlock-abi=N mount-namespace=0|1 net-namespace=0|1",
 *                                exit 0 if usable
 *   tscodex-sandbox --seccomp-only [--allow-network] [--allow-unix-sockets] [--proxy-route ...]
 *                   -- CMD [ARGS...]
 *                                only steps 4-6, and the bridge (bwrap runs it inside its own
 *                                sandbox, in a network namespace of bwrap's: checked, only lo)
 *   tscodex-sandbox --contain-only -- CMD [ARGS...]
 *                                no sandbox, only the keeper of contain.c (danger-full-access)
 *   tscodex-sandbox --file-ops   apply_patch's writes, one request at a time on stdin, without
 *                                following any symlink on the way (see file_ops below)
 *
 * What it applies, in this order (mounts need capabilities; Landlock forbids mounts after it):
 *   0. With --pid-namespace: a new PID namespace (contain.c), so that the end of the command,
 *      or of its caller, ends everything it started; /proc is remounted for it in step 1.
 *      With --proxy-route: a new network namespace with only lo up, and every route's port
 *      bound and listening (proxy-bridge.c), before anything else.
 *   1. A private mount namespace in which every mount is remounted read-only, the --writable
 *      paths are bind-mounted read-write on top, the --read-only paths (control dirs such as
 *      .git inside writable roots) read-only again and the --deny paths hidden, in command-line
 *      order (fs-rules.c): Landlock has no right for chmod, chown, utimes or setxattr, and it
 *      can only allow, never deny beneath an allowed directory, so mounts do that part.
 *      /dev/shm gets a private tmpfs and /dev/pts a private devpts instance (no handle on the
 *      user's terminal). Fails closed when impossible.
 *   2. Drop every capability (matters when run as root) and set no_new_privs (the proxy
 *      bridge is forked in between: it needs connect(), which Landlock and seccomp forbid).
 *   3. Landlock: reads everywhere (with --restrict-reads only beneath the --writable and
 *      --read-only paths, /proc and the usual devices); writes only beneath --writable paths
 *      and to a few device nodes (/dev/null, ttys). On ABI >= 6 also scope signals (no kill()
 *      of processes outside the sandbox) and, without network, abstract unix sockets.
 *   4. seccomp: TIOCSTI/TIOCLINUX ioctls fail (no typing into the caller's terminal); without
 *      --allow-network, socket()/socketpair() of any family but AF_UNIX and io_uring_setup fail
 *      with EPERM, and so does socket(AF_UNIX) unless --allow-unix-sockets (host daemons such
 *      as docker, ssh-agent or dbus listen on unix sockets; socketpair() stays allowed); with
 *      --proxy-route AF_INET and AF_INET6 are allowed (the namespace leads only to the routes).
 *      x32 syscalls fail with EPERM; a foreign ABI (32-bit) kills the process.
 *   5. Die with the parent (PR_SET_PDEATHSIG).
 *   6. The .git guard (git-guard.c): fork; the child installs a seccomp user-notification
 *      filter on every name-creating call and execvp's the command; we stay as its supervisor
 *      (and stand-in), making those calls for it and refusing any new name `.git`
 *      (or `.codex`, `.agents`, `.tscodex`).
 *
 * Exit codes of its own: 120 the kernel has no Landlock; 125 usage or setup error;
 * 126 the command cannot be executed; 127 the command was not found.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/landlock.h>
#include <linux/openat2.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <net/if.h>
#include <unistd.h>

#include "contain.h"
#include "fs-rules.h"
#include "git-guard.h"
#include "proxy-bridge.h"

#define EXIT_NO_LANDLOCK 120
#define EXIT_SETUP 125
#define EXIT_CANNOT_EXEC 126
#define EXIT_NOT_FOUND 127

/* Newer than some distributions' headers: defined here from the kernel ABI. */
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14)
#endif
#ifndef LANDLOCK_ACCESS_FS_IOCTL_DEV
#define LANDLOCK_ACCESS_FS_IOCTL_DEV (1ULL << 15)
#endif
#define SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0)
#define SCOPE_SIGNAL (1ULL << 1)

/* The kernel's struct landlock_ruleset_attr as of ABI 6; older kernels accept the zeros. */
struct ruleset_attr {
  uint64_t handled_access_fs;
  uint64_t handled_access_net;
  uint64_t scoped;
};

#if defined(__x86_64__)
#define NATIVE_AUDIT_ARCH AUDIT_ARCH_X86_64
#define X32_SYSCALL_BIT 0x40000000U
#elif defined(__aarch64__)
#define NATIVE_AUDIT_ARCH AUDIT_ARCH_AARCH64
#elif defined(__riscv) && __riscv_xlen == 64
#define NATIVE_AUDIT_ARCH AUDIT_ARCH_RISCV64
#else
#error "tscodex-sandbox: unsupported architecture (x86_64, aarch64, riscv64)"
#endif

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define ARG_LOW(n) (offsetof(struct seccomp_data, args) + 8 * (n))
#else
#define ARG_LOW(n) (offsetof(struct seccomp_data, args) + 8 * (n) + 4)
#endif

/* Mounts per run (landlock.ts HELPER_MAX_PATHS): a profile's expanded glob denies can be many. */
#define MAX_PATHS 4096

struct options {
  int allow_network;
  int allow_unix_sockets;
  int seccomp_only;
  int contain_only;
  int pid_namespace;
  int probe;
  int restrict_reads;
  const char *writable[MAX_PATHS];
  int n_writable;
  const char *read_only[MAX_PATHS];
  int n_read_only;
  struct fs_op ops[MAX_PATHS];
  int n_ops;
  struct proxy_route routes[MAX_PROXY_ROUTES];
  int n_routes;
  char **command;
};

static void die(int code, const char *what, int err) {
  if (err)
    fprintf(stderr, "tscodex-sandbox: %s: %s\n", what, strerror(err));
  else
    fprintf(stderr, "tscodex-sandbox: %s\n", what);
  exit(code);
}

static void usage(void) {
  die(EXIT_SETUP,
      "usage: tscodex-sandbox [--allow-network] [--pid-namespace] [--proxy-route PORT=SOCKPATH]... "
      "[--restrict-reads] [--writable PATH | --read-only PATH | --deny PATH]... "
      "-- CMD [ARGS...] | --contain-only -- CMD [ARGS...] | --probe",
      0);
}

static void parse_args(int argc, char **argv, struct options *opt) {
  memset(opt, 0, sizeof *opt);
  int i = 1;
  for (; i < argc; i++) {
    const char *arg = argv[i];
    if (strcmp(arg, "--") == 0) {
      i++;
      break;
    }
    if (strcmp(arg, "--probe") == 0) {
      opt->probe = 1;
    } else if (strcmp(arg, "--allow-network") == 0) {
      opt->allow_network = 1;
    } else if (strcmp(arg, "--allow-unix-sockets") == 0) {
      opt->allow_unix_sockets = 1;
    } else if (strcmp(arg, "--seccomp-only") == 0) {
      opt->seccomp_only = 1;
    } else if (strcmp(arg, "--contain-only") == 0) {
      opt->contain_only = 1;
    } else if (strcmp(arg, "--pid-namespace") == 0) {
      opt->pid_namespace = 1;
    } else if (strcmp(arg, "--restrict-reads") == 0) {
      opt->restrict_reads = 1;
    } else if (strcmp(arg, "--writable") == 0 && i + 1 < argc && opt->n_ops < MAX_PATHS) {
      opt->writable[opt->n_writable++] = argv[++i];
      opt->ops[opt->n_ops++] = (struct fs_op){FS_WRITE, argv[i]};
    } else if (strcmp(arg, "--read-only") == 0 && i + 1 < argc && opt->n_ops < MAX_PATHS) {
      opt->read_only[opt->n_read_only++] = argv[++i];
      opt->ops[opt->n_ops++] = (struct fs_op){FS_READ, argv[i]};
    } else if (strcmp(arg, "--deny") == 0 && i + 1 < argc && opt->n_ops < MAX_PATHS) {
      opt->ops[opt->n_ops++] = (struct fs_op){FS_DENY, argv[++i]};
    } else if (strcmp(arg, "--proxy-route") == 0 && i + 1 < argc && opt->n_routes < MAX_PROXY_ROUTES &&
               proxy_route_parse(argv[i + 1], &opt->routes[opt->n_routes]) == 0) {
      opt->n_routes++;
      i++;
    } else {
      usage();
    }
  }
  if (opt->probe) return;
  if (i >= argc) usage();
  opt->command = &argv[i];
}

static int landlock_abi(void) {
  long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
  return abi < 0 ? 0 : (int)abi;
}

/* A private mount namespace: directly as root, else through a user namespace mapping us to ourselves. */
static int enter_mount_namespace(void) {
  if (unshare_as_self(CLONE_NEWNS) != 0) return -1;
  /* Without this our bind mounts would propagate back to the caller's namespace. */
  return mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL);
}

/* Undo mountinfo's octal escapes (\040 for a space) in place. */
static void unescape_mount_point(char *path) {
  char *out = path;
  for (char *in = path; *in; in++) {
    if (in[0] == '\\' && in[1] >= '0' && in[1] <= '7' && in[2] >= '0' && in[2] <= '7' && in[3] >= '0' &&
        in[3] <= '7') {
      *out++ = (char)((in[1] - '0') * 64 + (in[2] - '0') * 8 + (in[3] - '0'));
      in += 3;
    } else {
      *out++ = *in;
    }
  }
  *out = 0;
}

/*
 * Every mount read-only, as bwrap's --ro-bind / /. A mount point we cannot reach (ENOENT,
 * EACCES) cannot be reached by the command either; any other failure is fatal.
 */
static int remount_everything_read_only(void) {
  FILE *info = fopen("/proc/self/mountinfo", "re");
  if (!info) return -1;
  char line[8192];
  int result = 0;
  while (fgets(line, sizeof line, info)) {
    /* Fields: id parent major:minor root mount-point options ... */
    char *save = NULL;
    char *field = strtok_r(line, " ", &save);
    for (int i = 0; field && i < 4; i++) field = strtok_r(NULL, " ", &save);
    if (!field) continue;
    unescape_mount_point(field);
    if (remount(field, 1) != 0 && errno != ENOENT && errno != EACCES) {
      fprintf(stderr, "tscodex-sandbox: cannot make %s read-only: %s\n", field, strerror(errno));
      result = -1;
      break;
    }
  }
  fclose(info);
  return result;
}

/* Private /dev/shm and /dev/pts: nothing shared with the host's, no handle on the user's terminal. */
static int private_dev_mounts(void) {
  if (access("/dev/shm", F_OK) == 0 &&
      mount("tmpfs", "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777") != 0)
    return -1;
  if (access("/dev/pts", F_OK) == 0) {
    if (mount("devpts", "/dev/pts", "devpts", MS_NOSUID | MS_NOEXEC, "newinstance,ptmxmode=0666,mode=0620") != 0)
      return -1;
    if (access("/dev/ptmx", F_OK) == 0 && mount("/dev/pts/ptmx", "/dev/ptmx", NULL, MS_BIND, NULL) != 0)
      return -1;
  }
  return 0;
}

/* Step 1 of the header; -1 (errno set or a message printed) when the kernel will not let us. */
static int setup_mounts(const struct options *opt) {
  if (enter_mount_namespace() != 0) return -1;
  /* Before the read-only pass, which then covers it too (as the host's /proc was). */
  if (opt->pid_namespace && mount_own_proc() != 0) return -1;
  if (remount_everything_read_only() != 0) return -1;
  if (private_dev_mounts() != 0) return -1;
  apply_fs_ops(opt->ops, opt->n_ops);
  /* Our cwd still points into the mount it was on (now read-only): look it up again. */
  char cwd[4096];
  if (getcwd(cwd, sizeof cwd) && chdir(cwd) != 0) return -1;
  return 0;
}

static void drop_capabilities(void) {
  for (int cap = 0; cap < 64; cap++) {
    if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 && errno == EINVAL) break;
  }
  prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
  struct __user_cap_header_struct header = {_LINUX_CAPABILITY_VERSION_3, 0};
  struct __user_cap_data_struct data[2];
  memset(data, 0, sizeof data);
  if (syscall(SYS_capset, &header, data) != 0) die(EXIT_SETUP, "capset", errno);
}

static uint64_t write_rights(int abi) {
  uint64_t rights = LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_REMOVE_DIR |
                    LANDLOCK_ACCESS_FS_REMOVE_FILE | LANDLOCK_ACCESS_FS_MAKE_CHAR |
                    LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_MAKE_REG |
                    LANDLOCK_ACCESS_FS_MAKE_SOCK | LANDLOCK_ACCESS_FS_MAKE_FIFO |
                    LANDLOCK_ACCESS_FS_MAKE_BLOCK | LANDLOCK_ACCESS_FS_MAKE_SYM;
  if (abi >= 2) rights |= LANDLOCK_ACCESS_FS_REFER;
  if (abi >= 3) rights |= LANDLOCK_ACCESS_FS_TRUNCATE;
  if (abi >= 5) rights |= LANDLOCK_ACCESS_FS_IOCTL_DEV;
  return rights;
}

/* Rights that apply to a non-directory (the kernel rejects directory rights on files). */
static const uint64_t FILE_RIGHTS = LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_TRUNCATE |
                                   LANDLOCK_ACCESS_FS_IOCTL_DEV | LANDLOCK_ACCESS_FS_READ_FILE |
                                   LANDLOCK_ACCESS_FS_EXECUTE;

/* Adds a rule; a path that does not exist is skipped (nothing to write there anyway). */
static void allow_path(int ruleset, const char *path, uint64_t rights, int required) {
  int fd = open(path, O_PATH | O_CLOEXEC);
  if (fd < 0) {
    if (required && errno != ENOENT) die(EXIT_SETUP, path, errno);
    return;
  }
  struct stat st;
  if (fstat(fd, &st) != 0) die(EXIT_SETUP, path, errno);
  struct landlock_path_beneath_attr rule = {
      .allowed_access = S_ISDIR(st.st_mode) ? rights : rights & FILE_RIGHTS,
      .parent_fd = fd,
  };
  if (rule.allowed_access != 0 &&
      syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &rule, 0) != 0)
    die(EXIT_SETUP, path, errno);
  close(fd);
}

/* Device nodes every program expects to open for writing; /dev/pts for ptys. */
static const char *const DEVICES[] = {"/dev/null", "/dev/zero",   "/dev/full", "/dev/random",
                                      "/dev/urandom", "/dev/tty", "/dev/ptmx", "/dev/pts"};

/* What --restrict-reads takes away outside the rules' paths. */
static const uint64_t READ_RIGHTS =
    LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR | LANDLOCK_ACCESS_FS_EXECUTE;

/* Readable under --restrict-reads whatever the rules say, as bwrap's --dev and --proc give them. */
static const char *const SYSTEM_READABLE[] = {"/proc"};

static void apply_landlock(const struct options *opt, int abi) {
  uint64_t reads = opt->restrict_reads ? READ_RIGHTS : 0;
  uint64_t rights = write_rights(abi) | reads;
  struct ruleset_attr attr = {.handled_access_fs = rights};
  if (abi >= 6) {
    attr.scoped = SCOPE_SIGNAL;
    if (!opt->allow_network) attr.scoped |= SCOPE_ABSTRACT_UNIX_SOCKET;
  }
  size_t size = abi >= 6 ? sizeof attr : abi >= 4 ? 16 : 8;
  int ruleset = (int)syscall(SYS_landlock_create_ruleset, &attr, size, 0);
  if (ruleset < 0) die(EXIT_SETUP, "landlock_create_ruleset", errno);
  for (int i = 0; i < opt->n_writable; i++) allow_path(ruleset, opt->writable[i], rights, 1);
  if (reads) {
    for (int i = 0; i < opt->n_read_only; i++) allow_path(ruleset, opt->read_only[i], reads, 0);
    for (size_t i = 0; i < sizeof SYSTEM_READABLE / sizeof *SYSTEM_READABLE; i++)
      allow_path(ruleset, SYSTEM_READABLE[i], LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR, 0);
  }
  uint64_t device_rights = rights & (FILE_RIGHTS | reads);
  for (size_t i = 0; i < sizeof DEVICES / sizeof *DEVICES; i++)
    allow_path(ruleset, DEVICES[i], device_rights, 0);
  if (syscall(SYS_landlock_restrict_self, ruleset, 0) != 0)
    die(EXIT_SETUP, "landlock_restrict_self", errno);
  close(ruleset);
}

#define ALLOW BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)
#define DENY BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA))
#define LOAD(off) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, (off))

/*
 * `inet`: the command's network namespace leads only to the proxy routes, so AF_INET and
 * AF_INET6 sockets are allowed (they reach nothing but loopback); other families stay denied.
 */
static void apply_seccomp(int allow_network, int allow_unix_sockets, int inet) {
  struct sock_filter filter[64];
  unsigned n = 0;
#define PUSH(insn) (filter[n++] = (struct sock_filter)insn)
  PUSH(LOAD(offsetof(struct seccomp_data, arch)));
  PUSH(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, NATIVE_AUDIT_ARCH, 1, 0));
  PUSH(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS));
  PUSH(LOAD(offsetof(struct seccomp_data, nr)));
#ifdef X32_SYSCALL_BIT
  /* x32 numbers reach the same handlers (x32 socket() included) under other numbers. */
  PUSH(BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, X32_SYSCALL_BIT, 0, 1));
  PUSH(DENY);
#endif
  /* ioctl(fd, TIOCSTI | TIOCLINUX): the kernel reads cmd as 32 bits, so compare the low word. */
  PUSH(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_ioctl, 0, 4));
  PUSH(LOAD(ARG_LOW(1)));
  PUSH(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, TIOCSTI, 1, 0));
  PUSH(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, TIOCLINUX, 0, 1));
  PUSH(DENY);
  if (!allow_network) {
    /* socketpair(AF_UNIX) only connects the caller to itself: allowed (libuv's stdio needs it). */
    PUSH(LOAD(offsetof(struct seccomp_data, nr)));
    PUSH(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_socketpair, 0, 4));
    PUSH(LOAD(ARG_LOW(0)));
    PUSH(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AF_UNIX, 0, 1));
    PUSH(ALLOW);
    PUSH(DENY);
    /* socket(AF_UNIX) reaches host daemons (docker, ssh-agent, dbus): only when opted in. */
    int families[3], n_families = 0;
    if (allow_unix_sockets) families[n_families++] = AF_UNIX;
    if (inet) {
      families[n_families++] = AF_INET;
      families[n_families++] = AF_INET6;
    }
    PUSH(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_socket, 0, (unsigned char)(n_families ? 2 + 2 * n_families : 1)));
    if (n_families) PUSH(LOAD(ARG_LOW(0)));
    for (int i = 0; i < n_families; i++) {
      PUSH(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)families[i], 0, 1));
      PUSH(ALLOW);
    }
    PUSH(DENY);
#ifdef __NR_io_uring_setup
    /* io_uring can open sockets without the socket() syscall. */
    PUSH(LOAD(offsetof(struct seccomp_data, nr)));
    PUSH(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_io_uring_setup, 0, 1));
    PUSH(DENY);
#endif
  }
  PUSH(ALLOW);
#undef PUSH
  struct sock_fprog prog = {.len = (unsigned short)n, .filter = filter};
  if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) != 0) die(EXIT_SETUP, "seccomp", errno);
}

/*
 * --file-ops: apply_patch writes through us so that no path it was approved for can be
 * redirected by a symlink planted meanwhile. Every directory on the way is opened with
 * openat2(RESOLVE_NO_SYMLINKS), then the last component is changed relative to that fd with
 * *at calls that do not follow it either. Requests on stdin, fields NUL-terminated:
 *   mkdirp PATH             create missing directories; answers the first one created (or "")
 *   create PATH MODE LEN    then LEN bytes: a new file (O_EXCL), MODE octal or "-" (umask)
 *   rename FROM TO | unlink PATH | rmdir PATH | symlink TARGET PATH
 * Each answer is one line: "ok[ VALUE]" or "err ERRNO" (the number).
 */
static char *read_field(void) {
  static char buf[8192];
  size_t n = 0;
  int c;
  while ((c = getchar()) != EOF) {
    if (c == 0) {
      buf[n] = 0;
      return buf;
    }
    if (n + 1 >= sizeof buf) return NULL;
    buf[n++] = (char)c;
  }
  return NULL;
}

static int open_dir_nofollow(const char *path) {
  struct open_how how = {.flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
                         .resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS};
  return (int)syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof how);
}

/* Split an absolute PATH into its parent (opened, no symlinks) and last component. */
static int open_parent(char *path, const char **name) {
  char *slash = strrchr(path, '/');
  if (path[0] != '/' || !slash || slash[1] == 0 || strcmp(slash + 1, ".") == 0 || strcmp(slash + 1, "..") == 0) {
    errno = EINVAL;
    return -1;
  }
  *name = slash + 1;
  if (slash == path) return open_dir_nofollow("/");
  *slash = 0;
  int fd = open_dir_nofollow(path);
  int saved = errno;
  *slash = '/';
  errno = saved;
  return fd;
}

static void answer(int ok, const char *value) {
  if (ok)
    printf("ok%s%s\n", value && *value ? " " : "", value ? value : "");
  else
    printf("err %d\n", errno);
  fflush(stdout);
}

static int op_mkdirp(char *path, char *first, size_t size) {
  first[0] = 0;
  if (path[0] != '/') return errno = EINVAL, -1;
  for (char *p = path + 1;; p++) {
    if (*p != '/' && *p != 0) continue;
    char saved = *p;
    *p = 0;
    int fd = open_dir_nofollow(path);
    if (fd < 0 && errno == ENOENT) {
      const char *name;
      int parent = open_parent(path, &name);
      if (parent < 0) return -1;
      int made = mkdirat(parent, name, 0777);
      close(parent);
      if (made != 0 && errno != EEXIST) return -1;
      if (made == 0 && !first[0]) snprintf(first, size, "%s", path);
      fd = open_dir_nofollow(path);
    }
    *p = saved;
    if (fd < 0) return -1;
    close(fd);
    if (saved == 0) return 0;
  }
}

/* Consume a request's data that will not be written, keeping the stream in step. */
static void drain(long len) {
  while (len-- > 0 && getchar() != EOF) {
  }
}

static int op_create(char *path, const char *mode, long len) {
  const char *name;
  int parent = open_parent(path, &name);
  if (parent < 0) {
    int saved = errno;
    drain(len);
    return errno = saved, -1;
  }
  int fd = openat(parent, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
  int saved = errno;
  close(parent);
  if (fd < 0) {
    drain(len);
    return errno = saved, -1;
  }
  char chunk[65536];
  int result = 0;
  while (len > 0) {
    size_t want = len > (long)sizeof chunk ? sizeof chunk : (size_t)len;
    size_t got = fread(chunk, 1, want, stdin);
    if (got == 0) {
      result = -1;
      saved = EIO;
      break;
    }
    len -= (long)got;
    if (result == 0 && write(fd, chunk, got) != (ssize_t)got) result = -1, saved = errno;
  }
  if (result == 0 && strcmp(mode, "-") != 0 && fchmod(fd, (mode_t)strtol(mode, NULL, 8)) != 0)
    result = -1, saved = errno;
  close(fd);
  return result == 0 ? 0 : (errno = saved, -1);
}

static int op_two_paths(const char *op, char *from, char *to) {
  const char *name_from, *name_to;
  int parent_to = open_parent(to, &name_to);
  if (parent_to < 0) return -1;
  int result;
  if (strcmp(op, "symlink") == 0) {
    result = symlinkat(from, parent_to, name_to);
  } else {
    int parent_from = open_parent(from, &name_from);
    if (parent_from < 0) {
      int saved = errno;
      close(parent_to);
      return errno = saved, -1;
    }
    result = renameat(parent_from, name_from, parent_to, name_to);
    int saved = errno;
    close(parent_from);
    errno = saved;
  }
  int saved = errno;
  close(parent_to);
  errno = saved;
  return result;
}

static int file_ops(void) {
  char *op_field;
  while ((op_field = read_field()) != NULL) {
    char op[16];
    size_t op_len = strlen(op_field);
    if (op_len >= sizeof op) return EXIT_SETUP;
    memcpy(op, op_field, op_len + 1);
    char *field = read_field();
    if (!field) return EXIT_SETUP;
    char path[4096];
    snprintf(path, sizeof path, "%s", field);
    if (strcmp(op, "mkdirp") == 0) {
      char first[4096];
      answer(op_mkdirp(path, first, sizeof first) == 0, first);
    } else if (strcmp(op, "create") == 0) {
      char mode[16];
      char *m = read_field(), *l = m ? (snprintf(mode, sizeof mode, "%s", m), read_field()) : NULL;
      if (!l) return EXIT_SETUP;
      answer(op_create(path, mode, strtol(l, NULL, 10)) == 0, NULL);
    } else if (strcmp(op, "rename") == 0 || strcmp(op, "symlink") == 0) {
      char *second = read_field();
      if (!second) return EXIT_SETUP;
      char to[4096];
      snprintf(to, sizeof to, "%s", second);
      answer(op_two_paths(op, path, to) == 0, NULL);
    } else if (strcmp(op, "unlink") == 0 || strcmp(op, "rmdir") == 0) {
      const char *name;
      int parent = open_parent(path, &name);
      int result = parent < 0 ? -1 : unlinkat(parent, name, strcmp(op, "rmdir") == 0 ? AT_REMOVEDIR : 0);
      int saved = errno;
      if (parent >= 0) close(parent);
      errno = saved;
      answer(result == 0, NULL);
    } else {
      errno = EINVAL;
      answer(0, NULL);
    }
  }
  return 0;
}

/* Whether only `lo` exists here: bwrap's --unshare-net made the namespace we were started in. */
static int only_loopback(void) {
  struct if_nameindex *names = if_nameindex();
  if (!names) return 0;
  int only = 1;
  for (struct if_nameindex *name = names; name->if_index != 0; name++) only &= strcmp(name->if_name, "lo") == 0;
  if_freenameindex(names);
  return only;
}

/*
 * --proxy-route: a network namespace with only loopback (our own, or bwrap's in seccomp-only
 * mode, checked: never the host's), then the routes' ports bound before anything else runs.
 */
static void start_network(struct options *opt) {
  if (opt->seccomp_only) {
    if (!only_loopback())
      die(EXIT_SETUP, "proxy routes need a network namespace with only lo (bwrap --unshare-net)", 0);
  } else if (enter_net_namespace() != 0) {
    die(EXIT_SETUP, "cannot create a network namespace for the proxy routes", errno);
  }
  if (proxy_routes_prepare(opt->routes, opt->n_routes) != 0) exit(EXIT_SETUP);
}

/* --probe: whether a network namespace with lo up can be made (in a child: it changes us). */
static int net_namespace_works(void) {
  pid_t child = fork();
  if (child == 0) _exit(enter_net_namespace() == 0 ? 0 : 1);
  int status;
  return child > 0 && waitpid(child, &status, 0) == child && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

static int exec_command(char **command) {
  execvp(command[0], command);
  int err = errno;
  fprintf(stderr, "tscodex-sandbox: %s: %s\n", command[0], strerror(err));
  return err == ENOENT ? EXIT_NOT_FOUND : EXIT_CANNOT_EXEC;
}

int main(int argc, char **argv) {
  if (argc == 2 && strcmp(argv[1], "--file-ops") == 0) return file_ops();
  struct options opt;
  parse_args(argc, argv, &opt);
  if (opt.contain_only) {
    if (enter_keeper() != 0) die(EXIT_SETUP, "cannot start the process keeper", errno);
    return exec_command(opt.command);
  }
  if (opt.pid_namespace && enter_pid_namespace() != 0)
    die(EXIT_SETUP, "cannot create a PID namespace", errno);
  pid_t parent = getppid();
  if (opt.n_routes > 0) start_network(&opt);

  int abi = landlock_abi();
  if (abi < 1 && !opt.seccomp_only)
    die(EXIT_NO_LANDLOCK,
        "this kernel has no Landlock (Linux 5.13+ with CONFIG_SECURITY_LANDLOCK and landlock in "
        "the lsm= list); install bubblewrap instead",
        0);

  /* The probe goes through the whole setup, so "usable" means the real thing worked. */
  int mount_ns = 0, net_ns = 0;
  if (opt.probe) {
    net_ns = net_namespace_works();
    mount_ns = setup_mounts(&opt) == 0;
  } else if (!opt.seccomp_only && setup_mounts(&opt) != 0) {
    die(EXIT_SETUP, "cannot make the file system read-only in a private mount namespace", errno);
  }
  if (!opt.seccomp_only) drop_capabilities();
  if (proxy_bridge_start(opt.routes, opt.n_routes) != 0) die(EXIT_SETUP, "cannot start the proxy bridge", errno);
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) die(EXIT_SETUP, "no_new_privs", errno);
  if (!opt.seccomp_only) apply_landlock(&opt, abi);
  apply_seccomp(opt.allow_network, opt.allow_unix_sockets, opt.n_routes > 0);
  if (opt.probe) {
    printf("landlock-abi=%d mount-namespace=%d net-namespace=%d\n", abi, mount_ns, net_ns);
    return 0;
  }

  /* Like bwrap --die-with-parent; the check closes the race with a parent that already left. */
  if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0) die(EXIT_SETUP, "pdeathsig", errno);
  if (getppid() != parent) return EXIT_SETUP;

  if (git_guard_start() != 0) die(EXIT_SETUP, "cannot start the .git guard", errno);
  return exec_command(opt.command);
}
