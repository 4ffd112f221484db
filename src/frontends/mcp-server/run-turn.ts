/**
 * Drive one turn of a thread for an MCP tool call.
 * Flow: runStreamed → for each event of this turn: progress message, raw `codex/event` (when
 * asked), approval requests → elicitation or the declared outcome → thread.approve → the turn's
 * result → `{content, structuredContent: {threadId, content}}` (paginated), or `isError`.
 * Contract: resolves for every turn (completed, failed, interrupted); never rejects.
 * The thread serializes turns itself, so concurrent calls on one thread run one after another.
 */
import type { ApprovalRequestEvent, Event } from "../../protocol/events.js";
import type { Thread, TurnOverrides, TurnResult, UserInput } from "../../session/thread.js";
import { errorMessage } from "../../util/errors.js";
import { questionRouter } from "../common/turn-driver.js";
import { decideApproval } from "./approvals.js";
import { forwardElicitation } from "./forward-elicitation.js";
import { displayCommand, ProgressNarrator, rawEventMessage } from "./progress.js";
import { pagedResult, type ServerToolResult, threadResult } from "./results.js";
import type { ServerToolContext } from "./server-tool.js";
import { askUser } from "./user-input.js";

/** With no event for this long, a "still working" progress keeps client idle timers alive. */
export const HEARTBEAT_MS = 10_000;

export interface TurnRequest {
  input: UserInput;
  overrides?: TurnOverrides;
  pageSize?: number;
}

/** Run one turn on `thread` and shape its outcome as a tool result. */
export async function runTurn(
  thread: Thread,
  request: TurnRequest,
  context: ServerToolContext,
): Promise<ServerToolResult> {
  const state = {
    started: false,
    cancelled: false,
    abortedBy: null as string | null,
    lastProgress: Date.now(),
  };
  const say = (message: string): void => {
    state.lastProgress = Date.now();
    context.progress(message);
  };
  const heartbeat = setInterval(() => {
    if (Date.now() - state.lastProgress >= HEARTBEAT_MS) say("Still working…");
  }, HEARTBEAT_MS);
  // The client cancelled the call: stop our turn, but never a turn of another call queued before it.
  const onCancel = (): void => {
    state.cancelled = true;
    if (state.started) thread.interrupt();
  };
  context.signal.addEventListener("abort", onCancel, { once: true });

  try {
    // This call's responders: elicitation (or the declared outcome) for approvals, and the
    // client's elicitation for the model's questions and for MCP servers' elicitations.
    const answer = questionRouter(thread, {
      approval: async (event) => {
        const { decision } = await decideApproval(event, thread.id, context);
        // Noted before answering: an abort ends the turn, and the result must say why.
        if (decision === "abort") state.abortedBy = describeRequest(event);
        return decision;
      },
      userInput: (event) => askUser(event, thread.id, context),
      elicitation: (event) => forwardElicitation(event, thread.id, context),
    });
    const narrator = new ProgressNarrator();
    const overrides = context.trace ? { ...request.overrides, trace: context.trace } : request.overrides;
    const stream = thread.runStreamed(request.input, overrides);
    let turnId = "";
    for await (const event of stream) {
      if (event.type === "turn_started") {
        state.started = true;
        turnId = event.turn_id;
        if (state.cancelled) thread.interrupt();
      }
      for (const line of narrator.lines(event)) say(line);
      if (context.runtime.settings.rawEvents) sendRawEvent(thread.id, turnId, event, context);
      answer(event);
    }
    return toolResult(thread.id, await stream.result(), state.abortedBy, request.pageSize, context);
  } catch (error) {
    return errorResult(thread.id, `Turn failed: ${errorMessage(error)}`);
  } finally {
    clearInterval(heartbeat);
    context.signal.removeEventListener("abort", onCancel);
  }
}

function errorResult(threadId: string, text: string): ServerToolResult {
  return threadResult(threadId, text, true);
}

function toolResult(
  threadId: string,
  result: TurnResult,
  abortedBy: string | null,
  pageSize: number | undefined,
  context: ServerToolContext,
): ServerToolResult {
  if (result.status === "failed")
    return errorResult(threadId, `Turn failed: ${result.error ?? "unknown error"}`);
  if (result.status === "interrupted") {
    return errorResult(
      threadId,
      abortedBy
        ? `Turn aborted: the approval request for ${abortedBy} was answered with abort.`
        : "Turn interrupted before it finished.",
    );
  }
  const page = context.runtime.pages.paginate(threadId, result.finalResponse ?? "", pageSize);
  return pagedResult(threadId, page);
}

function sendRawEvent(threadId: string, turnId: string, event: Event, context: ServerToolContext): void {
  context.notify?.("codex/event", {
    _meta: { requestId: context.requestId ?? null, threadId },
    id: turnId,
    msg: rawEventMessage(event),
  });
}

function describeRequest(event: ApprovalRequestEvent): string {
  return event.type === "exec_approval_request"
    ? `\`${displayCommand(event.command)}\``
    : `changes to ${Object.keys(event.changes).join(", ")}`;
}
