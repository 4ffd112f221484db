/**
 * An app-server's v2 notifications (tscodex's or Codex's) back into the core's events, so
 * `exec --remote` renders a remote turn with exec's own renderers (human-output.ts,
 * exec-json.ts): the inverse of the app-server's event-mapper.ts for what exec shows. Items map
 * to their begin/end events; messages, reasoning and web searches also to the response item the
 * core records (the JSON writer's item tracker completes them from it); turn-level
 * notifications (plan, token usage, errors, warnings) to their events.
 *
 * The wire is read defensively: a field that is missing or of another type reads as empty,
 * never as a crash (the server may be another implementation).
 */

import { EXEC_REJECTED_BY_USER } from "../../policy/approval.js";
import type { AgentStatus } from "../../protocol/agents.js";
import type {
  ApprovalRequestEvent,
  Event,
  FileChange,
  McpInvocation,
  PlanStatus,
} from "../../protocol/events.js";
import type { TokenUsage } from "../../protocol/items.js";
import { shellSplit } from "../../util/shell-quote.js";

type Params = Record<string, unknown>;

/** How a remote turn ended, as `turn/completed` said. */
export interface RemoteTurnEnd {
  turnId: string;
  status: "completed" | "interrupted" | "failed";
  error: string | null;
}

export class RemoteEventMapper {
  private turnId = "";
  private readonly commands = new Map<string, { command: string[]; cwd: string }>();
  private readonly patches = new Map<string, Record<string, FileChange>>();
  private readonly mcpCalls = new Map<string, McpInvocation>();
  /** Commands the client declined whose end the server has not sent yet. */
  private readonly declined = new Set<string>();
  /** Retries the server announced this turn (its `error` notifications with willRetry). */
  private retries = 0;
  /** The turn's last agent message (or review verdict): exec's final message. */
  lastMessage: string | null = null;
  /** The thread's usage so far, from the last `thread/tokenUsage/updated`. */
  total: TokenUsage | null = null;
  /** The thread's usage when the turn began (a resumed thread's past turns). */
  turnBase: TokenUsage | null = null;

  constructor(private readonly threadId: string) {}

  /** The events notification `method` stands for (none for other threads' and unknown ones). */
  map(method: string, params: Params): Event[] {
    if (typeof params.threadId === "string" && params.threadId !== this.threadId) return [];
    switch (method) {
      case "turn/started":
        this.turnId = str(record(params.turn).id);
        this.retries = 0;
        this.lastMessage = null;
        this.turnBase = this.total;
        return [{ type: "turn_started", turn_id: this.turnId, model_context_window: null }];
      case "item/started":
        return this.itemStarted(record(params.item));
      case "item/completed":
        return this.itemCompleted(record(params.item));
      case "turn/plan/updated":
        return [
          {
            type: "plan_update",
            explanation: nullableStr(params.explanation),
            plan: list(params.plan).map((step) => ({
              step: str(record(step).step),
              status: planStatus(record(step).status),
            })),
          },
        ];
      case "thread/tokenUsage/updated": {
        const usage = record(params.tokenUsage);
        this.total = usageOf(usage.total);
        const window = usage.modelContextWindow;
        return [
          {
            type: "token_count",
            last: usageOf(usage.last),
            total: this.total,
            model_context_window: typeof window === "number" ? window : null,
          },
        ];
      }
      case "error": {
        const message = str(record(params.error).message);
        if (params.willRetry !== true) return [{ type: "error", message }];
        // The wire says a retry comes, not how many are allowed (0: unknown).
        return [{ type: "stream_error", message, attempt: ++this.retries, max_attempts: 0, delay_ms: 0 }];
      }
      case "warning":
        return [{ type: "warning", message: str(params.message) }];
      case "mcpServer/startupStatus/updated":
        return params.status === "failed"
          ? [
              {
                type: "mcp_startup_update",
                server: str(params.name),
                status: { state: "failed", error: str(params.error) },
              },
            ]
          : [];
      default:
        return [];
    }
  }

