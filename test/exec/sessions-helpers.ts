/** Shared by the exec-session tests: a turn with a scope, tool calls, reply envelopes; process liveness and polling (from ../support/processes.js). */

import type { Event } from "../../src/protocol/events.js";
import type { ToolDefinition, ToolInvocation, TurnContext } from "../../src/tools/types.js";
import { ResourceScope } from "../../src/util/resource-scope.js";
import { runHandler, testTurnContext } from "../support/turn-context.js";

export { alive, gone, readPid, waitFor } from "../support/processes.js";

export interface TestTurn {
  context: TurnContext;
  events: Event[];
  abort: AbortController;
}

/** A turn of a thread whose resources are `scope`; HOME is `home` so login shells stay quiet. */
export function testTurn(scope: ResourceScope, cwd: string, turnId = "turn-1"): TestTurn {
  const events: Event[] = [];
  const abort = new AbortController();
  const context = testTurnContext({
    cwd,
    turnId,
    networkAccess: true,
    truncation: { mode: "tokens", limit: 10_000 },
    resources: scope,
    abort,
    emit: (event) => events.push(event),
  });
  return { context, events, abort };
}

let calls = 0;

/** Calls a tool's handler as the router would; returns the output text. */
export async function callTool(
  tool: ToolDefinition,
  turn: TurnContext,
  args: Record<string, unknown> | string,
  callId = `call_${++calls}`,
): Promise<string> {
  const invocation: ToolInvocation = {
    callId,
    toolName: tool.spec.type === "function" ? tool.spec.name : tool.spec.type,
    payload: { kind: "function", arguments: typeof args === "string" ? args : JSON.stringify(args) },
    turn,
  };
  try {
    const output = await runHandler(tool.handler, invocation);
    return String(output.content);
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/** The parts of an exec_command / write_stdin reply. */
export interface Envelope {
  chunkId: string;
  wallSeconds: number;
  exitCode: number | null;
  sessionId: number | null;
  tokens: number;
  notes: string[];
  output: string;
}

const ENVELOPE =
  /^Chunk ID: ([0-9a-f]{6})\nWall time: (\d+\.\d{4}) seconds\n(?:Process exited with code (-?\d+)|Process running with session ID (\d{4,5}))\nOriginal token count: (\d+)\n((?:Note: .*\n)*)Output:\n([\s\S]*)$/;

export function parseEnvelope(text: string): Envelope {
  const match = ENVELOPE.exec(text);
  if (!match) throw new Error(`not an exec envelope:\n${text}`);
  return {
    chunkId: match[1] ?? "",
    wallSeconds: Number(match[2]),
    exitCode: match[3] === undefined ? null : Number(match[3]),
    sessionId: match[4] === undefined ? null : Number(match[4]),
    tokens: Number(match[5]),
    notes: (match[6] ?? "").split("\n").filter(Boolean),
    output: match[7] ?? "",
  };
}

export { ResourceScope };
