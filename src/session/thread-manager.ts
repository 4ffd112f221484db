/**
 * ThreadManager: the live threads of one process, each recorded to its ThreadStore.
 * Responsibilities: start threads; load stored ones on demand (resume, fork); keep one live
 * Thread per id; expire idle threads from memory (never from the store) after a TTL; flush and
 * close every writer on close(). Each open thread holds a lease (thread-lock.ts), so no other
 * process runs turns on it meanwhile. The library, the CLI and the servers all go through it, and
 * it alone talks to the store.
 * On a shared store (several processes, thread-store.ts) a thread leaves memory, and gives its
 * lease back, once it has been idle for SHARED_STORE_TTL_MS: the next turn may come to any process.
 */

import type { Config } from "../config/load.js";
import type { NotifyConfig } from "../config/notify-config.js";
import type { Event } from "../protocol/events.js";
import { JsonlThreadStore } from "../store/jsonl-store.js";
import type { RolloutEvent, RolloutLine, SessionMeta } from "../store/rollout.js";
import type { StoredThread } from "../store/rollout-reader.js";
import type { ThreadLease, ThreadLeases } from "../store/thread-lock.js";
import {
  StoreError,
  summaryOf,
  type ThreadPage,
  type ThreadQuery,
  type ThreadStore,
  type ThreadSummary,
  type ThreadWriter,
} from "../store/thread-store.js";
import { uuidv7 } from "../util/ids.js";
import { isoTimestamp } from "../util/iso-time.js";
import type { AgentHost, ChildThreadOptions } from "./agent-control.js";
import { type CreateThreadOptions, createThread } from "./create.js";
import { notifier } from "./notify.js";
import type { Thread, TurnStatus } from "./thread.js";

/** Default idle time before a live thread leaves memory: 30 minutes. */
export const DEFAULT_SESSION_TTL_MS = 30 * 60_000;
/** How long closing waits for a thread's shutdown before moving on. */
const SHUTDOWN_BOUND_MS = 5_000;
/** On a shared store, how long opening a thread waits for another process to finish with it. */
export const DEFAULT_LEASE_WAIT_MS = 5_000;
/**
 * On a shared store, how long an idle thread stays in memory (holding its lease): long enough
 * for a front-end to start the turn it opened the thread for, short next to the lease wait.
 */
export const SHARED_STORE_TTL_MS = 1_000;
/** The manager's own listeners only watch turn boundaries (Thread.subscribe). */
const NO_DELTAS = { outputDeltas: false };

export interface ThreadManagerOptions {
  config: Config;
  /** Recorded as the rollout's `source`: "exec", "sdk", "mcp-server"… */
  source: string;
  /** `originator` header of the model requests. */
  originator: string;
  /** Idle time before a thread leaves memory (default $TSCODEX_SESSION_TTL_MS, else 30 min). */
  ttlMs?: number;
  /** false: record nothing (threads cannot be resumed). Default true. */
  persist?: boolean;
  /** Where threads live (closed with the manager). Default: JSONL rollouts under the config's home. */
  store?: ThreadStore;
  /**
   * Where the per-thread leases come from (one process at a time per thread). Default: the
   * store's when persisting, none otherwise.
   */
  leases?: ThreadLeases | null;
  /** How long opening a thread held elsewhere waits (default: 5 s on a shared store, else 0). */
  leaseWaitMs?: number;
  /** Recorded in each new thread's session_meta (e.g. the SDK's `thread_source`). */
  metadata?: { thread_source?: string; cyber_access_program?: string };
  env?: NodeJS.ProcessEnv;
}

/**
 * What a thread is opened with; `originator` comes from the manager. `config` replaces the
 * manager's configuration for this thread only (e.g. an MCP `codex` call's own overrides); it
 * must share the manager's home.
 */
