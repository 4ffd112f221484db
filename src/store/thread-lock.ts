/**
 * Thread leases: while a process has a thread open, no other process may run turns on it (two
 * writers would interleave its history). The ThreadManager takes one lease per open thread and
 * gives it back when the thread leaves memory. This file holds the contract and the JSONL store's
 * implementation: a lock file per thread naming its holder (pid, process start time, host),
 * created atomically; a lock whose holder is gone (kill -9, a reboot, a reused pid) is broken.
 */
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { link, mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { join } from "node:path";
import { isoTimestamp } from "../util/iso-time.js";

/** A held claim on one thread. */
export interface ThreadLease {
  readonly threadId: string;
  /** Give the thread back (idempotent). */
  release(): Promise<void>;
}

/**
 * Where leases come from (one per thread store). Contract: `acquire` resolves with the lease when
 * no live holder has the thread, and rejects with ThreadBusyError when one does; a holder that
 * ended without releasing does not block anyone.
 */
export interface ThreadLeases {
  /** `waitMs`: how long to wait for a live holder to let go before ThreadBusyError (default 0). */
  acquire(threadId: string, options?: AcquireOptions): Promise<ThreadLease>;
  /**
   * Call `listener` when held leases are lost without being released (a database connection
   * dropped: another process may take those threads now). Returns the unsubscribe. Stores whose
   * leases cannot be lost that way (lock files) leave it out.
   */
  watchLost?(listener: (threadIds: string[]) => void): () => void;
}

export interface AcquireOptions {
  waitMs?: number;
}

/** How often a file lease waiting for its holder looks again. */
const FILE_LEASE_POLL_MS = 25;

/** Who holds a thread. */
export interface LeaseHolder {
  pid: number;
  host: string;
  /** The holder's process start time (clock ticks since boot), to tell a reused pid apart. */
  start: number | null;
  since: string;
}

/** The thread is open in another live process (or elsewhere in this one). */
export class ThreadBusyError extends Error {
  override name = "ThreadBusyError";
  constructor(
    readonly threadId: string,
    readonly holder: LeaseHolder,
  ) {
    const where =
      holder.pid === process.pid && holder.host === hostname()
        ? "this process"
        : `another tscodex process (pid ${holder.pid}${holder.host === hostname() ? "" : ` on ${holder.host}`}, since ${holder.since})`;
    super(
      `thread ${threadId} is in use by ${where}; wait until it is done with the thread, or end that process`,
    );
  }
}

/** Lock files this process holds (two managers in one process must not share a thread either). */
const held = new Set<string>();

/** The JSONL store's leases: `<home>/locks/threads/<id>.lock`. */
export class FileThreadLeases implements ThreadLeases {
  private readonly dir: string;

  constructor(home: string) {
    this.dir = join(home, "locks", "threads");
  }

  async acquire(threadId: string, options: AcquireOptions = {}): Promise<ThreadLease> {
    const deadline = Date.now() + (options.waitMs ?? 0);
    for (;;) {
      try {
        return await this.tryAcquire(threadId);
      } catch (error) {
        if (!(error instanceof ThreadBusyError) || Date.now() >= deadline) throw error;
      }
      await new Promise((resolve) => setTimeout(resolve, FILE_LEASE_POLL_MS));
    }
  }

  private async tryAcquire(threadId: string): Promise<ThreadLease> {
    const path = join(this.dir, `${threadId}.lock`);
    await mkdir(this.dir, { recursive: true });
    const me: LeaseHolder = {
      pid: process.pid,
      host: hostname(),
      start: startTime(process.pid),
      since: isoTimestamp(),
    };
    // Written whole, then linked into place: link fails if the lock exists, and never shows half a file.
    const draft = `${path}.${randomUUID()}.tmp`;
    await writeFile(draft, `${JSON.stringify(me)}\n`);
    try {
      for (let attempt = 0; attempt < 3; attempt++) {
        try {
          await link(draft, path);
          held.add(path);
          return new FileLease(threadId, path, me);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
        }
        const holder = await readHolder(path);
        if (holder && holds(holder, path)) throw new ThreadBusyError(threadId, holder);
        await rm(path, { force: true }); // stale: its holder is gone
      }
      const holder = await readHolder(path);
      throw new ThreadBusyError(threadId, holder ?? me);
    } finally {
      await rm(draft, { force: true });
    }
  }
}

class FileLease implements ThreadLease {
  private released = false;

  constructor(
    readonly threadId: string,
    private readonly path: string,
    private readonly me: LeaseHolder,
  ) {}

  async release(): Promise<void> {
    if (this.released) return;
    this.released = true;
    held.delete(this.path);
    // Only our own lock: if it was broken and taken meanwhile, it is someone else's now.
    const holder = await readHolder(this.path);
    if (
      holder &&
      holder.pid === this.me.pid &&
      holder.since === this.me.since &&
      holder.host === this.me.host
    )
      await rm(this.path, { force: true });
  }
}

async function readHolder(path: string): Promise<LeaseHolder | null> {
  try {
    const value = JSON.parse(await readFile(path, "utf8")) as Partial<LeaseHolder>;
    if (typeof value.pid !== "number" || typeof value.host !== "string") return null;
    return {
      pid: value.pid,
      host: value.host,
      start: typeof value.start === "number" ? value.start : null,
      since: typeof value.since === "string" ? value.since : "unknown",
    };
  } catch {
    return null; // gone, or not a lock we wrote: treated as stale
  }
}

/** Whether `holder` still holds the lock at `path`. */
function holds(holder: LeaseHolder, path: string): boolean {
  // Another machine's process cannot be checked from here: its lock stands.
  if (holder.host !== hostname()) return true;
  if (holder.pid === process.pid) return held.has(path);
  if (!alive(holder.pid)) return false;
  const start = startTime(holder.pid);
  return holder.start === null || start === null || start === holder.start;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EPERM") return false;
  }
  return procStat(pid)?.[0] !== "Z"; // a zombie (killed, not yet reaped) holds nothing
}

/** Field 22 of /proc/<pid>/stat (start time in clock ticks); null where there is no /proc. */
function startTime(pid: number): number | null {
  const value = Number(procStat(pid)?.[19]);
  return Number.isFinite(value) ? value : null;
}

/** The fields of /proc/<pid>/stat after the command name (state first), or null. */
function procStat(pid: number): string[] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  } catch {
    return null;
  }
}
