/**
 * Writing threads to PostgreSQL: each batch of rollout lines is one transaction that inserts the
 * lines under explicit sequence numbers (the writer holds the thread's lease, so it knows the
 * next one) with ON CONFLICT DO NOTHING, and bumps the thread's `updated`, `last_seq` and
 * `version`. Retrying a batch whose commit was lost on the way back is therefore harmless: the
 * lines are there once. A batch counts as stored only once its COMMIT is acknowledged.
 * Connection failures are retried a bounded number of times with doubling pauses, then surface
 * as StoreError("thread store unavailable: …"). A try that gets no answer within
 * `attemptTimeoutMs` (a server that hangs, a network that drops packets without a reset) counts
 * as failed: its statement may still commit later, which a retry of the same batch tolerates.
 */
import type { Sql, TransactionSql } from "postgres";
import { errorMessage } from "../util/errors.js";
import { LineWriter } from "./line-writer.js";
import type { RolloutLine, SessionMeta } from "./rollout.js";
import { StoreError, StoreUnavailableError, type WriterOptions } from "./thread-store.js";

export interface RetryOptions {
  /** Tries per operation (default 3). */
  attempts?: number;
  /** Pause after the first failed try, doubled after each later one (default 500 ms). */
  backoffMs?: number;
  /** A try without an answer after this long fails (default 15 s; 0: wait as long as it takes). */
  attemptTimeoutMs?: number;
}

/**
 * Tells tries still waiting for an answer that the store answered again after an outage. A query
 * sent while the server was starting up can wait for ever inside the driver (postgres.js
 * reconnecting under a queued query), and an idle pooled connection from before the restart
 * fails the next query sent on it. So at a recovery the store opens a new pool, and a try still
 * waiting is abandoned and tried again, which an operation safe to repeat tolerates.
 */
export class StoreRecovery {
  private readonly waiting = new Set<() => void>();

  /** `onRecovered` runs first at each recovery (the store replaces its pool there). */
  constructor(private readonly onRecovered: () => void = () => {}) {}

  /** Calls `abandon` at the next recovery; returns the cancel. */
  watch(abandon: () => void): () => void {
    this.waiting.add(abandon);
    return () => this.waiting.delete(abandon);
  }

  /** The store answered again after its connection dropped. */
  recovered(): void {
    this.onRecovered();
    const waiting = [...this.waiting];
    this.waiting.clear();
    for (const abandon of waiting) abandon();
  }
}

/** What every query of one store shares: the pool, the retry policy and the recovery signal. */
export interface Db {
  readonly sql: Sql;
  readonly retry: Required<RetryOptions>;
  readonly recovery?: StoreRecovery;
}

/** Postgres error classes worth another try: the connection or the server went away, or a transient conflict. */
const TRANSIENT_SQLSTATES = new Set(["57P01", "57P02", "57P03", "53300", "40001", "40P01"]);
/** postgres.js and socket failures that say the connection, not the statement, failed. */
const TRANSIENT_CODES = new Set([
  "CONNECTION_CLOSED",
  "CONNECTION_DESTROYED",
  "CONNECT_TIMEOUT",
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EAI_AGAIN",
  "ENOENT", // a Unix socket that is gone while the server restarts
  "ATTEMPT_TIMEOUT", // ours: no answer in time
  "STORE_RECOVERED", // ours: the store came back while the try waited
]);

/** Whether `error` is a try that got no answer in time (see `bounded`). */
export function isTimeout(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === "ATTEMPT_TIMEOUT";
}

/** Whether `error` is a lost or refused connection (retry) rather than a failing statement. */
export function isTransient(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code !== "string") return false;
  return TRANSIENT_CODES.has(code) || TRANSIENT_SQLSTATES.has(code) || code.startsWith("08");
}

/**
 * Run `operation` (which must be safe to repeat) with the store's bounded retries. Throws
 * StoreError: "thread store unavailable" after the last failed try, or at once for an error
 * that another try would not fix.
 */
export async function withRetries<T>(db: Db, what: string, operation: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await bounded(operation(), db.retry.attemptTimeoutMs, db.recovery);
    } catch (error) {
      if (error instanceof StoreError) throw error;
      if (!isTransient(error))
        throw new StoreError(`thread store error (${what}): ${errorMessage(error)}`, { cause: error });
      if (attempt >= db.retry.attempts)
        throw new StoreUnavailableError(
          `thread store unavailable: ${what} failed after ${attempt} tries: ${errorMessage(error)}`,
          { cause: error },
        );
      await new Promise((resolve) => setTimeout(resolve, db.retry.backoffMs * 2 ** (attempt - 1)));
    }
  }
}

