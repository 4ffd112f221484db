/**
 * The ThreadStore a configuration names: PostgreSQL when `[store] url` (or $TSCODEX_STORE_URL) is
 * set, else JSONL rollouts under the home. Each implementation (and the database driver) loads
 * only when it is opened, so a server that has not touched a thread yet has loaded neither.
 */
import type { Config } from "../config/load.js";
import { redactUrl } from "../util/redact-url.js";
import { sessionsDir } from "./rollout.js";
import { StoreError, type ThreadStore } from "./thread-store.js";

export async function openThreadStore(config: Pick<Config, "home" | "store">): Promise<ThreadStore> {
  const url = config.store.url;
  if (!url) return openJsonlStore(config.home);
  if (!/^postgres(ql)?:\/\//.test(url))
    throw new StoreError(`[store] url must be a postgres:// or postgresql:// URL, not '${redactUrl(url)}'`);
  const { openPostgresStore } = await import("./postgres-store.js");
  return openPostgresStore(url);
}

/** The JSONL store under `home` (the default store, and the source of `sessions migrate`). */
export async function openJsonlStore(home: string): Promise<ThreadStore> {
  const { JsonlThreadStore } = await import("./jsonl-store.js");
  return new JsonlThreadStore(home);
}

/** Where the configured store keeps threads, for a log line: `jsonl DIR` or `postgres URL` (no password). */
export function describeStore(config: Pick<Config, "home" | "store">): string {
  return config.store.url ? `postgres ${redactUrl(config.store.url)}` : `jsonl ${sessionsDir(config.home)}`;
}
