/**
 * A model request as telemetry sees it: the SSE events of each attempt, tapped as they pass (by
 * their wire type, timed since the one before), and the failure's `error.type`. Used only when a
 * turn has telemetry: without `[otel]` the stream is read untouched.
 */
import type { ModelRequestTelemetry } from "../protocol/telemetry.js";
import type { SseMessage } from "./sse.js";
import { ModelError, type WireApi } from "./types.js";

/** Passes `messages` on, telling `observer` each one's kind and the ms waited for it. */
export async function* tapSse(
  messages: AsyncIterable<SseMessage>,
  observer: ModelRequestTelemetry,
  wireApi: WireApi,
): AsyncGenerator<SseMessage> {
  let last = performance.now();
  for await (const message of messages) {
    const now = performance.now();
    observer.sseEvent(sseKind(message, wireApi), Math.round(now - last));
    last = now;
    yield message;
  }
}

const TYPE_FIELD = /"type"\s*:\s*"([^"]+)"/;

/** The event's type: the SSE `event:` line, else the data's leading `type` (chat chunks have neither). */
function sseKind(message: SseMessage, wireApi: WireApi): string {
  if (wireApi === "chat") return message.data.trim() === "[DONE]" ? "chat.done" : "chat.completion.chunk";
  return message.event ?? TYPE_FIELD.exec(message.data.slice(0, 120))?.[1] ?? "unknown";
}

/** `error.type` of a failed request: the API's error code, else what kind of failure it was. */
export function requestErrorType(error: unknown): string {
  if (error instanceof ModelError) {
    if (error.code) return error.code;
    if (error.kind === "http" && error.status !== undefined) return String(error.status);
    return error.kind === "aborted" ? "cancelled" : error.kind;
  }
  return "_OTHER";
}
