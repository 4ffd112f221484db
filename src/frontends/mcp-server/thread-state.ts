/**
 * Where a thread named by a session tool is, and the state of its last turn.
 * A thread may be live (ThreadManager), stored (its rollout) or only a background task. Its
 * state comes from its background task when it has one, else from its rollout (the last turn's
 * start/end events), so a restarted server still reports stored threads.
 */
import { basename } from "node:path";
import { z } from "zod";
import type { Config } from "../../config/load.js";
import { readRollout, type StoredThread } from "../../session/rollout-reader.js";
import { findRollout } from "../../session/rollout-store.js";
import { errorMessage } from "../../util/errors.js";
import { taskStatus } from "./background.js";
import { loadSettingsConfig, type ServerToolContext } from "./server-tool.js";

/** A rollout file name's thread id. */
export const ROLLOUT_ID = /-([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl$/;

export const turnState = z.enum(["idle", "running", "completed", "failed", "interrupted"]);
export type TurnState = z.infer<typeof turnState>;

export interface Located {
  id: string;
  path: string | null;
  stored: StoredThread | null;
}

/** Thread `id` (or a unique prefix) wherever it is; `{ error }` when it is nowhere. */
export async function locateThread(
  id: string,
  context: ServerToolContext,
): Promise<Located | { error: string }> {
  const home = (await serverConfig(context)).home;
  let path: string | null;
  try {
    path = await findRollout(home, id);
  } catch (cause) {
    return { error: errorMessage(cause) };
  }
  const fullId = (path && ROLLOUT_ID.exec(basename(path))?.[1]) ?? id;
  if (!path && !context.threads.peek(fullId) && !taskStatus(fullId))
    return { error: `Session not found for thread_id: ${id}` };
  const stored = path ? await readRollout(path) : null;
  return { id: fullId, path, stored };
}

/** The last turn's state from the rollout's events ("idle" before the first turn). */
export function lastTurnState(stored: StoredThread | null): TurnState {
  let state: TurnState = "idle";
  for (const line of stored?.lines ?? []) {
    if (line.type !== "event") continue;
    const event = line.payload;
    if (event.type === "turn_started") state = "running";
    else if (event.type === "turn_complete") state = "completed";
    else if (event.type === "turn_failed") state = "failed";
    else if (event.type === "turn_aborted") state = "interrupted";
  }
  return state;
}

/**
 * Whether a turn of thread `id` runs now: its background task runs, or it is live and its
 * rollout has a started turn without an end (a stored-only dangling turn is a crashed one).
 */
export async function isRunning(
  id: string,
  stored: StoredThread | null,
  path: string | null,
): Promise<boolean> {
  if (taskStatus(id)?.state === "running") return true;
  const current = stored ?? (path ? await readRollout(path).catch(() => null) : null);
  return lastTurnState(current) === "running";
}

/** The state a client sees: a running turn only counts while the thread is live. */
export async function stateOf(found: Located, context: ServerToolContext): Promise<TurnState> {
  if (await isRunning(found.id, found.stored, null)) {
    return context.threads.peek(found.id) || taskStatus(found.id) ? "running" : "interrupted";
  }
  return lastTurnState(found.stored);
}

const configs = new WeakMap<object, Promise<Config>>();

/** The server's config (home, profile, -c overrides from settings), loaded once per settings. */
export function serverConfig(context: ServerToolContext): Promise<Config> {
  const settings = context.settings;
  let loading = configs.get(settings);
  if (!loading) {
    loading = loadSettingsConfig(settings);
    // A failed load is retried on the next call rather than cached.
    loading.catch(() => configs.delete(settings));
    configs.set(settings, loading);
  }
  return loading;
}
