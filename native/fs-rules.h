/* The ordered file-system mounts of tscodex-sandbox: see fs-rules.c. */
#ifndef TSCODEX_FS_RULES_H
#define TSCODEX_FS_RULES_H

enum fs_access { FS_READ, FS_WRITE, FS_DENY };

/* One --read-only, --writable or --deny PATH, in command-line order. */
struct fs_op {
  enum fs_access access;
  const char *path;
};

/* Remounts the mount at `path` read-only or read-write, keeping the flags a user namespace locks. */
int remount(const char *path, int read_only);

/*
 * Applies the ops in order inside the private mount namespace (after the read-only pass and
 * the private /dev/shm): read → read-only bind, write → writable bind, deny → an unreadable
 * tmpfs (a directory) or empty mode-000 file (a file). Missing paths are skipped. Exits with a
 * message when a mount fails.
 */
void apply_fs_ops(const struct fs_op *ops, int n);

#endif
