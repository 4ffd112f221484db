/**
 * command/exec: run one command outside any thread, under a sandbox policy (the request's, else
 * the configured sandbox_mode), with the configured shell environment, and answer with its exit
 * code and output. Bounded by `timeoutMs` (default 10 s); a client that disconnects stops it.
 * Codex 0.89 fails this request when its sandbox helper is missing; here the same sandbox the
 * agent's commands use applies, and a missing one is the same clear error.
 */
import { resolve } from "node:path";
import type { Config } from "../../../config/load.js";
import { buildShellEnvironment } from "../../../exec/environment.js";
import { runCommand } from "../../../exec/spawn.js";
import {
  type SandboxPolicy as CoreSandboxPolicy,
  prepareSandboxedCommand,
  SandboxUnavailableError,
} from "../../../policy/sandbox/index.js";
import { renderCaptured } from "../../../tools/truncate.js";
import type { ParamsOf, ResultOf } from "../protocol/client-requests.js";
import type { SandboxPolicy } from "../protocol/common.js";
import { ErrorCode, RpcError } from "../protocol/jsonrpc.js";
import type { HandlerContext } from "./context.js";

const DEFAULT_TIMEOUT_MS = 10_000;

export async function commandExec(
  params: ParamsOf<"command/exec">,
  context: HandlerContext,
): Promise<ResultOf<"command/exec">> {
  const config = context.runtime.config;
  const cwd = resolve(params.cwd ?? process.cwd());
  const policy = sandboxOf(params.sandboxPolicy, cwd, config);
  let argv: string[];
  try {
    argv = (await prepareSandboxedCommand(params.command, cwd, policy, { backend: config.sandboxBackend }))
      .argv;
  } catch (error) {
    if (error instanceof SandboxUnavailableError) throw execFailed(error.message);
    throw error;
  }
  const result = await runCommand({
    argv,
    cwd,
    env: buildShellEnvironment(config.shellEnvironmentPolicy, context.runtime.env),
    timeoutMs: params.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    signal: context.session.signal,
  });
  if (result.spawnError) throw execFailed(result.spawnError.message);
  return {
    exitCode: result.exitCode,
    stdout: renderCaptured(result.stdout),
    stderr: renderCaptured(result.stderr),
  };
}

function execFailed(message: string): RpcError {
  return new RpcError(ErrorCode.InternalError, `exec failed: ${message}`);
}

/** The request's policy in the sandbox runtime's terms (workspace-write: cwd, its roots, /tmp). */
function sandboxOf(policy: SandboxPolicy | null | undefined, cwd: string, config: Config): CoreSandboxPolicy {
  const type = policy?.type ?? modeType(config.sandboxMode);
  if (type === "dangerFullAccess" || type === "externalSandbox")
    return { mode: "danger-full-access", writableRoots: [], networkAccess: true };
  if (type === "readOnly") return { mode: "read-only", writableRoots: [], networkAccess: false };
  const own = policy?.type === "workspaceWrite" ? policy : null;
  const sww = config.sandboxWorkspaceWrite;
  const roots = [cwd, ...(own?.writableRoots ?? sww.writableRoots).map((root) => resolve(root))];
  if (!(own?.excludeSlashTmp ?? sww.excludeSlashTmp)) roots.push("/tmp");
  const tmpdir = process.env.TMPDIR;
  if (!(own?.excludeTmpdirEnvVar ?? sww.excludeTmpdirEnvVar) && tmpdir) roots.push(resolve(tmpdir));
  return {
    mode: "workspace-write",
    writableRoots: roots,
    networkAccess: own?.networkAccess ?? sww.networkAccess,
  };
}

function modeType(mode: Config["sandboxMode"]): SandboxPolicy["type"] {
  return mode === "danger-full-access"
    ? "dangerFullAccess"
    : mode === "read-only"
      ? "readOnly"
      : "workspaceWrite";
}
