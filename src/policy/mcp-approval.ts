/**
 * MCP tool calls, decided: whether a call runs, is asked about or is refused before it reaches
 * the server. Pure (planMcpCall) plus the asking (approveMcpCall), which goes through the
 * thread's approval store like commands and patches do.
 *
 * Approval modes (Codex's `AppToolApproval`, reference section 3): `approve` never asks;
 * `auto` and `writes` let a tool annotated `readOnlyHint: true` run and need approval for any
 * other; `prompt` needs approval for every call. A call needing approval is asked about where
 * the approval policy allows asking, and refused under `never` with Codex's message.
 * Under danger-full-access Codex runs every tool, `prompt` included; tscodex keeps `prompt`
 * asking there (a prompt mode that never prompts is a surprise). A call to ask about goes to
 * the PermissionRequest hooks first, as a command's escalation does.
 */
import type { McpToolApprovalMode } from "../config/mcp-servers.js";
import type { ApprovalPolicy, SandboxMode } from "../protocol/policy.js";
import type { McpCallApprovalRequest, McpCallVerdict } from "../tools/types.js";
import { type ApprovalStore, isApproved } from "./approval-store.js";

/** Codex's texts: refused under `never`, and declined by whoever was asked. */
export const MCP_APPROVAL_UNDER_NEVER = "MCP tool call requires approval, but approval policy is never";
export const MCP_REJECTED_BY_USER = "user rejected MCP tool call";

/**
 * What the model gets when a PermissionRequest hook denies an MCP call. Codex has no text for
 * this case (its exec never asks hooks about MCP calls); ours names the hook and its reason.
 */
export function mcpHookRejection(message: string): string {
  return `MCP tool call rejected by PermissionRequest hook: ${message}`;
}

export interface McpPlanInput {
  approvalMode: McpToolApprovalMode;
  readOnly: boolean;
  approvalPolicy: ApprovalPolicy;
  sandboxMode: SandboxMode;
}

export type McpPlan = { action: "run" } | { action: "ask" } | { action: "reject"; message: string };

export function planMcpCall(input: McpPlanInput): McpPlan {
  const { approvalMode, readOnly } = input;
  if (approvalMode === "approve") return { action: "run" };
  const prompt = approvalMode === "prompt";
  if (!prompt && readOnly) return { action: "run" };
  if (!prompt && input.sandboxMode === "danger-full-access") return { action: "run" };
  if (input.approvalPolicy === "never") return { action: "reject", message: MCP_APPROVAL_UNDER_NEVER };
  return { action: "ask" };
}

/** Decide `request`, asking through the turn (bounded) when the plan says so. */
export async function approveMcpCall(
  store: ApprovalStore,
  request: McpCallApprovalRequest,
): Promise<McpCallVerdict> {
  const { turn } = request.inv;
  const plan = planMcpCall({
    approvalMode: request.approvalMode,
    readOnly: request.readOnly,
    approvalPolicy: turn.approvalPolicy,
    sandboxMode: turn.sandboxMode,
  });
  if (plan.action === "run") return { allowed: true };
  const telemetry = request.inv.telemetry;
  if (plan.action === "reject") {
    telemetry?.decision("denied", "Config");
    return { allowed: false, message: plan.message };
  }
  // PermissionRequest hooks decide first; only when none does is the front-end asked.
  const hook = await turn.permissionHook?.({
    kind: "mcp",
    toolName: request.inv.toolName,
    server: request.server,
    tool: request.tool,
    arguments: request.arguments,
  });
  if (hook) {
    telemetry?.decision(hook.allow ? "approved" : "denied", "Hook");
    return hook.allow ? { allowed: true } : { allowed: false, message: mcpHookRejection(hook.message) };
  }
  const decision = await store.ask(turn, {
    kind: "mcp",
    callId: request.inv.callId,
    server: request.server,
    tool: request.tool,
    arguments: request.arguments,
    cwd: turn.cwd,
    reason: `Allow the ${request.server} MCP server to run tool "${request.tool}"?`,
  });
  telemetry?.decision(decision, "User");
  return isApproved(decision)
    ? { allowed: true }
    : { allowed: false, message: turn.approvalNote?.(request.inv.callId) ?? MCP_REJECTED_BY_USER };
}
