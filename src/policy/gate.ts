/**
 * The router's approval gate. Patches are decided here, before anything is written (apply_patch
 * and shell-intercepted heredoc patches describe their real paths when they are prepared).
 * Commands pass: every command a tool runs goes through the orchestrator when it runs, which
 * can also retry after a sandbox denial (something a gate in front of the call cannot do).
 */
import type { ApprovalGate, ApprovalVerdict } from "../tools/router.js";
import type { ApprovalRequest, ToolInvocation } from "../tools/types.js";
import { PATCH_REJECTED_BY_USER, planPatch } from "./approval.js";
import { type ApprovalStore, isApproved } from "./approval-store.js";
import { pathsOutside, realWritableRoots } from "./patch-paths.js";

export class PolicyGate implements ApprovalGate {
  constructor(
    private readonly store: ApprovalStore,
    /** Never writable without asking, even inside a root (the tscodex home). */
    private readonly protectedPaths: readonly string[] = [],
  ) {}

  async check(invocation: ToolInvocation, request: ApprovalRequest): Promise<ApprovalVerdict> {
    const { turn } = invocation;
    const roots = turn.sandboxMode === "workspace-write" ? await realWritableRoots(turn.writableRoots) : [];
    const plan = planPatch({
      approvalPolicy: turn.approvalPolicy,
      sandboxMode: turn.sandboxMode,
      outside: pathsOutside(request.paths, roots, await realWritableRoots(this.protectedPaths)),
      remembered: this.store.hasAllPaths(request.paths),
    });
    if (plan.action === "run") return { allowed: true };
    if (plan.action === "reject") {
      invocation.telemetry?.decision("denied", "Config");
      return { allowed: false, message: plan.message };
    }
    const decision = await this.store.ask(
      turn,
      {
        kind: "patch",
        callId: invocation.callId,
        changes: request.changes,
        reason: plan.reason,
        grantRoot: null,
      },
      request.paths,
    );
    invocation.telemetry?.decision(decision, "User");
    return isApproved(decision)
      ? { allowed: true, asked: true }
      : { allowed: false, message: turn.approvalNote?.(invocation.callId) ?? PATCH_REJECTED_BY_USER };
  }
}
