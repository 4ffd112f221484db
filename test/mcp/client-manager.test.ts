/**
 * The client manager against real servers: the stdio fixture as child processes and the
 * Streamable HTTP fixture in this process.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import type { McpServerConfig } from "../../src/config/mcp-servers.js";
import { McpClientManager } from "../../src/mcp/client-manager.js";
import type { Event } from "../../src/protocol/events.js";
import { fixtureScript } from "../support/mcp-fixture.js";
import { startHttpFixture } from "../support/mcp-fixture-server.js";
import { gone } from "../support/processes.js";
import { type TempDir, tmpdir } from "../support/tmpdir.js";

let script: string;
let managers: McpClientManager[] = [];
let dir: TempDir | undefined;

beforeAll(async () => {
  script = await fixtureScript();
});
afterEach(async () => {
  await Promise.all(managers.map((manager) => manager.dispose()));
  managers = [];
  await dir?.cleanup();
  dir = undefined;
});

function stdio(env: Record<string, string> = {}, extra: Partial<McpServerConfig> = {}): McpServerConfig {
  return { command: process.execPath, args: [script], env, ...extra };
}

function start(servers: [string, McpServerConfig][]): McpClientManager {
  const manager = McpClientManager.start(servers, { env: process.env, cwd: process.cwd() });
  managers.push(manager);
  return manager;
}

async function startupEvents(manager: McpClientManager): Promise<Event[]> {
  const events: Event[] = [];
  await manager.whenReady((event) => events.push(event));
  return events;
}

describe("McpClientManager", () => {
  it("starts servers in parallel, reports each, and skips the ones that fail", async () => {
    const manager = start([
      ["b", stdio()],
      ["a", stdio({ FIXTURE_MODE: "crash" })],
      ["c", stdio({ FIXTURE_MODE: "hang" }, { startup_timeout_sec: 0.5 })],
    ]);
    const events = await startupEvents(manager);
    const updates = events.filter((event) => event.type === "mcp_startup_update");
    expect(updates.slice(0, 3).map((event) => event.server)).toEqual(["b", "a", "c"]);
    expect(updates.filter((event) => event.status.state === "starting")).toHaveLength(3);
    expect(events.at(-1)).toEqual({
      type: "mcp_startup_complete",
      ready: ["b"],
      failed: [
        {
          server: "a",
          error: "Mcp error: -32000: Connection closed (stderr: fixture: crashing at startup)",
        },
        {
          server: "c",
          error:
            "did not start within 0.5 s; raise startup_timeout_sec under [mcp_servers.c] if it needs longer",
        },
      ],
      cancelled: [],
    });
    expect(manager.readyServers()).toEqual(["b"]);
    expect(manager.tools().map((tool) => tool.name)).toContain("mcp__b__echo");
  });

  it("a late listener gets the startup events replayed", async () => {
    const manager = start([["fixture", stdio()]]);
    await manager.ready;
    const events = await startupEvents(manager);
    expect(events.map((event) => event.type)).toEqual([
      "mcp_startup_update",
      "mcp_startup_update",
      "mcp_startup_complete",
    ]);
  });

  it("bounds a call by tool_timeout_sec and by the turn's signal", async () => {
    const manager = start([["fixture", stdio({}, { tool_timeout_sec: 0.3 })]]);
    await manager.ready;
    const started = Date.now();
    await expect(
      manager.callTool("fixture", "slow", { ms: 10_000 }, new AbortController().signal),
    ).rejects.toThrow("timed out after 0.3 seconds (tool_timeout_sec)");
    expect(Date.now() - started).toBeLessThan(3000);
    const interrupt = new AbortController();
    const call = manager.callTool("fixture", "slow", { ms: 10_000 }, interrupt.signal);
    setTimeout(() => interrupt.abort(), 100);
    await expect(call).rejects.toBeDefined();
    // The server is still usable afterwards.
    const echo = await manager.callTool("fixture", "echo", { text: "ok" }, new AbortController().signal);
    expect(echo.content).toEqual([{ type: "text", text: "echo: ok" }]);
    await expect(manager.callTool("nope", "echo", {}, new AbortController().signal)).rejects.toThrow(
      "unknown MCP server 'nope'",
    );
  });

  it("dispose closes the servers and cancels startups in progress; no process survives", async () => {
    dir = await tmpdir();
    const pidfile = join(dir.path, "pids");
    const manager = start([
      ["up", stdio({ FIXTURE_PIDFILE: pidfile })],
      ["stuck", stdio({ FIXTURE_PIDFILE: pidfile, FIXTURE_MODE: "hang" }, { startup_timeout_sec: 30 })],
    ]);
    const events: Event[] = [];
    const ready = manager.whenReady((event) => events.push(event));
    const pidsWritten = async () =>
      (await readFile(pidfile, "utf8").catch(() => "")).trim().split("\n").length;
    // Both processes run (and noted their pids) and `up` is ready; `stuck` never will be.
    while (!manager.readyServers().includes("up") || (await pidsWritten()) < 2) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await manager.dispose();
    await ready;
    expect(events.at(-1)).toMatchObject({
      type: "mcp_startup_complete",
      ready: ["up"],
      cancelled: ["stuck"],
    });
    const pids = (await readFile(pidfile, "utf8")).trim().split("\n").map(Number);
    expect(pids).toHaveLength(2);
    for (const pid of pids) expect(await gone(pid), `pid ${pid}`).toBe(true);
  });

  it("talks Streamable HTTP, with headers from the config and the environment", async () => {
    const http = await startHttpFixture();
    try {
      const manager = McpClientManager.start(
        [["web", { url: http.url, bearer_token_env_var: "T", env_http_headers: { "X-Team": "TEAM" } }]],
        { env: { T: "tok", TEAM: "blue" }, cwd: process.cwd() },
      );
      managers.push(manager);
      await manager.ready;
      expect(manager.readyServers()).toEqual(["web"]);
      const result = await manager.callTool("web", "echo", { text: "x" }, new AbortController().signal);
      expect(result.content).toEqual([{ type: "text", text: "echo: x" }]);
      const page = await manager.listResourceTemplates("web");
      expect(page.items).toEqual([
        { uriTemplate: "fixture://notes/{id}", name: "note", mimeType: "text/plain" },
      ]);
      expect(http.requests.every((request) => request.authorization === "Bearer tok")).toBe(true);
    } finally {
      await http.close();
    }
  });
});
