/**
 * `background: true` on POST /v1/responses: the answer is the response `in_progress` at once; the
 * turn runs on in this process, detached from the request, and its final state replaces the
 * stored record (poll with GET /v1/responses/{id}). POST /v1/responses/{id}/cancel ends a
 * background turn this process runs (its response becomes `cancelled`); DELETE
 * /v1/responses/{id} ends it the same way, and its final state is then stored nowhere (the store
 * does not save a deleted response again, so a turn running on another process stores nothing
 * either when it ends). The turns hold their
 * concurrency slots, so a graceful shutdown waits for them like for any other.
 * Ownership: the process running a background response holds the store's lease
 * `background-<id>` from before it stores the response `in_progress` until its final state is
 * stored. A process that dies (SIGKILL, a lost machine) loses that lease with it, so a response
 * found `in_progress` whose lease is free is an orphan: whoever reads it next (GET, a streamed
 * GET, cancel) ends it as `failed` (`server_error`, the process running it stopped). It is not
 * run again: its turn may have run commands or tools already, and the request is not kept.
 */
import type { Context } from "hono";
import {
  type ResponseRecord,
  responseRunning,
  ThreadBusyError,
  type ThreadLease,
} from "../../store/index.js";
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
    const store = options.turns.threads.store;
    writer.start();
    const pending = writer.snapshot("in_progress");
    let lease: ThreadLease | null = null;
    try {
      lease = await store.leases.acquire(ownerLease(run.responseId));
      await store.saveResponse({
        id: run.responseId,
        threadId: run.threadId,
        turns: 0,
        parkedTurnId: null,
        transcript: "",
        body: pending,
        input,
        created: Date.now(),
      });
    } catch (error) {
      // Nobody will learn its id: end the turn (and free its thread and slot) before failing.
      abort.abort();
      await run
        .drive(
          () => {},
          (result) => ({ ...writer.finish(result), status: "cancelled", error: null }),
          () => {},
        )
        .catch(() => {});
      await lease?.release().catch(() => {});
      throw error;
    }
    const done = run
      .drive(
        (event) => writer.onEvent(event),
        (result) => {
          const body = writer.finish(result);
          return abort.signal.aborted ? { ...body, status: "cancelled", error: null } : body;
        },
        (body) => writer.complete(body),
      )
      .catch(async (error: unknown) => {
        process.stderr.write(
          `tscodex proxy: background response ${run.responseId}: ${errorMessage(error)}\n`,
        );
        // Its final state could not be stored: say why, if the store takes it now (else the
        // next reader finds it orphaned once the lease below is free).
        const record = await store.readResponse(run.responseId).catch(() => null);
        if (record && responseRunning(record))
          await endFailed(options, record, `The response failed: ${errorMessage(error)}`).catch(() => {});
      })
      .finally(async () => {
        await lease?.release().catch(() => {});
        this.running.delete(run.responseId);
        // A stream still following ends with the record's final state.
        for (const wake of entry.listeners) wake();
      });
    entry.done = done;
    this.running.set(run.responseId, entry);
    return pending;
  }

  /** Whether this process runs background response `id`. */
  runs(id: string): boolean {
    return this.running.has(id);
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

/** The lease the process running background response `id` holds until its final state is stored. */
function ownerLease(id: string): string {
  return `background-${id}`;
}

/**
 * Store running response `record` as `failed`. Its turn ends where the thread stands (a cut-off
 * turn counts, as a failed one does), so a request continuing from it continues that thread
 * rather than a fork of its start.
 */
async function endFailed(
  options: ProxyOptions,
  record: ResponseRecord,
  message: string,
): Promise<ResponseRecord> {
  const store = options.turns.threads.store;
  const thread = await store.read(record.threadId).catch(() => null);
  const ended: ResponseRecord = {
    ...record,
    turns: thread?.turns ?? record.turns,
    body: { ...record.body, status: "failed", error: { code: "server_error", message } },
  };
  await store.saveResponse(ended);
  return ended;
}

/**
 * `record` as it stands: a background response `in_progress` whose owner's lease is free (the
 * process running it died) is ended as `failed`, stored, and returned so; one that runs (here or
 * on a live process) is returned as it is.
 */
export async function settleOrphan(
  options: ProxyOptions,
  background: BackgroundTurns,
  record: ResponseRecord,
): Promise<ResponseRecord> {
  if (!responseRunning(record) || background.runs(record.id)) return record;
  const store = options.turns.threads.store;
  let lease: ThreadLease;
  try {
    lease = await store.leases.acquire(ownerLease(record.id));
  } catch (error) {
    if (error instanceof ThreadBusyError) return record; // its process is alive and running it
    throw error;
  }
  try {
    // Read again under the lease: its owner may have stored the final state and let go meanwhile.
    const latest = await store.readResponse(record.id);
    if (!latest || !responseRunning(latest)) return latest ?? record;
    return await endFailed(
      options,
      latest,
      "The proxy process running this background response stopped (or lost the store) before " +
        "its result was stored; the response did not complete. Send the request again.",
    );
  } finally {
    await lease.release().catch(() => {});
  }
}

/** POST /v1/responses/{id}/cancel. */
export async function cancelResponse(c: Context, options: ProxyOptions, background: BackgroundTurns) {
  const id = c.req.param("id") ?? "";
  const store = options.turns.threads.store;
  const cancelled = await background.cancel(id);
  const stored = await store.readResponse(id);
  const record = stored && !cancelled ? await settleOrphan(options, background, stored) : stored;
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
  if (responseRunning(record))
    throw new ApiError(
      409,
      `Response '${id}' runs on another proxy process: cancel it there (or wait for it to finish).`,
      "invalid_request_error",
      null,
      "response_running_elsewhere",
    );
  // Already over (an orphan, too: it failed when its process stopped): cancelling changes nothing.
  return c.json(record.body);
}
