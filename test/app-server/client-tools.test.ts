/**
 * Client tools (Codex 0.169's dynamic tools) through the real app-server: declared at
 * thread/start, offered to the model, called with item/tool/call, answered with
 * `{contentItems, success}`; replaced by a later turn's `dynamicTools` (beyond Codex); a JSON-RPC
 * error reply and a client that never answers both end as failed calls the model reads.
 * Reference: session-169.jsonl "03-turn-dynamic".
 */
import { describe, expect, it } from "vitest";
import { CLIENT_TOOL_FAILED_MARKER } from "../../src/tools/client-tools.js";
import type { AppClient, RequestAnswer, WireMessage } from "../support/app-server-client.js";
import { useAppServerHarness } from "../support/app-server-harness.js";
import { referenceSchemaFailures } from "../support/app-server-schemas.js";
import { functionCall, message, type RecordedRequest, turn } from "../support/fake-model-server.js";
import { flow, runTurn, startThread } from "./flow.js";

const h = useAppServerHarness();

const WEATHER = {
  type: "function",
  name: "lookup_weather",
  description: "Current weather of a city.",
  inputSchema: {
    type: "object",
    properties: { city: { type: "string" } },
    required: ["city"],
    additionalProperties: false,
  },
};
const CLOCK = {
  type: "function",
  name: "read_clock",
  description: "The time in a time zone.",
  inputSchema: { type: "object", properties: { zone: { type: "string" } } },
};

/** Answer item/tool/call with `answer(request)`, recording the requests. */
function serveTools(client: AppClient, answer: (request: WireMessage) => RequestAnswer): WireMessage[] {
  const calls: WireMessage[] = [];
  client.onRequest = (request) => {
    calls.push(request);
    return answer(request);
  };
  return calls;
}

function outputOf(request: RecordedRequest | undefined, callId: string): unknown {
  const item = request?.input.find(
    (entry) => entry.type === "function_call_output" && entry.call_id === callId,
  );
  return item && "output" in item ? item.output : undefined;
}

