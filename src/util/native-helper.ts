/**
 * Where the native helper (native/build/tscodex-sandbox) is: $TSCODEX_SANDBOX_HELPER, else
 * native/build/ of the package, found from src/… or dist/…. Both the sandbox (Landlock, seccomp)
 * and apply_patch's no-symlink writes use it.
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { isExecutable } from "./files.js";

export const HELPER_RELATIVE = join("native", "build", "tscodex-sandbox");

let found: Promise<string | null> | undefined;

/** The helper's path (cached), or null when it is not built. */
export function findNativeHelper(): Promise<string | null> {
  found ??= locate();
  return found;
}

async function locate(): Promise<string | null> {
  const override = process.env.TSCODEX_SANDBOX_HELPER;
  if (override) return (await isExecutable(override)) ? override : null;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let depth = 0; depth < 6; depth++) {
    const candidate = join(dir, HELPER_RELATIVE);
    if (await isExecutable(candidate)) return candidate;
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return null;
}
