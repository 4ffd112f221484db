/**
 * One client connection: its JSON-RPC peer, the handshake state (`initialize`, then the
 * `initialized` notification), its capabilities, and the threads it follows.
 * Dispatch order for a request: unknown method (-32601) → not initialized / already initialized
 * (-32600, Codex's messages) → params (-32602) → the handler. Closing the session interrupts the
 * turns it started and ends every question waiting on it.
 */
import type { z } from "zod";
import type { TraceCarrier } from "../../protocol/telemetry.js";
import { preloadEnabled } from "../common/preload.js";
import type { PendingRequest } from "./client-link.js";
import { ConnectionScope } from "./connection-scope.js";
import type { ClientInfo, HandlerContext, SessionHandle } from "./handlers/context.js";
import { initialize } from "./handlers/initialize.js";
import { notProvidedMessage } from "./not-provided.js";
import { parseParams } from "./params.js";
import type { ClientMethod, ParamsOf } from "./protocol/client-requests.js";
import { initializeRequest } from "./protocol/initialize-request.js";
import { ErrorCode, RpcError } from "./protocol/jsonrpc.js";
import type {
  ServerRequestMethod,
  ServerRequestParams,
  ServerRequestResult,
} from "./protocol/server-messages.js";
import { type MessageSink, type Reply, RpcPeer } from "./rpc-peer.js";
import type { AppServerRuntime } from "./runtime.js";
import type { ThreadChannel } from "./thread-channel.js";

let nextSessionId = 1;

export class ClientSession implements SessionHandle {
  readonly id = nextSessionId++;
  private readonly peer: RpcPeer;
  private readonly followed = new Set<ThreadChannel>();
  /** Threads this client unsubscribed from (thread/unsubscribe answers notSubscribed again). */
  private readonly left = new Set<string>();
  private readonly closing = new AbortController();
  readonly scope = new ConnectionScope();
  clientInfo: ClientInfo | null = null;
  experimentalApi = false;

  constructor(
    readonly runtime: AppServerRuntime,
    private readonly sink: MessageSink,
  ) {
    this.peer = new RpcPeer(sink, {
      request: (method, params, trace) => this.dispatch(method, params, trace),
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
    result: z.ZodType<ServerRequestResult<M>>,
    timeoutMs: number,
  ): PendingRequest<ServerRequestResult<M>> {
    return this.peer.request(method, params, result, timeoutMs);
  }

  /** Receive `channel`'s notifications (idempotent). */
  follow(channel: ThreadChannel): void {
    this.followed.add(channel);
    this.left.delete(channel.id);
    channel.attach(this);
  }

  unfollow(channel: ThreadChannel): void {
    this.followed.delete(channel);
    this.left.add(channel.id);
    channel.unfollowedBy(this);
  }

  hasLeft(threadId: string): boolean {
    return this.left.has(threadId);
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

  private async dispatch(method: string, rawParams: unknown, trace?: TraceCarrier): Promise<Reply> {
    // The handshake as it stood when the request arrived decides, not as it stands once the
    // method table has loaded: a request sent before initialize is refused even if initialize
    // was answered meanwhile. initialize itself waits for nothing.
    const initialized = this.initialized;
    const paramsSchema =
      method === "initialize" ? initializeRequest.params() : await tableParamsSchema(method);
    if (method === "initialize" && initialized) throw RpcError.invalidRequest("Already initialized");
    if (method !== "initialize" && !initialized) throw RpcError.invalidRequest("Not initialized");
    const afters: (() => void)[] = [];
    const context: HandlerContext = {
      runtime: this.runtime,
      session: this,
      after: (a) => afters.push(a),
      ...(trace ? { trace } : {}),
    };
    const params = parseParams(paramsSchema, rawParams);
    const result = await run(method as ClientMethod, params, context);
    // The handshake is answered: load the rest while the client gets ready for its first call.
    if (method === "initialize" && preloadEnabled()) afters.push(() => loadSoon(this.runtime));
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
 * The other handlers (and the agent core below them) and the table of the other methods load
 * after the handshake: in the background once `initialize` is answered, or at the first other
 * request if that comes first. A method's params schema is built at its first use (method-spec.ts).
 */
let loadingHandlers: Promise<typeof import("./handlers/index.js")> | null = null;
let loadingTable: Promise<typeof import("./protocol/client-requests.js")> | null = null;

const loadHandlers = () => {
  loadingHandlers ??= import("./handlers/index.js");
  return loadingHandlers;
};

const loadTable = () => {
  loadingTable ??= import("./protocol/client-requests.js");
  return loadingTable;
};

/**
 * Starts loading the handlers, the method table and the thread modules after the reply just
 * written has gone out (setImmediate: after the pending I/O callbacks), so the load never delays
 * the handshake it follows. A failure is not reported here: the first request that needs them
 * awaits the same import.
 */
function loadSoon(runtime: AppServerRuntime): void {
  setImmediate(() => {
    loadTable().catch(() => {});
    loadHandlers().catch(() => {});
    runtime.preloadThreads().catch(() => {});
  });
}

/**
 * The schema a method other than initialize checks its params with (loading the method table),
 * or -32601 for a method we do not serve, in Codex's words, naming every method.
 */
async function tableParamsSchema(method: string): Promise<z.ZodType> {
  const { CLIENT_METHODS, clientRequests, isClientMethod } = await loadTable();
  if (isClientMethod(method)) return clientRequests[method].params();
  const notProvided = notProvidedMessage(method);
  if (notProvided) throw new RpcError(ErrorCode.MethodNotFound, notProvided);
  const known = CLIENT_METHODS.map((name) => `\`${name}\``).join(", ");
  throw new RpcError(
    ErrorCode.MethodNotFound,
    `Method not found: unknown variant \`${method}\`, expected one of ${known}`,
  );
}

/** Run `method`'s handler with its validated params. */
async function run(method: ClientMethod, params: unknown, context: HandlerContext): Promise<unknown> {
  if (method === "initialize") return initialize(params as ParamsOf<"initialize">, context);
  const handler = (await loadHandlers()).handlers[method] as AnyHandler;
  return handler(params, context);
}
