/**
 * `tscodex exec` under faults: model errors and retries, dropped streams, huge output,
 * timeouts and interrupts. Processes are checked by pid, memory by the CLI's peak RSS.
 */
import { execFileSync } from "node:child_process";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { ResponseItem } from "../../src/protocol/items.js";
import { type CliOptions, runCli, writeFakeConfig } from "../support/cli.js";
import {
  endStream,
  type FakeModelServer,
  functionCall,
  hang,
  httpError,
  message,
  startFakeModelServer,
  turn,
} from "../support/fake-model-server.js";
import { zeroTiming } from "../support/timing.js";
import { type TempDir, tmpdir } from "../support/tmpdir.js";

let server: FakeModelServer;
let home: TempDir;
let work: TempDir;

beforeAll(async () => {
  server = await startFakeModelServer();
});
afterAll(() => server.close());
beforeEach(async () => {
  server.reset();
  home = await tmpdir("tscodex-home-");
  work = await tmpdir("tscodex-work-");
  execFileSync("git", ["init", "-q", work.path]);
  await writeFakeConfig(home.path, { baseUrl: server.url });
});
afterEach(async () => {
  await home.cleanup();
  await work.cleanup();
});

// Unsandboxed: these tests check processes by host pid and write files in cwd (the sandbox
// has its own pid namespace and, by default, a read-only file system).
const exec = (args: string[], extra: Partial<CliOptions> = {}) =>
  runCli(["exec", "-s", "danger-full-access", ...args], {
    cwd: work.path,
    home: home.path,
    env: { FAKE_KEY: "k", TSCODEX_RETRY_BASE_MS: "5" },
    ...extra,
  });

function outputOf(input: ResponseItem[] | undefined, callId: string): string {
  const item = input?.find((entry) => entry.type === "function_call_output" && entry.call_id === callId);
  return item?.type === "function_call_output" && typeof item.output === "string"
    ? String(zeroTiming(item.output))
    : "";
}

/** Alive and not a zombie (an orphan may wait a moment for a reaper that is not ours). */
async function isAlive(pid: number): Promise<boolean> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return false;
  }
}

describe("tscodex exec faults", () => {
  it("retries a 500 and succeeds, announcing the retry", async () => {
    server.enqueue(httpError(500, { error: { message: "upstream hiccup" } }), turn(message("recovered")));
    const result = await exec(["go"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("recovered\n");
    expect(server.requests).toHaveLength(2);
    expect(result.stderr).toMatch(/model stream error, retrying \(1\/3\)/);
  });

  it("fails on a 400 with the body, as --json error and turn.failed, exit 1", async () => {
    const body = {
      error: { message: "Invalid request: mock says no", type: "invalid_request_error", code: "bad" },
    };
    server.enqueue(httpError(400, body));
    const result = await exec(["--json", "go"]);
    expect(result.code).toBe(1);
    const events = result.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(events.map((event) => event.type)).toEqual([
      "thread.started",
      "turn.started",
      "error",
      "turn.failed",
    ]);
    expect(events[2]?.message).toBe(JSON.stringify(body));
    expect(events[3]).toEqual({ type: "turn.failed", error: { message: JSON.stringify(body) } });
    expect(server.requests).toHaveLength(1);
  });

  it("retries a stream dropped mid-response without running its tool call twice", async () => {
    const call = functionCall("shell_command", { command: "echo ran >> runs.txt" }, "call_1");
    server.enqueue(turn(call, endStream()), turn(call), turn(message("ok")));
    const result = await exec(["go"]);
    expect(result.code).toBe(0);
    expect(await readFile(join(work.path, "runs.txt"), "utf8")).toBe("ran\n");
    expect(server.requests).toHaveLength(3);
    expect(outputOf(server.requests[2]?.input, "call_1")).toBe(
      "Exit code: 0\nWall time: 0 seconds\nOutput:\n",
    );
  });

  it("keeps memory bounded on 50 MB of output and gives the model its real end", async () => {
    const command = "head -c 50000000 /dev/zero | tr '\\0' a; echo; echo THE-END";
    server.enqueue(turn(functionCall("shell_command", { command }, "call_1")), turn(message("ok")));
    const result = await exec(["go"]);
    expect(result.code).toBe(0);
    const output = outputOf(server.requests[1]?.input, "call_1");
    expect(output.length).toBeLessThan(41_000);
    expect(output.slice(0, 120)).toMatch(
      /^Exit code: 0\nWall time: [\d.]+ seconds\n(Total output lines: 2\n)?Output:\na{50}/,
    );
    expect(output.slice(-20_100)).toMatch(/^a*…\d+ tokens truncated…a+\nTHE-END\n$/);
    expect(result.peakRssKb).toBeGreaterThan(0);
    expect(result.peakRssKb).toBeLessThan(150 * 1024);
  });

  it("times out a command, kills its whole process group, and reports exit 124", async () => {
    const command = "sleep 30 & echo $! > bg.pid; sleep 30";
    server.enqueue(
      turn(functionCall("shell_command", { command, timeout_ms: 300 }, "call_1")),
      turn(message("ok")),
    );
    const result = await exec(["go"]);
    expect(result.code).toBe(0);
    const output = outputOf(server.requests[1]?.input, "call_1");
    expect(output).toMatch(
      /^Exit code: 124\nWall time: 0 seconds\nOutput:\ncommand timed out after \d+ milliseconds\n$/,
    );
    const pid = Number(await readFile(join(work.path, "bg.pid"), "utf8"));
    expect(pid).toBeGreaterThan(0);
    expect(await isAlive(pid)).toBe(false);
  });

  it("Ctrl-C interrupts the running command and the turn, leaving no process behind", async () => {
    const command = "echo $$ > sh.pid; sleep 30 & echo $! > bg.pid; wait";
    server.enqueue(turn(functionCall("shell_command", { command, timeout_ms: 60_000 }, "call_1")));
    const pidFile = join(work.path, "bg.pid");
    const result = await exec(["go"], {
      onSpawn: (child) => {
        const poll = setInterval(() => {
          readFile(pidFile, "utf8").then(
            (text) => {
              if (!text.trim()) return;
              clearInterval(poll);
              child.kill("SIGINT");
            },
            () => {},
          );
        }, 20);
        child.on("close", () => clearInterval(poll));
      },
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("turn interrupted");
    for (const file of ["sh.pid", "bg.pid"]) {
      const pid = Number(await readFile(join(work.path, file), "utf8"));
      expect(await isAlive(pid)).toBe(false);
    }
    expect(server.requests).toHaveLength(1);
  });

  it("Ctrl-C during a model stream that hangs ends the turn at once", async () => {
    server.enqueue(turn(message("partial"), hang()));
    const result = await exec(["go"], {
      onSpawn: (child) => {
        server.waitForRequests(1, 10_000).then(
          () => child.kill("SIGINT"),
          () => {},
        );
      },
      timeoutMs: 10_000,
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("turn interrupted");
    expect(result.stdout).toBe("");
  });
});
