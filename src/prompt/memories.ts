/**
 * Memories: Markdown notes the agent can recall. Global ones live in `$TSCODEX_HOME/memories/`,
 * a project's in `<git root or cwd>/.tscodex/memories/` (a git root the user controls, as
 * agents-md.ts findGitRoot); a project memory hides a global one of the same id. A memory's
 * first non-empty line (without leading `#`) is its one-line summary.
 * The summaries are listed in the prompt; `get_memory {id}` loads a whole memory on demand.
 */
import { mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { findGitRoot } from "./agents-md.js";

export type MemoryScope = "global" | "project";

export interface Memory {
  id: string;
  scope: MemoryScope;
  summary: string;
  path: string;
}

/** Ids are file names: letters, digits, `-`, `_` and `.`, not starting with a dot. */
export const MEMORY_ID = /^[A-Za-z0-9_-][A-Za-z0-9_.-]{0,127}$/;

export function memoryDirs(home: string, projectRoot: string): Record<MemoryScope, string> {
  return { global: join(home, "memories"), project: join(projectRoot, ".tscodex", "memories") };
}

/** The project a cwd belongs to: its git root, else the cwd itself. */
export async function projectRootOf(cwd: string): Promise<string> {
  return (await findGitRoot(cwd)) ?? resolve(cwd);
}

/** Every memory visible from `cwd`, sorted by id (project memories win over global ones). */
export async function listMemories(home: string, cwd: string): Promise<Memory[]> {
  const dirs = memoryDirs(home, await projectRootOf(cwd));
  const [global, project] = await Promise.all([
    readScope(dirs.global, "global"),
    readScope(dirs.project, "project"),
  ]);
  const byId = new Map<string, Memory>();
  for (const memory of [...global, ...project]) byId.set(memory.id, memory);
  return [...byId.values()].sort((a, b) => a.id.localeCompare(b.id));
}

/** The whole text of memory `id` visible from `cwd`, or null. */
export async function readMemory(
  home: string,
  cwd: string,
  id: string,
): Promise<{ memory: Memory; text: string } | null> {
  if (!MEMORY_ID.test(id)) return null;
  const memory = (await listMemories(home, cwd)).find((entry) => entry.id === id);
  if (!memory) return null;
  return { memory, text: await readFile(memory.path, "utf8") };
}

export async function writeMemory(dir: string, id: string, text: string): Promise<string> {
  if (!MEMORY_ID.test(id))
    throw new Error(`invalid memory id '${id}': use letters, digits, '-', '_' and '.'`);
  if (summaryOf(text) === "") throw new Error("a memory needs a first line that summarises it");
  await mkdir(dir, { recursive: true });
  const path = join(dir, `${id}.md`);
  await writeFile(path, text.endsWith("\n") ? text : `${text}\n`);
  return path;
}

export async function removeMemory(dir: string, id: string): Promise<boolean> {
  if (!MEMORY_ID.test(id)) return false;
  try {
    await rm(join(dir, `${id}.md`));
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw error;
  }
}

/** The developer message listing the memories (null when there are none). */
export function memoriesMessage(memories: readonly Memory[]): string | null {
  if (memories.length === 0) return null;
  const lines = memories.map((memory) => `- ${memory.id} (${memory.scope}): ${memory.summary}`);
  return [
    "<memories>",
    "Notes kept from earlier work. Load one with get_memory when its summary is relevant to the task:",
    ...lines,
    "</memories>",
  ].join("\n");
}

export function summaryOf(text: string): string {
  const line = text.split("\n").find((entry) => entry.trim() !== "") ?? "";
  return line
    .replace(/^#+\s*/, "")
    .trim()
    .slice(0, 200);
}

async function readScope(dir: string, scope: MemoryScope): Promise<Memory[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return [];
  }
  const files = names.filter((name) => name.endsWith(".md") && MEMORY_ID.test(name.slice(0, -3)));
  const read = await Promise.all(
    files.map(async (name): Promise<Memory | null> => {
      const path = join(dir, name);
      const text = await readFile(path, "utf8").catch(() => null);
      if (text === null) return null;
      const summary = summaryOf(text);
      return summary ? { id: name.slice(0, -3), scope, summary, path } : null;
    }),
  );
  return read.filter((memory): memory is Memory => memory !== null);
}