describe("app-server: client tools", () => {
  it("offers thread/start's tools, calls them on the client, and feeds the answers back", async () => {
    const client = await h.stdio();
    const calls = serveTools(client, (request) => {
      const city = request.params.arguments.city;
      if (city === "Paris")
        return { result: { contentItems: [{ type: "inputText", text: "sunny, 21C" }], success: true } };
      if (city === "Nowhere")
        return { result: { contentItems: [{ type: "inputText", text: "unknown city" }], success: false } };
      return { error: { code: -32000, message: "client blew up" } };
    });
    const threadId = await startThread(client, {
      cwd: h.work,
      approvalPolicy: "never",
      sandbox: "danger-full-access",
      dynamicTools: [WEATHER],
    });
    h.model.enqueue(
      turn(functionCall("lookup_weather", { city: "Paris" }, "call_1")),
      turn(functionCall("lookup_weather", { city: "Nowhere" }, "call_2")),
      turn(functionCall("lookup_weather", { city: "Error" }, "call_3")),
      turn(message("dynamic done")),
    );
    const { turnId, completed } = await runTurn(client, threadId, "weather please");
    expect(completed.params.turn.status).toBe("completed");

    const offered = ((h.model.requests[0]?.body.tools ?? []) as Record<string, unknown>[]).find(
      (tool) => tool.name === "lookup_weather",
    );
    expect(offered).toEqual({
      type: "function",
      name: "lookup_weather",
      description: "Current weather of a city.",
      strict: false,
      parameters: WEATHER.inputSchema,
    });
    expect(calls.map((call) => call.params)).toEqual([
      {
        threadId,
        turnId,
        callId: "call_1",
        namespace: null,
        tool: "lookup_weather",
        arguments: { city: "Paris" },
      },
      {
        threadId,
        turnId,
        callId: "call_2",
        namespace: null,
        tool: "lookup_weather",
        arguments: { city: "Nowhere" },
      },
      {
        threadId,
        turnId,
        callId: "call_3",
        namespace: null,
        tool: "lookup_weather",
        arguments: { city: "Error" },
      },
    ]);
    expect(calls.every((call) => call.method === "item/tool/call")).toBe(true);
    expect(flow(client, turnId).slice(3, 9)).toEqual([
      "item/started dynamicToolCall inProgress",
      "item/completed dynamicToolCall completed",
      "item/started dynamicToolCall inProgress",
      "item/completed dynamicToolCall failed",
      "item/started dynamicToolCall inProgress",
      "item/completed dynamicToolCall failed",
    ]);
    const done = client
      .notifications("item/completed")
      .filter((m) => m.params.item.type === "dynamicToolCall")
      .map((m) => m.params.item);
    expect(done[0]).toMatchObject({
      id: "call_1",
      namespace: null,
      tool: "lookup_weather",
      arguments: { city: "Paris" },
      status: "completed",
      contentItems: [{ type: "inputText", text: "sunny, 21C" }],
      success: true,
    });
    expect(done[2]?.contentItems).toEqual([
      { type: "inputText", text: "dynamic tool request failed: client blew up" },
    ]);
    // The model reads each answer, failed or not.
    expect(outputOf(h.model.requests[1], "call_1")).toBe("sunny, 21C");
    expect(outputOf(h.model.requests[2], "call_2")).toBe(`${CLIENT_TOOL_FAILED_MARKER}unknown city`);
    expect(outputOf(h.model.requests[3], "call_3")).toBe(
      `${CLIENT_TOOL_FAILED_MARKER}dynamic tool request failed: client blew up`,
    );
    expect(referenceSchemaFailures(client)).toEqual([]);
    // Four model round trips and three client calls: room for a loaded machine.
  }, 60_000);

  it("a later turn's dynamicTools replace the set (the model request shows the new one), [] clears it", async () => {
    const client = await h.stdio();
    serveTools(client, () => ({
      result: { contentItems: [{ type: "inputText", text: "12:00" }], success: true },
    }));
    const threadId = await startThread(client, { cwd: h.work, dynamicTools: [WEATHER] });
    h.model.enqueue(
      turn(message("first")),
      turn(functionCall("read_clock", { zone: "UTC" }, "call_9")),
      turn(message("second")),
      turn(message("third")),
      turn(message("fourth")),
    );
    await runTurn(client, threadId, "one");
    await runTurn(client, threadId, "two", { dynamicTools: [CLOCK] });
    await runTurn(client, threadId, "three");
    await runTurn(client, threadId, "four", { dynamicTools: [] });
    const names = h.model.requests.map((request) => request.toolNames);
    expect(names[0]).toContain("lookup_weather");
    expect(names[0]).not.toContain("read_clock");
    expect(names[1]).toContain("read_clock");
    expect(names[1]).not.toContain("lookup_weather");
    expect(outputOf(h.model.requests[2], "call_9")).toBe("12:00");
    expect(names[3]).toContain("read_clock");
    expect(names[4]).not.toContain("read_clock");
    expect(names[4]).not.toContain("lookup_weather");
    expect(names[4]).toContain("shell_command");
  });

  it("a client that never answers: the call fails within client_tool_timeout_ms and the turn goes on", async () => {
    const client = await h.stdio({ args: ["-c", "client_tool_timeout_ms=400"] });
    const calls = serveTools(client, () => null);
    const threadId = await startThread(client, { cwd: h.work, dynamicTools: [WEATHER] });
    h.model.enqueue(
      turn(functionCall("lookup_weather", { city: "Oslo" }, "call_1")),
      turn(message("gave up")),
    );
    const begun = Date.now();
    const { completed } = await runTurn(client, threadId, "weather");
    expect(Date.now() - begun).toBeLessThan(5_000);
    expect(completed.params.turn.status).toBe("completed");
    expect(calls).toHaveLength(1);
    const item = client.notifications("item/completed").find((m) => m.params.item.id === "call_1")
      ?.params.item;
    expect(item).toMatchObject({ status: "failed", success: false });
    expect(String(outputOf(h.model.requests[1], "call_1"))).toContain(
      "did not answer the lookup_weather call",
    );
    // A late answer is ignored, and the connection still serves.
    client.send({ id: calls[0]?.id ?? 0, result: { contentItems: [], success: true } });
    expect((await client.call("thread/loaded/list", {})).data).toContain(threadId);
  });

  it("dynamicTools need the experimental API, and a name clash with a built-in tool is refused", async () => {
    const plain = await h.stdio({ capabilities: {} });
    const refused = await plain.request("thread/start", { cwd: h.work, dynamicTools: [WEATHER] });
    expect(refused.error?.code).toBe(-32600);
    expect(refused.error?.message).toContain("experimentalApi");

    const client = await h.stdio();
    const clash = await client.request("thread/start", {
      cwd: h.work,
      dynamicTools: [{ ...WEATHER, name: "shell_command" }],
    });
    expect(clash.error?.code).toBe(-32602);
    expect(clash.error?.message).toContain("shell_command");
    const bad = await client.request("thread/start", {
      cwd: h.work,
      dynamicTools: [{ name: "no spaces allowed" }],
    });
    expect(bad.error?.code).toBe(-32602);
  });
});
