/**
 * Skills: `<root>/<name>/SKILL.md` packs, found where Codex 0.169 looks (`<repo>/.codex/skills`,
 * the home's `skills` (and the Codex home's: `$CODEX_HOME` else `~/.codex`, config/codex-home.ts), `$HOME/.agents/skills`, the home's
 * `skills/.system`, `<repo>/.agents/skills`; repo = the git root above the cwd). The model gets
 * Codex's `<skills_instructions>` developer message (roots table, one line per skill, never the
 * bodies) within a budget of about 2% of the context window; a `$name` mention in a prompt adds
 * that skill's whole file as Codex's `<skill>` user message. A bad SKILL.md is skipped with one
 * warning naming the file and the reason. Reads are bounded (skill-file.ts): 64 KiB for the front
 * matter, 1 MiB for a mentioned skill's file. A skill turned off in `[[skills.config]]` (by path or
 * name) is listed as disabled and never reaches the model.
 */
import { readdir, stat } from "node:fs/promises";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { userHomes } from "../config/codex-home.js";
import { gitRootOf } from "../config/layers.js";
import type { SkillSetting } from "../config/load.js";

export interface Skill {
  name: string;
  description: string;
  /** Absolute path of its SKILL.md. */
  path: string;
  /** The root it was found under. */
  root: string;
  /** False when `[[skills.config]]` turned it off. */
  enabled: boolean;
}

export interface LoadedSkills {
  skills: Skill[];
  /** The roots that exist, in Codex's order (r0, r1, ...). */
  roots: string[];
  warnings: string[];
}

export interface SkillRootsInput {
  home: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Roots added by the client (app-server `skills/extraRoots/set`). */
  extraRoots?: readonly string[] | undefined;
  /** `[[skills.config]]` entries (Config.skillSettings). */
  settings?: readonly SkillSetting[] | undefined;
}

/** Where skills are looked for, in Codex's order, before checking which exist. */
export async function skillRoots(input: SkillRootsInput): Promise<string[]> {
  const repo = (await gitRootOf(input.cwd)) ?? resolve(input.cwd);
  const homes = await userHomes(input.home, input.env);
  const userHome = input.env.HOME || homedir();
  const roots = [
    join(repo, ".codex", "skills"),
    ...homes.map((home) => join(home, "skills")),
    join(userHome, ".agents", "skills"),
    ...homes.map((home) => join(home, "skills", ".system")),
    join(repo, ".agents", "skills"),
    ...(input.extraRoots ?? []).map((root) => resolve(input.cwd, root)),
  ];
  return [...new Set(roots)];
}

