/** Shared by the benchmarks (bench/support/ is not itself run by `npm run bench`). */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { Agent } from "./bench.js";

/** An MCP client connected to a freshly spawned `mcp-server` of an agent. */
export interface ConnectedMcp {
  client: Client;
  pid: number;
  /** Spawn → initialize answered (and `notifications/initialized` sent). */
  initializeMs: number;
}

/** Spawns `agent`'s `mcp-server` in `cwd` and completes the handshake with the official SDK client. */
export async function connectMcpServer(agent: Agent, cwd: string): Promise<ConnectedMcp> {
  const [command, ...args] = agent.argv(["mcp-server"]);
  const transport = new StdioClientTransport({
    command: command ?? "",
    args,
    cwd,
    env: { PATH: process.env.PATH ?? "", FAKE_KEY: "bench", ...agent.env },
    stderr: "ignore",
  });
  const client = new Client({ name: "bench", version: "1.0.0" });
  const started = performance.now();
  // connect() spawns the server and completes the initialize handshake.
  await client.connect(transport);
  return { client, pid: transport.pid ?? 0, initializeMs: performance.now() - started };
}
