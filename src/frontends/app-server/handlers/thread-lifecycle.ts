/**
 * thread/delete, thread/unsubscribe and thread/turns/list (Codex 0.169), and the notifications
 * that tell clients a thread went away: `thread/archived`, `thread/deleted` (to the caller and
 * every client following the thread) and `thread/closed` (the last follower left, so the thread
 * left memory).
 */
import type { ParamsOf, ResultOf } from "../protocol/client-requests.js";
import type { ThreadItem } from "../protocol/common.js";
import { encodeNotification, RpcError } from "../protocol/jsonrpc.js";
import type { NotificationMethod, NotificationParams } from "../protocol/server-messages.js";
import { liveView, requireStored } from "../thread-files.js";
import { checkThreadId } from "../thread-id.js";
import { storedThreadView, summaryItems } from "../thread-view.js";
import type { HandlerContext } from "./context.js";
import { page } from "./thread-queries.js";

/**
 * Tell the caller and the thread's followers, once the reply is sent. Call it before the change:
 * a thread that leaves memory takes its channel (and who follows it) with it.
 */
export function tellThreadGone(
  context: HandlerContext,
  method: "thread/archived" | "thread/deleted",
  threadId: string,
): void {
  tellThreadClients(context, threadId, method, { threadId });
}

/**
 * Send a notification about thread `threadId` to its followers (as its channel has them now)
 * and to the caller, once the reply is sent.
 */
export function tellThreadClients<M extends NotificationMethod>(
  context: HandlerContext,
  threadId: string,
  method: M,
  params: NotificationParams<M>,
): void {
  const channel = context.runtime.channel(threadId);
  context.after(() => {
    if (channel) channel.broadcast([{ method, params }]);
    if (!channel?.hasSubscriber(context.session)) context.session.send(encodeNotification(method, params));
  });
}

export async function threadDelete(
  params: ParamsOf<"thread/delete">,
  context: HandlerContext,
): Promise<ResultOf<"thread/delete">> {
  checkThreadId(params.threadId);
  const running = context.runtime.channel(params.threadId)?.running;
  if (running)
    throw RpcError.invalidRequest(
      `thread ${params.threadId} is running turn ${running}; interrupt it first (turn/interrupt)`,
    );
  const threads = await context.runtime.threads();
  const deleted = await requireStored(threads, params.threadId, { archived: true });
  tellThreadGone(context, "thread/deleted", deleted.meta.id);
  if (!(await threads.delete(params.threadId)))
    throw RpcError.invalidRequest(`thread not found: ${params.threadId}`);
  return {};
}

export async function threadUnsubscribe(
  params: ParamsOf<"thread/unsubscribe">,
  context: HandlerContext,
): Promise<ResultOf<"thread/unsubscribe">> {
  checkThreadId(params.threadId);
  const threads = await context.runtime.threads();
  const channel = context.runtime.channel(params.threadId);
  // A client that already left answers as Codex does, even once the thread has left memory.
  if (!channel?.thread || !threads.peek(params.threadId))
    return { status: context.session.hasLeft(params.threadId) ? "notSubscribed" : "notLoaded" };
  if (!channel.hasSubscriber(context.session)) return { status: "notSubscribed" };
  context.session.unfollow(channel);
  if (channel.subscriberCount === 0 && !channel.running) {
    // Nobody follows it any more: it leaves memory (its rollout stays), as in Codex.
    await threads.release(params.threadId);
    context.after(() =>
      context.session.send(encodeNotification("thread/closed", { threadId: params.threadId })),
    );
  }
  return { status: "unsubscribed" };
}

export async function threadTurnsList(
  params: ParamsOf<"thread/turns/list">,
  context: HandlerContext,
): Promise<ResultOf<"thread/turns/list">> {
  checkThreadId(params.threadId);
  const stored = await requireStored(await context.runtime.threads(), params.threadId, { archived: true });
  const live = liveView(context.runtime, params.threadId);
  const turns = storedThreadView(stored, { includeTurns: true, live }).turns;
  const ordered = params.sortDirection === "desc" ? [...turns].reverse() : turns;
  const view = params.itemsView ?? "full";
  const shown = ordered.map((turn) => ({ ...turn, items: itemsIn(turn.items, view), itemsView: view }));
  const { data, nextCursor } = page(shown, params.cursor, params.limit);
  return { data, nextCursor, backwardsCursor: null };
}

/** A turn's items as `view` shows them (Codex's TurnItemsView). */
function itemsIn(items: ThreadItem[], view: "notLoaded" | "summary" | "full"): ThreadItem[] {
  if (view === "notLoaded") return [];
  return view === "summary" ? summaryItems(items) : items;
}
