/**
 * The rollout files of one home, for the JSONL store (jsonl-store.ts): every file newest first,
 * find one by id (or the newest), and fork (copy a prefix of a rollout under a new id).
 * Files are found by name (`rollout-<time>-<id>.jsonl`), so lookups never parse other threads.
 */
import { open, readdir } from "node:fs/promises";
import { basename, join } from "node:path";
import { uuidv7 } from "../util/ids.js";
import { isoTimestamp } from "../util/iso-time.js";
import { sessionsDir } from "./rollout.js";
import { RolloutRecorder } from "./rollout-recorder.js";
import { linesUpToTurn, RolloutError, type StoredThread } from "./stored-thread.js";

export const ROLLOUT_NAME =
  /^rollout-(.+)-([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl$/;

/** Every rollout path under `home`, newest first (names start with the creation time). */
export async function rolloutFiles(home: string): Promise<string[]> {
  const root = sessionsDir(home);
  let entries: string[];
  try {
    entries = await readdir(root, { recursive: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
  const files = entries
    .filter((entry) => ROLLOUT_NAME.test(basename(entry)))
    .map((entry) => join(root, entry));
  // Sort by name: the time in it, then the (time-ordered) id break ties.
  return files.sort((a, b) => (basename(a) < basename(b) ? 1 : basename(a) > basename(b) ? -1 : 0));
}

/** The rollout of thread `id` (a unique prefix of it works too), or null. */
export async function findRollout(home: string, id: string): Promise<string | null> {
  const files = await rolloutFiles(home);
  const exact = files.find((file) => ROLLOUT_NAME.exec(basename(file))?.[2] === id);
  if (exact) return exact;
  const matches = files.filter((file) => ROLLOUT_NAME.exec(basename(file))?.[2]?.startsWith(id));
  if (matches.length > 1)
    throw new RolloutError(`thread id prefix '${id}' is ambiguous (${matches.length} threads)`);
  return matches[0] ?? null;
}

/** The most recently created thread's rollout, or null. */
export async function newestRollout(home: string): Promise<string | null> {
  return (await rolloutFiles(home))[0] ?? null;
}

/**
 * Copy the first `turns` turns (default all) of thread `id` into a new thread; returns its id.
 * The copy keeps items, events and compactions; its metadata names the source thread.
 */
export async function forkRollout(
  home: string,
  id: string,
  options: { turns?: number; newId?: string } = {},
) {
  const path = await findRollout(home, id);
  if (!path) throw new RolloutError(`no stored thread with id ${id}`);
  const stored = await readRolloutFile(path);
  const newId = options.newId ?? uuidv7();
  const meta = { ...stored.meta, id: newId, created: isoTimestamp(), forked_from: stored.meta.id };
  const recorder = await RolloutRecorder.create(home, meta);
  try {
    const kept = linesUpToTurn(stored.lines, options.turns ?? Number.POSITIVE_INFINITY);
    // Raw lines keep their original timestamps; one write for the whole copy.
    const text = kept
      .slice(1)
      .map((line) => `${JSON.stringify(line)}\n`)
      .join("");
    const handle = await open(recorder.path, "a");
    try {
      await handle.write(text);
    } finally {
      await handle.close();
    }
  } finally {
    await recorder.close();
  }
  return { id: newId, path: recorder.path };
}

/** Read and replay one rollout file; the reader (a zod parse boundary) loads on first use. */
export async function readRolloutFile(path: string): Promise<StoredThread> {
  const { readRollout } = await import("./rollout-reader.js");
  return readRollout(path);
}
