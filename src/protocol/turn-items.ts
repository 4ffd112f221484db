/**
 * Items: what a turn did, each with a lifecycle, as Codex's `TurnItem` (protocol crate). The
 * core's ItemTracker (item-tracker.ts) makes them from the event stream, live and when a stored
 * thread is replayed; every front-end that speaks in items maps these to its wire (exec JSONL,
 * app-server ThreadItem, proxy output items, MCP progress, the human one-liners) instead of
 * pairing begin/end events itself.
 *
 * Contract: every `item_started` is followed by at least one `item_completed` for the same id
 * (a sub-agent completes each time its work ends; a declined command may complete again when the
 * core closes it); `item_updated` comes in between, carrying either a new snapshot or a delta.
 */
import type { AgentStatus } from "./agents.js";
import type { ClientToolResult } from "./client-tools.js";
import type { Event, ExecStream, FileChange, McpInvocation, McpToolResult, PlanItem } from "./events.js";

export type ItemStatus = "in_progress" | "completed" | "failed" | "declined";

interface ItemBase {
  id: string;
  status: ItemStatus;
  /**
   * When the item started / last completed (Unix ms): the live event's time, or the stored line's
   * when a thread is replayed, so a replay reports the times the thread had. Set by ItemTracker.
   */
  started_at_ms?: number;
  completed_at_ms?: number;
}

export interface UserMessageItem extends ItemBase {
  type: "user_message";
  text: string;
  images: string[];
}

export interface AgentMessageItem extends ItemBase {
  type: "agent_message";
  text: string;
}

/** Summary parts (what the model chose to show) and raw reasoning text, when the model sent it. */
export interface ReasoningTurnItem extends ItemBase {
  type: "reasoning";
  summary: string[];
  content: string[];
}

export interface CommandExecutionItem extends ItemBase {
  type: "command_execution";
  command: string[];
  cwd: string;
  /** "user_shell": the user ran it (a shell command op), not the model. */
  source: "agent" | "user_shell";
  /** Set when the command ends (the live output goes out as deltas). */
  aggregated_output: string | null;
  exit_code: number | null;
  duration_ms: number | null;
}

export interface FileChangeItem extends ItemBase {
  type: "file_change";
  changes: Record<string, FileChange>;
  /** What applying printed (stdout, or stderr when it failed); null until it ends. */
  output: string | null;
}

export interface McpToolCallItem extends ItemBase {
  type: "mcp_tool_call";
  invocation: McpInvocation;
  /** The tools/call result, or the error text of a call that got none; null while running. */
  result: { Ok: McpToolResult } | { Err: string } | null;
  duration_ms: number | null;
}

export interface WebSearchItem extends ItemBase {
  type: "web_search";
  query: string;
  action: { type: string; query?: string } | null;
}

export interface SubAgentItem extends ItemBase {
  type: "sub_agent";
  agent_id: string;
  agent_type: string | null;
  message: string;
  agent_status: AgentStatus;
}

export interface ClientToolCallItem extends ItemBase {
  type: "client_tool_call";
  tool: string;
  arguments: unknown;
  result: ClientToolResult | null;
  duration_ms: number | null;
}

export interface PlanTurnItem extends ItemBase {
  type: "plan";
  explanation: string | null;
  plan: PlanItem[];
}

/**
 * The plan a model proposes in plan mode: the text of its `<proposed_plan>` block (the rest of
 * that message stays an agent message). Not the step list of `update_plan` (PlanTurnItem).
 */
export interface ProposedPlanItem extends ItemBase {
  type: "proposed_plan";
  text: string;
}

/** A review (`/review`): what was asked and, when done, the reviewer's findings as text. */
export interface ReviewItem extends ItemBase {
  type: "review";
  prompt: string;
  review: string | null;
}

export interface ContextCompactionItem extends ItemBase {
  type: "context_compaction";
  summary: string;
}

/** A hook's prompt that kept the turn going (Stop block): Codex's `hookPrompt` item. */
export interface HookPromptItem extends ItemBase {
  type: "hook_prompt";
  fragments: { hook_run_id: string; text: string }[];
}

export type TurnItem =
  | UserMessageItem
  | HookPromptItem
  | AgentMessageItem
  | ReasoningTurnItem
  | CommandExecutionItem
  | FileChangeItem
  | McpToolCallItem
  | WebSearchItem
  | SubAgentItem
  | ClientToolCallItem
  | PlanTurnItem
  | ProposedPlanItem
  | ReviewItem
  | ContextCompactionItem;

export type TurnItemType = TurnItem["type"];
export type TurnItemOf<T extends TurnItemType> = Extract<TurnItem, { type: T }>;

/** Streamed pieces of an item in progress; the completed item carries the whole. */
export type ItemDelta =
  | { kind: "agent_message_text"; text: string }
  | { kind: "proposed_plan_text"; text: string }
  /** A new reasoning summary part begins (index from 0). */
  | { kind: "reasoning_summary_part"; summary_index: number }
  | { kind: "reasoning_summary_text"; text: string; summary_index: number }
  | { kind: "reasoning_content_text"; text: string; content_index: number }
  | { kind: "command_output"; stream: ExecStream; chunk: Uint8Array }
  | { kind: "file_change_output"; text: string }
  | { kind: "mcp_progress"; message: string };

/**
 * `agent_id`: set when the item belongs to a sub-agent (the child thread's id), so routing never
 * depends on the shape of an id.
 */
export type ItemEvent =
  | { type: "item_started"; turn_id: string; item: TurnItem; agent_id?: string }
  | { type: "item_updated"; turn_id: string; item: TurnItem; delta?: ItemDelta; agent_id?: string }
  | { type: "item_completed"; turn_id: string; item: TurnItem; agent_id?: string };

/** What a listener of items receives: the legacy events, each followed by the item events it caused. */
export type ThreadEvent = Event | ItemEvent;

export function isItemEvent(event: { type: string }): event is ItemEvent {
  return event.type === "item_started" || event.type === "item_updated" || event.type === "item_completed";
}