export type OpenThreadOptions = Partial<Omit<CreateThreadOptions, "originator" | "threadId" | "agents">> & {
  config?: Config;
  /** This thread is a sub-agent: recorded with its parent, depth and agent type. */
  childOf?: { parentId: string; depth: number; agentType: string | null };
};

/** A thread's last turn: running now, how it ended, or "idle" before the first. */
export interface LastTurn {
  state: "idle" | "running" | TurnStatus;
  /** The failure message when state is "failed". */
  error: string | null;
}

/** What the manager knows of a live thread from its events, without reading its rollout. */
export interface LiveThreadState {
  thread: Thread;
  /** As the rollout's first line records it. */
  meta: SessionMeta;
  /** The rollout file; null when the manager does not persist. */
  path: string | null;
  /** Turns started, the stored ones included. */
  turns: number;
  lastTurn: LastTurn;
  /** When the thread was last opened, resumed or ended a turn (ms since the epoch). */
  lastActive: number;
}

/** A stored thread as read, and its store version just before the read. */
interface StoredRead {
  stored: StoredThread;
  version: number | null;
}

interface LiveThread {
  thread: Thread;
  recorder: ThreadWriter | null;
  lease: ThreadLease | null;
  /** Lines stored when it was opened from the store (the recorder counts what it adds); null when made here. */
  linesAtOpen: number | null;
  meta: SessionMeta;
  turns: number;
  lastTurn: LastTurn;
  lastActive: number;
}

export class ThreadManager implements AgentHost {
  private readonly live = new Map<string, LiveThread>();
  private readonly opening = new Map<string, Promise<Thread>>();
  private readonly ttlMs: number;
  private readonly leases: ThreadLeases | null;
  private readonly leaseWaitMs: number;
  private sweeper: NodeJS.Timeout | null = null;
  private closing: Promise<void> | null = null;
  /** Where threads live (read-only views may use it; writes go through the manager). */
  readonly store: ThreadStore;

  constructor(private readonly options: ThreadManagerOptions) {
    this.store = options.store ?? new JsonlThreadStore(options.config.home);
    this.leases =
      options.leases !== undefined ? options.leases : options.persist === false ? null : this.store.leases;
    this.leaseWaitMs =
      options.leaseWaitMs ??
      options.config.store?.leaseWaitMs ??
      (this.store.shared ? DEFAULT_LEASE_WAIT_MS : 0);
    this.leases?.watchLost?.((threadIds) => this.leasesLost(threadIds));
    const env = options.env ?? process.env;
    const fromEnv = Number(env.TSCODEX_SESSION_TTL_MS);
    // A shared store's threads leave memory once idle: the next turn may come to another process.
    this.ttlMs =
      options.ttlMs ??
      (fromEnv > 0 ? fromEnv : this.store.shared ? SHARED_STORE_TTL_MS : DEFAULT_SESSION_TTL_MS);
  }

  /** Live threads in memory now. */
  get size(): number {
    return this.live.size;
  }

  /** A new thread, recorded from its first line. */
  async start(options: OpenThreadOptions = {}, id: string = uuidv7()): Promise<Thread> {
    return this.open(id, options, null);
  }

  /**
   * Thread `id` (a unique prefix works) or, with "last", the newest stored thread: the live one
   * if it is in memory, else loaded from its rollout. Throws when there is no such thread.
   */
  async resume(id: string | { last: true }, options: OpenThreadOptions = {}): Promise<Thread> {
    const exact = typeof id === "string" ? this.live.get(id) : undefined;
    if (exact) return this.touch(exact);
    const full = typeof id === "string" ? await this.store.resolveId(id) : await this.store.newestId();
    if (!full)
      throw new StoreError(
        typeof id === "string" ? `no stored thread with id ${id}` : "no stored thread to resume",
      );
    return this.openStored(full, options);
  }

  /** The live thread `id`, without loading anything. */
  peek(id: string): Thread | undefined {
    return this.live.get(id)?.thread;
  }

