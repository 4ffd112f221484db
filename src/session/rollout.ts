/**
 * Rollouts: every thread as a JSONL file under `$TSCODEX_HOME/sessions/YYYY/MM/DD/`.
 * Responsibilities: name the file; write the metadata line first, then one line per history item
 * and per key event, appended as they happen (one `write` per batch of whole lines, so a crash
 * never leaves more than a torn last line); optionally fdatasync after each batch.
 * Flow: RolloutRecorder.create(meta) | .append(path) → attach(thread) → lines → close().
 */
import { mkdir, open } from "node:fs/promises";
import { join } from "node:path";
import type { ClientToolSpec } from "../protocol/client-tools.js";
import type { Event } from "../protocol/events.js";
import type { ResponseItem, TokenUsage } from "../protocol/items.js";

/** The first line of every rollout. */
export interface SessionMeta {
  id: string;
  /** ISO time the thread was created. */
  created: string;
  cwd: string;
  model: string;
  provider: string;
  approval_policy: string;
  sandbox_mode: string;
  /** Who started the thread: "exec", "sdk", "cli", a server name. */
  source: string;
  /** Custom base instructions, when the thread did not use the built-in ones. */
  instructions?: string;
  /** The thread this one was forked from. */
  forked_from?: string;
  /** A sub-agent's parent thread, its depth (1: a child of a top thread) and its agent type. */
  parent_id?: string;
  depth?: number;
  agent_type?: string;
  /** What the client said started the thread (`exec --thread-source`). */
  thread_source?: string;
  /** `exec --cyber-access-program`, as the Codex SDK passes it. */
  cyber_access_program?: string;
  /** The client tools the thread started with (later changes are `client_tools_changed` events). */
  client_tools?: ClientToolSpec[];
}

/** Events worth keeping: turn boundaries, usage and the user's prompts (without images). */
export type RolloutEvent =
  | { type: "turn_started"; turn_id: string }
  | { type: "turn_complete"; turn_id: string; usage: TokenUsage }
  | { type: "turn_aborted"; turn_id: string }
  | { type: "turn_failed"; turn_id: string; message: string }
  | { type: "token_count"; last: TokenUsage | null; total: TokenUsage }
  | { type: "user_message"; message: string }
  | { type: "client_tools_changed"; tools: ClientToolSpec[] }
  /** The turn stopped on these client calls (their items are in history without outputs). */
  | { type: "turn_parked"; turn_id: string; call_ids: string[]; usage: TokenUsage }
  | { type: "turn_continued"; turn_id: string };

/** One line of a rollout (`timestamp` is an ISO time). */
export type RolloutLine =
  | { timestamp: string; type: "session_meta"; payload: SessionMeta }
  | { timestamp: string; type: "response_item"; payload: ResponseItem }
  | { timestamp: string; type: "event"; payload: RolloutEvent }
  /** History was replaced by a compaction; `replacement_history` is the new history. */
  | {
      timestamp: string;
      type: "compacted";
      payload: { summary: string; replacement_history: ResponseItem[] };
    };

type LineType = RolloutLine["type"];
type PayloadOf<T extends LineType> = Extract<RolloutLine, { type: T }>["payload"];

/** `sessions/YYYY/MM/DD/rollout-YYYY-MM-DDThh-mm-ss-<id>.jsonl` (local date, as Codex). */
export function rolloutPath(home: string, id: string, created: Date): string {
  const pad = (n: number) => String(n).padStart(2, "0");
  const [y, m, d] = [String(created.getFullYear()), pad(created.getMonth() + 1), pad(created.getDate())];
  const time = `${y}-${m}-${d}T${pad(created.getHours())}-${pad(created.getMinutes())}-${pad(created.getSeconds())}`;
  return join(sessionsDir(home), y, m, d, `rollout-${time}-${id}.jsonl`);
}

export function sessionsDir(home: string): string {
  return join(home, "sessions");
}

export interface RecorderOptions {
  /** fdatasync after each write: survives power loss, costs a disk flush per batch. */
  fsync?: boolean;
}

