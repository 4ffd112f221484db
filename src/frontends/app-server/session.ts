/**
 * One client connection: its JSON-RPC peer, the handshake state (`initialize`, then the
 * `initialized` notification), its capabilities, and the threads it follows.
 * Dispatch order for a request: unknown method (-32601) → not initialized / already initialized
 * (-32600, Codex's messages) → params (-32602) → the handler. Closing the session interrupts the
 * turns it started and ends every question waiting on it.
 */
import type { z } from "zod";
import { preloadEnabled } from "../common/preload.js";
import type { PendingRequest } from "./client-link.js";
import { ConnectionScope } from "./connection-scope.js";
import type { ClientInfo, HandlerContext, SessionHandle } from "./handlers/context.js";
import { initialize } from "./handlers/initialize.js";
import { notProvidedMessage } from "./not-provided.js";
import { parseParams } from "./params.js";
import {
  CLIENT_METHODS,
  type ClientMethod,
  clientRequests,
  isClientMethod,
  type ParamsOf,
} from "./protocol/client-requests.js";
import { ErrorCode, RpcError } from "./protocol/jsonrpc.js";
import {
  type ServerRequestMethod,
  type ServerRequestParams,
  type ServerRequestResult,
  serverRequests,
} from "./protocol/server-messages.js";
import { type MessageSink, type Reply, RpcPeer } from "./rpc-peer.js";
import type { AppServerRuntime } from "./runtime.js";
import type { ThreadChannel } from "./thread-channel.js";

let nextSessionId = 1;

export class ClientSession implements SessionHandle {
  readonly id = nextSessionId++;
  private readonly peer: RpcPeer;
  private readonly followed = new Set<ThreadChannel>();
  private readonly closing = new AbortController();
  readonly scope = new ConnectionScope();
  clientInfo: ClientInfo | null = null;
  experimentalApi = false;

  constructor(
    readonly runtime: AppServerRuntime,
    private readonly sink: MessageSink,
  ) {
    this.peer = new RpcPeer(sink, {
      request: (method, params) => this.dispatch(method, params),
      notification: () => {
        // `initialized` needs no action; unknown notifications cannot be answered.
      },
    });
    runtime.connected(this);
  }

  get open(): boolean {
    return this.peer.isOpen;
  }

  /** Aborted when the connection closes (stops what the client started outside turns). */
  get signal(): AbortSignal {
    return this.closing.signal;
  }

  get initialized(): boolean {
    return this.clientInfo !== null;
  }

  /** One incoming message (a line, a frame). */
  receive(text: string): void {
    this.peer.receive(text);
  }

  send(text: string): void {
    this.peer.send(text);
  }

  backlog(): number {
    return this.sink.backlog?.() ?? 0;
  }

  request<M extends ServerRequestMethod>(
    method: M,
    params: ServerRequestParams<M>,
    timeoutMs: number,
  ): PendingRequest<ServerRequestResult<M>> {
    // Each method's result schema parses to ServerRequestResult<M>; the table lookup loses that link.
    const schema = serverRequests[method].result as unknown as z.ZodType<ServerRequestResult<M>>;
    return this.peer.request(method, params, schema, timeoutMs);
  }

  /** Receive `channel`'s notifications (idempotent). */
  follow(channel: ThreadChannel): void {
    this.followed.add(channel);
    channel.attach(this);
  }

  unfollow(channel: ThreadChannel): void {
    this.followed.delete(channel);
    channel.unfollowedBy(this);
  }

  /** The client is gone: its turns are interrupted, its open questions end. */
  close(): void {
    if (!this.peer.isOpen) return;
    this.runtime.disconnected(this);
    this.peer.close();
    this.closing.abort();
    this.scope.close();
    for (const channel of this.followed) channel.detach(this);
    this.followed.clear();
  }

  private async dispatch(method: string, rawParams: unknown): Promise<Reply> {
    if (!isClientMethod(method)) {
      const notProvided = notProvidedMessage(method);
      if (notProvided) throw new RpcError(ErrorCode.MethodNotFound, notProvided);
      const known = CLIENT_METHODS.map((name) => `\`${name}\``).join(", ");
      throw new RpcError(
        ErrorCode.MethodNotFound,
        `Method not found: unknown variant \`${method}\`, expected one of ${known}`,
      );
    }
    if (method === "initialize" && this.initialized) throw RpcError.invalidRequest("Already initialized");
    if (method !== "initialize" && !this.initialized) throw RpcError.invalidRequest("Not initialized");
    const afters: (() => void)[] = [];
    const context: HandlerContext = { runtime: this.runtime, session: this, after: (a) => afters.push(a) };
    const result = await run(method, rawParams, context);
    // The handshake is answered: load the rest while the client gets ready for its first call.
    if (method === "initialize" && preloadEnabled()) afters.push(loadHandlersSoon);
    return {
      result,
      after: () => {
        for (const action of afters) action();
      },
    };
  }
}

type AnyHandler = (params: unknown, context: HandlerContext) => Promise<unknown>;

/**
 * The other handlers (and the agent core below them) load after the handshake: in the background
 * once `initialize` is answered, or at the first other request if that comes first.
 */
let loading: Promise<typeof import("./handlers/index.js")> | null = null;

const loadHandlers = () => {
  loading ??= import("./handlers/index.js");
  return loading;
};

/**
 * Starts loading the handlers after the reply just written has gone out (setImmediate: after
 * the pending I/O callbacks), so the load never delays the handshake it follows. A failure is
 * not reported here: the first request that needs the handlers awaits the same promise.
 */
function loadHandlersSoon(): void {
  setImmediate(() => void loadHandlers().catch(() => {}));
}

/** Validate `raw` for `method` and run its handler. */
async function run<M extends ClientMethod>(
  method: M,
  raw: unknown,
  context: HandlerContext,
): Promise<unknown> {
  const params = parseParams(clientRequests[method].params, raw);
  if (method === "initialize") return initialize(params as ParamsOf<"initialize">, context);
  const handler = (await loadHandlers()).handlers[method] as AnyHandler;
  return handler(params, context);
}
