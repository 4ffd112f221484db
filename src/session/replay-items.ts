/**
 * A stored thread's lines back as the events they were kept from, for the core's ItemTracker:
 * replaying them gives the items the live stream gave: messages, reasoning, web searches and
 * compactions from history, tool items (commands, patches, MCP and client tool calls,
 * sub-agents) from their stored end events.
 */
import type { Event } from "../protocol/events.js";
import { ItemTracker, type ItemTrackerOptions } from "../protocol/item-tracker.js";
import type { ItemEvent } from "../protocol/turn-items.js";
import type { RolloutLine } from "../store/index.js";

/** The event `line` was kept from, as far as it was kept (null for metadata). */
export function eventOfLine(line: RolloutLine): Event | null {
  switch (line.type) {
    case "response_item":
      return { type: "raw_response_item", item: line.payload };
    case "compacted":
      return { type: "context_compacted", ...line.payload };
    case "event": {
      const stored = line.payload;
      switch (stored.type) {
        case "turn_started":
          return { ...stored, model_context_window: null };
        case "user_message":
          return { ...stored, images: [] };
        case "turn_complete":
          return { ...stored, last_agent_message: null };
        case "turn_aborted":
          return { ...stored, reason: "interrupted" };
        case "token_count":
          return { ...stored, model_context_window: null };
        case "exec_command_end":
          return { ...stored, stdout: "", stderr: "", formatted_output: "" };
        case "turn_failed":
        case "turn_parked":
        case "turn_continued":
        case "client_tools_changed":
        case "entered_review_mode":
        case "exited_review_mode":
        case "patch_apply_end":
        case "mcp_tool_call_end":
        case "client_tool_call_end":
        case "agent_spawned":
        case "agent_finished":
          return stored;
      }
      return null;
    }
    default:
      return null;
  }
}

/** Replay `lines` through a tracker: each line's event (null for metadata) and its item events. */
export function* replayLines(
  lines: Iterable<RolloutLine>,
  options: ItemTrackerOptions = {},
): Generator<{ event: Event; items: ItemEvent[] }> {
  const tracker = new ItemTracker(options);
  for (const line of lines) {
    const event = eventOfLine(line);
    // The line's own time: a replayed item reports when it happened, not when it was read.
    const at = Date.parse(line.timestamp);
    if (event) yield { event, items: tracker.push(event, Number.isNaN(at) ? undefined : at) };
  }
}