  /** A sub-agent of `options.parentId`: a new thread with the parent's settings and the agent's. */
  openChild(options: ChildThreadOptions): Promise<Thread> {
    const { profile } = options;
    return this.start({
      cwd: options.cwd,
      approvalPolicy: options.approvalPolicy,
      permissions: options.permissions,
      model: profile?.model,
      developerInstructions: profile?.developerInstructions,
      reasoningEffort: profile?.reasoningEffort,
      allowedTools: profile?.tools,
      childOf: { parentId: options.parentId, depth: options.depth, agentType: options.agentType },
    });
  }

  /** Reopen stored thread `id`, which must be a sub-agent of `parentId`. */
  async reopenChild(id: string, parentId: string): Promise<Thread> {
    const full = await this.store.resolveId(id).catch(() => null);
    const stored = full ? await this.store.read(full) : null;
    if (!stored || stored.meta.parent_id !== parentId)
      throw new Error(`no sub-agent with id ${id} of this thread`);
    return this.openStored(stored.meta.id, {});
  }

  /** Shut thread `id` down and flush its rollout; it stays on disk. */
  async closeThread(id: string): Promise<void> {
    const entry = this.live.get(id);
    if (entry) await this.evict(id, entry);
  }

  /** Live thread `id`'s turn state and metadata (a snapshot), without loading anything. */
  liveState(id: string): LiveThreadState | undefined {
    const entry = this.live.get(id);
    if (!entry) return undefined;
    const { thread, recorder, meta, turns, lastTurn, lastActive } = entry;
    return { thread, meta, path: recorder?.path ?? null, turns, lastTurn: { ...lastTurn }, lastActive };
  }

  /** Copy the first `turns` turns (default all) of thread `id` into a new live thread. */
  async fork(
    id: string,
    forkOptions: { turns?: number; newId?: string } = {},
    options: OpenThreadOptions = {},
  ): Promise<Thread> {
    // A live source may have lines still queued: store them before copying.
    for (const entry of this.live.values()) if (entry.thread.id.startsWith(id)) await entry.recorder?.flush();
    const forked = await this.store.fork(id, forkOptions);
    return this.openStored(forked, options);
  }

  /**
   * Drop live thread `id` from memory (shut down, rollout flushed); its rollout stays. A later
   * resume reads the rollout again, so it sees what other processes appended meanwhile.
   */
  async release(id: string): Promise<void> {
    const live = this.live.get(id);
    if (live) await this.evict(id, live);
  }

  /** Stored threads, newest first. */
  async list(limit?: number): Promise<ThreadSummary[]> {
    const page = await this.store.list(limit === undefined ? {} : { limit });
    return page.threads.map(summaryOf);
  }

  /** One page of stored threads (the store's query: order, filters, cursor). */
  listPage(query: ThreadQuery): Promise<ThreadPage> {
    return this.store.list(query);
  }

  /** Thread `id` as stored (a live one's queued lines stored first); null when it is nowhere. */
  async read(id: string, options: { archived?: boolean } = {}): Promise<StoredThread | null> {
    await this.live.get(id)?.recorder?.flush();
    return this.store.read(id, options);
  }

  /** Drop thread `id` from memory and from the store; false when it was stored nowhere. */
  async delete(id: string): Promise<boolean> {
    const live = this.live.get(id);
    if (live) await this.evict(id, live);
    return this.store.delete(id);
  }

  /** Move thread `id` to the archive (it leaves memory); false when it is not stored. */
  async archive(id: string): Promise<boolean> {
    return this.whileHeld(id, () => this.store.archive(id));
  }

  /** Move archived thread `id` back to the live list; false when it is not in the archive. */
  async unarchive(id: string): Promise<boolean> {
    return this.whileHeld(id, () => this.store.unarchive(id));
  }

