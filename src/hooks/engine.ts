/**
 * The hook engine: which hooks an event starts, running them, and folding their answers.
 *
 * Responsibilities: match hooks to an event (matcher regex on the event's match value), skip
 * untrusted ones (each named in one warning, the first time it would have run), run the rest
 * concurrently (commands under their timeout, callbacks in process), and fold the answers into
 * one HookOutcome: contexts in hook order, the first block, deny over allow, the last
 * updatedInput. A hook that fails or times out is a warning and changes nothing. Each hook's
 * start and end (command or callback) are reported (HookRunContext.report) as Codex's
 * HookRunSummary. Matching is here; running and folding are in run.ts.
 */

import { type HookEventName, type HookInputs, matchValueOf } from "./events.js";
import type { CommandHook, Hook } from "./handler.js";
import { type HookOutcome, type HookRunContext, NO_OUTCOME } from "./outcome.js";

export class HookEngine {
  private readonly warnedUntrusted = new Set<string>();

  constructor(
    private readonly hooks: readonly Hook[],
    /** Problems found while loading (shown once, when the thread starts). */
    readonly loadWarnings: readonly string[] = [],
    private readonly env: NodeJS.ProcessEnv = process.env,
  ) {}

  static empty(): HookEngine {
    return new HookEngine([]);
  }

  /** The configured command hooks (for `tscodex hooks list`). */
  commandHooks(): CommandHook[] {
    return this.hooks.filter((hook): hook is CommandHook => hook.kind === "command");
  }

  /** True when some hook (trusted or not) listens to `event`: callers skip building payloads otherwise. */
  has(event: HookEventName): boolean {
    return this.hooks.some((hook) => hook.event === event);
  }

  async run<E extends HookEventName>(
    event: E,
    input: HookInputs[E],
    context: HookRunContext,
  ): Promise<HookOutcome> {
    const value = matchValueOf(event, input);
    const matched = this.hooks.filter(
      (hook) =>
        hook.event === event &&
        (hook.kind === "callback" || value === null || !hook.matcher || hook.matcher.test(value)),
    );
    const runnable = matched.filter((hook) => hook.kind === "callback" || hook.trusted);
    const untrusted = matched.filter(
      (hook): hook is CommandHook =>
        hook.kind === "command" && !hook.trusted && !this.warnedUntrusted.has(hook.key),
    );
    for (const hook of untrusted) this.warnedUntrusted.add(hook.key);
    if (untrusted.length > 0)
      context.warn(
        `untrusted hooks did not run: ${untrusted.map(untrustedName).join(", ")}; ` +
          "review them with `tscodex hooks list` and trust them with `tscodex hooks trust`, or run with --dangerously-bypass-hook-trust",
      );
    if (runnable.length === 0) return NO_OUTCOME;
    // Running hooks (commands, answers, summaries) loads with the first hook that runs: a thread
    // without one never parses it (issue 26: what a one-turn exec loads is its peak RSS).
    const { runHooks } = await import("./run.js");
    return runHooks(runnable, event, input, context, this.env);
  }
}

function untrustedName(hook: CommandHook): string {
  const changed = hook.trustStatus === "modified" ? ", changed since it was trusted" : "";
  return `${hook.key} (${hook.command}${changed})`;
}
