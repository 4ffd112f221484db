import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createModelClient } from "../../src/model/client.js";
import { ModelError, type ProviderInfo, type ResponseEvent, type WireApi } from "../../src/model/types.js";
import { userMessage } from "../../src/protocol/items.js";
import {
  customToolCall,
  endStream,
  type FakeModelServer,
  failed,
  functionCall,
  incomplete,
  message,
  raw,
  reasoning,
  startFakeModelServer,
  turn,
  usage,
  webSearchCall,
} from "../support/fake-model-server.js";

const identity = { sessionId: "t", originator: "test", userAgent: "test/0" };
const settings = { model: "m", reasoning: null, include: [] };
const prompt = { instructions: "x", input: [userMessage("hi")], tools: [], parallelToolCalls: true };

let server: FakeModelServer;
beforeAll(async () => {
  server = await startFakeModelServer();
});
afterAll(() => server.close());
beforeEach(() => server.reset());

function client(wireApi: WireApi, overrides: Partial<ProviderInfo> = {}) {
  return createModelClient({
    provider: server.provider({ wireApi, ...overrides }),
    settings,
    identity,
    retryBaseMs: 1,
  });
}

async function drain(events: AsyncIterable<ResponseEvent>): Promise<ResponseEvent[]> {
  const out: ResponseEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}

function joined(
  events: ResponseEvent[],
  type: "output_text_delta" | "reasoning_summary_delta" | "reasoning_content_delta",
) {
  return events.map((event) => (event.type === type ? event.delta : "")).join("");
}

describe("Responses wire events", () => {
  it("maps a full turn", async () => {
    server.enqueue(
      turn(
        reasoning(["Planning", "More"], { encrypted: "gAAAA" }),
        message("Hello there, world"),
        functionCall("shell_command", { command: "echo hi" }, "call_1"),
        customToolCall("apply_patch", "*** Begin Patch\n*** End Patch", "call_2"),
        webSearchCall("weather paris"),
        usage({ input: 10, cached: 4, output: 5, reasoning: 2 }),
      ),
    );
    const events = await drain(client("responses").stream(prompt));
    expect(events[0]).toEqual({ type: "created" });
    expect(joined(events, "output_text_delta")).toBe("Hello there, world");
    expect(joined(events, "reasoning_summary_delta")).toBe("PlanningMore");
    const indexes = events.flatMap((event) =>
      event.type === "reasoning_summary_delta" ? [event.summaryIndex] : [],
    );
    expect(new Set(indexes)).toEqual(new Set([0, 1]));
    expect(
      events.filter((event) => event.type === "output_item_added").map((event) => event.item.type),
    ).toEqual(["reasoning", "message", "function_call", "custom_tool_call", "web_search_call"]);
    const done = events.flatMap((event) => (event.type === "output_item_done" ? [event.item] : []));
    expect(done).toEqual([
      {
        type: "reasoning",
        id: "rs_1",
        summary: [
          { type: "summary_text", text: "Planning" },
          { type: "summary_text", text: "More" },
        ],
        encrypted_content: "gAAAA",
      },
      {
        type: "message",
        id: "msg_1",
        role: "assistant",
        content: [{ type: "output_text", text: "Hello there, world" }],
      },
      {
        type: "function_call",
        id: "fc_1",
        name: "shell_command",
        arguments: '{"command":"echo hi"}',
        call_id: "call_1",
      },
      {
        type: "custom_tool_call",
        id: "ctc_1",
        name: "apply_patch",
        input: "*** Begin Patch\n*** End Patch",
        call_id: "call_2",
      },
      {
        type: "web_search_call",
        id: "ws_1",
        status: "completed",
        action: { type: "search", query: "weather paris" },
      },
    ]);
    expect(events.at(-1)).toEqual({
      type: "completed",
      responseId: "resp_1",
      model: "m",
      usage: {
        input_tokens: 10,
        cached_input_tokens: 4,
        output_tokens: 5,
        reasoning_output_tokens: 2,
        total_tokens: 15,
      },
    });
  });

  it("maps raw reasoning text and ignores unknown events", async () => {
    server.enqueue(
      turn(raw({ type: "response.something_new", x: 1 }), reasoning("sum", { raw: "raw thoughts" })),
    );
    const events = await drain(client("responses").stream(prompt));
    expect(joined(events, "reasoning_content_delta")).toBe("raw thoughts");
    expect(events.at(-1)).toMatchObject({ type: "completed", usage: null });
  });

  it("turns response.failed into a ModelError with the API message and code", async () => {
    server.enqueue(
      turn(message("partial"), failed("Your input exceeds the context window", "context_length_exceeded")),
    );
    const error = await drain(client("responses").stream(prompt)).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ModelError);
    expect(error).toMatchObject({
      kind: "stream",
      code: "context_length_exceeded",
      message: "Your input exceeds the context window",
    });
    expect(server.requests).toHaveLength(1); // fatal code: not retried
  });

  it("turns response.incomplete into a stream error", async () => {
    server.enqueue(turn(message("cut"), incomplete("max_output_tokens")));
    const error = await drain(client("responses", { streamMaxRetries: 0 }).stream(prompt)).catch(
      (caught: unknown) => caught,
    );
    expect(error).toMatchObject({
      kind: "stream",
      message: "Incomplete response returned, reason: max_output_tokens",
    });
  });
});

