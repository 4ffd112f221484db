/**
 * The app-server's wire ↔ the core's permissions value: Codex's `SandboxPolicy` (turn/start
 * `sandboxPolicy`, command/exec, every thread response's `sandbox`) and the active profile.
 * A profile reads on the wire as its legacy projection, as Codex's thread responses show it.
 */

import { homedir } from "node:os";
import { isAbsolute, resolve } from "node:path";
import type { Config } from "../../config/load.js";
import { PermissionProfileError, resolvePermissionProfile } from "../../config/permission-profiles.js";
import type { ApprovalSetting, GranularApproval } from "../../protocol/granular-approval.js";
import type { Permissions, ProfileRef } from "../../protocol/permissions.js";
import {
  legacyProjection,
  NO_EXTENT,
  permissionsFromSandboxMode,
} from "../../protocol/permissions-legacy.js";
import type { ApprovalPolicy } from "../../protocol/policy.js";
import type { SandboxPolicy } from "./protocol/common.js";
import { RpcError } from "./protocol/jsonrpc.js";

/**
 * A wire policy as a whole value: a workspaceWrite policy brings its own roots, network and
 * temp-dir exclusions (absent: none, off, not excluded), never the thread's earlier ones. An
 * external sandbox means the process is already confined: commands run without ours. A root
 * that is not an absolute path cannot be honoured and is refused (-32602) rather than guessed at.
 */
export function permissionsFromWire(policy: SandboxPolicy): Permissions {
  switch (policy.type) {
    case "dangerFullAccess":
    case "externalSandbox":
      return permissionsFromSandboxMode("danger-full-access");
    case "readOnly":
      return permissionsFromSandboxMode("read-only");
    case "workspaceWrite": {
      const roots = policy.writableRoots ?? [];
      const relative = roots.find((root) => !isAbsolute(root));
      if (relative !== undefined)
        throw RpcError.invalidParams(
          `Invalid request: sandboxPolicy.writableRoots: '${relative}' is not an absolute path`,
        );
      return permissionsFromSandboxMode("workspace-write", {
        ...NO_EXTENT,
        writableRoots: roots.map((root) => resolve(root)),
        networkAccess: policy.networkAccess ?? false,
        excludeSlashTmp: policy.excludeSlashTmp ?? false,
        excludeTmpdirEnvVar: policy.excludeTmpdirEnvVar ?? false,
      });
    }
  }
}

/** How a value shows as Codex's SandboxPolicy (a profile: its legacy projection). */
export function wireSandboxOf(permissions: Permissions): SandboxPolicy {
  const { mode, extent } = legacyProjection(permissions);
  switch (mode) {
    case "danger-full-access":
      return { type: "dangerFullAccess" };
    case "read-only":
      return { type: "readOnly" };
    case "workspace-write":
      return {
        type: "workspaceWrite",
        writableRoots: [...extent.writableRoots],
        networkAccess: extent.networkAccess,
        excludeTmpdirEnvVar: extent.excludeTmpdirEnvVar,
        excludeSlashTmp: extent.excludeSlashTmp,
      };
  }
}

/** The thread response's `activePermissionProfile`: the profile in force, null for a bare sandbox mode. */
export function activeProfileOf(permissions: Permissions): ProfileRef | null {
  return permissions.profile ? { ...permissions.profile } : null;
}

/**
 * thread/start's, thread/resume's and turn/start's `permissions`: a profile id (built-in or
 * `[permissions.NAME]`), never with `sandbox`/`sandboxPolicy` (Codex's rule). Errors as Codex
 * words them, -32600.
 */
export function permissionsParam(
  id: string | null | undefined,
  sandboxGiven: boolean,
  config: Config,
): Permissions | undefined {
  if (!id) return undefined;
  if (sandboxGiven) throw RpcError.invalidRequest("`permissions` cannot be combined with `sandbox`");
  return loadingProfiles(() => resolvePermissionProfile(config.permissionProfiles, id, homedir()));
}

/** `load()`, a profile error turned into Codex's -32600 "failed to load configuration: ...". */
export function loadingProfiles<T>(load: () => T): T {
  try {
    return load();
  } catch (error) {
    if (error instanceof PermissionProfileError)
      throw RpcError.invalidRequest(`failed to load configuration: ${error.message}`);
    throw error;
  }
}

/** What a thread's settings say on the wire: the granular object when one is in force, else the name. */
export function approvalToWire(
  approvalPolicy: ApprovalPolicy,
  granular: GranularApproval | null,
): ApprovalSetting {
  return granular ? { granular } : approvalPolicy;
}
