/**
 * MCP OAuth tokens on disk: `$TSCODEX_HOME/.credentials.json`, mode 0600, in Codex's shape (reference
 * section 3): one entry per server, keyed `NAME|HASH` (HASH: the first 16 hex digits of a SHA-256
 * of the name and URL, so a server moved to another URL needs a new login). Writes go through a
 * temporary file and a rename, so a reader never sees half a file; every read-modify-write of
 * the file holds `.credentials.json.lock` (lock-file.ts), so concurrent saves of different
 * servers never undo each other. Tokens are never logged.
 *
 * `withCredentialsLock` serializes one server's refreshes across processes: a lock file under
 * `mcp-oauth-locks/`, taken over when its holder is gone or hung.
 */
import { createHash, randomUUID } from "node:crypto";
import { chmod, mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { withLockFile } from "./lock-file.js";

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
const FILE_LOCK = ".credentials.json.lock";
const LOCKS = "mcp-oauth-locks";
/** The file lock is held for one read and one write: a holder this old is hung. */
const FILE_LOCK_TIMES = { waitMs: 30_000, staleMs: 20_000, what: FILE };
/**
 * A refresh lock is held across the token request, which REFRESH_TIMEOUT_MS (tokens.ts) bounds;
 * past staleMs its holder is taken to be hung.
 */
const REFRESH_LOCK_TIMES = { waitMs: 75_000, staleMs: 60_000 };

export function credentialsKey(name: string, url: string): string {
  const hash = createHash("sha256").update(`${name}\u0000${url}`).digest("hex").slice(0, 16);
  return `${name}|${hash}`;
}

async function readAll(home: string): Promise<Record<string, StoredCredentials>> {
  let text: string;
  try {
    text = await readFile(join(home, FILE), "utf8");
  } catch (error) {
    // Only a missing file is empty: an unreadable one must not be rewritten with one entry.
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return {};
    throw error;
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
  try {
    await writeFile(temp, `${JSON.stringify(all, null, 2)}\n`, { mode: 0o600 });
    await chmod(temp, 0o600);
    await rename(temp, path);
  } catch (error) {
    // No copy of the tokens left behind.
    await rm(temp, { force: true });
    throw error;
  }
}

/** The stored tokens of server `name` at `url`, if any. */
export async function readCredentials(
  home: string,
  name: string,
  url: string,
): Promise<StoredCredentials | null> {
  return (await readAll(home))[credentialsKey(name, url)] ?? null;
}

/**
 * Read the whole file, let `change` edit it, write it back: all under the file's lock, so that
 * two processes (or two connections of one) saving different servers at once never write from
 * a stale copy (which put spent refresh tokens back). `change` returns false to leave the file
 * as it is.
 */
export async function updateCredentials(
  home: string,
  change: (all: Record<string, StoredCredentials>) => boolean,
): Promise<boolean> {
  await mkdir(home, { recursive: true });
  return withLockFile(join(home, FILE_LOCK), FILE_LOCK_TIMES, async () => {
    const all = await readAll(home);
    if (!change(all)) return false;
    await writeAll(home, all);
    return true;
  });
}

export async function saveCredentials(home: string, credentials: StoredCredentials): Promise<void> {
  await updateCredentials(home, (all) => {
    all[credentialsKey(credentials.server_name, credentials.server_url)] = credentials;
    return true;
  });
}

/** Remove server `name`'s tokens (any URL); true when there were some. */
export async function removeCredentials(home: string, name: string): Promise<boolean> {
  return updateCredentials(home, (all) => {
    const keys = Object.keys(all).filter((key) => all[key]?.server_name === name);
    for (const key of keys) delete all[key];
    return keys.length > 0;
  });
}

/**
 * Run `work` holding the refresh lock of server `name` at `url`: one refresh of a server at a
 * time across processes (a refresh token is good once), while other servers refresh in parallel.
 */
export async function withCredentialsLock<T>(
  home: string,
  name: string,
  url: string,
  work: () => Promise<T>,
): Promise<T> {
  const dir = join(home, LOCKS);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const id = createHash("sha256").update(credentialsKey(name, url)).digest("hex").slice(0, 32);
  return withLockFile(
    join(dir, `${id}.lock`),
    { ...REFRESH_LOCK_TIMES, what: `MCP server '${name}' (its OAuth token refresh)` },
    work,
  );
}
