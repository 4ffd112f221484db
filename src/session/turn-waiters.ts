/**
 * Callers waiting for a turn's end: `run` resolves with the TurnResult; a stream carries the
 * turn's events (from its turn_started or turn_continued on) and ends with it.
 */
import type { Event } from "../protocol/events.js";
import { EventStream } from "../util/event-stream.js";
import type { TurnResult } from "./ops.js";

type Subscribe = (listener: (event: Event) => void) => () => void;

export class TurnWaiters {
  private readonly waiting = new Map<string, (result: TurnResult) => void>();

  /** Resolves when turn `turnId` ends (call before submitting it). */
  result(turnId: string): Promise<TurnResult> {
    return new Promise((resolve) => this.waiting.set(turnId, resolve));
  }

  /** Turn `turnId`'s events as they come, ending with its result (call before submitting it). */
  stream(turnId: string, subscribe: Subscribe): EventStream<Event, TurnResult> {
    const stream = new EventStream<Event, TurnResult>();
    let inTurn = false;
    const unsubscribe = subscribe((event) => {
      if (event.type === "turn_started" || event.type === "turn_continued") inTurn = event.turn_id === turnId;
      if (inTurn) stream.push(event);
    });
    this.waiting.set(turnId, (result) => {
      unsubscribe();
      stream.end(result);
    });
    return stream;
  }

  /** Turn `turnId` ended with `result`. */
  finish(turnId: string, result: TurnResult): void {
    this.waiting.get(turnId)?.(result);
    this.waiting.delete(turnId);
  }
}
