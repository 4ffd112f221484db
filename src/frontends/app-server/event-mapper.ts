/**
 * One thread's core events → app-server notifications, in Codex's order and shapes
 * (reference/app-server session-089.jsonl; client tool calls as in session-169.jsonl).
 * Stateful per thread: the running turn, the open agent message, the items started and not yet
 * completed (so every item/started gets one item/completed), and per-command UTF-8 decoders
 * (output chunks may split a character).
 *
 * Ordering notes: an approval question for a patch arrives before the patch begins, so the
 * fileChange item starts with the question; a declined command completes as `declined` when the
 * answer is known, then as `failed` (exit -1) when the core closes it, as Codex does; a
 * cancelled one only as `declined`.
 */
import { TextDecoder } from "node:util";
import type { Event, EventOf, FileChange } from "../../protocol/events.js";
import type { ResponseItem, TokenUsage } from "../../protocol/items.js";
import { uuidv7 } from "../../util/ids.js";
import { shellQuote } from "../../util/shell-quote.js";
import { commandActions } from "./command-actions.js";
import type { FileUpdateChange, ItemOf, ThreadItem, TurnError, UserInputWire } from "./protocol/common.js";
import type { ServerNotification } from "./protocol/server-messages.js";

type Notification = ServerNotification;
type CommandItem = ItemOf<"commandExecution">;

interface OpenCommand {
  item: CommandItem;
  decoder: TextDecoder;
  turnId: string;
}

export class EventMapper {
  private turnId = "";
  private message: { id: string; text: string } | null = null;
  private readonly commands = new Map<string, OpenCommand>();
  private readonly patches = new Map<string, ItemOf<"fileChange">>();
  private readonly searches = new Map<string, ItemOf<"webSearch">>();
  /** Commands cancelled by the client: the core's closing end event is not shown. */
  private readonly cancelled = new Set<string>();

  /**
   * `userContent(turnId)`: the input a turn was started with, as the client sent it (echoed in
   * the userMessage item); undefined for turns started elsewhere.
   */
  constructor(
    private readonly threadId: string,
    private readonly userContent: (turnId: string) => UserInputWire[] | undefined,
  ) {}

  /** The turn running now ("" between turns). */
  get currentTurn(): string {
    return this.turnId;
  }

  /** The notifications `event` stands for (often none). */
  map(event: Event): Notification[] {
    switch (event.type) {
      case "turn_started":
        this.turnId = event.turn_id;
        return [{ method: "turn/started", params: { threadId: this.threadId, turn: turnOf(event.turn_id) } }];
      case "user_message":
        return this.startAndComplete({
          type: "userMessage",
          id: uuidv7(),
          content: this.userContent(this.turnId) ?? contentOf(event.message, event.images),
        });
      case "agent_message_delta":
        return this.messageDelta(event.delta);
      case "agent_message":
        return this.completeMessage(event.message);
      case "raw_response_item":
        return this.reasoning(event.item);
      case "exec_command_begin":
        return this.startCommand(event.call_id, event.turn_id, event.command, event.cwd);
      case "exec_command_output_delta":
        return this.commandOutput(event.call_id, event.chunk);
      case "exec_command_end":
        return this.endCommand(event);
      case "exec_approval_request":
        // A sub-agent's question (`<agent>/<call>`): its command is the child's item, not ours.
        // An MCP call's question: its item is the mcpToolCall already started.
        if (event.call_id.includes("/") || event.mcp_tool_call) return [];
        return this.startCommand(event.call_id, event.turn_id, event.command, event.cwd);
      case "apply_patch_approval_request":
        if (event.call_id.includes("/")) return [];
        return this.startPatch(event.call_id, event.turn_id, event.changes);
      case "patch_apply_begin":
        return this.startPatch(event.call_id, event.turn_id, event.changes);
      case "patch_apply_end":
        return this.endPatch(event);
      case "turn_diff":
        return [{ method: "turn/diff/updated", params: { ...this.at(), diff: event.unified_diff } }];
      case "plan_update":
        return [
          {
            method: "turn/plan/updated",
            params: {
              ...this.at(),
              explanation: event.explanation,
              plan: event.plan.map(({ step, status }) => ({
                step,
                status: status === "in_progress" ? "inProgress" : status,
              })),
            },
          },
        ];
      case "token_count":
        return [
          {
            method: "thread/tokenUsage/updated",
            params: {
              ...this.at(),
              tokenUsage: {
                total: usageOf(event.total),
                last: usageOf(event.last),
                modelContextWindow: event.model_context_window,
              },
            },
          },
        ];
      case "web_search_begin":
        return this.startSearch(event.call_id);
      case "web_search_end":
        return this.endSearch(event.call_id, event.query);
      case "mcp_tool_call_begin":
        return [this.started(mcpItem(event.call_id, event.invocation))];
      case "mcp_tool_call_end":
        return [this.completed(mcpEndItem(event))];
      case "client_tool_call_request":
        return [
          {
            method: "item/started",
            params: { ...this.at(event.turn_id), item: clientToolItem(event), startedAtMs: Date.now() },
          },
        ];
      case "client_tool_call_end":
        return [
          {
            method: "item/completed",
            params: {
              ...this.at(event.turn_id),
              item: {
                ...clientToolItem(event),
                status: event.result.success ? "completed" : "failed",
                contentItems: event.result.contentItems,
                success: event.result.success,
                durationMs: event.duration_ms,
              },
              completedAtMs: Date.now(),
            },
          },
        ];
      case "stream_error":
        return [this.error(event.message, true)];
      case "error":
        return [this.error(event.message, false)];
      case "context_compacted":
        return [{ method: "thread/compacted", params: this.at() }];
      case "turn_complete":
        return this.endTurn("completed", null);
      case "turn_aborted":
        return this.endTurn("interrupted", null);
      case "turn_failed":
        return this.endTurn("failed", errorOf(event.message));
      default:
        return [];
    }
  }

