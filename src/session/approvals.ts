/**
 * A thread's open approval questions: each is an event carrying the call id; the front-end
 * answers with an `exec_approval` / `patch_approval` op. No answer within the timeout counts as
 * "denied" (announced with a warning event), an interrupted turn as "abort".
 */
import type { Event, ReviewDecision } from "../protocol/events.js";
import type { ApprovalQuestion } from "../tools/types.js";
import { PendingRequests } from "./pending-requests.js";

/** Default bound for a human to answer (config `approval_timeout_ms`). */
export const DEFAULT_APPROVAL_TIMEOUT_MS = 120_000;

const DECISIONS = new Set<string>(["approved", "approved_for_session", "denied", "abort"]);

export class PendingApprovals {
  private readonly pending = new PendingRequests<ReviewDecision>();

  constructor(
    private readonly emit: (event: Event) => void,
    private readonly timeoutMs: number = DEFAULT_APPROVAL_TIMEOUT_MS,
  ) {}

  /** Emit the request event for `question` and wait for its answer (bounded, never rejects). */
  request(question: ApprovalQuestion, turnId: string, signal: AbortSignal): Promise<ReviewDecision> {
    const id = question.callId;
    return this.pending.wait({
      id,
      // MCP calls' and network questions are answered as a command's (the same event and op).
      kind: question.kind === "patch" ? "patch" : "exec",
      signal,
      timeoutMs: this.timeoutMs,
      announce: () => this.emit(requestEvent(question, turnId)),
      onTimeout: () => {
        this.emit({
          type: "warning",
          message: `approval request ${id} got no answer within ${this.timeoutMs} ms; treated as denied`,
        });
        return "denied";
      },
      onAbort: () => "abort",
    });
  }

  /** The kind of the open question `id`, if any. */
  kindOf(id: string): "exec" | "patch" | undefined {
    const kind = this.pending.kindOf(id);
    return kind === "exec" || kind === "patch" ? kind : undefined;
  }

  /**
   * Answer question `id`. False when there is no such open question of that kind. A decision
   * that is not one of ReviewDecision's counts as denied (as Codex treats unknown answers).
   */
  answer(kind: "exec" | "patch", id: string, decision: string): boolean {
    return this.pending.answer(kind, id, DECISIONS.has(decision) ? (decision as ReviewDecision) : "denied");
  }
}

function requestEvent(question: ApprovalQuestion, turnId: string): Event {
  if (question.kind === "mcp") {
    const invocation = { server: question.server, tool: question.tool, arguments: question.arguments };
    return {
      type: "exec_approval_request",
      call_id: question.callId,
      turn_id: turnId,
      command: ["mcp", question.server, question.tool, JSON.stringify(question.arguments ?? {})],
      cwd: question.cwd,
      reason: question.reason,
      mcp_tool_call: invocation,
    };
  }
  if (question.kind === "exec" || question.kind === "network") {
    return {
      type: "exec_approval_request",
      call_id: question.callId,
      turn_id: turnId,
      command: question.command,
      cwd: question.cwd,
      reason: question.reason,
      // A network question is a command's, with the host it wants to reach.
      ...(question.kind === "network"
        ? { network_approval_context: { host: question.host, protocol: question.protocol } }
        : {}),
    };
  }
  return {
    type: "apply_patch_approval_request",
    call_id: question.callId,
    turn_id: turnId,
    changes: question.changes,
    reason: question.reason,
    grant_root: question.grantRoot,
  };
}
