/** Parked turns: client tool calls end the turn at a model-request boundary; outputs continue it. */

import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ClientToolSpec } from "../../src/protocol/client-tools.js";
import type { Event } from "../../src/protocol/events.js";
import type { ResponseItem } from "../../src/protocol/items.js";
import { NO_EXTENT, permissionsFromSandboxMode } from "../../src/protocol/permissions-legacy.js";
import { NO_CLIENT_OUTPUT } from "../../src/session/parking.js";
import { Thread } from "../../src/session/thread.js";
import { storedLastTurn } from "../../src/session/thread-manager.js";
import { readRollout } from "../../src/store/rollout-reader.js";
import { RolloutRecorder } from "../../src/store/rollout-recorder.js";
import { updatePlanTool } from "../../src/tools/builtin/update-plan.js";
import { call, completed, message, type Script, scriptedClient } from "../support/scripted-model.js";
import { testThreadServices } from "../support/thread-services.js";
import { type TempDir, tmpdir } from "../support/tmpdir.js";

const WEATHER: ClientToolSpec = { name: "lookup_weather", description: "Weather.", inputSchema: {} };
const PLAN = { plan: [{ step: "look", status: "in_progress" }] };

function makeThread(scripts: Script[], park = true) {
  const client = scriptedClient(scripts);
  const thread = new Thread("t-park", testThreadServices(client, [updatePlanTool()]), {
    cwd: "/tmp",
    approvalPolicy: "never",
    permissions: permissionsFromSandboxMode("read-only"),
    configuredExtent: NO_EXTENT,
    clientTools: [WEATHER],
    ...(park ? { parkClientCalls: true } : {}),
  });
  const events: Event[] = [];
  thread.subscribe((event) => events.push(event));
  return { client, thread, events };
}

const output = (callId: string, text: string): ResponseItem => ({
  type: "function_call_output",
  call_id: callId,
  output: text,
});

function typesAfter(items: readonly ResponseItem[], callId: string): string[] {
  const at = items.findIndex((item) => item.type === "function_call" && item.call_id === callId);
  return items.slice(at, at + 2).map((item) => item.type);
}

let home: TempDir;
beforeEach(async () => {
  home = await tmpdir();
});
afterEach(async () => {
  await home.cleanup();
});

