/**
 * exec_command / write_stdin across calls and turns: exec events, interrupts, the session
 * cap's notice, and the thread's end.
 */
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Event } from "../../src/protocol/events.js";
import { execCommandTool } from "../../src/tools/builtin/exec-command.js";
import { existingSessions } from "../../src/tools/builtin/unified-exec.js";
import { writeStdinTool } from "../../src/tools/builtin/write-stdin.js";
import {
  alive,
  callTool,
  gone,
  parseEnvelope,
  ResourceScope,
  readPid,
  testTurn,
  waitFor,
} from "../exec/sessions-helpers.js";
import { type TempDir, tmpdir } from "../support/tmpdir.js";

let dir: TempDir;
let scope: ResourceScope;
beforeEach(async () => {
  dir = await tmpdir();
  scope = new ResourceScope();
});
afterEach(async () => {
  await scope.dispose();
  await dir.cleanup();
});

const exec = execCommandTool({ shellPath: "/bin/bash", killGraceMs: 200 });
const write = writeStdinTool();
const types = (events: Event[]) => events.map((event) => event.type);
const text = (events: Event[]) =>
  events
    .map((event) => (event.type === "exec_command_output_delta" ? Buffer.from(event.chunk).toString() : ""))
    .join("");

describe("exec events", () => {
  it("begin and deltas under exec_command, end in the turn that sees the exit", async () => {
    const first = testTurn(scope, dir.path, "turn-1");
    const reply = parseEnvelope(
      await callTool(
        exec,
        first.context,
        { cmd: "echo a; sleep 2; echo b >&2", yield_time_ms: 1000 },
        "call_x",
      ),
    );
    expect(types(first.events)).toEqual(["exec_command_begin", "exec_command_output_delta"]);
    expect(first.events[0]).toMatchObject({
      call_id: "call_x",
      turn_id: "turn-1",
      command: ["/bin/bash", "-lc", "echo a; sleep 2; echo b >&2"],
      cwd: dir.path,
    });

    const second = testTurn(scope, dir.path, "turn-2");
    await callTool(write, second.context, { session_id: reply.sessionId, yield_time_ms: 3000 });
    expect(types(second.events)).toEqual(["exec_command_output_delta", "exec_command_end"]);
    expect(second.events[0]).toMatchObject({ call_id: "call_x", stream: "stderr" });
    expect(second.events[1]).toMatchObject({
      type: "exec_command_end",
      call_id: "call_x",
      turn_id: "turn-1",
      exit_code: 0,
      stdout: "a\n",
      stderr: "b\n",
      aggregated_output: "a\nb\n",
    });
  });

  it("a command that cannot start ends at once, with the error", async () => {
    const turn = testTurn(scope, dir.path);
    const output = await callTool(exec, turn.context, { cmd: "true", workdir: "nope" });
    expect(types(turn.events)).toEqual(["exec_command_begin", "exec_command_end"]);
    expect(turn.events[1]).toMatchObject({ exit_code: -1, aggregated_output: output });
  });

  it("a tty streams everything as stdout", async () => {
    const turn = testTurn(scope, dir.path);
    await callTool(exec, turn.context, { cmd: "echo out; echo err >&2", tty: true, yield_time_ms: 2000 });
    expect(text(turn.events)).toBe("out\r\nerr\r\n");
    expect(turn.events.at(-1)).toMatchObject({
      type: "exec_command_end",
      stdout: "out\r\nerr\r\n",
      stderr: "",
    });
  });
});

describe("interrupts and the end of the thread", () => {
  it("an interrupt ends the sessions its turn started, not older ones", async () => {
    const oldFile = join(dir.path, "old.pid");
    const newFile = join(dir.path, "new.pid");
    const earlier = testTurn(scope, dir.path, "turn-1");
    const old = parseEnvelope(
      await callTool(exec, earlier.context, {
        cmd: `echo $$ > ${oldFile}; exec sleep 30`,
        yield_time_ms: 250,
      }),
    );
    const current = testTurn(scope, dir.path, "turn-2");
    const started = parseEnvelope(
      await callTool(exec, current.context, {
        cmd: `echo $$ > ${newFile}; exec sleep 30`,
        yield_time_ms: 250,
      }),
    );
    const [oldPid, newPid] = [await readPid(oldFile), await readPid(newFile)];

    // Interrupted while polling the older session: the wait ends, that session stays.
    const polling = callTool(write, current.context, { session_id: old.sessionId, yield_time_ms: 10_000 });
    setTimeout(() => current.abort.abort(), 100);
    expect(await polling).toMatch(/^Wall time: 0\.\d seconds\naborted by user$/);

    await waitFor(async () => !(await alive(newPid)));
    expect(await alive(oldPid)).toBe(true);
    await waitFor(() => current.events.some((event) => event.type === "exec_command_end"));
    const next = testTurn(scope, dir.path, "turn-3");
    expect(await callTool(write, next.context, { session_id: started.sessionId, chars: "" })).toBe(
      `write_stdin failed: Unknown process id ${started.sessionId}`,
    );
    expect(existingSessions(next.context)?.get(old.sessionId ?? 0)?.exit).toBeNull();
  });

  it("the thread's end kills every session without end events", async () => {
    const turn = testTurn(scope, dir.path);
    const pidFile = join(dir.path, "server.pid");
    await callTool(exec, turn.context, {
      cmd: `echo $$ > ${pidFile}; while true; do sleep 0.05; done`,
      yield_time_ms: 250,
    });
    const pid = await readPid(pidFile);
    await scope.dispose();
    expect(await gone(pid)).toBe(true);
    expect(types(turn.events)).toEqual(["exec_command_begin"]);
  });

  it("at the cap, the least recently used idle session is ended and the reply says so", async () => {
    const capped = execCommandTool({ shellPath: "/bin/bash", maxSessions: 2, killGraceMs: 200 });
    const turn = testTurn(scope, dir.path);
    const start = async (cmd: string) =>
      parseEnvelope(await callTool(capped, turn.context, { cmd, yield_time_ms: 250 }));
    const first = await start("sleep 30");
    await start("sleep 31");
    const third = await start("sleep 32");
    expect(third.notes).toEqual([
      `Note: session ${first.sessionId} (\`sleep 30\`) was ended to stay within 2 live sessions; it was the least recently used.`,
    ]);
    expect(await callTool(write, turn.context, { session_id: first.sessionId, chars: "" })).toBe(
      `write_stdin failed: Unknown process id ${first.sessionId}`,
    );
  });
});
