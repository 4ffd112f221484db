/**
 * What every request passes before a handler: Host/Origin must name this machine (a web page
 * must not reach a local agent through a rebound DNS name) → 403; the bearer key when configured
 * → 401, and without one a caller inside a sandbox → 403 (common/http-guard.ts); the body size
 * → 413; the concurrency limit → 429.
 */
import { timingSafeEqual } from "node:crypto";
import type { Socket } from "node:net";
import { refuseSandboxedPeer } from "../common/http-guard.js";
import { ApiError } from "./errors.js";

const LOCAL_HOSTS = ["localhost", "127.0.0.1", "[::1]"];

/** Hostnames a Host/Origin header may name: loopback names, plus the bound host if specific. */
export function allowedHostnames(host: string): Set<string> {
  const names = new Set(LOCAL_HOSTS);
  if (host !== "0.0.0.0" && host !== "::") names.add(host.includes(":") ? `[${host}]` : host.toLowerCase());
  return names;
}

/** Throws a 403 when Host or Origin names another machine (any host is fine on 0.0.0.0). */
export function checkHost(
  headers: { host: string | undefined; origin: string | undefined },
  allowed: Set<string>,
  anyHost: boolean,
): void {
  const { host, origin } = headers;
  if (!anyHost && (!host || !allowed.has(hostname(`http://${host}`) ?? "")))
    throw new ApiError(
      403,
      `Host '${host ?? ""}' is not allowed`,
      "invalid_request_error",
      null,
      "forbidden_host",
    );
  if (origin !== undefined && origin !== "null" && !allowed.has(hostname(origin) ?? ""))
    throw new ApiError(
      403,
      `Origin '${origin}' is not allowed`,
      "invalid_request_error",
      null,
      "forbidden_origin",
    );
}

export function checkBearer(authorization: string | undefined, key: string): void {
  const match = /^Bearer\s+(.+)$/i.exec(authorization ?? "");
  const given = Buffer.from(match?.[1]?.trim() ?? "");
  const expected = Buffer.from(key);
  if (given.length === expected.length && timingSafeEqual(given, expected)) return;
  throw new ApiError(
    401,
    "Incorrect API key provided. Send it as `Authorization: Bearer <key>`.",
    "authentication_error",
    null,
    "invalid_api_key",
  );
}

/**
 * Without a key, only local processes outside every sandbox may call: a sandboxed command with
 * network access reaches 127.0.0.1 too, and driving the agent would be its escape.
 */
export async function refuseSandboxedCaller(
  env: { incoming?: { socket?: Socket } } | undefined,
): Promise<void> {
  const socket = env?.incoming?.socket;
  const refusal = socket
    ? await refuseSandboxedPeer(socket)
    : "Forbidden: the calling process could not be identified";
  if (refusal) throw new ApiError(403, refusal, "invalid_request_error", null, "forbidden_caller");
}

/** Counts running turns; acquire() past the limit is a 429. */
export class ConcurrencyLimit {
  private active = 0;
  private idle: (() => void)[] = [];

  constructor(readonly max: number) {}

  get running(): number {
    return this.active;
  }

  /** A slot, or a 429; call the returned function once when the turn is over. */
  acquire(): () => void {
    if (this.active >= this.max)
      throw new ApiError(
        429,
        `Too many concurrent requests: the proxy runs at most ${this.max} turns at once. Retry shortly.`,
        "rate_limit_error",
        null,
        "rate_limit_exceeded",
      );
    this.active += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.active -= 1;
      if (this.active === 0) for (const wake of this.idle.splice(0)) wake();
    };
  }

  /** Resolves when no turn runs (graceful shutdown). */
  drained(): Promise<void> {
    if (this.active === 0) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }
}

function hostname(url: string): string | null {
  try {
    return new URL(url).hostname.toLowerCase();
  } catch {
    return null;
  }
}
