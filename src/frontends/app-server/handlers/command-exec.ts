/**
 * command/exec and its controls: run one command outside any thread, under the request's
 * permissions (`sandboxPolicy` or `permissionProfile`), else the configured ones, with the configured shell environment (plus the
 * request's `env`). Buffered: the reply carries exit code and output. Streamed (`processId` plus
 * `streamStdoutStderr`, `streamStdin` or `tty`): output arrives as `command/exec/outputDelta`
 * before the reply, and `command/exec/write`, `resize` and `terminate` address the process by
 * the client's id. Output is capped per stream (`outputBytesCap`, default 1 MiB), the run by
 * `timeoutMs` (default 10 s); a client that disconnects kills what it started.
 * Codex 0.89 fails this request when its sandbox helper is missing; here the same sandbox the
 * agent's commands use applies, and a missing one is the same clear error.
 */
import { resolve } from "node:path";
import type { Config } from "../../../config/load.js";
import { configuredPermissions, PermissionProfileError } from "../../../config/permission-profiles.js";
import { buildShellEnvironment } from "../../../exec/environment.js";
import { type CommandSandbox, openCommandSandbox } from "../../../policy/sandbox/command-sandbox.js";
import {
  containCommand,
  prepareSandboxedCommand,
  SandboxUnavailableError,
} from "../../../policy/sandbox/index.js";
import type { Permissions } from "../../../protocol/permissions.js";
import { errorMessage } from "../../../util/errors.js";
import { decodeBase64 } from "../base64.js";
import { enforceCommandCeiling } from "../ceiling.js";
import { CommandProcess, type OutputStream } from "../command-process.js";
import type { ScopedResource, ScopeKey } from "../connection-scope.js";
import { loadingProfiles, permissionsFromWire, permissionsParam } from "../permissions-wire.js";
import type { ParamsOf, ResultOf } from "../protocol/client-requests.js";
import { ErrorCode, encodeNotification, RpcError } from "../protocol/jsonrpc.js";
import type { HandlerContext } from "./context.js";

const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_OUTPUT_CAP = 1024 * 1024;
/** `disableOutputCap` on a buffered run: the reply still has to fit in memory. */
const BUFFERED_HARD_CAP = 64 * 1024 * 1024;

/**
 * This connection's commands, by the client's `processId` (or a generated key), from the moment
 * command/exec arrives: a write, resize or terminate sent right behind it waits for the start.
 */
class ProcessTable implements ScopedResource {
  readonly running = new Map<string, Promise<CommandProcess | null>>();
  private generated = 0;

  generatedKey(): string {
    return `\0generated-${++this.generated}`;
  }

  close(): void {
    for (const entry of this.running.values()) void entry.then((command) => command?.terminate());
    this.running.clear();
  }
}

const PROCESSES: ScopeKey<ProcessTable> = {
  name: "command/exec processes",
  create: () => new ProcessTable(),
};

export async function commandExec(
  params: ParamsOf<"command/exec">,
  context: HandlerContext,
): Promise<ResultOf<"command/exec">> {
  const processId = params.processId ?? null;
  const tty = params.tty === true;
  const streamStdin = tty || params.streamStdin === true;
  const streamOutput = tty || params.streamStdoutStderr === true;
  checkShape(params, processId, tty || streamStdin || streamOutput);

  const table = context.session.scope.get(PROCESSES);
  const key = processId ?? table.generatedKey();
  if (table.running.has(key))
    throw RpcError.invalidRequest(`duplicate active command/exec process id: ${JSON.stringify(processId)}`);
  const starting = start(params, context, { tty, streamStdin, streamOutput, processId });
  const entry = starting.catch(() => null);
  table.running.set(key, entry);
  try {
    const command = await starting;
    // The connection closed while it started: nothing may keep running.
    if (table.running.get(key) !== entry) {
      await command.terminate();
      throw RpcError.invalidRequest("the connection closed before the command started");
    }
    return await command.done;
  } finally {
    if (table.running.get(key) === entry) table.running.delete(key);
  }
}

export async function commandExecWrite(
  params: ParamsOf<"command/exec/write">,
  context: HandlerContext,
): Promise<ResultOf<"command/exec/write">> {
  if (params.deltaBase64 == null && params.closeStdin !== true)
    throw RpcError.invalidParams("command/exec/write requires deltaBase64 or closeStdin");
  const bytes = params.deltaBase64 == null ? null : decodeBase64(params.deltaBase64, "deltaBase64");
  const command = await running(params.processId, context);
  if (!command.acceptsInput)
    throw RpcError.invalidRequest(
      `stdin of command/exec process id ${JSON.stringify(params.processId)} is not streamed (start it with streamStdin or tty)`,
    );
  if (bytes) command.write(bytes);
  if (params.closeStdin) command.closeStdin();
  return {};
}

