/**
 * The PostgreSQL ThreadStore: every thread of every process on one database, so a follow-up can
 * land on any process. Tables (postgres-schema.ts): `tscodex_threads` (one row per thread, what
 * lists filter and sort on), `tscodex_thread_lines` (its rollout lines, append-only, numbered
 * per thread from 0 = metadata), `tscodex_parked_calls`, `tscodex_leases`,
 * `tscodex_responses` (the proxy's response records; a deleted one's row is a tombstone).
 * Writes: postgres-writer.ts (idempotent batches, bounded retries). Leases: postgres-leases.ts.
 * The `postgres` driver is imported on open, so nothing else pays for it.
 * Rows read back are a parse boundary: lines are validated like a rollout file's.
 */
import type { Row, Sql } from "postgres";
import { z } from "zod";
import { uuidv7 } from "../util/ids.js";
import { isoTimestamp } from "../util/iso-time.js";
import { redactUrl } from "../util/redact-url.js";
import { LEASE_RETAKE_MS, PostgresThreadLeases } from "./postgres-leases.js";
import { migrate } from "./postgres-schema.js";
import {
  type Db,
  insertThread,
  PostgresWriter,
  type RetryOptions,
  StoreRecovery,
  withRetries,
} from "./postgres-writer.js";
import { parseIdempotencyRecord, parseResponseRecord } from "./response-records.js";
import { type RolloutLine, type SessionMeta, THREAD_ANNOTATIONS } from "./rollout.js";
import { RolloutError, replayRollout, type StoredThread, validateLines } from "./rollout-reader.js";
import {
  deletedAnswer,
  type IdempotencyRecord,
  type ResponseRecord,
  StoreError,
  type ThreadPage,
  type ThreadQuery,
  type ThreadStore,
  type ThreadWriter,
  type WriterOptions,
} from "./thread-store.js";

export interface PostgresStoreOptions {
  /** Connections in the query pool (default 4); leases and LISTEN take one more each. */
  maxConnections?: number;
  /** Seconds to wait for a new connection before the try fails (default 5). */
  connectTimeoutSeconds?: number;
  /** Bounded retries of every operation on connection errors (default 3 tries, 500 ms doubling, 15 s per try). */
  retry?: RetryOptions;
  /** The lease connection dropped: these threads' leases are no longer held (see postgres-leases.ts). */
  onLeasesLost?: (threadIds: string[]) => void;
  /** How often an acquire waiting for a holder looks again without a notification (default 200 ms). */
  leasePollMs?: number;
  /**
   * How long the leases of a dropped lease connection are tried again before they count as lost
   * (default 5 s); a writer whose thread's lease is held rides out a store outage about twice that.
   */
  leaseRetakeMs?: number;
}

/** Open (and migrate) the store at `url` (`postgres://user:password@host:port/db`). */
export async function openPostgresStore(
  url: string,
  options: PostgresStoreOptions = {},
): Promise<ThreadStore> {
  const { default: postgres } = await import("postgres");
  const base = {
    connect_timeout: options.connectTimeoutSeconds ?? 5,
    onnotice: () => {}, // "relation already exists, skipping" and the like
  };
  const openPool = () =>
    postgres(url, {
      ...base,
      max: options.maxConnections ?? 4,
      connection: { application_name: "tscodex" },
    });
  let sql = openPool();
  // After an outage the old pool's connections are stale (see StoreRecovery): start afresh.
  const recovery = new StoreRecovery(() => {
    const old = sql;
    sql = openPool();
    old.end({ timeout: 0 }).catch(() => {});
  });
  const db: Db = {
    get sql() {
      return sql;
    },
    recovery,
    retry: {
      attempts: options.retry?.attempts ?? 3,
      backoffMs: options.retry?.backoffMs ?? 500,
      attemptTimeoutMs: options.retry?.attemptTimeoutMs ?? 15_000,
    },
  };
  try {
    await withRetries(db, "migrating the schema", () => migrate(sql));
  } catch (error) {
    await sql.end({ timeout: 1 });
    throw error;
  }
  const leases = new PostgresThreadLeases(
    db,
    (onClose) =>
      postgres(url, {
        ...base,
        max: 1,
        // The locks live as long as this connection: never recycle it.
        idle_timeout: 0,
        max_lifetime: null,
        onclose: onClose,
        keep_alive: 30,
        // No array parameters here; and a connection dropped while it fetched types would
        // leave postgres.js with an unhandled rejection.
        fetch_types: false,
        // The server ends the session of a holder that went silent, freeing its locks.
        connection: {
          application_name: "tscodex leases",
          tcp_keepalives_idle: 30,
          tcp_keepalives_interval: 10,
          tcp_keepalives_count: 3,
        },
      }),
    {
      ...(options.leasePollMs === undefined ? {} : { pollMs: options.leasePollMs }),
      ...(options.leaseRetakeMs === undefined ? {} : { retakeMs: options.leaseRetakeMs }),
      ...(options.onLeasesLost ? { onLost: options.onLeasesLost } : {}),
    },
  );
  return new PostgresThreadStore(db, redactUrl(url), leases, 2 * (options.leaseRetakeMs ?? LEASE_RETAKE_MS));
}

