import { mkdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { LocalShellAction } from "../../src/protocol/items.js";
import type { TruncationPolicy } from "../../src/protocol/policy.js";
import { localShellTool, shellTool } from "../../src/tools/builtin/shell.js";
import type { ToolInvocation, ToolPayload } from "../../src/tools/types.js";
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

const BYTES: TruncationPolicy = { mode: "bytes", limit: 10_000 };

async function invoke(payload: ToolPayload, truncation: TruncationPolicy = BYTES) {
  const context = testTurnContext({
    cwd: dir.path,
    networkAccess: true,
    truncation,
  });
  const toolName = payload.kind === "local_shell" ? "local_shell" : "shell";
  const invocation: ToolInvocation = { callId: "call-1", toolName, payload, turn: context };
  const output = await runHandler(shellTool().handler, invocation);
  // A quick command may take 0.1–0.4 s on a loaded machine; the reference says 0.0 (timeouts keep theirs).
  const raw = String(output.content);
  const text = raw.includes('"exit_code":124')
    ? raw
    : raw.replace(/"duration_seconds":0\.[1-4]\}/, '"duration_seconds":0.0}');
  return { text, success: output.success, events: context.events };
}

const call = (args: Record<string, unknown>, truncation?: TruncationPolicy) =>
  invoke({ kind: "function", arguments: JSON.stringify(args) }, truncation);

const json = (output: string, exitCode = 0, seconds = "0.0") =>
  `{"output":${JSON.stringify(output)},"metadata":{"exit_code":${exitCode},"duration_seconds":${seconds}}}`;

describe("shell (legacy JSON envelope, reference out-shell-array)", () => {
  it.each([
    [["bash", "-lc", "echo hi && printf 'a\\nb\\n'"], json("hi\na\nb\n")],
    [["bash", "-lc", "echo out; echo err >&2; exit 3"], json("out\nerr\n", 3)],
    [
      ["no-such-binary-xyz"],
      'execution error: Io(Os { code: 2, kind: NotFound, message: "No such file or directory" })',
    ],
  ])("%j", async (command, expected) => {
    expect((await call({ command })).text).toBe(expected);
  });

  it("resolves workdir against the turn's cwd", async () => {
    expect((await call({ command: ["pwd"], workdir: "sub" })).text).toBe(json(`${join(dir.path, "sub")}\n`));
  });

  it("times out with exit code 124", async () => {
    const { text } = await call({ command: ["bash", "-lc", "echo before; sleep 5"], timeout_ms: 300 });
    const parsed = JSON.parse(text) as {
      output: string;
      metadata: { exit_code: number; duration_seconds: number };
    };
    expect(parsed.output).toMatch(/^command timed out after \d+ milliseconds\nbefore\n$/);
    // At least the timeout, far below the 5 s sleep; a loaded machine may take 400 ms or more.
    const ms = Number(/after (\d+) milliseconds/.exec(parsed.output)?.[1]);
    expect(ms).toBeGreaterThanOrEqual(300);
    expect(ms).toBeLessThan(3000);
    // The metadata carries the same duration in seconds, to one decimal (349 ms: 0.3, 350 ms: 0.4).
    const seconds = Math.round(ms / 100) / 10;
    expect(parsed.metadata).toEqual({ exit_code: 124, duration_seconds: seconds });
    // Written as Rust writes an f32: a whole number keeps its ".0".
    const written = Number.isInteger(seconds) ? seconds.toFixed(1) : String(seconds);
    expect(text).toContain(`"duration_seconds":${written}}}`);
  });

  it("counts all lines and shows the real end of long output", async () => {
    const { text } = await call({ command: ["seq", "1", "200000"] });
    const parsed = JSON.parse(text) as { output: string };
    expect(parsed.output.startsWith("Total output lines: 200000\n\n1\n2\n3\n")).toBe(true);
    expect(parsed.output).toMatch(/…\d+ chars truncated…/);
    expect(parsed.output.endsWith("199999\n200000\n")).toBe(true);
  });

  it("applies apply_patch argv and heredocs natively (call_8, call_9)", async () => {
    const patch = "*** Begin Patch\n*** Add File: viashell.txt\n+via shell\n*** End Patch\n";
    expect((await call({ command: ["apply_patch", patch] })).text).toBe(
      json("Success. Updated the following files:\nA viashell.txt\n"),
    );
    const heredoc =
      "apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: heredoc.txt\n+heredoc\n*** End Patch\nEOF\n";
    expect((await call({ command: ["bash", "-lc", heredoc] })).text).toBe(
      json("Success. Updated the following files:\nA heredoc.txt\n"),
    );
    expect(await readFile(join(dir.path, "heredoc.txt"), "utf8")).toBe("heredoc\n");
  });

  it("rejects a string command with serde's words (call_7)", async () => {
    await expect(call({ command: "echo string-not-array" })).rejects.toThrow(
      'failed to parse function arguments: invalid type: string "echo string-not-array", expected a sequence at line 1 column 34',
    );
  });
});

describe("local_shell", () => {
  const action = (fields: Partial<LocalShellAction>): ToolPayload => ({
    kind: "local_shell",
    action: { type: "exec", command: [], ...fields },
  });

  it("has the built-in spec and shares the shell handler", () => {
    const tool = localShellTool();
    expect(tool.spec).toEqual({ type: "local_shell" });
    expect(tool.handler.kinds).toEqual(["function", "local_shell"]);
  });

  it("runs the action with its directory, environment and timeout", async () => {
    const { text, events } = await invoke(
      action({
        command: ["sh", "-c", 'echo "$GREETING from $(pwd)"'],
        working_directory: "sub",
        env: { GREETING: "hi" },
      }),
    );
    expect(text).toBe(json(`hi from ${join(dir.path, "sub")}\n`));
    expect(events[0]).toMatchObject({
      type: "exec_command_begin",
      command: ["sh", "-c", 'echo "$GREETING from $(pwd)"'],
    });
    const timedOut = await invoke(action({ command: ["sleep", "5"], timeout_ms: 200 }));
    expect(JSON.parse(timedOut.text)).toMatchObject({ metadata: { exit_code: 124 } });
  });
});
