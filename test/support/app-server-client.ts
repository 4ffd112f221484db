/**
 * Drive the built `tscodex app-server` (bin/tscodex.js) as an app does: a raw JSON-RPC client over
 * stdio (a spawned server) or WebSocket (a spawned `--listen ws://127.0.0.1:0` server, `ws` as the
 * client). Every message either way is recorded, so tests can check order and validate shapes.
 * Server → client requests are answered by `onRequest` (return a result, `{ error }` for a
 * JSON-RPC error reply, or `null` to never answer).
 * Every message is also validated against Codex's schemas as it passes (app-server-schema-rule.ts):
 * the test during which an invalid one passed fails.
 */
import { type ChildProcess, spawn } from "node:child_process";
import WebSocket from "ws";
import { newConversationCheck } from "./app-server-schema-rule.js";
import { CLI_PATH } from "./cli.js";
import { childEnv, type ListeningServer, type ServerEnv, spawnListening } from "./listening-server.js";
import { skipIfSandboxWasNeeded } from "./skips.js";

export type { ServerEnv };

/** One JSON-RPC message as read or written. */
export interface WireMessage {
  jsonrpc?: string;
  id?: number | string | null;
  method?: string;
  // Tests read fields of whatever the server sent; shapes are checked against schemas separately.
  // biome-ignore lint/suspicious/noExplicitAny: parsed JSON from the wire
  params?: any;
  // biome-ignore lint/suspicious/noExplicitAny: parsed JSON from the wire
  result?: any;
  error?: { code: number; message: string; data?: unknown };
}

/** An answer to a server request: a result, a JSON-RPC error, or null (never answer). */
export type RequestAnswer = { result: unknown } | { error: { code: number; message: string } } | null;
export type RequestHandler = (message: WireMessage) => RequestAnswer | Promise<RequestAnswer>;

export abstract class AppClient {
  /** Everything the server sent, in order. */
  readonly received: WireMessage[] = [];
  /** Every message we sent that parsed as JSON, in order. */
  readonly sent: WireMessage[] = [];
  onRequest: RequestHandler = () => null;
  /** The schema rule's check of this conversation. */
  readonly schemaCheck = newConversationCheck();
  private nextId = 1;
  private waiters: (() => void)[] = [];

  protected abstract write(text: string): void;
  abstract close(): Promise<void>;

  /** Send raw text as one message (malformed-input tests). */
  sendRaw(text: string): void {
    try {
      const message = JSON.parse(text) as WireMessage;
      this.sent.push(message);
      this.schemaCheck.sent(message);
    } catch {}
    this.write(text);
  }

  send(message: WireMessage): void {
    this.sendRaw(JSON.stringify({ jsonrpc: "2.0", ...message }));
  }

  /** Send a request and wait for its reply (result or error). */
  async request(method: string, params?: unknown, id: number | string = this.nextId++): Promise<WireMessage> {
    this.send({ id, method, ...(params === undefined ? {} : { params }) });
    return this.waitFor((message) => message.id === id && message.method === undefined);
  }

  /** Send a request; its result, or a thrown error carrying the JSON-RPC error. */
  // biome-ignore lint/suspicious/noExplicitAny: the result is parsed JSON
  async call(method: string, params?: unknown): Promise<any> {
    const reply = await this.request(method, params);
    if (reply.error) {
      await skipIfSandboxWasNeeded(reply.error.message);
      throw new Error(`${method} failed: ${reply.error.code} ${reply.error.message}`);
    }
    return reply.result;
  }

  async initialize(capabilities: Record<string, unknown> = { experimentalApi: true }): Promise<WireMessage> {
    const reply = await this.request("initialize", {
      clientInfo: { name: "tscodex-test", title: "Test", version: "0.0.1" },
      capabilities,
    });
    this.send({ method: "initialized" });
    return reply;
  }

  /** Notifications received so far (of `method`, when given). */
  notifications(method?: string): WireMessage[] {
    return this.received.filter((m) => m.id === undefined && (method === undefined || m.method === method));
  }

