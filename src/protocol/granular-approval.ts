/**
 * Codex's granular approval policy (`approval_policy = { granular = {...} }`): asks as on-request
 * does, but each category set to false is declined at once instead of asking anyone (the reviewer,
 * a person). `skill_approval` and `request_permissions` name prompts tscodex does not make; they
 * are accepted and kept. No zod here: config loading reads it on every start (the schema is in
 * policy.ts).
 */
import type { ApprovalPolicy } from "./policy.js";

export interface GranularApproval {
  /** Command escalations and sandbox retries, edits outside the writable roots, blocked hosts. */
  sandbox_approval: boolean;
  /** exec-policy `prompt` rules. */
  rules: boolean;
  /** MCP servers' elicitations and MCP tool calls that need approval. */
  mcp_elicitations: boolean;
  skill_approval: boolean;
  request_permissions: boolean;
}

export type ApprovalCategory = keyof GranularApproval;

/** A configured approval policy: a name, or the granular object. */
export type ApprovalSetting = ApprovalPolicy | { granular: GranularApproval };

/** The policy an approval setting asks by, and its categories (null for a plain name). */
export function approvalOfSetting(setting: ApprovalSetting): {
  approvalPolicy: ApprovalPolicy;
  granular: GranularApproval | null;
} {
  return typeof setting === "string"
    ? { approvalPolicy: setting, granular: null }
    : { approvalPolicy: "on-request", granular: setting.granular };
}
