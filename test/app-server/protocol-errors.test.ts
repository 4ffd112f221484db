/**
 * Every request gets an answer, and a bad one never ends the connection: the handshake errors
 * Codex sends (reference session-089.jsonl "00-pre-init", "01-initialize", "09-errors"), then
 * malformed JSON, envelopes and params, each answered with its JSON-RPC error, on stdio and
 * over WebSocket (one message per frame instead of per line).
 */
import { describe, expect, it } from "vitest";
import type { AppClient } from "../support/app-server-client.js";
import { useAppServerHarness } from "../support/app-server-harness.js";
import { referenceSchemaFailures } from "../support/app-server-schemas.js";
import { startThread } from "./flow.js";

const h = useAppServerHarness();

describe("app-server: handshake", () => {
  it("refuses requests before initialize and a second initialize with Codex's errors", async () => {
    const client = await h.stdio({ initialize: false });
    const early = await client.request("thread/list", {});
    expect(early).toMatchObject({ id: early.id, error: { code: -32600, message: "Not initialized" } });
    const first = await client.request("initialize", {
      clientInfo: { name: "oracle", title: "Oracle", version: "0.0.1" },
    });
    expect(first.result.userAgent).toMatch(/^oracle\/\S+ \(.*\) .*\(oracle; 0\.0\.1\)$/);
    expect(first.result).toMatchObject({ codexHome: h.home, platformFamily: "unix", platformOs: "linux" });
    const second = await client.request("initialize", { clientInfo: { name: "oracle", version: "0.0.1" } });
    expect(second.error).toEqual({ code: -32600, message: "Already initialized" });
    client.send({ method: "initialized" });
    expect((await client.call("thread/list", {})).data).toEqual([]);
    expect(referenceSchemaFailures(client)).toEqual([]);
  });
});

/** An initialized client over `transport`. */
async function connect(transport: "stdio" | "websocket"): Promise<AppClient> {
  if (transport === "stdio") return h.stdio();
  const server = await h.wsServer();
  const client = await server.connect();
  h.defer(client);
  await client.initialize();
  return client;
}

describe.each(["stdio", "websocket"] as const)("app-server: malformed messages over %s", (transport) => {
  it("answers 20 malformed messages, each with the right error, and stays up", async () => {
    const client = await connect(transport);
    const threadId = await startThread(client, { cwd: h.work });
    await client.waitFor((message) => message.method === "thread/started");
    const cases: { send: string; code: number; id: number | string | null; message?: RegExp }[] = [
      { send: "{not json", code: -32700, id: null, message: /^Parse error/ },
      { send: '{"jsonrpc":"2.0","id":1,"method":', code: -32700, id: null },
      { send: "[]", code: -32600, id: null, message: /batches/ },
      { send: '[{"jsonrpc":"2.0","id":2,"method":"thread/list"}]', code: -32600, id: null },
      { send: "42", code: -32600, id: null, message: /JSON object/ },
      { send: '"thread/list"', code: -32600, id: null },
      { send: "null", code: -32600, id: null },
      {
        send: '{"jsonrpc":"2.0","id":{"a":1},"method":"thread/list"}',
        code: -32600,
        id: null,
        message: /`id`/,
      },
      { send: '{"jsonrpc":"2.0","id":1.5,"method":"thread/list"}', code: -32600, id: null },
      { send: '{"jsonrpc":"1.0","id":3,"method":"thread/list"}', code: -32600, id: 3, message: /jsonrpc/ },
      { send: '{"jsonrpc":"2.0","id":4,"method":7}', code: -32600, id: 4, message: /method/ },
      { send: '{"jsonrpc":"2.0","id":5}', code: -32600, id: 5 },
      {
        send: '{"jsonrpc":"2.0","id":6,"method":"bogus/method","params":{}}',
        code: -32601,
        id: 6,
        message: /bogus\/method/,
      },
      { send: '{"jsonrpc":"2.0","id":7,"method":"thread/list","params":[1,2]}', code: -32602, id: 7 },
      {
        send: `{"jsonrpc":"2.0","id":8,"method":"turn/start","params":{"threadId":"${threadId}"}}`,
        code: -32602,
        id: 8,
        message: /^Invalid request: missing field `input`$/,
      },
      {
        send: `{"jsonrpc":"2.0","id":9,"method":"turn/start","params":{"threadId":"${threadId}","input":"hi"}}`,
        code: -32602,
        id: 9,
        message: /`input`.*expected array/,
      },
      {
        send: `{"jsonrpc":"2.0","id":10,"method":"turn/start","params":{"threadId":"${threadId}","input":[{"type":"audio"}]}}`,
        code: -32602,
        id: 10,
        message: /unknown variant `audio`/,
      },
      {
        send: '{"jsonrpc":"2.0","id":"str-11","method":"thread/start","params":{"approvalPolicy":"sometimes"}}',
        code: -32602,
        id: "str-11",
        message: /unknown variant `sometimes`.*`untrusted`/,
      },
      {
        send: '{"jsonrpc":"2.0","id":12,"method":"turn/start","params":{"threadId":"nope","input":[{"type":"text","text":"x"}]}}',
        code: -32600,
        id: 12,
        message:
          /^invalid thread id: invalid character: expected an optional prefix of `urn:uuid:` followed by \[0-9a-fA-F-\], found `n` at 1$/,
      },
      {
        send: '{"jsonrpc":"2.0","id":13,"method":"turn/start","params":{"threadId":"00000000-0000-0000-0000-000000000000","input":[{"type":"text","text":"x"}]}}',
        code: -32600,
        id: 13,
        message: /^thread not found: 00000000-0000-0000-0000-000000000000$/,
      },
    ];
    expect(cases).toHaveLength(20);
    const before = client.received.length;
    for (const [index, test] of cases.entries()) {
      client.sendRaw(test.send);
      await client.waitFor(() => client.received.length > before + index);
      const reply = client.received[before + index];
      expect({ case: index, id: reply?.id, code: reply?.error?.code }).toEqual({
        case: index,
        id: test.id,
        code: test.code,
      });
      if (test.message) expect(reply?.error?.message).toMatch(test.message);
    }
    // Exactly one reply each, and the connection still serves.
    expect(client.received.length - before).toBe(20);
    const listed = await client.request("thread/loaded/list", {}, "after-the-errors");
    expect(listed.result.data).toEqual([threadId]);
  });

  it("answers an idle turn/interrupt (Codex leaves it unanswered) and ignores stray responses and notifications", async () => {
    const client = await connect(transport);
    const threadId = await startThread(client, { cwd: h.work });
    const interrupt = await client.request("turn/interrupt", { threadId, turnId: "nope" });
    expect(interrupt.error).toEqual({ code: -32600, message: `no running turn nope on thread ${threadId}` });
    const count = client.received.length;
    client.send({ id: 999, result: { decision: "accept" } });
    client.send({ method: "some/notification", params: {} });
    client.send({ id: "str-id", method: "thread/loaded/list", params: {} });
    const reply = await client.waitFor((message) => message.id === "str-id");
    expect(reply.result).toEqual({ data: [threadId], nextCursor: null });
    expect(client.received.length).toBe(count + 1);
  });
});
