/**
 * Running one request's turn to its end, whatever the wire: events go to the writer; a client
 * that goes away ends the turn (its signal is the turn's from the start, so even a client gone
 * before the turn began stops it); the thread is released (rollout flushed), then the response
 * is stored (its record and parked calls) before its final event, so the follow-up may go to any
 * process. Its questions get the proxy's declared answers (questions.ts) through the turn driver.
 */
import type { Event } from "../../protocol/events.js";
import type { TurnResult } from "../../session/thread.js";
import { errorMessage } from "../../util/errors.js";
import { questionRouter } from "../common/turn-driver.js";
import type { Conversation } from "./conversation.js";
import { ApiError } from "./errors.js";
import type { ConcurrencyLimit } from "./guards.js";
import type { KeyedRequest } from "./idempotency.js";
import { PROXY_RESPONDERS } from "./questions.js";
import { extendTranscript } from "./transcript.js";
import { commitResponse, responseId, startTurn, type TurnOptions } from "./turns.js";

export interface TurnRun {
  threadId: string;
  /** The id this response is stored under (`resp_<thread>_<random>`). */
  responseId: string;
  /**
   * Feeds every event to `onEvent`, releases the thread (rollout flushed), builds the response
   * body with `finish`, stores it, then hands it to `send` (the final event or body); the
   * concurrency slot is freed once that is done, so a graceful shutdown waits for it. When
   * `finish` gives an ApiError instead (a failed chat completion), that is stored as the answer
   * (its status and body, which an Idempotency-Key takeover answers with) and thrown.
   */
  drive<T>(
    onEvent: (event: Event) => void,
    finish: (result: TurnResult) => Record<string, unknown> | ApiError,
    send: (body: Record<string, unknown>, result: TurnResult) => T | Promise<T>,
  ): Promise<T>;
}

/** Take a slot (429 when full) and start the turn; throws ApiError before anything is sent. */
export async function beginTurn(
  options: { turns: TurnOptions; limit: ConcurrencyLimit },
  conversation: Conversation,
  previousResponseId: string | null,
  signal: AbortSignal,
  stored: { input?: Record<string, unknown>[]; keyed?: KeyedRequest | null } = {},
): Promise<TurnRun> {
  const release = options.limit.acquire();
  let started: Awaited<ReturnType<typeof startTurn>>;
  let id = "";
  try {
    started = await startTurn(options.turns, conversation, previousResponseId, signal, async (held) => {
      id = responseId(held.threadId);
      // Under an Idempotency-Key, the key learns where this turn writes before it writes.
      await stored.keyed?.started({
        threadId: held.threadId,
        linesBefore: held.fresh ? null : await options.turns.threads.storedLines(held.threadId),
        answerId: id,
        continues: held.answers?.id ?? null,
      });
    });
  } catch (error) {
    release();
    throw error;
  }
  const { thread, stream } = started;
  return {
    threadId: thread.id,
    responseId: id,
    async drive(onEvent, finish, send) {
      try {
        let result: TurnResult;
        let turns = 0;
        try {
          const answer = questionRouter(thread, PROXY_RESPONDERS);
          for await (const event of stream) {
            answer(event);
            onEvent(event);
          }
          result = await stream.result();
          turns = options.turns.threads.liveState(thread.id)?.turns ?? 0;
        } finally {
          await options.turns.threads.release(thread.id).catch((error: unknown) => {
            process.stderr.write(`tscodex proxy: releasing thread ${thread.id}: ${errorMessage(error)}\n`);
          });
        }
        const finished = finish(result);
        const failure = finished instanceof ApiError ? finished : null;
        const body = finished instanceof ApiError ? { ...finished.body } : finished;
        const calls = result.pendingCalls.flatMap((call) =>
          call.type === "function_call"
            ? [{ kind: "call" as const, callId: call.call_id, name: call.name, arguments: call.arguments }]
            : [],
        );
        await commitResponse(
          options.turns,
          {
            id,
            threadId: thread.id,
            turns,
            parkedTurnId: result.status === "parked" ? result.turnId : null,
            transcript: extendTranscript(started.transcript, calls),
            body,
            ...(failure ? { status: failure.status } : {}),
            ...(stored.input ? { input: stored.input } : {}),
            created: Date.now(),
          },
          calls.map((call) => call.callId),
          started.answers,
        );
        if (failure) throw failure;
        return await send(body, result);
      } finally {
        release();
      }
    },
  };
}