/** Something to record: a Thread's subscribe(). */
export interface EventSource {
  subscribe(listener: (event: Event) => void, options?: { outputDeltas?: boolean }): () => void;
}

/** Appends lines to one rollout file. `record` is cheap and synchronous; writes run behind it. */
export class RolloutRecorder {
  private pending: string[] = [];
  private writing: Promise<void> = Promise.resolve();
  private scheduled = false;
  private failure: unknown = null;
  private closed = false;

  private constructor(
    readonly path: string,
    private readonly handle: import("node:fs/promises").FileHandle,
    private readonly options: RecorderOptions,
  ) {}

  /** A new rollout whose first line is `meta`. */
  static async create(
    home: string,
    meta: SessionMeta,
    options: RecorderOptions = {},
  ): Promise<RolloutRecorder> {
    const path = rolloutPath(home, meta.id, new Date(meta.created));
    await mkdir(join(path, ".."), { recursive: true });
    const recorder = new RolloutRecorder(path, await open(path, "a"), options);
    recorder.write("session_meta", meta);
    await recorder.flush();
    return recorder;
  }

  /** Continue an existing rollout (a resumed thread appends where it left off). */
  static async append(path: string, options: RecorderOptions = {}): Promise<RolloutRecorder> {
    const recorder = new RolloutRecorder(path, await open(path, "a+"), options);
    // A torn last line (crash mid-write) must not swallow the next line.
    const { size } = await recorder.handle.stat();
    if (size > 0) {
      const last = Buffer.alloc(1);
      await recorder.handle.read(last, 0, 1, size - 1);
      if (last[0] !== 0x0a) recorder.pending.push("");
    }
    return recorder;
  }

  /** Record the items and key events of `source` until it is closed; returns the unsubscribe. */
  attach(source: EventSource): () => void {
    return source.subscribe((event) => this.recordEvent(event), { outputDeltas: false });
  }

  recordEvent(event: Event): void {
    switch (event.type) {
      case "raw_response_item":
        this.write("response_item", event.item);
        return;
      case "turn_started":
      case "turn_aborted":
      case "turn_continued":
        this.write("event", { type: event.type, turn_id: event.turn_id });
        return;
      case "turn_complete":
        this.write("event", { type: event.type, turn_id: event.turn_id, usage: event.usage });
        return;
      case "turn_failed":
        this.write("event", { type: event.type, turn_id: event.turn_id, message: event.message });
        return;
      case "turn_parked":
        this.write("event", {
          type: event.type,
          turn_id: event.turn_id,
          call_ids: event.call_ids,
          usage: event.usage,
        });
        return;
      case "token_count":
        this.write("event", { type: event.type, last: event.last, total: event.total });
        return;
      case "user_message":
        this.write("event", { type: event.type, message: event.message });
        return;
      case "client_tools_changed":
        this.write("event", { type: event.type, tools: event.tools });
        return;
      case "context_compacted":
        this.write("compacted", {
          summary: event.summary,
          replacement_history: event.replacement_history,
        });
        return;
      default:
        return;
    }
  }

  write<T extends LineType>(type: T, payload: PayloadOf<T>): void {
    if (this.closed) return;
    this.pending.push(JSON.stringify({ timestamp: new Date().toISOString(), type, payload }));
    if (this.scheduled) return;
    this.scheduled = true;
    // Lines recorded in the same tick go out in one write; writes never overlap.
    this.writing = this.writing.then(() => this.drain());
  }

  /** Resolves once every line recorded so far is written (rejects if a write failed). */
  async flush(): Promise<void> {
    await this.writing;
    if (this.failure) throw this.failure;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    try {
      await this.flush();
    } finally {
      this.closed = true;
      await this.handle.close();
    }
  }

  private async drain(): Promise<void> {
    this.scheduled = false;
    if (this.pending.length === 0) return;
    const text = `${this.pending.join("\n")}\n`;
    this.pending = [];
    try {
      await this.handle.write(text);
      if (this.options.fsync) await this.handle.datasync();
    } catch (error) {
      // Recording must never break the thread; the failure surfaces on flush()/close().
      this.failure ??= error;
    }
  }
}
