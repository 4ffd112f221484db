/**
 * The UI's JSON-RPC 2.0 client: requests with ids, notifications from the server, and the
 * server's own requests (approvals) answered by a handler. It only sees text messages, so the
 * same client runs over the in-process link and over a WebSocket.
 */
import { isRecord } from "./wire.js";

/** A message pipe: one JSON-RPC message per `send`, one per `onMessage` call. */
export interface RpcTransport {
  send(text: string): void;
  onMessage(listener: (text: string) => void): void;
  onClose(listener: (reason: string) => void): void;
  close(): void;
}

/** A JSON-RPC error answer, with its numeric code (-32601: the server lacks the method). */
export class RpcCallError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

export const METHOD_NOT_FOUND = -32601;
type Params = Record<string, unknown>;
type Pending = { resolve: (value: unknown) => void; reject: (error: Error) => void };

/** The server's messages, their params as sent (the TUI's wire.ts types them). */
export interface RpcHandlers {
  notification(method: string, params: Params): void;
  /** A server → client request; resolves with the result to send back. */
  request(method: string, params: Params, id: string | number): Promise<unknown>;
}

export class RpcClient {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();

  constructor(
    private readonly transport: RpcTransport,
    private readonly handlers: RpcHandlers,
  ) {
    transport.onMessage((text) => this.receive(text));
    transport.onClose((reason) => {
      for (const waiter of this.pending.values()) waiter.reject(new Error(`connection closed: ${reason}`));
      this.pending.clear();
    });
  }

  request<T = Params>(method: string, params: Params): Promise<T> {
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: (value) => resolve(value as T), reject });
      this.transport.send(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
    });
  }

  notify(method: string, params?: Params): void {
    this.transport.send(JSON.stringify({ jsonrpc: "2.0", method, ...(params ? { params } : {}) }));
  }

  close(): void {
    this.transport.close();
  }

  private receive(text: string): void {
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      return;
    }
    if (!isRecord(message)) return;
    const id = message.id;
    const method = typeof message.method === "string" ? message.method : undefined;
    const params = isRecord(message.params) ? message.params : {};
    if (method && (typeof id === "number" || typeof id === "string")) {
      this.handlers.request(method, params, id).then(
        (result) => this.transport.send(JSON.stringify({ jsonrpc: "2.0", id, result })),
        (error: unknown) =>
          this.transport.send(
            JSON.stringify({ jsonrpc: "2.0", id, error: { code: -32603, message: String(error) } }),
          ),
      );
      return;
    }
    if (method) {
      this.handlers.notification(method, params);
      return;
    }
    if (typeof id !== "number") return;
    const waiter = this.pending.get(id);
    if (!waiter) return;
    this.pending.delete(id);
    const error = message.error;
    if (isRecord(error)) {
      const code = typeof error.code === "number" ? error.code : -32603;
      waiter.reject(new RpcCallError(code, typeof error.message === "string" ? error.message : "error"));
    } else waiter.resolve(message.result);
  }
}
