/**
 * What the hook implementations share: the OpenTelemetry pieces they record with, a turn's
 * state as its requests and tool calls see it, and the attributes common to records and metrics.
 */
import type * as Api from "@opentelemetry/api";
import type { Context, Attributes as OtelAttributes, Span, Tracer } from "@opentelemetry/api";
import type { OtelSettings } from "../config/otel.js";
import type { TokenUsage } from "../protocol/items.js";
import type { TraceCarrier, TurnStartInfo } from "../protocol/telemetry.js";
import { VERSION } from "../version.js";
import type { Instruments } from "./instruments.js";
import { type Attributes, clean, type EventSink } from "./records.js";
import { carrierOf } from "./trace-context.js";

/** What the hooks record with; built by `startOtelTelemetry`. */
export interface OtelParts {
  api: typeof Api;
  tracer: Tracer;
  events: EventSink;
  instruments: Instruments;
  settings: OtelSettings;
  serviceName: string;
  sessionSource: string;
  /** `ApiKey` (a provider key from env or config) or `None`. */
  authMode: string;
  terminalType: string;
  flush(): Promise<void>;
  shutdown(): Promise<void>;
}

/** Who a record or metric is about. */
export interface Subject {
  threadId: string;
  model: string;
  originator: string;
}

/** SSE kinds that say the stream opened, not that the model answered (not a first chunk). */
export const PREAMBLE_KINDS = new Set(["response.created", "response.in_progress"]);

export function commonRecord(parts: OtelParts, subject: Subject): Attributes {
  return {
    "conversation.id": subject.threadId,
    "app.version": VERSION,
    auth_mode: parts.authMode,
    originator: subject.originator,
    "terminal.type": parts.terminalType,
    model: subject.model,
    slug: subject.model,
  };
}

export function commonTags(parts: OtelParts, subject: Partial<Subject> | undefined): OtelAttributes {
  return clean({
    "app.version": VERSION,
    auth_mode: parts.authMode,
    model: subject?.model,
    originator: subject?.originator,
    session_source: parts.sessionSource,
    service_name: parts.serviceName,
  });
}

/** `gen_ai.provider.name` for a provider id: the semconv names where one exists. */
export function genAiProvider(provider: string): string {
  if (provider === "azure") return "azure.ai.openai";
  return provider;
}

export function spanCarrier(span: Span): TraceCarrier {
  const context = span.spanContext();
  return carrierOf(
    context.traceId,
    context.spanId,
    context.traceFlags,
    context.traceState?.serialize() ?? "",
  );
}

export interface TurnState {
  parts: OtelParts;
  info: TurnStartInfo;
  span: Span;
  context: Context;
  common: Attributes;
  tags: OtelAttributes;
  onChunk(kind: string): void;
  onToolCall(): void;
}

export function usageAttributes(usage: TokenUsage): Attributes {
  return {
    "gen_ai.usage.input_tokens": usage.input_tokens,
    "gen_ai.usage.output_tokens": usage.output_tokens,
    "gen_ai.usage.cache_read.input_tokens": usage.cached_input_tokens,
    "gen_ai.usage.reasoning.output_tokens": usage.reasoning_output_tokens,
  };
}
