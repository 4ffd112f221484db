/**
 * Which of a user's processes hold given sockets, and whether each is confined relative to this
 * process (a command inside a tscodex sandbox): in another PID namespace (bwrap), or with
 * no_new_privs or a seccomp filter that this process lacks (both backends set them, and neither
 * can be undone). Linux only.
 *
 * The only way from a socket inode to its process is to read every /proc/PID/fd link, so the
 * walk is made cheap and bounded rather than exact at any cost:
 * - one walk answers for every socket asked about (callers batch them, see loopback-peer.ts),
 *   and for the other sockets it was told to watch that it met on its way;
 * - only processes owned by `uid` are read (a stat of /proc/PID tells the owner);
 * - confined processes are read first, then the others by ascending fd count (the size of
 *   /proc/PID/fd); each verdict is told as soon as it is known, and the walk stops once every
 *   socket has a holder: a process with thousands of open files is read last, and a small
 *   client is answered before the walk reaches it;
 * - the walk yields to the event loop every few milliseconds and gives up after `budgetMs`,
 *   answering "busy" for what it has not found (the caller refuses those). A server accepts
 *   about one connection per event-loop turn, so short slices keep a flood's queue moving.
 * The reads are synchronous between yields: /proc answers from memory, and a promise per fd
 * link was what made a flood of checks slow.
 */
import { readdirSync, readFileSync, readlinkSync, statSync } from "node:fs";
import { setImmediate as nextTurn } from "node:timers/promises";

/** `unknown`: no process of the user holds it (it closed, or another user's process has it). */
export type HolderVerdict = "confined" | "unconfined" | "unknown" | "busy";

interface Confinement {
  pidNamespace: string;
  noNewPrivs: boolean;
  seccomp: boolean;
}

interface Candidate {
  pid: string;
  confined: boolean;
  fds: number;
}

/** Yield to other work after this long; reads between checks of the clock. */
const SLICE_MS = 2;
const READS_PER_CLOCK_CHECK = 32;

/** What judgeSocketHolders reads, and whom it tells early. */
export interface HolderWalk {
  /** Only processes this uid owns are read. */
  uid: number;
  /** After this long the walk gives up: what it has not found is "busy". */
  budgetMs: number;
  /** Other sockets to give a verdict for if the walk meets them on its way. */
  watched?: ReadonlySet<string>;
  /** Told each verdict of `inodes` as soon as it is known, before the walk ends. */
  onVerdict?: (inode: string, verdict: HolderVerdict) => void;
}

/**
 * The verdict for each socket inode in `inodes`; plus, for any inode of `watched` the walk met on
 * its way, its verdict too (as exact: every confined process is read before the first unconfined
 * one), so the caller can answer later checks of those sockets without a walk.
 */
export async function judgeSocketHolders(
  inodes: ReadonlySet<string>,
  walk: HolderWalk,
): Promise<Map<string, HolderVerdict>> {
  const { uid, budgetMs, watched = new Set<string>(), onVerdict } = walk;
  const verdicts = new Map<string, HolderVerdict>();
  const open = new Set(inodes);
  const clock = new Clock(budgetMs);
  const decide = (inode: string, verdict: HolderVerdict) => {
    verdicts.set(inode, verdict);
    if (open.delete(inode)) onVerdict?.(inode, verdict);
  };
  const finish = (verdict: HolderVerdict) => {
    for (const inode of open) decide(inode, verdict);
    return verdicts;
  };
  const self = confinementOf("self");
  if (!self) return finish("unknown");

  const candidates: Candidate[] = [];
  for (const pid of readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
    if (!(await clock.tick())) return finish("busy");
    const candidate = candidateOf(pid, uid, self);
    if (candidate) candidates.push(candidate);
  }
  // Confined processes first: a socket found in one is decided, whoever else holds it.
  candidates.sort((a, b) => Number(b.confined) - Number(a.confined) || a.fds - b.fds);

  for (const { pid, confined } of candidates) {
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue; // it exited
    }
    for (const fd of fds) {
      if (!(await clock.tick())) return finish("busy");
      const inode = socketInode(`/proc/${pid}/fd/${fd}`);
      if (inode === null || verdicts.has(inode) || !(open.has(inode) || watched.has(inode))) continue;
      // Every confined process was read before the first unconfined one.
      decide(inode, confined ? "confined" : "unconfined");
    }
    // Between processes: the rest of one already begun costs little and may answer watched ones.
    if (open.size === 0) return verdicts;
  }
  return finish("unknown");
}

/** The process when `uid` owns it, with its confinement and fd count; null otherwise. */
function candidateOf(pid: string, uid: number, self: Confinement): Candidate | null {
  try {
    if (statSync(`/proc/${pid}`).uid !== uid) return null;
    const peer = confinementOf(pid);
    if (!peer) return null;
    const confined =
      peer.pidNamespace !== self.pidNamespace ||
      (peer.noNewPrivs && !self.noNewPrivs) ||
      (peer.seccomp && !self.seccomp);
    // Linux 6.2 and later give the fd count as the directory's size; before, 0 (pid order).
    return { pid, confined, fds: statSync(`/proc/${pid}/fd`).size };
  } catch {
    return null; // it exited, or its fds are not ours to read
  }
}

function confinementOf(pid: string): Confinement | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "latin1");
    const field = (name: string): string => new RegExp(`^${name}:\\s*(\\d+)`, "m").exec(status)?.[1] ?? "0";
    return {
      pidNamespace: readlinkSync(`/proc/${pid}/ns/pid`),
      noNewPrivs: field("NoNewPrivs") === "1",
      seccomp: field("Seccomp") !== "0",
    };
  } catch {
    return null;
  }
}

/** The inode a /proc/PID/fd link names when it is a socket, else null. */
function socketInode(link: string): string | null {
  let target: string;
  try {
    target = readlinkSync(link);
  } catch {
    return null;
  }
  return target.startsWith("socket:[") ? target.slice(8, -1) : null;
}

/** Counts reads; yields when the slice is used up; false once the budget is spent. */
class Clock {
  private readonly start = performance.now();
  private sliceStart = this.start;
  private reads = 0;

  constructor(private readonly budgetMs: number) {}

  async tick(): Promise<boolean> {
    this.reads += 1;
    if (this.reads % READS_PER_CLOCK_CHECK !== 0) return true;
    const now = performance.now();
    if (now - this.start > this.budgetMs) return false;
    if (now - this.sliceStart > SLICE_MS) {
      await nextTurn();
      this.sliceStart = performance.now();
    }
    return true;
  }
}
