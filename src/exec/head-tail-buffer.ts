/**
 * Bounded capture of a byte stream: the first `headLimit` bytes, a ring of the last
 * `tailLimit` bytes, and counts (bytes, characters, lines) of everything written.
 * Memory stays at most headLimit + tailLimit whatever is written, so a 50 MB log costs
 * the same as a 1 MB one, and the model still sees the real end of it (DESIGN.md).
 */
import { isAscii } from "node:buffer";
import { StringDecoder } from "node:string_decoder";

/**
 * Captured output as text. When nothing was dropped `tail` is null and `head` is the whole
 * text; otherwise `head` is the text before the gap and `tail` the text after it, each cut
 * on a character boundary. The totals describe the whole stream, gap included.
 */
export interface CapturedText {
  head: string;
  tail: string | null;
  /** UTF-8 bytes of the whole stream. */
  totalBytes: number;
  /** Characters (code points) of the whole stream; stray continuation bytes are not counted. */
  totalChars: number;
  /** Lines as Rust's `str::lines` counts them: newlines, plus one for an unterminated last line. */
  totalLines: number;
}

/** Nothing captured. */
export const EMPTY_TEXT: CapturedText = { head: "", tail: null, totalBytes: 0, totalChars: 0, totalLines: 0 };

/** Overall cap of one captured stream: Codex keeps 1 MiB; we keep 512 KiB from each end. */
export const DEFAULT_HEAD_BYTES = 512 * 1024;
export const DEFAULT_TAIL_BYTES = 512 * 1024;

export class HeadTailBuffer {
  private head: Buffer | null = null;
  private headLen = 0;
  private ring: Buffer | null = null;
  /** Next write position in the ring; also the oldest byte once the ring has wrapped. */
  private ringPos = 0;
  private ringLen = 0;
  private bytes = 0;
  private newlines = 0;
  private continuationBytes = 0;
  private lastByte = -1;

  constructor(
    readonly headLimit = DEFAULT_HEAD_BYTES,
    readonly tailLimit = DEFAULT_TAIL_BYTES,
  ) {}

  /**
   * Appends a chunk. The chunk is copied; the caller may reuse it. `stats` (from chunkStats)
   * saves counting again when the same chunk goes to several buffers.
   */
  write(chunk: Uint8Array, stats: ChunkStats = chunkStats(chunk)): void {
    const length = chunk.length;
    if (length === 0) return;
    this.bytes += length;
    this.lastByte = chunk[length - 1] ?? -1;
    this.newlines += stats.newlines;
    this.continuationBytes += stats.continuationBytes;

    let offset = 0;
    if (this.headLen < this.headLimit) {
      offset = Math.min(length, this.headLimit - this.headLen);
      this.appendHead(chunk.subarray(0, offset));
    }
    if (offset < length) this.appendTail(chunk.subarray(offset));
  }

  get totalBytes(): number {
    return this.bytes;
  }

  get totalLines(): number {
    return this.newlines + (this.bytes > 0 && this.lastByte !== 0x0a ? 1 : 0);
  }

  get totalChars(): number {
    return this.bytes - this.continuationBytes;
  }

  /** Bytes written but no longer held (between the head and the tail). */
  get droppedBytes(): number {
    return this.bytes - this.headLen - this.ringLen;
  }

  /** Bytes of memory held for content (never more than headLimit + tailLimit). */
  get retainedCapacity(): number {
    return (this.head?.length ?? 0) + (this.ring?.length ?? 0);
  }

  /** A copy holding the same bytes and counts (a stream's own buffer split off a shared one). */
  clone(): HeadTailBuffer {
    const copy = new HeadTailBuffer(this.headLimit, this.tailLimit);
    if (this.head) copy.head = Buffer.from(this.head.subarray(0, this.headLen));
    copy.headLen = this.headLen;
    if (this.ring) copy.ring = Buffer.from(this.ring);
    copy.ringPos = this.ringPos;
    copy.ringLen = this.ringLen;
    copy.bytes = this.bytes;
    copy.newlines = this.newlines;
    copy.continuationBytes = this.continuationBytes;
    copy.lastByte = this.lastByte;
    return copy;
  }

