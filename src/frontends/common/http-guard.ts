/**
 * Who may use a local network front-end: every HTTP listener (the proxy, the MCP server's
 * `--http`, the app-server's `--listen ws://` upgrade) applies these same rules:
 * - a server that listens beyond loopback must have a key (it refuses to start otherwise);
 * - Host and Origin must name this machine (DNS-rebinding protection: a web page must not reach
 *   a local agent through a hostile DNS name that resolves to 127.0.0.1) → 403; `Origin: null`
 *   (a sandboxed frame, a `data:` or `file:` page) names no machine and is refused too;
 * - a request body must be declared `application/json` → 415: a browser sends `text/plain`,
 *   form and multipart bodies to any origin without asking first (no CORS preflight);
 * - with a key, `Authorization: Bearer <key>` must carry it (constant-time comparison) → 401;
 * - without one, the caller must be a local process of this server's own user, outside every
 *   sandbox → 403: another user's process would run commands as this one (as root, for a root
 *   server), and a sandboxed command with network access reaches 127.0.0.1 too, and driving the
 *   agent would be its escape.
 */
import { timingSafeEqual } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";
import type { Socket } from "node:net";
import { isLoopbackAddress, LoopbackPeers, type PeerVerdict } from "../../util/loopback-peer.js";

const LOCAL_HOSTS = ["localhost", "127.0.0.1", "[::1]"];

/** The request headers these rules read (node's IncomingHttpHeaders, or hono's header record). */
export type GuardedHeaders = Pick<
  IncomingHttpHeaders,
  "host" | "origin" | "authorization" | "content-type" | "content-length" | "transfer-encoding"
>;

/** Listening here would expose an unauthenticated agent: a non-loopback host without a key. */
export class UnsafeBindError extends Error {
  override name = "UnsafeBindError";
}

/** Throws UnsafeBindError for a non-loopback `host` without a key. */
export function checkBind(host: string, apiKey: string | undefined): void {
  if (apiKey || host === "localhost" || isLoopbackAddress(host)) return;
  throw new UnsafeBindError(
    `refusing to listen on ${host} without a key: anyone who reaches it could run commands as you; set one with --api-key-env VAR, or listen on 127.0.0.1`,
  );
}

/** Hostnames a Host/Origin header may name: loopback names, plus the bound host if specific. */
export function allowedHostnames(host: string): Set<string> {
  const names = new Set(LOCAL_HOSTS);
  if (host !== "0.0.0.0" && host !== "::") names.add(host.includes(":") ? `[${host}]` : host.toLowerCase());
  return names;
}

/** A refused Host or Origin header: which one, and why. */
export interface HostRefusal {
  header: "host" | "origin";
  message: string;
}

/**
 * Why the request's Host or Origin is refused, or null when both are acceptable. `anyHost`
 * accepts every Host (a server bound to all interfaces, behind a key); Origin is checked anyway.
 */
export function refuseHost(
  headers: GuardedHeaders,
  allowed: Set<string>,
  options: { anyHost?: boolean } = {},
): HostRefusal | null {
  const host = headers.host;
  if (!options.anyHost && (!host || !allowed.has(hostnameOf(`http://${host}`) ?? "")))
    return { header: "host", message: `Forbidden: Host '${host ?? ""}' is not allowed` };
  const origin = headers.origin;
  if (origin === undefined) return null;
  // An opaque origin: a page that hides where it comes from gets no more than a foreign one.
  if (origin.trim().toLowerCase() === "null")
    return { header: "origin", message: "Forbidden: Origin 'null' (an opaque origin) is not allowed" };
  if (!allowed.has(hostnameOf(origin) ?? ""))
    return { header: "origin", message: `Forbidden: Origin '${origin}' is not allowed` };
  return null;
}

/**
 * Why the request's body is refused (answer 415), or null: a request that carries a body must
 * declare it `application/json` (parameters such as `charset=utf-8` are fine). A request without
 * a body (GET, DELETE, an empty POST) passes.
 */
export function refuseBodyType(headers: GuardedHeaders): string | null {
  const length = Number(headers["content-length"] ?? 0);
  const hasBody = headers["transfer-encoding"] !== undefined || !(length === 0 || Number.isNaN(length));
  if (!hasBody) return null;
  const type = headers["content-type"];
  const media = type?.split(";")[0]?.trim().toLowerCase();
  if (media === "application/json") return null;
  return `Unsupported Media Type: the request body must be sent as 'Content-Type: application/json' (got '${type ?? "none"}')`;
}

/** Whether the Authorization header carries `Bearer <key>`. */
export function hasBearer(headers: GuardedHeaders, key: string): boolean {
  const match = /^Bearer\s+(.+)$/i.exec(headers.authorization ?? "");
  const given = Buffer.from(match?.[1]?.trim() ?? "");
  const expected = Buffer.from(key);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/**
 * The key-less caller check of one server: only a process of this server's own user, outside
 * every sandbox, may call (util/loopback-peer.ts). One verdict per TCP connection.
 */
export class PeerGuard {
  private readonly peers = new LoopbackPeers();
  private readonly verdicts = new WeakMap<Socket, Promise<PeerVerdict>>();

  /** Why the process at the other end of `socket` is refused; null when it may call. */
  async refuse(socket: Socket): Promise<string | null> {
    let verdict = this.verdicts.get(socket);
    if (verdict === undefined) {
      verdict = this.judge(socket);
      this.verdicts.set(socket, verdict);
    }
    return REFUSALS[await verdict];
  }

  private judge(socket: Socket): Promise<PeerVerdict> {
    const { remoteAddress, remotePort, localAddress, localPort } = socket;
    // Only Linux has sandboxed commands (and /proc) to tell apart.
    if (process.platform !== "linux") return Promise.resolve("unconfined");
    if (!remoteAddress || !isLoopbackAddress(remoteAddress) || !localAddress || !remotePort || !localPort)
      return Promise.resolve("unknown");
    return this.peers.verdict({
      clientAddress: remoteAddress,
      clientPort: remotePort,
      serverAddress: localAddress,
      serverPort: localPort,
    });
  }
}

const REFUSALS: Record<PeerVerdict, string | null> = {
  unconfined: null,
  "other-user":
    "Forbidden: this server has no key and serves only its own user; the calling process belongs to another user; start the server with --api-key-env to allow other clients",
  confined:
    "Forbidden: this server has no key and the caller runs inside a sandbox; start the server with --api-key-env to allow such clients",
  busy: "Forbidden: this server has no key and could not check the calling process in time (too many connections at once); retry, or start the server with --api-key-env",
  unknown:
    "Forbidden: this server has no key and the calling process could not be identified as a local unsandboxed process; start the server with --api-key-env",
};

function hostnameOf(url: string): string | null {
  try {
    return new URL(url).hostname.toLowerCase();
  } catch {
    return null;
  }
}
