/**
 * Background tasks: a `codex` call that returns at once runs its turn here, keyed by thread id,
 * and the `status` tool polls it. A run that throws or rejects is captured as a failed task with
 * an `isError` result; nothing here can become an unhandled rejection.
 * One task per thread is remembered (the latest); finished tasks are kept until `forget`
 * or until more than MAX_FINISHED have finished since (oldest first). Each server runtime owns
 * its own BackgroundTasks.
 */

import { errorMessage } from "../../util/errors.js";
import { plainError, type ServerToolResult } from "./results.js";

export type TaskState = "running" | "completed" | "failed";

export interface TaskStatus {
  state: TaskState;
  /** Set once the task has finished. */
  result?: ServerToolResult;
}

interface Task extends TaskStatus {
  done: Promise<void>;
}

/** Finished tasks kept for polling before the oldest are dropped. */
const MAX_FINISHED = 1_000;

/** The background tasks of one server, by thread id. */
export class BackgroundTasks {
  private readonly tasks = new Map<string, Task>();
  private readonly finished = new Set<string>();

  /**
   * Run `run` in the background as thread `threadId`'s task (replacing a finished one).
   * A result with `isError: true` counts as failed, as does a throw; the thrown message becomes
   * the result text.
   */
  start(threadId: string, run: () => Promise<ServerToolResult>): void {
    this.finished.delete(threadId);
    const task: Task = { state: "running", done: Promise.resolve() };
    this.tasks.set(threadId, task);
    // Promise.resolve().then(run) also captures a synchronous throw from `run`.
    task.done = Promise.resolve()
      .then(run)
      .then(
        (result: ServerToolResult | undefined) =>
          result
            ? this.settle(threadId, task, result.isError ? "failed" : "completed", result)
            : this.settle(threadId, task, "failed", failure(new Error("the task returned no result"))),
        (error: unknown) => this.settle(threadId, task, "failed", failure(error)),
      );
  }

  /** The latest task of thread `threadId`, or null when it has none. */
  status(threadId: string): TaskStatus | null {
    const task = this.tasks.get(threadId);
    if (!task) return null;
    return task.result ? { state: task.state, result: task.result } : { state: task.state };
  }

  /** Resolves when thread `threadId`'s current task has finished (at once when there is none). */
  settled(threadId: string): Promise<void> {
    return this.tasks.get(threadId)?.done ?? Promise.resolve();
  }

  /** Forget thread `threadId`'s task (thread deleted). A still running task finishes unseen. */
  forget(threadId: string): void {
    this.tasks.delete(threadId);
    this.finished.delete(threadId);
  }

  private settle(threadId: string, task: Task, state: TaskState, result: ServerToolResult): void {
    task.state = state;
    task.result = result;
    // A newer task for the same thread owns the slot; this one only updates its own record.
    if (this.tasks.get(threadId) !== task) return;
    this.finished.add(threadId);
    for (const old of this.finished) {
      if (this.finished.size <= MAX_FINISHED) break;
      this.finished.delete(old);
      this.tasks.delete(old);
    }
  }
}

function failure(error: unknown): ServerToolResult {
  return plainError(`Background task failed: ${errorMessage(error)}`);
}
