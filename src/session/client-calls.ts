/**
 * A thread's open client-tool calls: each is announced by a `client_tool_call_request` event and
 * answered by `respondToTool(callId, result)`. Bounded: no answer within `client_tool_timeout_ms`
 * is a failed call the model reads; an interrupted turn ends the wait at once.
 */
import { type ClientToolResult, failedClientResult } from "../protocol/client-tools.js";
import type { Event } from "../protocol/events.js";
import type { ClientToolCall } from "../tools/types.js";
import { PendingRequests } from "./pending-requests.js";

/** Default bound for a client to answer a tool call (config `client_tool_timeout_ms`). */
export const DEFAULT_CLIENT_TOOL_TIMEOUT_MS = 120_000;

const KIND = "client_tool";

export class PendingClientCalls {
  private readonly pending = new PendingRequests<ClientToolResult>();

  constructor(
    private readonly emit: (event: Event) => void,
    private readonly timeoutMs: number = DEFAULT_CLIENT_TOOL_TIMEOUT_MS,
  ) {}

  /** Ask the front-end to run `call`; emits the request and, once answered, the end event. */
  async call(call: ClientToolCall, turnId: string, signal: AbortSignal): Promise<ClientToolResult> {
    const started = performance.now();
    const base = { call_id: call.callId, turn_id: turnId, tool: call.tool, arguments: call.arguments };
    const result = await this.pending.wait({
      id: call.callId,
      kind: KIND,
      signal,
      timeoutMs: this.timeoutMs,
      announce: () => this.emit({ type: "client_tool_call_request", ...base }),
      onTimeout: () =>
        failedClientResult(`the client did not answer the ${call.tool} call within ${this.timeoutMs} ms`),
      onAbort: () => failedClientResult("aborted: the turn was interrupted"),
    });
    this.emit({
      type: "client_tool_call_end",
      ...base,
      result,
      duration_ms: Math.round(performance.now() - started),
    });
    return result;
  }

  /** Answer call `callId`; false when no such call is waiting. */
  respond(callId: string, result: ClientToolResult): boolean {
    return this.pending.answer(KIND, callId, result);
  }

  /** True while call `callId` waits for its answer. */
  has(callId: string): boolean {
    return this.pending.kindOf(callId) === KIND;
  }
}
