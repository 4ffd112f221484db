/**
 * The one turn driver: a thread's questions (approvals, the model's questions for the user,
 * client tool calls, MCP servers' elicitations) go to the responders a front-end supplies, and the answers go back to the
 * thread with the question's `agent_id`, so a sub-agent's question is answered like the thread's
 * own. Each front-end only says how it answers: MCP elicitation, a JSON-RPC server request,
 * exec's declared outcome, a library callback.
 *
 * Contract: a responder may answer late or throw; a throw becomes the declared refusal (denied,
 * no answer, a failed tool result). A responder that returns undefined leaves the question to
 * the thread's own bound. A question without a responder is left to whoever else answers it.
 */
import type { UserInputReply } from "../../protocol/agents.js";
import { type ClientToolResult, failedClientResult } from "../../protocol/client-tools.js";
import type {
  ApprovalRequestEvent,
  ElicitationResult,
  Event,
  EventOf,
  ReviewDecision,
} from "../../protocol/events.js";
import { errorMessage } from "../../util/errors.js";

type Answer<T> = T | undefined | Promise<T | undefined>;

export interface QuestionResponders {
  approval?(request: ApprovalRequestEvent): Answer<ReviewDecision>;
  userInput?(request: EventOf<"request_user_input">): Answer<UserInputReply>;
  clientTool?(request: EventOf<"client_tool_call_request">): Answer<ClientToolResult>;
  /** An MCP server's elicitation during a tool call. */
  elicitation?(request: EventOf<"elicitation_request">): Answer<ElicitationResult>;
}

/** What the driver answers: a Thread (or anything that takes its answers the same way). */
export interface AnswerTarget {
  approve(callId: string, decision: ReviewDecision, agentId?: string): void;
  answerUserInput(callId: string, reply: UserInputReply, agentId?: string): void;
  respondToTool(callId: string, result: ClientToolResult): boolean;
  answerElicitation(id: string, result: ElicitationResult): void;
}

/**
 * A listener for a thread's events (pass it to subscribe, or call it from a turn's stream) that
 * routes each question to `responders` and answers `thread`.
 */
export function questionRouter(thread: AnswerTarget, responders: QuestionResponders): (event: Event) => void {
  return (event) => {
    switch (event.type) {
      case "exec_approval_request":
      case "apply_patch_approval_request": {
        const { approval } = responders;
        if (!approval) return;
        settle(
          () => approval(event),
          (): ReviewDecision => "denied",
          (decision) => thread.approve(event.call_id, decision, event.agent_id),
        );
        return;
      }
      case "request_user_input": {
        const { userInput } = responders;
        if (!userInput) return;
        settle(
          () => userInput(event),
          (): UserInputReply => null,
          (reply) => thread.answerUserInput(event.call_id, reply, event.agent_id),
        );
        return;
      }
      case "client_tool_call_request": {
        const { clientTool } = responders;
        if (!clientTool) return;
        settle(
          () => clientTool(event),
          (error) => failedClientResult(errorMessage(error)),
          (result) => thread.respondToTool(event.call_id, result),
        );
        return;
      }
      case "elicitation_request": {
        const { elicitation } = responders;
        if (!elicitation) return;
        settle(
          () => elicitation(event),
          (): ElicitationResult => ({ action: "decline" }),
          (result) => thread.answerElicitation(event.id, result),
        );
        return;
      }
      default:
        return;
    }
  };
}

/**
 * Run `ask`, turn a throw into `refusal`, and `answer` unless it gave undefined. A synchronous
 * answer is given at once, inside the listener (exec's declared outcome never waits).
 */
function settle<T>(ask: () => Answer<T>, refusal: (error: unknown) => T, answer: (value: T) => void): void {
  const give = (value: T | undefined): void => {
    if (value !== undefined) answer(value);
  };
  let value: Answer<T>;
  try {
    value = ask();
  } catch (error) {
    give(refusal(error));
    return;
  }
  if (value instanceof Promise) void value.catch(refusal).then(give);
  else give(value);
}
