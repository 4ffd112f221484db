/**
 * Thread events → short human progress messages (MCP `notifications/progress`), and the raw
 * `codex/event` payload for clients that asked for Codex's event stream (--raw-events).
 * What a turn did (commands, patches, calls, searches, the plan) is told from the core's items
 * (describeItem); the turn's own moments and questions from its events. Most events (deltas,
 * token counts, raw items) say nothing a human needs.
 */
import type { Event } from "../../protocol/events.js";
import { ItemTracker } from "../../protocol/item-tracker.js";
import { agentLabel, describeStatus } from "../common/agent-labels.js";
import { describeChanges, describeItem, displayCommand } from "../common/describe-item.js";

export { displayCommand } from "../common/describe-item.js";

const MAX_MESSAGE_CHARS = 200;

/** One turn's progress lines: its events' and its items' (a sub-agent's under its label). */
export class ProgressNarrator {
  private readonly tracker = new ItemTracker();
  private readonly agents = new Map<string, ItemTracker>();

  lines(event: Event): string[] {
    const out: string[] = [];
    const own = progressMessage(event);
    if (own) out.push(own);
    for (const change of this.tracker.push(event)) {
      const line = describeItem(change);
      if (line) out.push(clip(line));
    }
    if (event.type === "agent_event") {
      let tracker = this.agents.get(event.agent_id);
      if (!tracker) {
        tracker = new ItemTracker();
        this.agents.set(event.agent_id, tracker);
      }
      const inner = event.event.type === "agent_message" ? null : progressMessage(event.event);
      const lines = inner ? [inner] : [];
      for (const change of tracker.push(event.event)) {
        const line = describeItem(change);
        if (line) lines.push(line);
      }
      for (const line of lines) out.push(clip(`${agentLabel(event.agent_id)}: ${line}`));
    }
    return out;
  }
}

/** A one-line description of a turn-level `event` (not an item's) for progress, or null for none. */
export function progressMessage(event: Event): string | null {
  switch (event.type) {
    case "turn_started":
      return "Turn started";
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

function clip(text: string): string {
  const line = text.replace(/\s+/g, " ");
  return line.length <= MAX_MESSAGE_CHARS ? line : `${line.slice(0, MAX_MESSAGE_CHARS - 1)}…`;
}
