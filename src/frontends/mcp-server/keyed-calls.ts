/**
 * An idempotency key on `tools/call` (a `codex` or `codex-reply` resent after its connection
 * dropped), as an `Idempotency-Key` header (Streamable HTTP) or `_meta["tscodex/idempotencyKey"]`
 * (any transport; per call, where an SDK client's headers are per transport): the first call with a key runs; a retry with the same key, tool and
 * arguments joins it while it runs in this process, or gets its kept result once it finished
 * (from the thread store: any server process on the same store, also after a restart); the same
 * key with another tool or other arguments is refused (-32600). Only a result that is not an
 * error is kept; after an error the key is free again. Keys live `KEY_TTL_MS`.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { ThreadStore } from "../../store/index.js";
import {
  fingerprintOf,
  KEY_TTL_MS,
  KeyInUseError,
  KeyReusedError,
  pruneExpiredKeysOnce,
  runKeyed,
} from "../common/keyed-requests.js";

/** The `_meta` field of a tools/call that carries its key. */
export const IDEMPOTENCY_META_KEY = "tscodex/idempotencyKey";
const MAX_KEY_LENGTH = 255;
const INVALID_REQUEST = -32600;

interface Running {
  fingerprint: string;
  result: Promise<CallToolResult>;
}

/** The keyed calls of one server process (shared by its sessions). */
export class KeyedCalls {
  private readonly running = new Map<string, Running>();

  constructor(private readonly store: ThreadStore) {}

  /** Run tool call `name(args)` under `key`: once per key, see the file header. */
  async call(
    key: string,
    name: string,
    args: Record<string, unknown>,
    run: () => Promise<CallToolResult>,
  ): Promise<CallToolResult> {
    if (key.length === 0 || key.length > MAX_KEY_LENGTH)
      throw rpcError(`The Idempotency-Key header must be 1 to ${MAX_KEY_LENGTH} characters.`);
    pruneExpiredKeysOnce(this.store);
    const fingerprint = fingerprintOf(`tools/call\n${name}\n${JSON.stringify(args)}`);
    const joined = this.running.get(key);
    if (joined) {
      if (joined.fingerprint !== fingerprint) throw reused(key);
      return joined.result;
    }
    const result = this.runOnce(key, fingerprint, run);
    this.running.set(key, { fingerprint, result });
    try {
      return await result;
    } finally {
      this.running.delete(key);
    }
  }

  private async runOnce(key: string, fingerprint: string, run: () => Promise<CallToolResult>) {
    try {
      const outcome = await runKeyed(
        { store: this.store, key: `mcp-server:${key}`, fingerprint, ttlMs: KEY_TTL_MS },
        run,
        (result) => (result.isError ? undefined : result),
      );
      return outcome.result as CallToolResult;
    } catch (error) {
      if (error instanceof KeyReusedError) throw reused(key);
      if (error instanceof KeyInUseError) throw rpcError(`Idempotency-Key '${key}': ${error.message}`);
      throw error;
    }
  }
}

function reused(key: string): Error {
  return rpcError(
    `Idempotency-Key '${key}' was first used with another tool or other arguments; ` +
      "a retry must repeat the first call exactly, and a new call needs a new key",
  );
}

/** An error the SDK answers as a JSON-RPC error with this code. */
function rpcError(message: string): Error {
  return Object.assign(new Error(message), { code: INVALID_REQUEST });
}