interface LineRow extends Row {
  ts: string;
  type: string;
  payload: unknown;
}

const cursorSchema = z.tuple([z.number(), z.string()]);

/** A deleted response's row: no response record (readResponse finds none), and never replaced. */
const DELETED_RESPONSE = JSON.stringify({ deleted: true });

class PostgresThreadStore implements ThreadStore {
  readonly kind = "postgres";
  readonly shared = true;

  constructor(
    private readonly db: Db,
    readonly location: string,
    readonly leases: PostgresThreadLeases,
    /** How long a writer holding its thread's lease keeps trying a batch through an outage. */
    private readonly rideOutMs: number,
  ) {}

  stopRidingOut(): void {
    this.leases.stopRetaking();
  }

  private writer(id: string, nextSeq: number, options: WriterOptions): PostgresWriter {
    const leased = { holds: (threadId: string) => this.leases.holds(threadId), rideOutMs: this.rideOutMs };
    return new PostgresWriter(this.db, id, nextSeq, options, leased);
  }

  private get sql(): Sql {
    return this.db.sql;
  }

  private run<T>(what: string, operation: () => Promise<T>): Promise<T> {
    return withRetries(this.db, what, operation);
  }

  async create(meta: SessionMeta, options: WriterOptions = {}): Promise<ThreadWriter> {
    const line: RolloutLine = { timestamp: isoTimestamp(), type: "session_meta", payload: meta };
    await this.run(`creating thread ${meta.id}`, () => insertThread(this.sql, meta, line));
    return this.writer(meta.id, 1, options);
  }

  async append(id: string, options: WriterOptions = {}): Promise<ThreadWriter> {
    const [row] = await this.run(
      `opening thread ${id}`,
      () =>
        this.sql<
          { last_seq: number }[]
        >`SELECT last_seq FROM tscodex_threads WHERE id = ${id} AND NOT archived`,
    );
    if (!row) throw new StoreError(`no stored thread with id ${id}`);
    return this.writer(id, row.last_seq + 1, options);
  }

  async resolveId(idOrPrefix: string, options: { archived?: boolean } = {}): Promise<string | null> {
    const archived = options.archived ?? false;
    const rows = await this.run(
      "resolving a thread id",
      () => this.sql<{ id: string; exact: boolean; matches: number }[]>`
        SELECT id, id = ${idOrPrefix} AS exact, count(*) OVER ()::int AS matches FROM tscodex_threads
         WHERE archived = ${archived} AND id LIKE ${`${escapeLike(idOrPrefix)}%`}
         ORDER BY id = ${idOrPrefix} DESC LIMIT 1`,
    );
    const [row] = rows;
    if (!row) return null;
    if (!row.exact && row.matches > 1)
      throw new StoreError(`thread id prefix '${idOrPrefix}' is ambiguous (${row.matches} threads)`);
    return row.id;
  }

  async newestId(): Promise<string | null> {
    const [row] = await this.run(
      "finding the newest thread",
      () => this.sql<{ id: string }[]>`
        SELECT id FROM tscodex_threads WHERE NOT archived ORDER BY created DESC, id DESC LIMIT 1`,
    );
    return row?.id ?? null;
  }

