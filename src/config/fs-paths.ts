/**
 * Filesystem rules with symbolic paths (a profile's, or a legacy sandbox mode's) → concrete
 * absolute paths for a command about to run: `:workspace_roots` is the turn's cwd plus the
 * profile's roots, `:tmpdir` the command's $TMPDIR (no rule when it has none), `:minimal` the
 * system directories common tools need (MINIMAL_PATHS, those present), globs expanded to the
 * files they match now (bounded), symlinks resolved. One rule per path, sorted from the least
 * specific path to the most, which is the order the backends apply them in.
 */
import type { Dirent } from "node:fs";
import { readdir, realpath } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import { expandRulePath } from "../protocol/permission-paths.js";
import type { FilesystemPolicy, FsAccess, ResolvedFsRule } from "../protocol/permissions.js";
import { isGlob, strongerAccess } from "./permission-profile-parse.js";
import { PermissionProfileError } from "./permission-profiles.js";

/** A glob may match this many paths at most; beyond, the rule is refused (never run wider than asked). */
export const GLOB_MATCH_LIMIT = 10_000;
/** A glob scan may read this many directory entries at most; beyond, the rule is refused. */
export const GLOB_SCAN_LIMIT = 200_000;

export interface FsRuleContext {
  /** The turn's working directory: the runtime workspace root. */
  cwd: string;
  /** The command's $TMPDIR, when it has one. */
  tmpdir: string | null;
  /** The user's home, for a `~/` path a value may still hold. */
  home: string;
}

/**
 * The rules of `filesystem` with concrete paths. At equal paths deny > write > read; a glob
 * `deny` becomes one deny per file or directory it matches (`**` down to `globScanMaxDepth`
 * directories). Throws PermissionProfileError for a `read`/`write` glob or a glob matching or
 * scanning more than the limits.
 */
export async function resolveFilesystemRules(
  filesystem: FilesystemPolicy,
  ctx: FsRuleContext,
): Promise<ResolvedFsRule[]> {
  const roots = unique([ctx.cwd, ...filesystem.workspaceRoots].map((root) => resolve(root)));
  const byPath = new Map<string, FsAccess>();
  const add = (path: string, access: FsAccess) => {
    const before = byPath.get(path);
    byPath.set(path, before ? strongerAccess(before, access) : access);
  };
  for (const rule of filesystem.rules) {
    for (const path of await concretePaths(rule.path, roots, ctx)) {
      if (!isGlob(path)) {
        add(await realpathOrSelf(path), rule.access);
        continue;
      }
      if (rule.access !== "deny")
        throw new PermissionProfileError(
          `filesystem rule \`${rule.path}\` = "${rule.access}": a glob path only takes "deny"`,
        );
      for (const match of await expandGlob(path, filesystem.globScanMaxDepth, rule.path))
        add(await realpathOrSelf(match), "deny");
    }
  }
  return [...byPath]
    .map(([path, access]) => ({ path, access }))
    .sort((a, b) => depth(a.path) - depth(b.path) || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** The absolute paths one symbolic path stands for, `:minimal`'s present ones only. */
async function concretePaths(path: string, roots: string[], ctx: FsRuleContext): Promise<string[]> {
  const paths = expandRulePath(path, { roots, tmpdir: ctx.tmpdir, home: ctx.home });
  if (path.startsWith(":minimal"))
    return (await Promise.all(paths.map(async (dir) => ((await exists(dir)) ? [dir] : [])))).flat();
  if (paths.length === 0 && !path.startsWith(":"))
    throw new PermissionProfileError(`filesystem rule \`${path}\` is not an absolute path`);
  return paths;
}

/** The real path of `path`; for a path not there (yet), its nearest existing ancestor's, joined back. */
async function realpathOrSelf(path: string): Promise<string> {
  try {
    return await realpath(path);
  } catch {
    const parent = dirname(path);
    return parent === path ? path : join(await realpathOrSelf(parent), basename(path));
  }
}

async function exists(path: string): Promise<boolean> {
  return realpath(path).then(
    () => true,
    () => false,
  );
}

/**
 * The paths matching `pattern` now: from its literal prefix down, `*` and `?` within one name
 * (dot files included), `**` any number of directories up to `maxDepth`. Directory links are not
 * followed (a loop must not hang the scan).
 */
async function expandGlob(pattern: string, maxDepth: number, shown: string): Promise<string[]> {
  const parts = pattern.split("/").filter((part) => part !== "");
  const literal = parts.findIndex((part) => isGlob(part));
  const base = `/${parts.slice(0, literal).join("/")}`;
  const segments = parts.slice(literal).map((part) => (part === "**" ? "**" : segmentRegex(part)));
  const matches = new Set<string>();
  let scanned = 0;
  const refuse = (what: string) =>
    new PermissionProfileError(
      `filesystem rule \`${shown}\`: the glob ${what}; narrow it or lower glob_scan_max_depth`,
    );
  const listing = async (dir: string): Promise<Dirent[]> => {
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    scanned += entries.length;
    if (scanned > GLOB_SCAN_LIMIT) throw refuse(`scans more than ${GLOB_SCAN_LIMIT} directory entries`);
    return entries;
  };
  const walk = async (dir: string, index: number, depthLeft: number): Promise<void> => {
    const segment = segments[index];
    if (segment === undefined) {
      matches.add(dir);
      if (matches.size > GLOB_MATCH_LIMIT) throw refuse(`matches more than ${GLOB_MATCH_LIMIT} paths`);
      return;
    }
    if (segment === "**") {
      await walk(dir, index + 1, depthLeft);
      if (depthLeft <= 0) return;
      for (const entry of await listing(dir))
        if (entry.isDirectory()) await walk(join(dir, entry.name), index, depthLeft - 1);
      return;
    }
    const last = index === segments.length - 1;
    for (const entry of await listing(dir)) {
      if (!segment.test(entry.name)) continue;
      if (last) await walk(join(dir, entry.name), index + 1, depthLeft);
      else if (entry.isDirectory()) await walk(join(dir, entry.name), index + 1, depthLeft);
    }
  };
  await walk(base, 0, maxDepth);
  return [...matches];
}

/** One path name's pattern: `*` any run, `?` one character, `[...]` a class (`[!...]` negated). */
function segmentRegex(segment: string): RegExp {
  let source = "";
  for (let i = 0; i < segment.length; i++) {
    const char = segment[i] as string;
    if (char === "*") source += "[^/]*";
    else if (char === "?") source += "[^/]";
    else if (char === "[") {
      const end = segment.indexOf("]", i + 2);
      if (end < 0) {
        source += "\\[";
        continue;
      }
      const body = segment
        .slice(i + 1, end)
        .replace(/^!/, "^")
        .replace(/\\/g, "\\\\");
      source += `[${body}]`;
      i = end;
    } else source += char.replace(/[.+^${}()|\\]/g, "\\$&");
  }
  return new RegExp(`^${source}$`);
}

function depth(path: string): number {
  return path === "/" ? 0 : path.split("/").length - 1;
}

function unique(paths: string[]): string[] {
  return [...new Set(paths)];
}
