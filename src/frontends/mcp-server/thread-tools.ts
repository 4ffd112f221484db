/**
 * The session tools about one thread: deleteSession, sessionStats, status and cancel. Each
 * finds the thread live or stored (thread-state.ts); a live thread's turn state and usage come
 * from the ThreadManager, not from its rollout.
 */
import { z } from "zod";
import { emptyUsage } from "../../protocol/items.js";
import { isoTimestamp } from "../../util/iso-time.js";
import type { Page } from "./pagination.js";
import { fail, ok, resultText, type ServerToolResult } from "./results.js";
import type { ServerToolContext } from "./server-tool.js";
import {
  defineSessionTool,
  errorField,
  pageSizeArg,
  pageTokenArg,
  threadArgs,
  threadIdArg,
  threadIdOf,
  withFields,
} from "./session-tool.js";
import {
  answerOf,
  fileSize,
  type Located,
  locateThread,
  stateOf,
  type TurnState,
  turnState,
} from "./thread-state.js";

/** How long `cancel` waits for the interrupted turn to end before answering. */
const CANCEL_WAIT_MS = 5_000;

const usage = z.object({
  input_tokens: z.number(),
  cached_input_tokens: z.number(),
  output_tokens: z.number(),
  reasoning_output_tokens: z.number(),
  total_tokens: z.number(),
});

export const deleteSessionTool = defineSessionTool({
  name: "deleteSession",
  description: "Delete a thread from memory and from disk (its rollout); a running turn is stopped.",
  input: threadArgs,
  output: z.object({ threadId: z.string(), deleted: z.boolean(), error: errorField }),
  errorFields: (args) => ({ ...threadIdOf(args), deleted: false }),
  handle: deleteSession,
});

export const sessionStatsTool = defineSessionTool({
  name: "sessionStats",
  description:
    "Statistics of one thread: turns, token usage, rollout bytes, live (in memory) and stored (on disk), whether a turn is running, the last turn's state.",
  input: threadArgs,
  output: z.object({
    threadId: z.string(),
    live: z.boolean().optional(),
    stored: z.boolean().optional(),
    running: z.boolean().optional(),
    state: turnState.optional(),
    turns: z.number().optional(),
    tokens: usage.optional(),
    bytes: z.number().optional(),
    createdAt: z.string().optional(),
    lastUsedAt: z.string().optional(),
    model: z.string().optional(),
    cwd: z.string().optional(),
    error: errorField,
  }),
  errorFields: threadIdOf,
  handle: sessionStats,
});

export const statusTool = defineSessionTool({
  name: "status",
  description:
    "Poll a thread or its background task: state (running, completed, failed, interrupted, idle) and, once done, the last answer (paginated: pageSize, pageToken).",
  input: z.object({ threadId: threadIdArg, pageSize: pageSizeArg, pageToken: pageTokenArg }),
  output: z.object({
    threadId: z.string(),
    state: turnState.optional(),
    content: z.string().optional(),
    nextPageToken: z.string().optional(),
    error: errorField,
  }),
  errorFields: threadIdOf,
  handle: status,
});

export const cancelTool = defineSessionTool({
  name: "cancel",
  description: "Interrupt the running turn of a thread; an error when no turn is running.",
  input: threadArgs,
  output: z.object({
    threadId: z.string(),
    cancelled: z.boolean(),
    state: turnState.optional(),
    error: errorField,
  }),
  errorFields: (args) => ({ ...threadIdOf(args), cancelled: false }),
  handle: cancel,
});

/** Thread `id` (or a unique prefix) wherever it is; an error result when it is nowhere. */
async function locate(id: string, context: ServerToolContext): Promise<Located | ServerToolResult> {
  const found = await locateThread(id, context.runtime);
  return "error" in found ? fail(found.error, { threadId: id }) : found;
}

function isResult(value: Located | ServerToolResult): value is ServerToolResult {
  return "content" in value;
}

async function deleteSession(
  args: { threadId: string },
  context: ServerToolContext,
): Promise<ServerToolResult> {
  const { threads, pages, tasks } = context.runtime;
  const found = await locate(args.threadId, context);
  if (isResult(found)) return withFields(found, { deleted: false });
  const removed = await threads.delete(found.id);
  pages.forgetThread(found.id);
  tasks.forget(found.id);
  if (!removed && !found.live) {
    return fail(`Session not found for thread_id: ${args.threadId}`, { threadId: found.id, deleted: false });
  }
  return ok(`Deleted session ${found.id}.`, { threadId: found.id, deleted: true });
}

