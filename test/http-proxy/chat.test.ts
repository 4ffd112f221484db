/**
 * `tscodex proxy` /v1/chat/completions with the openai SDK: plain, streamed with usage, and a
 * client-tool round trip (tool_calls, then `role: "tool"` messages continue the parked turn).
 */
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import type OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { functionCall, message, turn, usage } from "../support/fake-model-server.js";
import { useProxyHarness } from "../support/proxy-harness.js";

const h = useProxyHarness();

const LOOKUP: OpenAI.Chat.ChatCompletionFunctionTool = {
  type: "function",
  function: {
    name: "lookup_note",
    description: "Read a note of the user's vault.",
    parameters: { type: "object", properties: { title: { type: "string" } }, required: ["title"] },
  },
};

describe("proxy /v1/chat/completions", () => {
  it("answers messages; system text becomes developer instructions", async () => {
    const proxy = await h.startProxy();
    h.model.enqueue(turn(message("Bonjour."), usage({ input: 20, output: 3 })));
    const completion = await proxy.client().chat.completions.create({
      model: "gpt-5.2-codex",
      messages: [
        { role: "system", content: "Always answer in French." },
        { role: "user", content: "Hello" },
      ],
    });
    expect(completion.object).toBe("chat.completion");
    expect(completion.choices[0]?.message.content).toBe("Bonjour.");
    expect(completion.choices[0]?.finish_reason).toBe("stop");
    expect(completion.usage).toMatchObject({ prompt_tokens: 20, completion_tokens: 3, total_tokens: 23 });
    expect(JSON.stringify(h.model.requests[0]?.input)).toContain("Always answer in French.");
  });

  it("streams chunks ending in [DONE], with usage in the last chunk when asked", async () => {
    const proxy = await h.startProxy();
    h.model.enqueue(turn(message("One two three."), usage({ input: 7, output: 3 })));
    const stream = await proxy.client().chat.completions.create({
      model: "m",
      messages: [{ role: "user", content: "count" }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = "";
    const chunks: OpenAI.Chat.ChatCompletionChunk[] = [];
    for await (const chunk of stream) {
      chunks.push(chunk);
      text += chunk.choices[0]?.delta.content ?? "";
    }
    expect(text).toBe("One two three.");
    expect(chunks.at(-2)?.choices[0]?.finish_reason).toBe("stop");
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { prompt_tokens: 7, completion_tokens: 3 } });
  });

  it("client tools: tool_calls end the completion; tool messages continue the same thread", async () => {
    const proxy = await h.startProxy();
    const client = proxy.client();
    h.model.enqueue(
      turn(functionCall("lookup_note", { title: "Groceries" }, "call_n1")),
      turn(message("You need milk.")),
    );
    const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [
      { role: "user", content: "What do I need to buy?" },
    ];
    const first = await client.chat.completions.create({ model: "m", messages, tools: [LOOKUP] });
    const choice = first.choices[0];
    expect(choice?.finish_reason).toBe("tool_calls");
    expect(choice?.message.tool_calls).toEqual([
      {
        id: "call_n1",
        type: "function",
        function: { name: "lookup_note", arguments: '{"title":"Groceries"}' },
      },
    ]);
    messages.push(choice?.message as OpenAI.Chat.ChatCompletionMessageParam, {
      role: "tool",
      tool_call_id: "call_n1",
      content: "milk",
    });
    const second = await client.chat.completions.create({ model: "m", messages, tools: [LOOKUP] });
    expect(second.choices[0]?.message.content).toBe("You need milk.");
    const input = (h.model.requests[1]?.input ?? []) as { type?: string; call_id?: string }[];
    const at = input.findIndex((item) => item.type === "function_call" && item.call_id === "call_n1");
    expect(input[at + 1]).toMatchObject({ type: "function_call_output", call_id: "call_n1", output: "milk" });
    const files = (await readdir(join(h.home, "sessions"), { recursive: true })).filter((f) =>
      f.endsWith(".jsonl"),
    );
    expect(files).toHaveLength(1);
  });

  it("streams tool calls with finish_reason tool_calls", async () => {
    const proxy = await h.startProxy();
    h.model.enqueue(turn(functionCall("lookup_note", { title: "Ideas" }, "call_s1")));
    const stream = await proxy.client().chat.completions.create({
      model: "m",
      messages: [{ role: "user", content: "read my ideas" }],
      tools: [LOOKUP],
      stream: true,
    });
    const calls: unknown[] = [];
    let finish: string | null | undefined;
    for await (const chunk of stream) {
      calls.push(...(chunk.choices[0]?.delta.tool_calls ?? []));
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    expect(calls).toEqual([
      {
        index: 0,
        id: "call_s1",
        type: "function",
        function: { name: "lookup_note", arguments: '{"title":"Ideas"}' },
      },
    ]);
    expect(finish).toBe("tool_calls");
  });
});
