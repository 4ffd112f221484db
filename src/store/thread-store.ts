/**
 * ThreadStore: where threads live. The ThreadManager alone talks to it; front-ends go through the
 * manager (or, for read-only views, through the store it holds). Two implementations: JSONL
 * rollouts under the home (jsonl-store.ts, the embedded default) and PostgreSQL (postgres-store.ts,
 * for several processes or machines on one database).
 *
 * A thread is an ordered list of rollout lines (rollout.ts): its metadata first, then items and
 * key events, appended as they happen. Every implementation stores exactly those lines, so reading
 * back is the same replay (rollout-reader.ts) whatever the store.
 */
import type { Event } from "../protocol/events.js";
import type { TokenUsage } from "../protocol/items.js";
import type { EventSource, RolloutLine, SessionMeta } from "./rollout.js";
import type { StoredThread } from "./rollout-reader.js";
import type { ThreadLeases } from "./thread-lock.js";

export type StoreKind = "jsonl" | "postgres";

/** One line of `sessions list`, thread/list and listSessions. */
export interface ThreadSummary {
  id: string;
  /** The rollout file (JSONL store); null in a database. */
  path: string | null;
  created: string;
  updated: string;
  cwd: string;
  model: string;
  provider: string;
  source: string;
  firstPrompt: string | null;
  turns: number;
  usage: TokenUsage;
  forkedFrom: string | null;
  /** A sub-agent's parent thread. */
  parentId: string | null;
  /** A sub-agent's named agent type. */
  agentType: string | null;
}

/** Which threads a list returns, in what order, and from where. */
export interface ThreadQuery {
  /** Page size (default: all). */
  limit?: number;
  /** Where the previous page ended (its `nextCursor`); opaque to callers. */
  cursor?: string | null;
  /** "created" (default): newest first; "updated": most recently appended first. */
  sort?: "created" | "updated";
  /** Archived threads instead of live ones. */
  archived?: boolean;
  /** Only threads on one of these model providers. */
  providers?: readonly string[];
  /** Only threads recorded with this `source` ("exec", "proxy", …). */
  source?: string;
  /** Only threads started in one of these directories (absolute paths, compared exactly). */
  cwds?: readonly string[];
  /** Only these threads (an empty list: none); pages repeat the same ids. */
  ids?: readonly string[];
}

/**
 * A response the proxy gave (POST /v1/responses or /v1/chat/completions): the point of one thread
 * its id names. The id is a capability: only an id stored here continues a thread.
 */
export interface ResponseRecord {
  /** `resp_<thread id>_<random>`. */
  id: string;
  threadId: string;
  /** How many turns the thread had when the response ended (the response's own is the last). */
  turns: number;
  /** The turn parked on this response's client calls, or null when it did not park. */
  parkedTurnId: string | null;
  /**
   * Fingerprint of the conversation as the client saw it up to the end of this response: a
   * request that carries this history may continue the response's parked turn without its id.
   */
  transcript: string;
  /** The response object as it was sent. */
  body: Record<string, unknown>;
  /** The HTTP status `body` was sent with when not 200: a failed chat completion's `{"error"}`. */
  status?: number | undefined;
  /** The request's input items, with ids (GET /v1/responses/{id}/input_items). */
  input?: Record<string, unknown>[] | undefined;
  /**
   * The response whose request continued this one on its own thread (answering its function
   * calls, or as the thread's next turn), once one did.
   */
  answeredBy?: string | null | undefined;
  /** ms since the epoch. */
  created: number;
}

/** A background response still running: its stored copy may change until its turn ends. */
export function responseRunning(record: ResponseRecord): boolean {
  return record.body.status === "in_progress" || record.body.status === "queued";
}

/**
 * What a key whose answer was deleted replays instead (no copy of the answer): a 404
 * `response_deleted` in the proxy's error shape. `threadId`: the answer went with its thread.
 */
export function deletedAnswer(answerId: string, threadId?: string): { status: number; body: unknown } {
  const what = threadId ? ` with its thread '${threadId}'` : "";
  return {
    status: 404,
    body: {
      error: {
        message: `The response this Idempotency-Key answered ('${answerId}') was deleted${what}. Send the request with a new Idempotency-Key to run it again.`,
        type: "invalid_request_error",
        param: null,
        code: "response_deleted",
      },
    },
  };
}

