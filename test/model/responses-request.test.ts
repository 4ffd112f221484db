import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createModelClient } from "../../src/model/client.js";
import { toWireItem } from "../../src/model/responses.js";
import type { ModelRequestSettings, Prompt, ResponseEvent } from "../../src/model/types.js";
import { developerMessage, type ResponseItem, userMessage } from "../../src/protocol/items.js";
import type { ToolSpec } from "../../src/protocol/tool-spec.js";
import { type FakeModelServer, message, startFakeModelServer, turn } from "../support/fake-model-server.js";

const identity = {
  sessionId: "thread-1",
  originator: "codex_exec",
  userAgent: "codex_exec/0.1.0 (Linux; x86_64)",
};
const settings: ModelRequestSettings = {
  model: "gpt-5.2-codex",
  reasoning: { effort: "medium", summary: "auto" },
  include: ["reasoning.encrypted_content"],
};
const tools: ToolSpec[] = [
  {
    type: "function",
    name: "shell_command",
    description: "Runs a command.",
    strict: false,
    parameters: { type: "object", properties: { command: { type: "string" } }, required: ["command"] },
  },
  { type: "custom", name: "apply_patch", description: "Patch files.", format: { type: "text" } },
  { type: "web_search", external_web_access: true },
];
const firstTurnInput: ResponseItem[] = [
  developerMessage("<permissions instructions>read-only</permissions instructions>"),
  userMessage("# AGENTS.md instructions for /repo\n\n<INSTRUCTIONS>\n</INSTRUCTIONS>"),
  userMessage("<environment_context>\n  <cwd>/repo</cwd>\n  <shell>bash</shell>\n</environment_context>"),
  userMessage("do the task"),
];

async function drain(events: AsyncIterable<ResponseEvent>): Promise<ResponseEvent[]> {
  const out: ResponseEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}

