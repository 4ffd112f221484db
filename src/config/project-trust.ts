/**
 * Project trust, as Codex 0.169: a repository's own `.codex/config.toml` can set the sandbox,
 * MCP server commands and more, so it applies only to a project the user trusts in their own
 * config.toml (`[projects."<abs dir>"] trust_level = "trusted"`; `exec --trust` writes it).
 * "The project" is the git root holding cwd, else cwd itself; an entry for cwd counts too.
 * That git root is only ever one this user controls (layers.ts gitRootOf, ownership.ts): trust
 * given to a directory never reaches up to a root another user (or everyone) can write, and
 * `exec --trust` records exactly the directory the user ran in unless their own repo holds it.
 */
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { parse, stringify } from "smol-toml";
import { gitRootOf, type ProjectLayer, projectConfigFiles, projectConfigLayers } from "./layers.js";
import { type TomlEdit, verified } from "./mcp-edit.js";

export type TrustLevel = "trusted" | "untrusted";

/** The directory trust is recorded for: the git root holding `cwd`, else `cwd`. */
export async function projectRootOf(cwd: string): Promise<string> {
  return (await gitRootOf(cwd)) ?? resolve(cwd);
}

/** The trust level the user's config table gives `cwd` (its own entry first, then the project's). */
export function projectTrust(
  userTable: Record<string, unknown>,
  cwd: string,
  root: string,
): TrustLevel | null {
  const projects = userTable.projects;
  if (typeof projects !== "object" || projects === null) return null;
  for (const dir of [resolve(cwd), root]) {
    if (!Object.hasOwn(projects, dir)) continue;
    const entry = (projects as Record<string, unknown>)[dir];
    const level =
      typeof entry === "object" && entry !== null ? (entry as { trust_level?: unknown }).trust_level : null;
    if (level === "trusted" || level === "untrusted") return level;
  }
  return null;
}

/** `text` (config.toml) with `[projects."<dir>"] trust_level = "trusted"`, everything else kept. */
export function trustProjectText(text: string, dir: string): TomlEdit {
  const doc = parse(text) as Record<string, unknown>;
  const projects = typeof doc.projects === "object" && doc.projects !== null ? doc.projects : {};
  const before = Object.hasOwn(projects, dir) ? (projects as Record<string, unknown>)[dir] : undefined;
  const entry = { ...(typeof before === "object" && before !== null ? before : {}), trust_level: "trusted" };
  const expected = { ...doc, projects: { ...projects, [dir]: entry } };
  // A new entry is appended as its own table; an existing one makes the append invalid TOML,
  // and verified() falls back to re-serializing the whole file.
  const snippet = stringify({ projects: { [dir]: { trust_level: "trusted" } } }).replace(/\s+$/, "");
  const trimmed = text.replace(/\s+$/, "");
  return verified(`${trimmed === "" ? "" : `${trimmed}\n\n`}${snippet}\n`, expected);
}

/** Record `dir` as trusted in the config file at `configPath` (created when missing). */
export async function saveProjectTrust(configPath: string, dir: string): Promise<void> {
  const text = await readFile(configPath, "utf8").catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return "";
    throw error;
  });
  const edit = trustProjectText(text, dir);
  await mkdir(dirname(configPath), { recursive: true });
  const temporary = `${configPath}.${process.pid}.tmp`;
  await writeFile(temporary, edit.text);
  await rename(temporary, configPath);
}

/** The one warning for project layers left out: which files, and the two ways to trust them. */
export function untrustedProjectWarning(
  files: string[],
  root: string,
  configPath: string,
  level: TrustLevel | null,
): string {
  const how =
    level === "untrusted"
      ? `the project is marked trust_level = "untrusted" in ${configPath}; change that entry to "trusted" to load it`
      : `run \`tscodex exec --trust\` in the project, or add [projects.${JSON.stringify(root)}] trust_level = "trusted" to ${configPath}, to allow its configuration and MCP servers (their commands run outside the sandbox)`;
  return `untrusted project-local configuration is disabled: ${files.join(", ")} not loaded; ${how}`;
}

/**
 * The project layers that apply in `cwd` given the user's table (`userTable`, from `configPath`):
 * all of them when the project is trusted, none otherwise, with `problems` the warnings naming
 * what was left out (files this user does not control are always left out, with a warning).
 * `trust` (exec --trust) first records the project as trusted, unless the user marked it
 * "untrusted" (that entry must be changed by hand, as in Codex).
 */
export async function trustedProjectLayers(
  userTable: Record<string, unknown>,
  cwd: string,
  home: string,
  configPath: string,
  trust = false,
): Promise<{ layers: ProjectLayer[]; problems: string[] }> {
  const root = await projectRootOf(cwd);
  const { paths, refused } = await projectConfigFiles(cwd, home);
  let level = projectTrust(userTable, cwd, root);
  if (trust && level !== "untrusted") {
    await saveProjectTrust(configPath, root);
    level = "trusted";
  }
  if (level === "trusted") return { layers: await projectConfigLayers(cwd, home), problems: refused };
  if (paths.length === 0) return { layers: [], problems: refused };
  return { layers: [], problems: [...refused, untrustedProjectWarning(paths, root, configPath, level)] };
}