/**
 * An `Idempotency-Key` the proxy has seen: the request it came with (a fingerprint of route and
 * body) and, once answered, the answer to replay to a retry.
 */
export interface IdempotencyRecord {
  key: string;
  /** sha256 of the route and the request body. */
  fingerprint: string;
  /** The answer (status and JSON body) once there is one; null while the request runs. */
  result: { status: number; body: unknown } | null;
  /** ms since the epoch. */
  created: number;
  /** ms since the epoch: after this the key is free again. */
  expires: number;
  /**
   * What the request's turn writes, recorded before it writes anything: a retry that takes the
   * key over after the request's process died finds the stored answer, or undoes the partial turn.
   */
  work?: IdempotentWork | null | undefined;
}

/** The thread a keyed request's turn runs on, and where its answer is stored once it ends. */
export interface IdempotentWork {
  threadId: string;
  /** How many lines the thread had before the turn (ThreadStore.truncate); null: the request made the thread. */
  linesBefore: number | null;
  /** The id the answer is stored under once the turn ends (the proxy: a response id), or null. */
  answerId: string | null;
  /**
   * The stored answer whose thread the turn continues (the proxy: the previous response), or
   * null: undoing the partial turn is only safe while nothing else continued from there.
   */
  continues: string | null;
}

export interface ThreadPage {
  threads: StoredThread[];
  /** null on the last page. */
  nextCursor: string | null;
}

export interface WriterOptions {
  /** Make each batch durable before it counts as stored (fdatasync; a committed transaction). */
  fsync?: boolean;
  /** Called once when a batch could not be stored after the store's retries. */
  onFailure?: (error: Error) => void;
}

/**
 * Appends the lines of one thread, in order. `record*` is cheap and synchronous; batches are
 * stored behind it, never overlapping. A line counts as stored once `flush()` resolves after it.
 */
export interface ThreadWriter {
  readonly threadId: string;
  /** The rollout file, or null when the store is not a file. */
  readonly path: string | null;
  /** How many lines this writer has stored so far (whole batches that succeeded). */
  readonly linesStored: number;
  /** Record the items and key events of `source` until it is closed; returns the unsubscribe. */
  attach(source: EventSource): () => void;
  recordEvent(event: Event): void;
  /** Record a line as it is (its own timestamp): copies between stores. */
  writeLine(line: RolloutLine): void;
  /** Resolves once every line recorded so far is stored; rejects if a batch failed. */
  flush(): Promise<void>;
  close(): Promise<void>;
}

export interface ThreadStore {
  readonly kind: StoreKind;
  /** Where the threads are, for messages (a directory, or the database URL without its password). */
  readonly location: string;
  /**
   * Several processes serve these threads: a thread is held only while a turn runs, so a
   * follow-up may land on any process.
   */
  readonly shared: boolean;
  /** One holder per thread at a time, across every process on this store. */
  readonly leases: ThreadLeases;

