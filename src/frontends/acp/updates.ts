/**
 * A thread's events (Thread.subscribeItems: each legacy event, then the item events it caused)
 * as ACP `session/update`s, in the shapes codex-acp sends (reference acp.md §6): message and
 * reasoning deltas as chunks, tool items as tool calls (tool-calls.ts), `update_plan` as `plan`,
 * token counts as `usage_update`. The same mapper replays a stored thread (replay.ts).
 *
 * State kept here is the wire's: which messages streamed (a provider that streams none gets one
 * chunk with the whole text), which tool calls the client has, and per-command output decoders.
 * A sub-agent's own items stay in its thread: only the parent's sub_agent item shows.
 */
import { TextDecoder } from "node:util";
import type { SessionUpdate, ToolCallUpdate, ToolKind } from "@agentclientprotocol/sdk";
import type { ApprovalRequestEvent } from "../../protocol/events.js";
import {
  type ItemDelta,
  type ItemEvent,
  isItemEvent,
  type ThreadEvent,
  type TurnItem,
} from "../../protocol/turn-items.js";
import { approvalToolCall } from "./approval-call.js";
import { toolCallDone, toolCallOf } from "./tool-calls.js";

/** The tool call a `session/request_permission` carries (approval-call.ts), from here with the mapper. */
export { approvalToolCall } from "./approval-call.js";

export interface SessionUpdateMapperOptions {
  /** The session's cwd (absolute): relative paths resolve against it. */
  cwd: string;
  /**
   * Show the user's messages as `user_message_chunk` (a replay). Off by default: live, the
   * client sent the prompt itself and codex-acp does not echo it.
   */
  userMessages?: boolean;
}

export class SessionUpdateMapper {
  private readonly cwd: string;
  private readonly userMessages: boolean;
  /** Messages and reasoning items whose text came as deltas. */
  private readonly streamed = new Set<string>();
  /** Tool calls the client knows (a `tool_call` went out), with their kind. */
  private readonly calls = new Map<string, ToolKind>();
  /** Calls announced by an approval question whose item has not started. */
  private readonly asked = new Set<string>();
  /** Commands whose output streamed as terminal deltas: their decoder. */
  private readonly terminals = new Map<string, TextDecoder>();
  private contextWindow: number | null = null;

  constructor(options: SessionUpdateMapperOptions) {
    this.cwd = options.cwd;
    this.userMessages = options.userMessages ?? false;
  }

  /** The updates `event` causes, in order (often none). */
  push(event: ThreadEvent): SessionUpdate[] {
    if (isItemEvent(event)) return event.agent_id === undefined ? this.item(event) : [];
    switch (event.type) {
      case "turn_started":
        if (event.model_context_window) this.contextWindow = event.model_context_window;
        return [];
      case "token_count": {
        const size = event.model_context_window ?? this.contextWindow;
        if (!event.last || !size) return [];
        return [{ sessionUpdate: "usage_update", used: event.last.total_tokens, size }];
      }
      case "exec_approval_request":
      case "apply_patch_approval_request":
        return this.question(event);
      case "turn_complete":
      case "turn_aborted":
      case "turn_failed":
        // A question answered no never starts its item: the call did not run.
        return [...this.asked].flatMap((id) => this.declined(id));
      default:
        return [];
    }
  }

  /**
   * The client declined question `callId`: a call the question announced and that never started
   * fails now (one already running completes through its item). Idempotent.
   */
  declined(callId: string): SessionUpdate[] {
    if (!this.asked.delete(callId)) return [];
    return [{ sessionUpdate: "tool_call_update", toolCallId: callId, status: "failed" }];
  }

  /** A question about a call the client does not know yet announces it (pending), as codex-acp does. */
  private question(event: ApprovalRequestEvent): SessionUpdate[] {
    // A sub-agent's question is about the child's call: the permission request carries it.
    if (event.agent_id !== undefined || this.calls.has(event.call_id)) return [];
    const call = approvalToolCall(event, this.cwd);
    this.calls.set(call.toolCallId, call.kind ?? "other");
    this.asked.add(call.toolCallId);
    return [{ sessionUpdate: "tool_call", ...call }];
  }

  private item(change: ItemEvent): SessionUpdate[] {
    const { item } = change;
    switch (change.type) {
      case "item_started":
        return this.started(item);
      case "item_updated":
        return change.delta ? this.delta(item, change.delta) : this.snapshot(item);
      case "item_completed":
        return this.completed(item);
    }
  }

  private started(item: TurnItem): SessionUpdate[] {
    if (item.type === "plan") return [planOf(item)];
    const call = toolCallOf(item, this.cwd);
    if (!call) return [];
    const known = this.calls.has(item.id);
    this.calls.set(item.id, call.kind ?? "other");
    // Announced by its question: the call goes on, with what the item says now.
    if (known && this.asked.delete(item.id)) return [{ sessionUpdate: "tool_call_update", ...call }];
    if (known)
      return [
        { sessionUpdate: "tool_call_update", toolCallId: item.id, status: call.status ?? "in_progress" },
      ];
    return [{ sessionUpdate: "tool_call", ...call }];
  }

