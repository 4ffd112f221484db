/**
 * Which of a patch's paths fall outside the writable roots. Both sides are compared as real
 * paths (the patch's paths come resolved from apply-patch's approvalPaths; the roots are
 * resolved here), so neither `..` nor a symlink in the workspace reaches out. Control
 * directories directly inside a root (.git, .codex, .tscodex) stay read-only, as the sandbox
 * keeps them.
 */
import { realpath } from "node:fs/promises";
import { join, resolve } from "node:path";
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

/** The paths (absolute, real) that are not inside any root, or are inside a root's control dir. */
export function pathsOutside(paths: readonly string[], roots: readonly string[]): string[] {
  return paths.filter((path) => !roots.some((root) => isWritableUnder(resolve(path), root)));
}

function isWritableUnder(path: string, root: string): boolean {
  if (!isWithin(path, root)) return false;
  return !CONTROL_DIRS.some((name) => isWithin(path, join(root, name)));
}
