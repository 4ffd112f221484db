/**
 * thread/list, thread/read and thread/loaded/list: stored threads (newest first, or most
 * recently updated first), one thread with its turns, and the threads in memory now.
 * Cursors are opaque to clients: here, the position to continue from.
 */
import { readRollout, type StoredThread } from "../../../session/rollout-reader.js";
import { rolloutFiles } from "../../../session/rollout-store.js";
import type { ParamsOf, ResultOf } from "../protocol/client-requests.js";
import { RpcError } from "../protocol/jsonrpc.js";
import { archivedHome, requireRollout } from "../thread-files.js";
import { checkThreadId } from "../thread-id.js";
import { storedThreadView } from "../thread-view.js";
import type { HandlerContext } from "./context.js";

const DEFAULT_PAGE = 50;

/** Where a page starts: the cursor's position (checked), else 0. */
export function cursorStart(cursor: string | null | undefined): number {
  if (cursor === null || cursor === undefined) return 0;
  const start = Number(cursor);
  if (!Number.isSafeInteger(start) || start < 0)
    throw RpcError.invalidParams(`Invalid request: invalid cursor: ${cursor}`);
  return start;
}

/** One page of `items` from the cursor, and the next cursor (null at the end). */
export function page<T>(
  items: readonly T[],
  cursor: string | null | undefined,
  limit: number | null | undefined,
): { data: T[]; nextCursor: string | null } {
  const start = cursorStart(cursor);
  const end = start + (limit || DEFAULT_PAGE);
  return { data: items.slice(start, end), nextCursor: end < items.length ? String(end) : null };
}

export async function threadList(
  params: ParamsOf<"thread/list">,
  context: HandlerContext,
): Promise<ResultOf<"thread/list">> {
  const home = context.runtime.config.home;
  const files = await rolloutFiles(params.archived ? archivedHome(home) : home);
  const limit = params.limit || DEFAULT_PAGE;
  const providers = params.modelProviders?.length ? new Set(params.modelProviders) : null;
  const accept = (stored: StoredThread) => !providers || providers.has(stored.meta.provider);

  if (params.sortKey === "updated_at") {
    // Update times are inside the files: read them all, then sort.
    const all = (await Promise.all(files.map(readStored))).filter(
      (stored): stored is StoredThread => stored !== null && accept(stored),
    );
    all.sort((a, b) => (a.updated < b.updated ? 1 : a.updated > b.updated ? -1 : 0));
    const { data, nextCursor } = page(all, params.cursor, limit);
    return { data: data.map((stored) => storedThreadView(stored)), nextCursor };
  }
  // Newest first is the files' name order: read only as many as the page needs.
  let position = cursorStart(params.cursor);
  const data: ResultOf<"thread/list">["data"] = [];
  while (position < files.length && data.length < limit) {
    const stored = await readStored(files[position] ?? "");
    position += 1;
    if (stored && accept(stored)) data.push(storedThreadView(stored));
  }
  return { data, nextCursor: position < files.length ? String(position) : null };
}

export async function threadRead(
  params: ParamsOf<"thread/read">,
  context: HandlerContext,
): Promise<ResultOf<"thread/read">> {
  checkThreadId(params.threadId);
  const home = context.runtime.config.home;
  const path =
    (await requireRollout(home, params.threadId).catch(() => null)) ??
    (await requireRollout(archivedHome(home), params.threadId));
  const stored = await readRollout(path);
  const runningTurn = context.runtime.channel(params.threadId)?.running ?? null;
  return { thread: storedThreadView(stored, { includeTurns: params.includeTurns ?? false, runningTurn }) };
}

export async function threadLoadedList(
  params: ParamsOf<"thread/loaded/list">,
  context: HandlerContext,
): Promise<ResultOf<"thread/loaded/list">> {
  return page(context.runtime.loadedThreads(), params.cursor, params.limit);
}

/** A rollout read back, or null when it cannot be (a file without metadata, a race with delete). */
function readStored(path: string): Promise<StoredThread | null> {
  return readRollout(path).catch(() => null);
}