  /** Decodes what is held (lossy UTF-8, like Rust's `from_utf8_lossy`). */
  toText(): CapturedText {
    const totals = { totalBytes: this.bytes, totalChars: this.totalChars, totalLines: this.totalLines };
    const headBytes = this.head ? this.head.subarray(0, this.headLen) : Buffer.alloc(0);
    // One contiguous tail decodes into one flat string (no concatenation of halves).
    const tailBytes = this.contiguousTail();
    if (this.droppedBytes === 0) {
      if (tailBytes.length === 0) return { head: headBytes.toString("utf8"), tail: null, ...totals };
      // Contiguous: decode head and tail as one stream so a character split between them survives.
      const decoder = new StringDecoder("utf8");
      const text = decoder.write(headBytes) + decoder.write(tailBytes);
      return { head: text + decoder.end(), tail: null, ...totals };
    }
    const head = headBytes.subarray(0, completeCharsEnd(headBytes)).toString("utf8");
    const skip = leadingContinuationBytes(tailBytes);
    return { head, tail: tailBytes.subarray(skip).toString("utf8"), ...totals };
  }

  private appendHead(data: Uint8Array): void {
    const needed = this.headLen + data.length;
    if (!this.head || this.head.length < needed) {
      // Grow geometrically so small outputs stay small and large ones copy O(n) in total.
      const size = Math.min(this.headLimit, Math.max(needed, 2 * (this.head?.length ?? 0), 4096));
      const grown = Buffer.allocUnsafe(size);
      if (this.head) this.head.copy(grown, 0, 0, this.headLen);
      this.head = grown;
    }
    this.head.set(data, this.headLen);
    this.headLen = needed;
  }

  private appendTail(data: Uint8Array): void {
    const limit = this.tailLimit;
    if (limit === 0) return;
    this.ring ??= Buffer.allocUnsafe(limit);
    if (data.length >= limit) {
      this.ring.set(data.subarray(data.length - limit));
      this.ringPos = 0;
      this.ringLen = limit;
      return;
    }
    const first = Math.min(data.length, limit - this.ringPos);
    this.ring.set(data.subarray(0, first), this.ringPos);
    if (first < data.length) this.ring.set(data.subarray(first), 0);
    this.ringPos = (this.ringPos + data.length) % limit;
    this.ringLen = Math.min(limit, this.ringLen + data.length);
  }

  /**
   * The ring's content, oldest byte first, as one slice: a wrapped ring is rotated in place
   * (three reversals, no allocation) so that its oldest byte is at 0.
   */
  private contiguousTail(): Buffer {
    const ring = this.ring;
    if (!ring || this.ringLen === 0) return Buffer.alloc(0);
    if (this.ringLen < this.tailLimit || this.ringPos === 0) return ring.subarray(0, this.ringLen);
    ring.subarray(0, this.ringPos).reverse();
    ring.subarray(this.ringPos).reverse();
    ring.reverse();
    this.ringPos = 0;
    return ring;
  }
}

/** What a buffer counts in a chunk. */
export interface ChunkStats {
  newlines: number;
  /** UTF-8 continuation bytes (10xxxxxx): a chunk holds length − continuationBytes characters. */
  continuationBytes: number;
}

export function chunkStats(chunk: Uint8Array): ChunkStats {
  return {
    newlines: countNewlines(chunk),
    continuationBytes: isAscii(chunk) ? 0 : countContinuationBytes(chunk),
  };
}

/**
 * Newlines in a chunk. memchr-backed indexOf is fastest for sparse newlines; when they turn
 * out to be dense (`yes`, `seq`), a word-at-a-time count finishes the chunk.
 */
export function countNewlines(chunk: Uint8Array): number {
  const buf = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.length);
  let count = 0;
  let at = buf.indexOf(0x0a);
  while (at !== -1) {
    count++;
    if (count > 64 && at < count * 32) return count + countByteSwar(buf.subarray(at + 1), 0x0a);
    at = buf.indexOf(0x0a, at + 1);
  }
  return count;
}

