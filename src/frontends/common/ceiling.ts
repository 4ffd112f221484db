/**
 * The operator's ceiling (config/requirements.ts) on what a new thread of a configuration would
 * run with, for the front-ends that open threads from their configuration (the MCP server's
 * `codex` tool, the HTTP proxy).
 */
import type { Config } from "../../config/load.js";
import { configuredPermissions } from "../../config/permission-profiles.js";
import { ceilingViolation, settingsViolation } from "../../config/requirements.js";
import type { ApprovalPolicy, SandboxMode } from "../../protocol/policy.js";

/**
 * Why a new thread of `config` would run above its ceiling: `given` over the configured
 * permissions (default_permissions' profile, else sandbox_mode) and approval policy; null when
 * within it. A configuration whose permissions cannot be resolved is judged by its sandbox_mode
 * (opening the thread then fails with that configuration's own error).
 */
export function configViolation(
  config: Config,
  given: { sandboxMode?: SandboxMode | undefined; approvalPolicy?: ApprovalPolicy | undefined } = {},
): string | null {
  if (!config.requirements) return null;
  let permissions: ReturnType<typeof configuredPermissions>["permissions"];
  try {
    permissions = configuredPermissions(config).permissions;
  } catch {
    return ceilingViolation(config.requirements, {
      sandboxMode: given.sandboxMode ?? config.sandboxMode,
      approvalPolicy: given.approvalPolicy ?? config.approvalPolicy,
    });
  }
  return settingsViolation(config.requirements, given, {
    permissions,
    approvalPolicy: config.approvalPolicy,
  });
}
