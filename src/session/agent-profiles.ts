/**
 * Named sub-agents for spawn_agent's `agent_type`: `[agents.NAME]` in config.toml, else the
 * file `$TSCODEX_HOME/agents/NAME.toml` with the same keys (read when a child is spawned, so a
 * new file needs no restart).
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { parse as parseToml } from "smol-toml";
import type { Config } from "../config/load.js";
import type { AgentProfileConfig } from "../config/schema.js";
import { errorMessage } from "../util/errors.js";
import type { AgentProfile } from "./agent-control.js";

/** The profile `name`, or null when there is none; throws with a clear message on a bad file. */
export async function loadAgentProfile(config: Config, name: string): Promise<AgentProfile | null> {
  // Own keys only: `__proto__`, `constructor`, `toString` name no profile.
  const configured = Object.hasOwn(config.agents, name) ? config.agents[name] : undefined;
  if (configured) return toProfile(configured);
  if (!/^[A-Za-z0-9_-]+$/.test(name)) return null;
  const path = join(config.home, "agents", `${name}.toml`);
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw new Error(`cannot read ${path}: ${errorMessage(error)}`, { cause: error });
  }
  // The config schema (and zod) loads only when an agent file is read.
  const { agentProfileSchema } = await import("../config/schema.js");
  let parsed: AgentProfileConfig;
  try {
    parsed = agentProfileSchema.parse(parseToml(text));
  } catch (error) {
    throw new Error(`${path} is not a valid agent file: ${errorMessage(error)}`, { cause: error });
  }
  return toProfile(parsed);
}

function toProfile(config: AgentProfileConfig): AgentProfile {
  return {
    model: config.model,
    reasoningEffort: config.model_reasoning_effort,
    developerInstructions: config.developer_instructions,
    sandboxMode: config.sandbox_mode,
    tools: config.tools,
  };
}
