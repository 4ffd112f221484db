/** `[auto_review]` read into what the reviewer runs with (session/auto-review/, session/approval-review.ts). */
import type { ProviderInfo } from "../model/types.js";
import { DEFAULT_REVIEW_BREAKER, type ReviewBreaker } from "../protocol/auto-review.js";

/** Codex's reviewer timeout. */
export const DEFAULT_REVIEW_TIMEOUT_MS = 90_000;

export interface AutoReviewConfig {
  /** Tenant policy text replacing the default one; null: the default. */
  policy: string | null;
  /** The reviewer's model; absent: the session's. */
  model?: string;
  /** The reviewer's provider, resolved; absent: the session's. */
  provider?: ProviderInfo;
  reasoningEffort?: string;
  timeoutMs: number;
  escalateDenials: boolean;
  breaker: ReviewBreaker;
}

interface AutoReviewTable {
  policy?: string | undefined;
  model?: string | undefined;
  model_provider?: string | undefined;
  reasoning_effort?: string | undefined;
  timeout_ms?: number | undefined;
  escalate_denials?: boolean | undefined;
  max_consecutive_denials?: number | undefined;
  max_denials?: number | undefined;
  denial_window?: number | undefined;
}

export function autoReviewConfig(
  table: AutoReviewTable | undefined,
  provider: (id: string) => ProviderInfo,
): AutoReviewConfig {
  const config: AutoReviewConfig = {
    policy: table?.policy ?? null,
    timeoutMs: table?.timeout_ms ?? DEFAULT_REVIEW_TIMEOUT_MS,
    escalateDenials: table?.escalate_denials ?? true,
    breaker: {
      maxConsecutiveDenials: table?.max_consecutive_denials ?? DEFAULT_REVIEW_BREAKER.maxConsecutiveDenials,
      maxDenialsInWindow: table?.max_denials ?? DEFAULT_REVIEW_BREAKER.maxDenialsInWindow,
      window: table?.denial_window ?? DEFAULT_REVIEW_BREAKER.window,
    },
  };
  if (table?.model) config.model = table.model;
  if (table?.model_provider) config.provider = provider(table.model_provider);
  if (table?.reasoning_effort) config.reasoningEffort = table.reasoning_effort;
  return config;
}
