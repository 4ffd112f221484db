/**
 * A thread's listeners: every event goes to each of them, in order; listeners of items also get,
 * right after each event, the item events the core's one ItemTracker made of it (the tracker
 * starts with the first such listener). A broken listener never breaks the turn or the others.
 */
import type { Event } from "../protocol/events.js";
import { ItemTracker } from "../protocol/item-tracker.js";
import type { ItemEvent, ThreadEvent } from "../protocol/turn-items.js";

type Listener = (event: Event) => void;

/** How a listener subscribes (Thread.subscribe). */
export interface SubscribeOptions {
  /** Receive `exec_command_output_delta` events (default true); false lets commands skip them. */
  outputDeltas?: boolean;
}

export class ThreadListeners {
  private readonly listeners = new Set<Listener>();
  private readonly itemListeners = new Set<(event: ItemEvent) => void>();
  private tracker: ItemTracker | null = null;
  /** How many of the listeners want output deltas. */
  private deltaListeners = 0;

  get wantOutputDeltas(): boolean {
    return this.deltaListeners > 0;
  }

  subscribe(listener: Listener, options: SubscribeOptions = {}): () => void {
    const entry: Listener =
      options.outputDeltas === false
        ? (event) => {
            if (event.type !== "exec_command_output_delta") listener(event);
          }
        : listener;
    if (!this.listeners.has(entry) && entry === listener) this.deltaListeners++;
    this.listeners.add(entry);
    return () => {
      if (this.listeners.delete(entry) && entry === listener) this.deltaListeners--;
    };
  }

  /** Every event, each followed by the item events it caused (see turn-items.ts). */
  subscribeItems(listener: (event: ThreadEvent) => void, options: SubscribeOptions = {}): () => void {
    this.tracker ??= new ItemTracker();
    const unsubscribe = this.subscribe(listener, options);
    this.itemListeners.add(listener);
    return () => {
      unsubscribe();
      this.itemListeners.delete(listener);
    };
  }

  emit(event: Event): void {
    for (const listener of this.listeners) call(listener, event);
    if (!this.tracker) return;
    for (const item of this.tracker.push(event))
      for (const listener of this.itemListeners) call(listener, item);
  }
}

function call<E>(listener: (event: E) => void, event: E): void {
  try {
    listener(event);
  } catch {
    // A broken listener must not break the turn or the other listeners.
  }
}
