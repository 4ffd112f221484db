/**
 * Automatic approval review in the approval path: a question that would ask a person goes to the
 * reviewer first (PermissionRequest hooks have already had their say: a hook's decision never
 * reaches here). Approved: it runs. Not approved: the model reads the reviewer's reason (or why
 * the review failed) as the call's rejection; where a person is attached and denials escalate,
 * the person is asked instead and their answer is final. A breaker fails the turn after too many
 * denials. A review never widens anything: it answers only what policy would have asked.
 */
import type { ReviewBreaker, ReviewedAction, ReviewOutcome } from "../protocol/auto-review.js";
import type { Event, ReviewDecision } from "../protocol/events.js";
import type { ResponseItem } from "../protocol/items.js";
import type { ApprovalQuestion } from "../tools/types.js";

/** The reviewer engine (session/auto-review/): one verdict per question, failing closed. */
export interface ApprovalReviewer {
  review(input: {
    parentThreadId: string;
    cwd: string;
    history: readonly ResponseItem[];
    question: ApprovalQuestion;
    /** This thread's earlier reviews: context for the reviewer, not precedent. */
    priorReviews?: readonly { question: ApprovalQuestion; outcome: ReviewOutcome }[];
    signal: AbortSignal;
  }): Promise<ReviewOutcome>;
}

/**
 * A thread's automatic review (ThreadServices.autoReview): how to make its reviewer (loaded on the
 * first review, so a thread that never reviews loads none of it) and its bounds.
 */
export interface AutoReview {
  reviewer: () => Promise<ApprovalReviewer>;
  breaker: ReviewBreaker;
  /**
   * A denial (or failed review) goes to the person instead of ending there: `[auto_review]
   * escalate_denials`, and a person is attached to the thread (CreateThreadOptions.personAttached).
   */
  escalateDenials: boolean;
}

export interface ReviewHost {
  threadId: string;
  /** Whether the thread's settings send questions to the reviewer now (approvals_reviewer). */
  enabled(): boolean;
  cwd(): string;
  history(): readonly ResponseItem[];
  emit(event: Event): void;
  /** End the running turn with `message` (the breaker). */
  failTurn(message: string): void;
}

/** How many earlier reviews the reviewer sees. */
const PRIOR_REVIEWS = 10;

export class ReviewedApprovals {
  private consecutive = 0;
  /** The last `breaker.window` reviews, true for a denial. */
  private readonly recent: boolean[] = [];
  private reviews = 0;
  /** What the model reads for a call the reviewer did not approve. */
  private readonly notes = new Map<string, string>();
  /** The action of each review the reviewer turned down, by review id (for a person's override). */
  private readonly denied = new Map<string, string>();
  /** Actions a person approved after a denial: their next request runs without review. */
  private readonly overridden = new Set<string>();
  private reviewer: Promise<ApprovalReviewer> | null = null;
  /** The last reviews, for the next one's context. */
  private readonly prior: { question: ApprovalQuestion; outcome: ReviewOutcome }[] = [];

  constructor(
    private readonly review: AutoReview,
    private readonly host: ReviewHost,
  ) {}

  /** The rejection text for `callId`, when a review (not a person) turned it down; read once. */
  takeNote(callId: string): string | undefined {
    const note = this.notes.get(callId);
    this.notes.delete(callId);
    return note;
  }

  /**
   * A person approves the action review `reviewId` denied (app-server
   * `thread/approveGuardianDeniedAction`): its next request runs without review. False when no
   * such denial is known.
   */
  override(reviewId: string): boolean {
    const key = this.denied.get(reviewId);
    if (key === undefined) return false;
    this.overridden.add(key);
    return true;
  }

  async request(
    question: ApprovalQuestion,
    turnId: string,
    signal: AbortSignal,
    askPerson: (question: ApprovalQuestion) => Promise<ReviewDecision>,
  ): Promise<ReviewDecision> {
    if (!this.host.enabled()) return askPerson(question);
    const reviewId = `review-${++this.reviews}`;
    const action = reviewedAction(question, this.host.cwd());
    const key = JSON.stringify(action);
    const base = { review_id: reviewId, turn_id: turnId, call_id: question.callId, action };
    // The user's explicit approval of what the reviewer denied is final (openai/codex#43660).
    if (this.overridden.delete(key)) {
      const outcome = {
        status: "approved" as const,
        assessment: null,
        message: null,
      };
      this.host.emit({ type: "auto_review_started", ...base });
      this.host.emit({ type: "auto_review_completed", ...base, outcome });
      return "approved";
    }
    this.host.emit({ type: "auto_review_started", ...base });
    this.reviewer ??= this.review.reviewer();
    const outcome = await (await this.reviewer).review({
      parentThreadId: this.host.threadId,
      cwd: this.host.cwd(),
      history: this.host.history(),
      question,
      priorReviews: [...this.prior],
      signal,
    });
    this.prior.push({ question, outcome });
    if (this.prior.length > PRIOR_REVIEWS) this.prior.shift();
    this.host.emit({ type: "auto_review_completed", ...base, outcome });
    if (outcome.status === "aborted" || signal.aborted) return "abort";
    if (outcome.status === "approved") {
      this.count(false);
      return "approved";
    }
    this.denied.set(reviewId, key);
    // Only recent denials can be overridden: the map stays small however long the thread lives.
    if (this.denied.size > PRIOR_REVIEWS * 10) this.denied.delete(this.denied.keys().next().value ?? "");
    const tripped = this.count(true);
    if (tripped) {
      this.host.failTurn(tripped);
      return "abort";
    }
    // A person's explicit answer is final, whatever the reviewer said.
    if (this.review.escalateDenials) return askPerson(question);
    if (outcome.message) this.notes.set(question.callId, outcome.message);
    return "denied";
  }

  /** Records one review; the breaker's message when it trips (Codex's wording of the counts). */
  private count(denied: boolean): string | null {
    const { breaker } = this.review;
    this.consecutive = denied ? this.consecutive + 1 : 0;
    this.recent.push(denied);
    if (this.recent.length > breaker.window) this.recent.shift();
    const inWindow = this.recent.filter(Boolean).length;
    if (this.consecutive < breaker.maxConsecutiveDenials && inWindow < breaker.maxDenialsInWindow)
      return null;
    const message = `Automatic approval review rejected too many approval requests for this turn (${this.consecutive} consecutive, ${inWindow} in the last ${this.recent.length} reviews); ask the user how to go on`;
    this.consecutive = 0;
    this.recent.length = 0;
    return message;
  }
}

/** The action a question would allow, as the reviewer and the clients see it. */
export function reviewedAction(question: ApprovalQuestion, cwd: string): ReviewedAction {
  switch (question.kind) {
    case "exec":
      return { kind: "exec", command: question.command, cwd: question.cwd, justification: question.reason };
    case "patch":
      return { kind: "patch", cwd, files: Object.keys(question.changes), justification: question.reason };
    case "network":
      return {
        kind: "network",
        host: question.host,
        protocol: question.protocol,
        command: question.command,
        cwd: question.cwd,
      };
    case "mcp":
      return { kind: "mcp", server: question.server, tool: question.tool, arguments: question.arguments };
  }
}