export async function commandExecResize(
  params: ParamsOf<"command/exec/resize">,
  context: HandlerContext,
): Promise<ResultOf<"command/exec/resize">> {
  const command = await running(params.processId, context);
  if (!command.tty)
    throw RpcError.invalidRequest(
      `command/exec/resize needs a tty: process id ${JSON.stringify(params.processId)} runs on pipes`,
    );
  command.resize(params.size.cols, params.size.rows);
  return {};
}

export async function commandExecTerminate(
  params: ParamsOf<"command/exec/terminate">,
  context: HandlerContext,
): Promise<ResultOf<"command/exec/terminate">> {
  await (await running(params.processId, context)).terminate();
  return {};
}

function checkShape(params: ParamsOf<"command/exec">, processId: string | null, streaming: boolean): void {
  if (streaming && processId === null)
    throw RpcError.invalidRequest("command/exec tty or streaming requires a client-supplied processId");
  if (params.size && params.tty !== true)
    throw RpcError.invalidRequest("command/exec size is only valid with tty: true");
  if (params.disableOutputCap && params.outputBytesCap != null)
    throw RpcError.invalidRequest("command/exec cannot combine disableOutputCap with outputBytesCap");
  if (params.disableTimeout && params.timeoutMs != null)
    throw RpcError.invalidRequest("command/exec cannot combine disableTimeout with timeoutMs");
  if (params.permissionProfile != null && params.sandboxPolicy != null)
    throw RpcError.invalidRequest("command/exec cannot combine permissionProfile with sandboxPolicy");
}

async function start(
  params: ParamsOf<"command/exec">,
  context: HandlerContext,
  mode: { tty: boolean; streamStdin: boolean; streamOutput: boolean; processId: string | null },
): Promise<CommandProcess> {
  const { config, env: serverEnv } = context.runtime;
  const cwd = resolve(params.cwd ?? process.cwd());
  const permissions = requestPermissions(params, config);
  enforceCommandCeiling(config, permissions);
  let sandbox: CommandSandbox;
  let argv: string[];
  try {
    sandbox = await openCommandSandbox(permissions, {
      cwd,
      tmpdir: serverEnv.TMPDIR || null,
      protectedPaths: [config.home],
      allowUnixSockets: config.sandboxAllowUnixSockets,
    });
    argv = sandbox.policy
      ? (
          await prepareSandboxedCommand(params.command, cwd, sandbox.policy, {
            backend: config.sandboxBackend,
          })
        ).argv
      : await containCommand(params.command);
  } catch (error) {
    if (error instanceof SandboxUnavailableError || error instanceof PermissionProfileError)
      throw execFailed(error.message);
    throw error;
  }
  const env = buildShellEnvironment(config.shellEnvironmentPolicy, serverEnv);
  for (const [name, value] of Object.entries(params.env ?? {})) {
    if (value === null) delete env[name];
    else env[name] = value;
  }
  // The proxy's variables last: inside the sandbox's namespace only the proxy is reachable anyway.
  Object.assign(env, sandbox.env);
  const { processId } = mode;
  const onDelta =
    mode.streamOutput && processId !== null
      ? (stream: OutputStream, bytes: Buffer, capReached: boolean) =>
          context.session.send(
            encodeNotification("command/exec/outputDelta", {
              processId,
              stream,
              deltaBase64: bytes.toString("base64"),
              capReached,
            }),
          )
      : null;
  const uncapped = onDelta ? Number.POSITIVE_INFINITY : BUFFERED_HARD_CAP;
  try {
    const command = await CommandProcess.start({
      argv,
      cwd,
      env,
      tty: mode.tty,
      stdin: mode.streamStdin,
      ...(params.size ? { size: params.size } : {}),
      capBytes: params.disableOutputCap ? uncapped : (params.outputBytesCap ?? DEFAULT_OUTPUT_CAP),
      timeoutMs: params.disableTimeout ? null : (params.timeoutMs ?? DEFAULT_TIMEOUT_MS),
      onDelta,
      backlog: () => context.session.backlog(),
    });
    // The proxy route lives as long as the process.
    void command.done.finally(() => sandbox.release());
    return command;
  } catch (error) {
    await sandbox.release();
    throw execFailed(errorMessage(error));
  }
}

/** The process `processId` of this connection (once started); -32600 when there is none. */
async function running(processId: string, context: HandlerContext): Promise<CommandProcess> {
  const command = await (context.session.scope.get(PROCESSES).running.get(processId) ?? null);
  if (!command)
    throw RpcError.invalidRequest(`no active command/exec for process id ${JSON.stringify(processId)}`);
  return command;
}

/**
 * The request's permissions: its `sandboxPolicy`, else its `permissionProfile` (a profile id),
 * else what the server's config chooses (default_permissions' profile or sandbox_mode).
 */
function requestPermissions(params: ParamsOf<"command/exec">, config: Config): Permissions {
  if (params.sandboxPolicy) return permissionsFromWire(params.sandboxPolicy);
  return (
    permissionsParam(params.permissionProfile, false, config) ??
    loadingProfiles(() => configuredPermissions(config).permissions)
  );
}

function execFailed(message: string): RpcError {
  return new RpcError(ErrorCode.InternalError, `exec failed: ${message}`);
}
