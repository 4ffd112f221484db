/** What a Thread is built from: the model client, the tools and the fixed prompt parts. */
import type { ModelClient } from "../model/types.js";
import type { TruncationPolicy } from "../protocol/policy.js";
import type { McpStartup } from "../tools/mcp.js";
import type { ToolRouter } from "../tools/router.js";
import type { CommandOrchestrator } from "../tools/types.js";
import type { CompactionSettings } from "./compact.js";

export interface ThreadServices {
  client: ModelClient;
  router: ToolRouter;
  baseInstructions: string;
  developerInstructions?: string | undefined;
  parallelToolCalls: boolean;
  contextWindow: number | null;
  truncation: TruncationPolicy;
  projectDocMaxBytes: number;
  shellPath: string;
  shellEnvironment: Record<string, string>;
  /** Runs commands under the approval and sandbox policy; absent: commands run as given. */
  orchestrator?: CommandOrchestrator;
  /** How long an approval question waits for an answer before it counts as denied. */
  approvalTimeoutMs?: number;
  /** The configured MCP servers, starting; the first turn waits for them. Absent: none configured. */
  mcp?: McpStartup;
  /** Compaction prompt and auto-compaction threshold; absent: built-in prompt, no auto-compaction. */
  compaction?: CompactionSettings;
}