  async read(id: string, options: { archived?: boolean } = {}): Promise<StoredThread | null> {
    const rows = await this.run(
      `reading thread ${id}`,
      () => this.sql<LineRow[]>`
        SELECT l.ts, l.type, l.payload FROM tscodex_thread_lines l
          JOIN tscodex_threads t ON t.id = l.thread_id
         WHERE t.id = ${id} AND t.archived = ${options.archived ?? false}
         ORDER BY l.seq`,
    );
    return rows.length === 0 ? null : this.replay(id, rows);
  }

  private replay(id: string, rows: readonly LineRow[]): StoredThread {
    const { lines, skipped } = validateLines(
      rows.map((row) => ({ timestamp: row.ts, type: row.type, payload: row.payload })),
    );
    try {
      return { ...replayRollout(`thread ${id} in ${this.location}`, lines, skipped), path: null };
    } catch (error) {
      if (error instanceof RolloutError) throw new StoreError(error.message, { cause: error });
      throw error;
    }
  }

  async readLines(id: string, options: { fromTurn?: number } = {}): Promise<RolloutLine[] | null> {
    const fromTurn = Math.max(1, Math.floor(options.fromTurn ?? 1));
    const [thread] = await this.run(
      `reading thread ${id}`,
      () => this.sql`SELECT 1 FROM tscodex_threads WHERE id = ${id} AND NOT archived`,
    );
    if (!thread) return null;
    const rows = await this.run(
      `reading thread ${id}`,
      () => this.sql<LineRow[]>`
        SELECT ts, type, payload FROM tscodex_thread_lines
         WHERE thread_id = ${id} AND seq >= ${
           fromTurn === 1
             ? this.sql`0`
             : this.sql`(SELECT coalesce(min(seq), 2147483647) FROM (${turnStarts(this.sql, id)}
                          ORDER BY seq OFFSET ${fromTurn - 1} LIMIT 1) s)`
         }
         ORDER BY seq`,
    );
    return validateLines(rows.map((row) => ({ timestamp: row.ts, type: row.type, payload: row.payload })))
      .lines;
  }

  async version(id: string): Promise<number | null> {
    const [row] = await this.run(
      `reading thread ${id}`,
      () => this.sql<{ version: number }[]>`
        SELECT version::float8 AS version FROM tscodex_threads WHERE id = ${id} AND NOT archived`,
    );
    return row?.version ?? null;
  }

  async list(query: ThreadQuery = {}): Promise<ThreadPage> {
    const sql = this.sql;
    const column = query.sort === "updated" ? sql`updated` : sql`created`;
    const after = query.cursor ? decodeCursor(query.cursor) : null;
    const limit = query.limit === undefined ? null : Math.max(1, Math.floor(query.limit));
    const threads = await this.run(
      "listing threads",
      () => sql<{ id: string; key: Date }[]>`
        SELECT id, ${column} AS key FROM tscodex_threads
         WHERE archived = ${query.archived ?? false}
           ${query.providers ? sql`AND provider = ANY(${[...query.providers]}::text[])` : sql``}
           ${query.source !== undefined ? sql`AND source = ${query.source}` : sql``}
           ${query.cwds?.length ? sql`AND meta->>'cwd' = ANY(${[...query.cwds]}::text[])` : sql``}
           ${query.ids ? sql`AND id = ANY(${[...query.ids]}::text[])` : sql``}
           ${after ? sql`AND (${column}, id) < (${new Date(after[0])}, ${after[1]})` : sql``}
         ORDER BY ${column} DESC, id DESC
         ${limit === null ? sql`` : sql`LIMIT ${limit + 1}`}`,
    );
    const page = limit === null ? [...threads] : threads.slice(0, limit);
    const last = page[page.length - 1];
    const nextCursor = last && page.length < threads.length ? encodeCursor(last.key, last.id) : null;
    if (page.length === 0) return { threads: [], nextCursor };
    // Every line of the page's threads in one query, then one replay per thread.
    const rows = await this.run(
      "listing threads",
      () => sql<(LineRow & { thread_id: string })[]>`
        SELECT thread_id, ts, type, payload FROM tscodex_thread_lines
         WHERE thread_id = ANY(${page.map((thread) => thread.id)}::text[])
         ORDER BY thread_id, seq`,
    );
    const byThread = new Map<string, LineRow[]>();
    for (const row of rows) {
      const list = byThread.get(row.thread_id) ?? [];
      list.push(row);
      byThread.set(row.thread_id, list);
    }
    const stored: StoredThread[] = [];
    for (const thread of page) {
      const lines = byThread.get(thread.id);
      if (!lines) continue; // deleted between the two queries
      try {
        stored.push(this.replay(thread.id, lines));
      } catch {
        // A thread without a valid metadata line is not one we can show (as a broken rollout).
      }
    }
    return { threads: stored, nextCursor };
  }

