/**
 * Archiving and rolling back stored threads, with the ThreadManager's public API only.
 * Archive: the rollout moves to `$TSCODEX_HOME/archived/sessions/…` (the same layout, so the
 * store's listing works on it) and the thread leaves memory. Rollback: the rollout is cut before
 * its last N turns and the thread is loaded again from it.
 * A live thread's recorder keeps its file open: renaming the file first and then dropping the
 * thread (which flushes into the renamed file, then finds nothing left to delete) loses no line.
 */
import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { dirname, join, relative } from "node:path";
import { sessionsDir } from "../../session/rollout.js";
import { findRollout } from "../../session/rollout-store.js";
import type { ThreadManager } from "../../session/thread-manager.js";
import { RpcError } from "./protocol/jsonrpc.js";

/** The home whose `sessions/` holds archived rollouts. */
export function archivedHome(home: string): string {
  return join(home, "archived");
}

/** Thread `id`'s rollout, or Codex's "thread not found". */
export async function requireRollout(home: string, id: string): Promise<string> {
  const path = await findRollout(home, id).catch(() => null);
  if (!path) throw RpcError.invalidRequest(`thread not found: ${id}`);
  return path;
}

/** Move thread `id` to the archive; it leaves memory (a later resume will not find it). */
export async function archiveThread(threads: ThreadManager, home: string, id: string): Promise<void> {
  const path = await requireRollout(home, id);
  const target = join(sessionsDir(archivedHome(home)), relative(sessionsDir(home), path));
  await mkdir(dirname(target), { recursive: true });
  await rename(path, target);
  await threads.delete(id);
}

/**
 * Drop the last `numTurns` turns of thread `id` from its rollout (all of them when it has fewer).
 * The thread leaves memory; the caller loads it again.
 */
export async function rollbackThread(
  threads: ThreadManager,
  home: string,
  id: string,
  numTurns: number,
): Promise<void> {
  const path = await requireRollout(home, id);
  const detached = `${path}.rollback`;
  await rename(path, detached);
  try {
    await threads.delete(id);
    const lines = (await readFile(detached, "utf8")).split("\n").filter((line) => line.trim() !== "");
    const starts = lines.filter(isTurnStart).length;
    const kept = keepTurns(lines, Math.max(0, starts - numTurns));
    await writeFile(detached, `${kept.join("\n")}\n`);
  } finally {
    // Back in place whatever happened, so a failure never loses the thread.
    await rename(detached, path).catch(() => rm(detached, { force: true }));
  }
}

/** The lines before turn number `turns + 1` starts (raw text, so nothing is rewritten). */
function keepTurns(lines: string[], turns: number): string[] {
  let started = 0;
  const kept: string[] = [];
  for (const line of lines) {
    if (isTurnStart(line) && ++started > turns) break;
    kept.push(line);
  }
  return kept;
}

function isTurnStart(line: string): boolean {
  if (!line.includes('"turn_started"')) return false;
  try {
    const parsed = JSON.parse(line) as { type?: unknown; payload?: { type?: unknown } };
    return parsed.type === "event" && parsed.payload?.type === "turn_started";
  } catch {
    return false;
  }
}
