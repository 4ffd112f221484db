/**
 * The common part of every store's ThreadWriter (thread-store.ts): lines recorded in the same
 * tick go out as one batch; batches never overlap; a failed batch never breaks the thread.
 */
import type { Event } from "../protocol/events.js";
import { isoTimestamp } from "../util/iso-time.js";
import { type EventSource, type LineType, lineOfEvent, type PayloadOf, type RolloutLine } from "./rollout.js";
import type { ThreadWriter, WriterOptions } from "./thread-store.js";

/**
 * The common part of every store's ThreadWriter: lines recorded in the same tick go out as one
 * batch; batches never overlap; a failed batch never breaks the thread (it surfaces on flush(),
 * close() and once through `onFailure`). Subclasses store a batch.
 */
export abstract class LineWriter implements ThreadWriter {
  private pending: RolloutLine[] = [];
  private writing: Promise<void> = Promise.resolve();
  private scheduled = false;
  private failure: Error | null = null;
  private closed = false;
  /** Lines this writer has stored (batches that succeeded). */
  private stored = 0;

  protected constructor(
    readonly threadId: string,
    readonly path: string | null,
    protected readonly options: WriterOptions,
  ) {}

  /** Store `lines` after every earlier batch (retrying as the store sees fit); throw on failure. */
  protected abstract store(lines: RolloutLine[]): Promise<void>;
  /** Let go of what the writer holds (a file handle…), after the last batch. */
  protected abstract release(): Promise<void>;

  get linesStored(): number {
    return this.stored;
  }

  attach(source: EventSource): () => void {
    // Output deltas are never stored: asking for none spares the thread copying them.
    return source.subscribe((event) => this.recordEvent(event), { outputDeltas: false });
  }

  recordEvent(event: Event): void {
    const line = lineOfEvent(event);
    if (line) this.write(line.type, line.payload);
  }

  write<T extends LineType>(type: T, payload: PayloadOf<T>): void {
    this.writeLine({ timestamp: isoTimestamp(), type, payload } as RolloutLine);
  }

  writeLine(line: RolloutLine): void {
    if (this.closed) return;
    this.pending.push(line);
    if (this.scheduled) return;
    this.scheduled = true;
    this.writing = this.writing.then(() => this.drain());
  }

  async flush(): Promise<void> {
    await this.writing;
    if (this.failure) throw this.failure;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    try {
      await this.flush();
    } finally {
      this.closed = true;
      await this.release();
    }
  }

  private async drain(): Promise<void> {
    this.scheduled = false;
    if (this.pending.length === 0 || this.failure) return;
    const lines = this.pending;
    this.pending = [];
    try {
      await this.store(lines);
      this.stored += lines.length;
    } catch (error) {
      // Later lines are not stored after a failed batch: the thread's lines stay in order.
      this.failure = error instanceof Error ? error : new Error(String(error));
      this.options.onFailure?.(this.failure);
    }
  }
}