describe("parked turns", () => {
  it("runs the response's built-in calls, parks on the client calls, and continues with their outputs", async () => {
    const { client, thread, events } = makeThread([
      () => [call("update_plan", PLAN, "p1"), call("lookup_weather", { city: "Oslo" }, "w1"), completed()],
      () => [message("Sunny in Oslo."), completed()],
    ]);
    const parked = await thread.run({ text: "weather?" });
    expect(parked.status).toBe("parked");
    expect(parked.pendingCalls.map((c) => c.call_id)).toEqual(["w1"]);
    expect(events.some((e) => e.type === "client_tool_call_request")).toBe(false);
    expect(events.at(-1)).toMatchObject({ type: "turn_parked", turn_id: "0", call_ids: ["w1"] });
    // Only the client call lacks an output: the history ends at a request boundary.
    expect(thread.history.filter((i) => i.type === "function_call_output").map((i) => i.call_id)).toEqual([
      "p1",
    ]);
    expect(thread.parkedTurn?.calls.map((c) => c.call_id)).toEqual(["w1"]);

    const done = await thread.continueTurn([output("w1", "sunny")]);
    expect(done).toMatchObject({ turnId: "0", status: "completed", finalResponse: "Sunny in Oslo." });
    expect(typesAfter(client.prompts[1]?.input ?? [], "w1")).toEqual([
      "function_call",
      "function_call_output",
    ]);
    expect(thread.parkedTurn).toBeNull();
    expect(events.some((e) => e.type === "turn_continued" && e.turn_id === "0")).toBe(true);
  });

  it("fills a pending call the client left out, and fails a continue with nothing parked", async () => {
    const { client, thread } = makeThread([
      () => [
        call("lookup_weather", { city: "A" }, "a"),
        call("lookup_weather", { city: "B" }, "b"),
        completed(),
      ],
      () => [message("ok"), completed()],
    ]);
    expect((await thread.run({ text: "two cities" })).pendingCalls).toHaveLength(2);
    await thread.continueTurn([output("b", "rain"), output("zzz", "stray")]);
    const input = client.prompts[1]?.input ?? [];
    const outputs = input.filter((i) => i.type === "function_call_output");
    expect(outputs).toEqual([output("a", NO_CLIENT_OUTPUT), output("b", "rain")]);
    const again = await thread.continueTurn([output("a", "x")]);
    expect(again).toMatchObject({ status: "failed", error: "no parked turn none to continue" });
  });

  it("a new user turn abandons the parked calls with failed outputs", async () => {
    const { client, thread } = makeThread([
      () => [call("lookup_weather", {}, "w1"), completed()],
      () => [message("never mind then"), completed()],
    ]);
    await thread.run({ text: "weather?" });
    const next = await thread.run({ text: "forget it" });
    expect(next.status).toBe("completed");
    expect(typesAfter(client.prompts[1]?.input ?? [], "w1")).toEqual([
      "function_call",
      "function_call_output",
    ]);
    expect(thread.parkedTurn).toBeNull();
  });

  it("without parkClientCalls the turn still waits for respondToTool (other front-ends)", async () => {
    const { thread } = makeThread(
      [() => [call("lookup_weather", {}, "w1"), completed()], () => [message("done"), completed()]],
      false,
    );
    thread.subscribe((event) => {
      if (event.type === "client_tool_call_request")
        thread.respondToTool(event.call_id, {
          contentItems: [{ type: "inputText", text: "x" }],
          success: true,
        });
    });
    expect((await thread.run({ text: "go" })).status).toBe("completed");
  });

  it("a fresh thread rebuilt from the rollout continues the parked turn", async () => {
    const first = makeThread([
      () => [call("lookup_weather", { city: "Rome" }, "r1"), completed({ input: 5, output: 2 })],
    ]);
    const recorder = await RolloutRecorder.create(home.path, {
      id: "t-park",
      created: new Date().toISOString(),
      cwd: "/tmp",
      model: "m",
      provider: "p",
      approval_policy: "never",
      sandbox_mode: "read-only",
      source: "test",
    });
    recorder.attach(first.thread);
    await first.thread.run({ text: "weather in Rome?" });
    await recorder.close();

    const stored = await readRollout(recorder.path);
    expect(stored.parked).toMatchObject({ turnId: "0", callIds: ["r1"] });
    expect(storedLastTurn(stored).state).toBe("parked");
    const second = makeThread([() => [message("Warm in Rome."), completed()]]);
    second.thread.restore(stored);
    expect(second.thread.parkedTurn?.calls[0]).toMatchObject({ call_id: "r1", name: "lookup_weather" });
    const done = await second.thread.continueTurn([output("r1", "warm")]);
    expect(done).toMatchObject({ turnId: "0", status: "completed", finalResponse: "Warm in Rome." });
    expect(typesAfter(second.client.prompts[0]?.input ?? [], "r1")).toEqual([
      "function_call",
      "function_call_output",
    ]);
  });
});

describe("importHistory", () => {
  it("records a client's conversation after the initial context; open calls become a parked turn", async () => {
    const { client, thread, events } = makeThread([() => [message("From history."), completed()]]);
    await thread.importHistory([
      { type: "message", role: "user", content: [{ type: "input_text", text: "weather?" }] },
      { type: "function_call", call_id: "h1", name: "lookup_weather", arguments: "{}" },
    ]);
    expect(thread.parkedTurn).toMatchObject({ turnId: "0", calls: [{ call_id: "h1" }] });
    expect(events.filter((e) => e.type === "raw_response_item").length).toBe(thread.history.length);
    expect(events.at(-1)).toMatchObject({ type: "turn_parked", turn_id: "0", call_ids: ["h1"] });
    const done = await thread.continueTurn([output("h1", "cloudy")]);
    expect(done).toMatchObject({ status: "completed", finalResponse: "From history." });
    expect(typesAfter(client.prompts[0]?.input ?? [], "h1")).toEqual([
      "function_call",
      "function_call_output",
    ]);
  });
});
