/** What a Thread is built from: the model client, the tools, the policy and the fixed prompt parts. */

import type { HookEngine } from "../hooks/index.js";
import type { ModelClient, ModelRequestSettings } from "../model/types.js";
import type { LoadedSkills } from "../prompt/skills.js";
import type { TruncationPolicy } from "../protocol/policy.js";
import type { McpStartup } from "../tools/mcp.js";
import type { ApprovalGate } from "../tools/router.js";
import type { CommandOrchestrator, ToolDefinition } from "../tools/types.js";
import type { AutoReview } from "./approval-review.js";
import type { CompactionSettings } from "./compact.js";

/** A turn's choice of model and reasoning (app-server `turn/start`: model, effort, summary). */
export interface ModelChoice {
  model?: string | undefined;
  effort?: string | undefined;
  summary?: string | undefined;
}

export interface ThreadServices {
  client: ModelClient;
  /** The thread's built-in tools; MCP and client tools join them per turn. */
  tools: readonly ToolDefinition[];
  /** Decides mutating calls (patches) before they run. Required: nothing runs ungated. */
  gate: ApprovalGate;
  /** Runs commands under the approval and sandbox policy. Required: nothing runs unsupervised. */
  orchestrator: CommandOrchestrator;
  baseInstructions: string;
  developerInstructions?: string | undefined;
  parallelToolCalls: boolean;
  contextWindow: number | null;
  truncation: TruncationPolicy;
  projectDocMaxBytes: number;
  /** The user's global AGENTS.md (from the home), sent before the project's. */
  userInstructions?: string | undefined;
  shellPath: string;
  shellEnvironment: Record<string, string>;
  /** Request settings for a turn that picks another model or reasoning; absent: the client's own. */
  requestSettings?: (choice: ModelChoice) => ModelRequestSettings;
  /** How long an approval question waits for an answer before it counts as denied. */
  approvalTimeoutMs?: number | undefined;
  /** How long a client tool call waits for the client before it fails. */
  clientToolTimeoutMs?: number | undefined;
  /** The configured MCP servers, starting; the first turn waits for them. Absent: none configured. */
  mcp?: McpStartup | undefined;
  /** The memories' summaries for the first turn's context (null: no memories). */
  memories?: string | null | undefined;
  /** The thread's hooks (configured and the program's callbacks); absent: none. */
  hooks?: HookEngine | undefined;
  /** The skills found for the thread's cwd, and their `<skills_instructions>` message. */
  skills?: { loaded: LoadedSkills; message: string | null } | undefined;
  /** The model's name, as hooks are told it. */
  model?: string | undefined;
  /** Who drives the agent (the `originator` header), as telemetry names it. */
  originator?: string | undefined;
  /** The agent's name in telemetry (`gen_ai.agent.name`): "tscodex", or a sub-agent's type. */
  agentName?: string | undefined;
  /** The model provider's id (config `model_provider`), as clients are told it. */
  provider?: string | undefined;
  /** The configured reasoning effort (absent: the model's default). */
  reasoningEffort?: string | undefined;
  /** approvals_reviewer = "auto_review": the reviewer answers what would ask a person; absent: people do. */
  autoReview?: AutoReview | undefined;
  /** Compaction prompt and auto-compaction threshold; absent: built-in prompt, no auto-compaction. */
  compaction?: CompactionSettings | undefined;
}
