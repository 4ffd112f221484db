/**
 * Sub-agents end to end through the library against the fake model server. Parent and
 * children talk to the model concurrently, so every scripted answer is chosen from the request
 * itself: whose thread it is (its first prompt) and which tool outputs it already carries.
 */
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type Event, Tscodex } from "../../src/index.js";
import { messageText, type ResponseItem } from "../../src/protocol/items.js";
import { callOutputs, useExecHarness } from "../support/exec-harness.js";
import {
  functionCall,
  message,
  type RecordedRequest,
  type ScriptedTurn,
  turn,
} from "../support/fake-model-server.js";
import { gone, waitFor, withMarker } from "../support/processes.js";

const h = useExecHarness({ git: false, key: "k" });

const opened: Tscodex[] = [];
afterEach(async () => {
  // Closing a parent closes its children (and kills what they run).
  await Promise.all(opened.splice(0).map((agent) => agent.close()));
});

function agent(config: Record<string, unknown> = {}) {
  const created = new Tscodex({
    home: h.home,
    env: h.libraryEnv(),
    config: { "features.collab": true, ...config },
  });
  opened.push(created);
  return created;
}

/** The thread's first real prompt (after the context messages). */
function firstPrompt(input: readonly ResponseItem[]): string {
  for (const item of input) {
    if (item.type !== "message" || item.role !== "user") continue;
    const text = messageText(item);
    if (!text.startsWith("<")) return text;
  }
  return "";
}

const lastUserText = (input: readonly ResponseItem[]) =>
  [...input].reverse().find((item) => item.type === "message" && item.role === "user");

/** Answer every request from `respond`, whatever order they come in. */
function script(
  count: number,
  respond: (request: RecordedRequest, outputs: Record<string, unknown>) => ScriptedTurn,
) {
  for (let i = 0; i < count; i++) h.server.enqueue((request) => respond(request, callOutputs(request.input)));
}

const idOf = (output: unknown) => (JSON.parse(String(output)) as { agent_id: string }).agent_id;

