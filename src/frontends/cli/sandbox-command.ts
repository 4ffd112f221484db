/**
 * `tscodex sandbox [-P PROFILE | --full-auto | -s MODE] [-C DIR] [--backend B] [-c k=v]... -- CMD ARGS...`:
 * run any command under a permissions value, with this terminal's stdio, and exit with its exit
 * code. The value: `-P`'s profile, else the flags' mode, else config's choice (default_permissions'
 * profile, else sandbox_mode). A profile with domain rules runs behind the managed proxy, which
 * this process serves while the command runs; blocks are reported on stderr as they happen.
 */
import { spawn } from "node:child_process";
import { constants } from "node:os";
import { resolve } from "node:path";
import { type Config, ConfigError, loadConfig } from "../../config/load.js";
import { ConfigOverrideError, parseOverride } from "../../config/overrides.js";
import { configuredPermissions } from "../../config/permission-profiles.js";
import { permissionsViolation } from "../../config/requirements.js";
import { describeBlock } from "../../network-proxy/blocked.js";
import { type CommandSandbox, openCommandSandbox } from "../../policy/sandbox/command-sandbox.js";
import {
  containCommand,
  landlockBackendStatus,
  prepareSandboxedCommand,
  type SandboxBackendChoice,
  SandboxUnavailableError,
} from "../../policy/sandbox/index.js";
import type { Permissions } from "../../protocol/permissions.js";
import type { SandboxMode } from "../../protocol/policy.js";
import { visibleLine } from "../common/terminal-text.js";

export interface SandboxCliOptions {
  fullAuto?: boolean;
  sandbox?: SandboxMode;
  permissionProfile?: string;
  cd?: string;
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
  if (options.permissionProfile && (options.sandbox || options.fullAuto))
    return fail("-P/--permission-profile cannot be combined with -s/--sandbox or --full-auto");
  const mode = options.sandbox ?? (options.fullAuto ? "workspace-write" : undefined);
  const cwd = resolve(options.cd ?? process.cwd());
  let config: Config;
  let permissions: Permissions;
  try {
    config = await loadConfig({
      ...(options.profile ? { profile: options.profile } : {}),
      overrides: options.config.map(parseOverride),
      ...(mode ? { sandboxMode: mode } : {}),
    });
    const choice = options.permissionProfile ? { profile: options.permissionProfile } : {};
    permissions = configuredPermissions(config, choice).permissions;
  } catch (error) {
    if (error instanceof ConfigError || error instanceof ConfigOverrideError) return fail(error.message);
    throw error;
  }
  const aboveCeiling = permissionsViolation(config.requirements, permissions);
  if (aboveCeiling) return fail(aboveCeiling);

  let sandbox: CommandSandbox | null = null;
  try {
    sandbox = await openCommandSandbox(permissions, {
      cwd,
      tmpdir: process.env.TMPDIR || null,
      // The home's config and rules decide later runs' policy: never writable from inside.
      protectedPaths: [config.home],
      allowUnixSockets: config.sandboxAllowUnixSockets,
      onBlock: (block) => process.stderr.write(`tscodex sandbox: ${visibleLine(describeBlock(block))}\n`),
    });
    let argv: string[];
    if (sandbox.policy) {
      const prepared = await prepareSandboxedCommand(command, cwd, sandbox.policy, {
        backend: options.backend,
      });
      argv = prepared.argv;
      if (prepared.backend === "landlock") {
        const status = await landlockBackendStatus();
        if (status.available)
          for (const note of status.notes) process.stderr.write(`tscodex sandbox: note: ${note}\n`);
      }
    } else {
      argv = await containCommand(command);
    }
    return await run(argv, cwd, { ...process.env, ...sandbox.env });
  } catch (error) {
    if (error instanceof SandboxUnavailableError || error instanceof ConfigError) return fail(error.message);
    throw error;
  } finally {
    await sandbox?.release();
  }
}

/** Runs in our process group with our stdio (Ctrl-C reaches it as usual); forwards TERM and HUP. */
function run(argv: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<number> {
  const [file, ...args] = argv;
  return new Promise((done) => {
    const child = spawn(file ?? "", args, { cwd, env, stdio: "inherit" });
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
