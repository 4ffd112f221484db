/**
 * A shell command the user runs on a thread (app-server `thread/shellCommand`, Codex's user shell
 * task): a turn of its own, queued like any turn. The script runs in the user's shell, in its own
 * process group, under the thread's sandbox policy without asking (the user typed it), with the
 * shell tool's default timeout and bounded output; interrupting the turn kills the group. It
 * shows as a command item with source "user_shell", and the command with its result joins the
 * history as a user message, so the model's next request sees what the user ran.
 */
import { runCommand } from "../exec/spawn.js";
import { emptyUsage, type ResponseItem, userMessage } from "../protocol/items.js";
import { DEFAULT_SHELL_TIMEOUT_MS } from "../tools/builtin/shell.js";
import { userShellPath } from "../tools/builtin/shell-command.js";
import { formattedTruncateText, renderCaptured } from "../tools/truncate.js";
import type { TurnContext } from "../tools/types.js";
import { uuidv7 } from "../util/ids.js";
import type { Op } from "./ops.js";
import { TurnAbortedError } from "./turn.js";

type UserShellOp = Extract<Op, { type: "user_shell" }>;

/**
 * Run `op` as turn `context.turnId` (begun by the Thread) to turn_complete. Interrupted: the
 * output so far is recorded, then TurnAbortedError (the Thread ends the turn as interrupted).
 * A sandbox that cannot start throws its error (the turn fails with it).
 */
export async function userShell(
  op: UserShellOp,
  record: (item: ResponseItem) => void,
  context: TurnContext,
): Promise<void> {
  const argv = [await userShellPath(), "-lc", op.command];
  const { cwd, turnId } = context;
  const callId = `user-shell-${uuidv7()}`;
  const spawnArgv = await context.orchestrator.confine(argv, cwd, context);
  const source = "user_shell" as const;
  context.emit({ type: "exec_command_begin", call_id: callId, turn_id: turnId, command: argv, cwd, source });
  const streams = context.wantsOutputDeltas?.() ?? true;
  const result = await runCommand({
    argv: spawnArgv,
    cwd,
    env: context.shellEnvironment.env,
    timeoutMs: op.timeoutMs ?? DEFAULT_SHELL_TIMEOUT_MS,
    signal: context.signal,
    ...(streams
      ? {
          onOutput: (stream, chunk) =>
            context.emit({
              type: "exec_command_output_delta",
              call_id: callId,
              stream,
              chunk: chunk.slice(),
            }),
        }
      : {}),
  });
  const aggregated = result.spawnError ? result.spawnError.message : renderCaptured(result.aggregated);
  const formatted = formattedTruncateText(aggregated, context.truncation);
  const durationMs = Math.round(result.durationMs);
  context.emit({
    type: "exec_command_end",
    call_id: callId,
    turn_id: turnId,
    command: argv,
    cwd,
    exit_code: result.exitCode,
    duration_ms: durationMs,
    stdout: renderCaptured(result.stdout),
    stderr: result.spawnError ? aggregated : renderCaptured(result.stderr),
    aggregated_output: aggregated,
    formatted_output: formatted,
    source,
  });
  record(userMessage(userShellRecord(op.command, result.exitCode, durationMs, formatted)));
  if (result.aborted) throw new TurnAbortedError("user shell command interrupted");
  context.emit({ type: "turn_complete", turn_id: turnId, last_agent_message: null, usage: emptyUsage() });
}

/** What the model is told the user ran (Codex's `<user_shell_command>` record). */
export function userShellRecord(
  command: string,
  exitCode: number,
  durationMs: number,
  output: string,
): string {
  return [
    "<user_shell_command>",
    "<command>",
    command,
    "</command>",
    "<result>",
    `Exit code: ${exitCode}`,
    `Duration: ${(durationMs / 1000).toFixed(4)} seconds`,
    "Output:",
    output,
    "</result>",
    "</user_shell_command>",
  ].join("\n");
}
