/**
 * exec_command / write_stdin through their handlers, on real processes and real PTYs, against
 * the reference captures (reference/tool-outputs/outputs.json, runs ue-dfa and login-false).
 */
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { execCommandTool } from "../../src/tools/builtin/exec-command.js";
import { clampYield, MAX_YIELD_MS } from "../../src/tools/builtin/unified-exec.js";
import { writeStdinTool } from "../../src/tools/builtin/write-stdin.js";
import { callTool, parseEnvelope, ResourceScope, testTurn } from "../exec/sessions-helpers.js";
import { type TempDir, tmpdir } from "../support/tmpdir.js";

let dir: TempDir;
let scope: ResourceScope;
beforeEach(async () => {
  dir = await tmpdir();
  await mkdir(join(dir.path, "sub"));
  scope = new ResourceScope();
});
afterEach(async () => {
  await scope.dispose();
  await dir.cleanup();
});

const exec = execCommandTool({ shellPath: "/bin/bash" });
const write = writeStdinTool();
const run = (args: Record<string, unknown> | string) =>
  callTool(exec, testTurn(scope, dir.path).context, args);
const send = (args: Record<string, unknown>) => callTool(write, testTurn(scope, dir.path).context, args);

describe("specs", () => {
  it("declare Codex's parameters, sorted, with cmd and session_id required", () => {
    const params = (tool: typeof exec) => (tool.spec.type === "function" ? tool.spec.parameters : {});
    expect(exec.spec).toMatchObject({ type: "function", name: "exec_command", strict: false });
    expect(params(exec)).toMatchObject({ type: "object", required: ["cmd"], additionalProperties: false });
    expect(Object.keys(params(exec).properties as object)).toEqual([
      "cmd",
      "justification",
      "login",
      "max_output_tokens",
      "sandbox_permissions",
      "shell",
      "tty",
      "workdir",
      "yield_time_ms",
    ]);
    expect(params(write)).toMatchObject({ required: ["session_id"], additionalProperties: false });
    expect(Object.keys(params(write).properties as object)).toEqual([
      "chars",
      "max_output_tokens",
      "session_id",
      "yield_time_ms",
    ]);
    const types = Object.values(params(write).properties as Record<string, { type: string }>).map(
      (p) => p.type,
    );
    expect(types).toEqual(["string", "number", "number", "number"]);
  });

  it("answer bad arguments with serde's message", async () => {
    expect(await run({})).toBe("failed to parse function arguments: missing field `cmd` at line 1 column 2");
    expect(await send({ session_id: 1.5 })).toMatch(/^failed to parse function arguments: invalid type/);
  });
});

describe("exec_command", () => {
  it("reports a quick command's exit code and interleaved output", async () => {
    const reply = parseEnvelope(await run({ cmd: "echo hi; echo err >&2" }));
    expect(reply).toMatchObject({ exitCode: 0, sessionId: null, tokens: 2, output: "hi\nerr\n" });
    expect(reply.wallSeconds).toBeLessThan(1);
    expect(parseEnvelope(await run({ cmd: "echo out; exit 7" }))).toMatchObject({
      exitCode: 7,
      output: "out\n",
    });
  });

  it("runs in workdir, with the named shell, stdin closed", async () => {
    expect(parseEnvelope(await run({ cmd: "pwd", workdir: "sub" })).output).toBe(
      `${join(dir.path, "sub")}\n`,
    );
    const shell = parseEnvelope(await run({ cmd: "echo $0", shell: "/bin/sh", login: false }));
    expect(shell).toMatchObject({ output: "/bin/sh\n", tokens: 2 });
    expect(parseEnvelope(await run({ cmd: "read x; echo got:$x" })).output).toBe("got:\n");
  });

  it("says why a command could not start", async () => {
    expect(await run({ cmd: "pwd", workdir: "missing" })).toBe(
      'execution error: Io(Os { code: 2, kind: NotFound, message: "No such file or directory" })',
    );
  });

  it("clamps yield_time_ms to [250, 30000]", () => {
    expect(clampYield(undefined, 10_000)).toBe(10_000);
    expect(clampYield(100_000, 10_000)).toBe(MAX_YIELD_MS);
    expect(clampYield(1, 10_000)).toBe(250);
    expect(clampYield(1, 250, 5000)).toBe(5000);
  });

  it("truncates to max_output_tokens exactly as the reference (seq 1 100000, 100 tokens)", async () => {
    const seq = Array.from({ length: 100_000 }, (_, i) => `${i + 1}\n`).join("");
    const reply = parseEnvelope(await run({ cmd: "seq 1 100000", max_output_tokens: 100 }));
    expect(reply.tokens).toBe(147224);
    expect(reply.output).toBe(
      `Total output lines: 100000\n\n${seq.slice(0, 200)}…147124 tokens truncated…${seq.slice(-200)}`,
    );
    expect(reply.output).toContain("\n69\n70…147124 tokens truncated…\n99968\n");
  });

  it("keeps 10000 tokens by default (reference length 40164 bytes)", async () => {
    const text = await run({ cmd: "seq 1 100000" });
    expect(Buffer.byteLength(text)).toBe(40164);
    const reply = parseEnvelope(text);
    expect(reply.output.startsWith("Total output lines: 100000\n\n1\n2\n3\n")).toBe(true);
    expect(reply.output).toContain("4220\n4221\n42…137224 tokens truncated…\n96668\n96669\n");
    expect(reply.output.endsWith("99999\n100000\n")).toBe(true);
  });
});

