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
import type { AutoCompact } from "./turn.js";

export interface CompactionSubject {
  log: History;
  hooks: HookPoints | null;
  services: Pick<ThreadServices, "client" | "baseInstructions" | "compaction" | "contextWindow">;
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

/** A thread's compactions: on request (the `compact` op) and automatic (inside a turn). */
export class ThreadCompaction {
  /** Input + output tokens of the last model response: the context size auto-compaction watches. */
  lastResponseTokens = 0;

  /** `turnId`: the turn hooks are told about (the last one started). */
  constructor(
    private readonly subject: CompactionSubject,
    private readonly turnId: () => string,
  ) {}

  /**
   * Compact now (the `compact` op); a failure becomes an `error` event unless `signal` ended it.
   * With `turnId` it is a turn of its own, as Codex runs it: turn_started, the compaction, then
   * turn_complete, turn_aborted (interrupted) or turn_failed. Never throws.
   */
  async manual(signal: AbortSignal, turnId?: string): Promise<void> {
    const { emit, services, log } = this.subject;
    if (!turnId && log.length === 0) return;
    if (turnId) emit({ type: "turn_started", turn_id: turnId, model_context_window: services.contextWindow });
    try {
      await this.compact("manual", signal, turnId);
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

  /** What the turn loop needs to compact on its own; undefined when the thread never does. */
  auto(): AutoCompact | undefined {
    const limit = this.subject.services.compaction?.autoLimit;
    if (limit == null) return undefined;
    return {
      limit,
      lastResponseTokens: this.lastResponseTokens,
      compact: (signal) => this.compact("auto", signal),
    };
  }

  private async compact(
    trigger: "manual" | "auto",
    signal: AbortSignal,
    turnId = this.turnId(),
  ): Promise<void> {
    if (await compactThreadHistory(this.subject, turnId, trigger, signal)) this.lastResponseTokens = 0;
  }
}
