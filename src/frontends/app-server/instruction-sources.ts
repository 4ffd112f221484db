/**
 * The instruction files a thread's prompt carries, as 0.169's `instructionSources` lists them:
 * the home's AGENTS.md (when it has text; else the Codex home's, config/codex-home.ts) and the
 * project's AGENTS.md files from the git root down to the thread's cwd (prompt/agents-md.ts finds
 * them as the prompt does).
 */
import { globalAgentsMd } from "../../config/codex-home.js";
import type { Config } from "../../config/load.js";
import { loadProjectDocs } from "../../prompt/agents-md.js";

export async function instructionSources(config: Config, cwd: string): Promise<string[]> {
  const [home, project] = await Promise.all([
    config.userInstructions !== undefined
      ? globalAgentsMd(config.codexHome ? [config.home, config.codexHome] : [config.home])
      : null,
    loadProjectDocs(cwd, config.projectDocMaxBytes).catch(() => null),
  ]);
  return [...(home ? [home.path] : []), ...(project?.files ?? [])];
}
