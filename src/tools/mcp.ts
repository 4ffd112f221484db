/**
 * MCP server tools as tscodex tools: one definition per `mcp__{server}__{tool}`, whose handler
 * takes `mcp` payloads (the router maps a function call of that name to one), emits
 * mcp_tool_call_begin/end, calls the server within its tool_timeout_sec, and renders the result
 * for the model (mcp/render.ts). Also the glue a Thread uses to wait for startup and to close
 * the servers (McpStartup).
 */
import type { McpToolEntry } from "../mcp/client-manager.js";
import type { McpRecord } from "../mcp/connection.js";
import { describeMcpError, type McpCallResult, renderCallResult } from "../mcp/render.js";
import { sanitizeInputSchema } from "../mcp/schema-sanitizer.js";
import type { ElicitationRequest, ElicitationResult, Event, McpInvocation } from "../protocol/events.js";
import { runsAsIs, type ToolDefinition, ToolError, type ToolInvocation, type ToolOutput } from "./types.js";

/** What the MCP tools need from the client manager. */
export interface McpToolSource {
  tools(): McpToolEntry[];
  callTool(
    server: string,
    tool: string,
    args: Record<string, unknown> | undefined,
    signal: AbortSignal,
    /** Answers the server's elicitations during this call. */
    elicit?: (request: ElicitationRequest) => Promise<ElicitationResult>,
    /** Hears the server's progress on this call. */
    progress?: (message: string) => void,
  ): Promise<McpCallResult>;
}

/**
 * What a client may reach directly on a thread's servers (app-server `mcpServer/tool/call` and
 * `mcpServer/resource/read`), outside any turn; each call still within the server's timeout.
 */
export interface McpDirectAccess extends McpToolSource {
  /** Servers that came up, in name order. */
  readyServers(): string[];
  readResource(server: string, uri: string): Promise<McpRecord[]>;
}

/** What a Thread needs from its MCP servers. */
export interface McpStartup {
  /**
   * Emits the startup events (so far and to come) and resolves when startup is over; resolves
   * early when `signal` aborts. Never rejects.
   */
  whenReady(emit: (event: Event) => void, signal?: AbortSignal): Promise<void>;
  /** The servers' tools: none before startup is over, then one definition per server tool. */
  tools(): readonly ToolDefinition[];
  /** After startup: why the run must fail (a `required` server did not start), else null. */
  requiredFailure(): string | null;
  /** Closes every server. Never rejects. */
  dispose(): Promise<void>;
  /** The servers themselves, for a client's direct calls (wait for `whenReady` first). */
  readonly direct: McpDirectAccess;
}

/** The manager side of McpStartup. */
export interface McpManagerLike extends McpDirectAccess {
  whenReady(emit: (event: Event) => void, signal?: AbortSignal): Promise<void>;
  requiredFailure(): string | null;
  dispose(): Promise<void>;
}

/** The thread's view of its MCP servers: startup, then their tools as definitions. */
export function mcpStartup(manager: McpManagerLike): McpStartup {
  let definitions: readonly ToolDefinition[] = [];
  let ready = false;
  return {
    async whenReady(emit, signal) {
      await manager.whenReady(emit, signal);
      if (ready || signal?.aborted) return;
      ready = true;
      definitions = manager.tools().map((entry) => mcpToolDefinition(entry, manager));
    },
    tools: () => definitions,
    requiredFailure: () => manager.requiredFailure(),
    async dispose() {
      await manager.dispose().catch(() => {});
    },
    direct: manager,
  };
}

/** The tool for one server tool: its sanitized schema, and a handler calling the server. */
export function mcpToolDefinition(entry: McpToolEntry, source: McpToolSource): ToolDefinition {
  return {
    spec: {
      type: "function",
      name: entry.name,
      description: entry.description,
      strict: false,
      parameters: sanitizeInputSchema(entry.inputSchema),
    },
    // Codex runs MCP calls one at a time; servers may not expect concurrency.
    supportsParallel: false,
    mcpTool: { server: entry.server, tool: entry.tool },
    handler: {
      kinds: ["mcp"],
      prepare: async (invocation) => runsAsIs(() => callMcpTool(invocation, entry, source)),
    },
  };
}

async function callMcpTool(
  invocation: ToolInvocation,
  entry: McpToolEntry,
  source: McpToolSource,
): Promise<ToolOutput> {
  const { payload, turn } = invocation;
  if (payload.kind !== "mcp")
    throw ToolError.respond(`${invocation.toolName} handler received unsupported payload`);
  const args = await parseArguments(payload.rawArguments);
  const mcpInvocation: McpInvocation = {
    server: payload.server,
    tool: payload.tool,
    arguments: args ?? null,
  };
  turn.emit({ type: "mcp_tool_call_begin", call_id: invocation.callId, invocation: mcpInvocation });
  const started = performance.now();
  const end = (result: { Ok: McpCallResult } | { Err: string }) =>
    turn.emit({
      type: "mcp_tool_call_end",
      call_id: invocation.callId,
      invocation: mcpInvocation,
      duration_ms: Math.round(performance.now() - started),
      result,
    });
  // Refused calls never reach the server; the model and the item get the reason.
  const verdict = await turn.orchestrator.approveMcpCall({
    inv: invocation,
    server: payload.server,
    tool: payload.tool,
    arguments: args ?? null,
    approvalMode: entry.approvalMode,
    readOnly: entry.readOnly,
  });
  if (!verdict.allowed) {
    end({ Err: verdict.message });
    throw ToolError.respond(verdict.message);
  }
  let result: McpCallResult;
  try {
    const elicit = (request: ElicitationRequest) => turn.requestElicitation(payload.server, request);
    const progress = (message: string) =>
      turn.emit({ type: "mcp_tool_call_progress", call_id: invocation.callId, message });
    result = await source.callTool(payload.server, payload.tool, args, turn.signal, elicit, progress);
  } catch (error) {
    const message = `tool call failed for \`${payload.server}/${payload.tool}\`: ${describeMcpError(error)}`;
    end({ Err: message });
    throw ToolError.respond(message, { cause: error });
  }
  end({ Ok: result });
  return { ...renderCallResult(result), hookResponse: hookResponseOf(result) };
}

/** The result as PostToolUse hooks get it: Codex's CallToolResult, absent fields left out. */
function hookResponseOf(result: McpCallResult): Record<string, unknown> {
  return {
    content: result.content,
    ...(result.structuredContent != null ? { structuredContent: result.structuredContent } : {}),
    ...(result.isError != null ? { isError: result.isError } : {}),
  };
}

/** Empty means no arguments; otherwise a JSON object (bad JSON answers as Codex: `err: {serde}`). */
async function parseArguments(raw: string): Promise<Record<string, unknown> | undefined> {
  if (raw.trim() === "") return undefined;
  const { anyJson, ArgumentsError, parseToolArguments } = await import("./any-json.js");
  let value: unknown;
  try {
    value = parseToolArguments(raw, anyJson);
  } catch (error) {
    if (error instanceof ArgumentsError) throw ToolError.respond(`err: ${error.message}`, { cause: error });
    throw error;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw ToolError.respond("err: MCP tool arguments must be a JSON object");
  }
  return value as Record<string, unknown>;
}
