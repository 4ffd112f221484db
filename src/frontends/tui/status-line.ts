/**
 * The status line under the composer: model (and the reasoning effort asked for), sandbox, approval policy, the context window left
 * (from the server's `thread/tokenUsage/updated`) and the running turn's elapsed time.
 */
import { visibleLine } from "../common/terminal-text.js";
import { type Style, wrapLine } from "./style.js";

/**
 * Tokens every request carries whatever the conversation (instructions, tools): Codex leaves
 * them out of both sides, so an empty conversation shows 100% left.
 */
const BASELINE_TOKENS = 12_000;

/** The `tokenUsage` of a `thread/tokenUsage/updated` notification (the fields used here). */
export interface TokenUsageView {
  last: { totalTokens: number } | null;
  /** The thread's running total (the exit summary's `Token usage:` line). */
  total?: { totalTokens: number; inputTokens: number; outputTokens: number } | null;
  modelContextWindow: number | null;
}

/** Percent of the context window left after the last request, as Codex computes it; null if unknown. */
export function contextLeftPercent(usage: TokenUsageView | null): number | null {
  const window = usage?.modelContextWindow;
  const used = usage?.last?.totalTokens;
  if (!window || used === undefined) return null;
  if (window <= BASELINE_TOKENS) return 0;
  const effective = window - BASELINE_TOKENS;
  const remaining = effective - Math.max(0, used - BASELINE_TOKENS);
  return Math.round(Math.min(100, Math.max(0, (remaining / effective) * 100)));
}

export interface StatusView {
  /** `effort`: the reasoning effort asked for; null: the model's default (not shown). */
  thread: { model: string; effort?: string | null; sandbox: string; approvalPolicy: string } | null;
  usage: TokenUsageView | null;
  /** When the running turn started (ms), or null when no turn runs. */
  turnStartedAt: number | null;
}

export function statusRow(view: StatusView, style: Style, width: number): string {
  const t = view.thread;
  const model = t?.effort ? `${t.model} ${t.effort}` : t?.model;
  // The model name and the settings come from the server: shown visibly, on this one row.
  const parts = t
    ? [model, `sandbox ${t.sandbox}`, `approval ${t.approvalPolicy}`].map((part) => visibleLine(part ?? ""))
    : ["connecting"];
  const left = contextLeftPercent(view.usage);
  if (left !== null) parts.push(`${left}% context left`);
  if (view.turnStartedAt !== null) {
    const seconds = Math.floor((Date.now() - view.turnStartedAt) / 1000);
    parts.push(style.yellow(`working ${seconds}s`));
  }
  return wrapLine(style.dim(parts.join(" · ")), width)[0] ?? "";
}
