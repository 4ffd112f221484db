/**
 * Running an event's matched hooks (engine.ts decides which): commands under their timeout and
 * callbacks in process, concurrently, each reported as it starts and ends; their answers folded
 * into one HookOutcome.
 */
import { errorMessage } from "../util/errors.js";
import { type ReadAnswer, readCommandAnswer, readOutput } from "./answers.js";
import { runCommandHook } from "./command.js";
import type { HookAnswer, HookEventName, HookInputs } from "./events.js";
import type { CallbackHook, CommandHook, Hook } from "./handler.js";
import { type HookOutcome, type HookRunContext, NO_OUTCOME } from "./outcome.js";
import { completedSummary, hookRunId, runningSummary } from "./run-summary.js";

/** Run `runnable` (trusted, matched) for `event` and fold their answers. */
export async function runHooks<E extends HookEventName>(
  runnable: readonly Hook[],
  event: E,
  input: HookInputs[E],
  context: HookRunContext,
  env: NodeJS.ProcessEnv,
): Promise<HookOutcome> {
  const payload = JSON.stringify({ ...input, hook_event_name: event });
  const answers = await Promise.all(
    runnable.map((hook) =>
      reported(hook, context, () =>
        hook.kind === "command"
          ? execute(hook, payload, context, env)
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
async function reported(
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

async function execute(
  hook: CommandHook,
  payload: string,
  context: HookRunContext,
  env: NodeJS.ProcessEnv,
): Promise<ReadAnswer> {
  const run = await runCommandHook({
    command: hook.command,
    cwd: context.cwd,
    input: payload,
    timeoutMs: hook.timeoutSec * 1000,
    env,
    signal: context.signal,
  });
  if (run.timedOut) return { answer: {}, problem: `timed out after ${hook.timeoutSec}s` };
  return readCommandAnswer(hook.event, run.exitCode, run.stdout, run.stderr);
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
