/**
 * The stdio server's requests to its client (elicitation): the calls it runs itself
 * (stdio-quick-call.ts) and the MCP SDK server both send them on one connection, so they share
 * one id space here. `ask` numbers its own; the SDK server's requests are renumbered on the way
 * out and their answers given the SDK's id back on the way in.
 */
import type { RequestId } from "./line-splitter.js";

export class ServerRequests {
  private nextId = 0;
  /** Answers awaited by `ask`, by request id. */
  private readonly asked = new Map<RequestId, (reply: Record<string, unknown>) => void>();
  /** The SDK server's requests in flight: wire id → the SDK's own id. */
  private readonly sdkIds = new Map<RequestId, RequestId>();

  constructor(private readonly send: (message: object) => Promise<void>) {}

  /** The connection closed: every pending `ask` fails, as the SDK's requests do. */
  close(): void {
    for (const answer of this.asked.values()) answer({ error: { message: "Connection closed" } });
  }

  /**
   * Sends a request for a call run here; resolves with its result, rejects with its error, or
   * after `timeoutMs` tells the client it is cancelled and rejects, as the SDK's requests do.
   */
  readonly ask = (method: string, params: Record<string, unknown>, timeoutMs: number) => {
    const id = this.nextId++;
    return new Promise<unknown>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.asked.delete(id);
        const reason = `McpError: MCP error -32001: Request timed out`;
        void this.send({
          jsonrpc: "2.0",
          method: "notifications/cancelled",
          params: { requestId: id, reason },
        });
        reject(new Error("Request timed out"));
      }, timeoutMs);
      this.asked.set(id, (reply) => {
        clearTimeout(timer);
        this.asked.delete(id);
        if ("result" in reply) resolve(reply.result);
        else reject(new Error(String((reply.error as { message?: unknown } | undefined)?.message)));
      });
      // The SDK's key order: method, params, jsonrpc, id.
      void this.send({ method, params, jsonrpc: "2.0", id });
    });
  };

  /**
   * The client's answer to a server request: one to `ask` is taken here (null: nothing more to
   * do with the line); one to the SDK server gets the SDK's id back. Any other line is unchanged.
   */
  route(line: string): string | null {
    if (this.asked.size === 0 && this.sdkIds.size === 0) return line;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      return line;
    }
    if (typeof value !== "object" || value === null || "method" in value || !("id" in value)) return line;
    const reply = value as Record<string, unknown>;
    const id = reply.id as RequestId;
    const answer = this.asked.get(id);
    if (answer) {
      // A malformed answer is dropped, as the SDK server drops it (the request then times out).
      if (wellFormedAnswer(reply)) answer(reply);
      return null;
    }
    const sdkId = this.sdkIds.get(id);
    if (sdkId === undefined) return line;
    this.sdkIds.delete(id);
    return JSON.stringify({ ...reply, id: sdkId });
  }

  /** A message of the SDK server on its way out: its requests take the next wire id. */
  fromSdk(message: object): object {
    const outgoing = message as Record<string, unknown>;
    if (typeof outgoing.method !== "string") return message;
    if ("id" in outgoing) {
      const id = this.nextId++;
      this.sdkIds.set(id, outgoing.id as RequestId);
      return { ...outgoing, id };
    }
    const params = outgoing.params as { requestId?: unknown } | undefined;
    if (outgoing.method !== "notifications/cancelled" || params?.requestId === undefined) return message;
    // The SDK gave up on one of its requests (a timeout): name it by its wire id.
    for (const [wire, sdk] of this.sdkIds)
      if (sdk === params.requestId) {
        this.sdkIds.delete(wire);
        return { ...outgoing, params: { ...params, requestId: wire } };
      }
    return message;
  }
}

/** A JSON-RPC response the SDK would accept: an object result, or an error with a code and message. */
function wellFormedAnswer(reply: Record<string, unknown>): boolean {
  if (reply.jsonrpc !== "2.0") return false;
  const { result, error } = reply as { result?: unknown; error?: { code?: unknown; message?: unknown } };
  if ("result" in reply) return typeof result === "object" && result !== null && !Array.isArray(result);
  return (
    typeof error === "object" &&
    error !== null &&
    Number.isSafeInteger(error.code) &&
    typeof error.message === "string"
  );
}