/**
 * `pending`, or an ATTEMPT_TIMEOUT error after `ms`, or a STORE_RECOVERED error when `recovery`
 * signals first (either way its late outcome is dropped).
 */
export function bounded<T>(pending: Promise<T>, ms: number, recovery?: StoreRecovery): Promise<T> {
  if (ms <= 0 && !recovery) return pending;
  return new Promise<T>((resolve, reject) => {
    const fail = (code: string, message: string) => {
      const error = new Error(message) as Error & { code: string };
      error.code = code;
      reject(error);
    };
    const timer =
      ms > 0
        ? setTimeout(() => fail("ATTEMPT_TIMEOUT", `no answer from the database in ${ms} ms`), ms)
        : null;
    const unwatch = recovery?.watch(() =>
      fail("STORE_RECOVERED", "the database came back while this try waited for an answer"),
    );
    const done = () => {
      if (timer) clearTimeout(timer);
      unwatch?.();
    };
    pending.then(
      (value) => {
        done();
        resolve(value);
      },
      (error: unknown) => {
        done();
        reject(error);
      },
    );
  });
}

/** The kind of event a line records (indexed: turn boundaries find their rows by it). */
function eventOf(line: RolloutLine): string | null {
  return line.type === "event" ? line.payload.type : null;
}

function timeOf(line: RolloutLine): Date {
  const ms = Date.parse(line.timestamp);
  return new Date(Number.isFinite(ms) ? ms : Date.now());
}

/**
 * Insert `lines` as seq `first`, `first + 1`, … of thread `threadId` and bump the thread, in one
 * statement (one round trip, one transaction). Idempotent: a seq already stored with the same
 * line is left alone; one stored with a different line means another writer appended without
 * the lease, which is refused.
 */
export async function appendBatch(
  sql: Sql,
  threadId: string,
  first: number,
  lines: RolloutLine[],
): Promise<void> {
  if (lines.length === 0) return;
  const last = lines[lines.length - 1] as RolloutLine;
  let rows: { seq: number }[];
  try {
    rows = await sql<{ seq: number }[]>`
      WITH inserted AS (${linesInsert(sql, threadId, first, lines)}),
      bumped AS (
        UPDATE tscodex_threads
           SET last_seq = greatest(last_seq, ${first + lines.length - 1}),
               updated = ${timeOf(last)}, version = version + 1
         WHERE id = ${threadId} AND EXISTS (SELECT 1 FROM inserted)
      )
      SELECT seq FROM inserted`;
  } catch (error) {
    throw noThread(error, threadId);
  }
  const inserted = new Set(rows.map((row) => row.seq));
  if (inserted.size < lines.length) await checkStored(sql, threadId, first, lines, inserted);
}

/** INSERT … RETURNING seq of `lines` as seq `first`, … (existing seqs are skipped). */
function linesInsert(
  sql: Sql | TransactionSql,
  threadId: string,
  first: number,
  lines: RolloutLine[],
  join = sql``,
) {
  return sql`
    INSERT INTO tscodex_thread_lines (thread_id, seq, ts, type, event, payload)
    SELECT ${threadId}, u.seq, u.ts, u.type, u.event, u.payload::json
      FROM unnest(
        ${lines.map((_, i) => first + i)}::int[],
        ${lines.map((line) => line.timestamp)}::text[],
        ${lines.map((line) => line.type)}::text[],
        ${lines.map(eventOf)}::text[],
        ${lines.map((line) => JSON.stringify(line.payload))}::text[]
      ) AS u(seq, ts, type, event, payload) ${join}
    ON CONFLICT (thread_id, seq) DO NOTHING
    RETURNING seq`;
}

/** A foreign-key failure on the lines means the thread was deleted under the writer. */
function noThread(error: unknown, threadId: string): unknown {
  if ((error as { code?: unknown }).code === "23503")
    return new StoreError(`thread ${threadId} is no longer stored`, { cause: error });
  return error;
}

/** The lines that were not inserted must be ours from an earlier try of this batch. */
async function checkStored(
  tx: Sql | TransactionSql,
  threadId: string,
  first: number,
  lines: RolloutLine[],
  inserted: Set<number>,
): Promise<void> {
  const rows = await tx<{ seq: number; ts: string; type: string; payload: string }[]>`
    SELECT seq, ts, type, payload::text AS payload FROM tscodex_thread_lines
     WHERE thread_id = ${threadId} AND seq >= ${first} AND seq < ${first + lines.length}`;
  for (const row of rows) {
    if (inserted.has(row.seq)) continue;
    const line = lines[row.seq - first] as RolloutLine;
    if (row.ts !== line.timestamp || row.type !== line.type || row.payload !== JSON.stringify(line.payload))
      throw new StoreError(
        `thread ${threadId} was appended to by another writer (line ${row.seq}); is its lease held elsewhere?`,
      );
  }
}

