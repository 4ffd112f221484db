/**
 * One connection's JSON-RPC endpoint, transport-agnostic (stdio lines or WebSocket frames).
 * Responsibilities: classify each incoming message; hand requests to the dispatcher and send
 * exactly one reply for each (a thrown error becomes a JSON-RPC error; an invalid message gets
 * its -32700/-32600/-32602 error); send notifications; send server → client requests and match
 * their replies, each wait bounded, cancellable, and ended when the connection closes.
 */
import type { z } from "zod";
import type { TraceCarrier } from "../../protocol/telemetry.js";
import { traceCarrier } from "../common/trace-context.js";
import type { PendingRequest, RequestOutcome } from "./client-link.js";
import {
  classify,
  encodeError,
  encodeRequest,
  encodeResult,
  type RequestId,
  RpcError,
} from "./protocol/jsonrpc.js";

/** Where a connection's messages go: one call per message (the transport adds framing). */
export interface MessageSink {
  send(text: string): void;
  /** Bytes sent but not yet taken by the client (absent: unknown, taken as 0). */
  backlog?(): number;
}

/** What a request handler returns: the result, and what to do once the reply is on its way. */
export interface Reply {
  result: unknown;
  /** Runs right after the reply is sent (e.g. start the turn, so turn/started follows the reply). */
  after?: () => void;
}

export interface RequestHandler {
  /** `trace`: the request's W3C trace context (Codex's `trace` envelope), when it sent one. */
  request(method: string, params: unknown, trace?: TraceCarrier): Promise<Reply>;
  notification(method: string, params: unknown): void;
}

interface Waiting {
  schema: z.ZodType;
  finish(outcome: RequestOutcome<unknown>): void;
}

export class RpcPeer {
  private nextId = 0;
  private readonly waiting = new Map<RequestId, Waiting>();
  private closed = false;

  constructor(
    private readonly sink: MessageSink,
    private readonly handler: RequestHandler,
  ) {}

  get isOpen(): boolean {
    return !this.closed;
  }

  /** Handle one incoming message. Never throws. */
  receive(text: string): void {
    const message = classify(text);
    switch (message.kind) {
      case "invalid":
        this.send(encodeError(message.id, message.error));
        return;
      case "notification":
        this.handler.notification(message.method, message.params);
        return;
      case "request":
        void this.serve(
          message.id,
          message.method,
          message.params,
          traceCarrier(message.trace?.traceparent, message.trace?.tracestate),
        );
        return;
      case "response":
        this.settle(message.id, message.result, null);
        return;
      case "error-response":
        this.settle(message.id, undefined, message.error);
        return;
    }
  }

  /** Send one already-encoded message (dropped once closed). */
  send(text: string): void {
    if (!this.closed) this.sink.send(text);
  }

  /**
   * Ask the client `method`; the outcome arrives as a value, never a rejection: its result
   * (checked against `schema`), its error, or timeout / cancelled / closed.
   */
  request<T>(method: string, params: unknown, schema: z.ZodType<T>, timeoutMs: number): PendingRequest<T> {
    const id = this.nextId++;
    let finish!: (outcome: RequestOutcome<T>) => void;
    const outcome = new Promise<RequestOutcome<T>>((resolve) => {
      finish = resolve;
    });
    if (this.closed) {
      finish({ kind: "closed" });
      return { id, outcome, cancel: () => {} };
    }
    const timer = setTimeout(() => done({ kind: "timeout" }), timeoutMs);
    const done = (result: RequestOutcome<T>): void => {
      if (!this.waiting.has(id)) return;
      this.waiting.delete(id);
      clearTimeout(timer);
      finish(result);
    };
    this.waiting.set(id, { schema, finish: done as (outcome: RequestOutcome<unknown>) => void });
    this.send(encodeRequest(id, method, params));
    return { id, outcome, cancel: () => done({ kind: "cancelled" }) };
  }

  /** The connection is gone: every open request ends as `closed`; nothing more is sent. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const waiting of [...this.waiting.values()]) waiting.finish({ kind: "closed" });
  }

  private async serve(id: RequestId, method: string, params: unknown, trace?: TraceCarrier): Promise<void> {
    let reply: Reply;
    try {
      reply = await this.handler.request(method, params, trace);
    } catch (error) {
      this.send(encodeError(id, RpcError.from(error)));
      return;
    }
    this.send(encodeResult(id, reply.result));
    reply.after?.();
  }

  private settle(id: RequestId, result: unknown, error: { code: number; message: string } | null): void {
    const waiting = this.waiting.get(id);
    // An answer to nothing we asked (or asked and gave up on): ignored, as a late answer must be.
    if (!waiting) return;
    if (error) {
      waiting.finish({ kind: "error", code: error.code, message: error.message });
      return;
    }
    const parsed = waiting.schema.safeParse(result);
    waiting.finish(
      parsed.success
        ? { kind: "result", value: parsed.data }
        : {
            kind: "error",
            code: 0,
            message: `unreadable answer: ${parsed.error.issues[0]?.message ?? "invalid"}`,
          },
    );
  }
}
