/**
 * The stdio transport: newline-delimited JSON-RPC on stdin/stdout (nothing else may write to
 * stdout). Serves until stdin ends (the client closed) or `stop` resolves. Our own transport, not
 * the SDK's: every line that is not one valid message gets a JSON-RPC error reply, and a line over
 * `mcp_server.max_message_bytes` is answered and skipped instead of ending the server.
 *
 * Start-up is lazy: `initialize`, `ping` and `tools/list` get their early answers
 * (early-answers.ts) from this module alone. Once the handshake is answered (tools/list, or a
 * moment after initialize), the runtime's modules load in the background (nothing is opened: no
 * store, no thread), then, once no call is running, those of the MCP SDK server. A plain `codex` call that comes before the SDK server is
 * needed runs without it (stdio-quick-call.ts): zod and the SDK's schemas stay off the path of a
 * host's first call. The first other message opens the SDK server (over the same runtime); that
 * server is then told the client's `initialize` again (its reply dropped) so it knows the
 * client's capabilities, and every later line goes to it.
 */
import type { Readable, Writable } from "node:stream";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { errorMessage } from "../../util/errors.js";
import { preloadEnabled } from "../common/preload.js";
import { type EarlyAnswer, earlyAnswer } from "./early-answers.js";
import {
  JSONRPC_PARSE_ERROR,
  type LineOutcome,
  LineSplitter,
  type OversizedLine,
  oversizedReply,
} from "./line-splitter.js";
import type { ServerRuntime } from "./server-tool.js";
import { type PlainCodexCall, plainCodexCall, runPlainCodexCall } from "./stdio-quick-call.js";
import { ServerRequests } from "./stdio-requests.js";
import { defaultToolList, type ListedTool } from "./tool-list.js";

/**
 * Serve over this process's stdin/stdout; `open` makes the runtime on the first call that needs
 * it, `preload` loads the code `open` needs without opening anything (started once `initialize`
 * is answered).
 */
export async function serveStdio(
  open: () => Promise<ServerRuntime>,
  maxBytes: number,
  stop: Promise<void>,
  preload: () => Promise<unknown> = async () => {},
): Promise<void> {
  const front = new StdioFront(
    process.stdin,
    process.stdout,
    maxBytes,
    open,
    await defaultToolList(),
    preload,
  );
  const ended = new Promise<void>((resolve) => {
    process.stdin.once("end", resolve);
    process.stdin.once("close", resolve);
    front.onclose = resolve;
  });
  front.start();
  await Promise.race([ended, stop]);
  await front.close();
}

/** A line still to be handled, in arrival order: its JSON (or the parse failure), or an oversized line. */
type Pending = { line: string } | { oversized: OversizedLine };

/** How long after initialize the background load waits for a tools/list to answer first. */
const LIST_GRACE_MS = 20;

/** The id the replayed `initialize` carries; its reply is ours to drop. */
const REPLAY_ID = "tscodex-stdio-replayed-initialize";

/** The stdio connection: early answers first, then the SDK server once one is needed. */
export class StdioFront {
  onclose?: () => void;
  private readonly splitter: LineSplitter;
  /** Messages answered early, for the SDK server to hear about (initialize, initialized). */
  private readonly heard: Record<string, unknown>[] = [];
  /** Lines that came while the SDK server was loading. */
  private queue: Pending[] | null = null;
  private full: { server: Server; transport: FrontTransport; runtime: ServerRuntime } | null = null;
  private loading: Promise<void> | null = null;
  private closed = false;
  /** The runtime, opened once for the calls run here and for the SDK server. */
  private runtime: Promise<ServerRuntime> | null = null;
  /** `codex` calls run here (without the SDK server), by request id, until answered. */
  private readonly plainCalls = new Map<string | number, AbortController>();
  /** The SDK server's background load, waiting for the running calls to end. */
  private afterCalls: (() => void) | null = null;
  /** Server-to-client requests, the SDK server's and those of the calls run here. */
  private readonly requests = new ServerRequests((message) => this.write(message));

  constructor(
    private readonly input: Readable,
    private readonly output: Writable,
    private readonly maxBytes: number,
    private readonly open: () => Promise<ServerRuntime>,
    private readonly tools: readonly ListedTool[],
    private readonly preload: () => Promise<unknown> = async () => {},
  ) {
    this.splitter = new LineSplitter(
      maxBytes,
      (line) => this.take({ line: line.toString("utf8") }),
      (oversized) => this.take({ oversized }),
    );
  }

  private readonly onData = (chunk: Buffer | string): void => {
    this.splitter.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
  };

  private readonly onInputError = (error: Error): void => {
    this.full?.transport.onerror?.(error);
  };

  start(): void {
    this.input.on("data", this.onData);
    this.input.on("error", this.onInputError);
  }

