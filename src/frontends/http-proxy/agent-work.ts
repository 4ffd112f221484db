/**
 * The agent's own tool work (commands, patches, MCP calls, searches) as one line of text each,
 * shown to HTTP clients as reasoning summary text (or hidden with --quiet-agent-work): their
 * function calls are only ever calls of their own tools. Told from the core's items: a line when
 * a tool item completes, and for each plan version.
 */
import type { ItemEvent } from "../../protocol/turn-items.js";

/** A line for an item change that reports agent work, else null. */
export function agentWorkLine(change: ItemEvent): string | null {
  const { item } = change;
  if (item.type === "plan") {
    if (change.type === "item_completed") return null;
    return `Plan: ${item.plan.map((step) => `${step.step} [${step.status}]`).join("; ")}`;
  }
  if (change.type !== "item_completed") return null;
  switch (item.type) {
    case "command_execution":
      return `Ran \`${item.command.join(" ")}\` (exit ${item.exit_code}, ${item.duration_ms} ms)`;
    case "file_change":
      return `${item.status === "completed" ? "Edited" : "Failed to edit"} ${Object.keys(item.changes).join(", ")}`;
    case "mcp_tool_call":
      return `Called ${item.invocation.server}/${item.invocation.tool} (${item.duration_ms} ms)`;
    case "web_search":
      return `Searched the web for "${item.query}"`;
    default:
      return null;
  }
}