describe("Chat wire events", () => {
  it("assembles text, reasoning and two parallel tool calls", async () => {
    server.enqueue(
      turn(
        reasoning("Let me think"),
        message("Running both."),
        functionCall("shell_command", { command: "echo one" }, "call_a"),
        functionCall("shell_command", { command: "echo two" }, "call_b"),
        usage({ input: 20, cached: 8, output: 7 }),
      ),
    );
    const events = await drain(client("chat").stream(prompt));
    expect(joined(events, "output_text_delta")).toBe("Running both.");
    expect(joined(events, "reasoning_content_delta")).toBe("Let me think");
    expect(
      events.filter((event) => event.type === "output_item_added").map((event) => event.item.type),
    ).toEqual(["reasoning", "message"]);
    const done = events.flatMap((event) => (event.type === "output_item_done" ? [event.item] : []));
    expect(done).toEqual([
      { type: "reasoning", summary: [], content: [{ type: "reasoning_text", text: "Let me think" }] },
      { type: "message", role: "assistant", content: [{ type: "output_text", text: "Running both." }] },
      {
        type: "function_call",
        name: "shell_command",
        arguments: '{"command":"echo one"}',
        call_id: "call_a",
      },
      {
        type: "function_call",
        name: "shell_command",
        arguments: '{"command":"echo two"}',
        call_id: "call_b",
      },
    ]);
    expect(events.at(-1)).toEqual({
      type: "completed",
      responseId: "chatcmpl-1",
      model: "m",
      usage: {
        input_tokens: 20,
        cached_input_tokens: 8,
        output_tokens: 7,
        reasoning_output_tokens: 0,
        total_tokens: 27,
      },
    });
  });

  it("assembles interleaved argument fragments by index, reasoning_content, and a body without [DONE]", async () => {
    const chunk = (delta: object, finish: string | null = null) => ({
      id: "cc-9",
      choices: [{ index: 0, delta, finish_reason: finish }],
    });
    server.enqueue(
      turn(
        raw(chunk({ reasoning_content: "hmm" })),
        raw(
          chunk({
            tool_calls: [{ index: 1, id: "c2", type: "function", function: { name: "b", arguments: "" } }],
          }),
        ),
        raw(
          chunk({
            tool_calls: [
              { index: 0, id: "c1", type: "function", function: { name: "a", arguments: '{"x"' } },
            ],
          }),
        ),
        raw(chunk({ tool_calls: [{ index: 1, function: { arguments: '{"y":' } }] })),
        raw(chunk({ tool_calls: [{ index: 0, function: { arguments: ":1}" } }] })),
        raw(chunk({ tool_calls: [{ index: 1, function: { arguments: "2}" } }] })),
        raw(chunk({}, "tool_calls")),
        endStream(), // this provider closes the body without [DONE]
      ),
    );
    const events = await drain(client("chat").stream(prompt));
    const done = events.flatMap((event) => (event.type === "output_item_done" ? [event.item] : []));
    expect(done).toEqual([
      { type: "reasoning", summary: [], content: [{ type: "reasoning_text", text: "hmm" }] },
      { type: "function_call", name: "a", arguments: '{"x":1}', call_id: "c1" },
      { type: "function_call", name: "b", arguments: '{"y":2}', call_id: "c2" },
    ]);
    // The id comes from the first chunk (the fake's own role chunk here).
    expect(events.at(-1)).toEqual({
      type: "completed",
      responseId: "chatcmpl-1",
      model: "m",
      usage: null,
    });
    expect(server.requests).toHaveLength(1);
  });

  it("renders a custom tool call as a function call with {input}", async () => {
    server.enqueue(turn(customToolCall("apply_patch", "*** Begin Patch", "call_p")));
    const events = await drain(client("chat").stream(prompt));
    expect(events.find((event) => event.type === "output_item_done")).toEqual({
      type: "output_item_done",
      item: {
        type: "function_call",
        name: "apply_patch",
        arguments: '{"input":"*** Begin Patch"}',
        call_id: "call_p",
      },
    });
  });

  it("turns an error chunk into a ModelError", async () => {
    server.enqueue(turn(message("x"), failed("overloaded", "server_error")));
    const error = await drain(client("chat", { streamMaxRetries: 0 }).stream(prompt)).catch(
      (caught: unknown) => caught,
    );
    expect(error).toMatchObject({ kind: "stream", code: "server_error", message: "overloaded" });
  });
});
