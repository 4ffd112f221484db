/**
 * thread/revert, thread/items/list and thread/inject_items (Codex 0.169): a stored thread's
 * history cut back to before a turn (`thread/reverted` to its followers; thread/rollback keeps
 * counting turns from the end), paged item by item, or extended with raw Responses API items the
 * model sees from the next turn on. Changes need the thread idle; it leaves memory and is loaded
 * again from the store, with the caller following it.
 */
import { checkResponseItems } from "../../../store/index.js";
import { isoTimestamp } from "../../../util/iso-time.js";
import type { ParamsOf, ResultOf } from "../protocol/client-requests.js";
import { RpcError } from "../protocol/jsonrpc.js";
import { liveView, requireStored, rollbackThread } from "../thread-files.js";
import { checkThreadId } from "../thread-id.js";
import { storedThreadView } from "../thread-view.js";
import type { HandlerContext } from "./context.js";
import { tellThreadClients } from "./thread-lifecycle.js";
import { page } from "./thread-queries.js";
import { refuseWhileRunning } from "./threads.js";

export async function threadRevert(
  params: ParamsOf<"thread/revert">,
  context: HandlerContext,
): Promise<ResultOf<"thread/revert">> {
  const { runtime } = context;
  const id = params.threadId;
  checkThreadId(id);
  refuseWhileRunning(context, id);
  const threads = await runtime.threads();
  const stored = await requireStored(threads, id);
  const turnIds = stored.lines.flatMap((line) =>
    line.type === "event" && line.payload.type === "turn_started" ? [line.payload.turn_id] : [],
  );
  const index = turnIds.indexOf(params.beforeTurnId);
  if (index < 0) throw RpcError.invalidRequest(`turn not found in thread ${id}: ${params.beforeTurnId}`);
  tellThreadClients(context, id, "thread/reverted", { threadId: id });
  await rollbackThread(threads, id, turnIds.length - index);
  const channel = await runtime.open(id);
  context.session.follow(channel);
  const reverted = await requireStored(threads, id);
  return { thread: storedThreadView(reverted, { includeTurns: true, live: channel }) };
}

/** Where a thread/items/list page starts: a position, or just after the named item. */
function itemsCursor(
  cursor: ParamsOf<"thread/items/list">["cursor"],
  entries: readonly { item: { id: string } }[],
): string | null {
  if (cursor === null || cursor === undefined || typeof cursor === "string") return cursor ?? null;
  const index = entries.findIndex((entry) => entry.item.id === cursor.itemId);
  if (index < 0) throw RpcError.invalidParams(`Invalid request: no item ${cursor.itemId} in this thread`);
  return String(index + 1);
}

export async function threadItemsList(
  params: ParamsOf<"thread/items/list">,
  context: HandlerContext,
): Promise<ResultOf<"thread/items/list">> {
  checkThreadId(params.threadId);
  const stored = await requireStored(await context.runtime.threads(), params.threadId, { archived: true });
  const live = liveView(context.runtime, params.threadId);
  let turns = storedThreadView(stored, { includeTurns: true, live }).turns;
  if (params.turnId) {
    turns = turns.filter((turn) => turn.id === params.turnId);
    if (turns.length === 0)
      throw RpcError.invalidRequest(`turn not found in thread ${params.threadId}: ${params.turnId}`);
  }
  const entries = turns.flatMap((turn) => turn.items.map((item) => ({ turnId: turn.id, item })));
  if (params.sortDirection === "desc") entries.reverse();
  const { data, nextCursor } = page(entries, itemsCursor(params.cursor, entries), params.limit);
  return { data, nextCursor, backwardsCursor: null };
}

export async function threadInjectItems(
  params: ParamsOf<"thread/inject_items">,
  context: HandlerContext,
): Promise<ResultOf<"thread/inject_items">> {
  const { runtime } = context;
  const id = params.threadId;
  checkThreadId(id);
  const checked = await checkResponseItems(params.items);
  if ("problem" in checked) throw RpcError.invalidParams(`Invalid request: items: ${checked.problem}`);
  refuseWhileRunning(context, id);
  const threads = await runtime.threads();
  await requireStored(threads, id);
  if (checked.items.length === 0) return {};
  // A live thread's history is in memory: it leaves, and loads again with the new items.
  const wasLive = threads.peek(id) !== undefined;
  if (wasLive) await threads.release(id);
  const timestamp = isoTimestamp();
  const lines = checked.items.map((payload) => ({ timestamp, type: "response_item" as const, payload }));
  if (!(await threads.appendLines(id, lines))) throw RpcError.invalidRequest(`thread not found: ${id}`);
  if (wasLive) context.session.follow(await runtime.open(id));
  return {};
}
