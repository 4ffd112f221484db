/**
 * The reviewer's answer, validated against Codex's output contract. Only a well-formed object
 * with a known `outcome` counts; anything else is a failed review (fail closed).
 */
import { z } from "zod";
import type { ReviewAssessment } from "../../protocol/auto-review.js";

const AnswerSchema = z.object({
  outcome: z.enum(["allow", "deny"]),
  risk_level: z.enum(["low", "medium", "high", "critical"]).optional(),
  user_authorization: z.enum(["unknown", "low", "medium", "high"]).optional(),
  rationale: z.string().optional(),
});

export type VerdictResult = { ok: true; assessment: ReviewAssessment } | { ok: false; error: string };

/**
 * Parses the reviewer's final message. `{"outcome":"allow"}` alone is a low-risk allow. One
 * Markdown code fence around the whole object is tolerated (models without structured output
 * add it); prose around the JSON is not.
 */
export function parseVerdict(text: string): VerdictResult {
  const body = unfence(text.trim());
  if (body === "") return { ok: false, error: "the reviewer gave no answer" };
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return { ok: false, error: "the reviewer's answer was not valid JSON" };
  }
  const parsed = AnswerSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? `${issue.path.join(".")}: ` : "";
    return {
      ok: false,
      error: `the reviewer's answer did not match the contract (${where}${issue?.message ?? "invalid"})`,
    };
  }
  const answer = parsed.data;
  const shortAllow = answer.outcome === "allow" && answer.risk_level === undefined;
  return {
    ok: true,
    assessment: {
      outcome: answer.outcome,
      riskLevel: answer.risk_level ?? (shortAllow ? "low" : null),
      userAuthorization: answer.user_authorization ?? null,
      rationale: answer.rationale ?? null,
    },
  };
}

function unfence(text: string): string {
  const fenced = /^```(?:json)?\s*\n([\s\S]*?)\n?```$/.exec(text);
  return fenced ? (fenced[1] ?? "").trim() : text;
}
