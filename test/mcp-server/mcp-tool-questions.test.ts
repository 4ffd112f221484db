/**
 * Questions raised by the MCP servers a thread uses, through `tscodex mcp-server` to its own
 * client by elicitation: an MCP tool call that needs approval (approval modes) and a downstream
 * server's own `elicitation/create` (the stdio fixture's `ask_name`), passed on with its form.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { writeFakeConfig } from "../support/cli.js";
import { functionCall, message, turn } from "../support/fake-model-server.js";
import { callTool } from "../support/mcp-client.js";
import { fixtureScript, fixtureToml } from "../support/mcp-fixture.js";
import { useMcpHarness } from "../support/mcp-harness.js";

const h = useMcpHarness();
beforeAll(async () => {
  await fixtureScript();
});

async function configure(extra: string[] = []): Promise<void> {
  const server = await fixtureToml({ name: "fx", env: { FIXTURE_SET: "approvals" }, extra });
  await writeFakeConfig(h.home, { baseUrl: h.model.url, extra: `approval_timeout_ms = 5000\n${server}` });
}

const outputOf = (callId: string) =>
  h.model.requests
    .at(-1)
    ?.input.find((item) => item.type === "function_call_output" && item.call_id === callId);

const task = () => ({
  prompt: "go",
  cwd: h.work,
  sandbox: "workspace-write",
  "approval-policy": "on-request",
});

describe("MCP server front-end: questions from MCP servers", () => {
  it("asks its client before an MCP tool call that needs approval", async () => {
    await configure();
    const asked: Record<string, unknown>[] = [];
    const { client } = await h.connect({
      onElicit: (params) => {
        asked.push(params);
        return { action: "accept", content: {} };
      },
    });
    h.model.enqueue(turn(functionCall("mcp__fx__plain", { a: 1 }, "call_1")), turn(message("done")));
    expect((await callTool(client, "codex", task())).text).toBe("done");
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({
      message: 'Allow the fx MCP server to run tool "plain" with {"a":1}?',
      codex_elicitation: "mcp-tool-call-approval",
      codex_mcp_server: "fx",
      codex_mcp_tool: "plain",
      codex_call_id: "call_1",
    });
    expect(outputOf("call_1")).toMatchObject({ output: '[{"text":"plain ran","type":"text"}]' });
  });

  it("a declined approval reaches the model as Codex's message", async () => {
    await configure();
    const { client } = await h.connect({ onElicit: () => ({ action: "decline" }) });
    h.model.enqueue(turn(functionCall("mcp__fx__plain", {}, "call_1")), turn(message("done")));
    expect((await callTool(client, "codex", task())).text).toBe("done");
    expect(outputOf("call_1")).toMatchObject({ output: "user rejected MCP tool call" });
  });

  it("passes a server's elicitation form on to its client and the answer back", async () => {
    await configure(['default_tools_approval_mode = "approve"']);
    const asked: Record<string, unknown>[] = [];
    const { client } = await h.connect({
      onElicit: (params) => {
        asked.push(params);
        return { action: "accept", content: { name: "Grace" } };
      },
    });
    h.model.enqueue(turn(functionCall("mcp__fx__ask_name", {}, "call_1")), turn(message("done")));
    expect((await callTool(client, "codex", task())).text).toBe("done");
    expect(asked).toEqual([
      expect.objectContaining({
        message: "What is your name?",
        requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
        codex_elicitation: "mcp-server-elicitation",
        codex_mcp_server: "fx",
      }),
    ]);
    expect(outputOf("call_1")).toMatchObject({ output: '[{"text":"Hello, Grace!","type":"text"}]' });
  });
});
