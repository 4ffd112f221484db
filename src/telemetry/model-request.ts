/** A model request's hooks: the `chat {model}` CLIENT span, `codex.api_request` / `codex.sse_event`, their metrics. */
import type { Attributes as OtelAttributes } from "@opentelemetry/api";
import type { ModelRequestInfo, ModelRequestTelemetry } from "../protocol/telemetry.js";
import { genAiProvider, PREAMBLE_KINDS, spanCarrier, type TurnState, usageAttributes } from "./hook-parts.js";
import { clean } from "./records.js";

function serverOf(url: string): { address?: string; port?: number; path: string } {
  try {
    const parsed = new URL(url);
    const port = parsed.port ? Number(parsed.port) : parsed.protocol === "https:" ? 443 : 80;
    return { address: parsed.hostname, port, path: parsed.pathname };
  } catch {
    return { path: url };
  }
}

export function modelRequest(turn: TurnState, request: ModelRequestInfo): ModelRequestTelemetry {
  const { parts } = turn;
  const { api, settings, instruments } = parts;
  const started = performance.now();
  const server = serverOf(request.url);
  const provider = genAiProvider(request.provider);
  const semconv = clean({
    "gen_ai.operation.name": "chat",
    "gen_ai.provider.name": provider,
    "gen_ai.request.model": request.model,
    "server.address": server.address,
    "server.port": server.port,
  });
  const span = parts.tracer.startSpan(
    `chat ${request.model}`,
    { kind: api.SpanKind.CLIENT, attributes: { ...settings.spanAttributes, ...semconv } },
    turn.context,
  );
  const common = turn.common;
  const tags = turn.tags;
  let firstChunkSeen = false;
  let ended = false;
  const finish = (extra: OtelAttributes) => {
    ended = true;
    instruments.genAiOperationDuration.record((performance.now() - started) / 1000, { ...semconv, ...extra });
    span.end();
  };
  return {
    headers() {
      const carrier = spanCarrier(span);
      return carrier.tracestate
        ? { traceparent: carrier.traceparent, tracestate: carrier.tracestate }
        : { traceparent: carrier.traceparent };
    },
    attempt(attempt) {
      const ok = attempt.status !== undefined && attempt.status < 400 && !attempt.error;
      parts.events.emit(
        "codex.api_request",
        common,
        {
          duration_ms: Math.round(attempt.durationMs),
          "http.response.status_code": attempt.status,
          attempt: attempt.attempt,
          endpoint: server.path,
          "error.message": attempt.error,
        },
        span,
      );
      const attemptTags = { ...tags, status: String(attempt.status ?? "none"), success: String(ok) };
      instruments.apiRequest.add(1, attemptTags);
      instruments.apiRequestDuration.record(attempt.durationMs, attemptTags);
    },
    sseEvent(kind, durationMs) {
      if (!firstChunkSeen && !PREAMBLE_KINDS.has(kind)) {
        firstChunkSeen = true;
        instruments.genAiTimeToFirstChunk.record((performance.now() - started) / 1000, semconv);
      }
      turn.onChunk(kind);
      const eventTags = { ...tags, kind, success: "true" };
      instruments.sseEvent.add(1, eventTags);
      instruments.sseEventDuration.record(durationMs, eventTags);
      if (kind.endsWith(".delta") && !settings.logSseDeltas) return;
      parts.events.emit(
        "codex.sse_event",
        common,
        { "event.kind": kind, duration_ms: Math.round(durationMs) },
        span,
      );
    },
    completed({ responseId, model, usage }) {
      if (ended) return;
      const responseModel = model ?? request.model;
      span.setAttributes({ "gen_ai.response.id": responseId, "gen_ai.response.model": responseModel });
      if (usage) {
        span.setAttributes(clean(usageAttributes(usage)));
        parts.events.emit(
          "codex.sse_event",
          common,
          {
            "event.kind": "response.completed",
            input_token_count: usage.input_tokens,
            output_token_count: usage.output_tokens,
            cached_token_count: usage.cached_input_tokens,
            reasoning_token_count: usage.reasoning_output_tokens,
            tool_token_count: usage.total_tokens,
          },
          span,
        );
        const tokenTags = { ...semconv, "gen_ai.response.model": responseModel };
        instruments.genAiTokenUsage.record(usage.input_tokens, {
          ...tokenTags,
          "gen_ai.token.type": "input",
        });
        instruments.genAiTokenUsage.record(usage.output_tokens, {
          ...tokenTags,
          "gen_ai.token.type": "output",
        });
      }
      finish({ "gen_ai.response.model": responseModel });
    },
    failed({ type, message }) {
      if (ended) return;
      const errorType = type || "_OTHER";
      span.setAttribute("error.type", errorType);
      span.setStatus({ code: api.SpanStatusCode.ERROR, message });
      finish({ "error.type": errorType });
    },
  };
}
