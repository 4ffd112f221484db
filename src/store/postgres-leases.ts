/**
 * Thread leases on PostgreSQL: a session-level advisory lock per thread
 * (`pg_try_advisory_lock(hashtextextended(id, 0))`), all taken on ONE dedicated connection per
 * store, so a process costs one connection however many threads it holds, and a holder that dies
 * (kill -9, a lost machine) loses its locks with its connection: nobody stays blocked.
 *
 * - A row in `tscodex_leases` names the holder (pid, host, since) for the busy message.
 * - Advisory locks are re-entrant within a session, so this process's own leases are tracked
 *   here too: a second acquire of a thread this store holds is busy ("this process").
 * - Release: unlock, delete the row, NOTIFY `tscodex_lease_released` with the thread id.
 *   A waiting `acquire` (waitMs) LISTENs and tries again on that notification, and at least
 *   every `pollMs` (200 by default: a killed holder sends no notification).
 * - The lease connection lost (server restart, network, pg_terminate_backend): the server has
 *   dropped every lock it held, so every lease of this store is lost. They are marked `lost`,
 *   `onLost` is called with their thread ids, and releasing them is a no-op. The next acquire
 *   opens a new connection. A lease query without an answer in time (`attemptTimeoutMs`) drops
 *   the connection on purpose, with the same outcome: a lock we cannot account for is never kept.
 * - A holder cut off by the network: the lease connection asks the server for TCP keepalives
 *   (30 s idle, 3 probes 10 s apart), so the server ends its session, and frees its locks,
 *   about a minute after the holder went silent.
 */
import { hostname } from "node:os";
import type { Sql } from "postgres";
import { bounded, type Db, isTimeout, isTransient, withRetries } from "./postgres-writer.js";
import {
  type AcquireOptions,
  type LeaseHolder,
  ThreadBusyError,
  type ThreadLease,
  type ThreadLeases,
} from "./thread-lock.js";

/** NOTIFY channel of released leases (payload: the thread id). */
export const LEASE_CHANNEL = "tscodex_lease_released";
/** The longest a waiting acquire goes without looking again, by default. */
const LEASE_POLL_MS = 200;

/** Opens the single-connection client leases use; `onClose` fires whenever that connection ends. */
export type LeaseClientFactory = (onClose: () => void) => Sql;

export class PostgresLease implements ThreadLease {
  private state: "held" | "released" | "lost" = "held";

  constructor(
    readonly threadId: string,
    private readonly owner: PostgresThreadLeases,
  ) {}

  /** The lease connection dropped while this lease was held: another process may have the thread now. */
  get lost(): boolean {
    return this.state === "lost";
  }

  markLost(): void {
    if (this.state === "held") this.state = "lost";
  }

  async release(): Promise<void> {
    if (this.state !== "held") return;
    this.state = "released";
    await this.owner.unlock(this);
  }
}

export class PostgresThreadLeases implements ThreadLeases {
  private client: Sql | null = null;
  /** This store's leases, and acquires under way ("pending"), by thread id. */
  private readonly mine = new Map<string, PostgresLease | "pending">();
  private readonly waiters = new Map<string, Set<() => void>>();
  private listening: Promise<void> | null = null;
  private closed = false;

  private readonly pollMs: number;
  private readonly lostListeners = new Set<(threadIds: string[]) => void>();

  constructor(
    private readonly db: Db,
    private readonly openClient: LeaseClientFactory,
    options: { pollMs?: number; onLost?: (threadIds: string[]) => void } = {},
  ) {
    this.pollMs = options.pollMs ?? LEASE_POLL_MS;
    if (options.onLost) this.lostListeners.add(options.onLost);
  }

  watchLost(listener: (threadIds: string[]) => void): () => void {
    this.lostListeners.add(listener);
    return () => this.lostListeners.delete(listener);
  }

  async acquire(threadId: string, options: AcquireOptions = {}): Promise<ThreadLease> {
    const deadline = Date.now() + (options.waitMs ?? 0);
    if ((options.waitMs ?? 0) > 0) await this.listen();
    for (;;) {
      const result = await this.tryAcquire(threadId);
      if (result instanceof PostgresLease) return result;
      const remaining = deadline - Date.now();
      if (remaining <= 0) throw new ThreadBusyError(threadId, result);
      await this.released(threadId, Math.min(remaining, this.pollMs));
    }
  }

  /** The lease, or who holds the thread. */
  private async tryAcquire(threadId: string): Promise<PostgresLease | LeaseHolder> {
    if (this.closed) throw new Error("the thread store is closed");
    if (this.mine.has(threadId)) return { pid: process.pid, host: hostname(), start: null, since: "now" };
    this.mine.set(threadId, "pending");
    let lease: PostgresLease | null = null;
    try {
      const since = new Date().toISOString();
      // Tries are bounded here rather than by withRetries: a try that times out must drop the connection.
      const db = { ...this.db, retry: { ...this.db.retry, attemptTimeoutMs: 0 } };
      const holder = await withRetries(db, `taking the lease of thread ${threadId}`, () =>
        this.onConnection((sql) => this.lock(sql, threadId, since)),
      );
      if (holder) return holder;
      lease = new PostgresLease(threadId, this);
      return lease;
    } finally {
      if (lease) this.mine.set(threadId, lease);
      else this.mine.delete(threadId);
    }
  }