  /** A new thread whose first line is `meta`. */
  create(meta: SessionMeta, options?: WriterOptions): Promise<ThreadWriter>;
  /** Continue stored thread `id` (the caller holds its lease). */
  append(id: string, options?: WriterOptions): Promise<ThreadWriter>;
  /**
   * The full id of thread `idOrPrefix` (a unique prefix works), or null when none matches.
   * Throws StoreError when a prefix is ambiguous.
   */
  resolveId(idOrPrefix: string, options?: { archived?: boolean }): Promise<string | null>;
  /** The most recently created live thread's id, or null. */
  newestId(): Promise<string | null>;
  /** Thread `id` replayed, or null when it is stored nowhere. */
  read(id: string, options?: { archived?: boolean }): Promise<StoredThread | null>;
  /** Thread `id`'s raw lines from the start of turn `fromTurn` (1-based; 1 or less: all). */
  readLines(id: string, options?: { fromTurn?: number }): Promise<RolloutLine[] | null>;
  /** A number that grows with every append to thread `id` (null when absent). */
  version(id: string): Promise<number | null>;
  list(query?: ThreadQuery): Promise<ThreadPage>;
  /** Copy the first `turns` turns (default all) of thread `id` under a new id; returns it. */
  fork(id: string, options?: { turns?: number; newId?: string }): Promise<string>;
  /**
   * Remove thread `id` (live or archived); false when it was stored nowhere. Its response
   * records go with it (deleted as deleteResponse does), and first every live, answered
   * idempotency key whose work is on it gets `deletedAnswer` to replay: no key answers from a
   * deleted thread.
   */
  delete(id: string): Promise<boolean>;
  /** Move thread `id` out of the live list; false when there is no such live thread. */
  archive(id: string): Promise<boolean>;
  /** Move archived thread `id` back to the live list; false when there is no such archived thread. */
  unarchive(id: string): Promise<boolean>;
  /** Drop the last `numTurns` turns of thread `id` (all when it has fewer); false when absent. */
  rollback(id: string, numTurns: number): Promise<boolean>;
  /**
   * Keep only the first `lines` lines of thread `id` (as readLines counts them; the metadata line
   * always stays): what a turn that died with its process left after them goes. The caller holds
   * the thread's lease. False when the thread is not stored.
   */
  truncate(id: string, lines: number): Promise<boolean>;
  /**
   * Remember that thread `threadId`'s parked turn waits for these calls' outputs (made by
   * response `responseId`, when a response made them).
   */
  indexParkedCalls(threadId: string, callIds: readonly string[], responseId?: string): Promise<void>;
  /** The thread whose parked turn waited for call `callId`, or null. */
  threadOfCall(callId: string): Promise<string | null>;
  /** The response that made call `callId` (indexed with indexParkedCalls), or null. */
  responseOfCall(callId: string): Promise<string | null>;
  /**
   * Store (or replace) a response record; never one deleted (deleteResponse): a background turn
   * that ends after its response was deleted, or a read-modify-write racing the delete, stores
   * nothing.
   */
  saveResponse(record: ResponseRecord): Promise<void>;
  /** Response `id`, or null when none was stored under exactly that id. */
  readResponse(id: string): Promise<ResponseRecord | null>;
  /**
   * Forget response `id` for good (its thread stays): it is not read back, and is not stored
   * again by a later saveResponse. False when there was none.
   */
  deleteResponse(id: string): Promise<boolean>;
  /**
   * Claim idempotency key `record.key`: stores `record` when the key is new (or its record
   * expired) and returns null; else returns the live record already stored.
   */
  claimIdempotencyKey(record: IdempotencyRecord): Promise<IdempotencyRecord | null>;
  /** Replace the stored record of `record.key` (a takeover, or the finished result). */
  saveIdempotencyKey(record: IdempotencyRecord): Promise<void>;
  /** Forget key `key` (its request failed before it had a result to replay). */
  dropIdempotencyKey(key: string): Promise<void>;
  /**
   * The live keys whose request's answer is (to be) stored under `answerId` (their
   * `work.answerId`): deleting that answer must not leave a key that replays it.
   */
  idempotencyKeysAnswering(answerId: string): Promise<IdempotencyRecord[]>;
  /** Remove the keys expired at `now` (ms); returns how many. */
  pruneIdempotencyKeys(now: number): Promise<number>;
  /**
   * Forget the parked-call index entries made before `before` (ms): past the parked-call and
   * retry windows no request can continue or re-answer them. Returns how many.
   */
  pruneParkedCalls(before: number): Promise<number>;
  /**
   * The process is shutting down: stop waiting out store outages (a lease being taken again after
   * its connection dropped counts as lost at once), so a turn that cannot be stored ends now
   * rather than after the outage window. Stores without such waits leave it out.
   */
  stopRidingOut?(): void;
  close(): Promise<void>;
}

/** A store-level failure the user can act on (ambiguous prefix, unreachable database…). */
export class StoreError extends Error {
  override name = "StoreError";
}

/** The store did not answer after its bounded retries: a try later may succeed (HTTP 503). */
export class StoreUnavailableError extends StoreError {
  override name = "StoreUnavailableError";
}

/** The summary of a replayed thread. */
export function summaryOf(stored: StoredThread): ThreadSummary {
  return {
    id: stored.meta.id,
    path: stored.path,
    created: stored.meta.created,
    updated: stored.updated,
    cwd: stored.meta.cwd,
    model: stored.meta.model,
    provider: stored.meta.provider,
    source: stored.meta.source,
    firstPrompt: stored.firstPrompt,
    turns: stored.turns,
    usage: stored.usage,
    forkedFrom: stored.meta.forked_from ?? null,
    parentId: stored.meta.parent_id ?? null,
    agentType: stored.meta.agent_type ?? null,
  };
}
