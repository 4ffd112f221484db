/**
 * exec_command / write_stdin end to end: the built CLI (`npm run build` first) against the
 * fake model server, with `features.unified_exec` on. Session ids are random, so each
 * write_stdin call is scripted from the previous request's function_call_output.
 */
import { execFileSync } from "node:child_process";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { ResponseItem } from "../../src/protocol/items.js";
import { alive, parseEnvelope, readPid, waitFor } from "../exec/sessions-helpers.js";
import { runCli, writeFakeConfig } from "../support/cli.js";
import {
  type FakeModelServer,
  functionCall,
  hang,
  message,
  type RecordedRequest,
  startFakeModelServer,
  turn,
} from "../support/fake-model-server.js";
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

// Unsandboxed: these tests check processes by host pid and write pid files in cwd (the sandbox
// has its own pid namespace and, by default, a read-only file system).
const exec = (args: string[]) =>
  runCli(["exec", "-s", "danger-full-access", "-c", "features.unified_exec=true", ...args], {
    cwd: work.path,
    home: home.path,
    env: { FAKE_KEY: "sk-test" },
  });

function outputOf(input: readonly ResponseItem[], callId: string): string {
  for (const item of input) {
    if (item.type === "function_call_output" && item.call_id === callId) return String(item.output);
  }
  throw new Error(`no output for ${callId}`);
}

/** The session id an earlier call's reply announced. */
const sessionOf = (request: RecordedRequest, callId: string) =>
  parseEnvelope(outputOf(request.input, callId)).sessionId;

/** A write_stdin call to the session `startCall` opened. */
const writeTo =
  (startCall: string, callId: string, args: { chars: string; yield_time_ms: number }) =>
  (request: RecordedRequest) =>
    turn(functionCall("write_stdin", { session_id: sessionOf(request, startCall), ...args }, callId));

const replies = (callIds: string[]) => {
  const last = server.requests.at(-1)?.input ?? [];
  return callIds.map((id) => parseEnvelope(outputOf(last, id)));
};

