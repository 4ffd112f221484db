/**
 * Rollouts: every thread as a JSONL file under `$TSCODEX_HOME/sessions/YYYY/MM/DD/`.
 * Responsibilities: name the file; write the metadata line first, then one line per history item
 * and per key event, appended as they happen (one `write` per batch of whole lines, so a crash
 * never leaves more than a torn last line); optionally fdatasync after each batch.
 * Flow: RolloutRecorder.create(meta) | .append(path) → attach(thread) → lines → close().
 */
import { type FileHandle, mkdir, open } from "node:fs/promises";
import { join } from "node:path";
import type { ClientToolSpec } from "../protocol/client-tools.js";
import type { Event } from "../protocol/events.js";
import type { ResponseItem, TokenUsage } from "../protocol/items.js";
import type { ThreadWriter, WriterOptions } from "./thread-store.js";

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

/** Something to record: a Thread's subscribe(). */
export interface EventSource {
  subscribe(listener: (event: Event) => void): () => void;
}

/** The rollout line an event is kept as, or null for events not worth keeping. */
export function lineOfEvent(event: Event): { type: LineType; payload: PayloadOf<LineType> } | null {
  switch (event.type) {
    case "raw_response_item":
      return { type: "response_item", payload: event.item };
    case "turn_started":
    case "turn_aborted":
    case "turn_continued":
      return { type: "event", payload: { type: event.type, turn_id: event.turn_id } };
    case "turn_complete":
      return { type: "event", payload: { type: event.type, turn_id: event.turn_id, usage: event.usage } };
    case "turn_failed":
      return { type: "event", payload: { type: event.type, turn_id: event.turn_id, message: event.message } };
    case "turn_parked":
      return {
        type: "event",
        payload: { type: event.type, turn_id: event.turn_id, call_ids: event.call_ids, usage: event.usage },
      };
    case "token_count":
      return { type: "event", payload: { type: event.type, last: event.last, total: event.total } };
    case "user_message":
      return { type: "event", payload: { type: event.type, message: event.message } };
    case "client_tools_changed":
      return { type: "event", payload: { type: event.type, tools: event.tools } };
    case "context_compacted":
      return {
        type: "compacted",
        payload: { summary: event.summary, replacement_history: event.replacement_history },
      };
    default:
      return null;
  }
}

/**
 * The common part of every store's ThreadWriter: lines recorded in the same tick go out as one
 * batch; batches never overlap; a failed batch never breaks the thread (it surfaces on flush(),
 * close() and once through `onFailure`). Subclasses store a batch.
 */
export abstract class LineWriter implements ThreadWriter {
  private pending: RolloutLine[] = [];
  private writing: Promise<void> = Promise.resolve();
  private scheduled = false;
  private failure: Error | null = null;
  private closed = false;

  protected constructor(
    readonly threadId: string,
    readonly path: string | null,
    protected readonly options: WriterOptions,
  ) {}

  /** Store `lines` after every earlier batch (retrying as the store sees fit); throw on failure. */
  protected abstract store(lines: RolloutLine[]): Promise<void>;
  /** Let go of what the writer holds (a file handle…), after the last batch. */
  protected abstract release(): Promise<void>;

  attach(source: EventSource): () => void {
    return source.subscribe((event) => this.recordEvent(event));
  }

  recordEvent(event: Event): void {
    const line = lineOfEvent(event);
    if (line) this.write(line.type, line.payload);
  }

  write<T extends LineType>(type: T, payload: PayloadOf<T>): void {
    this.writeLine({ timestamp: new Date().toISOString(), type, payload } as RolloutLine);
  }

  writeLine(line: RolloutLine): void {
    if (this.closed) return;
    this.pending.push(line);
    if (this.scheduled) return;
    this.scheduled = true;
    this.writing = this.writing.then(() => this.drain());
  }

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
      await this.release();
    }
  }

  private async drain(): Promise<void> {
    this.scheduled = false;
    if (this.pending.length === 0 || this.failure) return;
    const lines = this.pending;
    this.pending = [];
    try {
      await this.store(lines);
    } catch (error) {
      // Later lines are not stored after a failed batch: the thread's lines stay in order.
      this.failure = error instanceof Error ? error : new Error(String(error));
      this.options.onFailure?.(this.failure);
    }
  }
}

/** Appends lines to one rollout file: one `write` per batch of whole lines. */
export class RolloutRecorder extends LineWriter {
  declare readonly path: string;

  private constructor(
    threadId: string,
    path: string,
    private readonly handle: FileHandle,
    options: WriterOptions,
  ) {
    super(threadId, path, options);
  }

  /** A new rollout whose first line is `meta`. */
  static async create(
    home: string,
    meta: SessionMeta,
    options: WriterOptions = {},
  ): Promise<RolloutRecorder> {
    const path = rolloutPath(home, meta.id, new Date(meta.created));
    await mkdir(join(path, ".."), { recursive: true });
    const recorder = new RolloutRecorder(meta.id, path, await open(path, "a"), options);
    recorder.write("session_meta", meta);
    await recorder.flush();
    return recorder;
  }

  /** Continue an existing rollout (a resumed thread appends where it left off). */
  static async append(threadId: string, path: string, options: WriterOptions = {}): Promise<RolloutRecorder> {
    const handle = await open(path, "a+");
    const recorder = new RolloutRecorder(threadId, path, handle, options);
    // A torn last line (crash mid-write) must not swallow the next line.
    const { size } = await handle.stat();
    if (size > 0) {
      const last = Buffer.alloc(1);
      await handle.read(last, 0, 1, size - 1);
      recorder.tornTail = last[0] !== 0x0a;
    }
    return recorder;
  }

  private tornTail = false;

  protected async store(lines: RolloutLine[]): Promise<void> {
    const text = `${this.tornTail ? "\n" : ""}${lines.map((line) => JSON.stringify(line)).join("\n")}\n`;
    await this.handle.write(text);
    this.tornTail = false;
    if (this.options.fsync) await this.handle.datasync();
  }

  protected release(): Promise<void> {
    return this.handle.close();
  }
}