describe("Responses wire request", () => {
  let server: FakeModelServer;
  beforeAll(async () => {
    server = await startFakeModelServer();
  });
  afterAll(() => server.close());
  beforeEach(() => server.reset());

  async function send(
    prompt: Prompt,
    overrides: Partial<ModelRequestSettings> = {},
    provider = server.provider(),
  ) {
    server.enqueue(turn(message("ok")));
    const client = createModelClient({ provider, settings: { ...settings, ...overrides }, identity });
    await drain(client.stream(prompt));
    const request = server.requests.at(-1);
    if (!request) throw new Error("no request recorded");
    return request;
  }

  it("matches the reference body layout (089-default-first-request)", async () => {
    const request = await send({
      instructions: "base instructions",
      input: firstTurnInput,
      tools,
      parallelToolCalls: true,
    });
    expect(request.method).toBe("POST");
    expect(request.path).toBe("/v1/responses");
    expect(Object.keys(request.body)).toEqual([
      "model",
      "instructions",
      "input",
      "tools",
      "tool_choice",
      "parallel_tool_calls",
      "reasoning",
      "store",
      "stream",
      "include",
      "prompt_cache_key",
    ]);
    expect(request.body).toEqual({
      model: "gpt-5.2-codex",
      instructions: "base instructions",
      input: [
        {
          type: "message",
          role: "developer",
          content: [
            { type: "input_text", text: "<permissions instructions>read-only</permissions instructions>" },
          ],
        },
        {
          type: "message",
          role: "user",
          content: [
            {
              type: "input_text",
              text: "# AGENTS.md instructions for /repo\n\n<INSTRUCTIONS>\n</INSTRUCTIONS>",
            },
          ],
        },
        {
          type: "message",
          role: "user",
          content: [
            {
              type: "input_text",
              text: "<environment_context>\n  <cwd>/repo</cwd>\n  <shell>bash</shell>\n</environment_context>",
            },
          ],
        },
        { type: "message", role: "user", content: [{ type: "input_text", text: "do the task" }] },
      ],
      tools,
      tool_choice: "auto",
      parallel_tool_calls: true,
      reasoning: { effort: "medium", summary: "auto" },
      store: false,
      stream: true,
      include: ["reasoning.encrypted_content"],
      prompt_cache_key: "thread-1",
    });
  });

  it("sends the reference header set", async () => {
    const request = await send({
      instructions: "x",
      input: [userMessage("hi")],
      tools: [],
      parallelToolCalls: false,
    });
    const { host: _host, "content-length": length, connection: _connection, ...headers } = request.headers;
    expect(Number(length)).toBe(Buffer.byteLength(request.rawBody));
    expect(headers).toEqual({
      "x-oai-web-search-eligible": "true",
      session_id: "thread-1",
      accept: "text/event-stream",
      "content-type": "application/json",
      "user-agent": "codex_exec/0.1.0 (Linux; x86_64)",
      originator: "codex_exec",
      authorization: "Bearer test-key",
    });
  });

  it("adds text.verbosity, null reasoning, provider headers and query params; no key, no authorization", async () => {
    const provider = server.provider({
      apiKey: undefined,
      httpHeaders: { "X-Custom": "1" },
      queryParams: { "api-version": "2025-04-01" },
    });
    const request = await send(
      { instructions: "x", input: [], tools: [], parallelToolCalls: false },
      { reasoning: null, include: [], textVerbosity: "low" },
      provider,
    );
    expect(request.query).toEqual({ "api-version": "2025-04-01" });
    expect(request.headers.authorization).toBeUndefined();
    expect(request.headers["x-custom"]).toBe("1");
    expect(request.body.reasoning).toBeNull();
    expect(request.body.include).toEqual([]);
    expect(request.body.text).toEqual({ verbosity: "low" });
    expect(Object.keys(request.body).at(-1)).toBe("text");
  });

  it("resends history without ids, as in 089-after-interrupt-and-setting-change", async () => {
    const history: ResponseItem[] = [
      userMessage("do the task"),
      { type: "reasoning", id: "rs_1", summary: [{ type: "summary_text", text: "**Plan** run things" }] },
      {
        type: "function_call",
        id: "fc_1",
        name: "shell_command",
        arguments: '{"command":"ls"}',
        call_id: "call_2",
      },
      { type: "function_call_output", call_id: "call_2", output: "Exit code: 0" },
      {
        type: "custom_tool_call",
        id: "ctc_1",
        name: "apply_patch",
        input: "*** Begin Patch",
        call_id: "call_3",
      },
      { type: "custom_tool_call_output", call_id: "call_3", output: "Success." },
      {
        type: "message",
        id: "msg_1",
        role: "assistant",
        content: [{ type: "output_text", text: "turn one done" }],
      },
    ];
    const request = await send({ instructions: "x", input: history, tools: [], parallelToolCalls: true });
    expect(request.rawBody).not.toContain('"id"');
    expect(request.body.input).toEqual([
      { type: "message", role: "user", content: [{ type: "input_text", text: "do the task" }] },
      {
        type: "reasoning",
        summary: [{ type: "summary_text", text: "**Plan** run things" }],
        content: null,
        encrypted_content: null,
      },
      { type: "function_call", name: "shell_command", arguments: '{"command":"ls"}', call_id: "call_2" },
      { type: "function_call_output", call_id: "call_2", output: "Exit code: 0" },
      { type: "custom_tool_call", call_id: "call_3", name: "apply_patch", input: "*** Begin Patch" },
      { type: "custom_tool_call_output", call_id: "call_3", output: "Success." },
      { type: "message", role: "assistant", content: [{ type: "output_text", text: "turn one done" }] },
    ]);
    // Same key order as the reference (serde field order).
    expect(Object.keys(request.input[2] ?? {})).toEqual(["type", "name", "arguments", "call_id"]);
    expect(Object.keys(request.input[4] ?? {})).toEqual(["type", "call_id", "name", "input"]);
  });

  it("sends a turn's output schema as strict json_schema text.format, beside verbosity; and a turn's own model", async () => {
    const schema = { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] };
    const request = await send(
      {
        instructions: "i",
        input: [],
        tools: [],
        parallelToolCalls: false,
        outputSchema: schema,
        settings: { ...settings, model: "gpt-5.1", reasoning: { effort: "high" } },
      },
      { textVerbosity: "low" },
    );
    expect(request.body.model).toBe("gpt-5.1");
    expect(request.body.reasoning).toEqual({ effort: "high" });
    expect(request.body.text).toEqual({
      format: { type: "json_schema", name: "codex_output_schema", schema, strict: true },
    });
  });
});

describe("toWireItem", () => {
  it("keeps encrypted reasoning and drops raw reasoning_text content", () => {
    expect(
      toWireItem({
        type: "reasoning",
        id: "rs_9",
        summary: [],
        content: [{ type: "reasoning_text", text: "raw thoughts" }],
        encrypted_content: "gAAA",
      }),
    ).toEqual({ type: "reasoning", summary: [], encrypted_content: "gAAA" });
  });

  it("strips ids from web_search_call and local_shell_call", () => {
    expect(
      toWireItem({
        type: "web_search_call",
        id: "ws_1",
        status: "completed",
        action: { type: "search", query: "q" },
      }),
    ).toEqual({ type: "web_search_call", status: "completed", action: { type: "search", query: "q" } });
    expect(
      toWireItem({
        type: "local_shell_call",
        id: "lsh_1",
        call_id: "call_1",
        status: "completed",
        action: { type: "exec", command: ["ls"] },
      }),
    ).toEqual({
      type: "local_shell_call",
      call_id: "call_1",
      status: "completed",
      action: { type: "exec", command: ["ls"] },
    });
  });
});
