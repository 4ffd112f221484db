/**
 * Stored threads as the app-server's handlers need them: read one (live or archived) or fail
 * with Codex's "thread not found". Archive and rollback go through the ThreadManager, which
 * takes the thread out of memory and holds its lease while the store changes it.
 */

import type { ThreadManager } from "../../session/thread-manager.js";
import type { StoredThread } from "../../store/index.js";
import { RpcError } from "./protocol/jsonrpc.js";
import type { AppServerRuntime } from "./runtime.js";
import type { LiveThreadView } from "./thread-view.js";

/** Thread `id` as stored, or Codex's "thread not found". `archived`: look there too. */
export async function requireStored(
  threads: ThreadManager,
  id: string,
  options: { archived?: boolean } = {},
): Promise<StoredThread> {
  const stored =
    (await threads.read(id).catch(() => null)) ??
    (options.archived ? await threads.read(id, { archived: true }).catch(() => null) : null);
  if (!stored) throw RpcError.invalidRequest(`thread not found: ${id}`);
  return stored;
}

/** Move thread `id` to the archive; it leaves memory (a later resume will not find it). */
export async function archiveThread(threads: ThreadManager, id: string): Promise<void> {
  if (!(await threads.archive(id))) throw RpcError.invalidRequest(`thread not found: ${id}`);
}

/** Drop the last `numTurns` turns of thread `id` (all when it has fewer); it leaves memory. */
export async function rollbackThread(threads: ThreadManager, id: string, numTurns: number): Promise<void> {
  if (!(await threads.rollback(id, numTurns))) throw RpcError.invalidRequest(`thread not found: ${id}`);
}

/** Thread `id` as it is in memory here (its channel, while its thread is live), else null. */
export function liveView(runtime: AppServerRuntime, id: string): LiveThreadView | null {
  const channel = runtime.channel(id);
  return channel?.thread ? channel : null;
}
