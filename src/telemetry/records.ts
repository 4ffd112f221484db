/**
 * Codex's `codex.*` events: each is one log record (severity INFO, `event.name` set, the
 * enclosing span's trace context) and the same event on that span (all but the per-chunk
 * `codex.sse_event`), minus content attributes (prompt, tool arguments and output) which stay in
 * the log record only.
 */

import type * as Api from "@opentelemetry/api";
import type { Context, Span } from "@opentelemetry/api";
import type { Logger } from "@opentelemetry/api-logs";

export type AttributeValue = string | number | boolean;
export type Attributes = Record<string, AttributeValue | undefined>;

/** Attributes exported in logs only, never on spans. */
const CONTENT = new Set(["prompt", "arguments", "output", "message"]);
/**
 * Records that stay logs only: one per SSE event would make a span event per chunk (Codex's
 * "~780 events" for one short run), and the `chat` span already has the request's timing.
 */
const LOG_ONLY = new Set(["codex.sse_event"]);
const SEVERITY_INFO = 9;

export interface EventSink {
  /** Emits `name` with the common attributes, within `span` when given. */
  emit(name: string, common: Attributes, attributes: Attributes, span?: Span): void;
}

export function eventSink(api: typeof Api, logger: Logger | undefined): EventSink {
  return {
    emit(name, common, attributes, span) {
      const now = new Date();
      const all = clean({
        "event.name": name,
        "event.timestamp": now.toISOString(),
        ...common,
        ...attributes,
      });
      if (logger) {
        const context: Context | undefined = span ? api.trace.setSpan(api.ROOT_CONTEXT, span) : undefined;
        logger.emit({
          eventName: name,
          severityNumber: SEVERITY_INFO,
          severityText: "INFO",
          timestamp: now,
          attributes: all,
          ...(context ? { context } : {}),
        });
      }
      if (span?.isRecording() && !LOG_ONLY.has(name)) {
        const spanAttributes = Object.fromEntries(Object.entries(all).filter(([key]) => !CONTENT.has(key)));
        span.addEvent(name, spanAttributes, now);
      }
    },
  };
}

/** Drops absent values (OTLP has no undefined). */
export function clean(attributes: Attributes): Record<string, AttributeValue> {
  const result: Record<string, AttributeValue> = {};
  for (const [key, value] of Object.entries(attributes)) if (value !== undefined) result[key] = value;
  return result;
}

/** `text` cut to at most `maxBytes` of UTF-8, never inside a character. */
export function capBytes(text: string, maxBytes: number): { text: string; truncated: boolean } {
  const bytes = Buffer.from(text, "utf8");
  if (bytes.length <= maxBytes) return { text, truncated: false };
  let end = maxBytes;
  // Back off continuation bytes (10xxxxxx) so the cut lands on a character boundary.
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end--;
  return { text: bytes.subarray(0, end).toString("utf8"), truncated: true };
}
