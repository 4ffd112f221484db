/**
 * `tscodex resume ID`: the id may be a unique prefix, as `exec resume` and `sessions show`
 * take it. The UI only speaks the protocol, so a prefix is matched against thread/list's pages
 * (every directory: an id names one thread wherever it was started).
 */
import { isRecord } from "./wire.js";

type Rpc = (method: string, params: Record<string, unknown>) => Promise<Record<string, unknown>>;

const FULL_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const PAGE = 100;
/** Pages read before giving up (10,000 threads): a prefix lookup must end. */
const MAX_PAGES = 100;

/** Codex's advice when an id names no stored thread, in our words. */
export function notFoundMessage(id: string): string {
  return `no saved thread found with id ${id}; run \`tscodex resume\` without an id to choose from the stored threads`;
}

/** The full id `which` names: itself when it is a full UUID, else the one stored id it starts. */
export async function resolveThreadId(rpc: Rpc, which: string): Promise<string> {
  if (FULL_ID.test(which)) return which;
  const prefix = which.toLowerCase();
  const matches: string[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < MAX_PAGES; page++) {
    const listed = await rpc("thread/list", { limit: PAGE, sortKey: "updated_at", cursor });
    const data = Array.isArray(listed.data) ? listed.data : [];
    for (const thread of data) {
      const id = isRecord(thread) ? thread.id : undefined;
      if (typeof id === "string" && id.toLowerCase().startsWith(prefix)) matches.push(id);
    }
    cursor = typeof listed.nextCursor === "string" ? listed.nextCursor : null;
    if (!cursor || matches.length > 1) break;
  }
  if (matches.length === 1) return matches[0] as string;
  if (matches.length === 0) throw new Error(notFoundMessage(which));
  throw new Error(`thread id prefix ${which} is ambiguous: ${matches.slice(0, 5).join(", ")}`);
}
