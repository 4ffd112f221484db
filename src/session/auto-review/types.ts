/** The reviewer's contract with the approval path. */
import type { ReviewOutcome } from "../../protocol/auto-review.js";
import type { ResponseItem } from "../../protocol/items.js";
import type { ApprovalQuestion } from "../../tools/types.js";

export interface ReviewInput {
  parentThreadId: string;
  cwd: string;
  /** The main thread's history; the reviewer reads a compact, trust-labelled copy of it. */
  history: readonly ResponseItem[];
  question: ApprovalQuestion;
  /**
   * Earlier reviews of this thread, oldest first: context, not precedent (an explicit user
   * re-approval after a denial may allow).
   */
  priorReviews?: readonly PriorReview[];
  /** Aborted when the turn is interrupted: the review ends `aborted`. */
  signal: AbortSignal;
}

/**
 * Contract: `review` makes one model request and resolves with a validated verdict; it never
 * rejects. Anything short of a valid `allow` is not an approval (it fails closed).
 */
export interface ApprovalReviewer {
  review(input: ReviewInput): Promise<ReviewOutcome>;
}

/** One earlier review of the thread: context for the next, not precedent. */
export interface PriorReview {
  question: ApprovalQuestion;
  outcome: ReviewOutcome;
}
