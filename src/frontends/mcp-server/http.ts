/**
 * Streamable HTTP transport on node:http, one SDK transport + Server per MCP session.
 * Authentication: a server that listens beyond loopback must have a key (serveHttp refuses to
 * start otherwise). Checks, in order: Host and Origin must name this machine (DNS-rebinding
 * protection: a web page must not reach a local agent through a hostile DNS name; `Origin: null`
 * too) → 403; a body not declared `application/json` → 415; the
 * bearer key when one is configured → 401; without a key, the caller must be a local process
 * of this server's own user, outside every sandbox (a sandboxed command with network access reaches 127.0.0.1 too, and a
 * danger-full-access turn would be its escape) → 403; path /mcp → else 404. Sessions: initialize creates one (Mcp-Session-Id),
 * later requests name it, DELETE ends it. Requests of one session may run concurrently.
 * Sessions are bounded (config `[mcp_server]`): at most `max_http_sessions` open (an initialize
 * beyond that gets 503), and one with no request open or made for `http_session_idle_timeout_ms`
 * is closed. On shutdown, running turns are interrupted first, so an open tools/call gets its
 * result before the connections close. Streams are resumable (event-store.ts): a call whose
 * connection dropped runs on, and the client gets the rest with `Last-Event-ID`.
 */
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { errorMessage } from "../../util/errors.js";
import { answerProbe, LateConnections } from "../common/health.js";
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
import { SessionEventStore } from "./event-store.js";
import { createMcpServer } from "./server.js";
import type { ServerRuntime } from "./server-tool.js";

export interface HttpOptions {
  port: number;
  host: string;
  /** Required as `Authorization: Bearer <key>` when set; required to listen beyond loopback. */
  apiKey?: string;
}

export interface HttpServer extends Listener {
  /** e.g. http://127.0.0.1:8123/mcp */
  url: string;
}

const MCP_PATH = "/mcp";
const MAX_BODY_BYTES = 16 * 1024 * 1024;

interface Session {
  transport: StreamableHTTPServerTransport;
  close(): Promise<void>;
  /** Responses still open (a running call, a GET stream): the session is in use. */
  open: number;
  /** When its last response ended (or it started), ms since the epoch. */
  lastActive: number;
}

