/**
 * Which host paths a sandboxed command may write: the policy's writable roots as real paths
 * (symlinks resolved, missing ones dropped, nested ones folded into their parent) and the
 * paths inside them that must stay read-only: the control directories at a root's top (.git,
 * .codex, .agents, .tscodex, .aws), every `.git`, `.codex`, `.agents` or `.tscodex` (directory,
 * file or link, any case) at any depth of a workspace root (the temp directories are not
 * searched), and the policy's own read-only paths (the tscodex home: its config and rules
 * decide the next run's policy).
 *
 * Only existing paths are listed: nothing is made on the host for a missing one (an empty
 * `.git` left behind made the directory and all below it a repository). The helper's guard,
 * which runs under both backends, refuses every new name in GUARDED_NAMES instead.
 */
import { mkdir, readdir, realpath } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, sep } from "node:path";
import type { SandboxPolicy } from "./types.js";

/**
 * Names the helper's guard (native/git-guard-calls.c, guarded_names) refuses to create anywhere,
 * in any case: a repository (hooks, fsmonitor), a project config layer (MCP server commands),
 * skills, our home. Existing ones are read-only wherever the scan below finds them.
 */
export const GUARDED_NAMES = [".git", ".codex", ".agents", ".tscodex"];

/**
 * Kept read-only at the top of every writable root (temp directories too) when they exist: the
 * guarded names, and `.aws` (credentials and credential_process commands), as Codex does.
 */
export const CONTROL_DIRS = [...GUARDED_NAMES, ".aws"];

/** Directories looked at per writable root for nested guarded entries (bounds the cost per command). */
const MAX_SCANNED_DIRS = 5_000;
/** Not searched for nested repositories: dependency trees, large and never where git runs. */
const SKIPPED_DIRS = new Set(["node_modules"]);

export interface SandboxLayout {
  /** Real paths to mount (bwrap) or allow (Landlock) writable; outermost first. */
  writable: string[];
  /** Real paths inside `writable` to keep read-only; applied after the writable ones. */
  readOnly: string[];
}

/**
 * Reads the file system (realpath per root, a bounded scan for guarded names); nothing is
 * cached, and nothing is made but a missing read-only path of the policy (the home).
 */
export async function resolveLayout(policy: SandboxPolicy): Promise<SandboxLayout> {
  if (policy.mode !== "workspace-write") return { writable: [], readOnly: [] };
  const roots = unique(
    (await Promise.all(policy.writableRoots.map((root) => realpathOrNull(root)))).filter(isString),
  );
  const writable = outermost(roots);
  const inside = (path: string): boolean => writable.some((root) => isWithin(path, root));
  // The home must exist to be mounted read-only: create it rather than leave it writable.
  for (const path of policy.readOnlyPaths ?? []) {
    if (inside(path)) await mkdir(path, { recursive: true }).catch(() => undefined);
  }
  // Nested repositories and config dirs are looked for in the workspace roots (cwd, configured
  // roots), not in the shared temp directories: scanning all of /tmp before every command cost
  // tens of ms and bound every stray clone read-only. A workspace under /tmp is still scanned.
  const temp = new Set((await Promise.all(tempDirs().map((dir) => realpathOrNull(dir)))).filter(isString));
  const workspaceRoots = roots.filter((root) => !temp.has(root));
  const candidates = await Promise.all([
    ...roots.flatMap((root) => CONTROL_DIRS.map((name) => realpathOrNull(join(root, name)))),
    ...(policy.readOnlyPaths ?? []).map((path) => realpathOrNull(path)),
  ]);
  const workspaces = outermost(workspaceRoots);
  const nested = (await Promise.all(workspaces.map((root) => findGuardedEntries(root)))).flat();
  const nestedReal = await Promise.all(nested.map((path) => realpathOrNull(path)));
  // A path that resolves outside every writable root is read-only already.
  const readOnly = outermost(unique([...candidates, ...nestedReal].filter(isString)).filter(inside));
  return { writable, readOnly };
}

/**
 * Every entry named in GUARDED_NAMES, any case (directory, file or link), below `root`, breadth
 * first, not descending into such an entry, node_modules or links; at most MAX_SCANNED_DIRS
 * directories are read.
 */
export async function findGuardedEntries(root: string): Promise<string[]> {
  const found: string[] = [];
  let queue = [root];
  let scanned = 0;
  while (queue.length > 0 && scanned < MAX_SCANNED_DIRS) {
    const next: string[] = [];
    const batch = queue.slice(0, MAX_SCANNED_DIRS - scanned);
    scanned += batch.length;
    const listings = await Promise.all(
      batch.map((dir) => readdir(dir, { withFileTypes: true }).catch(() => [])),
    );
    listings.forEach((entries, i) => {
      const dir = batch[i] as string;
      for (const entry of entries) {
        if (GUARDED_NAMES.includes(entry.name.toLowerCase())) found.push(join(dir, entry.name));
        else if (entry.isDirectory() && !SKIPPED_DIRS.has(entry.name)) next.push(join(dir, entry.name));
      }
    });
    queue = next;
  }
  return found;
}

/** The shared temp directories (not scanned for nested control dirs). */
export function tempDirs(): string[] {
  return [...new Set(["/tmp", tmpdir()])];
}

/** The real path, or null when it does not exist. */
export async function realpathOrNull(path: string): Promise<string | null> {
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
