/**
 * A permission profile's filesystem rules (SandboxPolicy.fsRules) as an ordered list of mounts
 * both backends apply: real paths, from the least specific to the most (a narrower rule wins
 * and can reopen a subtree of a broader deny), with layout.ts's control-dir protection inside
 * every write rule. Missing paths are dropped: nothing to protect for read or deny, and a write
 * rule never creates a host directory.
 */
import { lstat, mkdir, open, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, normalize, sep } from "node:path";
import type { FsAccess } from "../../protocol/permissions.js";
import { CONTROL_DIRS, findGuardedEntries, isWithin, realpathOrNull, tempDirs } from "./layout.js";
import type { ResolvedFsRule, SandboxPolicy } from "./types.js";

/** One mount of a rule layout; a deny knows what it hides and whether a later mount reopens it. */
export type RuleMount =
  | { access: "read"; path: string }
  | { access: "write"; path: string }
  | { access: "deny"; path: string; directory: boolean; reopened: boolean };

export interface RuleLayout {
  /** What `/` gets: the host root read-only or writable; null: nothing outside the rules. */
  root: "read" | "write" | null;
  /** The mounts below `/`, least specific first; control dirs inside write rules come as reads. */
  mounts: RuleMount[];
  /**
   * Rule paths that lead through a symlink (`/lib64` → `/usr/lib64`), to their real paths: a
   * layout without `/` must recreate them (bwrap), or `/lib64/ld-linux…` is not found.
   */
  links: { path: string; target: string }[];
}

/** At the same path: deny > write > read (Codex's precedence). */
const STRENGTH: Record<FsAccess, number> = { read: 0, write: 1, deny: 2 };

/**
 * The mounts for `rules` (real paths; missing ones dropped; at one path deny > write > read).
 * Reads the file system (realpath, stat, the control-dir scan of each write rule) and makes
 * nothing but a missing read-only path of the policy inside a write rule (the home).
 */
export async function resolveRuleLayout(
  rules: readonly ResolvedFsRule[],
  policy: SandboxPolicy,
): Promise<RuleLayout> {
  const byPath = new Map<string, FsAccess>();
  const links = new Map<string, string>();
  const real = await Promise.all(rules.map((rule) => realpathOrNull(rule.path)));
  rules.forEach((rule, i) => {
    const path = real[i];
    if (path === null || path === undefined) return;
    const literal = normalize(rule.path).replace(/(.)\/+$/, "$1");
    if (literal !== path && rule.access !== "deny") links.set(literal, path);
    const previous = byPath.get(path);
    if (previous === undefined || STRENGTH[rule.access] > STRENGTH[previous]) byPath.set(path, rule.access);
  });
  await protectControlDirs(byPath, policy);
  const rootAccess = byPath.get(sep);
  byPath.delete(sep);
  const sorted = [...byPath.entries()].sort(([a], [b]) => depth(a) - depth(b) || a.localeCompare(b));
  // A read or write inside one with the same access changes nothing (`/bin` → `/usr/bin` inside
  // `/usr`). Denies stay: one also hides what bwrap binds in (the proxy's sockets) beneath it.
  const ordered = sorted.filter(([path, access], i) => {
    const enclosing = sorted.slice(0, i).filter(([root]) => isWithin(path, root));
    return access === "deny" || (enclosing.at(-1)?.[1] ?? rootAccess) !== access;
  });
  const mounts = await Promise.all(
    ordered.map(async ([path, access], i): Promise<RuleMount> => {
      if (access !== "deny") return { access, path };
      const directory = (await stat(path).catch(() => null))?.isDirectory() ?? false;
      const reopened = ordered.slice(i + 1).some(([below, kind]) => kind !== "deny" && isWithin(below, path));
      return { access, path, directory, reopened };
    }),
  );
  const root = rootAccess === "read" || rootAccess === "write" ? rootAccess : null;
  // Only links outside every mount: inside one, the host's link is there already.
  const outside = [...links].filter(([path]) => !mounts.some((mount) => isWithin(path, mount.path)));
  return { root, mounts, links: outside.map(([path, target]) => ({ path, target })) };
}

/**
 * Inside every write rule, what layout.ts keeps read-only in a writable root: the control dirs
 * at its top, nested guarded names (not in the temp dirs, nor in `/`), the policy's read-only
 * paths (made first when missing, as for writable roots). Only where a write rule is the one
 * that governs the path: a control dir inside a narrower deny stays denied.
 */
async function protectControlDirs(byPath: Map<string, FsAccess>, policy: SandboxPolicy): Promise<void> {
  const writes = [...byPath].filter(([, access]) => access === "write").map(([path]) => path);
  if (writes.length === 0) return;
  for (const path of policy.readOnlyPaths ?? []) {
    if (writes.some((root) => isWithin(path, root)))
      await mkdir(path, { recursive: true }).catch(() => undefined);
  }
  const temp = new Set((await Promise.all(tempDirs().map((dir) => realpathOrNull(dir)))).filter(isString));
  const scanned = writes.filter((root) => root !== sep && !temp.has(root));
  const candidates = [
    ...writes.flatMap((root) => CONTROL_DIRS.map((name) => join(root, name))),
    ...(policy.readOnlyPaths ?? []),
    ...(await Promise.all(scanned.map((root) => findGuardedEntries(root)))).flat(),
  ];
  const real = (await Promise.all(candidates.map((path) => realpathOrNull(path)))).filter(isString);
  const explicit = new Map(byPath);
  for (const path of new Set(real)) {
    if (governing(explicit, path) === "write") byPath.set(path, "read");
  }
}

/** The access of the most specific rule at or above `path`. */
function governing(rules: Map<string, FsAccess>, path: string): FsAccess | undefined {
  let best: string | undefined;
  for (const root of rules.keys()) {
    if (isWithin(path, root) && (best === undefined || depth(root) > depth(best))) best = root;
  }
  return best === undefined ? undefined : rules.get(best);
}

function depth(path: string): number {
  return path === sep ? 0 : path.split(sep).length - 1;
}

function isString(value: string | null): value is string {
  return value !== null;
}

/**
 * bubblewrap can only bind host files, so a denied file gets this one bound over it: empty,
 * mode 000, in the temp dir (bound read-only, so the command cannot chmod it open). Checked and
 * remade before every use: a command that can write the temp dir could have changed it (it
 * would only change what later denied files show, never reveal them).
 */
export async function deniedFilePlaceholder(): Promise<string> {
  const path = join(tmpdir(), `tscodex-denied-${process.getuid?.() ?? "user"}`);
  const current = await lstat(path).catch(() => null);
  const uid = process.getuid?.();
  const intact =
    current?.isFile() &&
    current.size === 0 &&
    (current.mode & 0o7777) === 0 &&
    (uid === undefined || current.uid === uid);
  if (intact) return path;
  await rm(path, { recursive: true, force: true });
  try {
    const handle = await open(path, "wx", 0);
    await handle.chmod(0);
    await handle.close();
  } catch (error) {
    // Another command made it meanwhile.
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
  return path;
}
