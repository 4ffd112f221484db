/**
 * What every request passes before a handler, in OpenAI's error shape: the shared rules of
 * common/http-guard.ts (Host/Origin → 403, `Origin: null` included; a body not declared
 * `application/json` → 415; the bearer key when configured → 401, and without one another user's
 * process or a caller inside a sandbox → 403); then the body size → 413 and the concurrency limit → 429.
 */
import type { Socket } from "node:net";
import {
  type GuardedHeaders,
  hasBearer,
  type PeerGuard,
  refuseBodyType,
  refuseHost,
} from "../common/http-guard.js";
import { ApiError } from "./errors.js";

export { allowedHostnames } from "../common/http-guard.js";

/** Throws a 403 when Host or Origin names another machine (any Host is fine when `anyHost`). */
export function checkHost(headers: GuardedHeaders, allowed: Set<string>, anyHost: boolean): void {
  const refusal = refuseHost(headers, allowed, { anyHost });
  if (!refusal) return;
  const code = refusal.header === "host" ? "forbidden_host" : "forbidden_origin";
  throw new ApiError(403, refusal.message, "invalid_request_error", null, code);
}

/** Throws a 415 when the request carries a body not declared as JSON. */
export function checkBodyType(headers: GuardedHeaders): void {
  const refusal = refuseBodyType(headers);
  if (refusal) throw new ApiError(415, refusal, "invalid_request_error", null, "unsupported_media_type");
}

export function checkBearer(headers: GuardedHeaders, key: string): void {
  if (hasBearer(headers, key)) return;
  throw new ApiError(
    401,
    "Incorrect API key provided. Send it as `Authorization: Bearer <key>`.",
    "authentication_error",
    null,
    "invalid_api_key",
  );
}

/**
 * Without a key, only local processes of the proxy's own user, outside every sandbox, may call:
 * another user's process would run commands as this one, and a sandboxed command with network
 * access reaches 127.0.0.1 too, and driving the agent would be its escape.
 */
export async function refuseSandboxedCaller(
  env: { incoming?: { socket?: Socket } } | undefined,
  peers: PeerGuard,
): Promise<void> {
  const socket = env?.incoming?.socket;
  const refusal = socket
    ? await peers.refuse(socket)
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
