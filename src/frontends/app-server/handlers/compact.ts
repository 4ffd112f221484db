/**
 * thread/compact/start: summarise a thread's history now, as a turn of its own (Codex runs a
 * manual compaction as a task). The reply comes first; then turn/started, the
 * `contextCompaction` item, `thread/compacted` and turn/completed. A turn already running
 * finishes first (turns of a thread run one at a time).
 */
import type { ParamsOf, ResultOf } from "../protocol/client-requests.js";
import { RpcError } from "../protocol/jsonrpc.js";
import type { HandlerContext } from "./context.js";

export async function threadCompactStart(
  params: ParamsOf<"thread/compact/start">,
  context: HandlerContext,
): Promise<ResultOf<"thread/compact/start">> {
  const channel = await context.runtime.open(params.threadId);
  context.session.follow(channel);
  const thread = channel.thread;
  if (!thread) throw RpcError.invalidRequest(`thread not found: ${params.threadId}`);
  const turnId = thread.newTurnId();
  context.after(() => thread.submit({ type: "compact", turnId }));
  return {};
}
