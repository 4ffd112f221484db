/** A TurnContext for policy tests: chosen policies, recorded events and scripted approval answers. */
import type { Event, ReviewDecision } from "../../src/protocol/events.js";
import type { ApprovalPolicy, SandboxMode } from "../../src/protocol/policy.js";
import type { ApprovalQuestion, ToolInvocation, TurnContext } from "../../src/tools/types.js";

export interface PolicyTurn extends TurnContext {
  readonly events: Event[];
  /** Every question asked, in order. */
  readonly questions: ApprovalQuestion[];
  readonly abort: AbortController;
}

export interface PolicyTurnOptions {
  cwd?: string;
  approvalPolicy?: ApprovalPolicy | undefined;
  sandboxMode?: SandboxMode;
  writableRoots?: string[];
  /** Answers, in order; when they run out the answer is "denied". */
  answers?: ReviewDecision[];
  /** No requestApproval at all (as outside a thread). */
  noAsker?: boolean;
}

export function policyTurn(options: PolicyTurnOptions = {}): PolicyTurn {
  const events: Event[] = [];
  const questions: ApprovalQuestion[] = [];
  const answers = [...(options.answers ?? [])];
  const abort = new AbortController();
  const cwd = options.cwd ?? "/work";
  const turn: PolicyTurn = {
    threadId: "thread-1",
    turnId: "turn-1",
    cwd,
    approvalPolicy: options.approvalPolicy ?? "on-request",
    sandboxMode: options.sandboxMode ?? "workspace-write",
    networkAccess: false,
    writableRoots: options.writableRoots ?? [cwd, "/tmp"],
    shellEnvironment: { env: { PATH: process.env.PATH ?? "" } },
    truncation: { mode: "bytes", limit: 10_000 },
    signal: abort.signal,
    events,
    questions,
    abort,
    emit(event) {
      events.push(event);
    },
  };
  if (options.noAsker) return turn;
  return {
    ...turn,
    async requestApproval(question) {
      questions.push(question);
      return answers.shift() ?? "denied";
    },
  };
}

export function invocationFor(turn: TurnContext, callId = "call_1"): ToolInvocation {
  return { callId, toolName: "shell_command", payload: { kind: "function", arguments: "{}" }, turn };
}
