/**
 * The PostgreSQL thread store on a real, throwaway cluster: the shared ThreadStore contract, then
 * what only a database store has: idempotent retried batches, outages (backends terminated, the
 * server stopped) with bounded retries and no stored line lost, the lease connection lost,
 * concurrent schema migrations.
 */
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openPostgresStore, type PostgresStoreOptions } from "../../src/store/postgres-store.js";
import { appendBatch } from "../../src/store/postgres-writer.js";
import type { RolloutLine } from "../../src/store/rollout.js";
import { ThreadBusyError } from "../../src/store/thread-lock.js";
import { StoreError, type ThreadStore } from "../../src/store/thread-store.js";
import { noPostgres, type PostgresCluster, startPostgres } from "../support/postgres.js";
import { waitFor } from "../support/processes.js";
import {
  describeThreadStoreContract,
  metaOf,
  storeThread,
  threadId,
  turnEvents,
} from "../support/thread-store-contract.js";

const skip = noPostgres("the PostgreSQL thread store tests");

describe.skipIf(skip)("PostgreSQL thread store", () => {
  let cluster: PostgresCluster;
  const open: ThreadStore[] = [];

  beforeAll(async () => {
    cluster = await startPostgres();
  });
  afterAll(async () => {
    await Promise.all(open.map((store) => store.close()));
    await cluster?.stop();
  });

  async function newStore(options: PostgresStoreOptions = {}, url?: string) {
    const target = url ?? (await cluster.createDatabase());
    const store = await openPostgresStore(target, options);
    open.push(store);
    return { store, url: target };
  }

  describeThreadStoreContract("postgres", async () => {
    const { store, url } = await newStore();
    return {
      store,
      address: { kind: "postgres", target: url },
      cleanup: async () => {
        open.splice(open.indexOf(store), 1);
        await store.close();
      },
    };
  });

  it("keeps a retried batch once, and refuses a different line under a stored seq", async () => {
    const { store, url } = await newStore();
    const id = threadId(1);
    await storeThread(store, metaOf(id), 0);
    const sql = postgres(url, { max: 1, onnotice: () => {} });
    try {
      const lines: RolloutLine[] = turnEvents(1)
        .filter((event) => event.type === "raw_response_item")
        .map((event, i) => ({
          timestamp: `2026-03-01T00:00:0${i}.000Z`,
          type: "response_item",
          payload: event.item,
        }));
      const versionBefore = await store.version(id);
      await appendBatch(sql, id, 1, lines);
      await appendBatch(sql, id, 1, lines); // the same batch again: a retry after a lost COMMIT reply
      const [count] = await sql<{ n: number }[]>`
        SELECT count(*)::int AS n FROM tscodex_thread_lines WHERE thread_id = ${id}`;
      expect(count?.n).toBe(1 + lines.length);
      expect(await store.version(id)).toBe((versionBefore as number) + 1);
      expect((await store.read(id))?.lines.slice(1)).toEqual(lines);
      const other = { ...lines[0], timestamp: "2026-03-02T00:00:00.000Z" } as RolloutLine;
      await expect(appendBatch(sql, id, 1, [other])).rejects.toThrow(/another writer/);
    } finally {
      await sql.end();
    }
  });

  it("refuses the lines of a writer that appended without the lease", async () => {
    const { store } = await newStore();
    const id = threadId(2);
    await storeThread(store, metaOf(id), 1);
    const first = await store.append(id);
    const second = await store.append(id);
    for (const event of turnEvents(2)) first.recordEvent(event);
    await first.close();
    for (const event of turnEvents(3, "interleaved")) second.recordEvent(event);
    await expect(second.flush()).rejects.toThrow(/another writer/);
    await second.close().catch(() => {});
    expect((await store.read(id))?.turns).toBe(2);
  });

  it("fails a writer whose thread was deleted under it", async () => {
    const { store } = await newStore();
    const id = threadId(6);
    await storeThread(store, metaOf(id), 1);
    const writer = await store.append(id);
    expect(await store.delete(id)).toBe(true);
    for (const event of turnEvents(2)) writer.recordEvent(event);
    await expect(writer.flush()).rejects.toThrow(/no longer stored/);
    await expect(store.append(id)).rejects.toThrow(/no stored thread/);
  });

  it("rides out terminated connections: the batch is retried and stored once", async () => {
    const { store, url } = await newStore({ retry: { attempts: 3, backoffMs: 50 } });
    const id = threadId(3);
    await storeThread(store, metaOf(id), 1);
    const writer = await store.append(id);
    const db = new URL(url).pathname.slice(1);
    cluster.psql(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${db}' AND pid <> pg_backend_pid()`,
    );
    for (const event of turnEvents(2)) writer.recordEvent(event);
    await writer.flush();
    await writer.close();
    const stored = await store.read(id);
    expect(stored?.turns).toBe(2);
    expect(stored?.lines).toHaveLength(1 + 2 * turnEvents(1).length);
  });

  it("database down mid-write: bounded retries, a clear error, and no line reported stored is lost", async () => {
    const { store, url } = await newStore({
      retry: { attempts: 3, backoffMs: 100 },
      connectTimeoutSeconds: 2,
    });
    const id = threadId(4);
    await storeThread(store, metaOf(id), 1);
    const failures: Error[] = [];
    const writer = await store.append(id, { onFailure: (error) => failures.push(error) });
    for (const event of turnEvents(2)) writer.recordEvent(event);
    await writer.flush(); // reported stored
    await cluster.stopServer();
    try {
      for (const event of turnEvents(3)) writer.recordEvent(event);
      const started = performance.now();
      const error = await writer.flush().catch((e: unknown) => e);
      const elapsed = performance.now() - started;
      expect(error).toBeInstanceOf(StoreError);
      expect((error as Error).message).toMatch(/^thread store unavailable: .* failed after 3 tries/);
      expect(elapsed).toBeGreaterThanOrEqual(300); // 100 + 200 ms of backoff
      expect(elapsed).toBeLessThan(8_000);
      expect(failures).toEqual([error]);
      // The thread stays usable in memory: later lines are not stored after a failed batch.
      for (const event of turnEvents(4)) writer.recordEvent(event);
      await expect(writer.close()).rejects.toBe(error);
      expect(failures).toHaveLength(1);
    } finally {
      await cluster.startServer();
    }
    const reopened = await newStore({}, url);
    const stored = await reopened.store.read(id);
    expect(stored?.turns).toBe(2);
    expect(stored?.lines).toHaveLength(1 + 2 * turnEvents(1).length);
    // The first store reconnects on its own once the server is back.
    const next = await store.append(id);
    for (const event of turnEvents(5)) next.recordEvent(event);
    await next.close();
    expect((await reopened.store.read(id))?.turns).toBe(3);
  });

  it("wakes a process waiting for a lease when another process releases it (NOTIFY)", async () => {
    const { store, url } = await newStore();
    // Polling every 60 s: only the notification can wake the waiter in time.
    const waiter = await newStore({ leasePollMs: 60_000 }, url);
    const id = threadId(7);
    const lease = await store.leases.acquire(id);
    // A first wait that runs out sets up the waiter's LISTEN, so the next one is busy at once.
    await expect(waiter.store.leases.acquire(id, { waitMs: 50 })).rejects.toBeInstanceOf(ThreadBusyError);
    const waiting = waiter.store.leases.acquire(id, { waitMs: 20_000 });
    await new Promise((resolve) => setTimeout(resolve, 200));
    const released = performance.now();
    await lease.release();
    const next = await waiting;
    expect(performance.now() - released).toBeLessThan(5_000);
    await next.release();
  });

  it("gives up on a try that gets no answer in time; the batch is stored at most once", async () => {
    const { store, url } = await newStore({ retry: { attempts: 2, backoffMs: 50, attemptTimeoutMs: 300 } });
    const id = threadId(8);
    await storeThread(store, metaOf(id), 1);
    const writer = await store.append(id);
    const blocker = postgres(url, { max: 1, onnotice: () => {} });
    const db = await blocker.reserve();
    try {
      // A table lock held elsewhere: the writer's statements wait, as on a hung server.
      await db`BEGIN`;
      await db`LOCK TABLE tscodex_thread_lines IN ACCESS EXCLUSIVE MODE`;
      for (const event of turnEvents(2)) writer.recordEvent(event);
      const started = performance.now();
      const error = await writer.flush().catch((e: unknown) => e);
      expect((error as Error).message).toMatch(
        /^thread store unavailable: .*no answer from the database in 300 ms/,
      );
      expect(performance.now() - started).toBeLessThan(3_000);
      await db`COMMIT`;
    } finally {
      db.release();
      await blocker.end();
    }
    // Both tries were still queued on the server: one stores the batch, the other finds it there.
    const full = 1 + 2 * turnEvents(1).length;
    await waitFor(async () => (await store.read(id))?.lines.length === full);
    expect((await store.read(id))?.turns).toBe(2);
  });

  it("drops a lease connection that gets no answer, and the lock with it", async () => {
    const { store, url } = await newStore({ retry: { attempts: 2, backoffMs: 50, attemptTimeoutMs: 300 } });
    const other = await newStore({}, url);
    const id = threadId(9);
    const blocker = postgres(url, { max: 1, onnotice: () => {} });
    const db = await blocker.reserve();
    try {
      await db`BEGIN`;
      await db`LOCK TABLE tscodex_leases IN ACCESS EXCLUSIVE MODE`;
      await expect(store.leases.acquire(id)).rejects.toThrow(/thread store unavailable.*no answer/);
      await db`COMMIT`;
    } finally {
      db.release();
      await blocker.end();
    }
    // The advisory lock the timed-out try took went with its connection.
    const lease = await other.store.leases.acquire(id, { waitMs: 5_000 });
    await lease.release();
    const again = await store.leases.acquire(id, { waitMs: 5_000 });
    await again.release();
  });

  /** Ends the lease connections of `url`'s database (the advisory locks go with them). */
  function dropLeaseConnections(url: string): void {
    const db = new URL(url).pathname.slice(1);
    cluster.psql(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${db}' AND application_name = 'tscodex leases' AND pid <> pg_backend_pid()`,
    );
  }

  /** The backend holding thread `id`'s lease row, as the lease table records it. */
  function leaseBackend(url: string, id: string): string {
    return cluster.psql(
      `SELECT backend FROM tscodex_leases WHERE thread_id = '${id}'`,
      new URL(url).pathname.slice(1),
    );
  }

  it("reports leases lost with their connection when another process took the thread", async () => {
    const lost: string[][] = [];
    const { store, url } = await newStore({ onLeasesLost: (ids) => lost.push(ids) });
    const other = await newStore({}, url);
    const id = threadId(5);
    const lease = await store.leases.acquire(id);
    const busy = await other.store.leases.acquire(id).catch((error: unknown) => error);
    expect(busy).toBeInstanceOf(ThreadBusyError);
    expect((busy as Error).message).toContain("in use by this process");
    // Another session queues for the thread's lock: the server hands it over the moment ours ends.
    const rival = postgres(url, { max: 1, onnotice: () => {} });
    try {
      const [queued] = await rival<{ key: string }[]>`SELECT hashtextextended(${id}, 0)::text AS key`;
      const waiting = rival`SELECT pg_advisory_lock(${queued?.key ?? ""}::bigint)`.execute();
      await waitFor(
        () =>
          cluster.psql("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted").trim() !==
          "0",
      );
      dropLeaseConnections(url);
      await waiting;
      await waitFor(() => lost.length > 0, 15_000);
      expect(lost).toEqual([[id]]);
      expect((lease as { lost?: boolean }).lost).toBe(true);
    } finally {
      await rival.end();
    }
    const taken = await other.store.leases.acquire(id, { waitMs: 5_000 });
    await lease.release(); // a no-op: it must not free the new holder's lease
    await expect(store.leases.acquire(id)).rejects.toBeInstanceOf(ThreadBusyError);
    await taken.release();
    // The first store's leases work again on a new connection.
    const again = await store.leases.acquire(id, { waitMs: 5_000 });
    await again.release();
  });

  it("takes its leases again after their connection dropped, and its writer rides out a restart", async () => {
    const lost: string[][] = [];
    const { store, url } = await newStore({
      onLeasesLost: (ids) => lost.push(ids),
      retry: { attempts: 2, backoffMs: 100 },
      connectTimeoutSeconds: 2,
    });
    const other = await newStore({}, url);
    const id = threadId(10);
    await storeThread(store, metaOf(id), 1);
    const lease = await store.leases.acquire(id);
    const writer = await store.append(id);
    const before = leaseBackend(url, id);
    dropLeaseConnections(url);
    await waitFor(() => {
      const now = leaseBackend(url, id);
      return now !== "" && now !== before;
    });
    expect(lost).toEqual([]);
    expect((lease as { lost?: boolean }).lost).toBe(false);
    await expect(other.store.leases.acquire(id)).rejects.toBeInstanceOf(ThreadBusyError);

    // The whole server restarts while lines are being written: the batch waits for the lease.
    await cluster.stopServer();
    for (const event of turnEvents(2)) writer.recordEvent(event);
    const flushed = writer.flush();
    await new Promise((resolve) => setTimeout(resolve, 1_000)); // longer than the 2 tries' 100 ms pause
    await cluster.startServer();
    await flushed;
    expect(lost).toEqual([]);
    await expect(other.store.leases.acquire(id)).rejects.toBeInstanceOf(ThreadBusyError);
    await writer.close();
    await lease.release();
    const stored = await other.store.read(id);
    expect(stored?.turns).toBe(2);
    expect(stored?.lines).toHaveLength(1 + 2 * turnEvents(1).length);
  });

  it("migrates once when several processes start together", async () => {
    const url = await cluster.createDatabase();
    const stores = await Promise.all([1, 2, 3, 4].map(() => openPostgresStore(url)));
    open.push(...stores);
    const sql = postgres(url, { max: 1, onnotice: () => {} });
    try {
      const rows = await sql<{ version: number }[]>`SELECT version FROM tscodex_migrations ORDER BY version`;
      expect(rows.map((row) => row.version)).toEqual([1, 2, 3]);
    } finally {
      await sql.end();
    }
    expect(stores.every((store) => store.kind === "postgres" && store.shared)).toBe(true);
  });

  it("fails to open with a clear error when the database cannot be reached", async () => {
    const started = performance.now();
    const error = await openPostgresStore("postgres://tscodex@127.0.0.1:1/none", {
      retry: { attempts: 2, backoffMs: 20 },
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreError);
    expect((error as Error).message).toMatch(
      /^thread store unavailable: migrating the schema failed after 2 tries: .*ECONNREFUSED/,
    );
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it("names its location without the password", async () => {
    const { store } = await newStore();
    expect(store.location).toMatch(/^postgres:\/\/tscodex@127\.0\.0\.1:\d+\/t\d+$/);
    const { redactUrl } = await import("../../src/util/redact-url.js");
    expect(redactUrl("postgres://me:s3cret@db.example:5432/threads")).toBe(
      "postgres://me@db.example:5432/threads",
    );
  });
});
