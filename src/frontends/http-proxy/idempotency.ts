/**
 * `Idempotency-Key` on POST /v1/responses and /v1/chat/completions, with Stripe's semantics: the
 * first request with a key runs; a retry with the same key and the same body gets the stored
 * answer (`Idempotent-Replayed: true`) and runs nothing; the same key with another body is a 422.
 * Keys live in the thread store (so every proxy process on it sees them) until they expire
 * (`--idempotency-ttl`, default 24 h). While a request runs, its process holds the key's lease:
 * a retry meanwhile gets 409. Before its turn writes anything, the key records where (the
 * thread, its length, the response id the answer will be stored under; a new thread's id before
 * the thread is made, so no crash leaves one the key does not name), so a retry after that
 * process died (the lease is then free) takes the request over: it answers with the response the
 * dead attempt stored, if it got that far (a failed chat completion: its 500, the key then freed
 * as that attempt would have freed it); else it undoes the dead attempt's partial turn (its
 * new thread deleted, or the thread cut back to its length) and runs the request again, so the
 * thread holds each item once and no stray thread is left. A keyed turn is not ended by its
 * client going away (as an unkeyed one is): the retry waits for it (409, then the answer).
 * Only a 200 answer is kept: an error undoes what the turn wrote and frees the key, so a retry
 * runs again (if the store is down, the retry does the undoing). Streaming requests take no key
 * (a stream cannot be replayed): 400. Deleting the response a key answered replaces the key's
 * stored answer with a 404 (`response_deleted`): the key still ran its request once, so a retry
 * neither gets the deleted answer back nor runs the request (its turn's effects stay) again.
 */
import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import {
  type IdempotencyRecord,
  type IdempotentWork,
  ThreadBusyError,
  type ThreadLease,
} from "../../store/index.js";
import { errorMessage } from "../../util/errors.js";
import {
  fingerprintOf,
  holdKey as holdSharedKey,
  KeyInUseError,
  newKeyRecord,
} from "../common/keyed-requests.js";
import { ApiError } from "./errors.js";
import type { ProxyOptions } from "./request.js";

const MAX_KEY_LENGTH = 255;

/** A request running under an Idempotency-Key. */
export interface KeyedRequest {
  /** Record on the key where the request's turn writes; before it writes anything. */
  started(work: IdempotentWork): Promise<void>;
}

/** Runs `handle` under the request's Idempotency-Key, if it has one. */
export async function idempotent(
  c: Context,
  options: ProxyOptions,
  route: string,
  handle: (keyed: KeyedRequest | null) => Promise<Response>,
): Promise<Response> {
  const key = c.req.header("idempotency-key");
  if (key === undefined) return handle(null);
  if (key.length === 0 || key.length > MAX_KEY_LENGTH)
    throw ApiError.invalid(
      `The Idempotency-Key header must be 1 to ${MAX_KEY_LENGTH} characters.`,
      null,
      "invalid_idempotency_key",
    );
  const text = await c.req.text();
  if (asksToStream(text))
    throw ApiError.invalid(
      "Idempotency-Key works with non-streaming requests only (a stream cannot be replayed): drop the header or `stream`.",
      "stream",
      "idempotency_key_with_stream",
    );
  const fingerprint = fingerprintOf(`${route}\n${text}`);
  const store = options.turns.threads.store;
  const lease = await holdKey(options, key);
  try {
    let record = newKeyRecord(key, fingerprint, options.idempotencyTtlMs);
    const existing = await store.claimIdempotencyKey(record);
    if (existing) {
      if (existing.fingerprint !== fingerprint)
        throw new ApiError(
          422,
          "Keys for idempotent requests can only be used with the same parameters they were first used with. " +
            "Try using a key other than the one used for the earlier request.",
          "invalid_request_error",
          null,
          "idempotency_key_reused",
        );
      if (existing.result) {
        c.header("Idempotent-Replayed", "true");
        return c.json(existing.result.body as Record<string, unknown>, existing.result.status as 200);
      }
      // Claimed by a process that is gone (its lease is ours now): this request takes it over.
      record = { ...record, created: existing.created, expires: existing.expires };
      const answer = await takeOver(options, existing.work ?? null);
      if (answer) {
        c.header("Idempotent-Replayed", "true");
        if (answer.status !== 200) {
          // The dead attempt failed: answered as it was, and its key freed as it would have been.
          await freeKey(options, { ...record, work: existing.work ?? null });
          return c.json(answer.body, answer.status as ContentfulStatusCode);
        }
        // Its work kept: deleting the answer finds the key by it.
        const answered = { ...record, work: existing.work ?? null };
        await store.saveIdempotencyKey({ ...answered, result: { status: 200, body: answer.body } });
        return c.json(answer.body, 200);
      }
      await store.saveIdempotencyKey(record);
    }
    const keyed: KeyedRequest = {
      started: async (work) => {
        record = { ...record, work };
        await store.saveIdempotencyKey(record);
      },
    };
    let response: Response;
    try {
      response = await handle(keyed);
    } catch (error) {
      await freeKey(options, record);
      throw error;
    }
    if (response.status !== 200) {
      await freeKey(options, record);
      return response;
    }
    const body: unknown = await response.clone().json();
    await store.saveIdempotencyKey({ ...record, result: { status: 200, body } });
    return response;
  } finally {
    await lease.release().catch(() => {});
  }
}

