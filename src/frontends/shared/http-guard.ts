/**
 * Checks every local network front-end applies before serving a request (the app-server's
 * WebSocket now; the MCP server's Streamable HTTP has the same rules in its own http.ts and can
 * move onto this module):
 * - Host and Origin must name this machine (DNS-rebinding protection: a web page must not reach
 *   a local agent through a hostile DNS name that resolves to 127.0.0.1) → 403;
 * - when a key is configured, `Authorization: Bearer <key>` must carry it (constant-time
 *   comparison) → 401.
 */
import { timingSafeEqual } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";

const LOCAL_HOSTS = ["localhost", "127.0.0.1", "[::1]"];

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

function hostnameOf(url: string): string | null {
  try {
    return new URL(url).hostname.toLowerCase();
  } catch {
    return null;
  }
}
