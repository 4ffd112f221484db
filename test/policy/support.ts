/** A TurnContext for policy tests: chosen policies, recorded events and scripted approval answers. */
import type { ReviewDecision } from "../../src/protocol/events.js";
import type { ApprovalPolicy, SandboxMode } from "../../src/protocol/policy.js";
import type { ToolInvocation, TurnContext } from "../../src/tools/types.js";
import { type TestTurn, testTurnContext } from "../support/turn-context.js";

export type PolicyTurn = TestTurn;

export interface PolicyTurnOptions {
  cwd?: string;
  approvalPolicy?: ApprovalPolicy | undefined;
  sandboxMode?: SandboxMode;
  writableRoots?: string[];
  /** Answers, in order; when they run out the answer is "denied". */
  answers?: ReviewDecision[];
}

export function policyTurn(options: PolicyTurnOptions = {}): PolicyTurn {
  const cwd = options.cwd ?? "/work";
  return testTurnContext({
    cwd,
    approvalPolicy: options.approvalPolicy ?? "on-request",
    sandboxMode: options.sandboxMode ?? "workspace-write",
    writableRoots: options.writableRoots ?? [cwd, "/tmp"],
    shellEnvironment: { env: { PATH: process.env.PATH ?? "" } },
    answers: options.answers ?? [],
  });
}

export function invocationFor(turn: TurnContext, callId = "call_1"): ToolInvocation {
  return { callId, toolName: "shell_command", payload: { kind: "function", arguments: "{}" }, turn };
}