describe("sub-agents", () => {
  it("a parent spawns 3 children that run commands, waits for all, gives one more work, closes them, and answers with their results", async () => {
    script(40, (request, outputs) => {
      const prompt = firstPrompt(request.input);
      if (prompt.startsWith("task ")) {
        const name = prompt.slice(5);
        const last = lastUserText(request.input);
        if (last && last.type === "message" && messageText(last) === `more ${name}`)
          return turn(message(`${name} again`));
        if (!outputs[`run_${name}`])
          return turn(functionCall("shell_command", { command: `echo out-${name}` }, `run_${name}`));
        return turn(message(`${name} done: ${String(outputs[`run_${name}`]).includes(`out-${name}`)}`));
      }
      // The parent.
      if (!outputs.s1) {
        return turn(
          functionCall("spawn_agent", { message: "task A" }, "s1"),
          functionCall("spawn_agent", { message: "task B" }, "s2"),
          functionCall("spawn_agent", { message: "task C" }, "s3"),
        );
      }
      const ids = [idOf(outputs.s1), idOf(outputs.s2), idOf(outputs.s3)];
      const collected: Record<string, unknown> = {};
      let waits = 0;
      for (const [callId, output] of Object.entries(outputs)) {
        if (!callId.startsWith("w")) continue;
        waits += 1;
        Object.assign(collected, (JSON.parse(String(output)) as { status: Record<string, unknown> }).status);
      }
      const missing = ids.filter((id) => !(id in collected));
      if (missing.length > 0)
        return turn(functionCall("wait", { ids: missing, timeout_ms: 20000 }, `w${waits + 1}`));
      if (!outputs.more) return turn(functionCall("send_input", { id: ids[0], message: "more A" }, "more"));
      if (!outputs.again) return turn(functionCall("wait", { ids: [ids[0]], timeout_ms: 20000 }, "again"));
      if (!outputs.c1) {
        return turn(
          functionCall("close_agent", { id: ids[0] }, "c1"),
          functionCall("close_agent", { id: ids[1] }, "c2"),
          functionCall("close_agent", { id: ids[2] }, "c3"),
        );
      }
      const finals = ids.map((id) => JSON.stringify(collected[id]));
      return turn(message(`results: ${finals.join(" | ")} | ${String(outputs.again)}`));
    });

    const thread = agent().startThread({ cwd: h.work, sandboxMode: "danger-full-access" });
    const events: Event[] = [];
    const stream = thread.runStreamed("split the work");
    for await (const event of stream) events.push(event);
    const result = await stream.result();
    expect(result.status).toBe("completed");
    expect(result.finalResponse).toContain('{"completed":"A done: true"}');
    expect(result.finalResponse).toContain('{"completed":"B done: true"}');
    expect(result.finalResponse).toContain('{"completed":"C done: true"}');
    expect(result.finalResponse).toContain('"completed":"A again"');

    const spawned = events.filter((event) => event.type === "agent_spawned");
    expect(spawned.map((event) => event.type === "agent_spawned" && event.message).sort()).toEqual([
      "task A",
      "task B",
      "task C",
    ]);
    // Children's progress arrives wrapped, never as the parent's own messages.
    const childCommands = events.filter(
      (event) => event.type === "agent_event" && event.event.type === "exec_command_end",
    );
    expect(childCommands).toHaveLength(3);
    expect(
      events
        .filter((event) => event.type === "agent_message")
        .map((event) => event.type === "agent_message" && event.message),
    ).toEqual([result.finalResponse]);
    // Closing reports the status each had; every child ends closed.
    const closes = (callId: string) =>
      JSON.parse(String(callOutputs(h.server.requests.at(-1)?.input ?? [])[callId]));
    expect(closes("c1")).toEqual({ status: { completed: "A again" } });
    const closed = events.filter((event) => event.type === "agent_status" && event.status === "shutdown");
    expect(closed).toHaveLength(3);

    // Each child is a thread of its own, recorded with its parent.
    const listed = await agent().listThreads();
    const children = listed.filter((summary) => summary.id !== thread.id);
    expect(children).toHaveLength(3);
  });

  it("wait returns when its timeout passes, listing nobody; limits are tool outputs the model can read", async () => {
    script(20, (request, outputs) => {
      const prompt = firstPrompt(request.input);
      if (prompt === "slow")
        return turn(functionCall("shell_command", { command: "sleep 2", timeout_ms: 10000 }, "z"));
      if (prompt === "nested") return turn(functionCall("spawn_agent", { message: "grandchild" }, "g"));
      if (!outputs.s1) {
        return turn(
          functionCall("spawn_agent", { message: "slow" }, "s1"),
          functionCall("spawn_agent", { message: "slow" }, "s2"),
          functionCall("spawn_agent", { message: "slow" }, "s3"),
        );
      }
      if (!outputs.w) return turn(functionCall("wait", { ids: [idOf(outputs.s1)], timeout_ms: 50 }, "w"));
      return turn(message("ok"));
    });
    const thread = agent({ "collab.max_concurrent": 2 }).startThread({
      cwd: h.work,
      sandboxMode: "danger-full-access",
    });
    await thread.run("go");
    const outputs = callOutputs(
      h.server.requests.find((request) => "w" in callOutputs(request.input))?.input ?? [],
    );
    expect(outputs.s3).toBe(
      "spawn_agent refused: 2 sub-agents are already running (limit 2); wait for one or close one first",
    );
    expect(JSON.parse(String(outputs.w))).toEqual({ status: {}, timed_out: true });
    await thread.interrupt();
  });

  it("depth: a child cannot spawn at the default depth of 1", async () => {
    script(10, (request, outputs) => {
      const prompt = firstPrompt(request.input);
      if (prompt === "nested") {
        if (!outputs.g) return turn(functionCall("spawn_agent", { message: "grandchild" }, "g"));
        return turn(message(String(outputs.g)));
      }
      if (!outputs.s1) return turn(functionCall("spawn_agent", { message: "nested" }, "s1"));
      if (!outputs.w) return turn(functionCall("wait", { ids: [idOf(outputs.s1)], timeout_ms: 20000 }, "w"));
      return turn(message(String(outputs.w)));
    });
    const result = await agent().startThread({ cwd: h.work }).run("go");
    expect(JSON.parse(result.finalResponse ?? "")).toEqual({
      status: expect.objectContaining({}),
      timed_out: false,
    });
    expect(result.finalResponse).toContain(
      "spawn_agent refused: agents at depth 1 cannot start sub-agents (max depth 1)",
    );
  });

  it("interrupting the parent interrupts its running children and kills their processes", async () => {
    const marker = `subagent-marker-${process.pid}-${Date.now()}`;
    script(10, (request, outputs) => {
      const prompt = firstPrompt(request.input);
      if (prompt === "long")
        return turn(
          functionCall("shell_command", { command: `sleep 30 && echo ${marker}`, timeout_ms: 60000 }, "z"),
        );
      if (!outputs.s1)
        return turn(
          functionCall("spawn_agent", { message: "long" }, "s1"),
          functionCall("spawn_agent", { message: "long" }, "s2"),
        );
      return turn(
        functionCall("wait", { ids: [idOf(outputs.s1), idOf(outputs.s2)], timeout_ms: 60000 }, "w"),
      );
    });
    const thread = agent().startThread({ cwd: h.work, sandboxMode: "danger-full-access" });
    const events: Event[] = [];
    const stream = thread.runStreamed("go");
    let begun = 0;
    for await (const event of stream) {
      events.push(event);
      if (event.type === "agent_event" && event.event.type === "exec_command_begin") begun += 1;
      if (begun === 2) {
        await waitFor(async () => (await withMarker(marker)).length >= 2);
        begun += 1;
        await thread.interrupt();
      }
    }
    expect((await stream.result()).status).toBe("interrupted");
    await waitFor(async () => (await withMarker(marker)).length === 0, 5000);
    // Both children's turns were interrupted too (their rollouts say so), not left running.
    const childRollouts = async () => {
      const texts = await Promise.all((await rollouts(h.home)).map((path) => readFile(path, "utf8")));
      return texts.filter((text) => text.includes(`"parent_id":"${thread.id}"`));
    };
    await waitFor(
      async () => (await childRollouts()).filter((text) => text.includes('"turn_aborted"')).length === 2,
    );
    for (const pid of await withMarker(marker)) expect(await gone(pid)).toBe(true);
  });
});

/** Every rollout file under the home's sessions/. */
async function rollouts(home: string): Promise<string[]> {
  const entries = await readdir(join(home, "sessions"), { recursive: true, withFileTypes: true });
  return entries.filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name));
}
