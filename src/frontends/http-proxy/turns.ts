/**
 * From a request's conversation to a running turn on a thread. Threads live in the store, not
 * in this process: each request loads its thread (previous_response_id, or the parked call its
 * outputs answer), runs one turn, and releases it, so any proxy process on the same thread
 * store (TSCODEX_HOME, or one PostgreSQL database) can serve the follow-up, before or after a
 * restart. A thread another process is running a turn on is "busy" (409).
 * Flow: plan (tail of the conversation) → find the thread (a stored response's, forked when that
 * response is not the thread's last | a parked turn whose history the request carries | a new
 * thread seeded with the request's history) → runStreamed | continueStreamed → commitResponse.
 */
import { randomBytes } from "node:crypto";
import type { Event } from "../../protocol/events.js";
import type { ParkedTurn, Thread, TurnOverrides, TurnResult } from "../../session/thread.js";
import type { ThreadManager } from "../../session/thread-manager.js";
import {
  type ResponseRecord,
  responseRunning,
  StoreUnavailableError,
  ThreadBusyError,
} from "../../store/index.js";
import { errorMessage } from "../../util/errors.js";
import type { EventStream } from "../../util/event-stream.js";
import { uuidv7 } from "../../util/ids.js";
import { type Conversation, planTurn, type TurnPlan, toHistoryItems } from "./conversation.js";
import { ApiError, fromUnexpected } from "./errors.js";
import { EMPTY_TRANSCRIPT, extendTranscript } from "./transcript.js";

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
  /** The fingerprint of the conversation the client has seen, before this response (transcript.ts). */
  transcript: string;
  /**
   * The stored response this turn continues on its own thread (answering its parked calls, or as
   * the thread's next turn); null on a new thread or a fork.
   */
  answers: ResponseRecord | null;
}

/**
 * The thread a request's turn is about to run on, before the turn writes anything to it: held,
 * or (fresh) not made yet, so whoever must undo the turn learns its id before it exists.
 */
export interface HeldThread {
  threadId: string;
  /** The request makes the thread (a new one, or a fork): no one else knows it yet. */
  fresh: boolean;
  /** As StartedTurn.answers. */
  answers: ResponseRecord | null;
}

/** `resp_<thread id>_<random>`: a new response's id. Only a stored one continues anything. */
export function responseId(threadId: string): string {
  return `resp_${threadId}_${randomBytes(6).toString("hex")}`;
}

const RESPONSE_ID = /^resp_[0-9a-f-]{36}_[0-9a-f]{12}$/;

/**
 * Start the request's turn. `signal` ends it when the client goes away, even before it starts.
 * - previous_response_id names one stored response (one never issued: 404). From the thread's
 *   last response the turn continues the thread (its parked turn, for outputs); from an older
 *   one it branches: a fork of the thread as it was when that response ended.
 * - Outputs without previous_response_id continue a parked turn only when the request carries
 *   the history that turn's response ended with; else, like any other request, the request's
 *   own history is the conversation, on a new thread.
 */
