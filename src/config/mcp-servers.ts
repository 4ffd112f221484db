/**
 * `[mcp_servers.NAME]`: MCP servers the agent uses as tool sources (Codex's key names).
 * A server is either stdio (`command`, `args`, `env`, `cwd`) or Streamable HTTP (`url`,
 * `bearer_token_env_var`, `http_headers`, `env_http_headers`), never both.
 */
import { z } from "zod";

/** Startup and per-call bounds when the config sets none (Codex's defaults). */
export const DEFAULT_STARTUP_TIMEOUT_SEC = 10;
export const DEFAULT_TOOL_TIMEOUT_SEC = 60;

const stringMap = z.record(z.string(), z.string());
const seconds = z.number().positive();

export const mcpServerConfigSchema = z
  .looseObject({
    command: z.string().min(1).optional(),
    args: z.array(z.string()).optional(),
    env: stringMap.optional(),
    cwd: z.string().optional(),
    url: z.url().optional(),
    /** Name of an environment variable holding a bearer token for `url`. */
    bearer_token_env_var: z.string().min(1).optional(),
    http_headers: stringMap.optional(),
    /** Header name → environment variable holding its value. */
    env_http_headers: stringMap.optional(),
    startup_timeout_sec: seconds.optional(),
    /** Codex's older spelling of the startup bound; `startup_timeout_sec` wins. */
    startup_timeout_ms: z.number().int().positive().optional(),
    tool_timeout_sec: seconds.optional(),
    enabled: z.boolean().optional(),
    /** Only these tools (by the server's names) are offered; absent: all. */
    enabled_tools: z.array(z.string()).optional(),
    /** These tools are never offered (applied after enabled_tools). */
    disabled_tools: z.array(z.string()).optional(),
  })
  .refine((server) => (server.command === undefined) !== (server.url === undefined), {
    message: "an MCP server needs exactly one of `command` (stdio) or `url` (Streamable HTTP)",
  });

export type McpServerConfig = z.infer<typeof mcpServerConfigSchema>;

export const mcpServersSchema = z.record(
  z.string().regex(/^[A-Za-z0-9_-]+$/, "MCP server names may use only letters, digits, '_' and '-'"),
  mcpServerConfigSchema,
);

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