  async fork(id: string, options: { turns?: number; newId?: string } = {}): Promise<string> {
    const source = await this.run(
      `forking thread ${id}`,
      () => this.sql<(LineRow & { below: number | null })[]>`
        SELECT l.ts, l.type, l.payload, ${
          options.turns === undefined
            ? this.sql`NULL::int`
            : this.sql`(SELECT seq FROM (${turnStarts(this.sql, id)}
                         ORDER BY seq OFFSET ${Math.max(0, Math.floor(options.turns))} LIMIT 1) s)`
        } AS below
          FROM tscodex_thread_lines l JOIN tscodex_threads t ON t.id = l.thread_id
         WHERE t.id = ${id} AND NOT t.archived AND l.seq = 0`,
    );
    const [row] = source;
    if (!row) throw new StoreError(`no stored thread with id ${id}`);
    const [metaLine] = validateLines([{ timestamp: row.ts, type: row.type, payload: row.payload }]).lines;
    if (metaLine?.type !== "session_meta") throw new StoreError(`thread ${id} has no valid metadata line`);
    const newId = options.newId ?? uuidv7();
    const now = isoTimestamp();
    const meta: SessionMeta = {
      ...metaLine.payload,
      id: newId,
      created: now,
      forked_from: metaLine.payload.id,
    };
    const line: RolloutLine = { timestamp: now, type: "session_meta", payload: meta };
    await this.run(`forking thread ${id}`, () =>
      insertThread(this.sql, meta, line, { from: id, below: row.below }),
    );
    return newId;
  }

  async delete(id: string): Promise<boolean> {
    // Its keys first (its responses go with the row: ON DELETE CASCADE): were the delete to stop
    // half-way, no key would replay an answer from the deleted thread.
    const keys = await this.run(
      `finding the idempotency keys of thread ${id}`,
      () => this.sql<{ record: string }[]>`
        SELECT record::text AS record FROM tscodex_idempotency_keys
         WHERE record->'work'->>'threadId' = ${id} AND expires > now()`,
    );
    for (const row of keys) {
      const record = parseIdempotencyRecord(JSON.parse(row.record));
      // Only an answered key replays anything; one still running (or left by a dead process, which
      // a takeover runs again) is its request's own to settle.
      if (!record?.result) continue;
      const result = deletedAnswer(record.work?.answerId ?? id, id);
      await this.saveIdempotencyKey({ ...record, result });
    }
    const result = await this.run(
      `deleting thread ${id}`,
      () => this.sql`DELETE FROM tscodex_threads WHERE id = ${id}`,
    );
    return result.count > 0;
  }

  async archive(id: string): Promise<boolean> {
    const result = await this.run(
      `archiving thread ${id}`,
      () => this.sql`
        UPDATE tscodex_threads SET archived = true, version = version + 1 WHERE id = ${id} AND NOT archived`,
    );
    return result.count > 0;
  }

  async unarchive(id: string): Promise<boolean> {
    const result = await this.run(
      `unarchiving thread ${id}`,
      () => this.sql`
        UPDATE tscodex_threads SET archived = false, version = version + 1 WHERE id = ${id} AND archived`,
    );
    return result.count > 0;
  }

