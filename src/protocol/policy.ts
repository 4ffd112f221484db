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
export type SandboxMode = z.infer<typeof sandboxModeSchema>;

/** How output meant for the model is cut down (from model metadata; reference section 4). */
export type TruncationPolicy = { mode: "tokens"; limit: number } | { mode: "bytes"; limit: number };
