/**
 * Storage layer: where threads are kept between turns and between processes.
 * Responsibilities: the ThreadStore contract (thread-store.ts), its JSONL (jsonl-store.ts) and
 * PostgreSQL (postgres-store.ts) implementations, the leases that keep one process per thread
 * (thread-lock.ts, postgres-leases.ts), the rollout line format (rollout.ts) and migration
 * between stores (migrate.ts).
 * Flow: openThreadStore(config) -> ThreadStore; the session layer's ThreadManager records and
 * loads threads through it. Front-ends import this module only, never the files beside it
 * (test/architecture.test.ts checks that).
 * Start-up: importing this module loads no store implementation, no zod and no postgres
 * driver; openThreadStore and readRollout load what they use on their first call.
 */
import type { ResponseItem } from "../protocol/items.js";
import type { StoredThread } from "./stored-thread.js";

export { type MigrationProgress, type MigrationReport, migrateThreads } from "./migrate.js";
export { describeStore, openJsonlStore, openThreadStore } from "./open-store.js";
export type { RolloutEvent, RolloutLine, SessionMeta, StoredGoal, ThreadMetadataUpdate } from "./rollout.js";
export { RolloutError, type StoredThread } from "./stored-thread.js";
export { ThreadBusyError, type ThreadLease, type ThreadLeases } from "./thread-lock.js";
export {
  deletedAnswer,
  type IdempotencyRecord,
  type IdempotentWork,
  type ResponseRecord,
  responseRunning,
  StoreError,
  type StoreKind,
  StoreUnavailableError,
  summaryOf,
  type ThreadPage,
  type ThreadQuery,
  type ThreadStore,
  type ThreadSummary,
} from "./thread-store.js";

/** `values` checked as history items (thread/inject_items); the line schemas load on the first call. */
export async function checkResponseItems(
  values: readonly unknown[],
): Promise<{ items: ResponseItem[] } | { problem: string }> {
  const reader = await import("./rollout-reader.js");
  return reader.checkResponseItems(values);
}

/** Reads one rollout file; its line schemas (zod) load on the first call. */
export async function readRollout(path: string): Promise<StoredThread> {
  const reader = await import("./rollout-reader.js");
  return reader.readRollout(path);
}