describe("tscodex exec with unified exec", () => {
  it("drives a Python REPL on a tty over several write_stdin calls", async () => {
    server.enqueue(
      turn(functionCall("exec_command", { cmd: "python3 -i -q", tty: true, yield_time_ms: 250 }, "call_1")),
      // Python may still be starting: what is typed waits in the terminal until it reads.
      writeTo("call_1", "call_2", { chars: "print(6 * 7)\n", yield_time_ms: 3000 }),
      writeTo("call_1", "call_3", { chars: "x = 5\n", yield_time_ms: 250 }),
      writeTo("call_1", "call_4", { chars: "print(x * 3)\n", yield_time_ms: 500 }),
      writeTo("call_1", "call_5", { chars: "exit()\n", yield_time_ms: 3000 }),
      writeTo("call_1", "call_6", { chars: "1\n", yield_time_ms: 250 }),
      turn(message("REPL done.")),
    );
    const result = await exec(["use python"]);
    expect(server.errors).toEqual([]);
    expect(result.code).toBe(0);
    expect(server.requests[0]?.toolNames.slice(0, 2)).toEqual(["exec_command", "write_stdin"]);

    const [start, first, , second, end] = replies(["call_1", "call_2", "call_3", "call_4", "call_5"]);
    const id = start?.sessionId;
    expect(id).toBeGreaterThanOrEqual(1000);
    expect(first).toMatchObject({ sessionId: id, exitCode: null });
    // The terminal echoes what was typed, then Python answers.
    expect(first?.output).toContain("print(6 * 7)\r\n");
    expect(first?.output).toContain("42\r\n");
    expect(second?.output).toContain("print(x * 3)\r\n15\r\n");
    expect(second?.tokens).toBe(Math.ceil(Buffer.byteLength(second?.output ?? "") / 4));
    expect(end).toMatchObject({ exitCode: 0 });
    expect(outputOf(server.requests.at(-1)?.input ?? [], "call_6")).toBe(
      `write_stdin failed: Unknown process id ${id}`,
    );
  });

  it("polls a command without a tty to completion, and refuses to type into it", async () => {
    server.enqueue(
      turn(functionCall("exec_command", { cmd: "sleep 0.5; echo finished", yield_time_ms: 250 }, "call_1")),
      writeTo("call_1", "call_2", { chars: "hi\n", yield_time_ms: 250 }),
      writeTo("call_1", "call_3", { chars: "", yield_time_ms: 10_000 }),
      turn(message("Finished.")),
    );
    const result = await exec(["--json", "wait for it"]);
    expect(server.errors).toEqual([]);
    expect(result.code).toBe(0);
    const last = server.requests.at(-1)?.input ?? [];
    const [start, done] = replies(["call_1", "call_3"]);
    expect(start).toMatchObject({ exitCode: null, tokens: 0, output: "" });
    expect(start?.wallSeconds).toBeLessThan(0.5);
    expect(outputOf(last, "call_2")).toBe(
      "write_stdin failed: stdin is closed for this session; rerun exec_command with tty=true to keep stdin open",
    );
    // An empty poll waits up to 5 s at least, but returns as soon as the process exits.
    expect(done).toMatchObject({ exitCode: 0, tokens: 3, output: "finished\n" });
    expect(done?.wallSeconds).toBeLessThan(4);

    const events = result.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { type: string; item?: Record<string, unknown> });
    const commands = events.filter((event) => event.item?.type === "command_execution");
    expect(commands.map((event) => [event.type, event.item?.status])).toEqual([
      ["item.started", "in_progress"],
      ["item.completed", "completed"],
    ]);
    expect(commands[1]?.item).toMatchObject({ aggregated_output: "finished\n", exit_code: 0 });
  });

  it("kills a dev server and its children when the run ends", async () => {
    const serverPid = join(work.path, "server.pid");
    const childPid = join(work.path, "child.pid");
    const cmd = [
      `echo $$ > ${serverPid}`,
      `python3 -m http.server 0 --bind 127.0.0.1 > /dev/null 2>&1 & echo $! > ${childPid}`,
      "while true; do echo tick; sleep 0.1; done",
    ].join("; ");
    server.enqueue(
      turn(functionCall("exec_command", { cmd, yield_time_ms: 300 }, "call_1")),
      turn(message("Server is up.")),
    );
    const result = await exec(["start the dev server"]);
    expect(server.errors).toEqual([]);
    expect(result.code).toBe(0);
    const [start] = replies(["call_1"]);
    expect(start?.exitCode).toBeNull();
    expect(start?.output).toMatch(/^(tick\n)+$/);
    // SIGKILL was sent before the CLI exited; the kernel finishes them off a moment later.
    const pids = [await readPid(serverPid), await readPid(childPid)];
    await waitFor(async () => !(await alive(pids[0] ?? 0)) && !(await alive(pids[1] ?? 0)), 2000);
  });

  it("kills its sessions when it is itself killed with SIGTERM", async () => {
    const pidFile = join(work.path, "loop.pid");
    server.enqueue(
      turn(
        functionCall(
          "exec_command",
          { cmd: `echo $$ > ${pidFile}; while true; do sleep 0.1; done`, yield_time_ms: 250 },
          "call_1",
        ),
      ),
      turn(hang()),
    );
    const result = await runCli(
      ["exec", "-s", "danger-full-access", "-c", "features.unified_exec=true", "keep going"],
      {
        cwd: work.path,
        home: home.path,
        env: { FAKE_KEY: "sk-test" },
        onSpawn: (child) => {
          void server.waitForRequests(2).then(() => child.kill("SIGTERM"));
        },
      },
    );
    expect(result.signal).toBe("SIGTERM");
    const pid = await readPid(pidFile);
    await waitFor(async () => !(await alive(pid)), 2000);
  });

  it("kills a dev server started inside the sandbox (workspace-write) when the run ends", async () => {
    // The sandbox has its own pid namespace: find the processes on the host by a marker.
    const marker = `${Math.floor(Math.random() * 1e6)}.25`;
    const cmd = `python3 -m http.server 0 --bind 127.0.0.1 > /dev/null 2>&1 & exec sleep ${marker}`;
    server.enqueue(turn(functionCall("exec_command", { cmd, yield_time_ms: 300 }, "call_1")), (request) =>
      turn(message(outputOf(request.input, "call_1"))),
    );
    let seen: number[] = [];
    const result = await runCli(["exec", "--full-auto", "-c", "features.unified_exec=true", "serve"], {
      cwd: work.path,
      home: home.path,
      env: { FAKE_KEY: "sk-test" },
      onSpawn: () => {
        void waitFor(async () => {
          seen = await withMarker(marker);
          return seen.length > 0;
        }, 10_000).catch(() => {});
      },
    });
    expect(server.errors).toEqual([]);
    expect(result.code).toBe(0);
    expect(parseEnvelope(outputOf(server.requests.at(-1)?.input ?? [], "call_1")).exitCode).toBeNull();
    expect(seen.length).toBeGreaterThan(0);
    await waitFor(async () => (await withMarker(marker)).length === 0, 2000);
  });
});

/** Live processes (host pids) whose command line contains `marker`. */
async function withMarker(marker: string): Promise<number[]> {
  const pids: number[] = [];
  for (const name of await readdir("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    const cmdline = await readFile(`/proc/${name}/cmdline`, "utf8").catch(() => "");
    if (cmdline.includes(marker) && (await alive(Number(name)))) pids.push(Number(name));
  }
  return pids;
}
