/**
 * `tscodex exec` under faults: model errors and retries, dropped streams, huge output,
 * timeouts and interrupts. Processes are checked by pid, memory by the CLI's peak RSS.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useExecHarness } from "../support/exec-harness.js";
import { endStream, functionCall, hang, httpError, message, turn } from "../support/fake-model-server.js";
import { gone, readPid } from "../support/processes.js";
import { zeroTiming } from "../support/timing.js";

// Unsandboxed: these tests check processes by host pid and write files in cwd (the sandbox
// has its own pid namespace and, by default, a read-only file system).
const h = useExecHarness({
  key: "k",
  execArgs: ["-s", "danger-full-access"],
  env: { TSCODEX_RETRY_BASE_MS: "5" },
});

/** What the model received for a call in request `index`, timing zeroed. */
const outputOf = (index: number, callId: string): string => String(zeroTiming(h.outputOf(index, callId)));

describe("tscodex exec faults", () => {
  it("retries a 500 and succeeds, announcing the retry", async () => {
    h.server.enqueue(httpError(500, { error: { message: "upstream hiccup" } }), turn(message("recovered")));
    const result = await h.exec(["go"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("recovered\n");
    expect(h.server.requests).toHaveLength(2);
    expect(result.stderr).toMatch(/model stream error, retrying \(1\/3\)/);
  });

  it("fails on a 400 with the body, as --json error and turn.failed, exit 1", async () => {
    const body = {
      error: { message: "Invalid request: mock says no", type: "invalid_request_error", code: "bad" },
    };
    h.server.enqueue(httpError(400, body));
    const result = await h.exec(["--json", "go"]);
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
    expect(h.server.requests).toHaveLength(1);
  });

  it("retries a stream dropped mid-response without running its tool call twice", async () => {
    const call = functionCall("shell_command", { command: "echo ran >> runs.txt" }, "call_1");
    h.server.enqueue(turn(call, endStream()), turn(call), turn(message("ok")));
    const result = await h.exec(["go"]);
    expect(result.code).toBe(0);
    expect(await readFile(join(h.work, "runs.txt"), "utf8")).toBe("ran\n");
    expect(h.server.requests).toHaveLength(3);
    expect(outputOf(2, "call_1")).toBe("Exit code: 0\nWall time: 0 seconds\nOutput:\n");
  });

  it("keeps memory bounded on 50 MB of output and gives the model its real end", async () => {
    const command = "head -c 50000000 /dev/zero | tr '\\0' a; echo; echo THE-END";
    h.server.enqueue(turn(functionCall("shell_command", { command }, "call_1")), turn(message("ok")));
    const result = await h.exec(["go"]);
    expect(result.code).toBe(0);
    const output = outputOf(1, "call_1");
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
    h.server.enqueue(
      turn(functionCall("shell_command", { command, timeout_ms: 300 }, "call_1")),
      turn(message("ok")),
    );
    const result = await h.exec(["go"]);
    expect(result.code).toBe(0);
    const output = outputOf(1, "call_1");
    expect(output).toMatch(
      /^Exit code: 124\nWall time: 0 seconds\nOutput:\ncommand timed out after \d+ milliseconds\n$/,
    );
    const pid = Number(await readFile(join(h.work, "bg.pid"), "utf8"));
    expect(pid).toBeGreaterThan(0);
    expect(await gone(pid), `pid ${pid}`).toBe(true);
  });

  it("Ctrl-C interrupts the running command and the turn, leaving no process behind", async () => {
    const command = "echo $$ > sh.pid; sleep 30 & echo $! > bg.pid; wait";
    h.server.enqueue(turn(functionCall("shell_command", { command, timeout_ms: 60_000 }, "call_1")));
    const result = await h.exec(["go"], {
      onSpawn: (child) => {
        // Exactly one Ctrl-C, once the background sleep runs: a second one makes exec exit at
        // once with 130 (README). readPid checks one read at a time; reads started on a timer
        // overlap under load, and each that saw the pid sent another SIGINT.
        readPid(join(h.work, "bg.pid"), 10_000).then(
          () => child.kill("SIGINT"),
          () => child.kill("SIGKILL"),
        );
      },
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("turn interrupted");
    for (const file of ["sh.pid", "bg.pid"]) {
      const pid = Number(await readFile(join(h.work, file), "utf8"));
      expect(await gone(pid), `pid ${pid}`).toBe(true);
    }
    expect(h.server.requests).toHaveLength(1);
  });

  it("Ctrl-C during a model stream that hangs ends the turn at once", async () => {
    h.server.enqueue(turn(message("partial"), hang()));
    const result = await h.exec(["go"], {
      onSpawn: (child) => {
        h.server.waitForRequests(1, 10_000).then(
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
