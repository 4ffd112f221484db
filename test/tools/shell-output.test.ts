import { describe, expect, it } from "vitest";
import type { TruncationPolicy } from "../../src/protocol/policy.js";
import {
  formatAborted,
  formatDurationSeconds,
  formatFreeformExecOutput,
  formatLegacyExecOutput,
  formatSignalError,
  formatSpawnError,
  formatWallTime,
  legacyJson,
} from "../../src/tools/exec-output.js";

const TOKENS: TruncationPolicy = { mode: "tokens", limit: 10_000 };
const BYTES: TruncationPolicy = { mode: "bytes", limit: 10_000 };

describe("durations", () => {
  it("wall time: tenths without a trailing .0", () => {
    expect([0, 49, 50, 502, 1260, 10_003, 12_000].map(formatWallTime)).toEqual([
      "0",
      "0",
      "0.1",
      "0.5",
      "1.3",
      "10",
      "12",
    ]);
  });

  it("duration_seconds: tenths, always with a decimal", () => {
    expect([0, 505, 1260, 10_003].map(formatDurationSeconds)).toEqual(["0.0", "0.5", "1.3", "10.0"]);
  });
});

describe("freeform envelope (shell_command)", () => {
  const run = (output: string, exitCode = 0, durationMs = 3, timedOut = false) =>
    formatFreeformExecOutput({ exitCode, durationMs, timedOut, output }, TOKENS);

  it("matches the reference strings", () => {
    expect(run("hi\na\nb\n")).toBe("Exit code: 0\nWall time: 0 seconds\nOutput:\nhi\na\nb\n");
    expect(run("out\nerr\n", 3)).toBe("Exit code: 3\nWall time: 0 seconds\nOutput:\nout\nerr\n");
    expect(run("hello\n", 2)).toBe("Exit code: 2\nWall time: 0 seconds\nOutput:\nhello\n");
    expect(run("")).toBe("Exit code: 0\nWall time: 0 seconds\nOutput:\n");
    expect(run("no newline")).toBe("Exit code: 0\nWall time: 0 seconds\nOutput:\nno newline");
    expect(run("slept\n", 0, 1262)).toBe("Exit code: 0\nWall time: 1.3 seconds\nOutput:\nslept\n");
  });

  it("puts the timeout first in the output (out-shell-dfa/call_3, defaults-timing/call_1)", () => {
    expect(run("before\n", 124, 502.4, true)).toBe(
      "Exit code: 124\nWall time: 0.5 seconds\nOutput:\ncommand timed out after 502 milliseconds\nbefore\n",
    );
    expect(run("", 124, 10_003.9, true)).toBe(
      "Exit code: 124\nWall time: 10 seconds\nOutput:\ncommand timed out after 10003 milliseconds\n",
    );
  });
});

describe("legacy JSON envelope (shell, local_shell)", () => {
  const run = (
    output: string,
    exitCode = 0,
    durationMs = 3,
    timedOut = false,
    policy: TruncationPolicy = BYTES,
  ) => formatLegacyExecOutput({ exitCode, durationMs, timedOut, output }, policy);

  it("matches the reference strings (out-shell-array)", () => {
    expect(run("hi\na\nb\n")).toBe(
      '{"output":"hi\\na\\nb\\n","metadata":{"exit_code":0,"duration_seconds":0.0}}',
    );
    expect(run("out\nerr\n", 3)).toBe(
      '{"output":"out\\nerr\\n","metadata":{"exit_code":3,"duration_seconds":0.0}}',
    );
    expect(run("before\n", 124, 505.7, true)).toBe(
      '{"output":"command timed out after 505 milliseconds\\nbefore\\n","metadata":{"exit_code":124,"duration_seconds":0.5}}',
    );
    expect(run("", 0, 1262)).toBe('{"output":"","metadata":{"exit_code":0,"duration_seconds":1.3}}');
  });

  it("escapes like serde_json", () => {
    expect(legacyJson('tab\t"q" \\ \u0001 é /', 0, 0)).toBe(
      '{"output":"tab\\t\\"q\\" \\\\ \\u0001 é /","metadata":{"exit_code":0,"duration_seconds":0.0}}',
    );
  });

  it("prefixes the line count when truncated", () => {
    const lines = Array.from({ length: 5000 }, (_, i) => `line ${i}`).join("\n");
    const parsed = JSON.parse(run(lines, 0, 0, false, TOKENS)) as { output: string };
    expect(parsed.output.startsWith("Total output lines: 5000\n\nline 0\nline 1\n")).toBe(true);
    expect(parsed.output).toMatch(/…\d+ tokens truncated…/);
    expect(parsed.output.endsWith("line 4999")).toBe(true);
  });
});

describe("errors", () => {
  it("formats spawn errors in Codex's Debug form", () => {
    const enoent = Object.assign(new Error("spawn x ENOENT"), { code: "ENOENT", errno: -2 });
    expect(formatSpawnError(enoent)).toBe(
      'execution error: Io(Os { code: 2, kind: NotFound, message: "No such file or directory" })',
    );
    const eacces = Object.assign(new Error("spawn x EACCES"), { code: "EACCES", errno: -13 });
    expect(formatSpawnError(eacces)).toBe(
      'execution error: Io(Os { code: 13, kind: PermissionDenied, message: "Permission denied" })',
    );
  });

  it("formats signals and interruptions", () => {
    expect(formatSignalError("SIGKILL")).toBe("execution error: Sandbox(Signal(9))");
    expect(formatSignalError("SIGSEGV")).toBe("execution error: Sandbox(Signal(11))");
    expect(formatAborted(1234)).toBe("Wall time: 1.2 seconds\naborted by user");
  });
});
