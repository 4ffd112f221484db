/**
 * The route's HTTP proxy: absolute-form requests forwarded upstream (streamed both ways,
 * hop-by-hop and Proxy-* headers dropped, keep-alive with the client), CONNECT answered with a
 * byte tunnel, and upgrade requests (WebSocket over plain HTTP) spliced after their handshake.
 * Each is decided first (decide.ts); a block answers 403 with `x-proxy-error`. A malformed
 * request gets 400 and its connection closes.
 */
import { createServer, type IncomingMessage, request, type Server, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { errorMessage } from "../util/errors.js";
import { blockJsonBody, blockTextBody, PROXY_ERROR_HEADER } from "./blocked.js";
import type { Decision, ProxyRequest } from "./decide.js";
import { normalizeHost } from "./patterns.js";
import type { RouteContext } from "./route-context.js";
import { connectFirst, splice } from "./tunnel.js";

/** Headers that describe one connection, not the message (RFC 9110 §7.6.1), never forwarded. */
const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
  // Answered by this proxy (node sends 100 Continue to the client itself).
  "expect",
]);

export function createHttpProxyServer(route: RouteContext): Server {
  // requestTimeout 0: a long upload is not cut (headersTimeout still bounds a silent client).
  // A 256 KB high-water mark streams large bodies ~1.5x faster than 16 KB (bench/network-proxy.ts).
  const server = createServer(
    { requestTimeout: 0, keepAlive: true, highWaterMark: 256 * 1024 },
    (req, res) => {
      handleRequest(route, req, res).catch(() => failResponse(res, 502, "proxy error"));
    },
  );
  server.on("connection", (socket: Socket) => route.sockets.add(socket));
  server.on("connect", (req: IncomingMessage, socket: Socket, head: Buffer) => {
    socket.on("error", () => socket.destroy());
    handleConnect(route, req, socket, head).catch(() => socket.destroy());
  });
  server.on("upgrade", (req: IncomingMessage, socket: Socket, head: Buffer) => {
    socket.on("error", () => socket.destroy());
    handleUpgrade(route, req, socket, head).catch(() => socket.destroy());
  });
  server.on("clientError", (_error, socket: Socket) => {
    if (socket.writable)
      socket.end(rawResponse(400, "Bad Request", "text/plain", "malformed proxy request\n"));
    socket.destroySoon();
  });
  return server;
}

/** `http://host[:port]/path` of an absolute-form request, or undefined for anything else. */
function absoluteTarget(
  url: string | undefined,
): { host: string; port: number; path: string; authority: string } | undefined {
  if (!url || url.startsWith("/")) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  if (parsed.protocol !== "http:" || !parsed.hostname) return undefined;
  return {
    host: normalizeHost(parsed.hostname),
    port: parsed.port ? Number(parsed.port) : 80,
    path: `${parsed.pathname}${parsed.search}`,
    // What the Host header must say: the request target's, never a different one the client
    // sent (that would reach another virtual host behind an allowed name).
    authority: parsed.host,
  };
}

async function handleRequest(route: RouteContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const target = absoluteTarget(req.url);
  if (!target) {
    failResponse(res, 400, "this is a proxy: send absolute-form requests (http://host/path) or CONNECT");
    return;
  }
  const method = req.method ?? "GET";
  const decision = await decideAndReport(route, { ...target, protocol: "http", method });
  if (decision.kind === "block") {
    const body = blockJsonBody(decision.block);
    res.writeHead(403, {
      "content-type": "application/json",
      "x-proxy-error": PROXY_ERROR_HEADER[decision.block.reason],
      "content-length": Buffer.byteLength(body),
    });
    res.end(body);
    return;
  }
  if (decision.kind === "unresolvable") {
    failResponse(res, 502, decision.message);
    return;
  }
  const headers = ["Host", target.authority, ...forwardedHeaders(req.rawHeaders, ["host"])];
  const upstream = request({
    host: decision.addresses[0],
    port: target.port,
    method,
    path: target.path,
    headers,
    setHost: false,
    agent: route.agent,
  });
  upstream.on("socket", (socket) => route.sockets.add(socket));
  upstream.on("response", (upstreamRes) => {
    res.writeHead(
      upstreamRes.statusCode ?? 502,
      upstreamRes.statusMessage,
      forwardedHeaders(upstreamRes.rawHeaders),
    );
    upstreamRes.pipe(res);
    upstreamRes.on("error", () => res.destroy());
  });
  upstream.on("error", (error) =>
    failResponse(res, 502, `could not reach ${target.host}:${target.port}: ${errorMessage(error)}`),
  );
  // The client went away before its response was complete: stop the upstream exchange too.
  res.on("close", () => {
    if (!res.writableFinished) upstream.destroy();
  });
  req.pipe(upstream);
}

