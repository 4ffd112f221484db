/**
 * A thread's open questions: approvals, client tool calls, questions to the user and MCP
 * elicitations, each bounded; and the routes that carry answers to the sub-agents whose
 * questions the thread forwarded. The Thread asks through `forTurn` and hands every answering
 * op to `answer`; an answer nobody waits for becomes a warning event, never a throw.
 */
import type { ElicitationResult, Event, ReviewDecision } from "../protocol/events.js";
import type { ApprovalCategory, GranularApproval } from "../protocol/granular-approval.js";
import type { ApprovalQuestion, TurnContext } from "../tools/types.js";
import type { ReviewedApprovals } from "./approval-review.js";
import { PendingApprovals } from "./approvals.js";
import { PendingClientCalls } from "./client-calls.js";
import { PendingElicitations } from "./elicitations.js";
import type { AnswerRoute, ForwardedAnswer, Op } from "./ops.js";
import type { ThreadServices } from "./services.js";
import { PendingUserInput } from "./user-input.js";

/** The ops that answer a question. */
export type AnswerOp = Extract<
  Op,
  {
    type:
      | "exec_approval"
      | "patch_approval"
      | "client_tool_response"
      | "user_input_answer"
      | "elicitation_answer";
  }
>;

/** How a turn asks (the TurnContext's question functions). */
type TurnQuestions = Pick<
  TurnContext,
  "requestApproval" | "approvalNote" | "callClientTool" | "requestUserInput" | "requestElicitation"
>;

export class ThreadQuestions {
  private readonly approvals: PendingApprovals;
  private readonly clientCalls: PendingClientCalls;
  private readonly userInput: PendingUserInput;
  private readonly elicitations: PendingElicitations;
  private readonly routes: AnswerRoute[] = [];
  /** Automatic approval review, when the thread has a reviewer. */
  private reviewed: ReviewedApprovals | null = null;

  /** Why the granular policy declined a call, by call id (what the model reads). */
  private readonly declined = new Map<string, string>();

  /**
   * `onAbort`: an approval answered "abort" ends the running turn, as an interrupt does.
   * `granular`: the granular approval policy in force (its false categories are declined at once).
   */
  constructor(
    private readonly emit: (event: Event) => void,
    services: Pick<ThreadServices, "approvalTimeoutMs" | "clientToolTimeoutMs">,
    private readonly onAbort: () => void,
    private readonly granular: () => GranularApproval | null = () => null,
  ) {
    this.approvals = new PendingApprovals(emit, services.approvalTimeoutMs);
    this.clientCalls = new PendingClientCalls(emit, services.clientToolTimeoutMs);
    this.userInput = new PendingUserInput(emit, services.approvalTimeoutMs);
    this.elicitations = new PendingElicitations(emit, services.approvalTimeoutMs);
  }

  /** The question functions of turn `turnId`; each ends with `signal`. */
  forTurn(turnId: string, signal: AbortSignal): TurnQuestions {
    return {
      requestApproval: async (question) => {
        const category = categoryOf(question);
        if (this.granular()?.[category] === false) {
          this.declined.set(question.callId, declinedMessage(category));
          return "denied";
        }
        const ask = (asked: ApprovalQuestion) => this.approvals.request(asked, turnId, signal);
        return this.reviewed ? this.reviewed.request(question, turnId, signal, ask) : ask(question);
      },
      approvalNote: (callId) => this.takeDeclined(callId) ?? this.reviewed?.takeNote(callId),
      callClientTool: (call) => this.clientCalls.call(call, turnId, signal),
      requestUserInput: (callId, questions) => this.userInput.ask(callId, questions, turnId, signal),
      requestElicitation: (server, request) =>
        this.granular()?.mcp_elicitations === false
          ? Promise.resolve({ action: "decline" })
          : this.elicitations.ask(server, request, turnId, signal),
    };
  }

  /** Questions go to `reviewed`'s reviewer before a person (approvals_reviewer = "auto_review"). */
  useReviewer(reviewed: ReviewedApprovals): void {
    this.reviewed = reviewed;
  }

  /** The granular policy's reason for declining `callId`, read once. */
  private takeDeclined(callId: string): string | undefined {
    const note = this.declined.get(callId);
    this.declined.delete(callId);
    return note;
  }

  /** A person approves what review `reviewId` denied (false: no such denial, or no reviewer). */
  overrideReview(reviewId: string): boolean {
    return this.reviewed?.override(reviewId) ?? false;
  }

  /** The kind of open approval `id`, if one is open. */
  approvalKind(id: string): "exec" | "patch" | undefined {
    return this.approvals.kindOf(id);
  }

  /** Whether client tool call `callId` waits for its result. */
  waitsForTool(callId: string): boolean {
    return this.clientCalls.has(callId);
  }

  answer(op: AnswerOp): void {
    switch (op.type) {
      case "exec_approval":
      case "patch_approval":
        if (op.agent_id !== undefined) this.forward(op.agent_id, op.id, { approval: op.decision });
        else this.answerApproval(op.type === "exec_approval" ? "exec" : "patch", op.id, op.decision);
        return;
      case "client_tool_response":
        if (!this.clientCalls.respond(op.id, op.result))
          this.emit({ type: "warning", message: `no open client tool call with id ${op.id}` });
        return;
      case "user_input_answer":
        if (op.agent_id !== undefined) this.forward(op.agent_id, op.id, { userInput: op.response });
        else if (!this.userInput.answer(op.id, op.response))
          this.emit({ type: "warning", message: `no open request_user_input with id ${op.id}` });
        return;
      case "elicitation_answer":
        this.answerElicitation(op.id, op.result);
        return;
    }
  }

  /** Answer sub-agent `agentId` (a child's or a descendant's question); false when none knows it. */
  routeAnswer(agentId: string, callId: string, answer: ForwardedAnswer): boolean {
    return this.routes.some((route) => route(agentId, callId, answer));
  }

  /** Route answers to questions the thread forwarded for its sub-agents (see AnswerRoute). */
  addRoute(route: AnswerRoute): void {
    this.routes.push(route);
  }

  private answerElicitation(id: string, result: ElicitationResult): void {
    if (!this.elicitations.answer(id, result))
      this.emit({ type: "warning", message: `no open elicitation with id ${id}` });
  }

  private forward(agentId: string, callId: string, answer: ForwardedAnswer): void {
    if (!this.routeAnswer(agentId, callId, answer))
      this.emit({ type: "warning", message: `no sub-agent ${agentId} waits for an answer to ${callId}` });
  }

  private answerApproval(kind: "exec" | "patch", id: string, decision: ReviewDecision): void {
    if (!this.approvals.answer(kind, id, decision)) {
      this.emit({ type: "warning", message: `no open ${kind} approval request with id ${id}` });
      return;
    }
    if (decision === "abort") this.onAbort();
  }
}

/** The granular policy's category of a question. */
function categoryOf(question: ApprovalQuestion): ApprovalCategory {
  if (question.kind === "mcp") return "mcp_elicitations";
  if (question.kind === "exec" && question.rule) return "rules";
  return "sandbox_approval";
}

/** What the model reads for a call the granular policy declined without asking. */
function declinedMessage(category: ApprovalCategory): string {
  return `declined by the approval policy: ${category} = false (approval_policy.granular) declines such requests without asking; do it without escalating, or stop and tell the user`;
}
