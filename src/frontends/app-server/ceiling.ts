/**
 * The operator's ceiling (requirements.toml, config/requirements.ts) on app-server requests: a
 * thread, a turn or a command that would run above it is refused with -32600 (Codex's code for
 * configuration errors) naming the requirement and its file, before anything starts. What is
 * judged is what would run: the request's own value, else the thread's (live or stored), else
 * the configured default.
 */
import type { Config } from "../../config/load.js";
import { type CeilingRequest, ceilingViolation } from "../../config/requirements.js";
import type { ApprovalPolicy, SandboxMode } from "../../protocol/policy.js";
import type { TurnOverrides } from "../../session/thread.js";
import type { SandboxPolicy } from "./protocol/common.js";
import { RpcError } from "./protocol/jsonrpc.js";
import type { AppServerRuntime } from "./runtime.js";
import type { ThreadChannel } from "./thread-channel.js";

/** Throws -32600 naming the requirement when `request` is above `config`'s ceiling. */
export function enforceCeiling(config: Config, request: CeilingRequest): void {
  const refused = ceilingViolation(config.requirements, request);
  if (refused) throw RpcError.invalidRequest(refused);
}

/**
 * thread/start, thread/resume, thread/fork: the thread's policies as it will run them: the
 * params', else those of thread `threadId` (live, else as stored), else `config`'s. A
 * `permissions` profile id (Codex 0.171, experimental) is judged as that profile instead of a
 * sandbox mode (a built-in also as its mode).
 */
export async function enforceThreadCeiling(
  runtime: AppServerRuntime,
  params: {
    sandbox?: SandboxMode | null | undefined;
    approvalPolicy?: ApprovalPolicy | null | undefined;
    permissions?: string | null | undefined;
  },
  config: Config,
  threadId?: string,
): Promise<void> {
  if (!config.requirements) return;
  const previous = threadId
    ? (runtime.channel(threadId)?.thread?.effectiveSettings ?? (await runtime.storedChoice(threadId)))
    : null;
  const approvalPolicy = params.approvalPolicy ?? previous?.approvalPolicy ?? config.approvalPolicy;
  if (params.permissions) enforceCeiling(config, { permissionProfile: params.permissions, approvalPolicy });
  else
    enforceCeiling(config, {
      sandboxMode: params.sandbox ?? previous?.sandboxMode ?? config.sandboxMode,
      approvalPolicy,
    });
}

/** turn/start: the turn's overrides over what the thread of `channel` runs with. */
export function enforceTurnCeiling(channel: ThreadChannel, overrides: TurnOverrides, config: Config): void {
  if (!config.requirements) return;
  const settings = channel.thread?.effectiveSettings;
  enforceCeiling(config, {
    sandboxMode: overrides.sandboxMode ?? settings?.sandboxMode,
    approvalPolicy: overrides.approvalPolicy ?? settings?.approvalPolicy,
  });
}

/**
 * command/exec: the request's sandbox policy, else the server's sandbox_mode; with
 * `permissionProfile`, that profile (and `profileMode`, its legacy sandbox mode, when known).
 */
export function enforceCommandCeiling(
  config: Config,
  sandboxPolicy: SandboxPolicy | null | undefined,
  permissionProfile?: { id: string; profileMode?: SandboxMode } | null,
): void {
  enforceCeiling(
    config,
    permissionProfile
      ? { permissionProfile: permissionProfile.id, sandboxMode: permissionProfile.profileMode }
      : { sandboxMode: sandboxPolicy ? wireMode(sandboxPolicy) : config.sandboxMode },
  );
}

/** The sandbox mode a wire policy runs as; an external sandbox is no sandbox of ours: full access. */
export function wireMode(policy: SandboxPolicy): SandboxMode {
  switch (policy.type) {
    case "readOnly":
      return "read-only";
    case "workspaceWrite":
      return "workspace-write";
    default:
      return "danger-full-access";
  }
}