function countContinuationBytes(chunk: Uint8Array): number {
  let count = 0;
  let i = 0;
  const end = chunk.length;
  for (; i < end && ((chunk.byteOffset + i) & 3) !== 0; i++) count += isContinuation(chunk[i] ?? 0);
  const words = (end - i) >>> 2;
  const view = new Uint32Array(chunk.buffer, chunk.byteOffset + i, words);
  for (let k = 0; k < words; k++) {
    const w = view[k] ?? 0;
    // High bit set and next bit clear, per byte.
    const marks = w & ~(w << 1) & 0x80808080;
    count += Math.imul(marks >>> 7, 0x01010101) >>> 24;
  }
  for (i += words * 4; i < end; i++) count += isContinuation(chunk[i] ?? 0);
  return count;
}

function isContinuation(byte: number): number {
  return (byte & 0xc0) === 0x80 ? 1 : 0;
}

/** Occurrences of `byte` in `chunk`, four bytes at a time (exact zero-byte count per word). */
function countByteSwar(chunk: Uint8Array, byte: number): number {
  let count = 0;
  let i = 0;
  const end = chunk.length;
  for (; i < end && ((chunk.byteOffset + i) & 3) !== 0; i++) if (chunk[i] === byte) count++;
  const words = (end - i) >>> 2;
  const view = new Uint32Array(chunk.buffer, chunk.byteOffset + i, words);
  const pattern = Math.imul(byte, 0x01010101);
  for (let k = 0; k < words; k++) {
    const x = (view[k] ?? 0) ^ pattern;
    const zeroes = ~(((x & 0x7f7f7f7f) + 0x7f7f7f7f) | x | 0x7f7f7f7f);
    count += Math.imul(zeroes >>> 7, 0x01010101) >>> 24;
  }
  for (i += words * 4; i < end; i++) if (chunk[i] === byte) count++;
  return count;
}

/** End of the last complete UTF-8 sequence (drops a sequence cut off at the end). */
function completeCharsEnd(bytes: Uint8Array): number {
  const end = bytes.length;
  for (let back = 1; back <= Math.min(4, end); back++) {
    const byte = bytes[end - back] ?? 0;
    if ((byte & 0xc0) === 0x80) continue;
    const width = byte < 0x80 ? 1 : byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return width > back ? end - back : end;
  }
  return end;
}

/** Continuation bytes at the start of the tail (the rest of a character cut off by the gap). */
function leadingContinuationBytes(bytes: Uint8Array): number {
  let count = 0;
  while (count < 3 && count < bytes.length && ((bytes[count] ?? 0) & 0xc0) === 0x80) count++;
  return count;
}

export type CapturedStream = "stdout" | "stderr";

/**
 * stdout, stderr and both interleaved, each bounded like HeadTailBuffer. While only one
 * stream has written (most commands), the interleaved buffer stands for that stream too: its
 * bytes are held and decoded once. The other stream's first chunk splits a copy off.
 */
export class StreamCaptures {
  private readonly all: HeadTailBuffer;
  private readonly own: Record<CapturedStream, HeadTailBuffer | null> = { stdout: null, stderr: null };
  private first: CapturedStream | null = null;

  constructor(
    readonly headLimit = DEFAULT_HEAD_BYTES,
    readonly tailLimit = DEFAULT_TAIL_BYTES,
  ) {
    this.all = new HeadTailBuffer(headLimit, tailLimit);
  }

  write(stream: CapturedStream, chunk: Uint8Array): void {
    if (chunk.length === 0) return;
    const stats = chunkStats(chunk);
    if (this.first === null) this.first = stream;
    else if (stream !== this.first && this.own[stream] === null) {
      this.own[this.first] = this.all.clone();
      this.own[stream] = new HeadTailBuffer(this.headLimit, this.tailLimit);
    }
    this.own[stream]?.write(chunk, stats);
    this.all.write(chunk, stats);
  }

  /** Lines of the interleaved output (whole stream). */
  get totalLines(): number {
    return this.all.totalLines;
  }

  /** The texts; while one stream wrote alone, its text is the very `aggregated` object. */
  texts(): { stdout: CapturedText; stderr: CapturedText; aggregated: CapturedText } {
    const aggregated = this.all.toText();
    const text = (stream: CapturedStream): CapturedText =>
      this.own[stream]?.toText() ?? (stream === this.first ? aggregated : EMPTY_TEXT);
    return { stdout: text("stdout"), stderr: text("stderr"), aggregated };
  }
}
