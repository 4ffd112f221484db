/**
 * Which of a patch's paths fall outside the writable roots. Both sides are compared as real
 * paths (the patch's paths come resolved from apply-patch's approvalPaths; the roots are
 * resolved here), so neither `..` nor a symlink in the workspace reaches out. As in the
 * sandbox, some paths inside a root stay read-only: anything inside or named `.git`, `.codex`,
 * `.agents` or `.tscodex` at any depth, in any case (git hooks and config run on the user's next
 * git command; project config and skills are read from every directory down to the cwd), `.aws`
 * at a root's top, and protected paths (the tscodex home).
 */
import { realpath } from "node:fs/promises";
import { resolve, sep } from "node:path";
import { CONTROL_DIRS, GUARDED_NAMES, isWithin } from "./sandbox/layout.js";

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
    // Every root holding the path must allow it: a workspace under /tmp keeps its own
    // control directories even though /tmp, a root too, has none there.
    const holding = roots.filter((root) => isWithin(path, root));
    return holding.length === 0 || !holding.every((root) => isWritableUnder(path, root));
  });
}

/** Not a guarded name (.git, .codex, .agents, .tscodex; any case) at any depth, nor a control dir at the top. */
function isWritableUnder(path: string, root: string): boolean {
  const below = path
    .slice(root.length)
    .split(sep)
    .filter((name) => name !== "")
    .map((name) => name.toLowerCase());
  if (below.some((name) => GUARDED_NAMES.includes(name))) return false;
  return below[0] === undefined || !CONTROL_DIRS.includes(below[0]);
}
