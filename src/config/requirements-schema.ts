/**
 * One requirements.toml checked: TOML, then the keys tscodex enforces (zod), Codex's other keys
 * either ignored with a warning (those about ChatGPT login, the desktop app, telemetry: nothing a
 * command could do with them) or refused (those that bound what runs, which tscodex cannot
 * enforce yet: running as if they were not there would run wider than the operator asked).
 * Anything else is refused as unknown, so a misspelt key never leaves the ceiling open.
 */
import { parse as parseToml } from "smol-toml";
import { z } from "zod";
import { approvalPolicySchema, sandboxModeSchema } from "../protocol/policy.js";
import { intersection, RequirementsError, type RequirementsFile } from "./requirements-file.js";

/** Codex requirements that say nothing about what a command may do: ignored, with a warning. */
const IGNORED_KEYS = new Set([
  "allowed_login_methods",
  "allowed_chatgpt_workspaces",
  "cli_auth_credentials_store",
  "chatgpt_base_url",
  "sqlite_home",
  "log_dir",
  "model_catalog_json",
  "check_for_update_on_startup",
  "feedback",
  "allow_appshots",
  "allow_remote_control",
  "allow_browser_and_computer_use",
  "computer_use",
  "browser_use",
  "in_app_browser",
  "windows",
  "allowed_windows_sandbox_implementations",
  "enforce_residency",
  "application",
  "models",
  "auto_review",
  "allowed_approvals_reviewers",
  "guardian_policy_config",
  "additional_developer_instructions",
  "default_permissions",
]);

/** Codex requirements that bound what runs and that tscodex does not enforce: refused. */
const UNENFORCED_KEYS = new Set([
  "remote_sandbox_config",
  "allowed_web_search_modes",
  "allow_managed_hooks_only",
  "allow_login_shell",
  "hooks",
  "mcp_servers",
  "plugins",
  "marketplaces",
  "apps",
  "rules",
  "features",
  "feature_requirements",
  "experimental_network",
  "permissions",
]);

const fileSchema = z.object({
  allowed_sandbox_modes: z
    .array(sandboxModeSchema)
    .min(1)
    // Codex's rule: a safe mode must stay available.
    .refine((modes) => modes.includes("read-only"), 'must include "read-only"')
    .optional(),
  allowed_approval_policies: z.array(approvalPolicySchema).min(1).optional(),
  allowed_permission_profiles: z
    .record(z.string().min(1), z.boolean())
    .refine((profiles) => Object.values(profiles).includes(true), "must allow at least one profile")
    .optional(),
});

/** The file at `path` whose text is `text`, and its warnings; throws RequirementsError naming it. */
export function parseRequirementsFile(
  path: string,
  text: string,
): { file: RequirementsFile; warnings: string[] } {
  let table: Record<string, unknown>;
  try {
    table = parseToml(text) as Record<string, unknown>;
  } catch (error) {
    throw new RequirementsError(`${path}: invalid TOML: ${(error as Error).message}`, { cause: error });
  }
  const warnings: string[] = [];
  const enforced: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(table)) {
    if (Object.hasOwn(fileSchema.shape, key)) enforced[key] = value;
    else if (IGNORED_KEYS.has(key))
      warnings.push(`${path}: requirement '${key}' is not used by tscodex (ignored)`);
    else if (UNENFORCED_KEYS.has(key))
      throw new RequirementsError(
        `${path}: requirement '${key}' cannot be enforced by tscodex; remove it (tscodex enforces allowed_sandbox_modes, allowed_approval_policies and allowed_permission_profiles)`,
      );
    else throw new RequirementsError(`${path}: unknown key '${key}'`);
  }
  const checked = fileSchema.safeParse(enforced);
  if (!checked.success) {
    const issue = checked.error.issues[0];
    const key = issue?.path.join(".") ?? "";
    throw new RequirementsError(`${path}: ${key}: ${issue?.message ?? "invalid"}`);
  }
  const data = checked.data;
  return {
    file: {
      path,
      ...(data.allowed_sandbox_modes ? { allowedSandboxModes: data.allowed_sandbox_modes } : {}),
      ...(data.allowed_approval_policies ? { allowedApprovalPolicies: data.allowed_approval_policies } : {}),
      ...(data.allowed_permission_profiles
        ? { allowedPermissionProfiles: data.allowed_permission_profiles }
        : {}),
    },
    warnings,
  };
}

/** Throws when the files together leave nothing allowed for a setting (every request would be refused). */
export function checkCombined(files: readonly RequirementsFile[]): void {
  const fields = [
    ["allowed_approval_policies", files.map((file) => file.allowedApprovalPolicies)],
    [
      "allowed_permission_profiles",
      files.map((file) =>
        file.allowedPermissionProfiles
          ? Object.keys(file.allowedPermissionProfiles).filter((id) => file.allowedPermissionProfiles?.[id])
          : undefined,
      ),
    ],
  ] as const;
  for (const [key, lists] of fields) {
    const common = intersection<string>(lists);
    if (common !== null && common.length === 0) {
      const paths = files.filter((_, i) => lists[i] !== undefined).map((file) => file.path);
      throw new RequirementsError(
        `${key} of ${paths.join(" and ")} allow nothing in common: every request would be refused`,
      );
    }
  }
}
