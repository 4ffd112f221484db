/**
 * The ThreadStore a configuration names: PostgreSQL when `[store] url` (or $TSCODEX_STORE_URL) is
 * set, else JSONL rollouts under the home. The database driver loads only when it is used.
 */
import type { Config } from "../config/load.js";
import { redactUrl } from "../util/redact-url.js";
import { JsonlThreadStore } from "./jsonl-store.js";
import { StoreError, type ThreadStore } from "./thread-store.js";

export async function openThreadStore(config: Pick<Config, "home" | "store">): Promise<ThreadStore> {
  const url = config.store.url;
  if (!url) return new JsonlThreadStore(config.home);
  if (!/^postgres(ql)?:\/\//.test(url))
    throw new StoreError(`[store] url must be a postgres:// or postgresql:// URL, not '${redactUrl(url)}'`);
  const { openPostgresStore } = await import("./postgres-store.js");
  return openPostgresStore(url);
}