  /** Take the lock and record us as its holder (null), or say who holds it: one round trip. */
  private async lock(sql: Sql, threadId: string, since: string): Promise<LeaseHolder | null> {
    try {
      const [row] = await sql<
        { locked: boolean; pid: number | null; host: string | null; since: string | null }[]
      >`
        WITH l AS (SELECT pg_try_advisory_lock(hashtextextended(${threadId}, 0)) AS locked),
        mine AS (
          INSERT INTO tscodex_leases (thread_id, pid, host, since, backend)
          SELECT ${threadId}, ${process.pid}, ${hostname()}, ${since}, pg_backend_pid() FROM l WHERE l.locked
          ON CONFLICT (thread_id) DO UPDATE
            SET pid = excluded.pid, host = excluded.host, since = excluded.since, backend = excluded.backend
        )
        SELECT l.locked, h.pid, h.host, h.since
          FROM l LEFT JOIN tscodex_leases h ON NOT l.locked AND h.thread_id = ${threadId}`;
      if (row?.locked) return null;
      return row?.pid != null && row.host !== null && row.since !== null
        ? { pid: row.pid, host: row.host, start: null, since: row.since }
        : { pid: 0, host: "an unknown host", start: null, since: "unknown" };
    } catch (error) {
      // A session-level advisory lock outlives the failed statement that took it: a lost
      // connection took it along; otherwise let go of it before failing.
      if (!isTransient(error) && !isTimeout(error))
        await sql`SELECT pg_advisory_unlock(hashtextextended(${threadId}, 0))`.catch(() => {});
      throw error;
    }
  }

  /** Run `use` on the lease connection within the try timeout; a try that times out drops the connection. */
  private async onConnection<T>(use: (sql: Sql) => Promise<T>): Promise<T> {
    const sql = this.connection();
    try {
      return await bounded(use(sql), this.db.retry.attemptTimeoutMs);
    } catch (error) {
      if (isTimeout(error)) this.dropConnection(sql);
      throw error;
    }
  }

  /** Give `lease` back (its owner calls this once). Never throws: a failed unlock means the connection, and the lock with it, is gone. */
  async unlock(lease: PostgresLease): Promise<void> {
    try {
      if (this.client && this.mine.get(lease.threadId) === lease)
        await this.onConnection(
          (sql) => sql`
            WITH gone AS (
              DELETE FROM tscodex_leases WHERE thread_id = ${lease.threadId} AND backend = pg_backend_pid()
            )
            SELECT pg_advisory_unlock(hashtextextended(${lease.threadId}, 0)),
                   pg_notify(${LEASE_CHANNEL}, ${lease.threadId})`,
        );
    } catch {
      // The connection is gone, and the server dropped the lock with it.
    } finally {
      if (this.mine.get(lease.threadId) === lease) this.mine.delete(lease.threadId);
      this.wake(lease.threadId);
    }
  }

  /** Resolves when thread `threadId` may be free: a release was announced, or `ms` passed. */
  private released(threadId: string, ms: number): Promise<void> {
    return new Promise((resolve) => {
      const set = this.waiters.get(threadId) ?? new Set<() => void>();
      this.waiters.set(threadId, set);
      const done = () => {
        clearTimeout(timer);
        set.delete(done);
        if (set.size === 0 && this.waiters.get(threadId) === set) this.waiters.delete(threadId);
        resolve();
      };
      const timer = setTimeout(done, ms);
      set.add(done);
    });
  }

  private wake(threadId: string): void {
    for (const done of [...(this.waiters.get(threadId) ?? [])]) done();
  }

  /** LISTEN once per store; without it, waiting still works by polling. */
  private async listen(): Promise<void> {
    this.listening ??= this.connection()
      .listen(LEASE_CHANNEL, (threadId) => this.wake(threadId))
      .then(
        () => {},
        () => {
          this.listening = null;
        },
      );
    await this.listening;
  }

  private connection(): Sql {
    if (this.client) return this.client;
    const client = this.openClient(() => {
      if (this.client === client) this.connectionClosed();
    });
    this.client = client;
    return client;
  }

  /** Stop using `sql` (unresponsive): its leases count as lost; the next acquire connects anew. */
  private dropConnection(sql: Sql): void {
    if (this.client !== sql) return;
    this.client = null;
    this.listening = null;
    this.connectionClosed();
    sql.end({ timeout: 0 }).catch(() => {});
  }

  private connectionClosed(): void {
    if (this.closed) return;
    const lost: string[] = [];
    for (const [threadId, lease] of this.mine) {
      if (lease === "pending") continue;
      lease.markLost();
      this.mine.delete(threadId);
      lost.push(threadId);
      this.wake(threadId);
    }
    if (lost.length > 0) for (const listener of this.lostListeners) listener(lost);
  }

  /** Release every lease (announcing it) and close the lease connection. */
  async close(): Promise<void> {
    if (this.closed) return;
    await Promise.all(
      [...this.mine.values()].map((lease) => (lease === "pending" ? undefined : lease.release())),
    );
    this.closed = true;
    for (const threadId of [...this.waiters.keys()]) this.wake(threadId);
    await this.client?.end({ timeout: 1 });
  }
}
