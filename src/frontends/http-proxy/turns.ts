/**
 * From a request's conversation to a running turn on a thread. Threads live in the store, not
 * in this process: each request loads its thread (previous_response_id, or the parked call its
 * outputs answer), runs one turn, and releases it, so any proxy process on the same thread
 * store (TSCODEX_HOME, or one PostgreSQL database) can serve the follow-up, before or after a
 * restart. A thread another process is running a turn on is "busy" (409).
 * Flow: plan (tail of the conversation) → find the thread (response id | parked-call index |
 * new thread seeded with the request's history) → runStreamed | continueStreamed.
 */
import { randomBytes } from "node:crypto";
import type { Event } from "../../protocol/events.js";
import type { ParkedTurn, Thread, TurnOverrides, TurnResult } from "../../session/thread.js";
import type { ThreadManager } from "../../session/thread-manager.js";
import { ThreadBusyError } from "../../store/index.js";
import { errorMessage } from "../../util/errors.js";
import type { EventStream } from "../../util/event-stream.js";
import { type Conversation, planTurn, toHistoryItems } from "./conversation.js";
import { ApiError } from "./errors.js";

export interface TurnOptions {
  threads: ThreadManager;
  cwd: string;
  /** The agent gets only the client's tools. */
  noInternalTools: boolean;
  /** A parked turn older than this cannot be continued by id (ms). */
  parkedTtlMs: number;
}

export interface StartedTurn {
  thread: Thread;
  stream: EventStream<Event, TurnResult>;
}

/** `resp_<thread id>_<random>`: the thread is found again from the id alone, in any process. */
export function responseId(threadId: string): string {
  return `resp_${threadId}_${randomBytes(6).toString("hex")}`;
}

const RESPONSE_ID = /^resp_([0-9a-f-]{36})_/;

export async function startTurn(
  options: TurnOptions,
  conversation: Conversation,
  previousResponseId: string | null,
): Promise<StartedTurn> {
  const plan = planTurn(conversation.entries);
  const overrides: TurnOverrides = {
    clientTools: conversation.tools,
    ...(conversation.outputSchema ? { outputSchema: conversation.outputSchema } : {}),
  };
  // A new turn has exactly the request's tools; a parked turn keeps its own unless new ones come.
  const continuing: TurnOverrides = conversation.toolsGiven
    ? overrides
    : { ...overrides, clientTools: undefined };
  if (previousResponseId !== null) {
    const thread = await threadOfResponse(options, previousResponseId);
    if (plan.kind === "user") {
      return { thread, stream: thread.runStreamed({ text: plan.text, images: plan.images }, overrides) };
    }
    const parked = thread.parkedTurn;
    const callIds = plan.outputs.map((output) => output.callId);
    if (!parked || !callIds.some((id) => parked.calls.some((call) => call.call_id === id))) {
      await options.threads.release(thread.id);
      throw ApiError.invalid(
        `No pending function call of response '${previousResponseId}' matches call_id ${callIds.join(", ")}.`,
        "input",
      );
    }
    await refuseExpired(options, thread, parked);
    return { thread, stream: thread.continueStreamed(toHistoryItems(plan.outputs), continuing) };
  }
  if (plan.kind === "outputs") {
    const found = await threadOfParkedCalls(
      options,
      plan.outputs.map((output) => output.callId),
    );
    if (found)
      return { thread: found, stream: found.continueStreamed(toHistoryItems(plan.outputs), continuing) };
  }
  // Nothing stored matches: the request's own history is the conversation.
  const thread = await options.threads.start({
    cwd: options.cwd,
    clientTools: conversation.tools,
    clientToolsWin: true,
    parkClientCalls: true,
    noInternalTools: options.noInternalTools,
    ...(conversation.instructions.length > 0
      ? { developerInstructions: conversation.instructions.join("\n\n") }
      : {}),
  });
  await thread.importHistory(toHistoryItems(plan.history));
  if (plan.kind === "user")
    return { thread, stream: thread.runStreamed({ text: plan.text, images: plan.images }, overrides) };
  return { thread, stream: thread.continueStreamed(toHistoryItems(plan.outputs), overrides) };
}

/** Remember which thread each parked call belongs to (a follow-up may carry only the history). */
export async function indexParkedCalls(
  options: TurnOptions,
  threadId: string,
  callIds: string[],
): Promise<void> {
  await options.threads.store.indexParkedCalls(threadId, callIds);
}

async function threadOfResponse(options: TurnOptions, id: string): Promise<Thread> {
  const threadId = RESPONSE_ID.exec(id)?.[1];
  const notFound = new ApiError(
    404,
    `Previous response with id '${id}' not found.`,
    "invalid_request_error",
    "previous_response_id",
    "previous_response_not_found",
  );
  if (!threadId) throw notFound;
  try {
    return await options.threads.resume(threadId);
  } catch (error) {
    throw busyError(error) ?? notFound;
  }
}

/** A thread another process (or request) is running a turn on: 409, try again when it is done. */
function busyError(error: unknown): ApiError | null {
  if (!(error instanceof ThreadBusyError)) return null;
  return new ApiError(409, error.message, "invalid_request_error", null, "thread_busy");
}

/** The thread whose parked turn waits for these calls, if any (and not expired). */
async function threadOfParkedCalls(options: TurnOptions, callIds: string[]): Promise<Thread | null> {
  for (const callId of callIds) {
    const threadId = await options.threads.store.threadOfCall(callId).catch(() => null);
    if (!threadId) continue;
    const thread = await options.threads.resume(threadId).catch((error: unknown) => {
      const busy = busyError(error);
      if (busy) throw busy;
      return null;
    });
    if (!thread) continue;
    const parked = thread.parkedTurn;
    const fresh = parked && Date.now() - parked.parkedAt <= options.parkedTtlMs;
    if (fresh && parked.calls.some((call) => call.call_id === callId)) return thread;
    await options.threads.release(thread.id);
  }
  return null;
}

async function refuseExpired(options: TurnOptions, thread: Thread, parked: ParkedTurn): Promise<void> {
  const age = Date.now() - parked.parkedAt;
  if (age <= options.parkedTtlMs) return;
  await options.threads.release(thread.id).catch((error: unknown) => errorMessage(error));
  throw ApiError.invalid(
    `The pending function call(s) ${parked.calls.map((call) => call.call_id).join(", ")} expired ` +
      `${age} ms after the response that made them (limit ${options.parkedTtlMs} ms). ` +
      "Send the whole conversation again without previous_response_id.",
    "previous_response_id",
    "parked_turn_expired",
  );
}
