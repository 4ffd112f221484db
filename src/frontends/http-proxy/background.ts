/**
 * `background: true` on POST /v1/responses: the answer is the response `in_progress` at once; the
 * turn runs on in this process, detached from the request, and its final state replaces the
 * stored record (poll with GET /v1/responses/{id}). POST /v1/responses/{id}/cancel ends a
 * background turn this process runs (its response becomes `cancelled`). The turns hold their
 * concurrency slots, so a graceful shutdown waits for them like for any other.
 */
import type { Context } from "hono";
import { errorMessage } from "../../util/errors.js";
import { ApiError } from "./errors.js";
import type { ProxyOptions } from "./request.js";
import type { ResponsesWriter } from "./responses-output.js";
import type { TurnRun } from "./serve-turn.js";

/** One Responses SSE event, as the stream would carry it. */
export interface SseEvent {
  type: string;
  data: Record<string, unknown>;
}

interface Running {
  abort: AbortController;
  done: Promise<void>;
  /** Every event so far (a stream may join at any point: `starting_after`). */
  events: SseEvent[];
  listeners: Set<() => void>;
}

/** The background turns this process runs, by response id. */
export class BackgroundTurns {
  private readonly running = new Map<string, Running>();

  /** A sender for a background writer: events are kept for streams that join later. */
  recorder(): { send: (type: string, data: Record<string, unknown>) => void; entry: Running } {
    const entry: Running = {
      abort: new AbortController(),
      done: Promise.resolve(),
      events: [],
      listeners: new Set(),
    };
    const send = (type: string, data: Record<string, unknown>) => {
      entry.events.push({ type, data });
      for (const wake of entry.listeners) wake();
    };
    return { send, entry };
  }

  /**
   * The events of running response `id` after sequence number `after`, as they come, ending with
   * its final event; null when this process does not run it.
   */
  follow(id: string, after: number): AsyncIterable<SseEvent> | null {
    const entry = this.running.get(id);
    if (!entry) return null;
    const running = this.running;
    return (async function* () {
      let next = 0;
      for (;;) {
        while (next < entry.events.length) {
          const event = entry.events[next++] as SseEvent;
          if (Number(event.data.sequence_number) > after) yield event;
          if (FINAL_EVENTS.has(event.type)) return;
        }
        if (running.get(id) !== entry) return; // over without a final event (it could not be stored)
        await new Promise<void>((wake) => {
          const once = () => {
            entry.listeners.delete(once);
            wake();
          };
          entry.listeners.add(once);
        });
      }
    })();
  }

  /**
   * Store the response as `in_progress`, run the turn to its end detached, return the response
   * to answer with now. `abort` must be the signal the turn was begun with.
   */
  async start(
    options: ProxyOptions,
    run: TurnRun,
    writer: ResponsesWriter,
    entry: Running,
    input: Record<string, unknown>[],
  ): Promise<Record<string, unknown>> {
    const { abort } = entry;
    writer.start();
    const pending = writer.snapshot("in_progress");
    await options.turns.threads.store.saveResponse({
      id: run.responseId,
      threadId: run.threadId,
      turns: 0,
      parkedTurnId: null,
      transcript: "",
      body: pending,
      input,
      created: Date.now(),
    });
    const done = run
      .drive(
        (event) => writer.onEvent(event),
        (result) => {
          const body = writer.finish(result);
          return abort.signal.aborted ? { ...body, status: "cancelled", error: null } : body;
        },
        (body) => writer.complete(body),
      )
      .catch((error: unknown) => {
        process.stderr.write(
          `tscodex proxy: background response ${run.responseId}: ${errorMessage(error)}\n`,
        );
      })
      .finally(() => {
        this.running.delete(run.responseId);
        // A stream still following ends with the record's final state.
        for (const wake of entry.listeners) wake();
      });
    entry.done = done;
    this.running.set(run.responseId, entry);
    return pending;
  }

  /** End background response `id` if this process runs it; resolves once it is stored. */
  async cancel(id: string): Promise<boolean> {
    const entry = this.running.get(id);
    if (!entry) return false;
    entry.abort.abort();
    await entry.done;
    return true;
  }
}

const FINAL_EVENTS = new Set([
  "response.completed",
  "response.failed",
  "response.cancelled",
  "response.incomplete",
]);

/** POST /v1/responses/{id}/cancel. */
export async function cancelResponse(c: Context, options: ProxyOptions, background: BackgroundTurns) {
  const id = c.req.param("id") ?? "";
  const store = options.turns.threads.store;
  const cancelled = await background.cancel(id);
  const record = await store.readResponse(id);
  if (!record)
    throw new ApiError(
      404,
      `Response with id '${id}' not found.`,
      "invalid_request_error",
      null,
      "response_not_found",
    );
  if (cancelled) return c.json(record.body);
  if (record.body.background !== true)
    throw ApiError.invalid(
      "Only responses created with background: true can be cancelled.",
      null,
      "not_background",
    );
  if (record.body.status === "in_progress" || record.body.status === "queued")
    throw new ApiError(
      409,
      `Response '${id}' runs on another proxy process: cancel it there (or wait for it to finish).`,
      "invalid_request_error",
      null,
      "response_running_elsewhere",
    );
  // Already over: cancelling changes nothing.
  return c.json(record.body);
}
