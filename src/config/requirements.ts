/**
 * The operator's ceiling: Codex's `requirements.toml` (`allowed_sandbox_modes`,
 * `allowed_approval_policies`, `allowed_permission_profiles`), read from /etc/tscodex/, /etc/codex/
 * and the home of the user running tscodex. Every request that can run or write something is
 * checked against it at its entry point (app-server, exec, MCP server, HTTP proxy) and refused
 * with an error naming the requirement and the file.
 *
 * Several files: each one bounds on its own, so a request passes only if every file allows it
 * (the most restrictive wins; a home file can narrow what /etc allows, never widen it). Codex
 * composes its layers per field, the more authoritative one winning; its layers are all the
 * administrator's, while the home here is the user's, so no file may widen another.
 *
 * No zod here: a run without requirements files never loads it (requirements-schema.ts is
 * imported only when a file exists).
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { Permissions } from "../protocol/permissions.js";
import { legacyProjection } from "../protocol/permissions-legacy.js";
import type { ApprovalPolicy, SandboxMode } from "../protocol/policy.js";
import { SANDBOX_MODES } from "../protocol/policy-names.js";
import { intersection, RequirementsError, type RequirementsFile } from "./requirements-file.js";

export { RequirementsError, type RequirementsFile };

/** Where the operator's files live, most authoritative first (the home's is added last). */
export const SYSTEM_REQUIREMENTS_FILES: readonly string[] = [
  "/etc/tscodex/requirements.toml",
  "/etc/codex/requirements.toml",
];

/** The requirements in force: every file that sets at least one, most authoritative first. */
export interface Requirements {
  files: RequirementsFile[];
  /** Keys Codex knows that tscodex does not use (ignored, said once on stderr). */
  warnings: string[];
}

/** A request's permissions as far as the ceiling judges them (absent: not asked for). */
export interface CeilingRequest {
  sandboxMode?: SandboxMode | null | undefined;
  approvalPolicy?: ApprovalPolicy | null | undefined;
  /** A permission profile id; pass its legacy sandbox mode too, when known, as `sandboxMode`. */
  permissionProfile?: string | null | undefined;
}

/** The built-in permission profile each legacy sandbox mode is. */
const BUILT_IN_PROFILE: Record<SandboxMode, string> = {
  "read-only": ":read-only",
  "workspace-write": ":workspace",
  "danger-full-access": ":danger-full-access",
};

/**
 * The requirements of `home` and the system files (`systemFiles`: tests give their own; the
 * default is the real /etc paths), or null when none of them exists. A file that cannot be read
 * or is invalid throws a RequirementsError naming it.
 */
export async function loadRequirements(
  home: string,
  systemFiles: readonly string[] = SYSTEM_REQUIREMENTS_FILES,
): Promise<Requirements | null> {
  const paths = [...systemFiles, join(home, "requirements.toml")];
  const texts = await Promise.all(paths.map(readIfPresent));
  const present = paths.flatMap((path, i) => {
    const text = texts[i];
    return text === undefined ? [] : [{ path, text }];
  });
  if (present.length === 0) return null;
  const { parseRequirementsFile, checkCombined } = await import("./requirements-schema.js");
  const warnings: string[] = [];
  const files: RequirementsFile[] = [];
  for (const { path, text } of present) {
    const parsed = parseRequirementsFile(path, text);
    warnings.push(...parsed.warnings);
    const { file } = parsed;
    if (file.allowedSandboxModes || file.allowedApprovalPolicies || file.allowedPermissionProfiles)
      files.push(file);
  }
  checkCombined(files);
  return { files, warnings };
}

async function readIfPresent(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return undefined;
    throw new RequirementsError(`${path}: cannot read: ${(error as Error).message}`, { cause: error });
  }
}

/**
 * Why `request` is above the ceiling, naming the requirement and its file; null when every file
 * allows it (or there are no requirements). When `allowed_permission_profiles` is set, profiles
 * are forced (Codex's rule): a legacy sandbox mode is judged as its built-in profile.
 */
export function ceilingViolation(
  requirements: Requirements | null | undefined,
  request: CeilingRequest,
): string | null {
  if (!requirements) return null;
  const profile = request.permissionProfile ?? null;
  const mode = request.sandboxMode ?? (profile ? builtInMode(profile) : null);
  const approval = request.approvalPolicy ?? null;
  for (const file of requirements.files) {
    if (mode && file.allowedSandboxModes && !file.allowedSandboxModes.includes(mode))
      return `sandbox mode \`${mode}\` is not allowed by requirements.toml (allowed_sandbox_modes = ${file.allowedSandboxModes.join(", ")}) at ${file.path}`;
    if (approval && file.allowedApprovalPolicies && !file.allowedApprovalPolicies.includes(approval))
      return `approval policy \`${approval}\` is not allowed by requirements.toml (allowed_approval_policies = ${file.allowedApprovalPolicies.join(", ")}) at ${file.path}`;
    const profiles = file.allowedPermissionProfiles;
    const id = profile ?? (mode ? BUILT_IN_PROFILE[mode] : null);
    if (id && profiles && profiles[id] !== true) {
      const what = profile
        ? `permission profile \`${id}\``
        : `sandbox mode \`${mode}\` (the built-in permission profile \`${id}\`)`;
      return `${what} is not allowed by requirements.toml (allowed_permission_profiles = ${allowedIds(profiles).join(", ")}) at ${file.path}`;
    }
  }
  return null;
}

/**
 * ceilingViolation for what a thread or turn would run with: `given` (a request's own values)
 * over `settings` (what the thread runs with, or a new one would).
 */