  /**
   * Append `lines` to stored thread `id` (a name, metadata, injected history): through its writer
   * when it is live here, else under its lease. Resolves once stored; false when it is not stored.
   * A live thread's memory does not see injected history: release it first for that.
   */
  async appendLines(id: string, lines: readonly RolloutLine[]): Promise<boolean> {
    const live = this.live.get(id);
    if (live?.recorder) {
      for (const line of lines) live.recorder.writeLine(line);
      await live.recorder.flush();
      return true;
    }
    if (live || this.options.persist === false) return live !== undefined;
    if ((await this.store.version(id)) === null) return false;
    const lease = (await this.leases?.acquire(id, { waitMs: this.leaseWaitMs })) ?? null;
    try {
      const writer = await this.store.append(id);
      for (const line of lines) writer.writeLine(line);
      await writer.close();
      return true;
    } finally {
      await lease?.release();
    }
  }

  /** Drop the last `numTurns` turns of thread `id` (it leaves memory); false when it is not stored. */
  async rollback(id: string, numTurns: number): Promise<boolean> {
    return this.whileHeld(id, () => this.store.rollback(id, numTurns));
  }

  /**
   * How many lines thread `id` has stored (a live one's queued lines stored first); null when
   * absent. A live thread opened from the store is counted without reading it: the lines it was
   * opened with plus those its writer stored since (it holds the lease, so no one else appends).
   */
  async storedLines(id: string): Promise<number | null> {
    const live = this.live.get(id);
    if (live?.recorder) {
      await live.recorder.flush();
      if (live.linesAtOpen !== null) return live.linesAtOpen + live.recorder.linesStored;
    }
    return (await this.store.readLines(id))?.length ?? null;
  }

  /**
   * Keep the first `lines` lines of thread `id` (it leaves memory; under its lease): undo what a
   * turn that died with its process left. False when it is not stored.
   */
  async truncate(id: string, lines: number): Promise<boolean> {
    return this.whileHeld(id, () => this.store.truncate(id, lines));
  }

  /**
   * These threads' leases are gone (the store's connection dropped): another process may run
   * them now, so a running turn here ends as failed and the thread leaves memory.
   */
  private leasesLost(threadIds: string[]): void {
    for (const id of threadIds) {
      const entry = this.live.get(id);
      if (!entry) continue;
      entry.thread.failTurn(
        "the thread's lease in the store was lost (its database connection dropped); resume the thread to continue",
      );
      void this.evict(id, entry);
    }
  }

  /** Run `change` on stored thread `id` with it out of memory and under its lease. */
  private async whileHeld(id: string, change: () => Promise<boolean>): Promise<boolean> {
    const live = this.live.get(id);
    if (live) await this.evict(id, live);
    const lease = (await this.leases?.acquire(id, { waitMs: this.leaseWaitMs })) ?? null;
    try {
      return await change();
    } finally {
      await lease?.release();
    }
  }

  /**
   * Shut every live thread down, flush its writer, then close the store. Once: a server's
   * shutdown ends the threads while draining, and its final cleanup calls this again.
   */
  close(): Promise<void> {
    this.closing ??= this.closeNow();
    return this.closing;
  }

  private async closeNow(): Promise<void> {
    if (this.sweeper) clearInterval(this.sweeper);
    this.sweeper = null;
    // A thread still opening would be live after the sweep below, its turn running on: wait.
    await Promise.allSettled([...this.opening.values()]);
    await Promise.all([...this.live].map(([id, entry]) => this.evict(id, entry)));
    await this.store.close();
  }

  /** Stored thread `id`: the live one if it is in memory, else loaded from the store. */
  private async openStored(id: string, options: OpenThreadOptions): Promise<Thread> {
    const live = this.live.get(id);
    if (live) return this.touch(live);
    const pending = this.opening.get(id);
    if (pending) return pending;
    // Threads only grow: the version before reading tells whether it changed since.
    const version = await this.store.version(id);
    const stored = await this.store.read(id);
    if (!stored) throw new StoreError(`no stored thread with id ${id}`);
    return this.open(id, { cwd: stored.meta.cwd, ...options }, { stored, version });
  }

