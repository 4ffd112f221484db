import type { ApprovalRequestEvent, Event, ReviewDecision } from "../../protocol/events.js";
import type { TurnResult } from "../../session/thread.js";

export interface RunInfo {
  threadId: string;
  model: string;
  provider: string;
  cwd: string;
  approvalPolicy: string;
  sandboxMode: string;
  prompt: string;
}

/** How `tscodex exec` shows a run: human text on stderr or JSON lines on stdout. */
export type { ApprovalRequestEvent };

export interface ExecRenderer {
  start(info: RunInfo): void;
  event(event: Event): void;
  /** An approval question and the decision exec answered it with. */
  approval(request: ApprovalRequestEvent, decision: ReviewDecision): void;
  finish(result: TurnResult): void;
}