export function settingsViolation(
  requirements: Requirements | null | undefined,
  given: { sandboxMode?: SandboxMode | undefined; approvalPolicy?: ApprovalPolicy | undefined },
  settings: { permissions: Permissions; approvalPolicy: ApprovalPolicy },
): string | null {
  return ceilingViolation(requirements, {
    ...(given.sandboxMode ? { sandboxMode: given.sandboxMode } : permissionsRequest(settings.permissions)),
    approvalPolicy: given.approvalPolicy ?? settings.approvalPolicy,
  });
}

/** A Permissions value as the ceiling judges it: its profile (when it came from one) and the mode it projects onto. */
export function permissionsRequest(permissions: Permissions): CeilingRequest {
  return {
    permissionProfile: permissions.profile?.id ?? null,
    sandboxMode: legacyProjection(permissions).mode,
  };
}

/**
 * ceilingViolation for one Permissions value: its profile (when it came from one) and the
 * sandbox mode it projects onto, and the approval policy that goes with it.
 */
export function permissionsViolation(
  requirements: Requirements | null | undefined,
  permissions: Permissions,
  approvalPolicy?: ApprovalPolicy,
): string | null {
  return ceilingViolation(requirements, { ...permissionsRequest(permissions), approvalPolicy });
}

/** Whether permission profile `id` is within the ceiling (permissionProfile/list's `allowed`). */
export function profileAllowed(requirements: Requirements | null | undefined, id: string): boolean {
  return ceilingViolation(requirements, { permissionProfile: id }) === null;
}

/**
 * `preferred` when the ceiling allows it, else the first policy every file allows: what a default
 * nobody chose becomes (Codex falls back the same way), so only explicit choices are refused.
 */
export function approvalDefault(
  requirements: Requirements | null | undefined,
  preferred: ApprovalPolicy,
): ApprovalPolicy {
  if (ceilingViolation(requirements, { approvalPolicy: preferred }) === null) return preferred;
  const first = requirements?.files.find((file) => file.allowedApprovalPolicies)?.allowedApprovalPolicies;
  return (
    first?.find((policy) => ceilingViolation(requirements, { approvalPolicy: policy }) === null) ?? preferred
  );
}

/** `preferred` when the ceiling allows it, else the most restricted mode it allows (see approvalDefault). */
export function sandboxDefault(
  requirements: Requirements | null | undefined,
  preferred: SandboxMode,
): SandboxMode {
  if (ceilingViolation(requirements, { sandboxMode: preferred }) === null) return preferred;
  return (
    SANDBOX_MODES.find((mode) => ceilingViolation(requirements, { sandboxMode: mode }) === null) ?? preferred
  );
}

/**
 * How far a client's own writes (app-server fs/*) may reach under the ceiling: `anywhere` (no
 * bound on sandbox modes or profiles, or danger-full-access allowed), `workspace` (at most
 * workspace-write, or a named profile: judged as the workspace), `none` (read-only only).
 * `because`: the requirement and file that set the bound, when one does.
 */
export function fsWriteCeiling(requirements: Requirements | null | undefined): {
  reach: "anywhere" | "workspace" | "none";
  because: string | null;
} {
  const order = ["none", "workspace", "anywhere"] as const;
  let reach: (typeof order)[number] = "anywhere";
  let because: string | null = null;
  const narrow = (to: (typeof order)[number], why: string) => {
    if (order.indexOf(to) < order.indexOf(reach)) {
      reach = to;
      because = why;
    }
  };
  for (const file of requirements?.files ?? []) {
    if (file.allowedSandboxModes) {
      const widest = Math.max(...file.allowedSandboxModes.map((mode) => SANDBOX_MODES.indexOf(mode)));
      narrow(
        order[widest] ?? "none",
        `allowed_sandbox_modes = ${file.allowedSandboxModes.join(", ")} at ${file.path}`,
      );
    }
    const profiles = file.allowedPermissionProfiles;
    if (profiles) {
      const reaches = allowedIds(profiles).map((id) => {
        const mode = builtInMode(id);
        return mode ? SANDBOX_MODES.indexOf(mode) : 1;
      });
      narrow(
        order[Math.max(0, ...reaches)] ?? "none",
        `allowed_permission_profiles = ${allowedIds(profiles).join(", ")} at ${file.path}`,
      );
    }
  }
  return { reach, because };
}

/**
 * The requirements in Codex's `ConfigRequirements` wire shape (configRequirements/read), each
 * field what all the files together allow (lists intersected in the first file's order; a
 * profile allowed only where every file that lists profiles allows it); null when none.
 */
export function requirementsWire(requirements: Requirements | null | undefined): {
  allowedSandboxModes: SandboxMode[] | null;
  allowedApprovalPolicies: ApprovalPolicy[] | null;
  allowedPermissionProfiles: Record<string, boolean> | null;
} | null {
  if (!requirements || requirements.files.length === 0) return null;
  const { files } = requirements;
  const ids = new Set(files.flatMap((file) => Object.keys(file.allowedPermissionProfiles ?? {})));
  return {
    allowedSandboxModes: intersection(files.map((file) => file.allowedSandboxModes)),
    allowedApprovalPolicies: intersection(files.map((file) => file.allowedApprovalPolicies)),
    allowedPermissionProfiles:
      ids.size === 0
        ? null
        : Object.fromEntries(
            [...ids].map((id) => [
              id,
              files.every(
                (file) => !file.allowedPermissionProfiles || file.allowedPermissionProfiles[id] === true,
              ),
            ]),
          ),
  };
}

function allowedIds(profiles: Record<string, boolean>): string[] {
  return Object.keys(profiles).filter((id) => profiles[id] === true);
}

function builtInMode(id: string): SandboxMode | null {
  const entry = Object.entries(BUILT_IN_PROFILE).find(([, builtIn]) => builtIn === id);
  return entry ? (entry[0] as SandboxMode) : null;
}