  private async open(id: string, options: OpenThreadOptions, from: StoredRead | null): Promise<Thread> {
    // Closing (a server draining): nothing new may start, so nothing outlives the close.
    if (this.closing) throw new ThreadManagerClosedError();
    const opening = this.openNow(id, options, from);
    this.opening.set(id, opening);
    try {
      return await opening;
    } finally {
      this.opening.delete(id);
    }
  }

  /** Open thread `id` under its lease: refused (ThreadBusyError) while another process has it. */
  private async openNow(id: string, options: OpenThreadOptions, from: StoredRead | null): Promise<Thread> {
    const lease = (await this.leases?.acquire(id, { waitMs: this.leaseWaitMs })) ?? null;
    try {
      // Read again under the lease if the holder that just let go wrote more meanwhile.
      const changed = from && lease && (await this.store.version(id)) !== from.version;
      const stored = changed ? await this.store.read(id) : (from?.stored ?? null);
      if (from && !stored) throw new StoreError(`no stored thread with id ${id}`);
      return await this.openLeased(id, options, stored, lease);
    } catch (error) {
      await lease?.release();
      throw error;
    }
  }

  private async openLeased(
    id: string,
    options: OpenThreadOptions,
    stored: StoredThread | null,
    lease: ThreadLease | null,
  ): Promise<Thread> {
    const { config: own, childOf, ...threadOptions } = options;
    const config = own ?? this.options.config;
    const depth = childOf?.depth ?? stored?.meta.depth ?? 0;
    const thread = await createThread(config, {
      cwd: process.cwd(),
      ...threadOptions,
      originator: this.options.originator,
      threadId: id,
      agents: { host: this, depth },
      ...(childOf
        ? { subAgent: { type: childOf.agentType ?? "default", parentThreadId: childOf.parentId } }
        : {}),
      ...(this.options.env ? { env: this.options.env } : {}),
    });
    if (stored) thread.restore(stored);
    const meta = stored?.meta ?? this.meta(thread, options, config);
    let recorder: ThreadWriter | null = null;
    if (this.options.persist !== false) {
      const writerOptions = {
        fsync: config.rolloutFsync,
        // The store is gone (after its retries): the running turn ends with the reason.
        onFailure: (error: Error) => thread.failTurn(`the thread store failed: ${error.message}`),
      };
      recorder = stored
        ? await this.store.append(id, writerOptions)
        : await this.store.create(meta, writerOptions);
      recorder.attach(thread);
      thread.transcriptPath = recorder.path;
    }
    const entry: LiveThread = {
      thread,
      recorder,
      lease,
      linesAtOpen: stored?.lines.length ?? null,
      meta,
      turns: stored?.turns ?? 0,
      lastTurn: stored ? storedLastTurn(stored) : { state: "idle", error: null },
      lastActive: Date.now(),
    };
    // A stored turn without an end was cut off (a crash): nothing runs in a thread just opened.
    if (entry.lastTurn.state === "running") entry.lastTurn = { state: "interrupted", error: null };
    thread.subscribe((event) => {
      if (event.type === "turn_started") {
        entry.turns += 1;
        entry.lastTurn = { state: "running", error: null };
      }
      const ended = turnEnd(event);
      if (ended) {
        entry.lastTurn = ended;
        entry.lastActive = Date.now();
      }
    }, NO_DELTAS);
    // `notify = [...]`: the thread's own turns (a sub-agent's go to its parent as events).
    if (config.notify && !childOf)
      thread.subscribe(threadNotifier(thread, config.notify, this.options), NO_DELTAS);
    this.live.set(id, entry);
    this.startSweeper();
    return thread;
  }