async function sessionStats(
  args: { threadId: string },
  context: ServerToolContext,
): Promise<ServerToolResult> {
  const found = await locate(args.threadId, context);
  if (isResult(found)) return found;
  const { live, stored } = found;
  const state = stateOf(found, context.runtime);
  const meta = live?.meta ?? stored?.meta;
  const lastUsedAt = live ? isoTimestamp(live.lastActive) : stored?.updated;
  const stats = {
    threadId: found.id,
    live: live !== null,
    stored: found.path !== null,
    running: state === "running",
    state,
    turns: live?.turns ?? stored?.turns ?? 0,
    tokens: live?.thread.totalUsage ?? stored?.usage ?? emptyUsage(),
    bytes: found.path ? await fileSize(found.path) : 0,
    ...(meta && lastUsedAt ? { createdAt: meta.created, lastUsedAt, model: meta.model, cwd: meta.cwd } : {}),
  };
  const text = [
    `Session ${found.id}: ${stats.live ? "live" : "not loaded"}, ${stats.stored ? "stored" : "not stored"}, last turn ${state}`,
    `turns ${stats.turns}, tokens ${stats.tokens.total_tokens} (input ${stats.tokens.input_tokens}, output ${stats.tokens.output_tokens}), rollout ${stats.bytes} bytes`,
  ].join("\n");
  return ok(text, stats);
}

async function status(
  args: { threadId: string; pageSize?: number | undefined; pageToken?: string | undefined },
  context: ServerToolContext,
): Promise<ServerToolResult> {
  const { pages, tasks } = context.runtime;
  const found = await locate(args.threadId, context);
  if (isResult(found)) return found;
  const task = tasks.status(found.id);
  // A turn running now wins; else a finished background task's own outcome and result.
  const current = stateOf(found, context.runtime);
  const state = current === "running" ? "running" : (task?.state ?? current);
  if (args.pageToken !== undefined) {
    const page = pages.readPage(args.pageToken);
    if ("error" in page) return fail(page.error, { threadId: found.id, state });
    return pageResult(found.id, state, page);
  }
  if (state === "running") return ok(`Thread ${found.id} is running.`, { threadId: found.id, state });
  // A codex result is already paginated (its structuredContent holds the page and token).
  const content = task?.result?.structuredContent?.content;
  const next = task?.result?.structuredContent?.nextPageToken;
  if (typeof content === "string")
    return pageResult(
      found.id,
      state,
      typeof next === "string" ? { text: content, nextPageToken: next } : { text: content },
    );
  const text = task?.result ? resultText(task.result) : answerOf(found, state);
  return pageResult(found.id, state, pages.paginate(found.id, text, args.pageSize));
}

function pageResult(threadId: string, state: TurnState, page: Page): ServerToolResult {
  const structured = {
    threadId,
    state,
    content: page.text,
    ...(page.nextPageToken ? { nextPageToken: page.nextPageToken } : {}),
  };
  const result = ok(page.text, structured);
  if (page.nextPageToken) {
    result.content.push({
      type: "text",
      text: `[more: call status with threadId ${threadId} and pageToken ${page.nextPageToken}]`,
    });
  }
  return result;
}

async function cancel(args: { threadId: string }, context: ServerToolContext): Promise<ServerToolResult> {
  const found = await locate(args.threadId, context);
  if (isResult(found)) return withFields(found, { cancelled: false });
  const thread = found.live?.thread;
  if (!thread || stateOf(found, context.runtime) !== "running") {
    return fail(`No running turn to cancel in thread ${found.id}.`, { threadId: found.id, cancelled: false });
  }
  const ended = new Promise<TurnState>((resolve) => {
    const timer = setTimeout(() => finish("running"), CANCEL_WAIT_MS);
    const unsubscribe = thread.subscribe((event) => {
      if (event.type === "turn_aborted") finish("interrupted");
      if (event.type === "turn_complete") finish("completed");
      if (event.type === "turn_failed") finish("failed");
    });
    function finish(state: TurnState) {
      clearTimeout(timer);
      unsubscribe();
      resolve(state);
    }
  });
  thread.interrupt();
  const state = await ended;
  const text =
    state === "running"
      ? `Interrupt sent to thread ${found.id}; the turn has not ended yet (poll status).`
      : `Cancelled the running turn of thread ${found.id} (${state}).`;
  return ok(text, { threadId: found.id, cancelled: true, state });
}
