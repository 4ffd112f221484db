/**
 * The legacy `shell` tool (argv `command`) and `local_shell` (the Responses API's built-in
 * shell action), plus the runner every shell-style tool shares: intercept apply_patch, emit
 * exec begin/delta/end events, run through the policy orchestrator (approval, sandbox, retry),
 * and format the model's text (reference section 3).
 */
import { resolve } from "node:path";
import { z } from "zod";
import {
  extractHeredocPatch,
  IMPLICIT_INVOCATION_MESSAGE,
  isImplicitPatchInvocation,
} from "../../apply-patch/index.js";
import type { CapturedText } from "../../exec/head-tail-buffer.js";
import { type ExecResult, runCommand } from "../../exec/spawn.js";
import type { LocalShellAction } from "../../protocol/items.js";
import { defineFunctionTool } from "../define-tool.js";
import {
  formatAborted,
  formatFreeformExecOutput,
  formatLegacyExecOutput,
  formatSignalError,
  formatSpawnError,
  legacyJson,
} from "../exec-output.js";
import { renderCaptured } from "../truncate.js";
import {
  type AttemptContext,
  type AttemptOutcome,
  type OrchestratedResult,
  type PreparedCall,
  runsAsIs,
  type ToolDefinition,
  ToolError,
  type ToolHandler,
  type ToolInvocation,
  type ToolOutput,
} from "../types.js";
import { preparePatch } from "./apply-patch.js";

/** Codex's default for every shell tool. */
export const DEFAULT_SHELL_TIMEOUT_MS = 10_000;
/** Enough for any UI; past this a runaway command would only flood the event stream. */
const MAX_OUTPUT_DELTAS = 10_000;

export interface ShellRun {
  /** What the model asked for, for apply_patch detection: a script or an argv. */
  command: string | string[];
  argv: string[];
  /** Absolute working directory. */
  cwd: string;
  timeoutMs: number | undefined;
  /** Extra variables over the turn's environment (local_shell's `env`). */
  env?: Record<string, string> | null | undefined;
  /** freeform: shell_command's text envelope; legacy: the JSON one. */
  envelope: "freeform" | "legacy";
  /** The model asked to run outside the sandbox (`sandbox_permissions: "require_escalated"`). */
  escalation?: { justification?: string | undefined } | null | undefined;
}

/** The `escalation` of a call from its `sandbox_permissions` and `justification` arguments. */
export function escalationOf(args: {
  sandbox_permissions?: string | undefined;
  justification?: string | undefined;
}): ShellRun["escalation"] {
  return args.sandbox_permissions === "require_escalated" ? { justification: args.justification } : null;
}

/** The directory a call runs in: its `workdir` resolved against the turn's cwd. */
export function callCwd(inv: ToolInvocation, workdir: string | null | undefined): string {
  return resolve(inv.turn.cwd, workdir ?? "");
}

/**
 * Prepare one shell-style call: a heredoc patch in it (`apply_patch <<'EOF'`) is a patch for
 * the gate (the paths it writes) and is applied natively; any other command is decided by the
 * orchestrator when it runs.
 */
export async function prepareShellCall(run: ShellRun, inv: ToolInvocation): Promise<PreparedCall> {
  const intercepted = extractHeredocPatch(run.command);
  if (!intercepted) return runsAsIs(() => runShellCall(run, inv));
  const cwd = intercepted.workdir ? resolve(run.cwd, intercepted.workdir) : run.cwd;
  const patch = await preparePatch(intercepted.patch, cwd, inv);
  return {
    approval: patch.approval,
    async run(approved) {
      const started = performance.now();
      const applied = await patch.apply(approved);
      // Intercepted patches answer in the JSON envelope even from shell_command (as Codex does).
      return {
        content: legacyJson(applied.output, applied.exitCode, performance.now() - started),
        success: applied.exitCode === 0,
      };
    },
  };
}

