/**
 * Questions raised by a thread's MCP servers, as app-server → client requests: an MCP tool call
 * that needs approval (item/commandExecution/requestApproval with the mcpToolCall item's id, no
 * command item of its own) and a server's `elicitation/create` (`mcpServer/elicitation/request`,
 * schema of Codex 0.169), answered by the client; every message checked against the schemas.
 */
import { beforeAll, describe, expect, it } from "vitest";
import type { AppClient, WireMessage } from "../support/app-server-client.js";
import { useAppServerHarness } from "../support/app-server-harness.js";
import { referenceSchemaFailures } from "../support/app-server-schemas.js";
import { writeFakeConfig } from "../support/cli.js";
import { functionCall, message, turn } from "../support/fake-model-server.js";
import { fixtureScript, fixtureToml } from "../support/mcp-fixture.js";
import { completedItems, runTurn, startThread } from "./flow.js";

const h = useAppServerHarness();
beforeAll(async () => {
  await fixtureScript();
});

async function configure(extra: string[] = []): Promise<void> {
  const server = await fixtureToml({ name: "fx", env: { FIXTURE_SET: "approvals" }, extra });
  await writeFakeConfig(h.home, { baseUrl: h.model.url, extra: server });
}

function answer(client: AppClient, reply: (request: WireMessage) => unknown): WireMessage[] {
  const asked: WireMessage[] = [];
  client.onRequest = (request) => {
    asked.push(request);
    return { result: reply(request) };
  };
  return asked;
}

const ON_REQUEST = {
  approvalPolicy: "on-request",
  sandboxPolicy: { type: "workspaceWrite", writableRoots: [], networkAccess: false },
};

const outputOf = (callId: string) =>
  h.model.requests
    .at(-1)
    ?.input.find((item) => item.type === "function_call_output" && item.call_id === callId);

describe("app-server: MCP tool-call approvals", () => {
  it("asks the client; accept runs the tool, decline fails the mcpToolCall item", async () => {
    await configure();
    const client = await h.stdio();
    const decisions = ["accept", "decline"];
    const asked = answer(client, () => ({ decision: decisions.shift() }));
    const threadId = await startThread(client, { cwd: h.work });
    h.model.enqueue(
      turn(functionCall("mcp__fx__plain", {}, "call_1"), functionCall("mcp__fx__destroy", {}, "call_2")),
      turn(message("done")),
    );
    const { turnId, completed } = await runTurn(client, threadId, "go", ON_REQUEST);
    expect(completed.params.turn.status).toBe("completed");
    expect(asked.map((request) => [request.method, request.params.itemId])).toEqual([
      ["item/commandExecution/requestApproval", "call_1"],
      ["item/commandExecution/requestApproval", "call_2"],
    ]);
    expect(asked[0]?.params.reason).toBe('Allow the fx MCP server to run tool "plain"?');
    expect(outputOf("call_1")).toMatchObject({ output: '[{"text":"plain ran","type":"text"}]' });
    expect(outputOf("call_2")).toMatchObject({ output: "user rejected MCP tool call" });
    expect(completedItems(client, turnId, "commandExecution")).toEqual([]);
    const calls = completedItems(client, turnId, "mcpToolCall");
    expect(calls.map((item) => [item.id, item.status])).toEqual([
      ["call_1", "completed"],
      ["call_2", "failed"],
    ]);
    expect(referenceSchemaFailures(client)).toEqual([]);
  }, 120_000);
});

describe("app-server: MCP elicitation", () => {
  it("sends mcpServer/elicitation/request and gives the server the client's answer", async () => {
    await configure(['default_tools_approval_mode = "approve"']);
    const client = await h.stdio();
    const asked = answer(client, () => ({ action: "accept", content: { name: "Linus" } }));
    const threadId = await startThread(client, { cwd: h.work });
    h.model.enqueue(turn(functionCall("mcp__fx__ask_name", {}, "call_1")), turn(message("done")));
    const { turnId, completed } = await runTurn(client, threadId, "go", ON_REQUEST);
    expect(completed.params.turn.status).toBe("completed");
    expect(asked).toEqual([
      expect.objectContaining({
        method: "mcpServer/elicitation/request",
        params: {
          threadId,
          turnId,
          serverName: "fx",
          mode: "form",
          message: "What is your name?",
          requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
        },
      }),
    ]);
    expect(outputOf("call_1")).toMatchObject({ output: '[{"text":"Hello, Linus!","type":"text"}]' });
    expect(referenceSchemaFailures(client)).toEqual([]);
  });

  it("an error reply declines", async () => {
    await configure(['default_tools_approval_mode = "approve"']);
    const client = await h.stdio();
    client.onRequest = () => ({ error: { code: -32000, message: "no UI" } });
    const threadId = await startThread(client, { cwd: h.work });
    h.model.enqueue(turn(functionCall("mcp__fx__ask_name", {}, "call_1")), turn(message("done")));
    const { completed } = await runTurn(client, threadId, "go", ON_REQUEST);
    expect(completed.params.turn.status).toBe("completed");
    expect(outputOf("call_1")).toMatchObject({ output: '[{"text":"elicitation: decline","type":"text"}]' });
  });
});
