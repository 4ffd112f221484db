/** A TurnContext for handler tests: real cwd, events recorded. */
import type { Event } from "../../src/protocol/events.js";
import type { ToolInvocation, ToolPayload, TurnContext } from "../../src/tools/types.js";

export interface FakeTurn extends TurnContext {
  readonly events: Event[];
}

export function fakeTurn(cwd: string): FakeTurn {
  const events: Event[] = [];
  return {
    threadId: "thread-1",
    turnId: "turn-1",
    cwd,
    approvalPolicy: "never",
    sandboxMode: "danger-full-access",
    networkAccess: false,
    writableRoots: [],
    shellEnvironment: { env: {} },
    truncation: { mode: "bytes", limit: 10_000 },
    signal: new AbortController().signal,
    events,
    emit(event) {
      events.push(event);
    },
  };
}

export function invocation(turn: TurnContext, payload: ToolPayload, callId = "call_1"): ToolInvocation {
  return { callId, toolName: "apply_patch", payload, turn };
}