export async function loadSkills(input: SkillRootsInput): Promise<LoadedSkills> {
  const roots: string[] = [];
  const skills: Skill[] = [];
  const warnings: string[] = [];
  const seen = new Set<string>();
  for (const root of await skillRoots(input)) {
    const entries = await readdir(root, { withFileTypes: true }).catch(() => null);
    if (!entries) continue;
    roots.push(root);
    const dirs = entries.filter(
      (entry) => !entry.name.startsWith(".") && (entry.isDirectory() || entry.isSymbolicLink()),
    );
    for (const dir of dirs.map((entry) => entry.name).sort()) {
      const path = join(root, dir, "SKILL.md");
      const info = await stat(path).catch(() => null);
      if (!info) continue;
      // The reader and parser load with the first SKILL.md: a thread with no skills never parses it.
      const { readSkillHead, MAX_FRONT_MATTER_BYTES } = await import("./skill-file.js");
      const { parseSkillFrontMatter, SkillFileError } = await import("./skill-front-matter.js");
      try {
        // A FIFO or device is refused unopened; readSkillHead checks again on the open file.
        if (!info.isFile()) throw new SkillFileError("not a regular file");
        const head = await readSkillHead(path);
        if (head === null) continue;
        const cut = head.complete ? undefined : MAX_FRONT_MATTER_BYTES;
        const { name, description } = parseSkillFrontMatter(head.text, dir, cut);
        if (seen.has(name)) continue;
        seen.add(name);
        skills.push({ name, description, path, root, enabled: isEnabled(name, path, input.settings) });
      } catch (error) {
        warnings.push(`failed to load skill ${path}: ${(error as Error).message}`);
      }
    }
  }
  skills.sort((a, b) => systemFirst(a, b) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { skills, roots, warnings };
}

/** The last `[[skills.config]]` entry naming the skill (by path or name) decides; none: enabled. */
function isEnabled(name: string, path: string, settings: readonly SkillSetting[] = []): boolean {
  let enabled = true;
  for (const setting of settings)
    if (setting.path === path || setting.name === name) enabled = setting.enabled;
  return enabled;
}

/** The skills a thread may use: the disabled ones left out (never listed, never injected). */
export function enabledSkills(loaded: LoadedSkills): LoadedSkills {
  return { ...loaded, skills: loaded.skills.filter((skill) => skill.enabled) };
}

const isSystem = (skill: Skill) => skill.root.endsWith(join("skills", ".system"));
function systemFirst(a: Skill, b: Skill): number {
  return Number(isSystem(b)) - Number(isSystem(a));
}

/** About 4 characters per token: the listing's share of the context window, in characters. */
export function skillsBudgetChars(contextWindow: number | null): number {
  return Math.floor((contextWindow ?? 128_000) * 0.02 * 4);
}

/**
 * Codex's `<skills_instructions>` developer message; null without skills. Skill lines past the
 * budget are not listed but counted in one closing line.
 */
export function skillsInstructions(loaded: LoadedSkills, budgetChars: number): string | null {
  if (loaded.skills.length === 0) return null;
  const used = loaded.roots.filter((root) => loaded.skills.some((skill) => skill.root === root));
  const label = (root: string) => `r${used.indexOf(root)}`;
  const head = [
    "<skills_instructions>",
    "## Skills",
    "A skill is a set of local instructions to follow that is stored in a `SKILL.md` file. Below is the list of skills that can be used. Each entry includes a name, description, and a short path that can be expanded into an absolute path using the skill roots table.",
    "### Skill roots",
    ...used.map((root) => `- \`${label(root)}\` = \`${root}\``),
    "### Available skills",
  ];
  // The budget is for the skill lines: the fixed text and the roots are always sent.
  const lines: string[] = [];
  let size = 0;
  let omitted = 0;
  for (const skill of loaded.skills) {
    const relative = skill.path.slice(skill.root.length + 1);
    const line = `- ${skill.name}: ${skill.description} (file: ${label(skill.root)}/${relative})`;
    if (omitted > 0 || size + line.length + 1 > budgetChars) {
      omitted += 1;
      continue;
    }
    lines.push(line);
    size += line.length + 1;
  }
  if (omitted > 0) lines.push(`- (${omitted} more skills omitted to stay within the context budget)`);
  return [...head, ...lines, "</skills_instructions>"].join("\n");
}

/** The skills a prompt names as `$name`, in the order first mentioned. */
export function mentionedSkills(prompt: string, skills: readonly Skill[]): Skill[] {
  const byName = new Map(skills.map((skill) => [skill.name, skill]));
  const found: Skill[] = [];
  for (const match of prompt.matchAll(/\$([A-Za-z0-9][\w.:-]*)/g)) {
    const name = (match[1] ?? "").replace(/[.:]+$/, "");
    const skill = byName.get(name);
    if (skill && !found.includes(skill)) found.push(skill);
  }
  return found;
}

/**
 * Codex's `<skill>` user message: the whole SKILL.md, front matter included; null when the file
 * is gone. Throws (SkillFileError, with the reason) when it is not a regular file or is larger
 * than the 1 MiB a skill may have.
 */
export async function skillMessage(skill: Skill): Promise<string | null> {
  const { readSkillBody } = await import("./skill-file.js");
  const text = await readSkillBody(skill.path);
  if (text === null) return null;
  return `<skill>\n<name>${skill.name}</name>\n<path>${skill.path}</path>\n${text}\n</skill>`;
}
