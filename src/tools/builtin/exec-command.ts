/**
 * `exec_command`: start a command that may keep running after the call returns (a dev
 * server, a REPL, a test watcher). The call waits up to `yield_time_ms` (returning early if
 * the command exits) and answers with what it printed and either its exit code or a session
 * id that write_stdin can poll or type into. Reference section 3.
 *
 * A turn interrupted by the user ends the sessions that turn started (like Ctrl-C ends a
 * terminal's foreground job); sessions from earlier turns, such as a dev server, keep
 * running. All of them end with the thread.
 */
import { z } from "zod";
import { PtyUnavailableError } from "../../exec/pty.js";
import type { ExecSession } from "../../exec/session.js";
import { SessionLimitError } from "../../exec/sessions.js";
import { defineFunctionTool, withSerde } from "../define-tool.js";
import { formatAborted, formatSpawnError } from "../exec-output.js";
import { renderCaptured } from "../truncate.js";
import {
  type AttemptContext,
  type AttemptOutcome,
  type ToolDefinition,
  ToolError,
  type ToolInvocation,
  type ToolOutput,
} from "../types.js";
import { callCwd, commandRunParameters, endNotRun, escalationOf } from "./shell.js";
import { userShellPath } from "./shell-command.js";
import {
  clampYield,
  DEFAULT_EXEC_YIELD_MS,
  formatSessionReply,
  prunedNote,
  SESSION_ENV,
  sessionsOf,
  trackSession,
} from "./unified-exec.js";

const parameters = z.object({
  cmd: z.string().describe('The shell script to run, e.g. "npm run dev" or "python3 -i".'),
  justification: commandRunParameters.justification,
  login: z
    .boolean()
    .optional()
    .describe("Run the shell as a login shell so profile files are read (default true)."),
  max_output_tokens: withSerde(z.number().int().nonnegative(), { rust: "usize" })
    .optional()
    .describe(
      "Keep at most about this many tokens of output in the reply (default 10000); the middle is cut.",
    ),
  sandbox_permissions: commandRunParameters.sandbox_permissions,
  shell: z.string().optional().describe("Path of the shell that runs `cmd` (default: the user's shell)."),
  tty: z
    .boolean()
    .optional()
    .describe(
      "Run on a pseudo-terminal so you can type into it later with write_stdin (REPLs, prompts). Default false: stdin is closed.",
    ),
  workdir: commandRunParameters.workdir,
  yield_time_ms: withSerde(z.number().int().nonnegative(), { rust: "u64" })
    .optional()
    .describe(
      "How long to wait for output before replying (default 10000, at most 30000). The reply comes sooner if the command exits; if it is still running you get a session id.",
    ),
});

const DESCRIPTION =
  "Run a shell command that may outlive this call. You get its output so far and either its exit code or a " +
  "session id; poll or type into a running session with write_stdin. Use tty=true for anything interactive. " +
  "Use `workdir` rather than a leading `cd`.";

export interface ExecCommandToolOptions {
  /** The shell when the call names none (default: the user's shell, detected once). */
  shellPath?: string;
  /** Live sessions per thread before the least recently used idle one is ended (default 64). */
  maxSessions?: number;
  /** Between SIGTERM and SIGKILL when a session is ended (default 500 ms). */
  killGraceMs?: number;
}

/** The exec_command tool. Sessions live in the thread's resource scope (TurnContext.resources). */
export function execCommandTool(options: ExecCommandToolOptions = {}): ToolDefinition {
  const managerOptions = {
    ...(options.maxSessions !== undefined ? { maxSessions: options.maxSessions } : {}),
    ...(options.killGraceMs !== undefined ? { killGraceMs: options.killGraceMs } : {}),
  };
  return defineFunctionTool({
    name: "exec_command",
    description: DESCRIPTION,
    parameters,
    supportsParallel: true,
    // Commands are judged when they run (policy/orchestrator.ts), not here.
    handle: async (args, inv) => {
      const started = performance.now();
      const { turn } = inv;
      const manager = sessionsOf(turn, managerOptions);
      const shell = args.shell ?? options.shellPath ?? (await userShellPath());
      const argv = [shell, args.login === false ? "-c" : "-lc", args.cmd];
      const cwd = callCwd(inv, args.workdir);
      const origin = { callId: inv.callId, turnId: turn.turnId, command: argv, cwd };
      let begun = false;
      const begin = (): void => {
        begun = true;
        turn.emit({
          type: "exec_command_begin",
          call_id: inv.callId,
          turn_id: turn.turnId,
          command: argv,
          cwd,
        });
      };

      // One attempt: `spawnArgv` is argv, wrapped in the sandbox when the policy says so.
      const attempt = async (spawnArgv: string[], context: AttemptContext): Promise<Attempt> => {
        const attemptStarted = performance.now();
        let session: ExecSession;
        let pruned: ExecSession | null;
        try {
          ({ session, pruned } = await manager.start({
            argv: spawnArgv,
            cwd,
            env: { ...turn.shellEnvironment.env, ...SESSION_ENV, ...context.env },
            tty: args.tty ?? false,
          }));
        } catch (error) {
          return { output: failedToStart(error, inv, origin, performance.now() - started), outcome: null };
        }
        trackSession(session, origin, turn, context.blockedHosts);
        // A session still running keeps its proxy route until it exits.
        context.holdUntil(session.exited);
        // Sessions a turn started end when that turn is interrupted.
        manager.endOnAbort(session, turn.signal);

        const deadline = attemptStarted + clampYield(args.yield_time_ms, DEFAULT_EXEC_YIELD_MS);
        const result = await manager.interact(session, "", deadline, turn.signal);
        const wallMs = performance.now() - started;
        if (result.aborted)
          return { output: { content: formatAborted(wallMs), success: false }, outcome: null };
        const content = formatSessionReply({
          wallMs,
          session,
          exit: result.exit,
          output: result.output,
          maxOutputTokens: args.max_output_tokens,
          notes: [...(pruned ? [prunedNote(pruned, manager.limit)] : []), ...context.blockedHosts()],
        });
        const success = result.exit ? result.exit.exitCode === 0 : true;
        // Only a process that already exited can be judged a sandbox denial.
        const outcome = result.exit
          ? { exitCode: result.exit.exitCode, output: renderCaptured(result.output) }
          : null;
        return { output: { content, success }, outcome };
      };

      const run = await turn.orchestrator.run({
        command: argv,
        cwd,
        inv,
        escalation: escalationOf(args),
        tool: "exec_command",
        runner: attempt,
        outcome: (done) => done.outcome,
        onStart: begin,
      });
      if (run.kind === "ran") return run.result.output;
      // Rejected after it was announced (asked and denied): close it as Codex does, exit -1.
      return begun ? endNotRun(run.message, inv, origin, 0) : { content: run.message, success: false };
    },
  });
}

/** One attempt's reply to the model, and its facts for sandbox-denial detection. */
interface Attempt {
  output: ToolOutput;
  outcome: AttemptOutcome | null;
}

function failedToStart(
  error: unknown,
  inv: ToolInvocation,
  origin: { command: string[]; cwd: string },
  durationMs: number,
): ToolOutput {
  let message: string;
  if (error instanceof PtyUnavailableError || error instanceof SessionLimitError) message = error.message;
  else if (error instanceof Error && ("code" in error || "errno" in error))
    message = formatSpawnError(error as NodeJS.ErrnoException);
  else if (error instanceof Error) message = `execution error: ${error.message}`;
  else throw ToolError.fatal(String(error));
  return endNotRun(message, inv, origin, durationMs);
}
