/**
 * `[mcp_servers.NAME]`: MCP servers the agent uses as tool sources (Codex's key names).
 * A server is either stdio (`command`, `args`, `env`, `cwd`) or Streamable HTTP (`url`,
 * `bearer_token_env_var`, `http_headers`, `env_http_headers`), never both. The schemas are in
 * mcp-servers-schema.ts; these helpers read checked entries.
 */
import type { McpServerConfig, McpToolApprovalMode } from "./mcp-servers-schema.js";

export type { McpServerConfig, McpToolApprovalMode } from "./mcp-servers-schema.js";

/** Startup and per-call bounds when the config sets none (Codex's defaults). */
export const DEFAULT_STARTUP_TIMEOUT_SEC = 10;
export const DEFAULT_TOOL_TIMEOUT_SEC = 60;

/** The servers to start: enabled ones only, in name order. */
export function enabledMcpServers(
  servers: Record<string, McpServerConfig> | undefined,
): [string, McpServerConfig][] {
  return Object.entries(servers ?? {})
    .filter(([, server]) => server.enabled !== false)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/** The startup bound in milliseconds. */
export function startupTimeoutMs(server: McpServerConfig): number {
  if (server.startup_timeout_sec !== undefined) return server.startup_timeout_sec * 1000;
  return server.startup_timeout_ms ?? DEFAULT_STARTUP_TIMEOUT_SEC * 1000;
}

/** The per-call bound in milliseconds. */
export function toolTimeoutMs(server: McpServerConfig): number {
  return (server.tool_timeout_sec ?? DEFAULT_TOOL_TIMEOUT_SEC) * 1000;
}

/** A tool's approval mode: its own `approval_mode`, else the server's default, else `auto`. */
export function toolApprovalMode(server: McpServerConfig, tool: string): McpToolApprovalMode {
  return server.tools?.[tool]?.approval_mode ?? server.default_tools_approval_mode ?? "auto";
}