  private meta(thread: Thread, options: OpenThreadOptions, config: Config): SessionMeta {
    const instructions = options.baseInstructions ?? config.baseInstructions;
    const profile = thread.effectiveSettings.permissions.profile;
    return {
      id: thread.id,
      created: isoTimestamp(),
      cwd: thread.cwd,
      model: options.model ?? config.model,
      provider: config.provider.id,
      approval_policy: options.approvalPolicy ?? config.approvalPolicy,
      sandbox_mode: thread.effectiveSettings.sandbox.mode,
      ...(profile ? { permission_profile: profile.id } : {}),
      source: this.options.source,
      ...this.options.metadata,
      ...(instructions !== undefined ? { instructions } : {}),
      ...(thread.clientTools.length > 0 ? { client_tools: [...thread.clientTools] } : {}),
      ...(options.childOf
        ? {
            parent_id: options.childOf.parentId,
            depth: options.childOf.depth,
            ...(options.childOf.agentType ? { agent_type: options.childOf.agentType } : {}),
          }
        : {}),
    };
  }

  private touch(entry: LiveThread): Thread {
    entry.lastActive = Date.now();
    return entry.thread;
  }

  private startSweeper(): void {
    if (this.sweeper) return;
    const period = Math.min(Math.max(this.ttlMs / 2, 10), 60_000);
    this.sweeper = setInterval(() => this.sweep(), period);
    // Idle expiry must never keep the process alive.
    this.sweeper.unref();
  }

  private sweep(): void {
    const now = Date.now();
    for (const [id, entry] of this.live) {
      if (entry.lastTurn.state !== "running" && now - entry.lastActive >= this.ttlMs)
        void this.evict(id, entry);
    }
    if (this.live.size === 0 && this.sweeper) {
      clearInterval(this.sweeper);
      this.sweeper = null;
    }
  }

  private async evict(id: string, entry: LiveThread): Promise<void> {
    if (this.live.get(id) !== entry) return;
    this.live.delete(id);
    const done = new Promise<void>((resolve) => {
      entry.thread.subscribe((event) => {
        if (event.type === "shutdown_complete") resolve();
      }, NO_DELTAS);
    });
    entry.thread.submit({ type: "shutdown" });
    // Bounded: a tool resource that will not close (a hung MCP server) must not hang the exit.
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, SHUTDOWN_BOUND_MS);
      timer.unref();
    });
    await Promise.race([done, bound]);
    clearTimeout(timer);
    await entry.recorder?.close();
    await entry.lease?.release();
  }
}

/** A thread was to be opened after close() began (a server shutting down). */
export class ThreadManagerClosedError extends Error {
  override name = "ThreadManagerClosedError";
  constructor() {
    super("the server is shutting down: no new turns start");
  }
}

/** The last turn of a stored thread as its rollout recorded it ("running": started, no end). */
export function storedLastTurn(stored: StoredThread): LastTurn {
  let last: LastTurn = { state: "idle", error: null };
  for (const line of stored.lines) {
    if (line.type !== "event") continue;
    if (line.payload.type === "turn_started") last = { state: "running", error: null };
    else last = turnEnd(line.payload) ?? last;
  }
  return last;
}

function turnEnd(event: Event | RolloutEvent): LastTurn | null {
  if (event.type === "turn_complete") return { state: "completed", error: null };
  if (event.type === "turn_parked") return { state: "parked", error: null };
  if (event.type === "turn_continued") return { state: "running", error: null };
  if (event.type === "turn_aborted") return { state: "interrupted", error: null };
  if (event.type === "turn_failed") return { state: "failed", error: event.message };
  return null;
}

/** The `notify` listener of a thread; `client` is Codex's name for the front-end, where it has one. */
function threadNotifier(thread: Thread, config: NotifyConfig, options: ThreadManagerOptions) {
  return notifier(config, {
    threadId: thread.id,
    cwd: thread.cwd,
    ...(options.source === "exec" ? { client: "codex_exec" } : {}),
    env: {
      ...(options.env ?? process.env),
      CODEX_HOME: options.env?.CODEX_HOME ?? process.env.CODEX_HOME ?? options.config.home,
    },
    warn: (message) => thread.publish({ type: "warning", message }),
  });
}
