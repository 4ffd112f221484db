/**
 * Asking the user, and remembering "approved for session" answers for the rest of the thread:
 * exact commands (argv in a cwd), patch paths, MCP tools (server and tool) and hosts the managed
 * proxy blocked. One store per thread, shared by the
 * orchestrator (commands) and the gate (patches).
 */
import type { ReviewDecision } from "../protocol/events.js";
import type { ApprovalQuestion, TurnContext } from "../tools/types.js";

export class ApprovalStore {
  private readonly commands = new Set<string>();
  private readonly paths = new Set<string>();
  private readonly mcpTools = new Set<string>();
  private readonly hosts = new Set<string>();

  hasCommand(command: readonly string[], cwd: string): boolean {
    return this.commands.has(commandKey(command, cwd));
  }

  /** True when every path was approved for the session (an empty list never is). */
  hasAllPaths(paths: readonly string[]): boolean {
    return paths.length > 0 && paths.every((path) => this.paths.has(path));
  }

  /**
   * Ask through the turn (or answer from memory) and remember an approved_for_session answer.
   * `paths`: a patch's real paths, remembered instead of the command.
   */
  async ask(
    turn: TurnContext,
    question: ApprovalQuestion,
    paths: readonly string[] = [],
  ): Promise<ReviewDecision> {
    if (question.kind === "exec" && this.hasCommand(question.command, question.cwd)) return "approved";
    if (question.kind === "patch" && this.hasAllPaths(paths)) return "approved";
    if (question.kind === "mcp" && this.mcpTools.has(mcpKey(question.server, question.tool)))
      return "approved";
    if (question.kind === "network" && this.hosts.has(question.host)) return "approved";
    const decision = await askTurn(turn, question);
    if (decision === "approved_for_session") {
      if (question.kind === "exec") this.commands.add(commandKey(question.command, question.cwd));
      else if (question.kind === "mcp") this.mcpTools.add(mcpKey(question.server, question.tool));
      else if (question.kind === "network") this.hosts.add(question.host);
      else for (const path of paths) this.paths.add(path);
    }
    return decision;
  }
}

/** The declared outcome when the front-end fails to ask: denied. */
async function askTurn(turn: TurnContext, question: ApprovalQuestion): Promise<ReviewDecision> {
  try {
    return await turn.requestApproval(question);
  } catch {
    return "denied";
  }
}

export function isApproved(decision: ReviewDecision): boolean {
  return decision === "approved" || decision === "approved_for_session";
}

function commandKey(command: readonly string[], cwd: string): string {
  return JSON.stringify([cwd, ...command]);
}

function mcpKey(server: string, tool: string): string {
  return JSON.stringify([server, tool]);
}
