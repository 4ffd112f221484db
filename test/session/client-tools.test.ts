/** Client tools through a Thread: request events, answers, bounds, per-turn sets, name clashes. */

import { describe, expect, it } from "vitest";
import type { ClientToolSpec } from "../../src/protocol/client-tools.js";
import type { Event } from "../../src/protocol/events.js";
import type { ResponseItem } from "../../src/protocol/items.js";
import { NO_EXTENT, permissionsFromSandboxMode } from "../../src/protocol/permissions-legacy.js";
import { Thread, type ThreadSettings } from "../../src/session/thread.js";
import { updatePlanTool } from "../../src/tools/builtin/update-plan.js";
import { CLIENT_TOOL_FAILED_MARKER } from "../../src/tools/client-tools.js";
import { call, completed, message, type Script, scriptedClient } from "../support/scripted-model.js";
import { testThreadServices } from "../support/thread-services.js";

const WEATHER: ClientToolSpec = {
  name: "lookup_weather",
  description: "Weather for a city.",
  // No `type` on the property: the sanitizer fills it in for the model API.
  inputSchema: { type: "object", properties: { city: { description: "City name" } }, required: ["city"] },
};
const CLOCK: ClientToolSpec = { name: "clock", description: "The time.", inputSchema: {} };

function setup(scripts: Script[], settings: Partial<ThreadSettings> = {}, timeoutMs?: number) {
  const client = scriptedClient(scripts);
  const services = testThreadServices(client, [updatePlanTool()], {
    ...(timeoutMs ? { clientToolTimeoutMs: timeoutMs } : {}),
  });
  const thread = new Thread("t-1", services, {
    cwd: "/tmp",
    approvalPolicy: "never",
    permissions: permissionsFromSandboxMode("read-only"),
    configuredExtent: NO_EXTENT,
    clientTools: [WEATHER],
    ...settings,
  });
  const events: Event[] = [];
  thread.subscribe((event) => events.push(event));
  return { client, thread, events };
}

function outputOf(items: readonly ResponseItem[], callId: string): unknown {
  const item = items.find((entry) => entry.type === "function_call_output" && entry.call_id === callId);
  return item?.type === "function_call_output" ? item.output : undefined;
}

const toolNames = (tools: { type: string; name?: string }[]) => tools.map((tool) => tool.name ?? tool.type);

