/**
 * `tscodex proxy` /v1/responses with the official openai SDK as the client: plain, streamed,
 * json_schema output, client-tool round trips (previous_response_id, full history, parallel
 * calls), the follow-up served by a second proxy process, and an expired parked turn.
 */
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import type OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { functionCall, message, reasoning, turn, usage } from "../support/fake-model-server.js";
import { waitFor } from "../support/processes.js";
import { useProxyHarness } from "../support/proxy-harness.js";

const h = useProxyHarness();

const WEATHER: OpenAI.Responses.FunctionTool = {
  type: "function",
  name: "get_weather",
  description: "Current weather in a city.",
  parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  strict: false,
};

async function rollouts(home: string): Promise<string[]> {
  const entries = await readdir(join(home, "sessions"), { recursive: true });
  return entries.filter((name) => name.endsWith(".jsonl"));
}

function lastInput(index: number): unknown[] {
  const request = h.model.requests[index];
  if (!request) throw new Error(`no model request ${index}`);
  return request.input;
}

describe("proxy /v1/responses", () => {
  it("answers a plain request with a Response object and usage", async () => {
    const proxy = await h.startProxy();
    h.model.enqueue(
      turn(reasoning(["Thinking about it."]), message("Hello there."), usage({ input: 11, output: 4 })),
    );
    const response = await proxy.client().responses.create({ model: "gpt-5.2-codex", input: "Say hello" });
    expect(response.status).toBe("completed");
    expect(response.output_text).toBe("Hello there.");
    expect(response.output.map((item) => item.type)).toEqual(["reasoning", "message"]);
    expect(response.usage).toMatchObject({ input_tokens: 11, output_tokens: 4, total_tokens: 15 });
    expect(response.id).toMatch(/^resp_/);
    expect(lastInput(0).at(-1)).toMatchObject({
      role: "user",
      content: [{ type: "input_text", text: "Say hello" }],
    });
    await waitFor(() => /POST \/v1\/responses 200 [\d.]+ms/.test(proxy.stderr()));
  });

  it("streams the Responses SSE sequence", async () => {
    const proxy = await h.startProxy();
    h.model.enqueue(turn(message("Streaming works.")));
    const stream = await proxy
      .client()
      .responses.create({ model: "m", input: "stream please", stream: true });
    const types: string[] = [];
    let text = "";
    let final: OpenAI.Responses.Response | undefined;
    for await (const event of stream) {
      types.push(event.type);
      if (event.type === "response.output_text.delta") text += event.delta;
      if (event.type === "response.completed") final = event.response;
    }
    expect(text).toBe("Streaming works.");
    expect(types[0]).toBe("response.created");
    expect(types).toContain("response.output_item.added");
    expect(types).toContain("response.output_item.done");
    expect(types.at(-1)).toBe("response.completed");
    expect(final?.output_text ?? final?.output[0]).toBeTruthy();
  });

  it("json_schema output: the schema reaches the model and the final message is the JSON", async () => {
    const proxy = await h.startProxy();
    h.model.enqueue(turn(message('{"city":"Oslo","temp":3}')));
    const schema = {
      type: "object",
      properties: { city: { type: "string" }, temp: { type: "number" } },
      required: ["city", "temp"],
      additionalProperties: false,
    };
    const response = await proxy.client().responses.create({
      model: "m",
      input: "weather as JSON",
      text: { format: { type: "json_schema", name: "weather", schema, strict: true } },
    });
    expect(JSON.parse(response.output_text)).toEqual({ city: "Oslo", temp: 3 });
    expect(h.model.requests[0]?.body.text).toMatchObject({ format: { type: "json_schema", schema } });
  });

  it("client tool round trip via previous_response_id: the response ends with the call, the follow-up continues the turn", async () => {
    const proxy = await h.startProxy();
    const client = proxy.client();
    h.model.enqueue(
      turn(functionCall("get_weather", { city: "Paris" }, "call_w1")),
      turn(message("Paris: sunny, 22C.")),
    );
    const first = await client.responses.create({ model: "m", input: "Weather in Paris?", tools: [WEATHER] });
    expect(first.status).toBe("completed");
    expect(first.output.at(-1)).toMatchObject({
      type: "function_call",
      status: "completed",
      call_id: "call_w1",
      name: "get_weather",
      arguments: '{"city":"Paris"}',
    });
    // The model saw the client's tool, and the built-in one of the same kind is still there.
    expect(h.model.requests[0]?.toolNames).toContain("get_weather");
    // Without `tools` the continued turn keeps the ones it parked with.
    const second = await client.responses.create({
      model: "m",
      previous_response_id: first.id,
      input: [{ type: "function_call_output", call_id: "call_w1", output: "sunny, 22C" }],
    });
    expect(second.output_text).toBe("Paris: sunny, 22C.");
    expect(h.model.requests[1]?.toolNames).toContain("get_weather");
    // Continued turn: the output sits right after its call, and no new user message was added.
    const input = lastInput(1) as { type?: string; role?: string; call_id?: string }[];
    const at = input.findIndex((item) => item.type === "function_call" && item.call_id === "call_w1");
    expect(input[at + 1]).toMatchObject({
      type: "function_call_output",
      call_id: "call_w1",
      output: "sunny, 22C",
    });
    expect(input.filter((item) => item.role === "user" && item.type === "message").length).toBe(
      input.slice(0, at).filter((item) => item.role === "user" && item.type === "message").length,
    );
  });

  it("streams a client tool call (function_call_arguments events) and continues from a second proxy process", async () => {
    const one = await h.startProxy();
    const two = await h.startProxy();
    h.model.enqueue(
      turn(functionCall("get_weather", { city: "Rome" }, "call_r1")),
      turn(message("Rome is warm.")),
    );
    const stream = await one.client().responses.create({
      model: "m",
      input: "Weather in Rome?",
      tools: [WEATHER],
      stream: true,
    });
    const types: string[] = [];
    let responseId = "";
    for await (const event of stream) {
      types.push(event.type);
      if (event.type === "response.completed") responseId = event.response.id;
    }
    expect(types).toContain("response.function_call_arguments.delta");
    expect(types).toContain("response.function_call_arguments.done");
    expect(types.at(-1)).toBe("response.completed");
    await one.stop();
    const second = await two.client().responses.create({
      model: "m",
      previous_response_id: responseId,
      input: [{ type: "function_call_output", call_id: "call_r1", output: "warm, 28C" }],
      tools: [WEATHER],
    });
    expect(second.output_text).toBe("Rome is warm.");
    expect(lastInput(1)).toContainEqual(
      expect.objectContaining({ type: "function_call_output", call_id: "call_r1", output: "warm, 28C" }),
    );
  });

  it("client tool round trip via the full input history (no previous_response_id)", async () => {
    const proxy = await h.startProxy();
    const client = proxy.client();
    h.model.enqueue(
      turn(functionCall("get_weather", { city: "Oslo" }, "call_o1")),
      turn(message("Oslo: cold.")),
    );
    const first = await client.responses.create({ model: "m", input: "Weather in Oslo?", tools: [WEATHER] });
    const call = first.output.find((item) => item.type === "function_call");
    if (call?.type !== "function_call") throw new Error("no function call");
    const second = await client.responses.create({
      model: "m",
      tools: [WEATHER],
      input: [
        { role: "user", content: "Weather in Oslo?" },
        { type: "function_call", call_id: call.call_id, name: call.name, arguments: call.arguments },
        { type: "function_call_output", call_id: call.call_id, output: "-5C" },
      ],
    });
    expect(second.output_text).toBe("Oslo: cold.");
    // The parked thread was found (one rollout), not rebuilt from the request as a new thread.
    const input = lastInput(1) as { type?: string; role?: string; content?: unknown }[];
    expect(input.filter((item) => item.type === "function_call")).toHaveLength(1);
    expect(await rollouts(h.home)).toHaveLength(1);
  });

  it("history from a client that never talked to this proxy is answered from the request alone", async () => {
    const proxy = await h.startProxy();
    h.model.enqueue(turn(message("It was -5C, so dress warmly.")));
    const response = await proxy.client().responses.create({
      model: "m",
      tools: [WEATHER],
      input: [
        { role: "user", content: "Weather in Oslo?" },
        { type: "function_call", call_id: "call_ext", name: "get_weather", arguments: '{"city":"Oslo"}' },
        { type: "function_call_output", call_id: "call_ext", output: "-5C" },
      ],
    });
    expect(response.output_text).toBe("It was -5C, so dress warmly.");
    const input = lastInput(0) as { type?: string; call_id?: string }[];
    const at = input.findIndex((item) => item.type === "function_call" && item.call_id === "call_ext");
    expect(input[at + 1]).toMatchObject({ type: "function_call_output", call_id: "call_ext", output: "-5C" });
  });

  it("parallel client calls all end the response, and all outputs continue the turn", async () => {
    const proxy = await h.startProxy();
    const client = proxy.client();
    h.model.enqueue(
      turn(
        functionCall("get_weather", { city: "A" }, "call_a"),
        functionCall("get_weather", { city: "B" }, "call_b"),
      ),
      turn(message("A and B done.")),
    );
    const first = await client.responses.create({ model: "m", input: "Two cities", tools: [WEATHER] });
    expect(first.output.filter((item) => item.type === "function_call").map((item) => item.call_id)).toEqual([
      "call_a",
      "call_b",
    ]);
    const second = await client.responses.create({
      model: "m",
      previous_response_id: first.id,
      tools: [WEATHER],
      input: [
        { type: "function_call_output", call_id: "call_b", output: "rain" },
        { type: "function_call_output", call_id: "call_a", output: "sun" },
      ],
    });
    expect(second.output_text).toBe("A and B done.");
    const outputs = (lastInput(1) as { type?: string; call_id?: string; output?: string }[]).filter(
      (item) => item.type === "function_call_output",
    );
    expect(outputs.map((item) => [item.call_id, item.output])).toEqual([
      ["call_a", "sun"],
      ["call_b", "rain"],
    ]);
  });

  it("a parked turn expires after the TTL with a clear error", async () => {
    const proxy = await h.startProxy(["--parked-ttl", "0.2"]);
    const client = proxy.client();
    h.model.enqueue(turn(functionCall("get_weather", { city: "Lima" }, "call_l1")));
    const first = await client.responses.create({ model: "m", input: "Weather in Lima?", tools: [WEATHER] });
    // Waiting out the TTL is the point of this test: no event to await instead.
    await new Promise((resolve) => setTimeout(resolve, 250));
    const error = await client.responses
      .create({
        model: "m",
        previous_response_id: first.id,
        input: [{ type: "function_call_output", call_id: "call_l1", output: "mild" }],
      })
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({ status: 400, code: "parked_turn_expired", param: "previous_response_id" });
    expect(String((error as Error).message)).toMatch(/expired .* after the response .*limit 200 ms/);
    expect(h.model.requests).toHaveLength(1);
  });

  it("404 for an unknown previous_response_id; a client tool named like a built-in wins; --disable-internal-tools", async () => {
    const proxy = await h.startProxy(["--disable-internal-tools"]);
    const client = proxy.client();
    const missing = await client.responses
      .create({
        model: "m",
        previous_response_id: "resp_0190c6f0-0000-7000-8000-000000000000_ab",
        input: "hi",
      })
      .catch((caught: unknown) => caught);
    expect(missing).toMatchObject({ status: 404, code: "previous_response_not_found" });
    h.model.enqueue(turn(message("ok")));
    const shell: OpenAI.Responses.FunctionTool = {
      ...WEATHER,
      name: "shell_command",
      description: "Client shell.",
    };
    await client.responses.create({ model: "m", input: "hi", tools: [shell] });
    expect(h.model.requests[0]?.toolNames).toEqual(["shell_command"]);
    const tools = h.model.requests[0]?.body.tools as { description?: string }[];
    expect(tools[0]?.description).toBe("Client shell.");
  });
});
