/**
 * Recursive fs/remove and fs/copy that never follow a link (a link is removed or copied as a
 * link) and never delete or create a protected entry: the whole tree is walked first and the
 * request refused, nothing touched, when one of its entries is refused by the write guard
 * (a nested `.git`, the tscodex home, ...); the walk that does the work checks again, for a
 * tree changed in between.
 */
import { lstat, mkdir, readdir, readlink, realpath, rmdir, symlink, unlink } from "node:fs/promises";
import { join, relative } from "node:path";
import { copyRegular, openForWrite } from "./fs-safe-io.js";
import type { WriteGuard } from "./fs-write-policy.js";

/**
 * The first entry below `root` (breadth first, links not followed) whose image under `mapTo`
 * the guard refuses; null when there is none. `mapTo`: an entry's path to the real path that
 * the operation writes (itself for a remove, the destination's counterpart for a copy).
 */
export async function firstRefusedEntry(
  root: string,
  guard: WriteGuard,
  mapTo: (path: string) => string,
): Promise<string | null> {
  let queue = [root];
  while (queue.length > 0) {
    const next: string[] = [];
    for (const dir of queue) {
      for (const entry of await readdir(dir, { withFileTypes: true })) {
        const path = join(dir, entry.name);
        if (!guard.allows(mapTo(path))) return path;
        if (entry.isDirectory()) next.push(path);
      }
    }
    queue = next;
  }
  return null;
}

/** Removes the directory `dir` (a real path the guard allows) and everything below it. */
export async function removeTree(dir: string, guard: WriteGuard): Promise<void> {
  await expectRealDirectory(dir);
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (!guard.allows(path)) throw guard.treeRefusal("the tree being removed now holds", path);
    if (entry.isDirectory()) await removeTree(path, guard);
    else await unlink(path);
  }
  await rmdir(dir);
}

/**
 * Copies the directory `source` to `target` (a real path the guard allows; an existing
 * directory there is merged into): directories and regular files copied, links copied as
 * links, sockets, FIFOs and devices skipped.
 */
export async function copyTree(
  method: string,
  source: string,
  target: string,
  guard: WriteGuard,
): Promise<void> {
  await mkdir(target).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== "EEXIST") throw error;
  });
  await expectRealDirectory(target);
  for (const entry of await readdir(source, { withFileTypes: true })) {
    const from = join(source, entry.name);
    const to = join(target, entry.name);
    if (!guard.allows(to)) throw guard.treeRefusal(`copying ${source} would create`, to);
    if (entry.isDirectory()) await copyTree(method, from, to, guard);
    else if (entry.isSymbolicLink()) await symlink(await readlink(from), to);
    else if (entry.isFile())
      await copyRegular(method, from, () =>
        openForWrite(method, to, guard.allows, (real) => guard.refusal(to, real)),
      );
  }
}

/** `path` as the destination of an entry of a tree copied from `source` to `target`. */
export function counterpart(source: string, target: string): (path: string) => string {
  return (path) => join(target, relative(source, path));
}

/**
 * Throws unless `dir` is a directory reached without a link: a directory the walk created or
 * listed was not swapped for a link to somewhere else before its entries are touched.
 */
async function expectRealDirectory(dir: string): Promise<void> {
  const [info, real] = await Promise.all([lstat(dir), realpath(dir)]);
  if (!info.isDirectory() || real !== dir)
    throw Object.assign(new Error(`ENOTDIR: ${dir} is not a directory reached without links`), {
      code: "ENOTDIR",
    });
}
