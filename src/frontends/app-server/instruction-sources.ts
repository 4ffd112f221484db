/**
 * The instruction files a thread's prompt carries, as 0.169's `instructionSources` lists them:
 * the home's AGENTS.md (when it has text) and the project's AGENTS.md files from the git root
 * down to the thread's cwd (prompt/agents-md.ts finds them as the prompt does).
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { Config } from "../../config/load.js";
import { loadProjectDocs } from "../../prompt/agents-md.js";

/** The home file the config loaded as user instructions: the first of these with text. */
async function homeInstructionFile(home: string): Promise<string | null> {
  for (const name of ["AGENTS.override.md", "AGENTS.md"]) {
    const path = join(home, name);
    const text = await readFile(path, "utf8").catch(() => undefined);
    if (text !== undefined && text.trim() !== "") return path;
  }
  return null;
}

export async function instructionSources(config: Config, cwd: string): Promise<string[]> {
  const [home, project] = await Promise.all([
    config.userInstructions !== undefined ? homeInstructionFile(config.home) : null,
    loadProjectDocs(cwd, config.projectDocMaxBytes).catch(() => null),
  ]);
  return [...(home ? [home] : []), ...(project?.files ?? [])];
}
