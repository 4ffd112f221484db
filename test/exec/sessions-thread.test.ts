/**
 * Exec sessions inside a real Thread (injected model, no HTTP): sessions outlive turns, an
 * interrupt ends what its turn started, and shutdown ends everything before shutdown_complete.
 */

import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ModelClient, Prompt, ResponseEvent } from "../../src/model/types.js";
import type { Event } from "../../src/protocol/events.js";
import type { ResponseItem } from "../../src/protocol/items.js";
import { NO_EXTENT, permissionsFromSandboxMode } from "../../src/protocol/permissions-legacy.js";
import { Thread } from "../../src/session/thread.js";
import { execCommandTool } from "../../src/tools/builtin/exec-command.js";
import { writeStdinTool } from "../../src/tools/builtin/write-stdin.js";
import { testThreadServices } from "../support/thread-services.js";
import { type TempDir, tmpdir } from "../support/tmpdir.js";
import { alive, gone, parseEnvelope, readPid, waitFor } from "./sessions-helpers.js";

type Script = (prompt: Prompt) => ResponseEvent[];

let dir: TempDir;
beforeEach(async () => {
  dir = await tmpdir();
});
afterEach(async () => {
  await dir.cleanup();
});

function scriptedClient(scripts: Script[]): ModelClient {
  return {
    stream(prompt) {
      const script = scripts.shift();
      if (!script) throw new Error("no scripted response left");
      const events = script(prompt);
      return (async function* () {
        yield* events;
      })();
    },
  };
}

const completed = (): ResponseEvent => ({ type: "completed", responseId: "r", usage: null });
const message = (text: string): ResponseEvent => ({
  type: "output_item_done",
  item: { type: "message", role: "assistant", content: [{ type: "output_text", text }] },
});
const call = (name: string, args: unknown, callId: string): ResponseEvent => ({
  type: "output_item_done",
  item: { type: "function_call", name, arguments: JSON.stringify(args), call_id: callId },
});

function outputOf(input: readonly ResponseItem[], callId: string): string {
  const item = input.find((entry) => entry.type === "function_call_output" && entry.call_id === callId);
  return item?.type === "function_call_output" ? String(item.output) : "";
}

function makeThread(scripts: Script[]): { thread: Thread; events: Event[] } {
  const thread = new Thread(
    "t-1",
    testThreadServices(
      scriptedClient(scripts),
      [execCommandTool({ shellPath: "/bin/bash", killGraceMs: 200 }), writeStdinTool()],
      {
        truncation: { mode: "tokens", limit: 10_000 },
        shellEnvironment: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dir.path },
      },
    ),
    {
      cwd: dir.path,
      approvalPolicy: "never",
      permissions: permissionsFromSandboxMode("danger-full-access"),
      configuredExtent: NO_EXTENT,
    },
  );
  const events: Event[] = [];
  thread.subscribe((event) => events.push(event));
  return { thread, events };
}

function shutdown(thread: Thread, events: Event[]): Promise<void> {
  thread.submit({ type: "shutdown" });
  return waitFor(() => events.some((event) => event.type === "shutdown_complete"));
}

describe("exec sessions in a thread", () => {
  it("live across turns, and end with the thread before shutdown_complete", async () => {
    const pidFile = join(dir.path, "loop.pid");
    const cmd = `echo $$ > ${pidFile}; while true; do echo tick; sleep 0.05; done`;
    const { thread, events } = makeThread([
      () => [call("exec_command", { cmd, tty: true, yield_time_ms: 250 }, "c1"), completed()],
      () => [message("started"), completed()],
      (prompt) => {
        const id = parseEnvelope(outputOf(prompt.input, "c1")).sessionId;
        // Typing keeps the poll short (an empty poll waits at least 5 s); the loop ignores it.
        return [call("write_stdin", { session_id: id, chars: "\n", yield_time_ms: 0 }, "c2"), completed()];
      },
      () => [message("polled"), completed()],
    ]);
    expect((await thread.run({ text: "start" })).status).toBe("completed");
    const pid = await readPid(pidFile);
    const second = await thread.run({ text: "poll" });
    const poll = parseEnvelope(outputOf(second.items, "c2"));
    expect(poll.exitCode).toBeNull();
    expect(poll.output).toContain("tick\r\n");
    expect(await alive(pid)).toBe(true);

    await shutdown(thread, events);
    expect(await gone(pid)).toBe(true);
    expect(events.filter((event) => event.type === "exec_command_end")).toEqual([]);
  });

  it("an interrupted turn ends the sessions it started and reports them ended", async () => {
    const pidFile = join(dir.path, "wait.pid");
    const { thread, events } = makeThread([
      () => [call("exec_command", { cmd: `echo $$ > ${pidFile}; exec sleep 30` }, "c1"), completed()],
    ]);
    const running = thread.run({ text: "wait" });
    const pid = await readPid(pidFile);
    thread.interrupt();
    const result = await running;
    expect(result.status).toBe("interrupted");
    expect(outputOf(result.items, "c1")).toMatch(/^Wall time: \d\.\d seconds\naborted by user$/);
    await waitFor(async () => !(await alive(pid)));
    await waitFor(() => events.some((event) => event.type === "exec_command_end"));
    await shutdown(thread, events);
  });
});
