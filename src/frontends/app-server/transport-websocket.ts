/**
 * The WebSocket transport (`--listen ws://HOST:PORT`): one JSON-RPC message per text frame, one
 * client session per connection, every session sharing the runtime's threads.
 * Who may connect follows the MCP server's HTTP rules (shared/http-guard.ts): no listening
 * beyond loopback without a key; the upgrade is refused, before any WebSocket exists, when Host
 * or Origin does not name this machine (403, `Origin: null` too), a body is not JSON (415), the bearer key is missing or wrong (401), or, with
 * no key, the caller is another user's process or runs inside a sandbox (403). A plain HTTP request gets 426. A connection
 * that closes ends its session (its turns are interrupted). On shutdown, running turns are
 * interrupted first, then every connection closes with 1001 (going away).
 */
import { createServer, type IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { type RawData, type WebSocket, WebSocketServer } from "ws";
import { answerProbe } from "../common/health.js";
import {
  allowedHostnames,
  checkBind,
  hasBearer,
  PeerGuard,
  refuseBodyType,
  refuseHost,
} from "../common/http-guard.js";
import { type Listener, listenOn } from "../common/serve.js";
import { logRequests } from "../common/serving-log.js";
import type { AppServerRuntime } from "./runtime.js";
import { ClientSession } from "./session.js";
import { MAX_LINE_BYTES } from "./transport-stdio.js";

export interface WebSocketOptions {
  host: string;
  port: number;
  /** Required as `Authorization: Bearer <key>` when set. */
  apiKey?: string | undefined;
}

export interface WebSocketListener extends Listener {
  /** e.g. ws://127.0.0.1:4501 */
  url: string;
}

/** Listen on host:port; resolves once listening. */
export async function serveWebSocket(
  runtime: AppServerRuntime,
  options: WebSocketOptions,
): Promise<WebSocketListener> {
  checkBind(options.host, options.apiKey);
  const allowed = allowedHostnames(options.host);
  const peers = new PeerGuard();
  const sockets = new Set<WebSocket>();
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_LINE_BYTES });
  const readiness = { draining: false };
  const http = createServer((req, res) => {
    const foreign = refuseHost(req.headers, allowed);
    if (foreign) {
      res.writeHead(403, { "content-type": "text/plain" }).end(`${foreign.message}\n`);
      return;
    }
    if (answerProbe(req, res, readiness)) return;
    void refusalOf(req, allowed, options.apiKey, peers).then((refusal) => {
      const [status, text] = refusal ?? [426, "Upgrade Required: this is a WebSocket JSON-RPC endpoint"];
      res.writeHead(status, { "content-type": "text/plain" }).end(`${text}\n`);
    });
  });

  http.on("upgrade", (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    void refusalOf(req, allowed, options.apiKey, peers).then((refusal) =>
      upgrade(req, socket, head, refusal),
    );
  });

  const upgrade = (req: IncomingMessage, socket: Duplex, head: Buffer, refusal: [number, string] | null) => {
    if (!refusal && readiness.draining) refusal = [503, "Service Unavailable: the server is shutting down"];
    if (refusal) {
      const [status, text] = refusal;
      const extra = status === 401 ? 'WWW-Authenticate: Bearer realm="tscodex-app-server"\r\n' : "";
      socket.end(
        `HTTP/1.1 ${status} ${STATUS_TEXT[status] ?? "Forbidden"}\r\n${extra}` +
          `Content-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(text) + 1}\r\nConnection: close\r\n\r\n${text}\n`,
      );
      return;
    }
    const peer = `${req.socket.remoteAddress ?? "?"}:${req.socket.remotePort ?? "?"}`;
    wss.handleUpgrade(req, socket, head, (ws) => connect(ws, peer));
  };

  const connect = (ws: WebSocket, peer: string): void => {
    sockets.add(ws);
    process.stderr.write(`tscodex app-server: websocket open ${peer}\n`);
    const session = new ClientSession(runtime, {
      send: (text) => {
        if (ws.readyState === ws.OPEN) ws.send(text);
      },
      backlog: () => ws.bufferedAmount,
    });
    // Text and binary frames alike carry one UTF-8 JSON message.
    ws.on("message", (data) => session.receive(textOf(data)));
    ws.on("error", () => ws.terminate());
    ws.on("close", (code) => {
      process.stderr.write(`tscodex app-server: websocket close ${peer} (${code})\n`);
      sockets.delete(ws);
      session.close();
    });
  };

  logRequests("app-server", http);
  const authority = await listenOn(http, options.port, options.host);
  return {
    url: `ws://${authority}`,
    async drain(finishWork) {
      // No new connections (an upgrade is a 503); running turns end, so each client gets its
      // turn/completed. The port stays open until then, so /readyz answers 503.
      readiness.draining = true;
      await finishWork();
      // Queued notifications go out before the close frame; 1001: the server is going away.
      const closed = [...sockets].map((ws) => new Promise((done) => ws.once("close", done)));
      for (const ws of sockets) ws.close(1001, "going away");
      await Promise.all(closed);
      http.close();
    },
    async close() {
      readiness.draining = true;
      for (const ws of sockets) ws.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

const STATUS_TEXT: Record<number, string> = {
  401: "Unauthorized",
  403: "Forbidden",
  415: "Unsupported Media Type",
  503: "Service Unavailable",
};

/** [status, text] when the request must be refused, else null. */
async function refusalOf(
  req: IncomingMessage,
  allowed: Set<string>,
  apiKey: string | undefined,
  peers: PeerGuard,
): Promise<[number, string] | null> {
  const refusal = refuseHost(req.headers, allowed);
  if (refusal) return [403, refusal.message];
  const badBody = refuseBodyType(req.headers);
  if (badBody) return [415, badBody];
  if (apiKey)
    return hasBearer(req.headers, apiKey) ? null : [401, "Unauthorized: missing or wrong bearer key"];
  const sandboxed = await peers.refuse(req.socket);
  return sandboxed ? [403, sandboxed] : null;
}

function textOf(data: RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString("utf8");
  return Buffer.isBuffer(data) ? data.toString("utf8") : Buffer.from(data).toString("utf8");
}
