/**
 * The turn diff a TurnContext carries, with the diff engine (turn-diff.ts, its line matching and
 * the `diff` package: ~40 KB of a one-turn exec's code) loaded at the turn's first recorded
 * patch: a turn without apply_patch never parses it (issue 26: start-up RSS).
 */
import type { PatchPlan } from "./plan.js";
import type { TurnDiffTracker } from "./turn-diff.js";

/** What a turn needs of its diff: TurnDiffTracker's interface. */
export interface TurnDiff {
  /** Record a committed plan. Call once per successful patch, after it was written. */
  record(plan: PatchPlan): Promise<void>;
  /** The whole turn's diff; "" when nothing differs from turn start. */
  unifiedDiff(): string;
}

export class LazyTurnDiff implements TurnDiff {
  private tracker: TurnDiffTracker | null = null;

  async record(plan: PatchPlan): Promise<void> {
    if (!this.tracker) {
      const { TurnDiffTracker } = await import("./turn-diff.js");
      this.tracker ??= new TurnDiffTracker();
    }
    await this.tracker.record(plan);
  }

  unifiedDiff(): string {
    return this.tracker?.unifiedDiff() ?? "";
  }
}