describe("sessions", () => {
  it("returns a session id at the yield time and reports the exit on a later poll", async () => {
    const first = parseEnvelope(await run({ cmd: "sleep 0.8; echo finished", yield_time_ms: 250 }));
    expect(first).toMatchObject({ exitCode: null, tokens: 0, output: "" });
    expect(first.sessionId).toBeGreaterThanOrEqual(1000);
    expect(first.wallSeconds).toBeGreaterThanOrEqual(0.25);
    expect(first.wallSeconds).toBeLessThan(0.75);
    // An empty poll would wait 5 s, but the exit ends it early.
    const second = parseEnvelope(await send({ session_id: first.sessionId, chars: "", yield_time_ms: 3000 }));
    expect(second).toMatchObject({ exitCode: 0, tokens: 3, output: "finished\n" });
    expect(second.wallSeconds).toBeLessThan(4);
    expect(await send({ session_id: first.sessionId, chars: "" })).toBe(
      `write_stdin failed: Unknown process id ${first.sessionId}`,
    );
  });

  it("echoes input on a tty and ends cat with ^D", async () => {
    const start = parseEnvelope(await run({ cmd: "cat", tty: true, yield_time_ms: 250 }));
    const id = start.sessionId;
    expect(id).not.toBeNull();
    const echo = parseEnvelope(await send({ session_id: id, chars: "hello tty\n", yield_time_ms: 300 }));
    expect(echo).toMatchObject({ sessionId: id, tokens: 6, output: "hello tty\r\nhello tty\r\n" });
    expect(echo.wallSeconds).toBeGreaterThanOrEqual(0.3);
    const end = parseEnvelope(await send({ session_id: id, chars: "\u0004", yield_time_ms: 5000 }));
    expect(end).toMatchObject({ exitCode: 0, output: "" });
    expect(end.wallSeconds).toBeLessThan(4);
    expect(await send({ session_id: id, chars: "piped\n" })).toBe(
      `write_stdin failed: Unknown process id ${id}`,
    );
  });

  it("refuses input without a tty, and unknown ids", async () => {
    const { sessionId } = parseEnvelope(await run({ cmd: "sleep 30", yield_time_ms: 250 }));
    expect(await send({ session_id: sessionId, chars: "\u0003", yield_time_ms: 1000 })).toBe(
      "write_stdin failed: stdin is closed for this session; rerun exec_command with tty=true to keep stdin open",
    );
    expect(await send({ session_id: 999999, chars: "x" })).toBe(
      "write_stdin failed: Unknown process id 999999",
    );
  });

  it("buffers output between polls and returns only what is new", async () => {
    const first = parseEnvelope(
      await run({ cmd: "echo one; read line; echo got $line; sleep 30", tty: true, yield_time_ms: 1000 }),
    );
    expect(first.output).toBe("one\r\n");
    const second = parseEnvelope(
      await send({ session_id: first.sessionId, chars: "two\n", yield_time_ms: 400 }),
    );
    expect(second.output).toBe("two\r\ngot two\r\n");
  });
});