  async rollback(id: string, numTurns: number): Promise<boolean> {
    const sql = this.sql;
    const drop = Math.max(0, Math.floor(numTurns));
    // The cut is found first and then deleted from: a retry of the delete drops nothing more.
    const [row] = await this.run(
      `rolling back thread ${id}`,
      () => sql<{ cut: number | null }[]>`
        SELECT ${
          drop === 0
            ? sql`NULL::int`
            : sql`coalesce(
                (SELECT seq FROM (${turnStarts(sql, id)} ORDER BY seq DESC OFFSET ${drop - 1} LIMIT 1) s),
                (SELECT min(seq) FROM (${turnStarts(sql, id)}) s))`
        } AS cut
          FROM tscodex_threads WHERE id = ${id} AND NOT archived`,
    );
    if (!row) return false;
    // The thread's name and metadata stay: they are about the thread, not its turns.
    if (row.cut !== null) await this.dropLines(`rolling back thread ${id}`, id, row.cut, true);
    return true;
  }

  async truncate(id: string, lines: number): Promise<boolean> {
    const keep = Math.max(1, Math.floor(lines));
    const [row] = await this.run(
      `truncating thread ${id}`,
      () => this.sql<{ cut: number | null }[]>`
        SELECT (SELECT seq FROM tscodex_thread_lines WHERE thread_id = ${id}
                 ORDER BY seq OFFSET ${keep} LIMIT 1) AS cut
          FROM tscodex_threads WHERE id = ${id} AND NOT archived`,
    );
    if (!row) return false;
    if (row.cut !== null) await this.dropLines(`truncating thread ${id}`, id, row.cut, false);
    return true;
  }

  /**
   * Delete thread `id`'s lines from seq `cut` on (but its annotations when `keepAnnotations`).
   * `last_seq` stays: later lines are numbered after every seq ever written.
   */
  private async dropLines(what: string, id: string, cut: number, keepAnnotations: boolean): Promise<void> {
    await this.run(what, () =>
      this.sql.begin(async (tx) => {
        const gone = await tx`
          DELETE FROM tscodex_thread_lines
           WHERE thread_id = ${id} AND seq >= ${cut}
             ${keepAnnotations ? tx`AND coalesce(event, '') <> ALL(${THREAD_ANNOTATIONS as string[]})` : tx``}`;
        if (gone.count === 0) return;
        await tx`
          UPDATE tscodex_threads t
             SET version = version + 1, updated = l.ts::timestamptz
            FROM (SELECT ts FROM tscodex_thread_lines WHERE thread_id = ${id} ORDER BY seq DESC LIMIT 1) l
           WHERE t.id = ${id}`;
      }),
    );
  }

  async indexParkedCalls(threadId: string, callIds: readonly string[], responseId?: string): Promise<void> {
    if (callIds.length === 0) return;
    const response = responseId ?? null;
    await this.run(
      `indexing the parked calls of thread ${threadId}`,
      () => this.sql`
        INSERT INTO tscodex_parked_calls (call_id, thread_id, response_id)
        SELECT call_id, ${threadId}, ${response} FROM unnest(${[...callIds]}::text[]) AS call_id
        ON CONFLICT (call_id) DO UPDATE
          SET thread_id = excluded.thread_id, response_id = excluded.response_id, created = now()`,
    );
  }

  async responseOfCall(callId: string): Promise<string | null> {
    const [row] = await this.run(
      "finding a parked call",
      () => this.sql<{ response_id: string | null }[]>`
        SELECT response_id FROM tscodex_parked_calls WHERE call_id = ${callId}`,
    );
    return row?.response_id ?? null;
  }

  async saveResponse(record: ResponseRecord): Promise<void> {
    await this.run(
      `storing response ${record.id}`,
      () => this.sql`
        INSERT INTO tscodex_responses (id, thread_id, record)
        VALUES (${record.id}, ${record.threadId}, (${JSON.stringify(record)}::text)::json)
        ON CONFLICT (id) DO UPDATE SET record = excluded.record
          WHERE tscodex_responses.record->>'deleted' IS NULL`,
    );
  }

  async claimIdempotencyKey(record: IdempotencyRecord): Promise<IdempotencyRecord | null> {
    const text = JSON.stringify(record);
    const expires = new Date(record.expires);
    const [row] = await this.run(
      `claiming idempotency key ${record.key}`,
      () => this.sql<{ claimed: boolean; record: string }[]>`
        WITH claimed AS (
          INSERT INTO tscodex_idempotency_keys (key, expires, record)
          VALUES (${record.key}, ${expires}, (${text}::text)::json)
          ON CONFLICT (key) DO UPDATE SET expires = excluded.expires, record = excluded.record
            WHERE tscodex_idempotency_keys.expires <= now()
          RETURNING true AS claimed, record::text AS record
        )
        SELECT claimed, record FROM claimed
        UNION ALL
        SELECT false, record::text FROM tscodex_idempotency_keys
         WHERE key = ${record.key} AND NOT EXISTS (SELECT 1 FROM claimed)`,
    );
    if (!row || row.claimed) return null;
    return parseIdempotencyRecord(JSON.parse(row.record));
  }

