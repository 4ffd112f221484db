/**
 * The contract between the MCP server (server.ts: transports, tools/list, tools/call) and
 * the tools it serves (one file each: codex.ts, codex-reply.ts, session tools, …).
 * A tool never throws for a task failure: it returns `isError: true` with a clear text.
 */
import { type Config, loadConfig } from "../../config/load.js";
import type { ThreadManager } from "../../session/thread-manager.js";

/** JSON Schema as sent in tools/list. */
export type JsonSchemaObject = { type: "object"; [key: string]: unknown };

/** The MCP CallToolResult shape (content + optional structuredContent). */
export interface ServerToolResult {
  content: ({ type: "text"; text: string } | { type: "image"; data: string; mimeType: string })[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/** What a tool call may use: the shared threads, progress, approvals, cancellation. */
export interface ServerToolContext {
  threads: ThreadManager;
  /** Sends notifications/progress when the client gave a progressToken; otherwise a no-op. */
  progress(message: string): void;
  /** Asks the client via elicitation/create when it declared the capability; null otherwise. */
  elicit?(request: {
    message: string;
    meta: Record<string, unknown>;
  }): Promise<Record<string, unknown> | null>;
  /** Aborted when the client cancels the request (notifications/cancelled) or disconnects. */
  signal: AbortSignal;
  /** Server-wide settings (defaults for codex calls, page size, …). */
  settings: ServerSettings;
  /** The JSON-RPC id of the tools/call being served (Codex's `codex_mcp_tool_call_id`). */
  requestId?: string | number;
  /** Sends any notification tied to this call (e.g. `codex/event` with --raw-events). */
  notify?(method: string, params: Record<string, unknown>): void;
  /** Every tool the server serves (tools.ts builds the list); read by listTools and help. */
  listServerTools?: () => ServerTool[];
}

export interface ServerSettings {
  /** TSCODEX_HOME-relative config overrides applied to every thread (from the CLI's -c). */
  configOverrides: Record<string, unknown>;
  /** Raw codex/event notifications alongside progress (off by default). */
  rawEvents: boolean;
  /** The config home threads live in (per-call `config`/`profile` are loaded from it). */
  home?: string;
  /** The CLI's profile, if any (a call's `profile` wins). */
  profile?: string;
  /** Bound on an elicitation answer (config `approval_timeout_ms`); then the declared outcome. */
  approvalTimeoutMs?: number;
}

export interface ServerTool {
  name: string;
  title?: string;
  description: string;
  inputSchema: JsonSchemaObject;
  outputSchema?: JsonSchemaObject;
  handle(args: Record<string, unknown>, context: ServerToolContext): Promise<ServerToolResult>;
}

/**
 * The configuration of `settings` (home, profile, the CLI's -c overrides); a call's own
 * `overrides` apply after the server's, and its `profile` replaces the server's.
 */
export function loadSettingsConfig(
  settings: ServerSettings,
  overrides: Record<string, unknown> = {},
  profile: string | undefined = settings.profile,
): Promise<Config> {
  const merged = { ...settings.configOverrides, ...overrides };
  return loadConfig({
    ...(settings.home ? { home: settings.home } : {}),
    ...(profile ? { profile } : {}),
    overrides: Object.entries(merged).map(([key, value]) => ({ path: key.split("."), value })),
  });
}
