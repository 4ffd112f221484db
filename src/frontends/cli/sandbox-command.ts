/**
 * `tscodex sandbox [--full-auto | -s MODE] [--backend B] [-c k=v]... -- CMD ARGS...`: run any
 * command under a sandbox policy, with this terminal's stdio, and exit with its exit code.
 * Policy: the mode from the flags, else config; workspace-write writes cwd, the config's
 * writable_roots, /tmp and $TMPDIR (unless excluded); network only with
 * sandbox_workspace_write.network_access.
 */
import { spawn } from "node:child_process";
import { constants } from "node:os";
import { resolve } from "node:path";
import { type Config, ConfigError, loadConfig } from "../../config/load.js";
import { ConfigOverrideError, parseOverride } from "../../config/overrides.js";
import {
  landlockBackendStatus,
  prepareSandboxedCommand,
  type SandboxBackendChoice,
  type SandboxPolicy,
  SandboxUnavailableError,
} from "../../policy/sandbox/index.js";
import type { SandboxMode } from "../../protocol/policy.js";

export interface SandboxCliOptions {
  fullAuto?: boolean;
  sandbox?: SandboxMode;
  backend: SandboxBackendChoice;
  config: string[];
  profile?: string;
}

/** Resolves to the exit code: the command's, 128+n when a signal ended it, 1 on our errors. */
export async function runSandboxCommand(command: string[], options: SandboxCliOptions): Promise<number> {
  const fail = (message: string): number => {
    process.stderr.write(`tscodex sandbox: ${message}\n`);
    return 1;
  };
  if (command.length === 0) return fail("no command given: tscodex sandbox [options] -- CMD [ARGS...]");
  let config: Config;
  try {
    config = await loadConfig({
      ...(options.profile ? { profile: options.profile } : {}),
      overrides: options.config.map(parseOverride),
    });
  } catch (error) {
    if (error instanceof ConfigError || error instanceof ConfigOverrideError) return fail(error.message);
    throw error;
  }
  const cwd = process.cwd();
  const mode = options.sandbox ?? (options.fullAuto ? "workspace-write" : config.sandboxMode);
  const policy = sandboxPolicy(mode, cwd, config);

  let argv: string[];
  try {
    const prepared = await prepareSandboxedCommand(command, cwd, policy, { backend: options.backend });
    argv = prepared.argv;
    if (prepared.backend === "landlock") {
      const status = await landlockBackendStatus();
      if (status.available)
        for (const note of status.notes) process.stderr.write(`tscodex sandbox: note: ${note}\n`);
    }
  } catch (error) {
    if (error instanceof SandboxUnavailableError) return fail(error.message);
    throw error;
  }
  return run(argv, cwd);
}

function sandboxPolicy(mode: SandboxMode, cwd: string, config: Config): SandboxPolicy {
  const allowUnixSockets = config.sandboxAllowUnixSockets;
  if (mode !== "workspace-write") return { mode, writableRoots: [], networkAccess: false, allowUnixSockets };
  // The home's config and rules decide later runs' policy: never writable from inside.
  const readOnlyPaths = [config.home];
  const sww = config.sandboxWorkspaceWrite;
  const roots = [cwd, ...sww.writableRoots];
  if (!sww.excludeSlashTmp) roots.push("/tmp");
  const tmpdir = process.env.TMPDIR;
  if (!sww.excludeTmpdirEnvVar && tmpdir) roots.push(resolve(tmpdir));
  return { mode, writableRoots: roots, networkAccess: sww.networkAccess, readOnlyPaths, allowUnixSockets };
}

/** Runs in our process group with our stdio (Ctrl-C reaches it as usual); forwards TERM and HUP. */
function run(argv: string[], cwd: string): Promise<number> {
  const [file, ...args] = argv;
  return new Promise((done) => {
    const child = spawn(file ?? "", args, { cwd, stdio: "inherit" });
    const forward = (signal: NodeJS.Signals) => () => child.kill(signal);
    const handlers = new Map<NodeJS.Signals, () => void>([
      ["SIGTERM", forward("SIGTERM")],
      ["SIGHUP", forward("SIGHUP")],
      // The terminal sends SIGINT to the child too; wait for it to exit rather than die first.
      ["SIGINT", () => {}],
    ]);
    for (const [signal, handler] of handlers) process.on(signal, handler);
    const finish = (code: number): void => {
      for (const [signal, handler] of handlers) process.off(signal, handler);
      done(code);
    };
    child.once("error", (error) => {
      process.stderr.write(`tscodex sandbox: cannot run ${file}: ${error.message}\n`);
      finish(127);
    });
    child.once("exit", (code, signal) => {
      finish(code ?? 128 + (signal ? (constants.signals[signal] ?? 0) : 0));
    });
  });
}
