/**
 * The built server (`node bin/tscodex.js mcp-server`, stdio) driven by the official SDK client:
 * the session tools, a `codex` answer fetched across 3 pages, and a background `codex` call
 * polled to completion with `status`. Needs `npm run build` (npm test runs it).
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI_PATH, writeFakeConfig } from "../support/cli.js";
import {
  delay,
  type FakeModelServer,
  message,
  startFakeModelServer,
  turn,
} from "../support/fake-model-server.js";
import { type TempDir, tmpdir } from "../support/tmpdir.js";

let server: FakeModelServer;
let home: TempDir;
let work: TempDir;
let client: Client;

beforeAll(async () => {
  server = await startFakeModelServer();
  home = await tmpdir("tscodex-home-");
  work = await tmpdir("tscodex-work-");
  await writeFakeConfig(home.path, { baseUrl: server.url });
  client = new Client({ name: "session-tools-e2e", version: "1.0.0" });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [CLI_PATH, "mcp-server"],
      cwd: work.path,
      env: { PATH: process.env.PATH ?? "", HOME: home.path, TSCODEX_HOME: home.path, FAKE_KEY: "k" },
      stderr: "ignore",
    }),
  );
});
afterAll(async () => {
  await client?.close();
  await server.close();
  await home.cleanup();
  await work.cleanup();
});

async function call(name: string, args: Record<string, unknown> = {}): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

const structured = (result: CallToolResult) => result.structuredContent as Record<string, unknown>;

describe("session tools over stdio (SDK client)", () => {
  it("lists every tool with schemas, answers ping and help", async () => {
    const { tools } = await client.listTools();
    const names = tools.map((tool) => tool.name);
    for (const name of [
      "codex",
      "codex-reply",
      "listSessions",
      "status",
      "cancel",
      "listTools",
      "ping",
      "help",
    ])
      expect(names).toContain(name);

    expect(structured(await call("ping"))).toMatchObject({ ok: true, version: expect.any(String) });
    const listed = structured(await call("listTools")).tools as { name: string; inputSchema: object }[];
    expect(listed.map((tool) => tool.name)).toEqual(names);
    expect(listed.find((tool) => tool.name === "codex")?.inputSchema).toMatchObject({
      type: "object",
      required: ["prompt"],
    });
    const help = await call("help");
    expect(help.content[0]).toMatchObject({ type: "text", text: expect.stringContaining("- codex(") });
  });

  it("pages a long codex answer across 3 pages, then lists the session", async () => {
    const answer = `${"a".repeat(1000)}${"b".repeat(1000)}${"c".repeat(300)}`;
    server.enqueue(turn(message(answer)));
    const first = await call("codex", { prompt: "write a lot", pageSize: 1000 });
    expect(first.isError).toBeFalsy();
    const threadId = structured(first).threadId as string;
    const pages = [structured(first).content as string];
    let token = structured(first).nextPageToken as string | undefined;
    while (token) {
      const page = await call("codex", { pageToken: token });
      expect(page.isError).toBeFalsy();
      pages.push(structured(page).content as string);
      token = structured(page).nextPageToken as string | undefined;
    }
    expect(pages).toEqual(["a".repeat(1000), "b".repeat(1000), "c".repeat(300)]);

    const sessions = structured(await call("listSessions")).sessions as Record<string, unknown>[];
    expect(sessions[0]).toMatchObject({ id: threadId, turns: 1, firstPrompt: "write a lot", loaded: true });
    const stats = structured(await call("sessionStats", { threadId }));
    expect(stats).toMatchObject({ threadId, live: true, stored: true, running: false, turns: 1 });
  });

  it("polls a background codex call to completion with status", async () => {
    server.enqueue(turn(delay(200), message("background done")));
    const started = await call("codex", { prompt: "slow task", background: true });
    expect(started.isError).toBeFalsy();
    const threadId = structured(started).threadId as string;
    let polled = structured(await call("status", { threadId }));
    for (let attempt = 0; polled.state === "running" && attempt < 200; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      polled = structured(await call("status", { threadId }));
    }
    expect(polled).toMatchObject({ threadId, state: "completed", content: "background done" });

    const cancel = await call("cancel", { threadId });
    expect(cancel.isError).toBe(true);
    const deleted = await call("deleteSession", { threadId });
    expect(structured(deleted)).toEqual({ threadId, deleted: true });
    const gone = await call("status", { threadId });
    expect(gone.isError).toBe(true);
    expect(gone.content[0]).toMatchObject({ text: `Session not found for thread_id: ${threadId}` });
  });
});
