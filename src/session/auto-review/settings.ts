/**
 * What the reviewer is configured with (`[auto_review]`), and the defaults that fill it in from
 * the session: the reviewer runs on any OpenAI-compatible provider, on either wire, because it is
 * just one structured-output request through the project's model client.
 */
import { type AutoReviewConfig, DEFAULT_REVIEW_TIMEOUT_MS } from "../../config/auto-review.js";
import type { ProviderInfo } from "../../model/types.js";

export { DEFAULT_REVIEW_TIMEOUT_MS };
/** Reviewing one action is a narrow judgement: low effort, as Codex asks of its reviewer. */
export const DEFAULT_REVIEW_REASONING_EFFORT = "low";

export interface ReviewerSettings {
  /** `[auto_review] model`; default: the session's model. */
  model: string;
  /** `[auto_review] model_provider`, resolved; default: the session's provider. */
  provider: ProviderInfo;
  /** Sent only when the model takes reasoning; default "low". */
  reasoningEffort?: string;
  /** `[auto_review] timeout_ms`: the whole review, retries included; default 90 000. */
  timeoutMs: number;
  /** `[auto_review] policy`: replaces the default tenant policy text verbatim; null keeps ours. */
  policy: string | null;
  /** The parent session's originator header (default "tscodex"), so reviews are attributed alike. */
  originator?: string;
}

/** The reviewer's settings: `[auto_review]` where given, else the session's model and provider. */
export function reviewerSettings(
  session: { model: string; provider: ProviderInfo; originator?: string },
  config: Partial<
    Pick<AutoReviewConfig, "model" | "provider" | "reasoningEffort" | "timeoutMs" | "policy">
  > = {},
): ReviewerSettings {
  const policy = config.policy?.trim() ? config.policy : null;
  return {
    model: config.model ?? session.model,
    provider: config.provider ?? session.provider,
    ...(config.reasoningEffort ? { reasoningEffort: config.reasoningEffort } : {}),
    timeoutMs: config.timeoutMs ?? DEFAULT_REVIEW_TIMEOUT_MS,
    policy,
    ...(session.originator ? { originator: session.originator } : {}),
  };
}
