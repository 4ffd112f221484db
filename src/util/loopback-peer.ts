/**
 * Who is on the other end of a loopback TCP connection, judged from /proc: a process of this
 * server's own user outside every sandbox, or not. A key-less local server uses this to refuse
 * other users' processes (a root server would run their commands as root) and sandboxed commands
 * (they have network access, so they reach 127.0.0.1 too): the Host check stops web pages, not
 * local processes.
 *
 * Two steps, both bounded (a local process can ask as often as it likes):
 * 1. the client's socket in /proc/net/tcp{,6} (proc-net-tcp.ts) gives the uid that created it:
 *    any uid but this process's effective uid is refused outright, with no process scan;
 * 2. for this user's sockets, the processes holding the socket decide (socket-holders.ts): one
 *    of them confined → confined.
 * Checks that arrive together share one table read and one /proc walk, and a walk's findings
 * about this user's other connections to the server answer their checks for a while; a walk
 * that overruns its budget, or a queue past its cap, answers "busy", and the caller refuses.
 * Linux only.
 */
import { isIP } from "node:net";
import { connectionKey, findClientSockets, type LoopbackConnection } from "./proc-net-tcp.js";
import { judgeSocketHolders } from "./socket-holders.js";

export type { LoopbackConnection } from "./proc-net-tcp.js";

/**
 * `unconfined`: this user's process outside every sandbox (the only one a key-less server
 * serves); `confined`: inside a sandbox; `other-user`: created by another uid; `unknown`: no
 * holder found (it left); `busy`: the check's time or queue bound was hit.
 */
export type PeerVerdict = "confined" | "unconfined" | "other-user" | "unknown" | "busy";

/** How long one /proc walk may take, and how many checks may wait for the next one. */
const WALK_BUDGET_MS = 750;
const MAX_WAITING = 4096;
/** How long a walk's verdicts about sockets it met answer later checks of them. */
const RECENT_MS = 2000;

interface Waiting {
  connection: LoopbackConnection;
  resolve(verdict: PeerVerdict): void;
}

/** The callers of one server: its checks are batched, and its recent verdicts kept, here. */
export class LoopbackPeers {
  private waiting: Waiting[] = [];
  private running = false;
  /**
   * Verdicts a walk found for sockets already connected to the server when it started: a later
   * check of one of them needs no walk. (Each connection keeps its verdict for its whole life
   * anyway: see http-guard.ts.)
   */
  private readonly recent = new Map<string, { verdict: PeerVerdict; at: number }>();

  /** `walkBudgetMs`: how long one /proc walk may take (tests shrink it to see "busy"). */
  constructor(private readonly options: { walkBudgetMs?: number } = {}) {}

  /** The verdict for a loopback connection to this process. */
  verdict(connection: LoopbackConnection): Promise<PeerVerdict> {
    if (this.waiting.length >= MAX_WAITING) return Promise.resolve("busy");
    const verdict = new Promise<PeerVerdict>((resolve) => this.waiting.push({ connection, resolve }));
    if (!this.running) void this.drain();
    return verdict;
  }

  /** Judges the waiting checks a batch at a time: those that arrive during a walk join the next. */
  private async drain(): Promise<void> {
    this.running = true;
    try {
      while (this.waiting.length > 0) {
        const batch = this.waiting;
        this.waiting = [];
        await this.judge(batch).catch(() => {
          for (const { resolve } of batch) resolve("unknown");
        });
      }
    } finally {
      this.running = false;
    }
  }

  private async judge(batch: Waiting[]): Promise<void> {
    const euid = process.geteuid?.() ?? -1;
    const now = performance.now();
    for (const [inode, { at }] of this.recent) if (now - at > RECENT_MS) this.recent.delete(inode);
    const sockets = await findClientSockets(batch.map((check) => check.connection));
    const ours = new Map<string, Waiting[]>();
    for (const check of batch) {
      const socket = sockets.get(connectionKey(check.connection));
      if (!socket) check.resolve("unknown");
      else if (socket.uid !== euid) check.resolve("other-user");
      else {
        const known = this.recent.get(socket.inode);
        if (known) check.resolve(known.verdict);
        else ours.set(socket.inode, [...(ours.get(socket.inode) ?? []), check]);
      }
    }
    if (ours.size === 0) return;
    // This user's other connections to the server: the walk notes those it meets, so a flood of
    // connections from one process costs one read of that process's fds, not one per connection.
    const watched = new Set(
      [...sockets.values()].filter((s) => s.uid === euid && !this.recent.has(s.inode)).map((s) => s.inode),
    );
    const verdicts = await judgeSocketHolders(new Set(ours.keys()), {
      uid: euid,
      budgetMs: this.options.walkBudgetMs ?? WALK_BUDGET_MS,
      watched,
      // A small client found early is answered at once, while the walk goes on for the rest.
      onVerdict: (inode, verdict) => {
        for (const check of ours.get(inode) ?? []) check.resolve(verdict);
      },
    });
    for (const [inode, verdict] of verdicts)
      if (verdict === "confined" || verdict === "unconfined") this.recent.set(inode, { verdict, at: now });
  }
}

/** True for 127.0.0.0/8, ::1 and IPv4-mapped loopback. */
export function isLoopbackAddress(address: string): boolean {
  const plain = address.startsWith("::ffff:") ? address.slice(7) : address;
  if (isIP(plain) === 4) return plain.startsWith("127.");
  return plain === "::1";
}
