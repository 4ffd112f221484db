/**
 * The core's items as the app-server's v2 ThreadItem: the one mapping (Codex's
 * `From<CoreTurnItem> for ThreadItem`), used live (event-mapper.ts) and by thread/read
 * (thread-view.ts). Items the v2 protocol has no type for (update_plan step lists) map to
 * null: their notifications are turn-level (`turn/plan/updated`, …). A plan-mode turn's proposed
 * plan is the `plan` item. A review is two wire items: started it is `enteredReviewMode` (what is
 * reviewed), completed `exitedReviewMode` (the verdict).
 */
import type { AgentStatus } from "../../protocol/agents.js";
import type { FileChange } from "../../protocol/events.js";
import type { ItemStatus, TurnItem, TurnItemOf } from "../../protocol/turn-items.js";
import { REVIEW_FAILED } from "../../session/review.js";
import { shellQuote } from "../../util/shell-quote.js";
import { commandActions } from "./command-actions.js";
import type { FileUpdateChange, ItemOf, ThreadItem, UserInputWire } from "./protocol/common.js";

/** `threadId`: the thread the item belongs to (a sub-agent item names it as the sender). */
export function threadItemOf(item: TurnItem, threadId: string): ThreadItem | null {
  switch (item.type) {
    case "user_message":
      return { type: "userMessage", id: item.id, content: contentOf(item.text, item.images) };
    case "agent_message":
      return { type: "agentMessage", id: item.id, text: item.text };
    case "hook_prompt":
      return {
        type: "hookPrompt",
        id: item.id,
        fragments: item.fragments.map((fragment) => ({
          hookRunId: fragment.hook_run_id,
          text: fragment.text,
        })),
      };
    case "reasoning":
      return { type: "reasoning", id: item.id, summary: [...item.summary], content: [...item.content] };
    case "command_execution":
      return {
        type: "commandExecution",
        id: item.id,
        command: shellQuote(item.command),
        cwd: item.cwd,
        processId: null,
        ...(item.source === "user_shell" ? { source: "userShell" as const } : {}),
        status: statusOf(item.status),
        commandActions: commandActions(item.command),
        aggregatedOutput: item.aggregated_output,
        exitCode: item.exit_code,
        durationMs: item.duration_ms,
      };
    case "file_change":
      return {
        type: "fileChange",
        id: item.id,
        changes: changesOf(item.changes),
        status: statusOf(item.status),
      };
    case "mcp_tool_call":
      return mcpItem(item);
    case "client_tool_call":
      return {
        type: "dynamicToolCall",
        id: item.id,
        namespace: null,
        tool: item.tool,
        arguments: item.arguments,
        status: toolStatusOf(item.status),
        contentItems: item.result?.contentItems ?? null,
        success: item.result?.success ?? null,
        durationMs: item.duration_ms,
      };
    case "web_search":
      return { type: "webSearch", id: item.id, query: item.query };
    case "review":
      return item.status === "in_progress"
        ? { type: "enteredReviewMode", id: item.id, review: item.prompt }
        : { type: "exitedReviewMode", id: item.id, review: item.review ?? REVIEW_FAILED };
    case "context_compaction":
      return { type: "contextCompaction", id: item.id };
    case "proposed_plan":
      return { type: "plan", id: item.id, text: item.text };
    case "sub_agent":
      return {
        type: "collabAgentToolCall",
        id: item.id,
        tool: "spawnAgent",
        status: toolStatusOf(item.status),
        senderThreadId: threadId,
        receiverThreadIds: [item.agent_id],
        prompt: item.message,
        model: null,
        reasoningEffort: null,
        agentsStates: { [item.agent_id]: agentStateOf(item.agent_status) },
      };
    default:
      return null;
  }
}

function statusOf(status: ItemStatus): "inProgress" | "completed" | "failed" | "declined" {
  return status === "in_progress" ? "inProgress" : status;
}

/** Tool calls have no `declined` on the wire: a declined call failed. */
function toolStatusOf(status: ItemStatus): "inProgress" | "completed" | "failed" {
  return status === "in_progress" ? "inProgress" : status === "declined" ? "failed" : status;
}

/** A sub-agent's status as Codex's CollabAgentState (a finished one carries its last message). */
function agentStateOf(status: AgentStatus): ItemOf<"collabAgentToolCall">["agentsStates"][string] {
  if (typeof status === "object")
    return "completed" in status
      ? { status: "completed", message: status.completed }
      : { status: "errored", message: status.errored };
  const named = { pending_init: "pendingInit", not_found: "notFound" } as const;
  const wire = status === "pending_init" || status === "not_found" ? named[status] : status;
  return { status: wire, message: null };
}

function mcpItem(item: TurnItemOf<"mcp_tool_call">): ItemOf<"mcpToolCall"> {
  const base: ItemOf<"mcpToolCall"> = {
    type: "mcpToolCall",
    id: item.id,
    server: item.invocation.server,
    tool: item.invocation.tool,
    status: toolStatusOf(item.status),
    arguments: item.invocation.arguments,
    result: null,
    error: null,
    durationMs: item.duration_ms,
  };
  if (!item.result) return base;
  if ("Err" in item.result) return { ...base, error: { message: item.result.Err } };
  const result = item.result.Ok;
  return {
    ...base,
    result: { content: result.content, structuredContent: result.structuredContent ?? null },
  };
}

/** A user message as Codex shows it: the text, then each image by URL. */
export function contentOf(text: string, images: readonly string[]): UserInputWire[] {
  return [
    { type: "text", text, text_elements: [] },
    ...images.map((url): UserInputWire => ({ type: "image", url })),
  ];
}

/** The core's per-path changes as Codex's list: kind, and the diff or the whole content. */
export function changesOf(changes: Record<string, FileChange>): FileUpdateChange[] {
  return Object.entries(changes).map(([path, change]) => {
    if (change.type === "update") {
      return {
        path,
        kind: { type: "update", move_path: change.move_path ?? null },
        diff: change.unified_diff,
      };
    }
    return { path, kind: { type: change.type }, diff: change.content };
  });
}
