/**
 * A thread's open approval questions: each is an event carrying the call id; the front-end
 * answers with an `exec_approval` / `patch_approval` op. Every wait is bounded: no answer within
 * the timeout counts as "denied" (announced with a warning event), an interrupted turn as
 * "abort". Nothing waits forever.
 */
import type { Event, ReviewDecision } from "../protocol/events.js";
import type { ApprovalQuestion } from "../tools/types.js";

/** Default bound for a human to answer (config `approval_timeout_ms`). */
export const DEFAULT_APPROVAL_TIMEOUT_MS = 120_000;

const DECISIONS = new Set<string>(["approved", "approved_for_session", "denied", "abort"]);

interface Waiting {
  kind: ApprovalQuestion["kind"];
  finish(decision: ReviewDecision): void;
}

export class PendingApprovals {
  private readonly waiting = new Map<string, Waiting>();

  constructor(
    private readonly emit: (event: Event) => void,
    private readonly timeoutMs: number = DEFAULT_APPROVAL_TIMEOUT_MS,
  ) {}

  /** Emit the request event for `question` and wait for its answer (bounded, never rejects). */
  request(question: ApprovalQuestion, turnId: string, signal: AbortSignal): Promise<ReviewDecision> {
    if (signal.aborted) return Promise.resolve("abort");
    const id = question.callId;
    // One question per call at a time; a stale one (should not happen) is closed as denied.
    this.waiting.get(id)?.finish("denied");
    return new Promise((resolve) => {
      const finish = (decision: ReviewDecision): void => {
        clearTimeout(timer);
        signal.removeEventListener("abort", onAbort);
        if (this.waiting.get(id) === entry) this.waiting.delete(id);
        resolve(decision);
      };
      const onAbort = (): void => finish("abort");
      // Not unref'd: a turn waiting for an answer must keep the process alive until the bound.
      const timer = setTimeout(() => {
        this.emit({
          type: "warning",
          message: `approval request ${id} got no answer within ${this.timeoutMs} ms; treated as denied`,
        });
        finish("denied");
      }, this.timeoutMs);
      signal.addEventListener("abort", onAbort, { once: true });
      const entry: Waiting = { kind: question.kind, finish };
      this.waiting.set(id, entry);
      // Registered first: a listener may answer synchronously from inside emit.
      this.emit(requestEvent(question, turnId));
    });
  }

  /** The kind of the open question `id`, if any. */
  kindOf(id: string): ApprovalQuestion["kind"] | undefined {
    return this.waiting.get(id)?.kind;
  }

  /**
   * Answer question `id`. False when there is no such open question of that kind. A decision
   * that is not one of ReviewDecision's counts as denied (as Codex treats unknown answers).
   */
  answer(kind: ApprovalQuestion["kind"], id: string, decision: string): boolean {
    const entry = this.waiting.get(id);
    if (!entry || entry.kind !== kind) return false;
    entry.finish(DECISIONS.has(decision) ? (decision as ReviewDecision) : "denied");
    return true;
  }
}

function requestEvent(question: ApprovalQuestion, turnId: string): Event {
  if (question.kind === "exec") {
    return {
      type: "exec_approval_request",
      call_id: question.callId,
      turn_id: turnId,
      command: question.command,
      cwd: question.cwd,
      reason: question.reason,
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
