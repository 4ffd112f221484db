/**
 * A thread's open `request_user_input` questions: announced by a `request_user_input` event,
 * answered by `answerUserInput(callId, reply)`: the answers, "declined", or `null` when the
 * front-end cannot ask anybody (the tool then says so, as Codex's exec does). Bounded: no answer in time counts as no answer.
 */
import type { UserInputOutcome, UserInputReply, UserQuestion } from "../protocol/agents.js";
import type { Event } from "../protocol/events.js";
import { PendingRequests } from "./pending-requests.js";

/** Default bound for a person to answer (config `approval_timeout_ms` bounds it too). */
export const DEFAULT_USER_INPUT_TIMEOUT_MS = 120_000;

const KIND = "user_input";

export class PendingUserInput {
  private readonly pending = new PendingRequests<UserInputOutcome>();

  constructor(
    private readonly emit: (event: Event) => void,
    private readonly timeoutMs: number = DEFAULT_USER_INPUT_TIMEOUT_MS,
  ) {}

  ask(
    callId: string,
    questions: UserQuestion[],
    turnId: string,
    signal: AbortSignal,
  ): Promise<UserInputOutcome> {
    return this.pending.wait({
      id: callId,
      kind: KIND,
      signal,
      timeoutMs: this.timeoutMs,
      announce: () => this.emit({ type: "request_user_input", call_id: callId, turn_id: turnId, questions }),
      onTimeout: () => ({ kind: "timed_out", timeoutMs: this.timeoutMs }),
      onAbort: () => ({ kind: "aborted" }),
    });
  }

  answer(callId: string, reply: UserInputReply): boolean {
    const outcome: UserInputOutcome =
      reply === null
        ? { kind: "unavailable" }
        : reply === "declined"
          ? { kind: "declined" }
          : { kind: "answered", response: reply };
    return this.pending.answer(KIND, callId, outcome);
  }
}
