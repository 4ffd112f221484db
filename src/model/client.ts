/**
 * The model client: picks the wire, sends the request, streams the events, retries.
 *
 * Flow of one `stream()` call:
 *   build the request once → POST (retry 429/5xx/connection errors up to requestMaxRetries,
 *   honouring Retry-After) → map SSE to ResponseEvents → return after `completed`.
 *   A stream that fails before `completed` (drop, idle timeout, response.failed, no completed)
 *   is reopened up to streamMaxRetries times; if the failed attempt had yielded events, a
 *   `stream_restart` event goes first so the consumer drops that attempt's partial output.
 *   The idle timeout counts only progress (keepalives are not), and the whole call, retries
 *   included, has a budget (streamMaxDurationMs) after which it fails without retrying.
 * Every retry is announced through `onRetry` before its backoff sleep.
 */
import { setTimeout as sleep } from "node:timers/promises";
import type { ModelRequestTelemetry } from "../protocol/telemetry.js";
import { errorMessage } from "../util/errors.js";
import {
  abortedError,
  type HttpResponse,
  post,
  readText,
  releaseBody,
  retryAfterFromHeaders,
  retryAfterFromMessage,
  type WireRequest,
} from "./http.js";
import { BUDGET_EXCEEDED, budgetError, watchProgress } from "./progress-watch.js";
import { requestErrorType, tapSse } from "./request-telemetry.js";
import { buildResponsesRequest, mapResponsesStream } from "./responses.js";
import { objectField, parseJsonObject, readSse, type SseMessage, streamError, stringField } from "./sse.js";
import {
  type ModelClient,
  type ModelClientConfig,
  ModelError,
  type Prompt,
  type ResponseEvent,
  type StreamOptions,
} from "./types.js";

export interface ModelClientOptions extends ModelClientConfig {
  /**
   * First backoff delay in ms (doubling per retry, ±10% jitter, capped at 20 s). Default: the
   * TSCODEX_RETRY_BASE_MS environment variable, else 200. Tests set it near 0.
   */
  retryBaseMs?: number;
}

interface Wire {
  build(prompt: Prompt, config: ModelClientConfig): WireRequest;
  map(messages: AsyncIterable<SseMessage>): AsyncGenerator<ResponseEvent>;
}

/**
 * Each wire by its `wire_api`. Chat Completions loads when a provider uses it: a turn on the
 * Responses wire never parses it (issue 26: what a one-turn exec loads is its peak RSS).
 */
const WIRES: Record<ModelClientConfig["provider"]["wireApi"], () => Promise<Wire>> = {
  responses: async () => ({ build: buildResponsesRequest, map: mapResponsesStream }),
  chat: async () => {
    const { buildChatRequest, mapChatStream } = await import("./chat.js");
    return { build: buildChatRequest, map: mapChatStream };
  },
};

/** Errors no retry can fix: the same request would fail the same way. */
const FATAL_CODES = new Set([
  BUDGET_EXCEEDED,
  "context_length_exceeded",
  "insufficient_quota",
  "usage_not_included",
  "invalid_prompt",
]);
const DEFAULT_RETRY_BASE_MS = 200;
const MAX_BACKOFF_MS = 20_000;

/** Builds a client for one provider and model. Cheap: no connection is opened until `stream`. */
export function createModelClient(options: ModelClientOptions): ModelClient {
  const loadWire = WIRES[options.provider.wireApi];
  if (!loadWire) throw new ModelError(`unknown wire_api: ${String(options.provider.wireApi)}`, "config");
  const baseMs = options.retryBaseMs ?? envRetryBase() ?? DEFAULT_RETRY_BASE_MS;
  return {
    stream: (prompt, streamOptions = {}) =>
      streamWithRetries(loadWire, options, baseMs, prompt, streamOptions),
  };
}

async function* streamWithRetries(
  loadWire: () => Promise<Wire>,
  config: ModelClientConfig,
  baseMs: number,
  prompt: Prompt,
  options: StreamOptions,
): AsyncGenerator<ResponseEvent> {
  const { provider } = config;
  const wire = await loadWire();
  const request = wire.build(prompt, config);
  const observer = options.telemetry?.modelRequest({
    model: prompt.settings?.model ?? config.settings.model,
    provider: provider.id,
    wireApi: provider.wireApi,
    url: request.url.href,
  });
  if (!observer) {
    yield* attemptStreams(wire, request, config, baseMs, options, undefined);
    return;
  }
  Object.assign(request.headers, observer.headers());
  let finished = false;
  try {
    for await (const event of attemptStreams(wire, request, config, baseMs, options, observer)) {
      if (event.type === "completed") {
        finished = true;
        observer.completed({ responseId: event.responseId, model: event.model, usage: event.usage });
      }
      yield event;
    }
  } catch (error) {
    finished = true;
    observer.failed({ type: requestErrorType(error), message: errorMessage(error) });
    throw error;
  } finally {
    // The consumer stopped reading (interrupted): the request ends unanswered.
    if (!finished) observer.failed({ type: "cancelled", message: "the turn stopped reading the response" });
  }
}

