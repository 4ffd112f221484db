/**
 * Idempotency keys in the thread store, for any front-end (Stripe's rules, as the proxy's
 * `Idempotency-Key`): the first request with a key runs while its process holds the key's lease;
 * a retry with the same key and fingerprint gets the kept result and runs nothing, on any process
 * sharing the store; another fingerprint is refused; a retry while the first runs elsewhere is
 * refused as in use; a retry after the process running it died takes it over and runs it again.
 * A result is kept only when `keep` says so (an error frees the key, so a retry runs again).
 * Keys expire after the caller's window; callers namespace their keys (`mcp-server:…`).
 */
import { createHash } from "node:crypto";
import { type IdempotencyRecord, ThreadBusyError, type ThreadStore } from "../../store/index.js";
import { errorMessage } from "../../util/errors.js";

export interface KeyedRequest {
  store: ThreadStore;
  /** The key as stored (already namespaced by the caller). */
  key: string;
  /** What the request asked, hashed: a retry must match it. */
  fingerprint: string;
  ttlMs: number;
}

/** The key came with another request than the first. */
export class KeyReusedError extends Error {}

/** A request with the key is still running in another process. */
export class KeyInUseError extends Error {}

/**
 * Run `run` once per key: `{replayed: false}` with its result when it ran, `{replayed: true}`
 * with the kept JSON when an earlier request with the key finished. `keep(result)` gives the
 * JSON to keep, or undefined to free the key. Throws KeyReusedError / KeyInUseError.
 */
export async function runKeyed<T>(
  request: KeyedRequest,
  run: () => Promise<T>,
  keep: (result: T) => unknown,
): Promise<{ replayed: true; result: unknown } | { replayed: false; result: T }> {
  const { store, key, fingerprint } = request;
  const lease = await holdKey(store, key);
  try {
    const record = newKeyRecord(key, fingerprint, request.ttlMs);
    const existing = await store.claimIdempotencyKey(record);
    if (existing) {
      if (existing.fingerprint !== fingerprint)
        throw new KeyReusedError(
          "this idempotency key was first used with other parameters; a retry must repeat the first request, a new request needs a new key",
        );
      if (existing.result) return { replayed: true, result: existing.result.body };
      // Claimed by a process that is gone (its lease is ours now): this request takes it over.
      await store.saveIdempotencyKey({ ...record, created: existing.created, expires: existing.expires });
    }
    let result: T;
    try {
      result = await run();
    } catch (error) {
      await dropKey(store, key);
      throw error;
    }
    const kept = keep(result);
    if (kept === undefined) await dropKey(store, key);
    else await store.saveIdempotencyKey({ ...record, result: { status: 200, body: kept } });
    return { replayed: false, result };
  } finally {
    await lease.release().catch(() => {});
  }
}

/** How long a key and its answer are kept unless a server is told otherwise (Stripe's 24 h). */
export const KEY_TTL_MS = 24 * 60 * 60_000;

/** A key's first record: claimed now, no result yet, kept `ttlMs`. */
export function newKeyRecord(key: string, fingerprint: string, ttlMs: number): IdempotencyRecord {
  const now = Date.now();
  return { key, fingerprint, result: null, created: now, expires: now + ttlMs };
}

const pruned = new WeakSet<ThreadStore>();

/** Remove `store`'s expired keys, once per process and store (servers call it at their first keyed request). */
export function pruneExpiredKeysOnce(store: ThreadStore): void {
  if (pruned.has(store)) return;
  pruned.add(store);
  void store.pruneIdempotencyKeys(Date.now()).catch(() => {});
}

/** sha256 of `text`, hex: a request's fingerprint. */
export function fingerprintOf(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

/** The lease that lets one request at a time, across processes, run under `key`; KeyInUseError when held. */
export async function holdKey(store: ThreadStore, key: string) {
  try {
    return await store.leases.acquire(`idempotency-${fingerprintOf(key).slice(0, 40)}`);
  } catch (error) {
    if (!(error instanceof ThreadBusyError)) throw error;
    throw new KeyInUseError(
      "a request with this idempotency key is still running; retry once it has finished",
    );
  }
}

async function dropKey(store: ThreadStore, key: string): Promise<void> {
  await store.dropIdempotencyKey(key).catch((error: unknown) => {
    process.stderr.write(`tscodex: freeing idempotency key: ${errorMessage(error)}\n`);
  });
}
