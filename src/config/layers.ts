/**
 * What Codex users already have, read as Codex reads it: a project's `.codex/config.toml`
 * layers (git root down to cwd, deeper wins, over the user's file), the `web_search` spellings
 * (top-level mode, `[tools] web_search`, features), and the names of keys nobody reads (warned
 * about, not fatal).
 */
import { readFile, stat } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { parse as parseToml } from "smol-toml";
import { toPlain } from "./overrides.js";

/** One project `.codex/config.toml`, parsed. */
export interface ProjectLayer {
  path: string;
  table: Record<string, unknown>;
}

/** The `.codex/config.toml` files that exist for `cwd`: git root (else cwd) down to cwd, outermost first. */
export async function projectConfigPaths(cwd: string, home: string): Promise<string[]> {
  const paths: string[] = [];
  for (const dir of await projectDirs(cwd)) {
    const folder = join(dir, ".codex");
    // The home itself may be ~/.codex: its config.toml is the user layer already.
    if (resolve(folder) === resolve(home)) continue;
    const path = join(folder, "config.toml");
    if (
      await stat(path).then(
        (info) => info.isFile(),
        () => false,
      )
    )
      paths.push(path);
  }
  return paths;
}

/**
 * The project files of `cwd` (projectConfigPaths), parsed. Whether they may apply is
 * project-trust.ts's decision: only call this for a trusted project.
 */
export async function projectConfigLayers(cwd: string, home: string): Promise<ProjectLayer[]> {
  const layers: ProjectLayer[] = [];
  for (const path of await projectConfigPaths(cwd, home)) {
    let text: string;
    try {
      text = await readFile(path, "utf8");
    } catch {
      continue;
    }
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

/** The nearest directory from `cwd` up holding `.git`, or null outside a repository. */
export async function gitRootOf(cwd: string): Promise<string | null> {
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    if (
      await stat(join(dir, ".git")).then(
        () => true,
        () => false,
      )
    )
      return dir;
    if (dirname(dir) === dir) return null;
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
