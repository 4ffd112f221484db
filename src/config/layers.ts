/**
 * What Codex users already have, read as Codex reads it: a project's `.codex/config.toml`
 * layers (git root down to cwd, deeper wins, over the user's file; only a root and files this
 * user controls, see ownership.ts), the `web_search` spellings
 * (top-level mode, `[tools] web_search`, features), and the names of keys nobody reads (warned
 * about, not fatal).
 */
import { stat } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { parse as parseToml } from "smol-toml";
import { toPlain } from "./overrides.js";
import { isOurs, notOursBecause, notOursWarning, ownershipOf, readIfOurs } from "./ownership.js";

/** One project `.codex/config.toml`, parsed. */
export interface ProjectLayer {
  path: string;
  table: Record<string, unknown>;
}

/**
 * The `.codex/config.toml` files for `cwd`: git root (else cwd) down to cwd, outermost first.
 * `paths` may load (when the project is trusted); `refused` are warnings for the files that exist
 * but that this user does not control (ownership.ts), which never load, trusted or not.
 */
export async function projectConfigFiles(
  cwd: string,
  home: string,
): Promise<{ paths: string[]; refused: string[] }> {
  const paths: string[] = [];
  const refused: string[] = [];
  for (const dir of await projectDirs(cwd)) {
    const folder = join(dir, ".codex");
    // The home itself may be ~/.codex: its config.toml is the user layer already.
    if (resolve(folder) === resolve(home)) continue;
    const path = join(folder, "config.toml");
    if (
      !(await stat(path).then(
        (info) => info.isFile(),
        () => false,
      ))
    )
      continue;
    const reason = (await notOursBecause(folder)) ?? (await notOursBecause(path));
    if (reason) refused.push(notOursWarning(path, reason));
    else paths.push(path);
  }
  return { paths, refused };
}

/** The project `.codex/config.toml` files that may load in `cwd` (projectConfigFiles' `paths`). */
export async function projectConfigPaths(cwd: string, home: string): Promise<string[]> {
  return (await projectConfigFiles(cwd, home)).paths;
}

/**
 * The project files of `cwd` (projectConfigPaths), parsed. Whether they may apply is
 * project-trust.ts's decision: only call this for a trusted project.
 */
export async function projectConfigLayers(cwd: string, home: string): Promise<ProjectLayer[]> {
  const layers: ProjectLayer[] = [];
  for (const path of await projectConfigPaths(cwd, home)) {
    // Checked again on the open file: it may have been swapped since projectConfigPaths looked.
    const text = await readIfOurs(path);
    if (text === null) continue;
    try {
      layers.push({ path, table: toPlain(parseToml(text)) as Record<string, unknown> });
    } catch (error) {
      throw new Error(`${path}: invalid TOML: ${(error as Error).message}`, { cause: error });
    }
  }
  return layers;
}

/** The directories whose `.codex/` applies in `cwd`: the git root (else cwd) down to cwd, outermost first. */
export async function projectDirs(cwd: string): Promise<string[]> {
  const dirs: string[] = [];
  const top = (await gitRootOf(cwd)) ?? resolve(cwd);
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    dirs.unshift(dir);
    if (dir === top || dirname(dir) === dir) break;
  }
  return dirs;
}

/**
 * The nearest directory from `cwd` up holding this user's `.git`, or null. The walk ends (null)
 * at a `.git` someone else controls, and before any ancestor this user does not control
 * (ownership.ts: another user's directory, or a world-writable one such as /tmp): a directory
 * another user can write must never decide which project the user's cwd belongs to, or a planted
 * `/tmp/.git` would pull `/tmp/.codex/config.toml` into every trusted `/tmp/<dir>`.
 */
export async function gitRootOf(cwd: string): Promise<string | null> {
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    const git = join(dir, ".git");
    const verdict = await ownershipOf(git);
    if (verdict !== undefined) return verdict === null ? dir : null;
    const parent = dirname(dir);
    if (parent === dir || !(await isOurs(parent))) return null;
  }
}

/** Merge `layer` into `target`: tables merge key by key, anything else replaces. */
export function mergeTables(target: Record<string, unknown>, layer: Record<string, unknown>): void {
  for (const [key, value] of Object.entries(layer)) {
    if (key === "__proto__" || key === "constructor" || key === "prototype") continue;
    const before = target[key];
    if (isTable(value) && isTable(before)) mergeTables(before, value);
    else target[key] = value;
  }
}

function isTable(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof Date);
}

export type WebSearchMode = "live" | "cached" | "disabled";

/**
 * The web_search mode from its spellings, the most specific first: top-level `web_search`
 * (what the Codex SDK sets), `[tools] web_search` (a mode or a boolean), then the features
 * (`web_search_request` live, `web_search_cached`). Null when none is set.
 */
export function webSearchMode(raw: Record<string, unknown>): WebSearchMode | null {
  const mode = (value: unknown): WebSearchMode | null => {
    if (value === "live" || value === "cached" || value === "disabled") return value;
    if (value === true) return "live";
    if (value === false) return "disabled";
    return null;
  };
  const tools = isTable(raw.tools) ? raw.tools : {};
  const features = isTable(raw.features) ? raw.features : {};
  return (
    mode(raw.web_search) ??
    mode(tools.web_search) ??
    (features.web_search_request === true ? "live" : null) ??
    (features.web_search_cached === true ? "cached" : null)
  );
}