export async function startTurn(
  options: TurnOptions,
  conversation: Conversation,
  previousResponseId: string | null,
  signal: AbortSignal,
  beforeTurn: (held: HeldThread) => Promise<void> = async () => {},
): Promise<StartedTurn> {
  const plan = planTurn(conversation.entries);
  // A failure here (the store gone) leaves the thread as it was, and free.
  const ready = async (held: HeldThread) => {
    try {
      await beforeTurn(held);
    } catch (error) {
      await options.threads.release(held.threadId).catch(() => {});
      throw error;
    }
  };
  const overrides: TurnOverrides = {
    clientTools: conversation.tools,
    signal,
    ...(conversation.outputSchema ? { outputSchema: conversation.outputSchema } : {}),
    ...(conversation.trace ? { trace: conversation.trace } : {}),
  };
  // A new turn has exactly the request's tools; a parked turn keeps its own unless new ones come.
  const continuing: TurnOverrides = conversation.toolsGiven
    ? overrides
    : { ...overrides, clientTools: undefined };
  if (previousResponseId !== null) {
    const previous = await storedResponse(options, previousResponseId);
    const transcript = extendTranscript(previous.transcript, conversation.entries);
    const { thread, forked } = await threadAt(options, previous, plan.kind, (id) =>
      ready({ threadId: id, fresh: true, answers: null }),
    );
    if (plan.kind === "user") {
      const answers = forked ? null : previous;
      if (!forked) await ready({ threadId: thread.id, fresh: false, answers });
      const stream = thread.runStreamed({ text: plan.text, images: plan.images }, overrides);
      return { thread, stream, transcript, answers };
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
    await ready({ threadId: thread.id, fresh: false, answers: previous });
    const stream = thread.continueStreamed(toHistoryItems(plan.outputs), continuing);
    return { thread, stream, transcript, answers: previous };
  }
  const transcript = extendTranscript(EMPTY_TRANSCRIPT, conversation.entries);
  if (plan.kind === "outputs") {
    const found = await threadOfParkedCalls(
      options,
      plan.outputs.map((output) => output.callId),
      extendTranscript(EMPTY_TRANSCRIPT, plan.history),
    );
    if (found) {
      await ready({ threadId: found.thread.id, fresh: false, answers: found.record });
      const stream = found.thread.continueStreamed(toHistoryItems(plan.outputs), continuing);
      return { thread: found.thread, stream, transcript, answers: found.record };
    }
  }
  if (plan.kind === "outputs") refuseOrphanOutputs(plan);
  // Nothing stored matches: the request's own history is the conversation, on a new thread
  // named (to the Idempotency-Key) before it is made, so no crash leaves a thread no key names.
  const id = uuidv7();
  await ready({ threadId: id, fresh: true, answers: null });
  const thread = await options.threads.start(
    {
      cwd: options.cwd,
      clientTools: conversation.tools,
      clientToolsWin: true,
      parkClientCalls: true,
      noInternalTools: options.noInternalTools,
      ...(conversation.instructions.length > 0
        ? { developerInstructions: conversation.instructions.join("\n\n") }
        : {}),
    },
    id,
  );
  await thread.importHistory(toHistoryItems(plan.history));
  const stream =
    plan.kind === "user"
      ? thread.runStreamed({ text: plan.text, images: plan.images }, overrides)
      : thread.continueStreamed(toHistoryItems(plan.outputs), overrides);
  return { thread, stream, transcript, answers: null };
}

/**
 * Store a finished response (its record, then the index of the calls it parked on) before the
 * client learns its id, so a follow-up to any process finds both.
 */
export async function commitResponse(
  options: TurnOptions,
  record: ResponseRecord,
  callIds: readonly string[],
  answers: ResponseRecord | null,
): Promise<void> {
  const { store } = options.threads;
  await store.saveResponse(record);
  if (callIds.length > 0) await store.indexParkedCalls(record.threadId, callIds, record.id);
  if (!answers) return;
  // A later try with the same outputs is told which response already answered them. A record
  // still running when the turn began (a background response) may have changed since: read again.
  const latest = responseRunning(answers) ? ((await store.readResponse(answers.id)) ?? answers) : answers;
  await store.saveResponse({ ...latest, answeredBy: record.id });
}

/** The stored response `id` names; 404 `previous_response_not_found` when it was never issued. */
async function storedResponse(options: TurnOptions, id: string): Promise<ResponseRecord> {
  const record = RESPONSE_ID.test(id) ? await options.threads.store.readResponse(id) : null;
  if (record) return record;
  throw notFound(id, "");
}

/**
 * The thread to continue from response `previous`, held: its own thread when nothing happened
 * on it since, else a fork of it as it was when `previous` ended. The calls of a parked response
 * that were answered since cannot be answered again (409).
 */
/**
 * How the proxy reopens a stored thread: as it starts one, its client tool calls park the turn
 * (rather than wait in this process for an answer that only a later request brings), and
 * `--disable-internal-tools` still holds.
 */
function reopening(options: TurnOptions): { parkClientCalls: true; noInternalTools: boolean } {
  return { parkClientCalls: true, noInternalTools: options.noInternalTools };
}

async function threadAt(
  options: TurnOptions,
  previous: ResponseRecord,
  next: TurnPlan["kind"],
  beforeFork: (id: string) => Promise<void>,
): Promise<{ thread: Thread; forked: boolean }> {
  const gone = ": its thread is no longer stored";
  let thread: Thread;
  try {
    thread = await options.threads.resume(previous.threadId, reopening(options));
  } catch (error) {
    throw busyError(error) ?? storeUnavailable(error) ?? notFound(previous.id, gone);
  }
  const turns = options.threads.liveState(thread.id)?.turns;
  const parked = thread.parkedTurn;
  const latest =
    turns === previous.turns &&
    (previous.parkedTurnId === null ? parked === null : parked?.turnId === previous.parkedTurnId);
  if (latest) return { thread, forked: false };
  await options.threads.release(thread.id);
  if (previous.parkedTurnId !== null)
    throw new ApiError(
      409,
      `The function calls of response '${previous.id}' were already answered` +
        (previous.answeredBy ? ` by response '${previous.answeredBy}'` : "") +
        "; continue from the response that answered them.",
      "invalid_request_error",
      "previous_response_id",
      "function_call_already_answered",
    );
  if (next === "outputs")
    throw ApiError.invalid(`Response '${previous.id}' has no pending function call.`, "input");
  // Named before it is made, as a new thread is (startTurn).
  const newId = uuidv7();
  await beforeFork(newId);
  try {
    const fork = await options.threads.fork(
      previous.threadId,
      { turns: previous.turns, newId },
      reopening(options),
    );
    return { thread: fork, forked: true };
  } catch (error) {
    throw busyError(error) ?? storeUnavailable(error) ?? notFound(previous.id, gone);
  }
}

function notFound(id: string, why: string): ApiError {
  return new ApiError(
    404,
    `Previous response with id '${id}' not found${why}.`,
    "invalid_request_error",
    "previous_response_id",
    "previous_response_not_found",
  );
}

/** A thread another process (or request) is running a turn on: 409, try again when it is done. */
/** A store outage is a 503, not a sign that the thread is gone. */
function storeUnavailable(error: unknown): ApiError | null {
  return error instanceof StoreUnavailableError ? fromUnexpected(error) : null;
}

function busyError(error: unknown): ApiError | null {
  if (!(error instanceof ThreadBusyError)) return null;
  return new ApiError(409, error.message, "invalid_request_error", null, "thread_busy");
}

/**
 * The thread whose parked turn waits for these calls (not expired), held; only when the request's
 * history (fingerprint `transcript`) is the one the parking response ended with: another
 * client's call id is no key to its turn.
 */
async function threadOfParkedCalls(
  options: TurnOptions,
  callIds: string[],
  transcript: string,
): Promise<{ thread: Thread; record: ResponseRecord } | null> {
  const { store } = options.threads;
  for (const callId of callIds) {
    const responseId = await store.responseOfCall(callId).catch(() => null);
    const record = responseId ? await store.readResponse(responseId).catch(() => null) : null;
    if (!record || record.parkedTurnId === null || record.transcript !== transcript) continue;
    const thread = await options.threads
      .resume(record.threadId, reopening(options))
      .catch((error: unknown) => {
        const busy = busyError(error);
        if (busy) throw busy;
        return null;
      });
    if (!thread) continue;
    const parked = thread.parkedTurn;
    const fresh =
      parked !== null &&
      parked.turnId === record.parkedTurnId &&
      Date.now() - parked.parkedAt <= options.parkedTtlMs;
    if (fresh && parked.calls.some((call) => call.call_id === callId)) return { thread, record };
    await options.threads.release(thread.id);
  }
  return null;
}

/** Outputs whose calls are neither in the request nor waited for by a stored turn of its own: 400. */
function refuseOrphanOutputs(plan: Extract<TurnPlan, { kind: "outputs" }>): void {
  const calls = new Set(plan.history.flatMap((entry) => (entry.kind === "call" ? [entry.callId] : [])));
  const orphans = plan.outputs.filter((output) => !calls.has(output.callId)).map((output) => output.callId);
  if (orphans.length === 0) return;
  throw ApiError.invalid(
    `No function call with call_id ${orphans.join(", ")} is in the input, and no response this conversation continues waits for it: ` +
      "send previous_response_id, or the whole conversation with its function_call items.",
    "input",
    "function_call_not_found",
  );
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
