/**
 * Where a write to a path really lands: every component resolved, the last one included, so a
 * link in the workspace to an outside file (or to `.git/config`, or to the home's config) is
 * judged by its target. A path that does not exist yet resolves to where it would be created:
 * its nearest existing ancestor's real path plus the rest, and a dangling link to its target's
 * would-be path (writing through it would create the target).
 */
import { lstat, readlink, realpath } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";

/** Links followed while resolving one path, as the kernel's own limit (ELOOP). */
const MAX_LINK_HOPS = 40;

/** The real path a write to `path` (absolute) would reach, a link as its last component followed. */
export function realTarget(path: string): Promise<string> {
  return resolveWouldBe(resolve(path), 0);
}

/**
 * The real path of `path`'s parent joined with its last component as is: what removing `path`
 * removes (a link itself, never its target).
 */
export async function realEntry(path: string): Promise<string> {
  const absolute = resolve(path);
  const parent = dirname(absolute);
  if (parent === absolute) return absolute;
  return join(await realTarget(parent), basename(absolute));
}

async function resolveWouldBe(path: string, hops: number): Promise<string> {
  try {
    return await realpath(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  const parent = dirname(path);
  if (parent === path) return path;
  const candidate = join(await resolveWouldBe(parent, hops), basename(path));
  const entry = await lstat(candidate).catch(() => null);
  if (!entry?.isSymbolicLink()) return candidate;
  if (hops >= MAX_LINK_HOPS)
    throw Object.assign(new Error(`ELOOP: too many symbolic links, resolving '${path}'`), { code: "ELOOP" });
  return resolveWouldBe(resolve(dirname(candidate), await readlink(candidate)), hops + 1);
}
