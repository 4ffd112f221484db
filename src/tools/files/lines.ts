/**
 * Reading text files line by line for the file tools: chunked async reads (a 2 GB log costs
 * only what the caller consumes), lines split on `\n` with one trailing `\r` dropped, bytes
 * decoded as UTF-8 with U+FFFD for invalid sequences, long lines cut for display.
 */
import { type FileHandle, open } from "node:fs/promises";

const CHUNK_BYTES = 64 * 1024;

/** Longest line shown to the model, in UTF-8 bytes (Codex's limit). */
export const MAX_LINE_BYTES = 500;

/**
 * Read `source` (a file's path, or its contents already in memory) line by line:
 * `onLine(bytes, number)` for each line numbered `from` (1-based) or later, until it returns
 * false. Lines before `from` are only counted. `bytes` is a view that is valid during the call
 * only. Resolves to the number of lines seen (up to the one that stopped the scan). Open and
 * read errors are thrown as Node errors (with `code`).
 */
export async function scanLines(
  source: string | Buffer,
  onLine: (bytes: Buffer, number: number) => boolean,
  from = 1,
): Promise<number> {
  if (typeof source !== "string") return scanChunks([source], onLine, from);
  const handle = await open(source, "r");
  try {
    return await scanChunks(fileChunks(handle), onLine, from);
  } finally {
    await handle.close();
  }
}

/** The file's bytes in chunks; each chunk is valid until the next is asked for. */
async function* fileChunks(handle: FileHandle): AsyncGenerator<Buffer> {
  const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
  for (;;) {
    const { bytesRead } = await handle.read(chunk, 0, CHUNK_BYTES, null);
    if (bytesRead === 0) return;
    yield chunk.subarray(0, bytesRead);
  }
}

async function scanChunks(
  chunks: AsyncIterable<Buffer> | Iterable<Buffer>,
  onLine: (bytes: Buffer, number: number) => boolean,
  from: number,
): Promise<number> {
  // Bytes of the current, unfinished line from earlier chunks (only kept from `from` on).
  let pending: Buffer[] = [];
  let partial = false;
  let number = 0;
  for await (const chunk of chunks) {
    const bytesRead = chunk.length;
    let start = 0;
    for (;;) {
      const newline = chunk.indexOf(10, start);
      if (newline === -1 || newline >= bytesRead) break;
      number += 1;
      if (number >= from) {
        const piece = chunk.subarray(start, newline);
        const line = pending.length === 0 ? piece : Buffer.concat([...pending, piece]);
        if (!onLine(stripCarriageReturn(line), number)) return number;
      }
      pending = [];
      partial = false;
      start = newline + 1;
    }
    if (start < bytesRead) {
      partial = true;
      if (number + 1 >= from) pending.push(Buffer.from(chunk.subarray(start, bytesRead)));
    }
  }
  // A last line without a final newline is still a line; a final newline adds none.
  if (partial) {
    number += 1;
    if (number >= from) onLine(stripCarriageReturn(Buffer.concat(pending)), number);
  }
  return number;
}

function stripCarriageReturn(line: Buffer): Buffer {
  return line.length > 0 && line[line.length - 1] === 13 ? line.subarray(0, line.length - 1) : line;
}

/** A line as shown to the model: decoded, and cut to MAX_LINE_BYTES on a character boundary. */
export function displayLine(raw: Buffer | string): string {
  const text = typeof raw === "string" ? raw : raw.toString("utf8");
  return cutToBytes(text, MAX_LINE_BYTES);
}

/** `text` unchanged when it fits `maxBytes` of UTF-8, else its longest prefix that does. */
export function cutToBytes(text: string, maxBytes: number): string {
  // Fast path: even at 3 bytes per UTF-16 unit the text fits.
  if (text.length * 3 <= maxBytes) return text;
  const bytes = Buffer.from(text, "utf8");
  if (bytes.length <= maxBytes) return text;
  let end = maxBytes;
  // Step back over continuation bytes (10xxxxxx) to the start of the cut character.
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end -= 1;
  return bytes.subarray(0, end).toString("utf8");
}
