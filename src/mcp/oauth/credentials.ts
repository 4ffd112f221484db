/**
 * MCP OAuth tokens on disk: `$TSCODEX_HOME/.credentials.json`, mode 0600, in Codex's shape (reference
 * section 3): one entry per server, keyed `NAME|HASH` (HASH: the first 16 hex digits of a SHA-256
 * of the name and URL, so a server moved to another URL needs a new login). Writes go through a
 * temporary file and a rename, so a reader never sees half a file. Tokens are never logged.
 *
 * `withCredentialsLock` serializes refreshes across processes: a lock directory under
 * `mcp-oauth-locks/` (mkdir is atomic); a lock older than LOCK_STALE_MS is taken over (its holder died).
 */
import { createHash, randomUUID } from "node:crypto";
import { chmod, mkdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";

/** One server's tokens (Codex's field names; `client_secret` is ours, for clients registered with one). */
export interface StoredCredentials {
  server_name: string;
  server_url: string;
  /** The authorization server (its metadata is discovered again to refresh). */
  issuer: string;
  client_id: string;
  client_secret?: string | null;
  access_token: string;
  /** Milliseconds since the epoch; null: no expiry given. */
  expires_at: number | null;
  refresh_token: string | null;
  scopes: string[];
}

const FILE = ".credentials.json";
const LOCKS = "mcp-oauth-locks";
const LOCK_STALE_MS = 30_000;
const LOCK_WAIT_MS = 60_000;

export function credentialsKey(name: string, url: string): string {
  const hash = createHash("sha256").update(`${name}\u0000${url}`).digest("hex").slice(0, 16);
  return `${name}|${hash}`;
}

async function readAll(home: string): Promise<Record<string, StoredCredentials>> {
  let text: string;
  try {
    text = await readFile(join(home, FILE), "utf8");
  } catch {
    return {};
  }
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed !== null && typeof parsed === "object" ? (parsed as Record<string, StoredCredentials>) : {};
  } catch {
    throw new Error(`${join(home, FILE)} is not valid JSON; remove it and log in again`);
  }
}

async function writeAll(home: string, all: Record<string, StoredCredentials>): Promise<void> {
  await mkdir(home, { recursive: true });
  const path = join(home, FILE);
  const temp = `${path}.${randomUUID()}.tmp`;
  await writeFile(temp, `${JSON.stringify(all, null, 2)}\n`, { mode: 0o600 });
  await chmod(temp, 0o600);
  await rename(temp, path);
}

/** The stored tokens of server `name` at `url`, if any. */
export async function readCredentials(
  home: string,
  name: string,
  url: string,
): Promise<StoredCredentials | null> {
  return (await readAll(home))[credentialsKey(name, url)] ?? null;
}

export async function saveCredentials(home: string, credentials: StoredCredentials): Promise<void> {
  const all = await readAll(home);
  all[credentialsKey(credentials.server_name, credentials.server_url)] = credentials;
  await writeAll(home, all);
}

/** Remove server `name`'s tokens (any URL); true when there were some. */
export async function removeCredentials(home: string, name: string): Promise<boolean> {
  const all = await readAll(home);
  const keys = Object.keys(all).filter((key) => all[key]?.server_name === name);
  if (keys.length === 0) return false;
  for (const key of keys) delete all[key];
  await writeAll(home, all);
  return true;
}

/** Run `work` holding the cross-process lock of server `name` at `url`. */
export async function withCredentialsLock<T>(
  home: string,
  name: string,
  url: string,
  work: () => Promise<T>,
): Promise<T> {
  const dir = join(home, LOCKS);
  await mkdir(dir, { recursive: true });
  const lock = join(dir, createHash("sha256").update(credentialsKey(name, url)).digest("hex").slice(0, 32));
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (let delay = 10; ; delay = Math.min(delay * 2, 200)) {
    try {
      await mkdir(lock);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const age = await stat(lock).then(
        (info) => Date.now() - info.mtimeMs,
        () => 0,
      );
      if (age > LOCK_STALE_MS) {
        await rm(lock, { recursive: true, force: true });
        continue;
      }
      if (Date.now() > deadline)
        throw new Error(`timed out waiting for the OAuth lock of MCP server '${name}'`);
      await sleep(delay);
    }
  }
  try {
    return await work();
  } finally {
    await rm(lock, { recursive: true, force: true });
  }
}
