/**
 * A thread's open MCP elicitations (an MCP server's `elicitation/create` during a tool call):
 * announced by an `elicitation_request` event, answered by `answerElicitation(id, result)`.
 * Bounded: no answer in time declines, an interrupted turn cancels; never a hang.
 */
import { randomUUID } from "node:crypto";
import type { ElicitationRequest, ElicitationResult, Event } from "../protocol/events.js";
import { PendingRequests } from "./pending-requests.js";

/** Default bound for a person to answer (config `approval_timeout_ms` bounds it too). */
export const DEFAULT_ELICITATION_TIMEOUT_MS = 120_000;

const KIND = "elicitation";

export class PendingElicitations {
  private readonly pending = new PendingRequests<ElicitationResult>();

  constructor(
    private readonly emit: (event: Event) => void,
    private readonly timeoutMs: number = DEFAULT_ELICITATION_TIMEOUT_MS,
  ) {}

  ask(
    server: string,
    request: ElicitationRequest,
    turnId: string,
    signal: AbortSignal,
  ): Promise<ElicitationResult> {
    const id = randomUUID();
    return this.pending.wait({
      id,
      kind: KIND,
      signal,
      timeoutMs: this.timeoutMs,
      announce: () =>
        this.emit({
          type: "elicitation_request",
          id,
          turn_id: turnId,
          server_name: server,
          message: request.message,
          request,
        }),
      onTimeout: () => {
        this.emit({
          type: "warning",
          message: `elicitation from MCP server '${server}' got no answer within ${this.timeoutMs} ms; declined`,
        });
        return { action: "decline" };
      },
      onAbort: () => ({ action: "cancel" }),
    });
  }

  answer(id: string, result: ElicitationResult): boolean {
    return this.pending.answer(KIND, id, result);
  }
}