async function handleConnect(route: RouteContext, req: IncomingMessage, socket: Socket, head: Buffer) {
  const target = authorityTarget(req.url);
  if (!target) {
    socket.end(rawResponse(400, "Bad Request", "text/plain", "CONNECT needs host:port\n"));
    return;
  }
  const decision = await decideAndReport(route, { ...target, protocol: "https" });
  if (decision.kind === "block") {
    const header = PROXY_ERROR_HEADER[decision.block.reason];
    socket.end(rawResponse(403, "Forbidden", "text/plain", blockTextBody(decision.block), header));
    return;
  }
  if (decision.kind === "unresolvable") {
    socket.end(rawResponse(502, "Bad Gateway", "text/plain", `${decision.message}\n`));
    return;
  }
  let upstream: Socket;
  try {
    upstream = await connectFirst(decision.addresses, target.port, route.sockets);
  } catch (error) {
    const message = `could not reach ${target.host}:${target.port}: ${errorMessage(error)}\n`;
    socket.end(rawResponse(502, "Bad Gateway", "text/plain", message));
    return;
  }
  if (socket.destroyed) {
    upstream.destroy();
    return;
  }
  socket.write("HTTP/1.1 200 Connection established\r\n\r\n");
  if (head.length > 0) upstream.write(head);
  splice(socket, upstream);
}

/** A WebSocket (or other) upgrade over plain HTTP: decided as a GET, then the handshake and bytes pass. */
async function handleUpgrade(route: RouteContext, req: IncomingMessage, socket: Socket, head: Buffer) {
  const target = absoluteTarget(req.url);
  if (!target) {
    socket.end(rawResponse(400, "Bad Request", "text/plain", "send absolute-form requests\n"));
    return;
  }
  const method = req.method ?? "GET";
  const decision = await decideAndReport(route, { ...target, protocol: "http", method, upgrade: true });
  if (decision.kind === "block") {
    const body = blockJsonBody(decision.block);
    socket.end(
      rawResponse(403, "Forbidden", "application/json", body, PROXY_ERROR_HEADER[decision.block.reason]),
    );
    return;
  }
  if (decision.kind === "unresolvable") {
    socket.end(rawResponse(502, "Bad Gateway", "text/plain", `${decision.message}\n`));
    return;
  }
  const upstream = await connectFirst(decision.addresses, target.port, route.sockets).catch(() => undefined);
  if (!upstream || socket.destroyed) {
    upstream?.destroy();
    socket.end(
      rawResponse(502, "Bad Gateway", "text/plain", `could not reach ${target.host}:${target.port}\n`),
    );
    return;
  }
  // The handshake keeps Connection and Upgrade (they are the point); only Proxy-* headers go.
  const lines = [`${method} ${target.path} HTTP/1.1`, `Host: ${target.authority}`];
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
    const name = req.rawHeaders[i] ?? "";
    const lower = name.toLowerCase();
    if (lower !== "host" && !lower.startsWith("proxy-"))
      lines.push(`${name}: ${req.rawHeaders[i + 1] ?? ""}`);
  }
  upstream.write(`${lines.join("\r\n")}\r\n\r\n`);
  if (head.length > 0) upstream.write(head);
  splice(socket, upstream);
}

/** `host:port` (or `[v6]:port`) of a CONNECT request; the port is required. */
function authorityTarget(url: string | undefined): { host: string; port: number } | undefined {
  const match = /^(\[[^\]]+\]|[^:[\]/\s]+):(\d{1,5})$/.exec(url ?? "");
  if (!match?.[1] || !match[2]) return undefined;
  const port = Number(match[2]);
  if (port < 1 || port > 65_535) return undefined;
  return { host: normalizeHost(match[1]), port };
}

async function decideAndReport(route: RouteContext, request: ProxyRequest): Promise<Decision> {
  const decision = await route.policy.decide(request);
  if (decision.kind === "block") route.reportBlock(decision.block);
  return decision;
}

/** Raw header pairs without hop-by-hop ones, those the Connection header names, Proxy-* and `drop`. */
function forwardedHeaders(raw: readonly string[], drop: readonly string[] = []): string[] {
  const named = new Set<string>(drop);
  for (let i = 0; i + 1 < raw.length; i += 2) {
    if (raw[i]?.toLowerCase() !== "connection") continue;
    for (const token of (raw[i + 1] ?? "").split(",")) named.add(token.trim().toLowerCase());
  }
  const kept: string[] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i] ?? "";
    const lower = name.toLowerCase();
    if (HOP_BY_HOP.has(lower) || named.has(lower) || lower.startsWith("proxy-")) continue;
    kept.push(name, raw[i + 1] ?? "");
  }
  return kept;
}

/** A short text answer from the proxy itself, or the end of the connection once headers went out. */
function failResponse(res: ServerResponse, status: number, message: string): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const body = `${message}\n`;
  res.writeHead(status, { "content-type": "text/plain", "content-length": Buffer.byteLength(body) });
  res.end(body);
}

/** A whole HTTP/1.1 response as bytes, for sockets the HTTP server no longer manages. */
function rawResponse(status: number, text: string, type: string, body: string, proxyError?: string): string {
  return [
    `HTTP/1.1 ${status} ${text}`,
    `content-type: ${type}`,
    ...(proxyError ? [`x-proxy-error: ${proxyError}`] : []),
    `content-length: ${Buffer.byteLength(body)}`,
    "connection: close",
    "",
    body,
  ].join("\r\n");
}
