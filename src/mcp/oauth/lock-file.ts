/**
 * A cross-process lock as a file (several tscodex processes may share one home; Node has no
 * flock without a native addon). The lock is created with O_EXCL and holds its owner's pid, host,
 * start time and a random nonce. A waiter takes over a lock whose holder is gone (same host, pid
 * no longer alive) or that is older than `staleMs` (a hung holder, or one on another host);
 * waits are bounded by `waitMs` and end with an error naming the lock file. Releasing removes
 * the file only while it is still this holder's.
 */
import { randomUUID } from "node:crypto";
import { link, open, readFile, rename, rm, stat } from "node:fs/promises";
import { hostname } from "node:os";
import { setTimeout as sleep } from "node:timers/promises";

export interface LockOptions {
  /** How long to wait for a live holder before giving up. */
  waitMs: number;
  /** A lock older than this is taken over even when its holder still runs. */
  staleMs: number;
  /** What the lock guards, for the timeout error. */
  what: string;
}

interface Holder {
  pid: number;
  host: string;
  /** Milliseconds since the epoch. */
  since: number;
  nonce: string;
}

/** Run `work` holding the lock file `path`. */
export async function withLockFile<T>(
  path: string,
  options: LockOptions,
  work: () => Promise<T>,
): Promise<T> {
  const mine: Holder = { pid: process.pid, host: hostname(), since: Date.now(), nonce: randomUUID() };
  const text = JSON.stringify(mine);
  await acquire(path, text, options);
  try {
    return await work();
  } finally {
    await release(path, text);
  }
}

async function acquire(path: string, text: string, options: LockOptions): Promise<void> {
  const deadline = Date.now() + options.waitMs;
  for (let delay = 5; ; delay = Math.min(delay * 2, 100)) {
    if (await tryCreate(path, text)) return;
    const seen = await readHolder(path);
    if (seen === null) continue; // Released in between: try again at once.
    if (await isStale(path, seen, options.staleMs)) {
      await breakStale(path, seen);
      continue;
    }
    if (Date.now() > deadline) {
      const holder = parseHolder(seen);
      throw new Error(
        `timed out after ${Math.round(options.waitMs / 1000)} s waiting for the lock of ${options.what} ` +
          `(${path}${holder ? `, held by pid ${holder.pid} on ${holder.host}` : ""}); ` +
          "if no tscodex process is using it, remove that file",
      );
    }
    // Jitter, so waiters released together do not collide again in step.
    await sleep(delay + Math.floor(Math.random() * delay));
  }
}

/** The lock's content; null when it is gone. */
async function readHolder(path: string): Promise<string | null> {
  try {
    return await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
}

/** Create the lock with O_EXCL; false when it exists. */
async function tryCreate(path: string, text: string): Promise<boolean> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(path, "wx", 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  }
  try {
    await handle.writeFile(text);
  } finally {
    await handle.close();
  }
  return true;
}

function parseHolder(text: string): Holder | null {
  try {
    const parsed = JSON.parse(text) as Partial<Holder>;
    if (typeof parsed.pid !== "number" || typeof parsed.since !== "number") return null;
    return { pid: parsed.pid, host: String(parsed.host), since: parsed.since, nonce: String(parsed.nonce) };
  } catch {
    return null;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, it is another user's.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

async function isStale(path: string, seen: string, staleMs: number): Promise<boolean> {
  const holder = parseHolder(seen);
  if (holder) {
    if (holder.host === hostname() && !alive(holder.pid)) return true;
    return Date.now() - holder.since > staleMs;
  }
  // Empty or partial: its creator is between open and write, or died there; judge by age.
  const modified = await stat(path).then(
    (info) => info.mtimeMs,
    () => Date.now(),
  );
  return Date.now() - modified > staleMs;
}

/**
 * Remove the stale lock whose content was `seen`, without removing a fresh one that replaced it
 * meanwhile: move it aside (atomic), and if what moved is not what was judged, put it back.
 */
async function breakStale(path: string, seen: string): Promise<void> {
  const aside = `${path}.${randomUUID()}.stale`;
  try {
    await rename(path, aside);
  } catch {
    return; // Gone already: someone else broke or released it.
  }
  const moved = await readFile(aside, "utf8").catch(() => seen);
  if (moved !== seen) await link(aside, path).catch(() => {});
  await rm(aside, { force: true });
}

async function release(path: string, text: string): Promise<void> {
  const current = await readFile(path, "utf8").catch(() => null);
  if (current === text) await rm(path, { force: true });
}
