/**
 * One compaction of a thread's history (manual `compact` op or auto-compaction mid-turn):
 * PreCompact may stop it, the model summarises, the history is replaced in place (the turn
 * loop reads the same array), `context_compacted` announces it, then PostCompact runs.
 */
import type { Event } from "../protocol/events.js";
import { emptyUsage } from "../protocol/items.js";
import { errorMessage } from "../util/errors.js";
import { compactedHistory, loadCompactPrompt, summarize } from "./compact.js";
import type { History } from "./history.js";
import type { HookPoints } from "./hook-points.js";
import type { ThreadServices } from "./services.js";

export interface CompactionSubject {
  log: History;
  hooks: HookPoints | null;
  services: Pick<ThreadServices, "client" | "baseInstructions" | "compaction">;
  emit(event: Event): void;
}

/** Compact `subject`'s history; false when a PreCompact hook stopped it. Model failures throw. */
export async function compactThreadHistory(
  subject: CompactionSubject,
  turnId: string,
  trigger: "manual" | "auto",
  signal?: AbortSignal,
): Promise<boolean> {
  const { log, hooks, services, emit } = subject;
  if (hooks?.has("PreCompact")) {
    const outcome = await hooks.run("PreCompact", hooks.compact(turnId, trigger), signal);
    if (outcome.stop) {
      emit({ type: "warning", message: outcome.stop.reason ?? "compaction stopped by PreCompact hook" });
      return false;
    }
  }
  emit({ type: "context_compaction_started" });
  const prompt = services.compaction?.prompt ?? (await loadCompactPrompt());
  const summary = await summarize(services.client, services.baseInstructions, log.items, prompt, signal);
  const replacement = compactedHistory(log.items, summary);
  log.replace(replacement);
  emit({ type: "context_compacted", summary, replacement_history: replacement });
  if (hooks?.has("PostCompact")) await hooks.run("PostCompact", hooks.compact(turnId, trigger), signal);
  return true;
}

/**
 * A manual compaction (the `compact` op). With `turnId` it is a turn of its own, as Codex runs
 * it: turn_started, the compaction, then turn_complete, turn_aborted (interrupted) or
 * turn_failed. Failures are `error` events either way. Never throws.
 */
export async function runManualCompaction(
  compact: (signal: AbortSignal) => Promise<void>,
  emit: (event: Event) => void,
  turn: { turnId: string | undefined; contextWindow: number | null },
  signal: AbortSignal,
): Promise<void> {
  const { turnId } = turn;
  if (turnId) emit({ type: "turn_started", turn_id: turnId, model_context_window: turn.contextWindow });
  try {
    await compact(signal);
    if (turnId)
      emit({ type: "turn_complete", turn_id: turnId, last_agent_message: null, usage: emptyUsage() });
  } catch (error) {
    if (signal.aborted) {
      if (turnId) emit({ type: "turn_aborted", turn_id: turnId, reason: "interrupted" });
      return;
    }
    const message = `compaction failed: ${errorMessage(error)}`;
    emit({ type: "error", message });
    if (turnId) emit({ type: "turn_failed", turn_id: turnId, message });
  }
}
