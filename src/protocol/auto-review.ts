/**
 * Automatic approval review (Codex's `approvals_reviewer = "auto_review"`, its "guardian"): a
 * reviewer model judges a question that would otherwise go to a person, failing closed. These are
 * the values the core, the reviewer (session/auto-review/) and the front-ends share: the
 * reviewer's verdict in Codex 0.171's output contract, and how a review ended.
 */

export type ApprovalsReviewer = "user" | "auto_review";

export type ReviewRiskLevel = "low" | "medium" | "high" | "critical";
export type ReviewUserAuthorization = "unknown" | "low" | "medium" | "high";

/** The reviewer's answer, validated (Codex 0.171: `{"outcome":"allow"}` alone for low risk). */
export interface ReviewAssessment {
  outcome: "allow" | "deny";
  riskLevel: ReviewRiskLevel | null;
  userAuthorization: ReviewUserAuthorization | null;
  rationale: string | null;
}

/** How a review ended (Codex's `review.status`, plus `failed` for an answer that was not one). */
export type ReviewStatus = "approved" | "denied" | "failed" | "timedOut" | "aborted";

export interface ReviewOutcome {
  status: ReviewStatus;
  /** The reviewer's verdict; null when it gave none (failed, timed out, aborted). */
  assessment: ReviewAssessment | null;
  /**
   * What the main model reads instead of the action's result when it was not approved: the
   * rejection with the reviewer's reason and what to do next, or why the review failed (never a
   * safety judgement). Null when approved.
   */
  message: string | null;
}

/** What a review judges: the action a question would allow, as the reviewer and the clients see it. */
export type ReviewedAction =
  | { kind: "exec"; command: string[]; cwd: string; justification: string | null }
  | { kind: "patch"; cwd: string; files: string[]; justification: string | null }
  | { kind: "network"; host: string; protocol: string; command: string[]; cwd: string }
  | { kind: "mcp"; server: string; tool: string; arguments: Record<string, unknown> | null };

/** When the reviewer stops a turn: N denials in a row, or M among the last K reviews. */
export interface ReviewBreaker {
  maxConsecutiveDenials: number;
  maxDenialsInWindow: number;
  window: number;
}

export const DEFAULT_REVIEW_BREAKER: ReviewBreaker = {
  maxConsecutiveDenials: 3,
  maxDenialsInWindow: 10,
  window: 50,
};
