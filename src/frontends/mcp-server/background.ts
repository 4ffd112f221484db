/**
 * Background tasks: a `codex` call that returns at once runs its turn here, keyed by thread id,
 * and the `status` tool polls it. A run that throws or rejects is captured as a failed task with
 * an `isError` result; nothing here can become an unhandled rejection.
 * One task per thread is remembered (the latest); finished tasks are kept until `forgetTask`
 * or until more than MAX_FINISHED have finished since (oldest first).
 */

import { errorMessage } from "../../util/errors.js";
import type { ServerToolResult } from "./server-tool.js";

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
const tasks = new Map<string, Task>();
const finished = new Set<string>();

/**
 * Run `run` in the background as thread `threadId`'s task (replacing a finished one).
 * A result with `isError: true` counts as failed, as does a throw; the thrown message becomes
 * the result text.
 */
export function startBackgroundTask(threadId: string, run: () => Promise<ServerToolResult>): void {
  finished.delete(threadId);
  const task: Task = { state: "running", done: Promise.resolve() };
  tasks.set(threadId, task);
  // Promise.resolve().then(run) also captures a synchronous throw from `run`.
  task.done = Promise.resolve()
    .then(run)
    .then(
      (result: ServerToolResult | undefined) =>
        result
          ? settle(threadId, task, result.isError ? "failed" : "completed", result)
          : settle(threadId, task, "failed", failure(new Error("the task returned no result"))),
      (error: unknown) => settle(threadId, task, "failed", failure(error)),
    );
}

/** The latest task of thread `threadId`, or null when it has none. */
export function taskStatus(threadId: string): TaskStatus | null {
  const task = tasks.get(threadId);
  if (!task) return null;
  return task.result ? { state: task.state, result: task.result } : { state: task.state };
}

/** Resolves when thread `threadId`'s current task has finished (at once when there is none). */
export function taskSettled(threadId: string): Promise<void> {
  return tasks.get(threadId)?.done ?? Promise.resolve();
}

/** Forget thread `threadId`'s task (thread deleted). A still running task finishes unseen. */
export function forgetTask(threadId: string): void {
  tasks.delete(threadId);
  finished.delete(threadId);
}

function settle(threadId: string, task: Task, state: TaskState, result: ServerToolResult): void {
  task.state = state;
  task.result = result;
  // A newer task for the same thread owns the slot; this one only updates its own record.
  if (tasks.get(threadId) !== task) return;
  finished.add(threadId);
  for (const old of finished) {
    if (finished.size <= MAX_FINISHED) break;
    finished.delete(old);
    tasks.delete(old);
  }
}

function failure(error: unknown): ServerToolResult {
  const message = errorMessage(error);
  return { content: [{ type: "text", text: `Background task failed: ${message}` }], isError: true };
}
