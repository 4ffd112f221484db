/**
 * thread/name/set, thread/metadata/update and thread/unarchive (Codex 0.169): what a client
 * records about a thread besides its turns. Names and metadata are rollout lines in the thread
 * store (JSONL or PostgreSQL), so they survive a restart and show in thread/list and thread/read;
 * followers hear of a new name (`thread/name/updated`) and of an unarchive (`thread/unarchived`).
 */
import { type RolloutEvent, ThreadBusyError, type ThreadMetadataUpdate } from "../../../store/index.js";
import { isoTimestamp } from "../../../util/iso-time.js";
import type { ParamsOf, ResultOf } from "../protocol/client-requests.js";
import { RpcError } from "../protocol/jsonrpc.js";
import { liveView, requireStored } from "../thread-files.js";
import { checkThreadId } from "../thread-id.js";
import { storedThreadView } from "../thread-view.js";
import type { HandlerContext } from "./context.js";
import { tellThreadClients } from "./thread-lifecycle.js";

/** Append `event` to thread `id` (live or stored, not archived), or Codex's "thread not found". */
export async function record(context: HandlerContext, id: string, event: RolloutEvent): Promise<void> {
  const threads = await context.runtime.threads();
  const line = { timestamp: isoTimestamp(), type: "event" as const, payload: event };
  let stored: boolean;
  try {
    stored = await threads.appendLines(id, [line]);
  } catch (error) {
    // Another process runs a turn on it (a shared store): say so.
    if (error instanceof ThreadBusyError) throw RpcError.invalidRequest(error.message);
    throw error;
  }
  if (!stored) throw RpcError.invalidRequest(`thread not found: ${id}`);
}

export async function threadSetName(
  params: ParamsOf<"thread/name/set">,
  context: HandlerContext,
): Promise<ResultOf<"thread/name/set">> {
  checkThreadId(params.threadId);
  const name = params.name.trim();
  if (name === "") throw RpcError.invalidParams("Invalid request: thread name must not be empty");
  await record(context, params.threadId, { type: "thread_name_updated", thread_name: name });
  tellThreadClients(context, params.threadId, "thread/name/updated", {
    threadId: params.threadId,
    threadName: name,
  });
  return {};
}

/** The params' changes in rollout form: only the fields given (null clears). */
function metadataUpdate(params: ParamsOf<"thread/metadata/update">): ThreadMetadataUpdate {
  const update: ThreadMetadataUpdate = {};
  const git = params.gitInfo;
  if (git === null) update.git_info = null;
  else if (git) {
    update.git_info = {
      ...(git.sha !== undefined ? { sha: git.sha } : {}),
      ...(git.branch !== undefined ? { branch: git.branch } : {}),
      ...(git.originUrl !== undefined ? { origin_url: git.originUrl } : {}),
    };
  }
  if (params.projectId !== undefined) update.project_id = params.projectId;
  if (params.daybreakEnabled !== undefined) update.daybreak_enabled = params.daybreakEnabled;
  return update;
}

export async function threadMetadataUpdate(
  params: ParamsOf<"thread/metadata/update">,
  context: HandlerContext,
): Promise<ResultOf<"thread/metadata/update">> {
  checkThreadId(params.threadId);
  const metadata = metadataUpdate(params);
  if (Object.keys(metadata).length > 0)
    await record(context, params.threadId, { type: "thread_metadata_updated", metadata });
  const stored = await requireStored(await context.runtime.threads(), params.threadId);
  return { thread: storedThreadView(stored, { live: liveView(context.runtime, params.threadId) }) };
}

export async function threadUnarchive(
  params: ParamsOf<"thread/unarchive">,
  context: HandlerContext,
): Promise<ResultOf<"thread/unarchive">> {
  checkThreadId(params.threadId);
  const threads = await context.runtime.threads();
  if (!(await threads.unarchive(params.threadId)))
    throw RpcError.invalidRequest(`no archived thread: ${params.threadId}`);
  const stored = await requireStored(threads, params.threadId);
  tellThreadClients(context, params.threadId, "thread/unarchived", { threadId: params.threadId });
  return { thread: storedThreadView(stored) };
}
