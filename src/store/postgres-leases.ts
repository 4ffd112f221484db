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
 *   dropped every lock it held. Each held lease is then `reconnecting`: on a new connection its
 *   lock is taken again, tried every RETAKE_PAUSE_MS for up to `retakeMs` (5 s by default), so a
 *   turn rides out a database restart. A lease whose lock another process took meanwhile, or that
 *   could not be taken again in time, is `lost`: `onLost` is called with its thread id, and
 *   releasing it is a no-op. (Another process may have held the thread in the gap and given it
 *   back; the writer's sequence check refuses lines after such a holder's, so a re-taken lease
 *   never interleaves two histories.) A lease query without an answer in time
 *   (`attemptTimeoutMs`) drops the connection on purpose, with the same outcome.
 * - A holder cut off by the network: the lease connection asks the server for TCP keepalives
 *   (30 s idle, 3 probes 10 s apart), so the server ends its session, and frees its locks,
 *   about a minute after the holder went silent.
 */
import { hostname } from "node:os";
import type { Sql } from "postgres";
import { isoTimestamp } from "../util/iso-time.js";
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
/** How long the leases of a dropped connection are tried again before they count as lost, by default. */
export const LEASE_RETAKE_MS = 5_000;
/** The pause between two tries to take a dropped lease again. */
const RETAKE_PAUSE_MS = 250;
/** A try to take a dropped lease again without an answer after this long is given up (the connection with it). */
const RETAKE_TRY_MS = 2_000;

/** Opens the single-connection client leases use; `onClose` fires whenever that connection ends. */
export type LeaseClientFactory = (onClose: () => void) => Sql;

export class PostgresLease implements ThreadLease {
  private state: "held" | "reconnecting" | "released" | "lost" = "held";
  /** Settles while `reconnecting`: true once the lock is taken again, false when it is not. */
  private retaking: Promise<boolean> | null = null;
  private settle: ((held: boolean) => void) | null = null;

  constructor(
    readonly threadId: string,
    private readonly owner: PostgresThreadLeases,
  ) {}

  /** The lease connection dropped and the lock could not be taken again: another process may have the thread now. */
  get lost(): boolean {
    return this.state === "lost";
  }

  /** Whether the lease is held, waiting while its lock is being taken again on a new connection. */
  held(): Promise<boolean> {
    if (this.state === "reconnecting" && this.retaking) return this.retaking;
    return Promise.resolve(this.state === "held");
  }

  /** Its connection dropped: being taken again. False when it was not held. */
  markReconnecting(): boolean {
    if (this.state !== "held") return false;
    this.state = "reconnecting";
    this.retaking = new Promise((resolve) => {
      this.settle = resolve;
    });
    return true;
  }

  /** Its lock is held again; false when it was released meanwhile (the lock must then go). */
  markRetaken(): boolean {
    if (this.state !== "reconnecting") return false;
    this.state = "held";
    this.settled(true);
    return true;
  }

  markLost(): void {
    if (this.state !== "held" && this.state !== "reconnecting") return;
    this.state = "lost";
    this.settled(false);
  }

  /** Still waiting to be taken again. */
  get reconnecting(): boolean {
    return this.state === "reconnecting";
  }

  private settled(held: boolean): void {
    this.settle?.(held);
    this.settle = null;
    this.retaking = null;
  }

  async release(): Promise<void> {
    if (this.state !== "held" && this.state !== "reconnecting") return;
    // Its lock went with the dropped connection: nothing to unlock (a re-take under way lets go of it).
    const lockHeld = this.state === "held";
    this.state = "released";
    this.settled(false);
    await this.owner.unlock(this, lockHeld);
  }
}

export class PostgresThreadLeases implements ThreadLeases {
  private client: Sql | null = null;
  /** This store's leases, and acquires under way ("pending"), by thread id. */
  private readonly mine = new Map<string, PostgresLease | "pending">();
  private readonly waiters = new Map<string, Set<() => void>>();
  private listening: Promise<void> | null = null;
  private closed = false;
  /** Shutting down: a dropped lease is lost at once, not taken again. */
  private retakeAllowed = true;

  private readonly pollMs: number;
  private readonly retakeMs: number;
  private readonly lostListeners = new Set<(threadIds: string[]) => void>();