/** Runs one shell command to completion and returns what the model reads. */
async function runShellCall(run: ShellRun, inv: ToolInvocation): Promise<ToolOutput> {
  if (isImplicitPatchInvocation(run.command)) throw ToolError.respond(IMPLICIT_INVOCATION_MESSAGE);
  if (run.argv.length === 0) {
    throw ToolError.respond(
      'execution error: Io(Custom { kind: InvalidInput, error: "command args are empty" })',
    );
  }

  const { turn } = inv;
  const base = { call_id: inv.callId, turn_id: turn.turnId, command: run.argv, cwd: run.cwd };
  let begun = false;
  const begin = (): void => {
    begun = true;
    turn.emit({ type: "exec_command_begin", ...base });
  };
  let deltas = 0;
  const attempt = async (argv: string[], context: AttemptContext): Promise<ShellAttempt> => {
    const result = await runCommand({
      argv,
      cwd: run.cwd,
      env: { ...turn.shellEnvironment.env, ...run.env, ...context.env },
      timeoutMs: Math.max(0, run.timeoutMs ?? DEFAULT_SHELL_TIMEOUT_MS),
      signal: turn.signal,
      onOutput: (stream, chunk) => {
        // The chunk is reused by the next read: a delta gets its own copy, made only if read.
        if (deltas < MAX_OUTPUT_DELTAS && turn.wantsOutputDeltas?.() !== false) {
          deltas++;
          turn.emit({
            type: "exec_command_output_delta",
            call_id: inv.callId,
            stream,
            chunk: Buffer.from(chunk),
          });
        }
      },
    });
    return { ...result, blocked: context.blockedHosts() };
  };
  const orchestrated: OrchestratedResult<ShellAttempt> = await turn.orchestrator.run({
    command: run.argv,
    cwd: run.cwd,
    inv,
    escalation: run.escalation,
    modelEnv: run.env,
    runner: attempt,
    outcome: attemptOutcome,
    onStart: begin,
  });
  if (orchestrated.kind === "rejected") {
    // Rejected after it was announced (asked and denied): close it as Codex does, exit -1.
    if (begun) return endNotRun(orchestrated.message, inv, base, 0);
    return { content: orchestrated.message, success: false };
  }
  const result = orchestrated.result;

  // Hosts the managed proxy refused: the model and the item read which, and why, after the output.
  const noted = (text: string): string =>
    result.blocked.length > 0 ? `${text}\n\n${result.blocked.join("\n")}` : text;
  const end = (exitCode: number, unnoted: string, success: boolean): ToolOutput => {
    const formatted = noted(unnoted);
    const failedToRun = result.spawnError !== undefined;
    // A command that wrote one stream only has that stream's text as its aggregated text.
    const aggregated = failedToRun ? formatted : noted(renderCaptured(result.aggregated));
    const rendered = (text: CapturedText) => (text === result.aggregated ? aggregated : renderCaptured(text));
    turn.emit({
      type: "exec_command_end",
      ...base,
      exit_code: exitCode,
      duration_ms: Math.round(result.durationMs),
      stdout: failedToRun ? "" : rendered(result.stdout),
      stderr: failedToRun ? formatted : rendered(result.stderr),
      aggregated_output: aggregated,
      formatted_output: formatted,
    });
    return { content: formatted, success };
  };

  if (result.spawnError) return end(-1, formatSpawnError(result.spawnError), false);
  if (result.aborted) return end(result.exitCode, formatAborted(result.durationMs), false);
  if (result.killedBySignal && !result.timedOut) {
    return end(result.exitCode, formatSignalError(result.killedBySignal), false);
  }
  const summary = {
    exitCode: result.exitCode,
    durationMs: result.durationMs,
    timedOut: result.timedOut,
    output: result.aggregated,
  };
  const formatted =
    run.envelope === "freeform"
      ? formatFreeformExecOutput(summary, turn.truncation)
      : formatLegacyExecOutput(summary, turn.truncation);
  return end(result.exitCode, formatted, result.exitCode === 0);
}

