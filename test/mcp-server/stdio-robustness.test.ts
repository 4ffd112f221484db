/**
 * The stdio wire under abuse: every line that is not one valid JSON-RPC message gets an error
 * reply, and a line over the size limit is answered (with its id when it shows one) while the
 * server, and the calls in flight, carry on.
 */
import { describe, expect, it } from "vitest";
import { delay, message, turn } from "../support/fake-model-server.js";
import type { RawStdioClient, WireMessage } from "../support/mcp-client.js";
import { useMcpHarness } from "../support/mcp-harness.js";

const h = useMcpHarness();

/** Writes `line` as is and returns the next message the server sends. */
async function replyTo(client: RawStdioClient, line: string): Promise<WireMessage> {
  const before = client.messages.length;
  client.child.stdin?.write(`${line}\n`);
  return client.waitFor((_, index) => index >= before);
}

describe("invalid JSON-RPC on stdio", () => {
  it("answers each bad line with -32700 or -32600 and keeps serving", async () => {
    const client = h.rawClient();
    await client.initialize();
    const cases: [string, number, string | number | null][] = [
      ["not json at all", -32700, null],
      ['{"jsonrpc":"2.0","id":1,', -32700, null],
      ["[]", -32600, null],
      ['[{"jsonrpc":"2.0","id":7,"method":"ping"}]', -32600, null],
      ["42", -32600, null],
      ['"text"', -32600, null],
      ["null", -32600, null],
      ['{"jsonrpc":"2.0","id":{"x":1},"method":"ping"}', -32600, null],
      ['{"jsonrpc":"2.0","id":1.5,"method":"ping"}', -32600, null],
      ['{"jsonrpc":"2.0","id":9,"method":"tools/list","params":"x"}', -32600, 9],
      ['{"jsonrpc":"2.0","id":"s-1","method":"tools/call","params":[1]}', -32600, "s-1"],
      ['{"id":10,"method":"ping"}', -32600, 10],
    ];
    for (const [line, code, id] of cases) {
      const reply = await replyTo(client, line);
      expect(reply, line).toMatchObject({ jsonrpc: "2.0", id, error: { code } });
    }
    expect((await client.request(100, "ping", {})).result).toEqual({});
    expect(client.child.exitCode).toBeNull();
  });
});

describe("oversized messages on stdio", () => {
  it("refuses a line over mcp_server.max_message_bytes by its id, then serves on", async () => {
    const client = h.rawClient(["-c", "mcp_server.max_message_bytes=4096"]);
    await client.initialize();
    const big = {
      jsonrpc: "2.0",
      method: "tools/call",
      params: { name: "ping", arguments: { pad: "x".repeat(10_000) } },
    };
    const tailId = await replyTo(client, JSON.stringify({ ...big, id: 21 }));
    expect(tailId).toMatchObject({ id: 21, error: { code: -32600 } });
    expect((tailId.error as { message: string }).message).toMatch(
      /^Invalid Request: message of \d+ bytes is over the limit of 4096 bytes \(config mcp_server.max_message_bytes\)$/,
    );
    const headId = await replyTo(client, JSON.stringify({ id: "h", ...big }));
    expect(headId).toMatchObject({ id: "h", error: { code: -32600 } });
    // A nested "id" is not the message's: no id is better than a wrong one.
    const nested = await replyTo(
      client,
      JSON.stringify({ ...big, params: { ...big.params, meta: { id: 5 } } }),
    );
    expect(nested).toMatchObject({ id: null, error: { code: -32600 } });
    expect((await client.request(22, "ping", {})).result).toEqual({});
  });

  it("survives a 17 MiB line at the default limit, with a codex call in flight", async () => {
    // Reading the huge line holds the server's event loop for a while, longer on a loaded
    // machine: the model stream may idle 10 s here, so the call is never retried mid-test.
    const client = h.rawClient(["-c", "model_providers.fake.stream_idle_timeout_ms=10000"]);
    await client.initialize();
    // Several seconds in flight, with progress in between.
    const slow = [1, 2, 3, 4].flatMap((step) => [message(`step ${step}`), delay(1200)]);
    h.model.enqueue(turn(...slow, message("still here")));
    client.send({
      id: 30,
      method: "tools/call",
      params: { name: "codex", arguments: { prompt: "go", cwd: h.work } },
    });
    await h.model.waitForRequests(1);
    const huge = `{"jsonrpc":"2.0","method":"ping","params":{"pad":"${"y".repeat(17 * 1024 * 1024)}"},"id":31}`;
    client.child.stdin?.write(`${huge}\n`);
    const refused = await client.waitFor((reply) => reply.id === 31, 15_000);
    expect(refused).toMatchObject({ id: 31, error: { code: -32600 } });
    const answer = await client.waitFor((reply) => reply.id === 30, 15_000);
    expect(answer.result).toMatchObject({ structuredContent: { content: "still here" } });
    expect((await client.request(32, "ping", {})).result).toEqual({});
  });
});
