/**
 * mcpServer/tool/call, mcpServer/resource/read and mcpServer/startupStatus/updated, with the MCP
 * fixture server (test/support/mcp-fixture-server.ts) configured: over stdio and WebSocket, every
 * message checked against Codex 0.169's schemas.
 */
import { appendFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { AppClient } from "../support/app-server-client.js";
import { useAppServerHarness } from "../support/app-server-harness.js";
import { referenceSchemaFailures } from "../support/app-server-schemas.js";
import { type FixtureEntry, fixtureToml } from "../support/mcp-fixture.js";
import { startThread } from "./flow.js";

const h = useAppServerHarness();

async function configure(...entries: FixtureEntry[]): Promise<void> {
  const tables = await Promise.all(entries.map((entry) => fixtureToml(entry)));
  await appendFile(join(h.home, "config.toml"), `\n${tables.join("\n")}`);
}

/** The startup states a client heard for `server` of `threadId`, once it heard `last`. */
async function startupStates(client: AppClient, threadId: string, server: string, last: string) {
  const ofServer = (message: { method?: string; params?: Record<string, unknown> }) =>
    message.method === "mcpServer/startupStatus/updated" &&
    message.params?.threadId === threadId &&
    message.params?.name === server;
  await client.waitFor((message) => ofServer(message) && message.params?.status === last);
  return client.received.filter(ofServer).map((message) => message.params);
}

describe("app-server: a thread's MCP servers, called directly", () => {
  it("reports startup, calls tools and reads resources, each outcome in Codex's shapes", async () => {
    await configure({ name: "fixture" });
    const client = await h.stdio();
    const threadId = await startThread(client, { cwd: h.work });
    expect(await startupStates(client, threadId, "fixture", "ready")).toEqual([
      { threadId, name: "fixture", status: "starting", error: null, environmentId: null },
      { threadId, name: "fixture", status: "ready", error: null, environmentId: null },
    ]);

    const call = (tool: string, args?: Record<string, unknown>) =>
      client.request("mcpServer/tool/call", {
        threadId,
        server: "fixture",
        tool,
        ...(args ? { arguments: args } : {}),
      });
    expect((await call("echo", { text: "hi" })).result).toEqual({
      content: [{ type: "text", text: "echo: hi" }],
      isError: false,
    });
    expect((await call("structured")).result).toMatchObject({
      structuredContent: { ok: true },
      isError: false,
    });
    // A tool that reports an error is a result, as the server sent it.
    expect((await call("fail")).result).toEqual({
      content: [{ type: "text", text: "it failed" }],
      isError: true,
    });
    // A JSON-RPC error from the server is an error reply, in one clean line.
    const thrown = await call("throws");
    expect(thrown.error).toEqual({
      code: -32603,
      message: "tool call failed for `fixture/throws`: Mcp error: -32000: boom",
    });
    const noTool = await call("nope");
    expect(noTool.error?.code).toBe(-32602);
    expect(noTool.error?.message).toMatch(/^MCP server `fixture` has no tool `nope` \(tools: .*`echo`/);
    const noServer = await client.request("mcpServer/tool/call", { threadId, server: "ghost", tool: "echo" });
    expect(noServer.error).toEqual({
      code: -32602,
      message: "unknown MCP server `ghost` (configured: `fixture`)",
    });
    const badArgs = await client.request("mcpServer/tool/call", {
      threadId,
      server: "fixture",
      tool: "echo",
      arguments: ["not", "an", "object"],
    });
    expect(badArgs.error?.code).toBe(-32602);

    expect(
      await client.call("mcpServer/resource/read", { threadId, server: "fixture", uri: "fixture://readme" }),
    ).toEqual({
      contents: [{ uri: "fixture://readme", mimeType: "text/plain", text: "fixture readme body" }],
    });
    const badUri = await client.request("mcpServer/resource/read", {
      threadId,
      server: "fixture",
      uri: "fixture://missing",
    });
    expect(badUri.error?.code).toBe(-32603);
    expect(badUri.error?.message).toMatch(
      /^resource read failed for `fixture` \(fixture:\/\/missing\): .*-32002/,
    );
    expect(referenceSchemaFailures(client)).toEqual([]);
  }, 90_000); // the first check compiles the 0.169 schemas (about 11 s on a loaded machine)

  it("reads a configured server's resource without a thread", async () => {
    await configure({ name: "fixture" });
    const client = await h.stdio();
    const read = await client.call("mcpServer/resource/read", { server: "fixture", uri: "fixture://readme" });
    expect(read.contents[0]).toMatchObject({ uri: "fixture://readme", text: "fixture readme body" });
    const unknown = await client.request("mcpServer/resource/read", { server: "ghost", uri: "x://y" });
    expect(unknown.error).toEqual({
      code: -32602,
      message: "unknown MCP server `ghost` (configured: `fixture`)",
    });
    expect(referenceSchemaFailures(client)).toEqual([]);
  });

  it("reports a server that fails to start, and refuses calls to it", async () => {
    await configure({ name: "broken", mode: "crash" }, { name: "fixture" });
    const client = await h.stdio();
    const threadId = await startThread(client, { cwd: h.work });
    const states = await startupStates(client, threadId, "broken", "failed");
    expect(states.map((state) => state?.status)).toEqual(["starting", "failed"]);
    expect(states[1]?.error).toMatch(/crashing at startup|closed/);
    const refused = await client.request("mcpServer/tool/call", { threadId, server: "broken", tool: "echo" });
    expect(refused.error?.code).toBe(-32600);
    expect(refused.error?.message).toMatch(/^MCP server `broken` is not available \(failed to start: /);
    // The other server is unaffected.
    const echo = await client.call("mcpServer/tool/call", {
      threadId,
      server: "fixture",
      tool: "echo",
      arguments: { text: "still here" },
    });
    expect(echo.content).toEqual([{ type: "text", text: "echo: still here" }]);
    expect(referenceSchemaFailures(client)).toEqual([]);
  });

  it("applies the tool's approval mode under the thread's approval policy", async () => {
    await configure({ name: "fx", env: { FIXTURE_SET: "approvals" } });
    const client = await h.stdio();
    const strict = await startThread(client, { cwd: h.work, approvalPolicy: "never", sandbox: "read-only" });
    const refused = await client.request("mcpServer/tool/call", {
      threadId: strict,
      server: "fx",
      tool: "plain",
    });
    expect(refused.error).toEqual({
      code: -32600,
      message: "MCP tool call requires approval, but approval policy is never",
    });
    // Read-only tools need no approval; a policy that would ask lets the client's own call run.
    const ro = await client.call("mcpServer/tool/call", { threadId: strict, server: "fx", tool: "ro" });
    expect(ro.content).toEqual([{ type: "text", text: "ro ran" }]);
    const asking = await startThread(client, { cwd: h.work, approvalPolicy: "on-request" });
    const plain = await client.call("mcpServer/tool/call", { threadId: asking, server: "fx", tool: "plain" });
    expect(plain.content).toEqual([{ type: "text", text: "plain ran" }]);
    expect(referenceSchemaFailures(client)).toEqual([]);
  });

  it("answers over WebSocket too, replays startup to a client that resumes, and an unknown thread is an error", async () => {
    await configure({ name: "fixture" });
    const server = await h.wsServer();
    const client = await server.connect();
    h.defer(client);
    await client.initialize();
    const threadId = await startThread(client, { cwd: h.work });
    const echo = await client.call("mcpServer/tool/call", {
      threadId,
      server: "fixture",
      tool: "echo",
      arguments: { text: "over ws" },
    });
    expect(echo).toEqual({ content: [{ type: "text", text: "echo: over ws" }], isError: false });
    // A second connection resuming the thread hears where its servers stand.
    const second = await server.connect();
    h.defer(second);
    await second.initialize();
    await second.call("thread/resume", { threadId });
    expect(await startupStates(second, threadId, "fixture", "ready")).toEqual([
      { threadId, name: "fixture", status: "starting", error: null, environmentId: null },
      { threadId, name: "fixture", status: "ready", error: null, environmentId: null },
    ]);
    const missing = await client.request("mcpServer/tool/call", {
      threadId: "019a0000-0000-7000-8000-000000000000",
      server: "fixture",
      tool: "echo",
    });
    expect(missing.error?.message).toMatch(/thread not found/);
    expect(referenceSchemaFailures(client)).toEqual([]);
    expect(referenceSchemaFailures(second)).toEqual([]);
  });
});
