/**
 * One primitive for every stream in tscodex: an async iterable the producer pushes into,
 * with a `result()` promise for the final value. Unbounded on purpose: events are small
 * and producers must never block on a slow consumer (back-pressure lives in the front-ends).
 */
export class EventStream<T, R = void> implements AsyncIterable<T> {
  private readonly queue: T[] = [];
  private waiting: ((next: IteratorResult<T>) => void) | null = null;
  private done = false;
  private failure: unknown = null;
  private readonly final: Promise<R>;
  private settle!: { resolve: (value: R) => void; reject: (error: unknown) => void };

  constructor() {
    this.final = new Promise<R>((resolve, reject) => {
      this.settle = { resolve, reject };
    });
    // result() may never be awaited; don't let a failure become an unhandled rejection.
    this.final.catch(() => {});
  }

  push(value: T): void {
    if (this.done) return;
    const waiter = this.waiting;
    if (waiter) {
      this.waiting = null;
      waiter({ value, done: false });
    } else {
      this.queue.push(value);
    }
  }

  end(result: R): void {
    if (this.done) return;
    this.done = true;
    this.settle.resolve(result);
    this.wake();
  }

  fail(error: unknown): void {
    if (this.done) return;
    this.done = true;
    this.failure = error;
    this.settle.reject(error);
    this.wake();
  }

  result(): Promise<R> {
    return this.final;
  }

  private wake(): void {
    const waiter = this.waiting;
    this.waiting = null;
    waiter?.({ value: undefined, done: true });
  }

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    while (true) {
      if (this.queue.length > 0) {
        yield this.queue.shift() as T;
        continue;
      }
      if (this.done) {
        if (this.failure !== null) throw this.failure;
        return;
      }
      const next = await new Promise<IteratorResult<T>>((resolve) => {
        this.waiting = resolve;
      });
      if (next.done) continue;
      yield next.value;
    }
  }
}

export interface Deferred<T> {
  promise: Promise<T>;
  resolve: (value: T) => void;
  reject: (error: unknown) => void;
}

/** Node 20 has no Promise.withResolvers. */
export function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}
