import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  delay,
  type FakeModelServer,
  functionCall,
  message,
  startFakeModelServer,
  turn,
  usage,
  webSearchCall,
} from "../support/fake-model-server.js";

let server: FakeModelServer;
beforeAll(async () => {
  server = await startFakeModelServer();
});
afterAll(() => server.close());
beforeEach(() => server.reset());

async function post(path: string, body: object = { model: "m" }) {
  const response = await fetch(`${server.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: response.status, text: await response.text(), type: response.headers.get("content-type") };
}

function sseEvents(text: string): { event: string | undefined; data: string }[] {
  return text
    .split("\n\n")
    .filter((block) => block !== "")
    .map((block) => {
      const event = /^event: (.*)$/m.exec(block)?.[1];
      const data = /^data: (.*)$/m.exec(block)?.[1] ?? "";
      return { event, data };
    });
}

describe("fake model server", () => {
  it("speaks the Responses SSE format", async () => {
    server.enqueue(turn(message("hi"), usage({ input: 3, output: 1 })));
    const { status, text, type } = await post("/responses", { model: "gpt-test" });
    expect(status).toBe(200);
    expect(type).toBe("text/event-stream");
    const events = sseEvents(text);
    expect(events.map((event) => event.event)).toEqual([
      "response.created",
      "response.output_item.added",
      "response.content_part.added",
      "response.output_text.delta",
      "response.output_text.delta",
      "response.output_text.done",
      "response.content_part.done",
      "response.output_item.done",
      "response.completed",
    ]);
    const payloads = events.map(
      (event) => JSON.parse(event.data) as { type: string; sequence_number: number },
    );
    payloads.forEach((payload, index) => {
      expect(payload.type).toBe(events[index]?.event);
      expect(payload.sequence_number).toBe(index);
    });
    expect(payloads.at(-1)).toMatchObject({
      response: {
        id: "resp_1",
        status: "completed",
        model: "gpt-test",
        usage: { input_tokens: 3, total_tokens: 4 },
      },
    });
  });

  it("speaks the chat.completion.chunk format, ending in [DONE]", async () => {
    server.enqueue(turn(functionCall("f", { a: 1 }, "call_9")));
    const { text } = await post("/chat/completions");
    const events = sseEvents(text);
    expect(events.every((event) => event.event === undefined)).toBe(true);
    expect(events.at(-1)?.data).toBe("[DONE]");
    const chunks = events.slice(0, -1).map((event) => JSON.parse(event.data) as Record<string, unknown>);
    expect(chunks[0]).toMatchObject({
      object: "chat.completion.chunk",
      choices: [{ delta: { role: "assistant" } }],
    });
    expect(chunks[1]).toMatchObject({
      choices: [
        { delta: { tool_calls: [{ index: 0, id: "call_9", type: "function", function: { name: "f" } }] } },
      ],
    });
    expect(chunks.at(-1)).toMatchObject({ choices: [{ finish_reason: "tool_calls" }] });
  });

  it("answers 500 loudly when no turn is left, and records it", async () => {
    const { status, text } = await post("/responses");
    expect(status).toBe(500);
    expect(text).toBe("fake model server: no scripted turn left");
    expect(server.errors).toEqual(["fake model server: no scripted turn left"]);
    expect(server.requests).toHaveLength(1);
  });

  it("rejects parts a wire cannot express", async () => {
    server.enqueue(turn(webSearchCall("q")));
    const { status, text } = await post("/chat/completions");
    expect(status).toBe(500);
    expect(text).toContain("web_search_call cannot be rendered on the chat wire");
  });

  it("answers 404 on unknown paths without consuming a turn", async () => {
    server.enqueue(turn(message("kept")));
    expect((await post("/embeddings")).status).toBe(404);
    expect(server.pending).toBe(1);
  });

  it("builds a turn from the request when given a function", async () => {
    server.enqueue((request) => turn(message(`you said ${request.input.length} items`)));
    const { text } = await post("/responses", {
      model: "m",
      input: [{ type: "message" }, { type: "message" }],
    });
    expect(text).toContain("you said 2 items");
  });

  it("waits for requests, and times out clearly", async () => {
    server.enqueue(turn(delay(30), message("slow")));
    const pending = server.waitForRequests(1);
    const answer = post("/responses");
    expect(await pending).toHaveLength(1);
    await expect(server.waitForRequests(2, 20)).rejects.toThrow("waited 20 ms for 2 requests, got 1");
    expect((await answer).text).toContain("slow");
  });
});
