/**
 * The core's events as Codex 0.89's `codex/event/<type>` notifications, the stream v1 clients
 * (`addConversationListener`) read: `{id: <turn id>, msg: <EventMsg>, conversationId}`. Most
 * events already carry Codex's EventMsg names and fields; this adds what 0.89 sends besides
 * (parsed commands, durations as `{secs, nanos}`, base64 output chunks, empty rate limits) and
 * leaves out what 0.89 has no EventMsg for (client tools, sub-agents, raw items).
 */
import type { Event } from "../../../protocol/events.js";
import { commandActions } from "../command-actions.js";

/** One `codex/event/*` notification. */
export interface LegacyNotification {
  method: string;
  params: { id: string; msg: Record<string, unknown>; conversationId: string };
}

/** Codex's ParsedCommand (snake_case, `cmd`) from our command actions. */
export function parsedCommand(argv: readonly string[]): Record<string, unknown>[] {
  return commandActions(argv).map((action) => {
    const { command, type, ...rest } = action;
    const kind = type === "listFiles" ? "list_files" : type;
    return { type: kind, cmd: command, ...rest };
  });
}

function duration(ms: number): { secs: number; nanos: number } {
  const whole = Math.max(0, Math.floor(ms));
  return { secs: Math.floor(whole / 1000), nanos: (whole % 1000) * 1_000_000 };
}

const NO_RATE_LIMITS = { primary: null, secondary: null, credits: null, plan_type: null };

/** Maps one thread's events; remembers the running turn (most events do not name it). */
export class LegacyEventMapper {
  private turnId = "";

  constructor(private readonly conversationId: string) {}

  map(event: Event): LegacyNotification[] {
    if (event.type === "turn_started") this.turnId = event.turn_id;
    const msg = this.message(event);
    if (!msg) return [];
    const type = String(msg.type);
    return [
      {
        method: `codex/event/${type}`,
        params: { id: this.turnId, msg, conversationId: this.conversationId },
      },
    ];
  }

  private message(event: Event): Record<string, unknown> | null {
    switch (event.type) {
      case "turn_started":
        return { type: "task_started", model_context_window: event.model_context_window };
      case "turn_complete":
        return { type: "task_complete", last_agent_message: event.last_agent_message };
      case "turn_aborted":
        return { type: "turn_aborted", reason: event.reason };
      case "turn_failed":
        return { type: "error", message: event.message, codex_error_info: null };
      case "user_message":
        return {
          type: "user_message",
          message: event.message,
          images: event.images,
          local_images: [],
          text_elements: [],
        };
      case "agent_message_delta":
      case "agent_message":
      case "agent_reasoning_delta":
      case "agent_reasoning":
      case "turn_diff":
      case "plan_update":
      case "warning":
      case "web_search_begin":
      case "mcp_startup_update":
      case "mcp_startup_complete":
      case "mcp_tool_call_begin":
      case "patch_apply_begin":
      case "patch_apply_end":
      case "apply_patch_approval_request":
      case "request_user_input":
      case "shutdown_complete":
        return { ...event };
      case "error":
        return { type: "error", message: event.message, codex_error_info: null };
      case "stream_error":
        return {
          type: "stream_error",
          message: event.message,
          codex_error_info: null,
          additional_details: null,
        };
      case "web_search_end":
        return { type: "web_search_end", call_id: event.call_id, query: event.query };
      case "mcp_tool_call_end":
        return {
          type: "mcp_tool_call_end",
          call_id: event.call_id,
          invocation: event.invocation,
          duration: duration(event.duration_ms),
          result: event.result,
        };
      case "exec_command_begin":
        return { ...event, parsed_cmd: parsedCommand(event.command), source: "agent" };
      case "exec_command_output_delta":
        return {
          type: "exec_command_output_delta",
          call_id: event.call_id,
          stream: event.stream,
          chunk: Buffer.from(event.chunk).toString("base64"),
        };
      case "exec_command_end": {
        const { duration_ms, ...rest } = event;
        return {
          ...rest,
          parsed_cmd: parsedCommand(event.command),
          source: "agent",
          duration: duration(duration_ms),
        };
      }
      case "exec_approval_request":
        return { ...event, parsed_cmd: parsedCommand(event.command), proposed_execpolicy_amendment: null };
      case "token_count":
        return {
          type: "token_count",
          info: event.last
            ? {
                total_token_usage: event.total,
                last_token_usage: event.last,
                model_context_window: event.model_context_window,
              }
            : null,
          rate_limits: NO_RATE_LIMITS,
        };
      case "context_compacted":
        return { type: "context_compacted" };
      default:
        return null;
    }
  }
}
