/**
 * The client's MCP servers (`session/new` / `load` / `resume` `mcpServers`) as `[mcp_servers]`
 * entries of the session's thread: stdio and Streamable HTTP (tscodex has no SSE client; the agent
 * says so in its capabilities). Names are made config-safe; a client server replaces a configured
 * one of the same name for that session.
 */
import type { McpServer } from "@agentclientprotocol/sdk";
import type { Config } from "../../config/load.js";
import type { McpServerConfig } from "../../config/mcp-servers.js";

export function withClientMcpServers(config: Config, servers: readonly McpServer[] | undefined): Config {
  if (!servers || servers.length === 0) return config;
  const added: Record<string, McpServerConfig> = {};
  for (const server of servers) {
    const name = server.name.replace(/[^A-Za-z0-9_-]/g, "_") || "client";
    if ("type" in server && server.type === "http") {
      added[name] = {
        url: server.url,
        http_headers: Object.fromEntries(server.headers.map((header) => [header.name, header.value])),
      };
    } else if (!("type" in server)) {
      added[name] = {
        command: server.command,
        args: server.args,
        env: Object.fromEntries(server.env.map((variable) => [variable.name, variable.value])),
      };
    }
  }
  return { ...config, mcpServers: { ...config.mcpServers, ...added } };
}
