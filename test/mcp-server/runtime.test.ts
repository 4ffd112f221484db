/**
 * Two MCP servers in one process, each with its own runtime, driven by SDK clients over
 * in-memory transports: session names, result pages and background tasks of one server are
 * unknown to the other, even when both keep their threads in the same home.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { afterEach, describe, expect, it } from "vitest";
import { createRuntime } from "../../src/frontends/mcp-server/runtime.js";
import { createMcpServer } from "../../src/frontends/mcp-server/server.js";
import { writeFakeConfig } from "../support/cli.js";
import { hang, message, turn } from "../support/fake-model-server.js";
import { callTool } from "../support/mcp-client.js";
import { useMcpHarness } from "../support/mcp-harness.js";
import { type TempDir, tmpdir } from "../support/tmpdir.js";

const h = useMcpHarness();
const closing: (() => Promise<void>)[] = [];
const homes: TempDir[] = [];

// Registered after the harness, so it runs first: servers close before their homes go.
afterEach(async () => {
  for (const close of closing.splice(0)) await close();
  await Promise.all(homes.splice(0).map((home) => home.cleanup()));
});

/** A second home, configured as the harness's. */
async function otherHome(): Promise<string> {
  const home = await tmpdir("tscodex-mcp-home-");
  homes.push(home);
  await writeFakeConfig(home.path, { baseUrl: h.model.url });
  return home.path;
}

/** A server of its own (runtime + SDK Server) over `home`, with a connected client. */
async function serve(home: string): Promise<Client> {
  const runtime = await createRuntime({
    env: { PATH: process.env.PATH ?? "", HOME: home, TSCODEX_HOME: home, FAKE_KEY: "k" },
  });
  const server = createMcpServer(runtime);
  const client = new Client({ name: "runtime-test", version: "0.0.1" });
  const [clientEnd, serverEnd] = InMemoryTransport.createLinkedPair();
  await server.connect(serverEnd);
  await client.connect(clientEnd);
  closing.push(async () => {
    await client.close();
    await runtime.close();
  });
  return client;
}

describe("two servers in one process", () => {
  it("keep their own session names and result pages over one home", async () => {
    const a = await serve(h.home);
    const b = await serve(h.home);
    const answer = `${"a".repeat(1000)}${"b".repeat(1000)}`;
    h.model.enqueue(turn(message(answer)));
    const first = await callTool(a, "codex", {
      prompt: "one",
      cwd: h.work,
      sessionId: "shared",
      pageSize: 1000,
    });
    const token = first.result.structuredContent?.nextPageToken;
    expect(token).toEqual(expect.any(String));

    const elsewhere = await callTool(b, "codex", { pageToken: token });
    expect(elsewhere.result.isError).toBe(true);
    expect(elsewhere.text).toContain("Unknown or expired pageToken");
    const here = await callTool(a, "codex", { pageToken: token });
    expect(here.result.structuredContent?.content).toBe("b".repeat(1000));

    // "shared" names A's thread on A only: on B the same name starts a thread of its own.
    h.model.enqueue(turn(message("b's own")), turn(message("a again")));
    const onB = await callTool(b, "codex", { prompt: "two", cwd: h.work, sessionId: "shared" });
    expect(onB.text).toBe("b's own");
    expect(onB.threadId).not.toBe(first.threadId);
    const onA = await callTool(a, "codex", { prompt: "three", sessionId: "shared" });
    expect(onA.threadId).toBe(first.threadId);
  });

  it("keep their own background tasks", async () => {
    const a = await serve(h.home);
    const b = await serve(await otherHome());
    h.model.enqueue(turn(hang()));
    const started = await callTool(a, "codex", { prompt: "slow", cwd: h.work, background: true });
    const { threadId } = started;
    await h.model.waitForRequests(1);
    expect((await callTool(a, "status", { threadId })).result.structuredContent).toMatchObject({
      state: "running",
    });
    const unknown = await callTool(b, "status", { threadId });
    expect(unknown.result.isError).toBe(true);
    expect(unknown.text).toBe(`Session not found for thread_id: ${threadId}`);
    const cancelled = await callTool(a, "cancel", { threadId });
    expect(cancelled.result.structuredContent).toMatchObject({ cancelled: true, state: "interrupted" });
  });
});
