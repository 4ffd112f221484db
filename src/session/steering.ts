/**
 * Input a client adds to the active turn (`turn/steer`: the running turn, or the one about to
 * begin): queued, then recorded as user messages right before the turn's next model request, so
 * the model reads it on its next step. A turn
 * whose model was about to finish takes another step when input is waiting. Input still queued
 * when the turn ends another way (interrupted, failed) is announced as not delivered.
 */
import type { Event } from "../protocol/events.js";
import { type ResponseItem, userMessage } from "../protocol/items.js";
import type { UserInput } from "./settings.js";

/** Why a steer was refused: there is no running turn, or it is not the one the client named. */
export class SteerError extends Error {
  override name = "SteerError";
}

export class SteerQueue {
  private queued: UserInput[] = [];

  push(input: UserInput): void {
    this.queued.push(input);
  }

  /** Record the queued input as user messages (each announced); true when there was any. */
  drain(record: (item: ResponseItem) => void, emit: (event: Event) => void): boolean {
    const inputs = this.queued;
    if (inputs.length === 0) return false;
    this.queued = [];
    for (const input of inputs) {
      record(userMessage(input.text, input.images ?? []));
      emit({ type: "user_message", message: input.text, images: input.images ?? [] });
    }
    return true;
  }

  /** The turn ended: input it never read is dropped, with a warning naming it. */
  discard(emit: (event: Event) => void): void {
    for (const input of this.queued)
      emit({ type: "warning", message: `steered input not delivered (the turn ended first): ${input.text}` });
    this.queued = [];
  }
}
