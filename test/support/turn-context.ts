/**
 * The one TurnContext factory for handler and policy tests. Every dependency a real thread
 * supplies is required (fail closed), so tests pass explicit doubles: an orchestrator that runs
 * commands as given (no policy, no sandbox), scripted approval answers, a client that answers
 * every client tool call, and a resource scope the test owns.
 */

import { TurnDiffTracker } from "../../src/apply-patch/turn-diff.js";
import { type ClientToolResult, failedClientResult } from "../../src/protocol/client-tools.js";
import type { Event, ReviewDecision } from "../../src/protocol/events.js";
import { NO_EXTENT, permissionsFromSandboxMode } from "../../src/protocol/permissions-legacy.js";
import type { ApprovalGate } from "../../src/tools/router.js";
import type {
  ApprovalQuestion,
  ClientToolCall,
  CommandOrchestrator,
  OrchestratedCommand,
  OrchestratedResult,
  ToolHandler,
  ToolInvocation,
  ToolOutput,
  TurnContext,
} from "../../src/tools/types.js";
import { ResourceScope } from "../../src/util/resource-scope.js";

/** A double: runs every command (and MCP call) as given, unsandboxed, asking nobody. */
export const directOrchestrator: CommandOrchestrator = {
  async run<T>(request: OrchestratedCommand<T>): Promise<OrchestratedResult<T>> {
    request.onStart?.();
    return {
      kind: "ran",
      result: await request.runner(request.command, {
        sandboxed: false,
        env: {},
        blockedHosts: () => [],
        holdUntil: () => {},
      }),
      sandboxed: false,
    };
  },
  approveMcpCall: async () => ({ allowed: true }),
  confine: async (command) => command,
};

/** A double: lets every mutating call run. */
export const allowAllGate: ApprovalGate = { check: async () => ({ allowed: true }) };

export interface TestTurn extends TurnContext {
  /** Every event the handlers emitted, in order. */
  readonly events: Event[];
  /** Every approval question asked, in order. */
  readonly questions: ApprovalQuestion[];
  /** Every client tool call made, in order. */
  readonly clientCalls: ClientToolCall[];
  readonly abort: AbortController;
}

export interface TestTurnOptions extends Partial<TurnContext> {
  /** Approval answers, in order; when they run out the answer is "denied". */
  answers?: ReviewDecision[];
  /** The client's answer to each client tool call (default: a failed call). */
  clientTool?: (call: ClientToolCall) => Promise<ClientToolResult> | ClientToolResult;
  /** Aborting it interrupts the turn (default: a fresh controller). */
  abort?: AbortController;
}

export function testTurnContext(options: TestTurnOptions = {}): TestTurn {
  const { answers: given, clientTool, abort: givenAbort, emit: forward, ...context } = options;
  const events: Event[] = [];
  const questions: ApprovalQuestion[] = [];
  const clientCalls: ClientToolCall[] = [];
  const answers = [...(given ?? [])];
  const abort = givenAbort ?? new AbortController();
  const cwd = context.cwd ?? "/tmp";
  return {
    threadId: "thread-1",
    turnId: "turn-1",
    cwd,
    approvalPolicy: "never",
    sandboxMode: "danger-full-access",
    networkAccess: false,
    writableRoots: [],
    shellEnvironment: { env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: cwd, LANG: "C.UTF-8" } },
    truncation: { mode: "bytes", limit: 10_000 },
    resources: new ResourceScope(),
    orchestrator: directOrchestrator,
    diffTracker: new TurnDiffTracker(),
    async requestApproval(question) {
      questions.push(question);
      return answers.shift() ?? "denied";
    },
    async requestUserInput() {
      return { kind: "unavailable" };
    },
    async requestElicitation() {
      return { action: "decline" };
    },
    async callClientTool(call) {
      clientCalls.push(call);
      return clientTool ? clientTool(call) : failedClientResult("no client in this test");
    },
    ...context,
    // A test that names only a mode gets that mode's value (its roots and network as given).
    permissions:
      context.permissions ??
      permissionsFromSandboxMode(context.sandboxMode ?? "danger-full-access", {
        ...NO_EXTENT,
        writableRoots: context.writableRoots ?? [],
        networkAccess: context.networkAccess ?? false,
      }),
    signal: context.signal ?? abort.signal,
    events,
    questions,
    clientCalls,
    abort,
    emit(event) {
      events.push(event);
      forward?.(event);
    },
  };
}

/** Prepare and run a call as the router does when the gate allows it without asking. */
export async function runHandler(handler: ToolHandler, invocation: ToolInvocation): Promise<ToolOutput> {
  const prepared = await handler.prepare(invocation);
  return prepared.run({ asked: false });
}
