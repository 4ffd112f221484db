/**
 * The model client's HTTP transport: one streamed POST with node:http/https.
 * Not the global fetch: a cold streamed POST costs about half the time and memory this way
 * (DESIGN.md). The http/https modules are taken on first use so that importing src/model stays
 * cheap for front-ends that never call a model, with process.getBuiltinModule: an ES import()
 * of a builtin makes Node build an ES facade of it (issue 26: start-up RSS).
 */
import type { IncomingHttpHeaders, IncomingMessage } from "node:http";
import type { ClientIdentity, ProviderInfo } from "./types.js";
import { ModelError } from "./types.js";

/** A request ready to send: built once per `stream()` call, resent as is on retries. */
export interface WireRequest {
  url: URL;
  headers: Record<string, string>;
  body: string;
}

export interface HttpResponse {
  status: number;
  headers: IncomingHttpHeaders;
  /** The body as a utf8 stream. Destroy it to drop the connection early. */
  body: IncomingMessage;
}

export interface PostOptions {
  signal?: AbortSignal | undefined;
  /** Fail (as a connection error) when no response headers arrive within this time. */
  headersTimeoutMs?: number | undefined;
}

type RequestFn = typeof import("node:http").request;
let httpRequest: RequestFn | undefined;
let httpsRequest: RequestFn | undefined;

async function requestFor(url: URL): Promise<RequestFn> {
  if (url.protocol === "https:") {
    httpsRequest ??= process.getBuiltinModule("node:https").request;
    return httpsRequest;
  }
  if (url.protocol === "http:") {
    httpRequest ??= process.getBuiltinModule("node:http").request;
    return httpRequest;
  }
  throw new ModelError(`unsupported URL scheme in ${url.href}`, "config");
}

export function abortedError(): ModelError {
  return new ModelError("request aborted", "aborted");
}

/**
 * POSTs `body` and resolves once the response headers are in, whatever the status.
 * Rejects with ModelError: "aborted" when the signal fires, "stream" for connection failures
 * (refused, reset, DNS, headers timeout), "config" for a bad URL. An abort after the headers
 * destroys the body with an "aborted" ModelError.
 */
export async function post(request: WireRequest, options: PostOptions = {}): Promise<HttpResponse> {
  const { signal } = options;
  if (signal?.aborted) throw abortedError();
  const send = await requestFor(request.url);
  if (signal?.aborted) throw abortedError(); // fired while the module loaded
  const headers = { ...request.headers, "content-length": String(Buffer.byteLength(request.body)) };

  return new Promise<HttpResponse>((resolve, reject) => {
    let response: IncomingMessage | undefined;
    let timer: NodeJS.Timeout | undefined;
    const onAbort = (): void => {
      const error = abortedError();
      response?.destroy(error);
      req.destroy(error);
      reject(error);
    };
    const cleanup = (): void => {
      if (timer) clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
    };

    const req = send(request.url, { method: "POST", headers }, (res) => {
      if (timer) clearTimeout(timer);
      response = res;
      res.setEncoding("utf8");
      res.once("close", cleanup);
      resolve({ status: res.statusCode ?? 0, headers: res.headers, body: res });
    });
    // `on`, not `once`: a request may emit a second error (reset after an abort) and an
    // unhandled one would crash the process. Rejecting an already settled promise is a no-op.
    req.on("error", (error) => {
      if (response) return;
      cleanup();
      if (error instanceof ModelError) return reject(error);
      const reason = error.message || ("code" in error ? String(error.code) : "unknown error");
      const message = `error sending request for url (${request.url.href}): ${reason}`;
      reject(new ModelError(message, "stream", undefined, { cause: error }));
    });
    signal?.addEventListener("abort", onAbort, { once: true });
    if (options.headersTimeoutMs !== undefined) {
      const ms = options.headersTimeoutMs;
      timer = setTimeout(() => {
        req.destroy(new ModelError(`timed out after ${ms} ms waiting for response headers`, "stream"));
      }, ms);
    }
    req.end(request.body);
  });
}

