/**
 * Server-sent events from a response body: eventsource-parser does the framing, this file
 * adds the error mapping (timeouts count progress, not bytes: see progress-watch.ts). Also the light JSON narrowing both wires use
 * (the hot path: no zod here).
 */
import type { Readable } from "node:stream";
import { createParser, type EventSourceMessage } from "eventsource-parser";
import { errorMessage } from "../util/errors.js";
import { ModelError } from "./types.js";

/** One SSE message. `event` is undefined when the server sent only `data:` lines (chat wire). */
export interface SseMessage {
  event: string | undefined;
  data: string;
}

/** The message of a stream that died before its end; Codex words it the same way. */
export function streamError(reason: string, options?: { cause?: unknown }): ModelError {
  return new ModelError(`stream disconnected before completion: ${reason}`, "stream", undefined, options);
}

/**
 * Yields the SSE messages of `body` until it ends. Throws a "stream" ModelError when the
 * connection breaks; a ModelError `body` was destroyed with (a timeout, an abort) passes through
 * unchanged. Stopping early leaves `body` alive: the caller destroys it, or drains it so the
 * keep-alive connection can be reused.
 */
export async function* readSse(body: Readable): AsyncGenerator<SseMessage> {
  const pending: SseMessage[] = [];
  const parser = createParser({
    onEvent: (message: EventSourceMessage) => pending.push({ event: message.event, data: message.data }),
  });
  const chunks: AsyncIterator<unknown> = body.iterator({ destroyOnReturn: false });
  try {
    for (;;) {
      let next: IteratorResult<unknown>;
      try {
        next = await chunks.next();
      } catch (error) {
        if (error instanceof ModelError) throw error;
        const reason = errorMessage(error);
        throw streamError(reason, { cause: error });
      }
      if (next.done) return;
      parser.feed(typeof next.value === "string" ? next.value : String(next.value));
      while (pending.length > 0) {
        const message = pending.shift();
        if (message) yield message;
      }
    }
  } finally {
    await chunks.return?.();
  }
}

export type JsonObject = Record<string, unknown>;

export function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Parses an SSE data payload that should be a JSON object; null when it is not. */
export function parseJsonObject(data: string): JsonObject | null {
  try {
    const value: unknown = JSON.parse(data);
    return isObject(value) ? value : null;
  } catch {
    return null;
  }
}

export function stringField(object: JsonObject, key: string): string | undefined {
  const value = object[key];
  return typeof value === "string" ? value : undefined;
}

export function numberField(object: JsonObject, key: string): number | undefined {
  const value = object[key];
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

export function objectField(object: JsonObject, key: string): JsonObject | undefined {
  const value = object[key];
  return isObject(value) ? value : undefined;
}
