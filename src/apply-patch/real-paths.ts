/**
 * Where a patch's writes really land, for approval: the policy layer compares these with its
 * writable roots, so symlinked directories on the way are resolved. The last component is kept
 * as is (deleting a link removes the link, not its target); a write through a link to a file
 * is already listed by its target in `touchedPaths`.
 */
import { realpath } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import type { PatchPlan } from "./plan.js";

/** The plan's touched paths with every directory resolved to its real path, deduplicated. */
export async function approvalPaths(plan: Pick<PatchPlan, "touchedPaths">): Promise<string[]> {
  const dirs = new Map<string, Promise<string>>();
  const realDir = (dir: string): Promise<string> => {
    let real = dirs.get(dir);
    if (real === undefined) {
      real = resolveDir(dir, realDir);
      dirs.set(dir, real);
    }
    return real;
  };
  const paths = await Promise.all(
    plan.touchedPaths.map(async (path) => join(await realDir(dirname(path)), basename(path))),
  );
  return [...new Set(paths)];
}

/** realpath of `dir`, or of its nearest existing ancestor joined with the rest. */
async function resolveDir(dir: string, realDir: (dir: string) => Promise<string>): Promise<string> {
  try {
    return await realpath(dir);
  } catch {
    const parent = dirname(dir);
    if (parent === dir) return dir;
    return join(await realDir(parent), basename(dir));
  }
}
