/**
 * One line about an item's change, for the front-ends that narrate progress in words (MCP
 * progress notifications; exec's human lines for a sub-agent's work): "Running `make`",
 * "Command finished (exit 0): `make`", "Patch applied: update a.txt". Null when the change is
 * not worth a line (deltas, messages streaming, items narrated elsewhere).
 */
import type { FileChange, PlanStatus } from "../../protocol/events.js";
import type { ItemEvent } from "../../protocol/turn-items.js";
import { shellQuote } from "../../util/shell-quote.js";

export function describeItem(change: ItemEvent): string | null {
  const { item } = change;
  if (change.type === "item_updated") {
    return item.type === "plan" && !change.delta ? describePlan(item.plan) : null;
  }
  const started = change.type === "item_started";
  switch (item.type) {
    case "command_execution":
      if (started) return `Running \`${displayCommand(item.command)}\``;
      if (item.status === "declined") return `Declined \`${displayCommand(item.command)}\``;
      return `Command finished (exit ${item.exit_code}): \`${displayCommand(item.command)}\``;
    case "file_change":
      if (started) return null;
      if (item.status === "declined") return `Patch declined: ${describeChanges(item.changes) || "no files"}`;
      return `${item.status === "completed" ? "Patch applied" : "Patch failed"}: ${describeChanges(item.changes) || "no files"}`;
    case "mcp_tool_call":
      return started ? `Calling ${item.invocation.server}.${item.invocation.tool}` : null;
    case "web_search":
      return started ? null : `Searched the web: ${item.query}`;
    case "plan":
      return started ? describePlan(item.plan) : null;
    default:
      return null;
  }
}

/** The command as a person would type it: the script of `bash -lc SCRIPT`, else quoted argv. */
export function displayCommand(command: readonly string[]): string {
  const [shell, flag, script] = command;
  if (command.length === 3 && shell && /(^|\/)(ba|z|)sh$/.test(shell) && /^-l?c$/.test(flag ?? ""))
    return script ?? "";
  return shellQuote(command);
}

export function describeChanges(changes: Record<string, FileChange>): string {
  return Object.entries(changes)
    .map(([path, change]) => `${change.type} ${path}`)
    .join(", ");
}

function describePlan(plan: readonly { step: string; status: PlanStatus }[]): string {
  return `Plan: ${plan.map((item) => `${mark(item.status)} ${item.step}`).join("; ")}`;
}

function mark(status: string): string {
  return status === "completed" ? "[x]" : status === "in_progress" ? "[~]" : "[ ]";
}