/** Listen on host:port and serve `runtime`; resolves once listening. */
export async function serveHttp(runtime: ServerRuntime, options: HttpOptions): Promise<HttpServer> {
  checkBind(options.host, options.apiKey);
  const sessions = new Map<string, Session>();
  const limits = runtime.config.mcpServer;
  // Initializes under way count toward the cap too, so a burst cannot overshoot it.
  let starting = 0;
  const allowed = allowedHostnames(options.host);
  const peers = new PeerGuard();
  const sweeper = setInterval(
    () => closeIdle(sessions, limits.httpSessionIdleTimeoutMs),
    Math.min(Math.max(limits.httpSessionIdleTimeoutMs / 4, 50), 60_000),
  );
  sweeper.unref();

  const readiness = { draining: false };
  const lateConnections = new LateConnections(readiness);
  // POSTs still being answered (a running tools/call): shutdown waits for their replies.
  const calls = new Set<ServerResponse>();
  let callsDone: (() => void) | null = null;
  const trackCall = (res: ServerResponse): void => {
    calls.add(res);
    res.once("close", () => {
      calls.delete(res);
      if (calls.size === 0) callsDone?.();
    });
  };
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const refusal = refuseHost(req.headers, allowed);
    if (refusal) return reply(res, 403, refusal.message);
    if (answerProbe(req, res, readiness)) return;
    if (lateConnections.has(req.socket)) {
      res.setHeader("Connection", "close");
      return reply(res, 503, "Service Unavailable: the server is shutting down");
    }
    const badBody = refuseBodyType(req.headers);
    if (badBody) return reply(res, 415, badBody);
    if (options.apiKey && !hasBearer(req.headers, options.apiKey)) {
      res.setHeader("WWW-Authenticate", 'Bearer realm="tscodex-mcp-server"');
      return reply(res, 401, "Unauthorized: missing or wrong bearer key");
    }
    if (!options.apiKey) {
      const sandboxed = await peers.refuse(req.socket);
      if (sandboxed) return reply(res, 403, sandboxed);
    }
    if (new URL(req.url ?? "/", "http://local").pathname !== MCP_PATH)
      return reply(res, 404, "Not found: use /mcp");

    let body: unknown;
    if (req.method === "POST") {
      try {
        body = JSON.parse(await readBody(req));
      } catch {
        return reply(res, 400, "Parse error: the body is not JSON", -32700);
      }
    }
    const sessionId = req.headers["mcp-session-id"];
    if (typeof sessionId === "string") {
      const session = sessions.get(sessionId);
      if (!session) return reply(res, 404, `Session not found: ${sessionId}`, -32001);
      track(session, res);
      if (req.method === "POST") trackCall(res);
      return session.transport.handleRequest(req, res, body);
    }
    if (req.method !== "POST" || !isInitializeRequest(body))
      return reply(res, 400, "Bad request: no Mcp-Session-Id header (send initialize first)");
    if (readiness.draining) return reply(res, 503, "Service Unavailable: the server is shutting down");
    if (sessions.size + starting >= limits.maxHttpSessions) {
      res.setHeader("Retry-After", "60");
      return reply(
        res,
        503,
        `Too many sessions: ${limits.maxHttpSessions} are open (mcp_server.max_http_sessions); ` +
          "end one with DELETE, or retry once idle ones expire",
      );
    }
    starting += 1;
    res.once("close", () => {
      starting -= 1;
    });
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      // A call's stream can be resumed (Last-Event-ID) after its connection dropped.
      eventStore: new SessionEventStore(),
      onsessioninitialized: (id) => {
        const session: Session = { transport, close: () => server.close(), open: 0, lastActive: Date.now() };
        sessions.set(id, session);
        track(session, res);
      },
    });
    // Set before connect: the SDK chains its own onclose after ours.
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    const server = createMcpServer(runtime);
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  };

  const http = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) reply(res, 500, `Internal error: ${errorMessage(error)}`);
      else res.end();
    });
  });
  lateConnections.watch(http);
  logRequests("mcp-server", http);
  const authority = await listenOn(http, options.port, options.host);
  return {
    url: `http://${authority}${MCP_PATH}`,
    async drain(finishWork) {
      // No new sessions, and no work on new connections; running turns end, so each open call
      // gets its result. The port stays open until then, so /readyz answers 503.
      readiness.draining = true;
      http.closeIdleConnections();
      await finishWork();
      if (calls.size > 0) await new Promise<void>((resolve) => (callsDone = resolve));
      http.close();
    },
    async close() {
      readiness.draining = true;
      clearInterval(sweeper);
      await Promise.all([...sessions.values()].map((session) => session.close().catch(() => {})));
      sessions.clear();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

/** Counts `res` as open on `session` until it ends. */
function track(session: Session, res: ServerResponse): void {
  session.open += 1;
  session.lastActive = Date.now();
  res.once("close", () => {
    session.open -= 1;
    session.lastActive = Date.now();
  });
}

/** Close every session with nothing open and nothing done for `idleMs`. */
function closeIdle(sessions: Map<string, Session>, idleMs: number): void {
  const now = Date.now();
  for (const [id, session] of sessions) {
    if (session.open > 0 || now - session.lastActive < idleMs) continue;
    sessions.delete(id);
    void session.close().catch(() => {});
  }
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
    size += buffer.length;
    if (size > MAX_BODY_BYTES) throw new Error("body too large");
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}

function reply(res: ServerResponse, status: number, message: string, code = -32000): void {
  res
    .writeHead(status, { "content-type": "application/json" })
    .end(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }));
}
