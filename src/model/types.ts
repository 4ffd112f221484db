/**
 * The model layer's contract: a Prompt goes in, a stream of ResponseEvents comes out.
 * Both wire APIs (Responses and Chat Completions) are mapped onto these events so the
 * turn loop never knows which one it talks to.
 */
import type { ResponseItem, TokenUsage } from "../protocol/items.js";
import type { TurnTelemetry } from "../protocol/telemetry.js";
import type { ToolSpec } from "../protocol/tool-spec.js";

export type WireApi = "responses" | "chat";

/** The name Codex gives a turn's output schema on the wire. */
export const OUTPUT_SCHEMA_NAME = "codex_output_schema";

export interface Prompt {
  /** Base instructions: `instructions` on the Responses wire, the system message on chat. */
  instructions: string;
  /** Full history, resent every request (no previous_response_id). */
  input: ResponseItem[];
  tools: ToolSpec[];
  parallelToolCalls: boolean;
  /** The final message must be JSON matching this schema (Responses `text.format`, chat `response_format`). */
  outputSchema?: Record<string, unknown>;
  /**
   * Whether the provider must enforce `outputSchema` strictly (default true). OpenAI's strict
   * mode requires every property to be required, so a schema with optional fields (the approval
   * reviewer's, as Codex sends it) goes with `strict: false`.
   */
  outputSchemaStrict?: boolean;
  /** This request's model and reasoning, when the turn picked others than the client's. */
  settings?: ModelRequestSettings;
}

export type ResponseEvent =
  | { type: "created" }
  | { type: "output_text_delta"; delta: string }
  /** Reasoning text (`itemId`: the reasoning item's id, when the provider says). */
  | { type: "reasoning_summary_delta"; delta: string; summaryIndex: number; itemId?: string }
  | { type: "reasoning_content_delta"; delta: string; itemId?: string }
  /** A reasoning summary part begins (`itemId`: the reasoning item's id, "" when unknown). */
  | { type: "reasoning_summary_part_added"; itemId: string; summaryIndex: number }
  | { type: "output_item_added"; item: ResponseItem }
  /** A piece of a custom tool call's input as it streams (`itemId`: the call item's id). */
  | { type: "custom_tool_input_delta"; itemId: string; delta: string }
  | { type: "output_item_done"; item: ResponseItem }
  /** `model`: the model that answered, when the provider says (it may differ from the one asked). */
  | { type: "completed"; responseId: string; usage: TokenUsage | null; model?: string }
  /**
   * Yielded before retrying a stream that already yielded events: the consumer discards the
   * partial items and deltas of the failed attempt (nothing ran: tools run after `completed`).
   */
  | { type: "stream_restart" };

/** Announced before each retry so front-ends can show "reconnecting…". */
export interface RetryNotice {
  attempt: number;
  maxAttempts: number;
  delayMs: number;
  message: string;
}

export interface StreamOptions {
  signal?: AbortSignal;
  onRetry?: (notice: RetryNotice) => void;
  /** The turn's telemetry: the request becomes its child (span, attempts, SSE events). */
  telemetry?: TurnTelemetry | undefined;
}

/**
 * Contract: `stream` yields events until (and including) `completed`, or throws a ModelError.
 * Retries of failed requests and of streams that end before `completed` happen inside;
 * a retried stream that had yielded events first yields `stream_restart`.
 */
export interface ModelClient {
  stream(prompt: Prompt, options?: StreamOptions): AsyncIterable<ResponseEvent>;
}

export type ModelErrorKind = "http" | "stream" | "aborted" | "config";

/**
 * `kind`: "http" = the server answered with an error status (`status` set, message = body text);
 * "stream" = transport failure or an error reported inside the stream; "aborted" = the signal fired.
 */
export class ModelError extends Error {
  /** API error code when the server gave one, e.g. "context_length_exceeded", "insufficient_quota". */
  readonly code?: string;
  /** Server's hint for when to retry (Retry-After, "try again in 1.5s"). */
  readonly retryAfterMs?: number;

  constructor(
    message: string,
    readonly kind: ModelErrorKind,
    readonly status?: number,
    options?: { cause?: unknown; code?: string; retryAfterMs?: number },
  ) {
    super(message, options);
    this.name = "ModelError";
    if (options?.code !== undefined) this.code = options.code;
    if (options?.retryAfterMs !== undefined) this.retryAfterMs = options.retryAfterMs;
  }
}

/** A resolved provider (config `model_providers.X` after env lookup). */
export interface ProviderInfo {
  id: string;
  name: string;
  /** e.g. "https://api.openai.com/v1"; `/responses` or `/chat/completions` is appended. */
  baseUrl: string;
  wireApi: WireApi;
  /** Bearer token; omitted when the provider needs none (Ollama). */
  apiKey?: string | undefined;
  httpHeaders: Record<string, string>;
  queryParams: Record<string, string>;
  /** Retries of a failed HTTP request (429, 5xx, connection errors). Codex default 4. */
  requestMaxRetries: number;
  /** Retries of a stream that drops before `completed`. Codex default 5. */
  streamMaxRetries: number;
  /** No progress (deltas, items; keepalives do not count) for this long counts as a dropped stream. Codex default 300000. */
  streamIdleTimeoutMs: number;
  /** One model response, retries included, fails after this long however it streams. */
  streamMaxDurationMs: number;
}

/** Per-model request knobs (reference section 1), decided from the model family. */
export interface ModelRequestSettings {
  model: string;
  /** Responses `reasoning` field; null sends `reasoning: null`. */
  reasoning: { effort?: string; summary?: string } | null;
  /** e.g. ["reasoning.encrypted_content"], [] for non-reasoning models. */
  include: string[];
  /** gpt-5.1/5.2 send `text: {verbosity: "low"}`. */
  textVerbosity?: string;
}

/** Request identity: headers and cache key. */
export interface ClientIdentity {
  /** Thread id: `session_id` header and `prompt_cache_key`. */
  sessionId: string;
  originator: string;
  userAgent: string;
}

/** What a model client is built from: where to send, what to ask, who is asking. */
export interface ModelClientConfig {
  provider: ProviderInfo;
  settings: ModelRequestSettings;
  identity: ClientIdentity;
}
