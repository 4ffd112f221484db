/**
 * Questions a thread waits on (approvals, client tool calls): each is announced by an event
 * carrying an id and answered by an op with that id. Every wait is bounded: no answer within the
 * timeout resolves with the declared outcome, an aborted turn with the abort outcome. Waits never
 * reject, and nothing waits forever.
 */

export interface PendingRequest<T> {
  id: string;
  /** Which kind of question: an answer must name the same kind. */
  kind: string;
  signal: AbortSignal;
  timeoutMs: number;
  /** Announce the question (called after the wait is registered, so it may answer at once). */
  announce(): void;
  /** The declared outcome when nobody answers in time. */
  onTimeout(): T;
  /** The outcome when the turn is interrupted. */
  onAbort(): T;
}

interface Waiting<T> {
  kind: string;
  finish(value: T): void;
}

export class PendingRequests<T> {
  private readonly waiting = new Map<string, Waiting<T>>();

  /** Register the question, announce it, and wait for its answer (bounded, never rejects). */
  wait(request: PendingRequest<T>): Promise<T> {
    if (request.signal.aborted) return Promise.resolve(request.onAbort());
    const { id, signal } = request;
    return new Promise((resolve) => {
      const finish = (value: T): void => {
        clearTimeout(timer);
        signal.removeEventListener("abort", onAbort);
        if (this.waiting.get(id) === entry) this.waiting.delete(id);
        resolve(value);
      };
      const onAbort = (): void => finish(request.onAbort());
      // Not unref'd: a turn waiting for an answer keeps the process alive until the bound.
      const timer = setTimeout(() => finish(request.onTimeout()), request.timeoutMs);
      signal.addEventListener("abort", onAbort, { once: true });
      const entry: Waiting<T> = { kind: request.kind, finish };
      // One question per id at a time; a stale one (should not happen) gets its timeout outcome.
      this.waiting.get(id)?.finish(request.onTimeout());
      this.waiting.set(id, entry);
      request.announce();
    });
  }

  /** The kind of the open question `id`, if any. */
  kindOf(id: string): string | undefined {
    return this.waiting.get(id)?.kind;
  }

  /** Answer question `id` of `kind`; false when there is no such open question. */
  answer(kind: string, id: string, value: T): boolean {
    const entry = this.waiting.get(id);
    if (!entry || entry.kind !== kind) return false;
    entry.finish(value);
    return true;
  }
}
