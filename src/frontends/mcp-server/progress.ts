/**
 * Thread events → short human progress messages (MCP `notifications/progress`), and the raw
 * `codex/event` payload for clients that asked for Codex's event stream (--raw-events).
 * Most events (deltas, token counts, raw items) say nothing a human needs: they map to null.
 */
import type { Event, FileChange } from "../../protocol/events.js";
import { shellQuote } from "../../util/shell-quote.js";
import { agentLabel, describeStatus } from "../common/agent-labels.js";

const MAX_MESSAGE_CHARS = 200;

/** A one-line description of `event` for a progress notification, or null for none. */
export function progressMessage(event: Event): string | null {
  switch (event.type) {
    case "turn_started":
      return "Turn started";
    case "exec_command_begin":
      return clip(`Running \`${displayCommand(event.command)}\``);
    case "exec_command_end":
      return clip(`Command finished (exit ${event.exit_code}): \`${displayCommand(event.command)}\``);
    case "patch_apply_end":
      return clip(
        `${event.success ? "Patch applied" : "Patch failed"}: ${describeChanges(event.changes) || "no files"}`,
      );
    case "plan_update":
      return clip(`Plan: ${event.plan.map((item) => `${mark(item.status)} ${item.step}`).join("; ")}`);
    case "mcp_tool_call_begin":
      return clip(`Calling ${event.invocation.server}.${event.invocation.tool}`);
    case "web_search_end":
      return clip(`Searched the web: ${event.query}`);
    case "exec_approval_request":
      return clip(`Waiting for approval to run \`${displayCommand(event.command)}\``);
    case "apply_patch_approval_request":
      return clip(`Waiting for approval to change ${describeChanges(event.changes)}`);
    case "stream_error":
      return clip(`Model stream interrupted; retrying (${event.attempt}/${event.max_attempts})`);
    case "context_compacted":
      return "Context compacted";
    case "warning":
      return clip(`Warning: ${event.message}`);
    case "turn_complete":
      return "Turn complete";
    case "turn_aborted":
      return "Turn aborted";
    case "turn_failed":
      return clip(`Turn failed: ${event.message}`);
    case "agent_spawned":
      return clip(`Started ${agentLabel(event.agent_id)}: ${event.message}`);
    case "agent_finished":
      return clip(`${agentLabel(event.agent_id)} ${describeStatus(event.status)}`);
    case "agent_event": {
      const inner = event.event.type === "agent_message" ? null : progressMessage(event.event);
      return inner ? clip(`${agentLabel(event.agent_id)}: ${inner}`) : null;
    }
    default:
      return null;
  }
}

/**
 * The event as Codex's `codex/event` `msg`: same field names, with Codex's spellings where ours
 * differ (task_started/task_complete, base64 output chunks, duration as {secs, nanos}).
 */
export function rawEventMessage(event: Event): Record<string, unknown> {
  switch (event.type) {
    case "turn_started":
      return { type: "task_started", model_context_window: event.model_context_window };
    case "turn_complete":
      return { type: "task_complete", last_agent_message: event.last_agent_message };
    case "exec_command_output_delta":
      // A view, not a copy: the chunk is only read here.
      return {
        ...event,
        chunk: Buffer.from(event.chunk.buffer, event.chunk.byteOffset, event.chunk.byteLength).toString(
          "base64",
        ),
      };
    case "exec_command_end": {
      const secs = Math.floor(event.duration_ms / 1000);
      return { ...event, duration: { secs, nanos: (event.duration_ms - secs * 1000) * 1_000_000 } };
    }
    default:
      return { ...event };
  }
}

/** The command as a person would type it: the script of `bash -lc SCRIPT`, else quoted argv. */
export function displayCommand(command: readonly string[]): string {
  const [shell, flag, script] = command;
  if (command.length === 3 && shell && /(^|\/)(ba|z|)sh$/.test(shell) && /^-l?c$/.test(flag ?? ""))
    return script ?? "";
  return shellQuote(command);
}

function describeChanges(changes: Record<string, FileChange>): string {
  return Object.entries(changes)
    .map(([path, change]) => `${change.type} ${path}`)
    .join(", ");
}

function mark(status: string): string {
  return status === "completed" ? "[x]" : status === "in_progress" ? "[~]" : "[ ]";
}

function clip(text: string): string {
  const line = text.replace(/\s+/g, " ");
  return line.length <= MAX_MESSAGE_CHARS ? line : `${line.slice(0, MAX_MESSAGE_CHARS - 1)}…`;
}
