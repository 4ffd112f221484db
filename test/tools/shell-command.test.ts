import { existsSync } from "node:fs";
import { mkdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { TruncationPolicy } from "../../src/protocol/policy.js";
import { shellCommandTool } from "../../src/tools/builtin/shell-command.js";
import type { ToolInvocation } from "../../src/tools/types.js";
import { type TempDir, tmpdir } from "../support/tmpdir.js";
import { runHandler, testTurnContext } from "../support/turn-context.js";

let dir: TempDir;
beforeEach(async () => {
  dir = await tmpdir();
  await mkdir(join(dir.path, "sub"));
});
afterEach(async () => {
  await dir.cleanup();
});

const TOKENS: TruncationPolicy = { mode: "tokens", limit: 10_000 };

/** A turn in the temp dir. HOME is the temp dir too, so login shells read no profile. */
function turn(options: { truncation?: TruncationPolicy; signal?: AbortSignal } = {}) {
  const context = testTurnContext({
    cwd: dir.path,
    networkAccess: true,
    truncation: options.truncation ?? TOKENS,
    ...(options.signal ? { signal: options.signal } : {}),
  });
  return { context, events: context.events };
}

const tool = shellCommandTool({ shellPath: "/bin/bash" });

async function call(args: Record<string, unknown> | string, options: Parameters<typeof turn>[0] = {}) {
  const { context, events } = turn(options);
  const invocation: ToolInvocation = {
    callId: "call-1",
    toolName: "shell_command",
    payload: { kind: "function", arguments: typeof args === "string" ? args : JSON.stringify(args) },
    turn: context,
  };
  const output = await runHandler(tool.handler, invocation);
  return { text: absorbJitter(String(output.content)), success: output.success, events };
}

/** A quick command may take 0.1–0.4 s on a loaded machine; the reference says 0 (timeouts keep theirs). */
function absorbJitter(text: string): string {
  if (text.startsWith("{") && !text.includes('"exit_code":124')) {
    return text.replace(/"duration_seconds":0\.[1-4]\}/, '"duration_seconds":0.0}');
  }
  if (!text.startsWith("Exit code: ") || text.startsWith("Exit code: 124\n")) return text;
  return text.replace(/^Wall time: 0\.[1-4] seconds$/m, "Wall time: 0 seconds");
}

describe("shell_command spec", () => {
  it("declares Codex's parameters, command required", () => {
    expect(tool.spec).toMatchObject({ type: "function", name: "shell_command", strict: false });
    const parameters = tool.spec.type === "function" ? tool.spec.parameters : {};
    expect(Object.keys(parameters.properties as object).sort()).toEqual([
      "command",
      "justification",
      "login",
      "sandbox_permissions",
      "timeout_ms",
      "workdir",
    ]);
    expect(parameters.required).toEqual(["command"]);
    expect(tool.supportsParallel).toBe(true);
  });
});

describe("shell_command output (reference out-shell-dfa)", () => {
  it.each([
    ["echo hi && printf 'a\\nb\\n'", "Exit code: 0\nWall time: 0 seconds\nOutput:\nhi\na\nb\n"],
    ["echo out; echo err >&2; exit 3", "Exit code: 3\nWall time: 0 seconds\nOutput:\nout\nerr\n"],
    ["echo hello && exit 2", "Exit code: 2\nWall time: 0 seconds\nOutput:\nhello\n"],
    [
      "shopt -q login_shell && echo login || echo nologin",
      "Exit code: 0\nWall time: 0 seconds\nOutput:\nlogin\n",
    ],
    ["true", "Exit code: 0\nWall time: 0 seconds\nOutput:\n"],
    ["printf 'no newline'", "Exit code: 0\nWall time: 0 seconds\nOutput:\nno newline"],
    ["kill -9 $$", "execution error: Sandbox(Signal(9))"],
  ])("%s", async (command, expected) => {
    expect((await call({ command })).text).toBe(expected);
  });

  it("login: false runs `bash -c`", async () => {
    const { text } = await call({
      command: "echo $0; shopt -q login_shell && echo login || echo nologin",
      login: false,
    });
    expect(text).toBe("Exit code: 0\nWall time: 0 seconds\nOutput:\n/bin/bash\nnologin\n");
  });

  it("resolves workdir against the turn's cwd", async () => {
    expect((await call({ command: "pwd", workdir: "sub" })).text).toBe(
      `Exit code: 0\nWall time: 0 seconds\nOutput:\n${join(dir.path, "sub")}\n`,
    );
  });

  it("reports a missing workdir as Codex does", async () => {
    const { text, success } = await call({ command: "exit 0", workdir: "/nonexistent-dir" });
    expect(text).toBe(
      'execution error: Io(Os { code: 2, kind: NotFound, message: "No such file or directory" })',
    );
    expect(success).toBe(false);
  });

  it("times out with exit code 124 and the elapsed time", async () => {
    // 1 s: a loaded machine can take longer than 300 ms just to start bash and print "before".
    const { text, success } = await call({ command: "echo before; sleep 5; echo after", timeout_ms: 1000 });
    const match =
      /^Exit code: 124\nWall time: (\S+) seconds\nOutput:\ncommand timed out after (\d+) milliseconds\nbefore\n$/.exec(
        text,
      );
    expect(match).not.toBeNull();
    const ms = Number(match?.[2]);
    expect(ms).toBeGreaterThanOrEqual(1000);
    expect(ms).toBeLessThan(4000);
    expect(match?.[1]).toBe(String(Math.round(ms / 100) / 10));
    expect(success).toBe(false);
  });

  it("cuts 40001 bytes in tokens mode as the reference (trunc-tokens/call_3)", async () => {
    const { text } = await call({ command: "head -c 40001 /dev/zero | tr '\\0' c" });
    expect(text).toBe(
      `Exit code: 0\nWall time: 0 seconds\nOutput:\n${"c".repeat(20_000)}…1 tokens truncated…${"c".repeat(20_000)}`,
    );
  });

  it("shows the real end of 50 MB of output", async () => {
    const { text, events } = await call({
      command: "head -c 50000000 /dev/zero | tr '\\0' a; echo; seq 1 3",
      timeout_ms: 20_000,
    });
    // Head and tail hold the same 4 lines as the whole output, so no `Total output lines`.
    expect(text).toMatch(
      /^Exit code: 0\nWall time: \S+ seconds\nOutput:\na{20000}…12490002 tokens truncated…a{19993}\n1\n2\n3\n$/,
    );
    expect(Buffer.byteLength(text)).toBeLessThan(40_200);
    const end = events.find((event) => event.type === "exec_command_end");
    expect(end?.type === "exec_command_end" && end.aggregated_output.length).toBeLessThan(1_100_000);
  });
});

