/**
 * Bounds on a model stream: the idle timeout counts only progress (a keepalive such as `: ping`
 * or `response.in_progress` is not progress, so a server that only pings is idle), and the
 * response as a whole has a time budget.
 */
import type { Readable } from "node:stream";
import { streamError } from "./sse.js";
import { ModelError, type ResponseEvent } from "./types.js";

/** The code of the error a response gets when it outlives its budget (no retry helps). */
export const BUDGET_EXCEEDED = "stream_budget_exceeded";

export interface ProgressLimits {
  /** No progress event for this long (while waiting on the server) fails the stream. */
  idleMs: number;
  /** Epoch ms after which the response has used its budget. */
  deadline: number;
  /** The budget in ms, for the message. */
  budgetMs: number;
}

/** The error a response gets when it outlives its budget. */
export function budgetError(budgetMs: number): ModelError {
  return new ModelError(
    `model response took longer than stream_max_duration_ms (${budgetMs} ms); giving up`,
    "stream",
    undefined,
    { code: BUDGET_EXCEEDED },
  );
}

/** Everything but `created` is the server doing work for us. */
function isProgress(event: ResponseEvent): boolean {
  return event.type !== "created";
}

/**
 * Yields `events` (mapped from `body`) and fails them, by destroying `body` with the reason, when
 * no progress arrives for `idleMs` or the deadline passes. Time spent in the consumer between
 * events does not count as idle.
 */
export async function* watchProgress(
  events: AsyncIterable<ResponseEvent>,
  body: Readable,
  limits: ProgressLimits,
): AsyncGenerator<ResponseEvent> {
  const iterator = events[Symbol.asyncIterator]();
  let idleSince = Date.now();
  try {
    for (;;) {
      const now = Date.now();
      const idleLeft = idleSince + limits.idleMs - now;
      const budgetLeft = limits.deadline - now;
      // The reason is made only when the timer fires: an Error per event would capture a stack
      // trace for every delta of every stream.
      const timer = setTimeout(
        () =>
          body.destroy(
            budgetLeft <= idleLeft
              ? budgetError(limits.budgetMs)
              : streamError("idle timeout waiting for SSE"),
          ),
        Math.max(0, Math.min(idleLeft, budgetLeft)),
      );
      let next: IteratorResult<ResponseEvent>;
      try {
        next = await iterator.next();
      } finally {
        clearTimeout(timer);
      }
      if (next.done) return;
      const progress = isProgress(next.value);
      yield next.value;
      if (progress) idleSince = Date.now();
    }
  } finally {
    await iterator.return?.();
  }
}
