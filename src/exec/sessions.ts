/**
 * The exec sessions of one thread: id → live process, for exec_command / write_stdin.
 *
 * Responsibilities: give each session a random id of up to five digits; cap the live ones
 * (the least recently used idle session is ended to make room, and the caller is told);
 * serialize calls on one session; wait for a call's yield time, the exit or an abort; end
 * every process (and what it left behind) when the thread is disposed. A process-wide
 * safety net SIGKILLs whatever is left if the process exits without disposing.
 *
 * Flow: start → [prune] → ExecSession.start → map. interact: lock → write → wait (deadline |
 * exit | abort) → take output → exited? forget the id. dispose: terminate all → sweep.
 */
import { existsSync } from "node:fs";
import type { ScopedResource } from "../util/resource-scope.js";
import { type CapturedText, EMPTY_TEXT } from "./head-tail-buffer.js";
import { signalSessionsSync } from "./process-tree.js";
import { ExecSession, type ExecSessionSpec, type SessionExit, terminate } from "./session.js";

/** Codex's limit on live sessions per thread. */
export const MAX_LIVE_SESSIONS = 64;
const DEFAULT_KILL_GRACE_MS = 500;
const MIN_SESSION_ID = 1000;
const MAX_SESSION_ID = 99_999;

export interface ExecSessionManagerOptions {
  maxSessions?: number;
  /** Between SIGTERM and SIGKILL when ending sessions. */
  killGraceMs?: number;
}

export interface StartedSession {
  session: ExecSession;
  /** The session ended to make room for this one, if any. */
  pruned: ExecSession | null;
}

export interface InteractionResult {
  /** Output since the previous call; empty when aborted (it stays for the next call). */
  output: CapturedText;
  /** Set when the process exited; its id is unknown from now on. */
  exit: SessionExit | null;
  aborted: boolean;
}

/** Too many live sessions, all of them busy. */
export class SessionLimitError extends Error {
  override name = "SessionLimitError";
}

// ---------------------------------------------------------------------------------------------
// Safety net: leaders of sessions not yet disposed are SIGKILLed (with their sessions) when
// the process exits, or dies of a signal nobody else handles, before a thread was disposed.

/** Leader pid → whether it exited (then its pid may be reused once its session is empty). */
const liveLeaders = new Map<number, { exited: boolean }>();

function track(session: ExecSession): void {
  if (liveLeaders.size === 0) installHooks();
  const record = { exited: false };
  liveLeaders.set(session.pid, record);
  void session.exited.then(() => {
    record.exited = true;
  });
}

function untrack(pids: Iterable<number>): void {
  for (const pid of pids) liveLeaders.delete(pid);
  if (liveLeaders.size === 0) removeHooks();
}

function killAllNow(): void {
  // An exited leader's pid held by a process again means it was reused (see terminate()).
  const leaders = [...liveLeaders].filter(([pid, { exited }]) => !exited || !existsSync(`/proc/${pid}`));
  signalSessionsSync(
    leaders.map(([pid]) => pid),
    "SIGKILL",
  );
  untrack([...liveLeaders.keys()]);
}

const FATAL_SIGNALS: readonly NodeJS.Signals[] = ["SIGTERM", "SIGHUP", "SIGINT"];

function onFatalSignal(signal: NodeJS.Signals): void {
  // Someone else handles this signal (e.g. the CLI turns SIGINT into an interrupt): their call.
  if (process.listenerCount(signal) > 1) return;
  killAllNow();
  // Die of the signal as the process would have without this handler.
  process.kill(process.pid, signal);
}

function installHooks(): void {
  process.on("exit", killAllNow);
  for (const signal of FATAL_SIGNALS) process.on(signal, onFatalSignal);
}

function removeHooks(): void {
  process.off("exit", killAllNow);
  for (const signal of FATAL_SIGNALS) process.off(signal, onFatalSignal);
}

export class ExecSessionManager implements ScopedResource {
  private readonly sessions = new Map<number, ExecSession>();
  private readonly reserved = new Set<number>();
  /** Leaders of every session started here, for the final sweep of what they left behind. */
  private readonly leaders = new Set<number>();
  private readonly locks = new WeakMap<ExecSession, Promise<unknown>>();
  private readonly maxSessions: number;
  private readonly killGraceMs: number;
  private closed = false;

  constructor(options: ExecSessionManagerOptions = {}) {
    this.maxSessions = Math.max(1, options.maxSessions ?? MAX_LIVE_SESSIONS);
    this.killGraceMs = options.killGraceMs ?? DEFAULT_KILL_GRACE_MS;
  }

  /** How many sessions may be live at once. */
  get limit(): number {
    return this.maxSessions;
  }

  /** Sessions the model can still address (running, or exited but not yet reported). */
  get size(): number {
    return this.sessions.size;
  }

  get(id: number): ExecSession | undefined {
    return this.sessions.get(id);
  }

