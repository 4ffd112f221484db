/**
 * What a thread channel needs from a connected client: send it encoded messages, ask it things
 * (server → client requests with a bounded wait), and know whether it is still there. The
 * session implements it; the channel and the server-request helpers only see this.
 */
import type { z } from "zod";
import type {
  ServerRequestMethod,
  ServerRequestParams,
  ServerRequestResult,
} from "./protocol/server-messages.js";

/** How a server → client request ended. Never a rejection. */
export type RequestOutcome<T> =
  | { kind: "result"; value: T }
  /** The client answered with a JSON-RPC error, or a result that does not fit the schema. */
  | { kind: "error"; code: number; message: string }
  /** No answer within the bound. */
  | { kind: "timeout" }
  /** We stopped waiting (the turn ended, the core decided on its own). */
  | { kind: "cancelled" }
  /** The connection closed first. */
  | { kind: "closed" };

export interface PendingRequest<T> {
  /** The JSON-RPC id the request went out with. */
  readonly id: number;
  readonly outcome: Promise<RequestOutcome<T>>;
  /** Stop waiting: the outcome becomes `cancelled` and a late answer is ignored. */
  cancel(): void;
}

export interface ClientLink {
  /** Distinguishes connections in logs. */
  readonly id: number;
  /** False once the connection closed. */
  readonly open: boolean;
  /** Send one already-encoded message. */
  send(text: string): void;
  request<M extends ServerRequestMethod>(
    method: M,
    params: ServerRequestParams<M>,
    /** What the answer must fit (the method's result schema; server-requests.ts has them). */
    result: z.ZodType<ServerRequestResult<M>>,
    timeoutMs: number,
  ): PendingRequest<ServerRequestResult<M>>;
}
