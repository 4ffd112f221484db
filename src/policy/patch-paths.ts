/**
 * Which of a patch's paths fall outside the writable roots. Both sides are compared as real
 * paths (the patch's paths come resolved from apply-patch's approvalPaths; the roots are
 * resolved here), so neither `..` nor a symlink in the workspace reaches out. As in the
 * sandbox, some paths inside a root stay read-only: control directories at its top (.codex,
 * .tscodex), anything inside or named `.git` at any depth (hooks and config run on the user's
 * next git command), and protected paths (the tscodex home).
 */
import { realpath } from "node:fs/promises";
import { join, resolve, sep } from "node:path";
import { CONTROL_DIRS, isWithin } from "./sandbox/layout.js";

/** The roots as real paths; a root that does not exist (yet) is kept as its resolved path. */
export async function realWritableRoots(roots: readonly string[]): Promise<string[]> {
  const real = await Promise.all(
    roots.map(async (root) => {
      try {
        return await realpath(root);
      } catch {
        return resolve(root);
      }
    }),
  );
  return [...new Set(real)];
}

/**
 * The paths (absolute, real) that are not inside any root, or are inside a root's read-only
 * parts (see the module comment), or inside a `protectedPaths` entry (real paths).
 */
export function pathsOutside(
  paths: readonly string[],
  roots: readonly string[],
  protectedPaths: readonly string[] = [],
): string[] {
  return paths.filter((raw) => {
    const path = resolve(raw);
    if (protectedPaths.some((protectedPath) => isWithin(path, protectedPath))) return true;
    return !roots.some((root) => isWritableUnder(path, root));
  });
}

function isWritableUnder(path: string, root: string): boolean {
  if (!isWithin(path, root)) return false;
  if (CONTROL_DIRS.some((name) => isWithin(path, join(root, name)))) return false;
  const below = path.slice(root.length).split(sep);
  return !below.includes(".git");
}