/** Opens the stream, reopening it as the retry rules allow, until `completed`. */
async function* attemptStreams(
  wire: Wire,
  request: WireRequest,
  config: ModelClientConfig,
  baseMs: number,
  options: StreamOptions,
  observer: ModelRequestTelemetry | undefined,
): AsyncGenerator<ResponseEvent> {
  const { provider } = config;
  const budgetMs = provider.streamMaxDurationMs;
  const deadline = Date.now() + budgetMs;
  for (let attempt = 0; ; attempt++) {
    const response = await openStream(request, config, baseMs, options, observer);
    const limits = { idleMs: provider.streamIdleTimeoutMs, deadline, budgetMs };
    const messages = observer
      ? tapSse(readSse(response.body), observer, provider.wireApi)
      : readSse(response.body);
    let yielded = false;
    let completed = false;
    let failure: ModelError;
    try {
      for await (const event of watchProgress(wire.map(messages), response.body, limits)) {
        yielded = true;
        completed = event.type === "completed";
        yield event;
        if (completed) return;
      }
      failure = streamError("stream closed before response.completed");
    } catch (error) {
      failure = toModelError(error, options.signal);
    } finally {
      // A finished response keeps its connection; anything else (failure, consumer gave up) drops it.
      if (completed) await releaseBody(response.body);
      else response.body.destroy();
    }
    const retryable = failure.kind === "stream" && !FATAL_CODES.has(failure.code ?? "");
    if (!retryable || attempt >= provider.streamMaxRetries) throw failure;
    const delayMs = failure.retryAfterMs ?? backoff(baseMs, attempt + 1);
    if (Date.now() + delayMs >= deadline) throw budgetError(budgetMs);
    options.onRetry?.({
      attempt: attempt + 1,
      maxAttempts: provider.streamMaxRetries,
      delayMs,
      message: failure.message,
    });
    if (yielded) yield { type: "stream_restart" };
    await pause(delayMs, options.signal);
  }
}

/** POSTs until a 2xx arrives, retrying what a retry can fix. */
async function openStream(
  request: WireRequest,
  config: ModelClientConfig,
  baseMs: number,
  options: StreamOptions,
  observer: ModelRequestTelemetry | undefined,
): Promise<HttpResponse> {
  const { provider } = config;
  const { signal } = options;
  for (let attempt = 0; ; attempt++) {
    let failure: ModelError;
    const started = performance.now();
    const ended = (status: number | undefined, error?: string) =>
      observer?.attempt({ attempt, status, durationMs: Math.round(performance.now() - started), error });
    try {
      const response = await post(request, { signal, headersTimeoutMs: provider.streamIdleTimeoutMs });
      if (response.status >= 200 && response.status < 300) {
        ended(response.status);
        return response;
      }
      failure = await httpError(response, provider.id);
      ended(response.status, failure.message);
    } catch (error) {
      failure = toModelError(error, signal);
      ended(undefined, failure.message);
    }
    if (signal?.aborted) throw abortedError();
    // The local provider with nothing listening: retrying will not start it.
    if (provider.id === "oss" && failure.kind === "stream" && /ECONNREFUSED/.test(failure.message)) {
      const message = `cannot connect to ${provider.baseUrl}: is Ollama running at ${provider.baseUrl}?`;
      throw new ModelError(message, "stream", undefined, { cause: failure });
    }
    if (!isRetryableRequest(failure) || attempt >= provider.requestMaxRetries) throw failure;
    const delayMs = failure.retryAfterMs ?? backoff(baseMs, attempt + 1);
    const message =
      failure.kind === "http"
        ? `unexpected status ${failure.status}: ${clip(failure.message)}`
        : failure.message;
    options.onRetry?.({ attempt: attempt + 1, maxAttempts: provider.requestMaxRetries, delayMs, message });
    await pause(delayMs, signal);
  }
}

function isRetryableRequest(error: ModelError): boolean {
  if (error.kind === "stream") return true; // connection refused/reset, headers timeout
  if (error.kind !== "http" || error.status === undefined) return false;
  if (error.status === 429) return !FATAL_CODES.has(error.code ?? "");
  return error.status >= 500;
}

/**
 * A non-2xx answer: the body text is the message, as Codex surfaces it; a 401 is one line that
 * says what to check (the body's own message in it).
 */
async function httpError(response: HttpResponse, providerId: string): Promise<ModelError> {
  const body = await readText(response.body).catch(() => "");
  const error = objectField(parseJsonObject(body) ?? {}, "error");
  const options: { code?: string; retryAfterMs?: number } = {};
  const code = error && (stringField(error, "code") ?? stringField(error, "type"));
  if (code) options.code = code;
  const hint = error && stringField(error, "message");
  const retryAfterMs =
    retryAfterFromHeaders(response.headers) ?? (hint ? retryAfterFromMessage(hint) : undefined);
  if (retryAfterMs !== undefined) options.retryAfterMs = retryAfterMs;
  if (response.status === 401) {
    const detail = (hint ?? body).replace(/\s+/g, " ").trim();
    const message = `model provider '${providerId}' refused the request (401 Unauthorized${detail ? `: ${clip(detail)}` : ""}); check its API key`;
    return new ModelError(message, "http", response.status, options);
  }
  const message = body === "" ? `unexpected status ${response.status}` : body;
  return new ModelError(message, "http", response.status, options);
}

function toModelError(error: unknown, signal: AbortSignal | undefined): ModelError {
  if (signal?.aborted) return abortedError();
  if (error instanceof ModelError) return error;
  return streamError(errorMessage(error), { cause: error });
}

/** Exponential backoff with ±10% jitter; `retry` counts from 1. */
function backoff(baseMs: number, retry: number): number {
  const jitter = 0.9 + Math.random() * 0.2;
  return Math.round(Math.min(baseMs * 2 ** (retry - 1), MAX_BACKOFF_MS) * jitter);
}

async function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  try {
    await sleep(ms, undefined, signal ? { signal } : undefined);
  } catch {
    throw abortedError();
  }
}

function envRetryBase(): number | undefined {
  const raw = process.env.TSCODEX_RETRY_BASE_MS;
  if (raw === undefined || raw.trim() === "") return undefined;
  const value = Number(raw);
  return Number.isFinite(value) && value >= 0 ? value : undefined;
}

function clip(text: string, max = 500): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