  /** The turn's end, when `method` is this thread's `turn/completed`, with its closing events. */
  turnEnd(method: string, params: Params): { end: RemoteTurnEnd; events: Event[] } | null {
    if (method !== "turn/completed" || params.threadId !== this.threadId) return null;
    const turn = record(params.turn);
    const turnId = str(turn.id);
    const status = turn.status === "interrupted" || turn.status === "failed" ? turn.status : "completed";
    const error = status === "failed" ? str(record(turn.error).message) || "turn failed" : null;
    const closing = [...this.declined].flatMap((id) =>
      this.itemCompleted({
        type: "commandExecution",
        id,
        exitCode: -1,
        aggregatedOutput: EXEC_REJECTED_BY_USER,
      }),
    );
    const event: Event =
      status === "completed"
        ? {
            type: "turn_complete",
            turn_id: turnId,
            last_agent_message: this.lastMessage,
            usage: this.total ?? usageOf(null),
          }
        : status === "interrupted"
          ? { type: "turn_aborted", turn_id: turnId, reason: "interrupted" }
          : { type: "turn_failed", turn_id: turnId, message: error ?? "" };
    return { end: { turnId, status, error }, events: [...closing, event] };
  }

  /** A server approval request as the core's question (null for other methods). */
  approvalRequest(method: string, params: Params): ApprovalRequestEvent | null {
    const callId = str(params.itemId);
    const reason = nullableStr(params.reason);
    const turnId = str(params.turnId) || this.turnId;
    if (method === "item/commandExecution/requestApproval") {
      const known = this.commands.get(callId);
      return {
        type: "exec_approval_request",
        call_id: callId,
        turn_id: turnId,
        command: typeof params.command === "string" ? shellSplit(params.command) : (known?.command ?? []),
        cwd: typeof params.cwd === "string" ? params.cwd : (known?.cwd ?? ""),
        reason,
      };
    }
    if (method === "item/fileChange/requestApproval") {
      return {
        type: "apply_patch_approval_request",
        call_id: callId,
        turn_id: turnId,
        changes: this.patches.get(callId) ?? {},
        reason,
        grant_root: nullableStr(params.grantRoot),
      };
    }
    return null;
  }

  private itemStarted(item: Params): Event[] {
    const id = str(item.id);
    switch (item.type) {
      case "commandExecution": {
        // Started again after it was declined (tscodex's server): the same command, begun already.
        if (this.commands.has(id)) return [];
        const command = { command: shellSplit(str(item.command)), cwd: str(item.cwd) };
        this.commands.set(id, command);
        return [{ type: "exec_command_begin", call_id: id, turn_id: this.turnId, ...command }];
      }
      case "fileChange":
        // Begun when it ends: a patch applies at once, and one the client declines (whose item
        // a server may start with its question) never began, as in a local run.
        this.patches.set(id, changesOf(item.changes));
        return [];
      case "mcpToolCall": {
        const invocation = {
          server: str(item.server),
          tool: str(item.tool),
          arguments: item.arguments ?? null,
        };
        this.mcpCalls.set(id, invocation);
        return [{ type: "mcp_tool_call_begin", call_id: id, invocation }];
      }
      case "webSearch":
        return [{ type: "web_search_begin", call_id: id }];
      case "collabAgentToolCall": {
        const agentId = str(list(item.receiverThreadIds)[0]);
        return [
          { type: "agent_spawned", agent_id: agentId, agent_type: null, message: str(item.prompt), depth: 1 },
        ];
      }
      case "enteredReviewMode":
        return [{ type: "entered_review_mode", turn_id: this.turnId, review: str(item.review) }];
      default:
        return [];
    }
  }

