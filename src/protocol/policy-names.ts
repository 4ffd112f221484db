/**
 * The names of the approval policies and sandbox modes, without their zod schemas (policy.ts):
 * code on exec's start path (session/agent-control.ts) compares modes without loading zod.
 */

export const APPROVAL_POLICIES = ["untrusted", "on-failure", "on-request", "never"] as const;
/** Sandbox modes from the most restricted to the least. */
export const SANDBOX_MODES = ["read-only", "workspace-write", "danger-full-access"] as const;
