/**
 * exec_command / write_stdin end to end: the built CLI (`npm run build` first) against the
 * fake model server, with `features.unified_exec` on. Session ids are random, so each
 * write_stdin call is scripted from the previous request's function_call_output.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseEnvelope } from "../exec/sessions-helpers.js";
import { outputOf, useExecHarness } from "../support/exec-harness.js";
import { functionCall, hang, message, type RecordedRequest, turn } from "../support/fake-model-server.js";
import { alive, readPid, waitFor, withMarker } from "../support/processes.js";
import { requireProgram } from "../support/skips.js";

// Unsandboxed: these tests check processes by host pid and write pid files in cwd (the sandbox
// has its own pid namespace and, by default, a read-only file system).
const h = useExecHarness({ execArgs: ["-s", "danger-full-access", "-c", "features.unified_exec=true"] });

/** The session id an earlier call's reply announced. */
const sessionOf = (request: RecordedRequest, callId: string) =>
  parseEnvelope(outputOf(request.input, callId)).sessionId;

/** A write_stdin call to the session `startCall` opened. */
const writeTo =
  (startCall: string, callId: string, args: { chars: string; yield_time_ms: number }) =>
  (request: RecordedRequest) =>
    turn(functionCall("write_stdin", { session_id: sessionOf(request, startCall), ...args }, callId));

/** The parsed replies to these calls in the last request. */
const replies = (callIds: string[]) => callIds.map((id) => parseEnvelope(h.outputOf(-1, id)));

describe("tscodex exec with unified exec", () => {
  it("drives a Python REPL on a tty over several write_stdin calls", async () => {
    requireProgram("python3");
    h.server.enqueue(
      turn(functionCall("exec_command", { cmd: "python3 -i -q", tty: true, yield_time_ms: 250 }, "call_1")),
      // Python may still be starting: what is typed waits in the terminal until it reads.
      writeTo("call_1", "call_2", { chars: "print(6 * 7)\n", yield_time_ms: 3000 }),
      writeTo("call_1", "call_3", { chars: "x = 5\n", yield_time_ms: 250 }),
      writeTo("call_1", "call_4", { chars: "print(x * 3)\n", yield_time_ms: 500 }),
      writeTo("call_1", "call_5", { chars: "exit()\n", yield_time_ms: 3000 }),
      writeTo("call_1", "call_6", { chars: "1\n", yield_time_ms: 250 }),
      turn(message("REPL done.")),
    );
    const result = await h.exec(["use python"]);
    expect(h.server.errors).toEqual([]);
    expect(result.code).toBe(0);
    expect(h.server.requests[0]?.toolNames.slice(0, 2)).toEqual(["exec_command", "write_stdin"]);

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
    expect(h.outputOf(-1, "call_6")).toBe(`write_stdin failed: Unknown process id ${id}`);
  });

  it("polls a command without a tty to completion, and refuses to type into it", async () => {
    h.server.enqueue(
      turn(functionCall("exec_command", { cmd: "sleep 0.5; echo finished", yield_time_ms: 250 }, "call_1")),
      writeTo("call_1", "call_2", { chars: "hi\n", yield_time_ms: 250 }),
      writeTo("call_1", "call_3", { chars: "", yield_time_ms: 10_000 }),
      turn(message("Finished.")),
    );
    const result = await h.exec(["--json", "wait for it"]);
    expect(h.server.errors).toEqual([]);
    expect(result.code).toBe(0);
    const last = h.server.requests.at(-1)?.input ?? [];
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
    requireProgram("python3");
    const serverPid = join(h.work, "h.server.pid");
    const childPid = join(h.work, "child.pid");
    const cmd = [
      `echo $$ > ${serverPid}`,
      `python3 -m http.server 0 --bind 127.0.0.1 > /dev/null 2>&1 & echo $! > ${childPid}`,
      "while true; do echo tick; sleep 0.1; done",
    ].join("; ");
    h.server.enqueue(
      // Long enough for a loaded machine's login shell to print its first tick (300 ms was not).
      turn(functionCall("exec_command", { cmd, yield_time_ms: 1500 }, "call_1")),
      turn(message("Server is up.")),
    );
    const result = await h.exec(["start the dev server"]);
    expect(h.server.errors).toEqual([]);
    expect(result.code).toBe(0);
    const [start] = replies(["call_1"]);
    expect(start?.exitCode).toBeNull();
    expect(start?.output).toMatch(/^(tick\n)+$/);
    // SIGKILL was sent before the CLI exited; the kernel finishes them off a moment later.
    const pids = [await readPid(serverPid), await readPid(childPid)];
    await waitFor(async () => !(await alive(pids[0] ?? 0)) && !(await alive(pids[1] ?? 0)), 2000);
  });

  it("kills its sessions when it is itself killed with SIGTERM", async () => {
    const pidFile = join(h.work, "loop.pid");
    h.server.enqueue(
      turn(
        functionCall(
          "exec_command",
          { cmd: `echo $$ > ${pidFile}; while true; do sleep 0.1; done`, yield_time_ms: 250 },
          "call_1",
        ),
      ),
      turn(hang()),
    );
    const result = await h.exec(["keep going"], {
      onSpawn: (child) => {
        void h.server.waitForRequests(2).then(() => child.kill("SIGTERM"));
      },
    });
    // SIGTERM stops the turn, ends every session, then exits 143 (128 + SIGTERM).
    expect(result.code).toBe(143);
    const pid = await readPid(pidFile);
    await waitFor(async () => !(await alive(pid)), 2000);
  });

  it("kills a dev server started inside the sandbox (workspace-write) when the run ends", async () => {
    requireProgram("python3");
    // The sandbox has its own pid namespace: find the processes on the host by a marker.
    const marker = `${Math.floor(Math.random() * 1e6)}.25`;
    const cmd = `python3 -m http.server 0 --bind 127.0.0.1 > /dev/null 2>&1 & exec sleep ${marker}`;
    // Alive for the whole yield: long enough for a /proc scan to see it on a loaded machine.
    h.server.enqueue(turn(functionCall("exec_command", { cmd, yield_time_ms: 2000 }, "call_1")), (request) =>
      turn(message(outputOf(request.input, "call_1"))),
    );
    let seen: number[] = [];
    const result = await h.cli(["exec", "--full-auto", "-c", "features.unified_exec=true", "serve"], {
      onSpawn: () => {
        void waitFor(async () => {
          seen = await withMarker(marker);
          return seen.length > 0;
        }, 10_000).catch(() => {});
      },
    });
    expect(h.server.errors).toEqual([]);
    expect(result.code).toBe(0);
    expect(parseEnvelope(h.outputOf(-1, "call_1")).exitCode).toBeNull();
    expect(seen.length).toBeGreaterThan(0);
    await waitFor(async () => (await withMarker(marker)).length === 0, 2000);
  });
});