/** Announce the end of a command that did not run (exit -1); `message` is the model's output. */
export function endNotRun(
  message: string,
  inv: ToolInvocation,
  origin: { command: string[]; cwd: string },
  durationMs: number,
): ToolOutput {
  inv.turn.emit({
    type: "exec_command_end",
    call_id: inv.callId,
    turn_id: inv.turn.turnId,
    command: origin.command,
    cwd: origin.cwd,
    exit_code: -1,
    duration_ms: Math.round(durationMs),
    stdout: "",
    stderr: message,
    aggregated_output: message,
    formatted_output: message,
  });
  return { content: message, success: false };
}

/** One attempt's result and the sentences of the hosts the proxy refused during it. */
type ShellAttempt = ExecResult & { blocked: string[] };

/** A finished attempt's facts for sandbox-denial detection (none when it never ran or was stopped). */
function attemptOutcome(result: ExecResult): AttemptOutcome | null {
  if (result.spawnError || result.aborted || result.timedOut) return null;
  return { exitCode: result.exitCode, output: renderCaptured(result.aggregated) };
}

/** Parameters every shell-style tool shares (Codex's names), beside each tool's own command. */
export const commandRunParameters = {
  justification: z
    .string()
    .optional()
    .describe("With require_escalated: one sentence telling the user why this must run outside the sandbox."),
  sandbox_permissions: z
    .string()
    .optional()
    .describe('"require_escalated" to ask the user to run this outside the sandbox; leave unset otherwise.'),
  // u64 in Codex: a float or negative value gets serde's error, the schema still says number.
  timeout_ms: z
    .number()
    .int()
    .nonnegative()
    .optional()
    .describe("Stop the command after this many milliseconds (default 10000)."),
  workdir: z
    .string()
    .optional()
    .describe("Directory to run in; a relative path starts at the session's cwd."),
};

const shellParameters = z.object({
  command: z
    .array(z.string())
    .describe('Program and arguments, e.g. ["ls", "-la"], or ["bash", "-lc", "npm test 2>&1 | tail -40"].'),
  ...commandRunParameters,
});

const SHELL_DESCRIPTION =
  "Run a program given as an argument vector and get back its combined stdout/stderr and exit code as JSON. " +
  'Nothing is parsed by a shell unless you call one yourself, e.g. ["bash", "-lc", "..."]. ' +
  "Long output keeps its beginning and end. Use `workdir` rather than a `cd`.";

/** The legacy `shell` tool; its handler also takes `local_shell` calls. */
export function shellTool(): ToolDefinition {
  const definition = defineFunctionTool({
    name: "shell",
    description: SHELL_DESCRIPTION,
    parameters: shellParameters,
    supportsParallel: true,
    prepare: (args, inv) =>
      prepareShellCall(
        {
          command: args.command,
          argv: args.command,
          cwd: callCwd(inv, args.workdir),
          timeoutMs: args.timeout_ms,
          envelope: "legacy",
          escalation: escalationOf(args),
        },
        inv,
      ),
  });
  return { ...definition, handler: withLocalShell(definition.handler) };
}

/** `{"type":"local_shell"}`: the model sends shell actions instead of function calls. */
export function localShellTool(): ToolDefinition {
  const shell = shellTool();
  return { spec: { type: "local_shell" }, handler: shell.handler, supportsParallel: shell.supportsParallel };
}

function withLocalShell(functionHandler: ToolHandler): ToolHandler {
  return {
    kinds: ["function", "local_shell"],
    prepare: (inv) =>
      inv.payload.kind === "local_shell"
        ? prepareLocalShell(inv.payload.action, inv)
        : functionHandler.prepare(inv),
  };
}

function prepareLocalShell(action: LocalShellAction, inv: ToolInvocation): Promise<PreparedCall> {
  return prepareShellCall(
    {
      command: action.command,
      argv: action.command,
      cwd: callCwd(inv, action.working_directory),
      timeoutMs: action.timeout_ms ?? undefined,
      env: action.env,
      envelope: "legacy",
    },
    inv,
  );
}
