/**
 * The thread a `codex` / `codex-reply` call names: a thread id or a session name the client
 * chose (an alias on the server runtime), live or loaded from its rollout.
 */
import type { Thread } from "../../session/thread.js";
import { ThreadBusyError } from "../../store/index.js";
import { type ServerToolResult, threadResult } from "./results.js";
import type { ServerRuntime } from "./server-tool.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether `id` has the form of a thread id (a UUID). */
export function isThreadId(id: string): boolean {
  return UUID.test(id);
}

/** Remember that session name `name` means thread `threadId` on this server. */
export function setAlias(runtime: ServerRuntime, name: string, threadId: string): void {
  if (name !== threadId) runtime.aliases.set(name, threadId);
}

/**
 * The thread `id` names (a thread id or a session alias): the live one, else loaded from its
 * rollout. `{ error }` when `id` cannot name a thread or another process has the thread open;
 * null when there is no such thread.
 */
export async function findThread(
  runtime: ServerRuntime,
  id: string,
): Promise<Thread | null | { error: string }> {
  const threadId = runtime.aliases.get(id) ?? id;
  if (!isThreadId(threadId))
    return { error: `Failed to parse thread_id: '${id}' is not a thread id (a UUID)` };
  const live = runtime.threads.peek(threadId);
  if (live) return live;
  try {
    const thread = await runtime.threads.resume(threadId);
    return thread.id === threadId ? thread : null;
  } catch (error) {
    if (error instanceof ThreadBusyError) return { error: error.message };
    return null;
  }
}

/** Codex's text for an unknown thread, with structuredContent as Codex sends it. */
export function sessionNotFound(id: string): ServerToolResult {
  return threadResult(id, `Session not found for thread_id: ${id}`, true);
}