  /**
   * The client declined (or, with `cancel`, cancelled) call `callId`: its item completes as
   * `declined` now. A cancelled command's later end event is not shown.
   */
  declined(callId: string, cancel: boolean): Notification[] {
    const command = this.commands.get(callId);
    if (command) {
      if (cancel) {
        this.commands.delete(callId);
        this.cancelled.add(callId);
      }
      return [this.completed({ ...command.item, status: "declined" }, command.turnId)];
    }
    const patch = this.patches.get(callId);
    if (!patch) return [];
    this.patches.delete(callId);
    return [this.completed({ ...patch, status: "declined" })];
  }

  private at(turnId: string = this.turnId): { threadId: string; turnId: string } {
    return { threadId: this.threadId, turnId };
  }

  private started(item: ThreadItem, turnId?: string): Notification {
    return { method: "item/started", params: { ...this.at(turnId), item } };
  }

  private completed(item: ThreadItem, turnId?: string): Notification {
    return { method: "item/completed", params: { ...this.at(turnId), item } };
  }

  private startAndComplete(item: ThreadItem): Notification[] {
    return [this.started(item), this.completed(item)];
  }

  private messageDelta(delta: string): Notification[] {
    const out: Notification[] = [];
    if (!this.message) {
      this.message = { id: uuidv7(), text: "" };
      out.push(this.started({ type: "agentMessage", id: this.message.id, text: "" }));
    }
    this.message.text += delta;
    out.push({
      method: "item/agentMessage/delta",
      params: { ...this.at(), itemId: this.message.id, delta },
    });
    return out;
  }

  private completeMessage(text: string): Notification[] {
    const open = this.message;
    this.message = null;
    const item: ThreadItem = { type: "agentMessage", id: open?.id ?? uuidv7(), text };
    return open ? [this.completed(item)] : this.startAndComplete(item);
  }

  /** Reasoning is shown once the response is final: its summary parts and raw text. */
  private reasoning(item: ResponseItem): Notification[] {
    if (item.type !== "reasoning") return [];
    const summary = item.summary.map((part) => part.text);
    const content = (item.content ?? []).map((part) => part.text);
    if (summary.length === 0 && content.length === 0) return [];
    return this.startAndComplete({ type: "reasoning", id: item.id ?? uuidv7(), summary, content });
  }

  private startCommand(callId: string, turnId: string, command: string[], cwd: string): Notification[] {
    if (this.commands.has(callId)) return [];
    const item: CommandItem = {
      type: "commandExecution",
      id: callId,
      command: shellQuote(command),
      cwd,
      processId: null,
      status: "inProgress",
      commandActions: commandActions(command),
      aggregatedOutput: null,
      exitCode: null,
      durationMs: null,
    };
    this.commands.set(callId, { item, decoder: new TextDecoder(), turnId });
    return [this.started(item, turnId)];
  }

  private commandOutput(callId: string, chunk: Uint8Array): Notification[] {
    const open = this.commands.get(callId);
    if (!open) return [];
    const delta = open.decoder.decode(chunk, { stream: true });
    if (delta === "") return [];
    return [
      {
        method: "item/commandExecution/outputDelta",
        params: { ...this.at(open.turnId), itemId: callId, delta },
      },
    ];
  }

  private endCommand(event: EventOf<"exec_command_end">): Notification[] {
    if (this.cancelled.delete(event.call_id)) return [];
    const out = this.startCommand(event.call_id, event.turn_id, event.command, event.cwd);
    const open = this.commands.get(event.call_id);
    this.commands.delete(event.call_id);
    if (!open) return out;
    out.push(
      this.completed(
        {
          ...open.item,
          status: event.exit_code === 0 ? "completed" : "failed",
          aggregatedOutput: event.aggregated_output,
          exitCode: event.exit_code,
          durationMs: event.duration_ms,
        },
        open.turnId,
      ),
    );
    return out;
  }

