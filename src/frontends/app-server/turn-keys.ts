/**
 * turn/start's `clientUserMessageId` as an idempotency key (Stripe's rules, as the proxy's
 * `Idempotency-Key`): the first turn/start with a key on a thread starts the turn; a resend with
 * the same key and the same params (a client whose connection dropped) starts nothing and is
 * answered with that turn as it is now; the same key with other params is refused. Keys are per
 * thread, so a key names nothing on a thread the caller did not name. Kept by this process for
 * `KEY_TTL_MS` (at most `MAX_TURN_KEYS`, oldest dropped first), and in the thread store
 * (handlers/keyed-turn-start.ts) for a restarted server or another process on the same store.
 */
import { fingerprintOf, KEY_TTL_MS } from "../common/keyed-requests.js";
import type { Turn, TurnError } from "./protocol/common.js";
import { RpcError } from "./protocol/jsonrpc.js";

export const MAX_TURN_KEYS = 10_000;

export type TurnState = Pick<Turn, "status" | "error">;

interface KeyEntry {
  fingerprint: string;
  /** The turn id once the first request started it; rejects when it failed to start. */
  turnId: Promise<string>;
  /** How the turn ended; null while it has not. */
  ended: TurnState | null;
  expires: number;
}

/** What turn/start does with a key: start the turn, or answer with the one it already started. */
export type KeyClaim =
  | { kind: "new"; fingerprint: string; started(turnId: string): void; failed(): void }
  | { kind: "known"; turnId: Promise<string>; ended(): TurnState | null };

export class TurnKeys {
  private readonly entries = new Map<string, KeyEntry>();

  constructor(private readonly now: () => number = Date.now) {}

  /**
   * Claim `key` on thread `threadId` for a turn/start with `params`: "new" when nobody used it
   * (report the turn id with `started`, or free the key with `failed`), "known" for a resend.
   * Throws -32600 when the key came with other params. Synchronous, so two resends racing each
   * other cannot both start a turn.
   */
  claim(threadId: string, key: string, params: unknown): KeyClaim {
    this.prune();
    const id = `${threadId}\n${key}`;
    const fingerprint = fingerprintOf(JSON.stringify(params));
    const existing = this.entries.get(id);
    if (existing) {
      if (existing.fingerprint !== fingerprint) throw keyReused(threadId, key);
      return { kind: "known", turnId: existing.turnId, ended: () => existing.ended };
    }
    let settle: { resolve(turnId: string): void; reject(error: Error): void } | undefined;
    const turnId = new Promise<string>((resolve, reject) => {
      settle = { resolve, reject };
    });
    // A resend awaiting a start that failed gets the failure; nobody else awaits it.
    turnId.catch(() => {});
    const entry: KeyEntry = { fingerprint, turnId, ended: null, expires: this.now() + KEY_TTL_MS };
    this.entries.set(id, entry);
    return {
      kind: "new",
      fingerprint,
      started: (started) => settle?.resolve(started),
      failed: () => {
        if (this.entries.get(id) === entry) this.entries.delete(id);
        settle?.reject(
          RpcError.invalidRequest(`the turn/start with clientUserMessageId '${key}' failed; send it again`),
        );
      },
    };
  }

  /** Turn `turnId`, started under `key`, ended so. */
  ended(threadId: string, key: string, state: { status: Turn["status"]; error: TurnError | null }): void {
    const entry = this.entries.get(`${threadId}\n${key}`);
    if (entry) entry.ended = state;
  }

  private prune(): void {
    const now = this.now();
    for (const [id, entry] of this.entries) {
      // Insertion order is expiry order: stop at the first live one under the cap.
      if (entry.expires > now && this.entries.size < MAX_TURN_KEYS) break;
      this.entries.delete(id);
    }
  }
}

/** -32600 for a key resent with other params than its first turn/start. */
export function keyReused(threadId: string, key: string): Error {
  return RpcError.invalidRequest(
    `clientUserMessageId '${key}' was already used on thread ${threadId} with other turn/start params; ` +
      "a resend must repeat the first request exactly, and a new turn needs a new clientUserMessageId",
  );
}
