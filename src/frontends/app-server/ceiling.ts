/**
 * The operator's ceiling (requirements.toml, config/requirements.ts) on app-server requests: a
 * thread, a turn or a command that would run above it is refused with -32600 (Codex's code for
 * configuration errors) naming the requirement and its file, before anything starts. What is
 * judged is what would run: the request's own value, else the thread's (live or stored), else
 * the configured default.
 */

import type { Config } from "../../config/load.js";
import {
  type CeilingRequest,
  ceilingViolation,
  permissionsRequest,
  settingsViolation,
} from "../../config/requirements.js";
import { type ApprovalSetting, approvalOfSetting } from "../../protocol/granular-approval.js";
import type { Permissions } from "../../protocol/permissions.js";
import type { SandboxMode } from "../../protocol/policy.js";
import type { TurnOverrides } from "../../session/thread.js";
import { configViolation } from "../common/ceiling.js";
import { RpcError } from "./protocol/jsonrpc.js";
import type { AppServerRuntime } from "./runtime.js";
import type { ThreadChannel } from "./thread-channel.js";

/** Throws -32600 naming the requirement when `request` is above `config`'s ceiling. */
export function enforceCeiling(config: Config, request: CeilingRequest): void {
  const refused = ceilingViolation(config.requirements, request);
  if (refused) throw RpcError.invalidRequest(refused);
}

/**
 * thread/start, thread/resume, thread/fork: the thread's permissions and approval policy as it
 * will run them: the params' (a `permissions` profile id, else `sandbox`), else those of thread
 * `threadId` (live, else as stored), else what `config` gives a new thread.
 */
export async function enforceThreadCeiling(
  runtime: AppServerRuntime,
  params: {
    sandbox?: SandboxMode | null | undefined;
    approvalPolicy?: ApprovalSetting | null | undefined;
    permissions?: string | null | undefined;
  },
  config: Config,
  threadId?: string,
): Promise<void> {
  if (!config.requirements) return;
  const live = threadId ? runtime.channel(threadId)?.thread?.effectiveSettings : undefined;
  const stored = threadId && !live ? await runtime.storedChoice(threadId) : null;
  const given = {
    ...(params.sandbox ? { sandboxMode: params.sandbox } : {}),
    // The granular object asks as on-request does: the ceiling weighs it as that.
    ...(params.approvalPolicy
      ? { approvalPolicy: approvalOfSetting(params.approvalPolicy).approvalPolicy }
      : {}),
  };
  const approvalPolicy = given.approvalPolicy ?? live?.approvalPolicy ?? stored?.approvalPolicy;
  const refused = params.permissions
    ? ceilingViolation(config.requirements, {
        permissionProfile: params.permissions,
        approvalPolicy: approvalPolicy ?? config.approvalPolicy,
      })
    : live
      ? settingsViolation(config.requirements, given, live)
      : stored?.sandboxMode
        ? ceilingViolation(config.requirements, {
            sandboxMode: given.sandboxMode ?? stored.sandboxMode,
            approvalPolicy: approvalPolicy ?? config.approvalPolicy,
          })
        : configViolation(config, { ...given, ...(approvalPolicy ? { approvalPolicy } : {}) });
  if (refused) throw RpcError.invalidRequest(refused);
}

/** turn/start, review/start, thread/shellCommand: the turn's overrides over what the thread runs with. */
export function enforceTurnCeiling(channel: ThreadChannel, overrides: TurnOverrides, config: Config): void {
  if (!config.requirements) return;
  const settings = channel.thread?.effectiveSettings;
  const approvalPolicy = overrides.approvalPolicy ?? settings?.approvalPolicy;
  const permissions = overrides.permissions ?? (overrides.sandboxMode ? undefined : settings?.permissions);
  enforceCeiling(config, {
    ...(permissions ? permissionsRequest(permissions) : { sandboxMode: overrides.sandboxMode }),
    approvalPolicy,
  });
}

/**
 * command/exec: the permissions the command would run with (its `sandboxPolicy`, else its
 * `permissionProfile`, else the configured ones), as one value.
 */
export function enforceCommandCeiling(config: Config, permissions: Permissions): void {
  enforceCeiling(config, permissionsRequest(permissions));
}
