/**
 * Running one request's turn to its end, whatever the wire: events go to the writer; a client
 * that goes away interrupts the turn; a parked turn's calls are indexed; the thread is
 * released (rollout flushed) before the final event, so the follow-up may go to any process.
 */
import type { Event } from "../../protocol/events.js";
import type { TurnResult } from "../../session/thread.js";
import { errorMessage } from "../../util/errors.js";
import type { Conversation } from "./conversation.js";
import type { ConcurrencyLimit } from "./guards.js";
import { indexParkedCalls, type StartedTurn, startTurn, type TurnOptions } from "./turns.js";

export interface TurnRun {
  threadId: string;
  /**
   * Feeds every event to `onEvent`, releases the thread (rollout flushed), then hands the result
   * to `deliver` (the final event or body); the concurrency slot is freed once that is done, so
   * a graceful shutdown waits for it.
   */
  drive<T>(onEvent: (event: Event) => void, deliver: (result: TurnResult) => T | Promise<T>): Promise<T>;
}

/** Take a slot (429 when full) and start the turn; throws ApiError before anything is sent. */
export async function beginTurn(
  options: { turns: TurnOptions; limit: ConcurrencyLimit },
  conversation: Conversation,
  previousResponseId: string | null,
  signal: AbortSignal,
): Promise<TurnRun> {
  const release = options.limit.acquire();
  let started: StartedTurn;
  try {
    started = await startTurn(options.turns, conversation, previousResponseId);
  } catch (error) {
    release();
    throw error;
  }
  const { thread, stream } = started;
  const interrupt = () => thread.interrupt();
  signal.addEventListener("abort", interrupt, { once: true });
  return {
    threadId: thread.id,
    async drive(onEvent, deliver) {
      try {
        let result: TurnResult;
        try {
          for await (const event of stream) onEvent(event);
          result = await stream.result();
          if (result.status === "parked")
            await indexParkedCalls(
              options.turns,
              thread.id,
              result.pendingCalls.map((call) => call.call_id),
            );
        } finally {
          signal.removeEventListener("abort", interrupt);
          await options.turns.threads.release(thread.id).catch((error: unknown) => {
            process.stderr.write(`tscodex proxy: releasing thread ${thread.id}: ${errorMessage(error)}\n`);
          });
        }
        return await deliver(result);
      } finally {
        release();
      }
    },
  };
}