  private itemCompleted(item: Params): Event[] {
    const id = str(item.id);
    switch (item.type) {
      case "agentMessage":
        return this.message(str(item.text));
      case "reasoning": {
        const summary = list(item.summary).map(str);
        const text = summary.join("\n\n");
        return [
          ...(text ? [{ type: "agent_reasoning" as const, text }] : []),
          {
            type: "raw_response_item",
            item: {
              type: "reasoning",
              summary: summary.map((part) => ({ type: "summary_text" as const, text: part })),
              content: list(item.content).map((part) => ({
                type: "reasoning_text" as const,
                text: str(part),
              })),
            },
          },
        ];
      }
      case "commandExecution": {
        // Declined: its end comes when the server closes it (or, at the latest, with the turn).
        if (item.status === "declined") {
          this.declined.add(id);
          return [];
        }
        this.declined.delete(id);
        const known = this.commands.get(id) ?? { command: shellSplit(str(item.command)), cwd: str(item.cwd) };
        this.commands.delete(id);
        const output = str(item.aggregatedOutput);
        return [
          {
            type: "exec_command_end",
            call_id: id,
            turn_id: this.turnId,
            ...known,
            exit_code: typeof item.exitCode === "number" ? item.exitCode : -1,
            duration_ms: typeof item.durationMs === "number" ? item.durationMs : 0,
            stdout: output,
            stderr: "",
            aggregated_output: output,
            formatted_output: output,
          },
        ];
      }
      case "fileChange": {
        const changes = changesOf(item.changes);
        this.patches.delete(id);
        if (item.status === "declined") return [];
        return [
          { type: "patch_apply_begin", call_id: id, turn_id: this.turnId, auto_approved: true, changes },
          {
            type: "patch_apply_end",
            call_id: id,
            turn_id: this.turnId,
            stdout: "",
            stderr: item.status === "completed" ? "" : `patch ${str(item.status)}`,
            success: item.status === "completed",
            changes,
          },
        ];
      }
      case "mcpToolCall": {
        const invocation = this.mcpCalls.get(id) ?? {
          server: str(item.server),
          tool: str(item.tool),
          arguments: item.arguments ?? null,
        };
        this.mcpCalls.delete(id);
        const result = record(item.result);
        const error = item.error ? str(record(item.error).message) : null;
        return [
          {
            type: "mcp_tool_call_end",
            call_id: id,
            invocation,
            duration_ms: typeof item.durationMs === "number" ? item.durationMs : 0,
            result:
              error !== null || !item.result
                ? { Err: error ?? "no result" }
                : {
                    Ok: {
                      content: list(result.content).map(record),
                      structuredContent: (result.structuredContent as Params | null | undefined) ?? null,
                      isError: item.status === "failed",
                    },
                  },
          },
        ];
      }
      case "webSearch": {
        const query = str(item.query);
        const action = item.action ? (record(item.action) as { type: string; query?: string }) : undefined;
        return [
          { type: "web_search_end", call_id: id, query, ...(action ? { action } : {}) },
          {
            type: "raw_response_item",
            item: { type: "web_search_call", id, action: action ?? { type: "search", query } },
          },
        ];
      }
      case "collabAgentToolCall": {
        const agentId = str(list(item.receiverThreadIds)[0]);
        const state = record(record(item.agentsStates)[agentId]);
        return [{ type: "agent_finished", agent_id: agentId, status: agentStatusOf(state) }];
      }
      case "exitedReviewMode": {
        // The verdict is exec's final message: a review turn's own messages stay on the server.
        const review = str(item.review);
        return [{ type: "exited_review_mode", turn_id: this.turnId, review }, ...this.message(review)];
      }
      default:
        return [];
    }
  }

  /** An agent message: the event the human output shows, the item the JSON writer completes. */
  private message(text: string): Event[] {
    this.lastMessage = text;
    return [
      { type: "agent_message", message: text },
      {
        type: "raw_response_item",
        item: { type: "message", role: "assistant", content: [{ type: "output_text", text }] },
      },
    ];
  }
}

function record(value: unknown): Params {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Params) : {};
}

function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function str(value: unknown): string {
  return typeof value === "string" ? value : "";
}

function nullableStr(value: unknown): string | null {
  return typeof value === "string" ? value : null;
}

function planStatus(value: unknown): PlanStatus {
  return value === "inProgress" ? "in_progress" : value === "completed" ? "completed" : "pending";
}

/** The wire's TokenUsageBreakdown as the core's usage (zeros when absent). */
function usageOf(value: unknown): TokenUsage {
  const usage = record(value);
  const count = (key: string) => (typeof usage[key] === "number" ? (usage[key] as number) : 0);
  return {
    input_tokens: count("inputTokens"),
    cached_input_tokens: count("cachedInputTokens"),
    output_tokens: count("outputTokens"),
    reasoning_output_tokens: count("reasoningOutputTokens"),
    total_tokens: count("totalTokens"),
  };
}

/** The wire's file changes (path, kind, diff or content) as the core's per-path changes. */
function changesOf(value: unknown): Record<string, FileChange> {
  const changes: Record<string, FileChange> = {};
  for (const entry of list(value).map(record)) {
    const kind = record(entry.kind);
    const diff = str(entry.diff);
    const path = str(entry.path);
    if (kind.type === "add" || kind.type === "delete") changes[path] = { type: kind.type, content: diff };
    else changes[path] = { type: "update", unified_diff: diff, move_path: nullableStr(kind.move_path) };
  }
  return changes;
}

/** Codex's CollabAgentState as the core's agent status. */
function agentStatusOf(state: Params): AgentStatus {
  const message = nullableStr(state.message);
  switch (state.status) {
    case "completed":
      return { completed: message };
    case "errored":
      return { errored: message ?? "" };
    case "pendingInit":
      return "pending_init";
    case "notFound":
      return "not_found";
    case "interrupted":
    case "shutdown":
    case "running":
      return state.status;
    default:
      return "running";
  }
}