/**
 * Lets the unread rest of a finished response (the final chunk terminator) drain, so that its
 * keep-alive socket returns to the pool instead of costing a new TLS handshake next request.
 * Resolves once the body closed or after `waitMs`; destroys it if the server has not ended it
 * within `graceMs`.
 */
export function releaseBody(body: IncomingMessage, waitMs = 100, graceMs = 2000): Promise<void> {
  if (body.readableEnded || body.destroyed) return Promise.resolve();
  const kill = setTimeout(() => body.destroy(), graceMs);
  kill.unref();
  return new Promise((resolve) => {
    const wait = setTimeout(resolve, waitMs);
    body.once("close", () => {
      clearTimeout(kill);
      clearTimeout(wait);
      resolve();
    });
    body.resume();
  });
}

/** Reads a (small) response body as text, keeping at most `limit` characters. */
export async function readText(body: IncomingMessage, limit = 1 << 20): Promise<string> {
  let text = "";
  for await (const chunk of body) {
    text += String(chunk);
    if (text.length >= limit) {
      body.destroy();
      return text.slice(0, limit);
    }
  }
  return text;
}

/** `{baseUrl}{path}` plus the provider's query params (e.g. Azure `api-version`). */
export function endpointUrl(provider: ProviderInfo, path: string): URL {
  let url: URL;
  try {
    url = new URL(provider.baseUrl.replace(/\/+$/, "") + path);
  } catch (cause) {
    throw new ModelError(
      `invalid base_url for provider ${provider.id}: ${provider.baseUrl}`,
      "config",
      undefined,
      {
        cause,
      },
    );
  }
  for (const [key, value] of Object.entries(provider.queryParams)) url.searchParams.set(key, value);
  return url;
}

/** Headers common to both wires; provider headers come last so they may override. */
export function commonHeaders(provider: ProviderInfo, identity: ClientIdentity): Record<string, string> {
  const headers: Record<string, string> = {
    session_id: identity.sessionId,
    accept: "text/event-stream",
    "content-type": "application/json",
    "user-agent": headerSafe(identity.userAgent),
    originator: headerSafe(identity.originator),
  };
  if (provider.apiKey) headers.authorization = `Bearer ${provider.apiKey}`;
  for (const [key, value] of Object.entries(provider.httpHeaders))
    headers[key.toLowerCase()] = headerSafe(value);
  return headers;
}

/** Node throws on control or non-latin1 characters in header values (a client name could hold any). */
function headerSafe(value: string): string {
  return value.replace(/[^\t\x20-\x7e]/g, "_");
}

/** Longest server-requested wait we honour; beyond it we retry on our own schedule. */
const MAX_RETRY_AFTER_MS = 120_000;

/**
 * Delay the server asked for: `retry-after-ms` (OpenAI), then `retry-after` in seconds or as an
 * HTTP date. Undefined when absent or unparsable.
 */
export function retryAfterFromHeaders(headers: IncomingHttpHeaders, now = Date.now()): number | undefined {
  const ms = headers["retry-after-ms"];
  if (typeof ms === "string" && ms.trim() !== "" && Number.isFinite(Number(ms)))
    return clampDelay(Number(ms));
  const value = headers["retry-after"];
  if (typeof value !== "string" || value.trim() === "") return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return clampDelay(seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : clampDelay(date - now);
}

/** OpenAI's rate-limit prose: "Please try again in 1.5s" / "try again in 250ms". */
export function retryAfterFromMessage(message: string): number | undefined {
  const match = /try again in\s+(\d+(?:\.\d+)?)\s*(ms|s)\b/i.exec(message);
  if (!match?.[1]) return undefined;
  const amount = Number(match[1]);
  return clampDelay(match[2]?.toLowerCase() === "ms" ? amount : amount * 1000);
}

function clampDelay(ms: number): number {
  return Math.min(Math.max(0, Math.round(ms)), MAX_RETRY_AFTER_MS);
}
