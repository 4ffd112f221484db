/** MCP tools through the router, with an in-memory tool source (no server process). */
import { describe, expect, it } from "vitest";
import type { McpToolEntry } from "../../src/mcp/client-manager.js";
import type { McpCallResult } from "../../src/mcp/render.js";
import type { Event } from "../../src/protocol/events.js";
import { type McpManagerLike, mcpStartup } from "../../src/tools/mcp.js";
import { ToolRouter } from "../../src/tools/router.js";
import { allowAllGate } from "../support/turn-context.js";
import { turnContext } from "../tools/file-tools-support.js";

const ENTRY: McpToolEntry = {
  name: "mcp__srv__do_it",
  server: "srv",
  tool: "do.it",
  description: "Does it.",
  inputSchema: { type: "object", properties: { n: { type: "integer" } } },
  readOnly: false,
  approvalMode: "auto",
};

function fakeManager(answer: (args: Record<string, unknown> | undefined) => Promise<McpCallResult>) {
  const calls: { server: string; tool: string; args: unknown }[] = [];
  const manager: McpManagerLike = {
    tools: () => [ENTRY],
    callTool: async (server, tool, args) => {
      calls.push({ server, tool, args });
      return answer(args);
    },
    whenReady: async (emit) =>
      emit({ type: "mcp_startup_complete", ready: ["srv"], failed: [], cancelled: [] }),
    requiredFailure: () => null,
    dispose: async () => {},
    readyServers: () => ["srv"],
    readResource: async () => [],
  };
  return { manager, calls };
}

async function setup(answer: Parameters<typeof fakeManager>[0]) {
  const { manager, calls } = fakeManager(answer);
  const startup = mcpStartup(manager);
  const events: Event[] = [];
  await startup.whenReady((event) => events.push(event));
  const router = new ToolRouter(startup.tools(), allowAllGate);
  const turn = turnContext("/", { emit: (event) => events.push(event) });
  const call = (args: string, name = ENTRY.name) =>
    router.dispatch({ type: "function_call", name, arguments: args, call_id: "c1" }, turn);
  return { router, calls, events, call };
}

describe("MCP tools through the router", () => {
  it("are offered once startup is over, with the sanitized schema", async () => {
    const { router, events } = await setup(async () => ({ content: [] }));
    expect(events.map((event) => event.type)).toEqual(["mcp_startup_complete"]);
    expect(router.specs()).toEqual([
      {
        type: "function",
        name: "mcp__srv__do_it",
        description: "Does it.",
        strict: false,
        parameters: { type: "object", properties: { n: { type: "number" } } },
      },
    ]);
  });

  it("call the server tool by its own name, with begin/end events", async () => {
    const { calls, events, call } = await setup(async () => ({ content: [{ type: "text", text: "done" }] }));
    const result = await call('{"n":1}');
    expect(result.output).toEqual({
      type: "function_call_output",
      call_id: "c1",
      output: '[{"text":"done","type":"text"}]',
    });
    expect(calls).toEqual([{ server: "srv", tool: "do.it", args: { n: 1 } }]);
    const invocation = { server: "srv", tool: "do.it", arguments: { n: 1 } };
    expect(events.slice(1)).toEqual([
      { type: "mcp_tool_call_begin", call_id: "c1", invocation },
      {
        type: "mcp_tool_call_end",
        call_id: "c1",
        invocation,
        duration_ms: expect.any(Number),
        result: { Ok: { content: [{ type: "text", text: "done" }] } },
      },
    ]);
  });

  it("empty arguments are none; bad JSON is answered as Codex does, without calling", async () => {
    const { calls, call } = await setup(async () => ({ content: [] }));
    await call("");
    expect(calls).toEqual([{ server: "srv", tool: "do.it", args: undefined }]);
    expect((await call("[1]")).output).toMatchObject({
      output: "err: MCP tool arguments must be a JSON object",
    });
    expect((await call("{bad")).output).toMatchObject({
      output: "err: key must be a string at line 1 column 2",
    });
    expect(calls).toHaveLength(1);
  });

  it("a failed call is one clean line for the model and an Err for the events", async () => {
    const { events, call } = await setup(async () => {
      throw Object.assign(new Error("MCP error -32603: Internal error\n    at stack"), { code: -32603 });
    });
    const line = "tool call failed for `srv/do.it`: Mcp error: -32603: Internal error at stack";
    expect((await call("{}")).output).toMatchObject({ output: line });
    expect(events.at(-1)).toMatchObject({ type: "mcp_tool_call_end", result: { Err: line } });
  });

  it("an unknown mcp__ name is an unsupported call", async () => {
    const { call } = await setup(async () => ({ content: [] }));
    expect((await call("{}", "mcp__srv__nope")).output).toMatchObject({
      output: "unsupported call: mcp__srv__nope",
    });
  });
});
