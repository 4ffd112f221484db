/** MCP tool-call approval decisions (policy/mcp-approval.ts): the plan, asking, session memory. */
import { describe, expect, it } from "vitest";
import type { McpToolApprovalMode } from "../../src/config/mcp-servers.js";
import { ApprovalStore } from "../../src/policy/approval-store.js";
import {
  approveMcpCall,
  MCP_APPROVAL_UNDER_NEVER,
  MCP_REJECTED_BY_USER,
  planMcpCall,
} from "../../src/policy/mcp-approval.js";
import type { ApprovalPolicy, SandboxMode } from "../../src/protocol/policy.js";
import { testTurnContext } from "../support/turn-context.js";

const plan = (
  approvalMode: McpToolApprovalMode,
  readOnly: boolean,
  approvalPolicy: ApprovalPolicy = "never",
  sandboxMode: SandboxMode = "workspace-write",
) => planMcpCall({ approvalMode, readOnly, approvalPolicy, sandboxMode }).action;

describe("planMcpCall", () => {
  it("auto and writes: read-only tools run, others need approval", () => {
    for (const mode of ["auto", "writes"] as const) {
      expect(plan(mode, true)).toBe("run");
      expect(plan(mode, false)).toBe("reject");
      expect(plan(mode, false, "on-request")).toBe("ask");
      expect(plan(mode, false, "untrusted", "read-only")).toBe("ask");
    }
  });

  it("prompt always needs approval, approve never does", () => {
    expect(plan("prompt", true)).toBe("reject");
    expect(plan("prompt", true, "on-failure")).toBe("ask");
    expect(plan("approve", false)).toBe("run");
    expect(plan("approve", false, "untrusted")).toBe("run");
  });

  it("danger-full-access runs everything but prompt, which still asks (a difference from Codex)", () => {
    expect(plan("auto", false, "never", "danger-full-access")).toBe("run");
    expect(plan("writes", false, "on-request", "danger-full-access")).toBe("run");
    expect(plan("prompt", true, "on-request", "danger-full-access")).toBe("ask");
    expect(plan("prompt", true, "never", "danger-full-access")).toBe("reject");
  });
});

describe("approveMcpCall", () => {
  const request = (turn: ReturnType<typeof testTurnContext>, callId: string, tool = "write") => ({
    inv: {
      callId,
      toolName: `mcp__srv__${tool}`,
      payload: { kind: "function" as const, arguments: "{}" },
      turn,
    },
    server: "srv",
    tool,
    arguments: { a: 1 },
    approvalMode: "auto" as const,
    readOnly: false,
  });

  it("refuses under never with Codex's message, asking nobody", async () => {
    const turn = testTurnContext({ approvalPolicy: "never", sandboxMode: "read-only" });
    expect(await approveMcpCall(new ApprovalStore(), request(turn, "c1"))).toEqual({
      allowed: false,
      message: MCP_APPROVAL_UNDER_NEVER,
    });
    expect(turn.questions).toEqual([]);
  });

  it("asks the question, and remembers approved_for_session per server tool", async () => {
    const turn = testTurnContext({
      approvalPolicy: "on-request",
      sandboxMode: "workspace-write",
      answers: ["denied", "approved_for_session"],
    });
    const store = new ApprovalStore();
    expect(await approveMcpCall(store, request(turn, "c1"))).toEqual({
      allowed: false,
      message: MCP_REJECTED_BY_USER,
    });
    expect(await approveMcpCall(store, request(turn, "c2"))).toEqual({ allowed: true });
    expect(await approveMcpCall(store, request(turn, "c3"))).toEqual({ allowed: true });
    expect(await approveMcpCall(store, request(turn, "c4", "other"))).toEqual({
      allowed: false,
      message: MCP_REJECTED_BY_USER,
    });
    expect(turn.questions.map((question) => question.callId)).toEqual(["c1", "c2", "c4"]);
    expect(turn.questions[0]).toMatchObject({
      kind: "mcp",
      server: "srv",
      tool: "write",
      arguments: { a: 1 },
      reason: 'Allow the srv MCP server to run tool "write"?',
    });
  });
});
