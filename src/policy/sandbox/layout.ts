/**
 * Which host paths a sandboxed command may write: the policy's writable roots as real paths
 * (symlinks resolved, missing ones dropped, nested ones folded into their parent) and the
 * control directories inside them that must stay read-only (.git, .codex, .tscodex).
 */
import { realpath } from "node:fs/promises";
import { join, sep } from "node:path";
import type { SandboxPolicy } from "./types.js";

/** Kept read-only inside writable roots: a command must not plant git hooks or edit our config. */
export const CONTROL_DIRS = [".git", ".codex", ".tscodex"];

export interface SandboxLayout {
  /** Real paths to mount (bwrap) or allow (Landlock) writable; outermost first. */
  writable: string[];
  /** Real paths inside `writable` to keep read-only; applied after the writable ones. */
  readOnly: string[];
}

/** Reads the file system (a few realpath calls per root); call per command, nothing is cached. */
export async function resolveLayout(policy: SandboxPolicy): Promise<SandboxLayout> {
  if (policy.mode !== "workspace-write") return { writable: [], readOnly: [] };
  const roots = unique(
    (await Promise.all(policy.writableRoots.map((root) => realpathOrNull(root)))).filter(isString),
  );
  const writable = outermost(roots);
  const controls = await Promise.all(
    roots.flatMap((root) => CONTROL_DIRS.map((name) => realpathOrNull(join(root, name)))),
  );
  // A control dir that resolves outside every writable root is read-only already.
  const readOnly = unique(controls.filter(isString)).filter((path) =>
    writable.some((root) => isWithin(path, root)),
  );
  return { writable, readOnly };
}

async function realpathOrNull(path: string): Promise<string | null> {
  try {
    return await realpath(path);
  } catch {
    return null;
  }
}

function outermost(paths: string[]): string[] {
  const sorted = [...paths].sort((a, b) => a.length - b.length);
  const kept: string[] = [];
  for (const path of sorted) if (!kept.some((root) => isWithin(path, root))) kept.push(path);
  return kept;
}

/** `path` is `root` or beneath it. */
export function isWithin(path: string, root: string): boolean {
  if (path === root || root === sep) return true;
  return path.startsWith(root.endsWith(sep) ? root : root + sep);
}

function unique(paths: string[]): string[] {
  return [...new Set(paths)];
}

function isString(value: string | null): value is string {
  return value !== null;
}