  /** The first message matching `match`, waiting up to `timeoutMs`. */
  async waitFor(match: (message: WireMessage) => boolean, timeoutMs = 15_000): Promise<WireMessage> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.received.find(match);
      if (found) return found;
      const left = deadline - Date.now();
      if (left <= 0) {
        const tail = JSON.stringify(this.received.slice(-8)).slice(0, 3000);
        throw new Error(`no matching message within ${timeoutMs} ms; last received: ${tail}`);
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /**
   * Wait for turn/completed of `turnId` received at index `from` or later (turn ids repeat after a
   * thread/rollback) and return it.
   */
  turnCompleted(turnId: string, from = 0, timeoutMs?: number): Promise<WireMessage> {
    return this.waitFor(
      (m) =>
        m.method === "turn/completed" && m.params?.turn?.id === turnId && this.received.indexOf(m) >= from,
      timeoutMs,
    );
  }

  protected receiveText(text: string): void {
    const message = JSON.parse(text) as WireMessage;
    this.received.push(message);
    this.schemaCheck.received(message);
    if (message.method !== undefined && message.id !== undefined && message.id !== null)
      void this.answer(message);
    for (const wake of this.waiters.splice(0)) wake();
  }

  private async answer(message: WireMessage): Promise<void> {
    const answer = await this.onRequest(message);
    if (answer === null) return;
    this.send({ id: message.id ?? null, ...answer });
  }
}

/** A spawned `tscodex app-server` on stdio. */
export class StdioAppClient extends AppClient {
  readonly child: ChildProcess;
  private stderrText = "";
  private buffer = "";
  readonly exited: Promise<number | null>;

  /** `command`: another app-server to run instead of ours (benchmarks compare Codex's). */
  constructor(
    server: ServerEnv,
    args: string[] = [],
    command: string[] = [process.execPath, CLI_PATH, "app-server"],
  ) {
    super();
    const [program = "", ...programArgs] = command;
    this.child = spawn(program, [...programArgs, ...args], {
      cwd: server.cwd,
      env: childEnv(server),
      stdio: ["pipe", "pipe", "pipe"],
    });
    this.exited = new Promise((resolve) => this.child.once("exit", (code) => resolve(code)));
    this.child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
      this.stderrText += chunk;
    });
    this.child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
      this.buffer += chunk;
      let newline = this.buffer.indexOf("\n");
      while (newline >= 0) {
        const line = this.buffer.slice(0, newline);
        this.buffer = this.buffer.slice(newline + 1);
        if (line.trim()) this.receiveText(line);
        newline = this.buffer.indexOf("\n");
      }
    });
  }

  get stderr(): string {
    return this.stderrText;
  }

  protected write(text: string): void {
    this.child.stdin?.write(`${text}\n`);
  }

  /** Close stdin (the client goes away) and wait for the server to exit (SIGKILL after 10 s). */
  async close(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const timer = setTimeout(() => this.child.kill("SIGKILL"), 10_000);
    this.child.stdin?.end();
    await this.exited;
    clearTimeout(timer);
  }
}

/** A spawned `tscodex app-server --listen ws://127.0.0.1:0`; connect clients with `connect()`. */
export class WsAppServer {
  private constructor(private readonly server: ListeningServer) {}

  static async start(server: ServerEnv, args: string[] = []): Promise<WsAppServer> {
    return new WsAppServer(
      await spawnListening(["app-server", "--listen", "ws://127.0.0.1:0", ...args], server, {
        what: "app-server",
      }),
    );
  }

  get child(): ChildProcess {
    return this.server.child;
  }

  get url(): string {
    return this.server.url;
  }

  get stderr(): string {
    return this.server.stderr();
  }

  /** A client connection (rejects with the HTTP status when the upgrade is refused). */
  connect(headers: Record<string, string> = {}): Promise<WsAppClient> {
    return WsAppClient.open(this.url, headers);
  }

  stop(): Promise<void> {
    return this.server.stop();
  }
}

export class WsAppClient extends AppClient {
  /** The close code and reason, once the connection has closed (1006: dropped without a close frame). */
  readonly closed: Promise<{ code: number; reason: string }>;

  private constructor(private readonly ws: WebSocket) {
    super();
    ws.on("message", (data) => this.receiveText(String(data)));
    this.closed = new Promise((resolve) =>
      ws.once("close", (code, reason) => resolve({ code, reason: reason.toString("utf8") })),
    );
  }

  static open(url: string, headers: Record<string, string>): Promise<WsAppClient> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url, { headers });
      ws.once("open", () => resolve(new WsAppClient(ws)));
      ws.once("unexpected-response", (_request, response) => {
        reject(new Error(`upgrade refused: ${response.statusCode}`));
        ws.terminate();
      });
      ws.once("error", reject);
    });
  }

  protected write(text: string): void {
    this.ws.send(text);
  }

  /** Kill the connection without a close frame, as a network drop does; resolves once closed. */
  async drop(): Promise<void> {
    this.ws.terminate();
    await this.closed;
  }

  close(): Promise<void> {
    if (this.ws.readyState === WebSocket.CLOSED) return Promise.resolve();
    return new Promise((resolve) => {
      this.ws.once("close", () => resolve());
      this.ws.close();
    });
  }
}
