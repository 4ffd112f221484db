/** A TurnContext for handler tests: real cwd, events recorded. */
import type { ToolInvocation, ToolPayload, TurnContext } from "../../src/tools/types.js";
import { type TestTurn, testTurnContext } from "../support/turn-context.js";

export type FakeTurn = TestTurn;

export function fakeTurn(cwd: string): FakeTurn {
  return testTurnContext({ cwd, shellEnvironment: { env: {} } });
}

export function invocation(turn: TurnContext, payload: ToolPayload, callId = "call_1"): ToolInvocation {
  return { callId, toolName: "apply_patch", payload, turn };
}
