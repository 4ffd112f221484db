/**
 * Automatic approval review (Codex's "guardian"): a reviewer model answers an approval question
 * in place of the user, failing closed. The approval path builds one reviewer per session with
 * `createApprovalReviewer(reviewerSettings(session, config.autoReview))` and calls `review`.
 */
export { ACTION_TOKENS, actionJson, plannedAction } from "./action.js";
export { ABORTED_MESSAGE, deniedMessage, failedMessage, timedOutMessage } from "./messages.js";
export { DEFAULT_TENANT_POLICY, reviewerInstructions } from "./policy-text.js";
export { REVIEW_OUTPUT_SCHEMA, reviewPrompt, reviewRequestText } from "./prompt.js";
export { createApprovalReviewer, type ReviewerOptions } from "./reviewer.js";
export {
  DEFAULT_REVIEW_REASONING_EFFORT,
  DEFAULT_REVIEW_TIMEOUT_MS,
  type ReviewerSettings,
  reviewerSettings,
} from "./settings.js";
export { compactTranscript, type TranscriptEntry, transcriptEntries } from "./transcript.js";
export type { ApprovalReviewer, PriorReview, ReviewInput } from "./types.js";
export { parseVerdict, type VerdictResult } from "./verdict.js";