/**
 * Before response `responseId` is deleted: each key that answered with it (or will, if its dead
 * request is taken over) gets a 404 to replay instead, with no copy of the deleted answer.
 */
export async function forgetKeyedAnswer(options: ProxyOptions, responseId: string): Promise<void> {
  const { store } = options.turns.threads;
  const deleted = new ApiError(
    404,
    `The response this Idempotency-Key answered ('${responseId}') was deleted. Send the request with a new Idempotency-Key to run it again.`,
    "invalid_request_error",
    null,
    "response_deleted",
  );
  for (const record of await store.idempotencyKeysAnswering(responseId))
    await store.saveIdempotencyKey({ ...record, result: { status: 404, body: deleted.body } });
}

/**
 * Take over the request a dead process left under its key: the answer it stored (a failed chat
 * completion's with its error status), if it got that far; else null, once its partial turn is
 * undone (the request then runs again from the start).
 */
async function takeOver(
  options: ProxyOptions,
  work: IdempotentWork | null,
): Promise<{ status: number; body: Record<string, unknown> } | null> {
  if (!work) return null; // it died before its turn wrote anything
  const stored = work.answerId ? await options.turns.threads.store.readResponse(work.answerId) : null;
  if (stored) {
    const status = stored.status ?? 200;
    if (status === 200) await markAnswered(options, work);
    return { status, body: stored.body };
  }
  await undo(options, work);
  return null;
}

/**
 * The request failed: its key is free again once what its turn wrote is undone, so a retry runs
 * it anew. When that cannot be done now (the store is down), the key keeps where the turn wrote
 * and the retry undoes it as it takes the key over.
 */
async function freeKey(options: ProxyOptions, record: IdempotencyRecord): Promise<void> {
  try {
    if (record.work) await undo(options, record.work);
    await options.turns.threads.store.dropIdempotencyKey(record.key);
  } catch (error) {
    process.stderr.write(`tscodex proxy: freeing idempotency key: ${errorMessage(error)}\n`);
  }
}

/**
 * Undo what a keyed request's turn wrote: its answer's record, and its new thread (never named to
 * anyone, so no stray thread is left) or the lines it added to the thread it continued, but only
 * while no other request continued from the same point since (those lines are not its own).
 */
async function undo(options: ProxyOptions, work: IdempotentWork): Promise<void> {
  const { threads } = options.turns;
  if (work.answerId) await threads.store.deleteResponse(work.answerId);
  if (work.linesBefore === null) {
    await threads.delete(work.threadId);
    return;
  }
  const from = work.continues ? await threads.store.readResponse(work.continues) : null;
  if (!from || (from.answeredBy && from.answeredBy !== work.answerId)) return;
  // Live here means another request of this process runs a turn on it: cutting it would end that.
  const busy = (message: string) => new ApiError(409, message, "invalid_request_error", null, "thread_busy");
  if (threads.peek(work.threadId)) throw busy(`thread ${work.threadId} is in use by this process; retry`);
  try {
    await threads.truncate(work.threadId, work.linesBefore);
  } catch (error) {
    if (!(error instanceof ThreadBusyError)) throw error;
    throw busy(error.message);
  }
  if (from.answeredBy) await threads.store.saveResponse({ ...from, answeredBy: null });
}

/** What the dead request's commit may not have got to: its previous response names its answer. */
async function markAnswered(options: ProxyOptions, work: IdempotentWork): Promise<void> {
  const { store } = options.turns.threads;
  const from = work.continues ? await store.readResponse(work.continues) : null;
  if (from && !from.answeredBy) await store.saveResponse({ ...from, answeredBy: work.answerId });
}

/** The key's lease: held by the process running its request; 409 while another holds it. */
async function holdKey(options: ProxyOptions, key: string): Promise<ThreadLease> {
  try {
    return await holdSharedKey(options.turns.threads.store, key);
  } catch (error) {
    if (!(error instanceof KeyInUseError)) throw error;
    throw new ApiError(
      409,
      "A request with this Idempotency-Key is still running; retry once it has finished.",
      "invalid_request_error",
      null,
      "idempotency_key_in_use",
    );
  }
}

function asksToStream(text: string): boolean {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null && (value as { stream?: unknown }).stream === true;
  } catch {
    return false;
  }
}
