import { describe, expect, it } from "vitest";
import { countNewlines, HeadTailBuffer } from "../../src/exec/head-tail-buffer.js";
import type { TruncationPolicy } from "../../src/protocol/policy.js";
import { capturedFromString, truncateText } from "../../src/tools/truncate.js";

/** Writes `bytes` in chunks of varying sizes (splitting characters at times). */
function writeChunked(buffer: HeadTailBuffer, bytes: Buffer, seed = 7): void {
  let state = seed;
  let at = 0;
  while (at < bytes.length) {
    state = (state * 1103515245 + 12345) & 0x7fffffff;
    const size = 1 + (state % 9000);
    buffer.write(bytes.subarray(at, at + size));
    at += size;
  }
}

const mixed = (lines: number): string => {
  const parts: string[] = [];
  for (let i = 0; i < lines; i++) parts.push(i % 3 === 0 ? `é line ${i} 😀` : `line ${i}`);
  return parts.join("\n");
};

describe("HeadTailBuffer", () => {
  it("holds small output whole, with the counts of a string", () => {
    const text = "out\nerr\né😀 no newline";
    const buffer = new HeadTailBuffer(16, 16);
    writeChunked(buffer, Buffer.from(text));
    expect(buffer.droppedBytes).toBe(0);
    expect(buffer.toText()).toEqual(capturedFromString(text));
  });

  it("keeps a character split between head and ring when nothing is dropped", () => {
    const text = "ab😀cd";
    const buffer = new HeadTailBuffer(4, 8);
    for (const byte of Buffer.from(text)) buffer.write(Uint8Array.of(byte));
    expect(buffer.toText()).toEqual(capturedFromString(text));
  });

  it("keeps head and tail on character boundaries when the middle is dropped", () => {
    const text = "é".repeat(100);
    const buffer = new HeadTailBuffer(11, 11);
    writeChunked(buffer, Buffer.from(text), 3);
    const captured = buffer.toText();
    expect(captured.head).toBe("é".repeat(5));
    expect(captured.tail).toBe("é".repeat(5));
    expect(captured).toMatchObject({ totalBytes: 200, totalChars: 100, totalLines: 1 });
  });

  it("truncates exactly as the whole text would, whatever was dropped", () => {
    const policies: TruncationPolicy[] = [
      { mode: "tokens", limit: 10_000 },
      { mode: "bytes", limit: 10_000 },
      { mode: "bytes", limit: 333 },
    ];
    for (const text of [mixed(40_000), `${"é".repeat(300_001)}\n`, "x".repeat(223_457)]) {
      const buffer = new HeadTailBuffer(64 * 1024, 64 * 1024);
      writeChunked(buffer, Buffer.from(text));
      const captured = buffer.toText();
      expect(captured.tail).not.toBeNull();
      const whole = capturedFromString(text);
      expect(captured).toMatchObject({
        totalBytes: whole.totalBytes,
        totalChars: whole.totalChars,
        totalLines: whole.totalLines,
      });
      for (const policy of policies)
        expect(truncateText(captured, policy)).toEqual(truncateText(text, policy));
    }
  });

  it("stays bounded however much is written", () => {
    const buffer = new HeadTailBuffer(1000, 1000);
    const chunk = Buffer.alloc(64 * 1024, "y\n");
    for (let i = 0; i < 200; i++) buffer.write(chunk);
    expect(buffer.retainedCapacity).toBeLessThanOrEqual(2000 + 4096);
    expect(buffer.totalBytes).toBe(200 * 64 * 1024);
    expect(buffer.totalLines).toBe(100 * 64 * 1024);
    const { head, tail } = buffer.toText();
    expect(head.length).toBe(1000);
    expect(tail?.length).toBe(1000);
    expect(tail?.endsWith("y\ny\n")).toBe(true);
  });

  it("counts newlines the same whatever their density", () => {
    for (const text of ["", "\n", "a\nb", "y\n".repeat(5000), `${"x".repeat(9999)}\n\n`, "\n".repeat(777)]) {
      const expected = text.split("\n").length - 1;
      const bytes = Buffer.from(`_${text}`).subarray(1); // unaligned view
      expect(countNewlines(bytes)).toBe(expected);
    }
  });
});