  constructor(
    private readonly db: Db,
    private readonly openClient: LeaseClientFactory,
    options: { pollMs?: number; retakeMs?: number; onLost?: (threadIds: string[]) => void } = {},
  ) {
    this.pollMs = options.pollMs ?? LEASE_POLL_MS;
    this.retakeMs = options.retakeMs ?? LEASE_RETAKE_MS;
    if (options.onLost) this.lostListeners.add(options.onLost);
  }

  /**
   * Whether this store holds thread `threadId`'s lease, waiting while it is being taken again
   * after its connection dropped (a writer rides out a database restart on this).
   */
  holds(threadId: string): Promise<boolean> {
    const lease = this.mine.get(threadId);
    return lease instanceof PostgresLease ? lease.held() : Promise.resolve(false);
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
      const since = isoTimestamp();
      // Tries are bounded here rather than by withRetries: a try that times out must drop the connection.
      // Nor abandoned when the store recovers: a lock taken by an abandoned try would be nobody's.
      const db = { sql: this.db.sql, retry: { ...this.db.retry, attemptTimeoutMs: 0 } };
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
  private async onConnection<T>(
    use: (sql: Sql) => Promise<T>,
    timeoutMs = this.db.retry.attemptTimeoutMs,
  ): Promise<T> {
    const sql = this.connection();
    try {
      return await bounded(use(sql), timeoutMs);
    } catch (error) {
      if (isTimeout(error)) this.dropConnection(sql);
      throw error;
    }
  }

  /** Give `lease` back (its owner calls this once). Never throws: a failed unlock means the connection, and the lock with it, is gone. */
  async unlock(lease: PostgresLease, lockHeld = true): Promise<void> {
    try {
      if (lockHeld && this.client && this.mine.get(lease.threadId) === lease)
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
    // Leases already being taken again are left to the loop doing it.
    const dropped = [...this.mine.values()].filter(
      (lease): lease is PostgresLease => lease !== "pending" && lease.markReconnecting(),
    );
    if (dropped.length === 0) return;
    if (this.retakeAllowed) void this.retake(dropped);
    else this.lose(dropped);
  }

  /** From now on a dropped lease is lost at once; those being taken again now are lost. */
  stopRetaking(): void {
    this.retakeAllowed = false;
    this.lose([...this.mine.values()].filter((lease): lease is PostgresLease => lease !== "pending"));
  }

  /** Take the locks of `leases` again on a new connection, within `retakeMs`; the others are lost. */
  private async retake(leases: PostgresLease[]): Promise<void> {
    const deadline = Date.now() + this.retakeMs;
    let left = leases;
    while (left.length > 0) {
      const again: PostgresLease[] = [];
      const taken: PostgresLease[] = [];
      for (const lease of left) {
        if (!lease.reconnecting) continue; // released meanwhile
        if (this.closed || !this.retakeAllowed) {
          taken.push(lease);
          continue;
        }
        const sql = this.connection();
        try {
          const holder = await this.onConnection(
            () => this.lock(sql, lease.threadId, isoTimestamp()),
            RETAKE_TRY_MS,
          );
          this.db.recovery?.recovered();
          if (holder) taken.push(lease);
          else if (!lease.markRetaken()) await this.unlockTaken(lease.threadId);
        } catch (error) {
          // A fresh client for the next try: the driver, reconnecting under a query sent while the
          // server was starting up, may never answer it.
          if (isTransient(error)) this.dropConnection(sql);
          again.push(lease);
        }
      }
      this.lose(taken);
      left = again;
      if (left.length === 0) return;
      if (Date.now() >= deadline) return this.lose(left);
      await new Promise((resolve) => setTimeout(resolve, RETAKE_PAUSE_MS));
    }
  }

  /** A lock taken again for a lease released meanwhile: let it go. */
  private async unlockTaken(threadId: string): Promise<void> {
    await this.onConnection((sql) => sql`SELECT pg_advisory_unlock(hashtextextended(${threadId}, 0))`).catch(
      () => {},
    );
  }

  /** These leases are gone for good: tell the listeners (another process may run their threads). */
  private lose(leases: PostgresLease[]): void {
    const lost: string[] = [];
    for (const lease of leases) {
      if (!lease.reconnecting) continue;
      lease.markLost();
      if (this.mine.get(lease.threadId) === lease) this.mine.delete(lease.threadId);
      lost.push(lease.threadId);
      this.wake(lease.threadId);
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