  async saveIdempotencyKey(record: IdempotencyRecord): Promise<void> {
    const text = JSON.stringify(record);
    const expires = new Date(record.expires);
    await this.run(
      `storing idempotency key ${record.key}`,
      () => this.sql`
        INSERT INTO tscodex_idempotency_keys (key, expires, record)
        VALUES (${record.key}, ${expires}, (${text}::text)::json)
        ON CONFLICT (key) DO UPDATE SET expires = excluded.expires, record = excluded.record`,
    );
  }

  async dropIdempotencyKey(key: string): Promise<void> {
    await this.run(
      `dropping idempotency key ${key}`,
      () => this.sql`DELETE FROM tscodex_idempotency_keys WHERE key = ${key}`,
    );
  }

  async idempotencyKeysAnswering(answerId: string): Promise<IdempotencyRecord[]> {
    const rows = await this.run(
      `finding the idempotency key of ${answerId}`,
      () => this.sql<{ record: string }[]>`
        SELECT record::text AS record FROM tscodex_idempotency_keys
         WHERE record->'work'->>'answerId' = ${answerId} AND expires > now()`,
    );
    return rows.flatMap((row) => parseIdempotencyRecord(JSON.parse(row.record)) ?? []);
  }

  async pruneIdempotencyKeys(now: number): Promise<number> {
    const rows = await this.run(
      "pruning expired idempotency keys",
      () => this.sql`DELETE FROM tscodex_idempotency_keys WHERE expires <= ${new Date(now)} RETURNING key`,
    );
    return rows.length;
  }

  async pruneParkedCalls(before: number): Promise<number> {
    const rows = await this.run(
      "pruning old parked calls",
      () => this.sql`DELETE FROM tscodex_parked_calls WHERE created < ${new Date(before)} RETURNING call_id`,
    );
    return rows.length;
  }

  async deleteResponse(id: string): Promise<boolean> {
    const rows = await this.run(
      `deleting response ${id}`,
      // Its row stays as a tombstone (until its thread goes), which saveResponse does not replace:
      // the check and the write are one statement, so no save racing the delete brings it back.
      () => this.sql`
        UPDATE tscodex_responses SET record = (${DELETED_RESPONSE}::text)::json
         WHERE id = ${id} AND record->>'deleted' IS NULL RETURNING id`,
    );
    return rows.length > 0;
  }

  async readResponse(id: string): Promise<ResponseRecord | null> {
    const [row] = await this.run(
      `reading response ${id}`,
      () =>
        this.sql<{ record: string }[]>`SELECT record::text AS record FROM tscodex_responses WHERE id = ${id}`,
    );
    return row ? parseResponseRecord(JSON.parse(row.record)) : null;
  }

  async threadOfCall(callId: string): Promise<string | null> {
    const [row] = await this.run(
      "finding a parked call",
      () => this.sql<{ thread_id: string }[]>`
        SELECT thread_id FROM tscodex_parked_calls WHERE call_id = ${callId}`,
    );
    return row?.thread_id ?? null;
  }

  async close(): Promise<void> {
    await this.leases.close();
    await this.sql.end({ timeout: 5 });
  }
}

/** The seqs of thread `id`'s turn_started lines (a subquery). */
function turnStarts(sql: Sql, id: string) {
  return sql`SELECT seq FROM tscodex_thread_lines WHERE thread_id = ${id} AND event = 'turn_started'`;
}

function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (char) => `\\${char}`);
}

function encodeCursor(key: Date, id: string): string {
  return Buffer.from(JSON.stringify([key.getTime(), id])).toString("base64url");
}

function decodeCursor(cursor: string): [number, string] {
  try {
    return cursorSchema.parse(JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")));
  } catch {
    throw new StoreError(`invalid thread list cursor: ${cursor}`);
  }
}
