/**
 * The hook engine: which hooks an event starts, running them, and folding their answers.
 *
 * Responsibilities: match hooks to an event (matcher regex on the event's match value), skip
 * untrusted ones (each named in one warning, the first time it would have run), run the rest
 * concurrently (commands under their timeout, callbacks in process), and fold the answers into
 * one HookOutcome: contexts in hook order, the first block, deny over allow, the last
 * updatedInput. A hook that fails or times out is a warning and changes nothing. Each hook's
 * start and end (command or callback) are reported (HookRunContext.report) as Codex's
 * HookRunSummary.
 */

import type { HookRunSummary } from "../protocol/events.js";
import { errorMessage } from "../util/errors.js";
import { type ReadAnswer, readCommandAnswer, readOutput } from "./answers.js";
import { runCommandHook } from "./command.js";
import { type HookAnswer, type HookEventName, type HookInputs, matchValueOf } from "./events.js";
import type { CallbackHook, CommandHook, Hook } from "./handler.js";
import { completedSummary, hookRunId, runningSummary } from "./run-summary.js";

/** Where an event's hooks run and report. */
export interface HookRunContext {
  cwd: string;
  signal?: AbortSignal | undefined;
  /** A problem worth telling the user (failed hook, untrusted hook, systemMessage). */
  warn(message: string): void;
  /** A hook (command or callback) started or finished. */
  report?(phase: "started" | "completed", run: HookRunSummary): void;
}

/** The folded answers of an event's hooks. */
export interface HookOutcome {
  additionalContexts: string[];
  block: string | null;
  /** Which hook blocked: its run id (hookRunId). */
  blockedBy: string | null;
  permission: HookAnswer["permission"] | null;
  stop: { reason: string | null } | null;
  updatedInput: unknown;
  /** How many hooks ran. */
  ran: number;
}

export const NO_OUTCOME: HookOutcome = {
  additionalContexts: [],
  block: null,
  blockedBy: null,
  permission: null,
  stop: null,
  updatedInput: undefined,
  ran: 0,
};

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
    const payload = JSON.stringify({ ...input, hook_event_name: event });
    const answers = await Promise.all(
      runnable.map((hook) =>
        this.reported(hook, context, () =>
          hook.kind === "command"
            ? this.execute(hook, payload, context)
            : runCallback(hook, { ...input, hook_event_name: event }),
        ),
      ),
    );
    return fold(
      answers.map((read, index) => {
        const hook = runnable[index] as Hook;
        const name = hook.kind === "command" ? hook.command : `${event} callback`;
        if (read.problem) context.warn(`${event} hook (${name}): ${read.problem}`);
        if (read.answer.systemMessage) context.warn(read.answer.systemMessage);
        return { answer: read.answer, source: hookRunId(hook) };
      }),
    );
  }

  /** Run `hook` with its start and end reported (HookRunSummary). */
  private async reported(
    hook: Hook,
    context: HookRunContext,
    run: () => Promise<ReadAnswer>,
  ): Promise<ReadAnswer> {
    const startedMs = Date.now();
    const running = context.report ? runningSummary(hook, startedMs) : null;
    if (running) context.report?.("started", running);
    const read = await run();
    if (running) context.report?.("completed", completedSummary(running, startedMs, read));
    return read;
  }

  private async execute(hook: CommandHook, payload: string, context: HookRunContext): Promise<ReadAnswer> {
    const run = await runCommandHook({
      command: hook.command,
      cwd: context.cwd,
      input: payload,
      timeoutMs: hook.timeoutSec * 1000,
      env: this.env,
      signal: context.signal,
    });
    if (run.timedOut) return { answer: {}, problem: `timed out after ${hook.timeoutSec}s` };
    return readCommandAnswer(hook.event, run.exitCode, run.stdout, run.stderr);
  }
}

function untrustedName(hook: CommandHook): string {
  const changed = hook.trustStatus === "modified" ? ", changed since it was trusted" : "";
  return `${hook.key} (${hook.command}${changed})`;
}

async function runCallback(hook: CallbackHook, input: unknown): Promise<ReadAnswer> {
  try {
    const result = await (hook.callback as (input: unknown) => unknown)(input);
    if (result === undefined || result === null) return { answer: {} };
    if (typeof result === "string" || (typeof result === "object" && !Array.isArray(result)))
      return readOutput(hook.event, result as string | Record<string, unknown>);
    return { answer: {}, problem: "callback returned neither an object nor a string" };
  } catch (error) {
    return { answer: {}, problem: `callback failed: ${errorMessage(error)}` };
  }
}

function fold(answers: { answer: HookAnswer; source: string }[]): HookOutcome {
  const outcome: HookOutcome = { ...NO_OUTCOME, additionalContexts: [], ran: answers.length };
  for (const { answer, source } of answers) {
    if (answer.additionalContext) outcome.additionalContexts.push(answer.additionalContext);
    if (answer.block && outcome.block === null) {
      outcome.block = answer.block;
      outcome.blockedBy = source;
    }
    if (answer.permission && outcome.permission?.behavior !== "deny") outcome.permission = answer.permission;
    if (answer.stop && !outcome.stop) outcome.stop = answer.stop;
    if (answer.updatedInput !== undefined) outcome.updatedInput = answer.updatedInput;
  }
  return outcome;
}
