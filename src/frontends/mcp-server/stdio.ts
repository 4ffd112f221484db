/**
 * The stdio transport: newline-delimited JSON-RPC on stdin/stdout (nothing else may write to
 * stdout). Serves until stdin ends (the client closed) or `stop` resolves. Our own transport, not
 * the SDK's: every line that is not one valid message gets a JSON-RPC error reply, and a line over
 * `mcp_server.max_message_bytes` is answered and skipped instead of ending the server.
 */
import type { Readable, Writable } from "node:stream";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { createMcpServer } from "./server.js";
import type { ServerRuntime } from "./server-tool.js";
import { classifyLine, type LineOutcome, LineSplitter, oversizedReply } from "./stdio-framing.js";

/** Serve `runtime` over this process's stdin/stdout; resolves once the connection is over. */
export async function serveStdio(runtime: ServerRuntime, stop: Promise<void>): Promise<void> {
  const server = createMcpServer(runtime);
  const transport = new LineTransport(
    process.stdin,
    process.stdout,
    runtime.config.mcpServer.maxMessageBytes,
  );
  const ended = new Promise<void>((resolve) => {
    process.stdin.once("end", resolve);
    process.stdin.once("close", resolve);
    server.onclose = resolve;
  });
  await server.connect(transport);
  await Promise.race([ended, stop]);
  await server.close().catch(() => {});
}

/** An MCP transport over a pair of streams, one JSON-RPC message per line. */
export class LineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T) => void;
  private readonly splitter: LineSplitter;
  private closed = false;

  constructor(
    private readonly input: Readable,
    private readonly output: Writable,
    maxBytes: number,
  ) {
    this.splitter = new LineSplitter(
      maxBytes,
      (line) => this.handle(classifyLine(line.toString("utf8"))),
      (edges) => this.handle(oversizedReply(edges, maxBytes)),
    );
  }

  private readonly onData = (chunk: Buffer | string): void => {
    this.splitter.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
  };

  private readonly onInputError = (error: Error): void => {
    this.onerror?.(error);
  };

  async start(): Promise<void> {
    this.input.on("data", this.onData);
    this.input.on("error", this.onInputError);
  }

  send(message: JSONRPCMessage): Promise<void> {
    return this.write(message);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.input.off("data", this.onData);
    this.input.off("error", this.onInputError);
    if (this.input.listenerCount("data") === 0) this.input.pause();
    this.onclose?.();
  }

  private handle(outcome: LineOutcome): void {
    if (outcome.kind === "message") {
      this.onmessage?.(outcome.message);
      return;
    }
    if (outcome.kind === "ignore") return;
    const { id, code, message } = outcome;
    // The SDK's Server never sees the line: the reply is ours (its id may be null, as JSON-RPC says).
    void this.write({ jsonrpc: "2.0", id, error: { code, message } });
  }

  private write(message: object): Promise<void> {
    return new Promise((resolve) => {
      if (this.output.write(`${JSON.stringify(message)}\n`)) resolve();
      else this.output.once("drain", resolve);
    });
  }
}