  /** Starts a session; rejects as ExecSession.start does, or with SessionLimitError. */
  async start(spec: ExecSessionSpec): Promise<StartedSession> {
    if (this.closed) throw new Error("the thread is shut down");
    let pruned: ExecSession | null = null;
    if (this.sessions.size + this.reserved.size >= this.maxSessions) {
      pruned = this.leastRecentlyUsedIdle();
      if (!pruned) {
        throw new SessionLimitError(`${this.maxSessions} sessions are running and all are in use`);
      }
      this.sessions.delete(pruned.id);
      void terminate([pruned], "prune", this.killGraceMs);
    }
    const id = this.newId();
    this.reserved.add(id);
    try {
      const session = await ExecSession.start(id, spec);
      this.leaders.add(session.pid);
      track(session);
      if (this.closed) {
        await terminate([session], "shutdown", this.killGraceMs);
        throw new Error("the thread is shut down");
      }
      this.sessions.set(id, session);
      return { session, pruned };
    } finally {
      this.reserved.delete(id);
    }
  }

  /**
   * Writes `chars` (tty sessions), then waits until `deadline` (performance.now() time), the
   * exit, or `signal` aborts, and returns the output since the previous call. Calls on one
   * session run one after another.
   */
  interact(
    session: ExecSession,
    chars: string,
    deadline: number,
    signal?: AbortSignal,
  ): Promise<InteractionResult> {
    const previous = this.locks.get(session) ?? Promise.resolve();
    // Busy from now, not from when the lock is ours: a queued call protects it from pruning too.
    session.busy++;
    session.lastUsed = performance.now();
    const run = previous
      .then(async (): Promise<InteractionResult> => {
        session.write(chars);
        const aborted = await waitForExit(session, deadline, signal);
        if (aborted) return { output: EMPTY_TEXT, exit: null, aborted };
        const output = session.takeOutput();
        const exit = session.exit;
        if (exit && this.sessions.get(session.id) === session) this.sessions.delete(session.id);
        return { output, exit, aborted };
      })
      .finally(() => {
        session.busy--;
        session.lastUsed = performance.now();
      });
    this.locks.set(
      session,
      run.catch(() => {}),
    );
    return run;
  }

  /** Ends the session when `signal` aborts (its turn is interrupted), unless it exited before. */
  endOnAbort(session: ExecSession, signal: AbortSignal): void {
    if (signal.aborted) {
      void this.end(session, "interrupt");
      return;
    }
    const unsubscribe = whenAborted(signal, () => void this.end(session, "interrupt"));
    void session.exited.then(unsubscribe);
  }

  /** Ends one session now (e.g. its turn was interrupted); its id is forgotten. */
  async end(session: ExecSession, reason: "interrupt" | "prune"): Promise<void> {
    if (this.sessions.get(session.id) === session) this.sessions.delete(session.id);
    await terminate([session], reason, this.killGraceMs);
  }

  /** Ends every session and whatever their exited leaders left behind. Idempotent. */
  async dispose(): Promise<void> {
    this.closed = true;
    const sessions = [...this.sessions.values()];
    this.sessions.clear();
    const leaders = [...this.leaders];
    await terminate(sessions, "shutdown", this.killGraceMs, leaders);
    untrack(leaders);
    this.leaders.clear();
  }

  private leastRecentlyUsedIdle(): ExecSession | null {
    let best: ExecSession | null = null;
    for (const session of this.sessions.values()) {
      if (session.busy > 0) continue;
      // An exited session nobody polled yet is the cheapest to give up.
      const rank = (candidate: ExecSession) => (candidate.exit ? 0 : 1);
      if (
        !best ||
        rank(session) < rank(best) ||
        (rank(session) === rank(best) && session.lastUsed < best.lastUsed)
      ) {
        best = session;
      }
    }
    return best;
  }

  private newId(): number {
    for (;;) {
      const id = MIN_SESSION_ID + Math.floor(Math.random() * (MAX_SESSION_ID - MIN_SESSION_ID + 1));
      if (!this.sessions.has(id) && !this.reserved.has(id)) return id;
    }
  }
}

/** Resolves true when `signal` aborted first, false on exit or deadline. */
function waitForExit(session: ExecSession, deadline: number, signal?: AbortSignal): Promise<boolean> {
  if (signal?.aborted) return Promise.resolve(true);
  if (session.exit) return Promise.resolve(false);
  return new Promise((resolve) => {
    let timer: NodeJS.Timeout | undefined;
    let settled = false;
    const done = (aborted: boolean): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      unsubscribe();
      resolve(aborted);
    };
    // Timers count whole milliseconds and may fire a fraction early: re-arm for the rest.
    const arm = (): void => {
      const left = deadline - performance.now();
      if (left <= 0) done(false);
      else timer = setTimeout(arm, Math.ceil(left));
    };
    const unsubscribe = signal ? whenAborted(signal, () => done(true)) : () => {};
    void session.exited.then(() => done(false));
    arm();
  });
}

const abortCallbacks = new WeakMap<AbortSignal, Set<() => void>>();

/**
 * Runs `callback` when `signal` aborts; returns the unsubscribe. One real listener per signal
 * however many sessions and calls of a turn wait on it (Node warns past ten listeners).
 */
function whenAborted(signal: AbortSignal, callback: () => void): () => void {
  let callbacks = abortCallbacks.get(signal);
  if (!callbacks) {
    const created = new Set<() => void>();
    callbacks = created;
    abortCallbacks.set(signal, created);
    signal.addEventListener(
      "abort",
      () => {
        for (const run of [...created]) run();
        created.clear();
      },
      { once: true },
    );
  }
  const registered = callbacks;
  registered.add(callback);
  return () => {
    registered.delete(callback);
  };
}