describe("shell_command events", () => {
  it("emits begin, output deltas and end with the model's text", async () => {
    const { text, events } = await call({ command: "echo out; echo err >&2; exit 3" });
    const begin = events[0];
    expect(begin).toEqual({
      type: "exec_command_begin",
      call_id: "call-1",
      turn_id: "turn-1",
      command: ["/bin/bash", "-lc", "echo out; echo err >&2; exit 3"],
      cwd: dir.path,
    });
    const deltas = events.filter((event) => event.type === "exec_command_output_delta");
    expect(
      deltas
        .map((event) => Buffer.from(event.type === "exec_command_output_delta" ? event.chunk : []).toString())
        .join(""),
    ).toBe("out\nerr\n");
    const end = events.at(-1);
    expect(end).toMatchObject({
      type: "exec_command_end",
      call_id: "call-1",
      exit_code: 3,
      stdout: "out\n",
      stderr: "err\n",
      aggregated_output: "out\nerr\n",
    });
    expect(end?.type === "exec_command_end" && absorbJitter(end.formatted_output)).toBe(text);
  });
  it("copies no output into deltas when the turn says nobody reads them, and still ends with it", async () => {
    const context = testTurnContext({
      cwd: dir.path,
      networkAccess: true,
      truncation: TOKENS,
      wantsOutputDeltas: () => false,
    });
    const output = await runHandler(tool.handler, {
      callId: "call-1",
      toolName: "shell_command",
      payload: { kind: "function", arguments: JSON.stringify({ command: "echo out; echo err >&2" }) },
      turn: context,
    });
    expect(output.success).toBe(true);
    expect(context.events.some((event) => event.type === "exec_command_output_delta")).toBe(false);
    expect(context.events.at(-1)).toMatchObject({
      type: "exec_command_end",
      stdout: "out\n",
      stderr: "err\n",
      aggregated_output: "out\nerr\n",
    });
  });
});

describe("shell_command interception and errors", () => {
  it("applies an apply_patch heredoc natively, answering in the JSON envelope (ap-ww/call_22)", async () => {
    const command =
      "apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: via-shell.txt\n+via shell\n*** End Patch\nEOF\n";
    const { text, events } = await call({ command });
    expect(text).toBe(
      '{"output":"Success. Updated the following files:\\nA via-shell.txt\\n","metadata":{"exit_code":0,"duration_seconds":0.0}}',
    );
    expect(await readFile(join(dir.path, "via-shell.txt"), "utf8")).toBe("via shell\n");
    expect(events.some((event) => event.type === "exec_command_begin")).toBe(false);
  });

  it("rejects bad arguments with serde's words (out-shell-dfa/call_15, call_18)", async () => {
    await expect(call({})).rejects.toThrow(
      "failed to parse function arguments: missing field `command` at line 1 column 2",
    );
    await expect(call({ command: 42 })).rejects.toThrow(
      "failed to parse function arguments: invalid type: integer `42`, expected a string at line 1 column 13",
    );
  });

  it("answers an interrupted call with the wall time", async () => {
    const controller = new AbortController();
    const running = call(
      { command: `touch ${join(dir.path, "started")}; sleep 30` },
      { signal: controller.signal },
    );
    while (!existsSync(join(dir.path, "started"))) await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort();
    const { text, success } = await running;
    expect(text).toMatch(/^Wall time: \d+\.\d seconds\naborted by user$/);
    expect(success).toBe(false);
  });
});
