/**
 * JSON-RPC 2.0 envelopes and error codes. Incoming text is classified by hand (not with one
 * schema) so each malformed message gets the precise code: -32700 unparsable, -32600 not a
 * request, -32601 unknown method, -32602 bad params, -32603 our failure.
 * Server messages carry `"jsonrpc": "2.0"` (Codex omits it; JSON-RPC 2.0 requires it).
 */
import { errorMessage } from "../../../util/errors.js";

export const ErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
} as const;

export type RequestId = string | number;

/** A failure with its JSON-RPC code; handlers throw these for errors the client should see. */
export class RpcError extends Error {
  override name = "RpcError";
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }

  static invalidRequest(message: string): RpcError {
    return new RpcError(ErrorCode.InvalidRequest, message);
  }

  static invalidParams(message: string): RpcError {
    return new RpcError(ErrorCode.InvalidParams, message);
  }

  /** Any thrown value as an RpcError (an unexpected failure is -32603 with its message). */
  static from(error: unknown): RpcError {
    if (error instanceof RpcError) return error;
    return new RpcError(ErrorCode.InternalError, errorMessage(error));
  }
}

/** Codex 0.171's W3C Trace Context envelope on a request (`trace: {traceparent, tracestate}`). */
export interface W3cTraceContext {
  traceparent: string | null;
  tracestate: string | null;
}

/** What one line / frame of input turned out to be. */
export type Incoming =
  /** `trace`: the request's trace context, carried for tracing (not acted on yet); null when absent. */
  | { kind: "request"; id: RequestId; method: string; params: unknown; trace: W3cTraceContext | null }
  | { kind: "notification"; method: string; params: unknown }
  | { kind: "response"; id: RequestId; result: unknown }
  | { kind: "error-response"; id: RequestId; error: { code: number; message: string } }
  /** Unanswerable as a request: reply with this error (id null when it had no usable id). */
  | { kind: "invalid"; id: RequestId | null; error: RpcError };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isRequestId(value: unknown): value is RequestId {
  return typeof value === "string" || (typeof value === "number" && Number.isSafeInteger(value));
}

/** Classify one message's text. Never throws. */
export function classify(text: string): Incoming {
  let message: unknown;
  try {
    message = JSON.parse(text);
  } catch (error) {
    return {
      kind: "invalid",
      id: null,
      error: new RpcError(ErrorCode.ParseError, `Parse error: ${errorMessage(error)}`),
    };
  }
  if (Array.isArray(message))
    return invalid(null, "Invalid request: batches are not supported; send one message per line");
  if (!isRecord(message)) return invalid(null, "Invalid request: a message must be a JSON object");
  const hasId = "id" in message;
  const id = isRequestId(message.id) ? message.id : null;
  if (hasId && id === null) return invalid(null, "Invalid request: `id` must be a string or an integer");
  if ("jsonrpc" in message && message.jsonrpc !== "2.0")
    return invalid(id, 'Invalid request: `jsonrpc` must be "2.0"');

  if ("method" in message) {
    if (typeof message.method !== "string" || message.method === "")
      return invalid(id, "Invalid request: `method` must be a non-empty string");
    const params = message.params ?? undefined;
    if (params !== undefined && !isRecord(params))
      return {
        kind: "invalid",
        id,
        error: RpcError.invalidParams("Invalid params: `params` must be an object"),
      };
    return id === null
      ? { kind: "notification", method: message.method, params }
      : { kind: "request", id, method: message.method, params, trace: traceOf(message.trace) };
  }
  if (id !== null && "result" in message) return { kind: "response", id, result: message.result };
  if (id !== null && isRecord(message.error)) {
    const { code, message: text } = message.error;
    return {
      kind: "error-response",
      id,
      error: { code: typeof code === "number" ? code : 0, message: typeof text === "string" ? text : "" },
    };
  }
  return invalid(id, "Invalid request: expected `method` (a request) or `result`/`error` (a response)");
}

/**
 * A request's `trace`, when it is the envelope Codex's schema describes; anything else is
 * dropped, not refused: as the W3C Trace Context spec has it, a bad trace context never fails
 * the request it came with.
 */
function traceOf(value: unknown): W3cTraceContext | null {
  if (!isRecord(value)) return null;
  const field = (name: string) => (typeof value[name] === "string" ? (value[name] as string) : null);
  const trace = { traceparent: field("traceparent"), tracestate: field("tracestate") };
  return trace.traceparent === null && trace.tracestate === null ? null : trace;
}

function invalid(id: RequestId | null, message: string): Incoming {
  return { kind: "invalid", id, error: RpcError.invalidRequest(message) };
}

/** The text of a reply, a notification, or a server request (one line, no newline). */
export function encodeResult(id: RequestId, result: unknown): string {
  return JSON.stringify({ jsonrpc: "2.0", id, result });
}

export function encodeError(id: RequestId | null, error: RpcError): string {
  return JSON.stringify({ jsonrpc: "2.0", id, error: { code: error.code, message: error.message } });
}

export function encodeNotification(method: string, params: unknown): string {
  return JSON.stringify({ jsonrpc: "2.0", method, params });
}

export function encodeRequest(id: RequestId, method: string, params: unknown): string {
  return JSON.stringify({ jsonrpc: "2.0", id, method, params });
}