describe("client tools in a thread", () => {
  it("offers them after the built-ins with a repaired schema; a call is a request event the client answers", async () => {
    const { client, thread, events } = setup([
      () => [call("lookup_weather", { city: "Paris" }, "c1"), completed()],
      () => [message("It is sunny."), completed()],
    ]);
    thread.subscribe((event) => {
      if (event.type === "client_tool_call_request") {
        expect(event.arguments).toEqual({ city: "Paris" });
        thread.respondToTool(event.call_id, {
          contentItems: [{ type: "inputText", text: "sunny, 21C" }],
          success: true,
        });
      }
    });
    const result = await thread.run({ text: "weather?" });
    expect(result.finalResponse).toBe("It is sunny.");
    const tools = client.prompts[0]?.tools ?? [];
    expect(toolNames(tools)).toEqual(["update_plan", "lookup_weather"]);
    expect(tools[1]).toEqual({
      type: "function",
      name: "lookup_weather",
      description: "Weather for a city.",
      strict: false,
      parameters: {
        type: "object",
        properties: { city: { type: "string", description: "City name" } },
        required: ["city"],
      },
    });
    expect(outputOf(client.prompts[1]?.input ?? [], "c1")).toBe("sunny, 21C");
    const end = events.find((event) => event.type === "client_tool_call_end");
    expect(end).toMatchObject({ call_id: "c1", tool: "lookup_weather", result: { success: true } });
  });

  it("shows a failed call to the model, attaches images after the outputs, and keeps bad JSON from the client", async () => {
    const { client, thread } = setup([
      () => [
        call("lookup_weather", { city: "Nowhere" }, "c1"),
        call("lookup_weather", "{not json", "c2"),
        completed(),
      ],
      () => [call("lookup_weather", { city: "Map" }, "c3"), completed()],
      () => [message("done"), completed()],
    ]);
    const asked: string[] = [];
    thread.subscribe((event) => {
      if (event.type !== "client_tool_call_request") return;
      asked.push(event.call_id);
      const city = (event.arguments as { city: string }).city;
      thread.respondToTool(
        event.call_id,
        city === "Map"
          ? { contentItems: [{ type: "inputImage", imageUrl: "data:image/png;base64,AAAA" }], success: true }
          : { contentItems: [{ type: "inputText", text: "unknown city" }], success: false },
      );
    });
    await thread.run({ text: "go" });
    expect(asked).toEqual(["c1", "c3"]);
    const second = client.prompts[1]?.input ?? [];
    expect(outputOf(second, "c1")).toBe(`${CLIENT_TOOL_FAILED_MARKER}unknown city`);
    expect(String(outputOf(second, "c2"))).toMatch(/^failed to parse function arguments: /);
    const third = client.prompts[2]?.input ?? [];
    expect(outputOf(third, "c3")).toBe("1 image(s) attached");
    expect(third.at(-1)).toEqual({
      type: "message",
      role: "user",
      content: [{ type: "input_image", image_url: "data:image/png;base64,AAAA" }],
    });
  });

  it("bounds the wait: a client that never answers gives the model a failed call", async () => {
    const { client, thread } = setup(
      [
        () => [call("lookup_weather", { city: "Paris" }, "c1"), completed()],
        () => [message("ok"), completed()],
      ],
      {},
      50,
    );
    const result = await thread.run({ text: "go" });
    expect(result.status).toBe("completed");
    expect(outputOf(client.prompts[1]?.input ?? [], "c1")).toBe(
      `${CLIENT_TOOL_FAILED_MARKER}the client did not answer the lookup_weather call within 50 ms`,
    );
    expect(thread.respondToTool("c1", { contentItems: [], success: true })).toBe(false);
  });

  it("an interrupt ends the wait at once", async () => {
    const { thread } = setup([() => [call("lookup_weather", { city: "Paris" }, "c1"), completed()]]);
    thread.subscribe((event) => {
      if (event.type === "client_tool_call_request") thread.interrupt();
    });
    const result = await thread.run({ text: "go" });
    expect(result.status).toBe("interrupted");
  });

  it("a turn replaces the set from then on; [] clears it", async () => {
    const { client, thread, events } = setup([
      () => [message("one"), completed()],
      () => [message("two"), completed()],
      () => [message("three"), completed()],
      () => [message("four"), completed()],
    ]);
    await thread.run({ text: "1" });
    await thread.run({ text: "2" }, { clientTools: [CLOCK] });
    await thread.run({ text: "3" });
    await thread.run({ text: "4" }, { clientTools: [] });
    expect(client.prompts.map((prompt) => toolNames(prompt.tools))).toEqual([
      ["update_plan", "lookup_weather"],
      ["update_plan", "clock"],
      ["update_plan", "clock"],
      ["update_plan"],
    ]);
    expect(events.filter((event) => event.type === "client_tools_changed")).toHaveLength(2);
  });

  it("refuses a client tool named like a built-in, naming both; clientToolsWin hides the built-in instead", async () => {
    const shadow: ClientToolSpec = { name: "update_plan", description: "mine", inputSchema: {} };
    const refused = setup([]);
    const result = await refused.thread.run({ text: "go" }, { clientTools: [shadow] });
    expect(result.status).toBe("failed");
    expect(result.error).toBe(
      "client tool `update_plan` clashes with the built-in tool `update_plan`; rename the client tool",
    );
    expect(refused.thread.clientTools).toEqual([WEATHER]);

    const wins = setup([() => [message("ok"), completed()]], { clientToolsWin: true, clientTools: [shadow] });
    await wins.thread.run({ text: "go" });
    const tools = wins.client.prompts[0]?.tools ?? [];
    expect(tools).toHaveLength(1);
    expect(tools[0]).toMatchObject({ name: "update_plan", description: "mine" });
  });

  it("sends a turn's output schema with that turn only", async () => {
    const schema = {
      type: "object",
      properties: { ok: { type: "boolean" } },
      required: ["ok"],
      additionalProperties: false,
    };
    const { client, thread } = setup([
      () => [message('{"ok":true}'), completed()],
      () => [message("x"), completed()],
    ]);
    await thread.run({ text: "1" }, { outputSchema: schema });
    await thread.run({ text: "2" });
    expect(client.prompts[0]?.outputSchema).toEqual(schema);
    expect(client.prompts[1]?.outputSchema).toBeUndefined();
  });
});
