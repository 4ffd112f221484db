/** Short labels for sub-agents in human-facing output (exec, MCP progress). */
import type { AgentStatus } from "../../protocol/agents.js";

/** The last 8 characters of a thread id: unique enough to tell siblings apart. */
export function agentLabel(id: string): string {
  return `agent ${id.slice(-8)}`;
}

export function describeStatus(status: AgentStatus): string {
  if (typeof status === "string") return status.replace("_", " ");
  if ("completed" in status) return "completed";
  return `errored: ${status.errored}`;
}
