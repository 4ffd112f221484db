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

/** The background turns this process runs, by response id. */
export class BackgroundTurns {
  private readonly running = new Map<string, { abort: AbortController; done: Promise<void> }>();

  /**
   * Store the response as `in_progress`, run the turn to its end detached, return the response
   * to answer with now. `abort` must be the signal the turn was begun with.
   */
  async start(
    options: ProxyOptions,
    run: TurnRun,
    writer: ResponsesWriter,
    abort: AbortController,
    input: Record<string, unknown>[],
  ): Promise<Record<string, unknown>> {
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
        () => undefined,
      )
      .catch((error: unknown) => {
        process.stderr.write(
          `tscodex proxy: background response ${run.responseId}: ${errorMessage(error)}\n`,
        );
      })
      .finally(() => this.running.delete(run.responseId));
    this.running.set(run.responseId, { abort, done });
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