  private delta(item: TurnItem, delta: ItemDelta): SessionUpdate[] {
    const messageId = item.id;
    switch (delta.kind) {
      case "agent_message_text":
      case "proposed_plan_text":
        this.streamed.add(item.id);
        return [
          { sessionUpdate: "agent_message_chunk", messageId, content: { type: "text", text: delta.text } },
        ];
      case "reasoning_summary_text":
      case "reasoning_content_text":
        this.streamed.add(item.id);
        return [
          { sessionUpdate: "agent_thought_chunk", messageId, content: { type: "text", text: delta.text } },
        ];
      case "reasoning_summary_part":
        // A new summary part: set it apart from the last one's text.
        return delta.summary_index > 0
          ? [{ sessionUpdate: "agent_thought_chunk", messageId, content: { type: "text", text: "\n\n" } }]
          : [];
      case "command_output": {
        if (this.calls.get(item.id) !== "execute") return [];
        let decoder = this.terminals.get(item.id);
        if (!decoder) {
          decoder = new TextDecoder();
          this.terminals.set(item.id, decoder);
        }
        const data = decoder.decode(delta.chunk, { stream: true });
        if (data === "") return [];
        return [
          {
            sessionUpdate: "tool_call_update",
            toolCallId: item.id,
            _meta: { terminal_output_delta: { terminal_id: item.id, data } },
          },
        ];
      }
      default:
        return [];
    }
  }

  /** An item's new snapshot: a plan's new steps, a sub-agent running again. */
  private snapshot(item: TurnItem): SessionUpdate[] {
    if (item.type === "plan") return [planOf(item)];
    if (item.type === "sub_agent" && this.calls.has(item.id))
      return [{ sessionUpdate: "tool_call_update", ...toolCallDone(item, this.cwd) }];
    return [];
  }

  private completed(item: TurnItem): SessionUpdate[] {
    switch (item.type) {
      case "user_message":
        return this.userMessages && item.text
          ? [
              {
                sessionUpdate: "user_message_chunk",
                messageId: item.id,
                content: { type: "text", text: item.text },
              },
            ]
          : [];
      case "agent_message":
      case "proposed_plan":
        return this.whole(item.id, item.text, "agent_message_chunk");
      case "reasoning": {
        const parts = item.summary.length > 0 ? item.summary : item.content;
        return this.whole(item.id, parts.join("\n\n"), "agent_thought_chunk");
      }
      case "plan":
      case "hook_prompt":
        return [];
      default:
        return this.callDone(item);
    }
  }

  /** A message that streamed nothing shows whole, as one chunk. */
  private whole(
    id: string,
    text: string,
    kind: "agent_message_chunk" | "agent_thought_chunk",
  ): SessionUpdate[] {
    if (this.streamed.delete(id) || text === "") return [];
    return [{ sessionUpdate: kind, messageId: id, content: { type: "text", text } }];
  }

  private callDone(item: TurnItem): SessionUpdate[] {
    const out: SessionUpdate[] = [];
    if (!this.calls.has(item.id)) {
      // Completed without a start the client saw: announce it first.
      const call = toolCallOf(item, this.cwd);
      if (!call) return [];
      this.calls.set(item.id, call.kind ?? "other");
      out.push({ sessionUpdate: "tool_call", ...call, status: "in_progress" });
    }
    this.asked.delete(item.id);
    const update: ToolCallUpdate = toolCallDone(item, this.cwd);
    if (item.type === "command_execution" && this.calls.get(item.id) === "execute")
      update._meta = this.terminalEnd(item);
    out.push({ sessionUpdate: "tool_call_update", ...update });
    return out;
  }

  /** Zed's terminal extension: the output, unless it streamed, and the exit. */
  private terminalEnd(item: Extract<TurnItem, { type: "command_execution" }>): Record<string, unknown> {
    const terminal_id = item.id;
    const streamed = this.terminals.has(item.id);
    this.terminals.delete(item.id);
    const output = item.aggregated_output;
    const exit_code = item.status === "declined" ? null : item.exit_code;
    return {
      ...(!streamed && output ? { terminal_output_delta: { terminal_id, data: output } } : {}),
      terminal_exit: { terminal_id, exit_code, signal: null },
    };
  }
}

function planOf(item: Extract<TurnItem, { type: "plan" }>): SessionUpdate {
  return {
    sessionUpdate: "plan",
    entries: item.plan.map(({ step, status }) => ({ content: step, status, priority: "medium" })),
  };
}
