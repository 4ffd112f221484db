/**
 * The wire, checked with a raw newline-delimited JSON-RPC client: every request answered
 * (ping, unknown methods, bad params), compatibility with Codex 0.89's recorded transcripts
 * (reference/mcp-server: tool names, required fields, schemas, result shape, Codex-style
 * `{decision}` answers), and `codex/event` notifications behind --raw-events.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { functionCall, message, turn } from "../support/fake-model-server.js";
import type { WireMessage } from "../support/mcp-client.js";
import { useMcpHarness } from "../support/mcp-harness.js";
import { referencePath } from "../support/reference.js";

/** Codex 0.89's recorded transcripts (copies of the team reference, test/fixtures/reference). */
const REFERENCE = referencePath("mcp-server");

interface Recorded {
  dir: string;
  msg: WireMessage;
}

function transcript(name: string): Recorded[] {
  return readFileSync(`${REFERENCE}/${name}`, "utf8")
    .split("\n")
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line) as Recorded);
}

type ToolEntry = { name: string; inputSchema: SchemaShape; outputSchema?: SchemaShape };
type SchemaShape = { properties: Record<string, { type?: string; enum?: string[] }>; required?: string[] };

const h = useMcpHarness();

describe("the MCP wire", () => {
  it("answers every request: initialize, ping, unknown methods, bad params, logging/setLevel", async () => {
    const client = h.rawClient();
    const init = await client.initialize({ elicitation: {} });
    expect(init.result).toMatchObject({
      protocolVersion: "2025-06-18",
      capabilities: { tools: { listChanged: true }, logging: {} },
      serverInfo: { name: "tscodex-mcp-server", title: "tscodex", version: expect.any(String) },
    });
    expect((await client.request(1, "ping", {})).result).toEqual({});
    for (const [id, method] of [
      [2, "bogus/method"],
      [3, "prompts/list"],
      [4, "resources/list"],
    ] as const) {
      expect((await client.request(id, method, {})).error).toMatchObject({ code: -32601 });
    }
    expect((await client.request(5, "tools/call", {})).error).toMatchObject({ code: -32602 });
    expect((await client.request(6, "tools/list", { cursor: 5 })).error).toMatchObject({ code: -32602 });
    expect((await client.request(7, "logging/setLevel", { level: "loud" })).error).toMatchObject({
      code: -32602,
    });
    expect((await client.request(8, "logging/setLevel", { level: "info" })).result).toEqual({});
  });

  it("lists Codex's tools with the recorded names, fields, enums and output schema", async () => {
    const recorded = transcript("probe.jsonl").find((line) => line.dir === "<-" && line.msg.id === 2);
    const reference = (recorded?.msg.result as { tools: ToolEntry[] } | undefined)?.tools ?? [];
    expect(reference.length).toBe(2);
    const client = h.rawClient();
    await client.initialize();
    const ours = ((await client.request(1, "tools/list", {})).result as { tools: ToolEntry[] }).tools;
    for (const want of reference) {
      const have = ours.find((tool) => tool.name === want.name);
      expect(have, want.name).toBeDefined();
      expect(have?.inputSchema.required).toEqual(want.inputSchema.required);
      expect(have?.outputSchema).toMatchObject({ required: ["threadId", "content"] });
      for (const [field, schema] of Object.entries(want.inputSchema.properties)) {
        expect(have?.inputSchema.properties[field], `${want.name}.${field}`).toMatchObject({
          type: schema.type,
          ...(schema.enum ? { enum: schema.enum } : {}),
        });
      }
    }
    expect(ours.slice(0, 2).map((tool) => tool.name)).toEqual(["codex", "codex-reply"]);
  });

  it("gives the recorded error texts for the recorded bad calls", async () => {
    const lines = transcript("session.jsonl");
    const start = lines.findIndex((line) => line.dir === "mark" && String(line.msg) === "08-errors");
    const client = h.rawClient();
    await client.initialize();
    let checked = 0;
    for (const line of lines.slice(start + 1)) {
      if (line.dir !== "->" || line.msg.method !== "tools/call") continue;
      const want = lines.find((other) => other.dir === "<-" && other.msg.id === line.msg.id)?.msg.result as {
        content: { text: string }[];
      };
      const params = line.msg.params as Record<string, unknown>;
      const got = await client.request(1000 + checked, "tools/call", params);
      const result = got.result as { isError?: boolean; content: { text: string }[] };
      expect(result.isError, JSON.stringify(params)).toBe(true);
      const text = result.content[0]?.text ?? "";
      // Codex's uuid-crate parse message is replaced by a plainer one with the same prefix.
      if (text.startsWith("Failed to parse thread_id: '"))
        expect(want.content[0]?.text).toMatch(/^Failed to parse thread_id: /);
      else expect(text).toBe(want.content[0]?.text);
      checked += 1;
    }
    expect(checked).toBe(7);
  });

  it("takes Codex-style {decision} answers and returns the recorded result shape", async () => {
    const client = h.rawClient();
    await client.initialize({ elicitation: {} });
    h.model.enqueue(
      turn(functionCall("shell_command", { command: "touch approved.txt && echo touched" }, "call_1")),
      turn(message("approved done")),
    );
    client.send({
      id: 5,
      method: "tools/call",
      params: {
        name: "codex",
        arguments: {
          prompt: "touch it",
          cwd: h.work,
          sandbox: "danger-full-access",
          "approval-policy": "untrusted",
        },
      },
    });
    const ask = await client.waitFor((m) => m.method === "elicitation/create");
    expect(ask.params).toMatchObject({
      codex_elicitation: "exec-approval",
      codex_mcp_tool_call_id: "5",
      codex_parsed_cmd: [
        { type: "unknown", cmd: "touch approved.txt" },
        { type: "unknown", cmd: "echo touched" },
      ],
    });
    client.send({ id: ask.id, result: { decision: "approved" } });
    const reply = await client.waitFor((m) => m.id === 5 && m.method === undefined);
    const result = reply.result as { content: unknown; structuredContent: { threadId: string } };
    expect(Object.keys(result).sort()).toEqual(["content", "structuredContent"]);
    expect(result).toEqual({
      content: [{ type: "text", text: "approved done" }],
      structuredContent: { threadId: result.structuredContent.threadId, content: "approved done" },
    });
    const ran = h.model.requests[1]?.input.find((item) => item.type === "function_call_output");
    expect(JSON.stringify(ran)).toContain("touched");
  });

  it("sends codex/event notifications only with --raw-events", async () => {
    const plain = h.rawClient();
    await plain.initialize();
    h.model.enqueue(turn(message("quiet")));
    await plain.request(1, "tools/call", { name: "codex", arguments: { prompt: "x", cwd: h.work } });
    expect(plain.messages.some((m) => m.method === "codex/event")).toBe(false);

    const raw = h.rawClient(["--raw-events"]);
    await raw.initialize();
    h.model.enqueue(turn(message("loud")));
    const reply = await raw.request(7, "tools/call", {
      name: "codex",
      arguments: { prompt: "x", cwd: h.work },
    });
    const threadId = (reply.result as { structuredContent: { threadId: string } }).structuredContent.threadId;
    const events = raw.messages.filter((m) => m.method === "codex/event").map((m) => m.params as WireMessage);
    expect(events[0]).toMatchObject({ _meta: { requestId: 7, threadId }, msg: { type: "task_started" } });
    expect(events.map((e) => (e.msg as { type: string }).type)).toEqual(
      expect.arrayContaining(["task_started", "user_message", "agent_message", "task_complete"]),
    );
    expect(events.at(-1)?.msg).toMatchObject({ type: "task_complete", last_agent_message: "loud" });
  });
});
