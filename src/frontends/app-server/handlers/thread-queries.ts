/**
 * thread/list, thread/read and thread/loaded/list: stored threads (newest first, or most
 * recently updated first), one thread with its turns, and the threads in memory now.
 * Cursors are opaque to clients: here, the position to continue from.
 */
import { resolve } from "node:path";
import { StoreError } from "../../../store/index.js";
import type { ParamsOf, ResultOf } from "../protocol/client-requests.js";
import { RpcError } from "../protocol/jsonrpc.js";
import { liveView, requireStored } from "../thread-files.js";
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
  // The store checks its own cursor: a PostgreSQL one is not a number.
  const page = await storedPage(context, {
    limit: params.limit,
    cursor: params.cursor,
    sort: params.sortKey === "updated_at" ? "updated" : "created",
    archived: params.archived ?? false,
    providers: params.modelProviders,
    cwds: cwdFilter(params.cwd),
    ids: params.includedThreadIds ?? undefined,
  });
  const data = page.threads.map((stored) =>
    storedThreadView(stored, { live: liveView(context.runtime, stored.meta.id) }),
  );
  return { data, nextCursor: page.nextCursor };
}

/** thread/list's `cwd` (one directory or several) as absolute paths, as threads record theirs. */
function cwdFilter(cwd: string | string[] | null | undefined): string[] | undefined {
  if (cwd === null || cwd === undefined) return undefined;
  return (Array.isArray(cwd) ? cwd : [cwd]).map((dir) => resolve(dir));
}

/** One page of stored threads (thread/list, v1 listConversations); a bad cursor is -32602. */
export async function storedPage(
  context: HandlerContext,
  query: {
    limit: number | null | undefined;
    cursor: string | null | undefined;
    sort: "created" | "updated";
    archived: boolean;
    providers: string[] | null | undefined;
    cwds?: string[] | undefined;
    ids?: string[] | undefined;
  },
) {
  const threads = await context.runtime.threads();
  try {
    return await threads.listPage({
      limit: query.limit || DEFAULT_PAGE,
      cursor: query.cursor ?? null,
      sort: query.sort,
      archived: query.archived,
      ...(query.providers?.length ? { providers: query.providers } : {}),
      ...(query.cwds?.length ? { cwds: query.cwds } : {}),
      ...(query.ids ? { ids: query.ids } : {}),
    });
  } catch (error) {
    if (error instanceof StoreError) throw RpcError.invalidParams(`Invalid request: ${error.message}`);
    throw error;
  }
}

export async function threadRead(
  params: ParamsOf<"thread/read">,
  context: HandlerContext,
): Promise<ResultOf<"thread/read">> {
  checkThreadId(params.threadId);
  const stored = await requireStored(await context.runtime.threads(), params.threadId, { archived: true });
  const live = liveView(context.runtime, params.threadId);
  return { thread: storedThreadView(stored, { includeTurns: params.includeTurns ?? false, live }) };
}

export async function threadLoadedList(
  params: ParamsOf<"thread/loaded/list">,
  context: HandlerContext,
): Promise<ResultOf<"thread/loaded/list">> {
  return page(context.runtime.loadedThreads(), params.cursor, params.limit);
}
