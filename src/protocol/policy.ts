/**
 * The policy vocabulary every layer shares: approval policies, sandbox modes and how output for
 * the model is truncated. Values and schemas only (no I/O), so config, prompt, tools, policy and
 * the front-ends all import it from here and the arrows point down.
 */
import { z } from "zod";
import { APPROVAL_POLICIES, SANDBOX_MODES } from "./policy-names.js";

export { APPROVAL_POLICIES, SANDBOX_MODES };

export const approvalPolicySchema = z.enum(APPROVAL_POLICIES);
export const sandboxModeSchema = z.enum(SANDBOX_MODES);

export type ApprovalPolicy = z.infer<typeof approvalPolicySchema>;

/** Codex's granular approval policy object (granular-approval.ts says what it means). */
export const granularApprovalSchema = z.object({
  granular: z.object({
    sandbox_approval: z.boolean(),
    rules: z.boolean(),
    mcp_elicitations: z.boolean(),
    skill_approval: z.boolean().default(false),
    request_permissions: z.boolean().default(false),
  }),
});

/** A configured approval policy: a name, or the granular object (which asks as on-request does). */
export const approvalSettingSchema = z.union([approvalPolicySchema, granularApprovalSchema]);
export type SandboxMode = z.infer<typeof sandboxModeSchema>;

/** How output meant for the model is cut down (from model metadata; reference section 4). */
export type TruncationPolicy = { mode: "tokens"; limit: number } | { mode: "bytes"; limit: number };