  /** Stop reading, close the SDK server (if it was loaded), then its runtime. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.input.off("data", this.onData);
    this.input.off("error", this.onInputError);
    clearTimeout(this.preloadTimer);
    if (this.input.listenerCount("data") === 0) this.input.pause();
    // As the SDK server does for its own calls when its connection closes.
    for (const controller of this.plainCalls.values()) controller.abort();
    this.requests.close();
    await this.loading?.catch(() => {});
    if (this.full) await this.full.server.close().catch(() => {});
    const runtime = await this.runtime?.catch(() => null);
    await runtime?.close();
  }

  private openRuntime(): Promise<ServerRuntime> {
    this.runtime ??= this.open();
    return this.runtime;
  }

  private take(item: Pending): void {
    if (this.closed) return;
    if ("line" in item) {
      if (this.cancelsPlainCall(item.line)) return;
      const routed = this.requests.route(item.line);
      if (routed === null) return;
      item = { line: routed };
    }
    if (this.queue) {
      this.queue.push(item);
      return;
    }
    if (this.full) {
      this.deliver(item);
      return;
    }
    const early = "line" in item ? this.earlyFor(item.line) : this.answerOversized(item.oversized);
    if (early) return;
    this.queue = [item];
    this.loading = this.loadServer().catch((error: unknown) => {
      process.stderr.write(`tscodex mcp-server: cannot start serving: ${errorMessage(error)}\n`);
      this.onclose?.();
    });
  }

  /** Answers `line` early when it can (true); false when the SDK server must see it. */
  private earlyFor(line: string): boolean {
    if (line.trim() === "") return true;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      this.reply({
        kind: "reply",
        id: null,
        code: JSONRPC_PARSE_ERROR,
        message: "Parse error: the line is not JSON",
      });
      return true;
    }
    const answer: EarlyAnswer | null = earlyAnswer(value, this.tools);
    if (!answer) {
      const call = plainCodexCall(value);
      if (call) this.runPlainCall(call);
      return call !== null;
    }
    if (answer.method === "initialize" || answer.method === "notifications/initialized")
      this.heard.push(value as Record<string, unknown>);
    if (answer.kind === "reply") {
      const written = this.write(answer.reply);
      // A host lists the tools right after initialize: the load starts once that is answered (its
      // first step, the runtime, would hold the answer up), or a little after initialize if no
      // list comes.
      if (answer.method === "initialize") void written.then(() => this.loadInBackground(LIST_GRACE_MS));
      if (answer.method === "tools/list") void written.then(() => this.loadInBackground(0));
    }
    return true;
  }

  /** The capabilities the client's (early-answered) initialize declared. */
  private clientCapabilities(): unknown {
    const initialize = this.heard.find((message) => message.method === "initialize");
    return (initialize?.params as { capabilities?: unknown } | undefined)?.capabilities;
  }

  /** Runs a plain `codex` call here; its answer is written unless the client cancelled it. */
  private runPlainCall(call: PlainCodexCall): void {
    const controller = new AbortController();
    this.plainCalls.set(call.id, controller);
    const capabilities = this.clientCapabilities();
    const elicitation =
      typeof capabilities === "object" && capabilities !== null && "elicitation" in capabilities;
    const channel = {
      signal: controller.signal,
      send: (message: object) => void this.write(message),
      ...(elicitation ? { ask: this.requests.ask } : {}),
    };
    (async () => {
      const result = await runPlainCodexCall(call, this.openRuntime(), channel);
      // The SDK server's key order: result, jsonrpc, id.
      if (!controller.signal.aborted) await this.write({ result, jsonrpc: "2.0", id: call.id });
    })()
      .catch((error: unknown) => {
        process.stderr.write(`tscodex mcp-server: cannot start serving: ${errorMessage(error)}\n`);
        this.onclose?.();
      })
      .finally(() => {
        if (this.plainCalls.get(call.id) === controller) this.plainCalls.delete(call.id);
        if (this.plainCalls.size === 0) this.afterCalls?.();
      });
  }

  /** notifications/cancelled for a call run here: aborts it (nothing is answered, as the SDK does). */
  private cancelsPlainCall(line: string): boolean {
    if (this.plainCalls.size === 0 || !line.includes("notifications/cancelled")) return false;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      return false;
    }
    const { method, params } = (value ?? {}) as {
      method?: unknown;
      params?: { requestId?: unknown; reason?: unknown };
    };
    if (method !== "notifications/cancelled" || typeof params !== "object" || params === null) return false;
    const { requestId, reason } = params;
    const controller =
      typeof requestId === "string" || typeof requestId === "number"
        ? this.plainCalls.get(requestId)
        : undefined;
    if (!controller) return false;
    controller.abort(reason);
    return true;
  }

  private preloading: Promise<unknown> | null = null;
  private preloadTimer: NodeJS.Timeout | undefined;

  /**
   * Loads the runtime's modules in the background as soon as the handshake is answered: a host
   * calls right after tools/list, and every millisecond the load starts earlier is one its first
   * call does not wait (later lines are read between the load's steps). The SDK server's modules (and zod) follow once no call runs here, so they never
   * compete with a first call that does not need them. Errors are left to the first call, which
   * imports the same modules and reports what fails.
   */
  private loadInBackground(delayMs: number): void {
    if (!preloadEnabled() || this.preloading) return;
    clearTimeout(this.preloadTimer);
    this.preloadTimer = setTimeout(() => {
      if (this.closed || this.full || this.loading || this.preloading) return;
      this.preloading = this.loadInSteps([
        () => this.preload(),
        () => import("./codex-run.js"),
        () => import("./tool-call.js"),
        // The SDK server's modules (and zod) wait for the running calls: they would slow them.
        () => this.noPlainCalls(),
        () => import("./stdio-framing.js"),
        () => import("./server.js"),
        () => import("./tools.js"),
      ]);
      this.preloading.catch(() => {});
    }, delayMs);
    this.preloadTimer.unref();
  }

  /** Resolves when no call runs here. */
  private noPlainCalls(): Promise<void> {
    if (this.plainCalls.size === 0) return Promise.resolve();
    return new Promise((resolve) => {
      this.afterCalls = () => {
        this.afterCalls = null;
        resolve();
      };
    });
  }

  /**
   * The bundle is CommonJS: each import runs its modules in one synchronous block, so the steps
   * run one by one with the input read in between (a host's tools/list waits for one step, not
   * for the whole load).
   */
  private async loadInSteps(steps: (() => Promise<unknown>)[]): Promise<void> {
    for (const step of steps) {
      await new Promise((resolve) => setImmediate(resolve));
      if (this.closed || this.full || this.loading) return;
      await step();
    }
  }

  private answerOversized(oversized: OversizedLine): boolean {
    this.reply(oversizedReply(oversized, this.maxBytes));
    return true;
  }

  private async loadServer(): Promise<void> {
    const [{ createMcpServer }, framing, runtime] = await Promise.all([
      import("./server.js"),
      import("./stdio-framing.js"),
      this.openRuntime().then(async (runtime) => {
        await runtime.loadTools();
        return runtime;
      }),
    ]);
    const transport = new FrontTransport(
      (message) => this.write(this.requests.fromSdk(message)),
      framing.classifyLine,
    );
    const server = createMcpServer(runtime);
    server.onclose = () => this.onclose?.();
    this.full = { server, transport, runtime };
    await server.connect(transport);
    for (const message of this.heard) {
      const replayed = message.method === "initialize" ? { ...message, id: REPLAY_ID } : message;
      transport.deliver({ kind: "message", message: replayed as JSONRPCMessage });
    }
    const queued = this.queue ?? [];
    this.queue = null;
    for (const item of queued) this.deliver(item);
  }

  /** Hands a line to the loaded SDK server (its oversized and invalid lines answered as before). */
  private deliver(item: Pending): void {
    const full = this.full;
    if (!full) return;
    if ("oversized" in item) this.reply(oversizedReply(item.oversized, this.maxBytes));
    else full.transport.deliver(full.transport.classify(item.line));
  }

  private reply(outcome: LineOutcome): void {
    if (outcome.kind !== "reply") return;
    const { id, code, message } = outcome;
    // The SDK's Server never sees the line: the reply is ours (its id may be null, as JSON-RPC says).
    void this.write({ jsonrpc: "2.0", id, error: { code, message } });
  }

  private write(message: object): Promise<void> {
    if ((message as { id?: unknown }).id === REPLAY_ID) return Promise.resolve();
    return new Promise((resolve) => {
      if (this.output.write(`${JSON.stringify(message)}\n`)) resolve();
      else this.output.once("drain", resolve);
    });
  }
}

/** The SDK server's side of the connection: StdioFront feeds it lines and carries its replies. */
class FrontTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T) => void;
  private closed = false;

  constructor(
    private readonly sendLine: (message: object) => Promise<void>,
    readonly classify: (line: string) => LineOutcome,
  ) {}

  async start(): Promise<void> {}

  send(message: JSONRPCMessage): Promise<void> {
    return this.sendLine(message);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.onclose?.();
  }

  /** A classified line: a message for the server, or the reply the server never sees. */
  deliver(outcome: LineOutcome): void {
    if (outcome.kind === "message") this.onmessage?.(outcome.message);
    else if (outcome.kind === "reply") {
      const { id, code, message } = outcome;
      void this.sendLine({ jsonrpc: "2.0", id, error: { code, message } });
    }
  }
}