/**
 * Store a new thread: its row and its metadata line (seq 0), and for a fork the lines it copies,
 * in one transaction. Idempotent like a batch; an id already taken by another thread is a
 * StoreError.
 */
export async function insertThread(
  sql: Sql,
  meta: SessionMeta,
  line: RolloutLine,
  fork?: { from: string; below: number | null },
): Promise<void> {
  if (!fork) {
    // One statement: the row, then the metadata line (checked against the row at its end).
    const rows = await sql`
      WITH thread AS (${threadInsert(sql, meta, line)})
      ${linesInsert(sql, meta.id, 0, [line], sql`JOIN thread ON true`)}`;
    if (rows.length === 0) await checkSameThread(sql, meta, line);
    return;
  }
  await sql.begin(async (tx) => {
    const inserted = await threadInsert(tx, meta, line);
    if (inserted.length === 0) return checkSameThread(tx, meta, line);
    await linesInsert(tx, meta.id, 0, [line]);
    // The source's lines after its metadata (up to `below`), under the same seqs.
    await tx`
      INSERT INTO tscodex_thread_lines (thread_id, seq, ts, type, event, payload)
      SELECT ${meta.id}, seq, ts, type, event, payload FROM tscodex_thread_lines
       WHERE thread_id = ${fork.from} AND seq > 0 ${fork.below === null ? tx`` : tx`AND seq < ${fork.below}`}`;
    await tx`
      UPDATE tscodex_threads t
         SET last_seq = l.seq, updated = l.ts::timestamptz
        FROM (SELECT seq, ts FROM tscodex_thread_lines WHERE thread_id = ${meta.id}
               ORDER BY seq DESC LIMIT 1) l
       WHERE t.id = ${meta.id}`;
  });
}

function threadInsert(sql: Sql | TransactionSql, meta: SessionMeta, line: RolloutLine) {
  const created = Date.parse(meta.created);
  return sql`
    INSERT INTO tscodex_threads (id, created, updated, source, provider, forked_from, meta, last_seq)
    VALUES (${meta.id}, ${new Date(Number.isFinite(created) ? created : Date.now())}, ${timeOf(line)},
            ${meta.source}, ${meta.provider}, ${meta.forked_from ?? null}, ${JSON.stringify(meta)}::text::json, 0)
    ON CONFLICT (id) DO NOTHING
    RETURNING id`;
}

/** The thread row was there already: from an earlier try of this very call, or another thread's id. */
async function checkSameThread(
  sql: Sql | TransactionSql,
  meta: SessionMeta,
  line: RolloutLine,
): Promise<void> {
  const [stored] = await sql<{ ts: string; payload: string }[]>`
    SELECT ts, payload::text AS payload FROM tscodex_thread_lines WHERE thread_id = ${meta.id} AND seq = 0`;
  if (stored?.ts === line.timestamp && stored.payload === JSON.stringify(line.payload)) return;
  throw new StoreError(`a thread with id ${meta.id} is already stored`);
}

/**
 * Whether this process holds thread `threadId`'s lease, waiting while it is being taken again
 * after a dropped connection (postgres-leases.ts `holds`).
 */
export type LeaseCheck = (threadId: string) => Promise<boolean>;

/**
 * Appends the lines of one thread as numbered rows. A batch that fails because the store is
 * unavailable is tried again for as long as the thread's lease is held or being taken again (a
 * database restart), at most `rideOutMs`; then, or once the lease is lost, the batch fails.
 */
export class PostgresWriter extends LineWriter {
  constructor(
    private readonly db: Db,
    threadId: string,
    private nextSeq: number,
    options: WriterOptions,
    private readonly leased: { holds: LeaseCheck; rideOutMs: number } | null = null,
  ) {
    super(threadId, null, options);
  }

  protected async store(lines: RolloutLine[]): Promise<void> {
    // Numbered once: every retry of this batch writes the same seqs, so a lost acknowledgement
    // never stores a line twice.
    const first = this.nextSeq;
    this.nextSeq += lines.length;
    const deadline = Date.now() + (this.leased?.rideOutMs ?? 0);
    for (;;) {
      try {
        return await withRetries(this.db, `storing ${lines.length} line(s) of thread ${this.threadId}`, () =>
          appendBatch(this.db.sql, this.threadId, first, lines),
        );
      } catch (error) {
        if (!(error instanceof StoreUnavailableError) || !this.leased || Date.now() >= deadline) throw error;
        if (!(await this.leased.holds(this.threadId))) throw error;
      }
    }
  }

  protected async release(): Promise<void> {}
}
