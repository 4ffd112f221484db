/**
 * The stdio server's early answers (given before the MCP SDK is loaded) are the SDK server's
 * own: same result, same key order, for every message the early path takes; anything else is
 * left to the SDK. The built CLI's tools/list (computed at build time) is the tools' own list.
 */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  type JSONRPCMessage,
  LATEST_PROTOCOL_VERSION,
  SUPPORTED_PROTOCOL_VERSIONS as SDK_VERSIONS,
} from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { earlyAnswer, SUPPORTED_PROTOCOL_VERSIONS } from "../../src/frontends/mcp-server/early-answers.js";
import { createRuntime } from "../../src/frontends/mcp-server/runtime.js";
import { createMcpServer } from "../../src/frontends/mcp-server/server.js";
import type { ServerRuntime } from "../../src/frontends/mcp-server/server-tool.js";
import { defaultToolList, type ListedTool } from "../../src/frontends/mcp-server/tool-list.js";
import { writeFakeConfig } from "../support/cli.js";
import { useMcpHarness } from "../support/mcp-harness.js";
import { type TempDir, tmpdir } from "../support/tmpdir.js";

/** A transport handing one message to the server and resolving with its first reply. */
class OneShot implements Transport {
  onclose?: () => void;
  onmessage?: <T extends JSONRPCMessage>(message: T) => void;
  private reply?: (message: JSONRPCMessage) => void;
  async start(): Promise<void> {}
  async close(): Promise<void> {}
  async send(message: JSONRPCMessage): Promise<void> {
    this.reply?.(message);
  }
  ask(message: Record<string, unknown>): Promise<JSONRPCMessage> {
    return new Promise((resolve) => {
      this.reply = resolve;
      this.onmessage?.(message as JSONRPCMessage);
    });
  }
}

const initialize = (protocolVersion: string, capabilities: unknown, extra: Record<string, unknown> = {}) => ({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion, capabilities, clientInfo: { name: "c", version: "1", ...extra } },
});

/** Messages the early path answers: each answer must be the SDK server's. */
const ANSWERED: Record<string, unknown>[] = [
  initialize("2025-06-18", {}),
  initialize("2024-11-05", { roots: { listChanged: true }, sampling: {}, elicitation: {} }),
  initialize("1999-01-01", { elicitation: { form: { applyDefaults: true }, url: {} } }),
  initialize(LATEST_PROTOCOL_VERSION, { experimental: { x: {} } }, { title: "C", description: "d" }),
  { jsonrpc: "2.0", id: "p", method: "ping" },
  { jsonrpc: "2.0", id: 7, method: "ping", params: {} },
  { jsonrpc: "2.0", id: 8, method: "tools/list" },
  { jsonrpc: "2.0", id: 9, method: "tools/list", params: { cursor: "next" } },
];

/** Messages left to the SDK: malformed, unusual, or not early methods at all. */
const LEFT: unknown[] = [
  { id: 1, method: "ping" },
  { jsonrpc: "2.0", id: 1.5, method: "ping" },
  { jsonrpc: "2.0", id: 1, method: "ping", extra: true },
  { jsonrpc: "2.0", id: 1, method: "ping", params: { _meta: { progressToken: 1 } } },
  { jsonrpc: "2.0", id: 1, method: "tools/list", params: "x" },
  { jsonrpc: "2.0", id: 1, method: "tools/list", params: { cursor: 3 } },
  { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "ping" } },
  { jsonrpc: "2.0", id: 1, method: "logging/setLevel", params: { level: "info" } },
  initialize("2025-06-18", { roots: { listChanged: "yes" } }),
  initialize("2025-06-18", { tasks: {} }),
  initialize("2025-06-18", []),
  initialize("2025-06-18", {}, { icons: [] }),
  { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1 } },
  [{ jsonrpc: "2.0", id: 1, method: "ping" }],
];

describe("early answers", () => {
  let home: TempDir;
  let runtime: ServerRuntime;
  let tools: readonly ListedTool[];
  beforeAll(async () => {
    home = await tmpdir("tscodex-early-");
    await writeFakeConfig(home.path, { baseUrl: "http://127.0.0.1:9/v1" });
    runtime = await createRuntime({
      env: { PATH: process.env.PATH ?? "", HOME: home.path, TSCODEX_HOME: home.path, FAKE_KEY: "k" },
    });
    tools = await defaultToolList();
  });
  afterAll(async () => {
    await runtime.close();
    await home.cleanup();
  });

  it("accepts the protocol versions the SDK server accepts", () => {
    expect(SUPPORTED_PROTOCOL_VERSIONS).toEqual(SDK_VERSIONS);
    expect(SUPPORTED_PROTOCOL_VERSIONS[0]).toBe(LATEST_PROTOCOL_VERSION);
  });

  it("answers as the SDK server does, key order included", async () => {
    for (const message of ANSWERED) {
      const early = earlyAnswer(message, tools);
      expect(early?.kind, JSON.stringify(message)).toBe("reply");
      const server = createMcpServer(runtime);
      const transport = new OneShot();
      await server.connect(transport);
      const sdk = await transport.ask(message);
      await server.close();
      expect(early?.kind === "reply" && JSON.stringify(early.reply)).toBe(JSON.stringify(sdk));
    }
  });

  it("leaves malformed and other messages to the SDK", () => {
    for (const message of LEFT) expect(earlyAnswer(message, tools), JSON.stringify(message)).toBeNull();
    expect(earlyAnswer({ jsonrpc: "2.0", method: "notifications/initialized" }, tools)).toEqual({
      kind: "note",
      method: "notifications/initialized",
    });
  });
});

describe("the built server's tools/list", () => {
  const h = useMcpHarness();

  it("is the list of the tools' own schemas", async () => {
    const client = h.rawClient();
    await client.initialize();
    const reply = await client.request(2, "tools/list", {});
    expect(reply.result).toEqual({ tools: await defaultToolList() });
  });
});
