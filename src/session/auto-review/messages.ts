/**
 * What the main model reads when a review did not approve its action: why, and what to do next.
 * Failures and timeouts say plainly that they are not safety judgements, so the agent neither
 * treats the action as dangerous nor tries to slip it past the review.
 */
import type { ReviewAssessment } from "../../protocol/auto-review.js";

export function deniedMessage(assessment: ReviewAssessment): string {
  const reason = assessment.rationale?.trim() || "the reviewer gave no reason";
  return [
    "This action was rejected by automatic approval review: its risk was judged unacceptable.",
    `Reason: ${reason}`,
    "Do not try to work around this rejection (for example by running the same thing another way). " +
      "Go on only with a materially safer alternative, or if the user explicitly approves this action; " +
      "otherwise stop and ask the user how to proceed.",
  ].join("\n");
}

export function failedMessage(detail: string): string {
  return [
    `Automatic approval review failed: ${detail}`,
    "The review could not be completed; this is not a judgement that the action is unsafe, and the action did not run. " +
      "Do not try to get around the review. Fix the action if something about it was wrong, or ask the user how to proceed.",
  ].join("\n");
}

export function timedOutMessage(timeoutMs: number): string {
  return [
    `Automatic approval review did not finish within ${formatSeconds(timeoutMs)}, so the action did not run.`,
    "This is not a judgement that the action is unsafe. You may retry the action once; if the review times out again, ask the user.",
  ].join("\n");
}

export const ABORTED_MESSAGE =
  "Automatic approval review was cancelled before it finished; the action did not run.";

function formatSeconds(ms: number): string {
  const seconds = ms / 1000;
  return `${Number.isInteger(seconds) ? seconds : seconds.toFixed(1)} s`;
}
