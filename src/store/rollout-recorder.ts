/**
 * The JSONL store's writer: appends a thread's lines to its rollout file, one `write` per batch
 * of whole lines, so a crash never leaves more than a torn last line (skipped on load).
 */
import { type FileHandle, mkdir, open } from "node:fs/promises";
import { join } from "node:path";
import { LineWriter } from "./line-writer.js";
import { type RolloutLine, rolloutPath, type SessionMeta } from "./rollout.js";
import type { WriterOptions } from "./thread-store.js";

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
