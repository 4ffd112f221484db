/**
 * The agent's own tool work (commands, patches, MCP calls, searches) as one line of text each,
 * shown to HTTP clients as reasoning summary text (or hidden with --quiet-agent-work): their
 * function calls are only ever calls of their own tools.
 */
import type { Event } from "../../protocol/events.js";

/** A line for an event that reports agent work, else null. */
export function agentWorkLine(event: Event): string | null {
  switch (event.type) {
    case "exec_command_end":
      return `Ran \`${event.command.join(" ")}\` (exit ${event.exit_code}, ${event.duration_ms} ms)`;
    case "patch_apply_end":
      return `${event.success ? "Edited" : "Failed to edit"} ${Object.keys(event.changes).join(", ")}`;
    case "mcp_tool_call_end":
      return `Called ${event.invocation.server}/${event.invocation.tool} (${event.duration_ms} ms)`;
    case "web_search_end":
      return `Searched the web for "${event.query}"`;
    case "plan_update":
      return `Plan: ${event.plan.map((step) => `${step.step} [${step.status}]`).join("; ")}`;
    default:
      return null;
  }
}
