import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { toChatMessages, toChatTools } from "../../src/model/chat.js";
import { createModelClient } from "../../src/model/client.js";
import type { Prompt } from "../../src/model/types.js";
import { developerMessage, type ResponseItem, userMessage } from "../../src/protocol/items.js";
import type { ToolSpec } from "../../src/protocol/tool-spec.js";
import { type FakeModelServer, message, startFakeModelServer, turn } from "../support/fake-model-server.js";

const identity = { sessionId: "thread-2", originator: "codex_exec", userAgent: "codex_exec/0.1.0" };
const settings = { model: "gpt-oss:20b", reasoning: null, include: [] };
const shell: ToolSpec = {
  type: "function",
  name: "shell_command",
  description: "Runs a command.",
  strict: false,
  parameters: { type: "object", properties: { command: { type: "string" } }, required: ["command"] },
};
const PNG = "data:image/png;base64,iVBORw0KGgo=";

describe("Chat Completions wire request", () => {
  let server: FakeModelServer;
  beforeAll(async () => {
    server = await startFakeModelServer();
  });
  afterAll(() => server.close());
  beforeEach(() => server.reset());

  async function send(prompt: Prompt) {
    server.enqueue(turn(message("ok")));
    const client = createModelClient({ provider: server.provider({ wireApi: "chat" }), settings, identity });
    for await (const _event of client.stream(prompt)) {
      // drain
    }
    const request = server.requests.at(-1);
    if (!request) throw new Error("no request recorded");
    return request;
  }

  it("matches the reference layout (089-chat-first-request): only model, messages, stream, tools", async () => {
    const request = await send({
      instructions: "base instructions",
      input: [developerMessage("<permissions instructions>"), userMessage("env"), userMessage("do the task")],
      tools: [
        shell,
        { type: "custom", name: "apply_patch", description: "patch", format: { type: "text" } },
        { type: "web_search" },
        { type: "local_shell" },
      ],
      parallelToolCalls: true,
    });
    expect(request.path).toBe("/v1/chat/completions");
    expect(Object.keys(request.body)).toEqual(["model", "messages", "stream", "tools"]);
    expect(request.body).toEqual({
      model: "gpt-oss:20b",
      messages: [
        { role: "system", content: "base instructions" },
        { role: "developer", content: "<permissions instructions>" },
        { role: "user", content: "env" },
        { role: "user", content: "do the task" },
      ],
      stream: true,
      tools: [
        {
          type: "function",
          name: "shell_command",
          function: {
            name: "shell_command",
            description: "Runs a command.",
            strict: false,
            parameters: shell.type === "function" ? shell.parameters : {},
          },
        },
      ],
    });
    expect(request.toolNames).toEqual(["shell_command"]);
    const { host: _h, "content-length": _l, connection: _c, ...headers } = request.headers;
    // The chat wire has no x-oai-web-search-eligible (reference 089-chat-first-request).
    expect(headers).toEqual({
      session_id: "thread-2",
      accept: "text/event-stream",
      "content-type": "application/json",
      "user-agent": "codex_exec/0.1.0",
      originator: "codex_exec",
      authorization: "Bearer test-key",
    });
  });

  it("omits tools when there are none", async () => {
    const request = await send({
      instructions: "x",
      input: [userMessage("hi")],
      tools: [],
      parallelToolCalls: false,
    });
    expect(Object.keys(request.body)).toEqual(["model", "messages", "stream"]);
  });

  it("sends a turn's output schema as response_format json_schema", async () => {
    const schema = { type: "object", properties: { ok: { type: "boolean" } } };
    const request = await send({
      instructions: "i",
      input: [],
      tools: [],
      parallelToolCalls: false,
      outputSchema: schema,
    });
    expect(request.body.response_format).toEqual({
      type: "json_schema",
      json_schema: { name: "codex_output_schema", schema, strict: true },
    });
  });
});

describe("toChatMessages", () => {
  it("renders history as in 089-chat-history-request, grouping one response's parallel calls", () => {
    const history: ResponseItem[] = [
      userMessage("do the task"),
      { type: "reasoning", summary: [{ type: "summary_text", text: "thinking" }] },
      { type: "function_call", name: "shell_command", arguments: '{"command":"a"}', call_id: "call_1" },
      { type: "function_call", name: "shell_command", arguments: '{"command":"b"}', call_id: "call_2" },
      { type: "function_call_output", call_id: "call_1", output: "out a" },
      { type: "function_call_output", call_id: "call_2", output: "out b" },
      { type: "message", role: "assistant", content: [{ type: "output_text", text: "done" }] },
      { type: "web_search_call", status: "completed", action: { type: "search", query: "q" } },
      { type: "function_call", name: "shell_command", arguments: '{"command":"c"}', call_id: "call_3" },
      { type: "function_call_output", call_id: "call_3", output: "out c" },
    ];
    expect(toChatMessages("sys", history)).toEqual([
      { role: "system", content: "sys" },
      { role: "user", content: "do the task" },
      {
        role: "assistant",
        content: null,
        tool_calls: [
          {
            id: "call_1",
            type: "function",
            function: { name: "shell_command", arguments: '{"command":"a"}' },
          },
          {
            id: "call_2",
            type: "function",
            function: { name: "shell_command", arguments: '{"command":"b"}' },
          },
        ],
      },
      { role: "tool", tool_call_id: "call_1", content: "out a" },
      { role: "tool", tool_call_id: "call_2", content: "out b" },
      { role: "assistant", content: "done" },
      {
        role: "assistant",
        content: null,
        tool_calls: [
          {
            id: "call_3",
            type: "function",
            function: { name: "shell_command", arguments: '{"command":"c"}' },
          },
        ],
      },
      { role: "tool", tool_call_id: "call_3", content: "out c" },
    ]);
  });

  it("uses content parts only for messages and outputs that carry images", () => {
    const messages = toChatMessages("sys", [
      userMessage("look", [PNG]),
      { type: "function_call", name: "view_image", arguments: "{}", call_id: "c1" },
      { type: "function_call_output", call_id: "c1", output: [{ type: "input_image", image_url: PNG }] },
    ]);
    expect(messages[1]).toEqual({
      role: "user",
      content: [
        { type: "text", text: "look" },
        { type: "image_url", image_url: { url: PNG } },
      ],
    });
    expect(messages[3]).toEqual({
      role: "tool",
      tool_call_id: "c1",
      content: [{ type: "image_url", image_url: { url: PNG } }],
    });
  });

  it("turns custom tool calls into function calls so their outputs still pair up", () => {
    const messages = toChatMessages("sys", [
      { type: "custom_tool_call", name: "apply_patch", input: "*** Begin Patch", call_id: "c2" },
      { type: "custom_tool_call_output", call_id: "c2", output: "Success." },
    ]);
    expect(messages.slice(1)).toEqual([
      {
        role: "assistant",
        content: null,
        tool_calls: [
          {
            id: "c2",
            type: "function",
            function: { name: "apply_patch", arguments: '{"input":"*** Begin Patch"}' },
          },
        ],
      },
      { role: "tool", tool_call_id: "c2", content: "Success." },
    ]);
  });

  it("offers function tools only", () => {
    expect(toChatTools([{ type: "local_shell" }, { type: "web_search" }])).toEqual([]);
  });
});
