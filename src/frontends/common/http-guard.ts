/**
 * Who may use a local network front-end (the app-server's WebSocket now; the MCP server's and
 * the proxy's HTTP apply the same rules in their own modules and can move onto this one):
 * - a server that listens beyond loopback must have a key (it refuses to start otherwise);
 * - Host and Origin must name this machine (DNS-rebinding protection: a web page must not reach
 *   a local agent through a hostile DNS name that resolves to 127.0.0.1) → 403;
 * - with a key, `Authorization: Bearer <key>` must carry it (constant-time comparison) → 401;
 * - without one, the caller must be a local process outside every sandbox: a sandboxed command
 *   with network access reaches 127.0.0.1 too, and driving the agent would be its escape → 403.
 */
import { timingSafeEqual } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";
import type { Socket } from "node:net";
import { isLoopbackAddress, loopbackPeerVerdict, type PeerVerdict } from "../../util/loopback-peer.js";

const LOCAL_HOSTS = ["localhost", "127.0.0.1", "[::1]"];

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

/** Why the request's Host or Origin is refused, or null when both are acceptable. */
export function refuseHost(headers: IncomingHttpHeaders, allowed: Set<string>): string | null {
  const host = headers.host;
  if (!host || !allowed.has(hostnameOf(`http://${host}`) ?? ""))
    return `Forbidden: Host '${host ?? ""}' is not allowed`;
  const origin = headers.origin;
  if (origin !== undefined && !allowed.has(hostnameOf(origin) ?? ""))
    return `Forbidden: Origin '${origin}' is not allowed`;
  return null;
}

/** Whether the Authorization header carries `Bearer <key>`. */
export function hasBearer(headers: IncomingHttpHeaders, key: string): boolean {
  const match = /^Bearer\s+(.+)$/i.exec(headers.authorization ?? "");
  const given = Buffer.from(match?.[1]?.trim() ?? "");
  const expected = Buffer.from(key);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** One verdict per TCP connection. */
const verdicts = new WeakMap<Socket, Promise<PeerVerdict>>();

/** Why a key-less server refuses the process at the other end of `socket`; null when it may call. */
export async function refuseSandboxedPeer(socket: Socket): Promise<string | null> {
  let verdict = verdicts.get(socket);
  if (verdict === undefined) {
    const { remoteAddress, remotePort, localPort } = socket;
    // Only Linux has sandboxed commands (and /proc) to tell apart.
    if (process.platform !== "linux") verdict = Promise.resolve("unconfined");
    else if (!remoteAddress || !isLoopbackAddress(remoteAddress) || !remotePort || !localPort)
      verdict = Promise.resolve("unknown");
    else verdict = loopbackPeerVerdict(remotePort, localPort);
    verdicts.set(socket, verdict);
  }
  switch (await verdict) {
    case "unconfined":
      return null;
    case "confined":
      return "Forbidden: this server has no key and the caller runs inside a sandbox; start the server with --api-key-env to allow such clients";
    case "unknown":
      return "Forbidden: this server has no key and the calling process could not be identified as a local unsandboxed process; start the server with --api-key-env";
  }
}

function hostnameOf(url: string): string | null {
  try {
    return new URL(url).hostname.toLowerCase();
  } catch {
    return null;
  }
}
