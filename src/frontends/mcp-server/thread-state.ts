/**
 * Where a thread named by a session tool is, and the state of its last turn.
 * A thread may be live (ThreadManager), stored (its rollout) or only a background task. A live
 * thread's state is the ThreadManager's, kept from its events, so polling it reads no file; a
 * thread that is only stored is read from its rollout, so a restarted server still reports it.
 */
import { stat } from "node:fs/promises";
import { z } from "zod";
import { messageText } from "../../protocol/items.js";
import { type LiveThreadState, storedLastTurn } from "../../session/thread-manager.js";
import type { StoredThread } from "../../store/index.js";
import { errorMessage } from "../../util/errors.js";
import type { ServerRuntime } from "./server-tool.js";

export const turnState = z.enum(["idle", "running", "completed", "failed", "interrupted"]);
export type TurnState = z.infer<typeof turnState>;

export interface Located {
  id: string;
  /** Its rollout file; null when it has none. */
  path: string | null;
  /** What the ThreadManager knows of it, when it is in memory. */
  live: LiveThreadState | null;
  /** Its replayed rollout, read only when it is not in memory. */
  stored: StoredThread | null;
}

/** Thread `id` (or a unique prefix) wherever it is; `{ error }` when it is nowhere. */
export async function locateThread(id: string, runtime: ServerRuntime): Promise<Located | { error: string }> {
  const { threads, tasks } = runtime;
  const exact = threads.liveState(id);
  if (exact) return { id, path: exact.path, live: exact, stored: null };
  let storedId: string | null;
  try {
    storedId = await threads.store.resolveId(id);
  } catch (cause) {
    return { error: errorMessage(cause) };
  }
  const fullId = storedId ?? id;
  const live = threads.liveState(fullId) ?? null;
  if (!storedId && !live && !tasks.status(fullId)) return { error: `Session not found for thread_id: ${id}` };
  const stored = storedId && !live ? await threads.store.read(storedId) : null;
  return { id: fullId, path: stored?.path ?? live?.path ?? null, live, stored };
}

/**
 * The state a client sees: running while its background task or a turn runs; a stored turn
 * that never ended (its server stopped mid-turn) counts as interrupted.
 */
export function stateOf(found: Located, runtime: ServerRuntime): TurnState {
  if (runtime.tasks.status(found.id)?.state === "running") return "running";
  // A turn parked on client tool calls (proxy threads) waits for no MCP client: idle here.
  if (found.live) return found.live.lastTurn.state === "parked" ? "idle" : found.live.lastTurn.state;
  const last = found.stored ? storedLastTurn(found.stored).state : "idle";
  if (last === "parked") return "idle";
  return last === "running" ? "interrupted" : last;
}

/** The answer of the last turn in state `state`: the last assistant message, or what ended it. */
export function answerOf(found: Located, state: TurnState): string {
  if (state === "idle") return "The thread has no turns yet.";
  if (state === "failed") {
    const last = found.live?.lastTurn ?? (found.stored ? storedLastTurn(found.stored) : null);
    return `The last turn failed: ${last?.error ?? ""}`;
  }
  let answer = "";
  for (const item of found.live?.thread.history ?? found.stored?.history ?? []) {
    if (item.type === "message" && item.role === "assistant") answer = messageText(item);
  }
  if (state === "interrupted")
    return answer
      ? `The last turn was interrupted. Last answer:\n${answer}`
      : "The last turn was interrupted.";
  return answer;
}

/** The size of the file at `path`; 0 when it cannot be read. */
export async function fileSize(path: string): Promise<number> {
  return stat(path).then(
    (info) => info.size,
    () => 0,
  );
}
