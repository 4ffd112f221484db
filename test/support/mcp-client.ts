/**
 * Drive the built `tscodex mcp-server` (bin/tscodex.js) as real clients do: the official SDK
 * Client over stdio (StdioClientTransport spawning the CLI) or Streamable HTTP, and a raw
 * newline-delimited JSON-RPC client for wire-level checks. Each server gets its own
 * TSCODEX_HOME whose config.toml points at the fake model server.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import {
  StreamableHTTPClientTransport,
  type StreamableHTTPClientTransportOptions,
} from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CallToolResultSchema, type ElicitResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { CLI_PATH } from "./cli.js";
import { childEnv, type ListeningServer, type ServerEnv, spawnListening } from "./listening-server.js";

export type { ServerEnv };

/** Answers one elicitation/create (the params as sent, Codex's extra fields included). */
export type ElicitHandler = (params: Record<string, unknown>) => ElicitResult | Promise<ElicitResult>;

const looseElicitRequest = z.object({
  method: z.literal("elicitation/create"),
  params: z.looseObject({ message: z.string() }),
});

function newClient(onElicit?: ElicitHandler): Client {
  const client = new Client(
    { name: "tscodex-test", version: "0.0.1" },
    { capabilities: onElicit ? { elicitation: {} } : {} },
  );
  // A loose schema: the SDK's own would strip Codex's extra fields (threadId, codex_*) we check.
  if (onElicit) client.setRequestHandler(looseElicitRequest, (request) => onElicit(request.params));
  return client;
}

export interface StdioSession {
  client: Client;
  stderr: () => string;
  close(): Promise<void>;
}

/** Spawn `tscodex mcp-server [args]` and connect an SDK client to it over stdio. */
export async function connectStdio(
  server: ServerEnv,
  options: { args?: string[]; onElicit?: ElicitHandler } = {},
): Promise<StdioSession> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI_PATH, "mcp-server", ...(options.args ?? [])],
    env: childEnv(server),
    cwd: server.cwd,
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
  });
  const client = newClient(options.onElicit);
  await client.connect(transport);
  return { client, stderr: () => stderr, close: () => client.close() };
}

/** Call a tool and collect its progress messages. */
export async function callTool(
  client: Client,
  name: string,
  args: Record<string, unknown> | undefined,
  progress?: string[],
) {
  const raw = await client.callTool(
    { name, ...(args ? { arguments: args } : {}) },
    CallToolResultSchema,
    progress
      ? {
          onprogress: (p) => {
            if (p.message) progress.push(p.message);
          },
          resetTimeoutOnProgress: true,
        }
      : {},
  );
  const result = CallToolResultSchema.parse(raw);
  const first = result.content[0];
  return {
    result,
    text: first?.type === "text" ? first.text : "",
    threadId: String(result.structuredContent?.threadId ?? ""),
  };
}

export type HttpServerProcess = ListeningServer;

/** Spawn `tscodex mcp-server --http 0 [args]`; resolves with the URL it printed. */
export function startHttpServer(server: ServerEnv, args: string[] = []): Promise<HttpServerProcess> {
  return spawnListening(["mcp-server", "--http", "0", ...args], server, {
    what: "mcp-server --http",
    timeoutMs: 10_000,
  });
}

/** An SDK client over Streamable HTTP (`fetch`, `reconnectionOptions`: the SDK transport's options). */
export async function connectHttp(
  url: string,
  options: {
    headers?: Record<string, string>;
    onElicit?: ElicitHandler;
    fetch?: StreamableHTTPClientTransportOptions["fetch"];
    reconnectionOptions?: StreamableHTTPClientTransportOptions["reconnectionOptions"];
  } = {},
): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: options.headers ?? {} },
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...(options.reconnectionOptions ? { reconnectionOptions: options.reconnectionOptions } : {}),
  });
  const client = newClient(options.onElicit);
  await client.connect(transport);
  return { client, transport };
}

/** One JSON-RPC message, as read or written on the wire. */
export type WireMessage = Record<string, unknown> & {
  id?: number | string | undefined;
  method?: string | undefined;
};

/** A raw stdio client: write lines, wait for messages (replies, notifications, server requests). */
export class RawStdioClient {
  readonly messages: WireMessage[] = [];
  private buffer = "";
  private waiters: (() => void)[] = [];
  readonly child: ChildProcess;

  constructor(server: ServerEnv, args: string[] = []) {
    this.child = spawn(process.execPath, [CLI_PATH, "mcp-server", ...args], {
      cwd: server.cwd,
      env: childEnv(server),
      stdio: ["pipe", "pipe", "pipe"],
    });
    this.child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
      this.buffer += chunk;
      let newline = this.buffer.indexOf("\n");
      while (newline >= 0) {
        const line = this.buffer.slice(0, newline).trim();
        this.buffer = this.buffer.slice(newline + 1);
        if (line) this.messages.push(JSON.parse(line) as WireMessage);
        newline = this.buffer.indexOf("\n");
      }
      for (const wake of this.waiters.splice(0)) wake();
    });
  }

  send(message: WireMessage): void {
    this.child.stdin?.write(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`);
  }

  /** The first message matching `match` (waits up to `timeoutMs`). */
  async waitFor(
    match: (message: WireMessage, index: number) => boolean,
    timeoutMs = 10_000,
  ): Promise<WireMessage> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.messages.find(match);
      if (found) return found;
      const left = deadline - Date.now();
      if (left <= 0)
        throw new Error(`no matching message; got ${JSON.stringify(this.messages).slice(0, 2000)}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** Send a request and wait for its reply. */
  async request(id: number, method: string, params?: Record<string, unknown>): Promise<WireMessage> {
    this.send({ id, method, ...(params ? { params } : {}) });
    return this.waitFor((message) => message.id === id && message.method === undefined);
  }

  async initialize(capabilities: Record<string, unknown> = {}): Promise<WireMessage> {
    const reply = await this.request(0, "initialize", {
      protocolVersion: "2025-06-18",
      capabilities,
      clientInfo: { name: "raw", version: "0.0.1" },
    });
    this.send({ method: "notifications/initialized" });
    return reply;
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      if (this.child.exitCode !== null || this.child.signalCode !== null) return resolve();
      const timer = setTimeout(() => this.child.kill("SIGKILL"), 5_000);
      this.child.once("exit", () => {
        clearTimeout(timer);
        resolve();
      });
      this.child.stdin?.end();
    });
  }
}
