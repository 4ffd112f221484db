import { describe, expect, it } from "vitest";
import { HeadTailBuffer, StreamCaptures } from "../../src/exec/head-tail-buffer.js";
import { runCommand } from "../../src/exec/spawn.js";
import { capturedFromString } from "../../src/tools/truncate.js";

const env = { PATH: process.env.PATH ?? "/usr/bin:/bin" };

describe("HeadTailBuffer (ring read in place)", () => {
  it("gives the same tail on every read of a wrapped ring, a character across the wrap included", () => {
    const buffer = new HeadTailBuffer(4, 10);
    // Head "abcd", then 17 bytes through a 10-byte ring: it wraps with 😀 straddling the end.
    for (const part of ["abcd", "0123456", "xy😀", "zé!"]) buffer.write(Buffer.from(part));
    const first = buffer.toText();
    expect(first.head).toBe("abcd");
    expect(first.tail).toBe("xy😀zé!");
    buffer.write(Buffer.from("+"));
    const second = buffer.toText();
    expect(second.tail).toBe("y😀zé!+");
    expect(second.totalBytes).toBe(Buffer.byteLength("abcd0123456xy😀zé!+"));
  });

  it("clone() holds the same text and counts, and then goes its own way", () => {
    const original = new HeadTailBuffer(8, 8);
    original.write(Buffer.from("line one\nline two\nline three\n"));
    const copy = original.clone();
    expect(copy.toText()).toEqual(original.toText());
    copy.write(Buffer.from("more\n"));
    expect(copy.totalLines).toBe(original.totalLines + 1);
    expect(original.toText().tail).toBe("e three\n");
  });
});

describe("StreamCaptures", () => {
  it("shares one text between a stream that wrote alone and the interleaved output", () => {
    const captures = new StreamCaptures(16, 16);
    captures.write("stdout", Buffer.from("only stdout\n"));
    const texts = captures.texts();
    expect(texts.stdout).toBe(texts.aggregated);
    expect(texts.aggregated).toEqual(capturedFromString("only stdout\n"));
    expect(texts.stderr).toEqual(capturedFromString(""));
  });

  it("splits the streams apart when the second one writes", () => {
    const captures = new StreamCaptures(64, 64);
    captures.write("stderr", Buffer.from("e1\n"));
    captures.write("stderr", Buffer.from("e2\n"));
    captures.write("stdout", Buffer.from("o1\n"));
    captures.write("stderr", Buffer.from("e3\n"));
    const texts = captures.texts();
    expect(texts.stderr).toEqual(capturedFromString("e1\ne2\ne3\n"));
    expect(texts.stdout).toEqual(capturedFromString("o1\n"));
    expect(texts.aggregated).toEqual(capturedFromString("e1\ne2\no1\ne3\n"));
    expect(captures.totalLines).toBe(4);
  });
});

describe("runCommand output read through the reused buffer", () => {
  it("keeps every chunk of both streams intact although the read buffer is reused", async () => {
    const seen: string[] = [];
    const script =
      "for i in $(seq 1 300); do echo out-$i; echo err-$i >&2; done; head -c 200000 /dev/zero | tr '\\0' z";
    const result = await runCommand({
      argv: ["sh", "-c", script],
      cwd: process.cwd(),
      env,
      timeoutMs: 20_000,
      onOutput: (stream, chunk) => seen.push(`${stream}:${Buffer.from(chunk).toString("latin1")}`),
    });
    expect(result.exitCode).toBe(0);
    const outLines = Array.from({ length: 300 }, (_, i) => `out-${i + 1}\n`).join("");
    const errLines = Array.from({ length: 300 }, (_, i) => `err-${i + 1}\n`).join("");
    const joined = (stream: string) =>
      seen
        .filter((entry) => entry.startsWith(`${stream}:`))
        .map((entry) => entry.slice(stream.length + 1))
        .join("");
    expect(joined("stdout")).toBe(`${outLines}${"z".repeat(200_000)}`);
    expect(joined("stderr")).toBe(errLines);
    expect(result.stdout.head).toBe(`${outLines}${"z".repeat(200_000)}`);
    expect(result.stderr.head).toBe(errLines);
    expect(result.aggregated.totalBytes).toBe(outLines.length + errLines.length + 200_000);
  });
});
