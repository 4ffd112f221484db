/*
 * File-system rules for tscodex-sandbox's private mount namespace, applied in command-line
 * order (the caller sorts them from the least specific path to the most, so a narrower rule
 * wins):
 *   --read-only PATH  a read-only bind of PATH on itself;
 *   --writable PATH   a writable bind (Landlock then allows writes beneath it);
 *   --deny PATH       a directory becomes an empty tmpfs of mode 000 (0111 when a later rule
 *                     reopens something beneath it, so that it can be traversed), a file gets an
 *                     empty mode-000 file bound over it. Both end read-only, so the command,
 *                     their owner, cannot chmod them back open (there is nothing in them anyway).
 * Every source is opened (O_PATH) before the first mount: a deny may hide a path a later,
 * narrower rule reopens. Its mount point is then made inside the tmpfs.
 */
#define _GNU_SOURCE
#include "fs-rules.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#define EXIT_SETUP 125
#define DENIED_STAGE "/dev/shm/.tscodex-denied"

static _Noreturn void fail(const char *what, const char *path, int err) {
  fprintf(stderr, "tscodex-sandbox: %s %s: %s\n", what, path, strerror(err));
  exit(EXIT_SETUP);
}

int remount(const char *path, int read_only) {
  struct statvfs vfs;
  if (statvfs(path, &vfs) != 0) return -1;
  unsigned long flags = MS_REMOUNT | MS_BIND | (read_only ? MS_RDONLY : 0);
  if (vfs.f_flag & ST_NOSUID) flags |= MS_NOSUID;
  if (vfs.f_flag & ST_NODEV) flags |= MS_NODEV;
  if (vfs.f_flag & ST_NOEXEC) flags |= MS_NOEXEC;
  if (vfs.f_flag & ST_NOATIME) flags |= MS_NOATIME;
  if (vfs.f_flag & ST_NODIRATIME) flags |= MS_NODIRATIME;
  if (vfs.f_flag & ST_RELATIME) flags |= MS_RELATIME;
  if (!(vfs.f_flag & (ST_NOATIME | ST_RELATIME))) flags |= MS_STRICTATIME;
  return mount(NULL, path, NULL, flags, NULL);
}

static int within(const char *path, const char *root) {
  size_t len = strlen(root);
  if (strcmp(root, "/") == 0) return 1;
  return strncmp(path, root, len) == 0 && (path[len] == '/' || path[len] == 0);
}

/* A mount point for a source hidden by a deny tmpfs: parents traversable only, like the tmpfs. */
static void make_mount_point(const char *path, int directory) {
  char buf[4096];
  if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf) fail("path too long:", path, ENAMETOOLONG);
  for (char *p = buf + 1; *p; p++) {
    if (*p != '/') continue;
    *p = 0;
    if (mkdir(buf, 0111) != 0 && errno != EEXIST) fail("cannot make a mount point for", path, errno);
    *p = '/';
  }
  if (directory ? mkdir(buf, 0111) : close(open(buf, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0)))
    if (errno != EEXIST) fail("cannot make a mount point for", path, errno);
}

static void bind(const char *path, int source, int read_only) {
  struct stat st;
  if (fstat(source, &st) != 0) fail("cannot bind", path, errno);
  if (access(path, F_OK) != 0) make_mount_point(path, S_ISDIR(st.st_mode));
  char from[64];
  snprintf(from, sizeof from, "/proc/self/fd/%d", source);
  if (mount(from, path, NULL, MS_BIND | MS_REC, NULL) != 0) fail("cannot bind", path, errno);
  if (remount(path, read_only) != 0) fail("cannot remount", path, errno);
}

static void deny(const char *path, int reopened, int *staged) {
  struct stat st;
  /* Hidden already (inside a broader deny) or gone: nothing to protect. */
  if (stat(path, &st) != 0) return;
  if (S_ISDIR(st.st_mode)) {
    if (mount("tmpfs", path, "tmpfs", MS_NOSUID | MS_NODEV, reopened ? "mode=0111" : "mode=0000") != 0)
      fail("cannot deny", path, errno);
    return;
  }
  /* The empty file lives in our private /dev/shm until every deny is bound, then is unlinked. */
  if (!*staged) {
    int fd = open(DENIED_STAGE, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0);
    if (fd < 0 || fchmod(fd, 0) != 0) fail("cannot deny", path, errno);
    close(fd);
    *staged = 1;
  }
  if (mount(DENIED_STAGE, path, NULL, MS_BIND, NULL) != 0) fail("cannot deny", path, errno);
  if (remount(path, 1) != 0) fail("cannot deny", path, errno);
}

void apply_fs_ops(const struct fs_op *ops, int n) {
  int *sources = calloc((size_t)(n > 0 ? n : 1), sizeof *sources);
  if (!sources) fail("out of memory for", "rules", ENOMEM);
  for (int i = 0; i < n; i++) {
    sources[i] = -1;
    if (ops[i].access == FS_DENY) continue;
    sources[i] = open(ops[i].path, O_PATH | O_CLOEXEC);
    /* Gone since the caller listed it (a shared /tmp): nothing to read or write there. */
    if (sources[i] < 0 && errno != ENOENT) fail("cannot open", ops[i].path, errno);
  }
  int staged = 0;
  for (int i = 0; i < n; i++) {
    if (ops[i].access != FS_DENY) {
      if (sources[i] >= 0) bind(ops[i].path, sources[i], ops[i].access == FS_READ);
      continue;
    }
    int reopened = 0;
    for (int j = i + 1; j < n && !reopened; j++)
      reopened = ops[j].access != FS_DENY && within(ops[j].path, ops[i].path);
    deny(ops[i].path, reopened, &staged);
  }
  /* Read-only last: the mount points of the rules beneath had to be made in them first. */
  for (int i = 0; i < n; i++) {
    struct stat st;
    if (ops[i].access == FS_DENY && stat(ops[i].path, &st) == 0 && S_ISDIR(st.st_mode) &&
        remount(ops[i].path, 1) != 0)
      fail("cannot deny", ops[i].path, errno);
  }
  if (staged) unlink(DENIED_STAGE);
  for (int i = 0; i < n; i++)
    if (sources[i] >= 0) close(sources[i]);
  free(sources);
}
