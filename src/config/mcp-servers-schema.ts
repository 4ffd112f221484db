/**
 * `[mcp_servers.NAME]`, validated: the zod schemas of mcp-servers.ts's entries (Codex's key
 * names). Apart from the helpers there so starting a thread's servers needs no zod; the config
 * schema and `tscodex mcp` import these.
 */
import { z } from "zod";

const stringMap = z.record(z.string(), z.string());
const seconds = z.number().positive();

/**
 * Whether a server's tool calls need approval (Codex's `AppToolApproval`): `auto` and `writes`
 * ask before a tool not annotated `readOnlyHint`, `prompt` asks before every call, `approve`
 * never asks.
 */
export const mcpToolApprovalModeSchema = z.enum(["auto", "prompt", "writes", "approve"]);
export type McpToolApprovalMode = z.infer<typeof mcpToolApprovalModeSchema>;

/** `[mcp_servers.NAME.tools.TOOL]`: settings of one tool (by the server's name for it). */
const mcpToolConfigSchema = z.looseObject({ approval_mode: mcpToolApprovalModeSchema.optional() });

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
    /** The approval mode of tools without their own `tools.TOOL.approval_mode` (default auto). */
    default_tools_approval_mode: mcpToolApprovalModeSchema.optional(),
    tools: z.record(z.string(), mcpToolConfigSchema).optional(),
    /** A server that fails to start (or needs a login) fails the run instead of being skipped. */
    required: z.boolean().optional(),
  })
  .refine((server) => (server.command === undefined) !== (server.url === undefined), {
    message: "an MCP server needs exactly one of `command` (stdio) or `url` (Streamable HTTP)",
  });

export type McpServerConfig = z.infer<typeof mcpServerConfigSchema>;

export const mcpServersSchema = z.record(
  z.string().regex(/^[A-Za-z0-9_-]+$/, "MCP server names may use only letters, digits, '_' and '-'"),
  mcpServerConfigSchema,
);