  private startPatch(callId: string, turnId: string, changes: Record<string, FileChange>): Notification[] {
    if (this.patches.has(callId)) return [];
    const item: ItemOf<"fileChange"> = {
      type: "fileChange",
      id: callId,
      changes: changesOf(changes),
      status: "inProgress",
    };
    this.patches.set(callId, item);
    return [this.started(item, turnId)];
  }

  private endPatch(event: EventOf<"patch_apply_end">): Notification[] {
    const out = this.startPatch(event.call_id, event.turn_id, event.changes);
    this.patches.delete(event.call_id);
    const delta = event.success ? event.stdout : event.stderr || event.stdout;
    if (delta)
      out.push({
        method: "item/fileChange/outputDelta",
        params: { ...this.at(event.turn_id), itemId: event.call_id, delta },
      });
    const item: ThreadItem = {
      type: "fileChange",
      id: event.call_id,
      changes: changesOf(event.changes),
      status: event.success ? "completed" : "failed",
    };
    out.push(this.completed(item, event.turn_id));
    return out;
  }

  private startSearch(callId: string): Notification[] {
    const item: ItemOf<"webSearch"> = { type: "webSearch", id: callId || uuidv7(), query: "" };
    this.searches.set(callId, item);
    return [this.started(item)];
  }

  private endSearch(callId: string, query: string): Notification[] {
    const open = this.searches.get(callId);
    this.searches.delete(callId);
    const item: ThreadItem = { type: "webSearch", id: open?.id ?? (callId || uuidv7()), query };
    return open ? [this.completed(item)] : this.startAndComplete(item);
  }

  private error(message: string, willRetry: boolean): Notification {
    return { method: "error", params: { ...this.at(), error: errorOf(message), willRetry } };
  }

  /** Close what the turn left open (an interrupted message or search), then the turn itself. */
  private endTurn(status: "completed" | "interrupted" | "failed", error: TurnError | null): Notification[] {
    const out: Notification[] = [];
    if (this.message) out.push(...this.completeMessage(this.message.text));
    for (const [callId, item] of this.searches) out.push(this.completed({ ...item, id: item.id || callId }));
    this.searches.clear();
    const turnId = this.turnId;
    this.turnId = "";
    out.push({
      method: "turn/completed",
      params: { threadId: this.threadId, turn: { ...turnOf(turnId), status, error } },
    });
    return out;
  }
}

function turnOf(id: string) {
  return { id, items: [], status: "inProgress" as const, error: null };
}

function errorOf(message: string): TurnError {
  return { message, codexErrorInfo: null, additionalDetails: null };
}

/** A user message as Codex shows it: the text, then each image by URL. */
export function contentOf(text: string, images: readonly string[]): UserInputWire[] {
  return [
    { type: "text", text, text_elements: [] },
    ...images.map((url): UserInputWire => ({ type: "image", url })),
  ];
}

function usageOf(usage: TokenUsage | null) {
  return {
    totalTokens: usage?.total_tokens ?? 0,
    inputTokens: usage?.input_tokens ?? 0,
    cachedInputTokens: usage?.cached_input_tokens ?? 0,
    outputTokens: usage?.output_tokens ?? 0,
    reasoningOutputTokens: usage?.reasoning_output_tokens ?? 0,
  };
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

function mcpItem(
  callId: string,
  invocation: EventOf<"mcp_tool_call_begin">["invocation"],
): ItemOf<"mcpToolCall"> {
  return {
    type: "mcpToolCall",
    id: callId,
    server: invocation.server,
    tool: invocation.tool,
    status: "inProgress",
    arguments: invocation.arguments,
    result: null,
    error: null,
    durationMs: null,
  };
}

function mcpEndItem(event: EventOf<"mcp_tool_call_end">): ThreadItem {
  const base = mcpItem(event.call_id, event.invocation);
  if ("Err" in event.result)
    return { ...base, status: "failed", error: { message: event.result.Err }, durationMs: event.duration_ms };
  const result = event.result.Ok;
  return {
    ...base,
    status: result.isError ? "failed" : "completed",
    result: { content: result.content, structuredContent: result.structuredContent ?? null },
    durationMs: event.duration_ms,
  };
}

/** A client tool call as 0.169's dynamicToolCall item (not yet answered). */
function clientToolItem(event: {
  call_id: string;
  tool: string;
  arguments: unknown;
}): ItemOf<"dynamicToolCall"> {
  return {
    type: "dynamicToolCall",
    id: event.call_id,
    namespace: null,
    tool: event.tool,
    arguments: event.arguments,
    status: "inProgress",
    contentItems: null,
    success: null,
    durationMs: null,
  };
}
