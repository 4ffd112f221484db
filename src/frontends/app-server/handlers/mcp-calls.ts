/**
 * `mcpServer/tool/call` and `mcpServer/resource/read`: a client reaches one of a thread's MCP
 * servers directly, outside any turn, through the same connections the thread's model uses
 * (so the same processes, timeouts and tool filters).
 * Approval: the tool's `approval_mode` and `readOnlyHint` are planned against the thread's
 * approval policy and sandbox, as a model's call would be (policy/mcp-approval.ts). A call that
 * would be asked about runs, since the client asking is the one it would ask; a call the policy
 * refuses (approval needed under `never`) is refused with Codex's message. A server's
 * elicitations during the call are declined: there is no turn to route the question through.
 */
import type { McpToolEntry } from "../../../mcp/client-manager.js";
import type { McpRecord } from "../../../mcp/connection.js";
import { describeMcpError } from "../../../mcp/render.js";
import { planMcpCall } from "../../../policy/mcp-approval.js";
import type { Event } from "../../../protocol/events.js";
import type { McpDirectAccess } from "../../../tools/mcp.js";
import { checkMcpEnvironment } from "../mcp-environment.js";
import type { ParamsOf, ResultOf } from "../protocol/client-requests.js";
import { ErrorCode, RpcError } from "../protocol/jsonrpc.js";
import type { ThreadChannel } from "../thread-channel.js";
import type { HandlerContext } from "./context.js";

type ResourceContent = ResultOf<"mcpServer/resource/read">["contents"][number];

export async function mcpServerToolCall(
  params: ParamsOf<"mcpServer/tool/call">,
  context: HandlerContext,
): Promise<ResultOf<"mcpServer/tool/call">> {
  checkMcpEnvironment(params.environmentId);
  const channel = await context.runtime.open(params.threadId);
  const servers = await readyServers(channel, params.server, context.session.signal);
  const entry = servers.tools().find((tool) => tool.server === params.server && tool.tool === params.tool);
  if (!entry)
    throw RpcError.invalidParams(
      `MCP server \`${params.server}\` has no tool \`${params.tool}\` (tools: ${toolNames(servers, params.server)})`,
    );
  refuseWhenPolicyDoes(entry, channel);
  try {
    const result = await servers.callTool(
      params.server,
      params.tool,
      params.arguments ?? undefined,
      context.session.signal,
      async () => ({ action: "decline" }),
    );
    const { content, structuredContent, isError, _meta } = result;
    return {
      content,
      ...(structuredContent != null ? { structuredContent } : {}),
      isError: isError ?? false,
      ...(_meta !== undefined ? { _meta } : {}),
    };
  } catch (error) {
    throw new RpcError(
      ErrorCode.InternalError,
      `tool call failed for \`${params.server}/${params.tool}\`: ${describeMcpError(error)}`,
    );
  }
}

export async function mcpServerResourceRead(
  params: ParamsOf<"mcpServer/resource/read">,
  context: HandlerContext,
): Promise<ResultOf<"mcpServer/resource/read">> {
  checkMcpEnvironment(params.environmentId);
  if (!params.threadId) return readFromConfigured(params.server, params.uri, context);
  const channel = await context.runtime.open(params.threadId);
  const servers = await readyServers(channel, params.server, context.session.signal);
  return { contents: await read(servers, params.server, params.uri) };
}

/**
 * Without a thread: the server as the configuration declares it, started for this read alone
 * (within its startup_timeout_sec) and stopped after.
 */
async function readFromConfigured(
  server: string,
  uri: string,
  context: HandlerContext,
): Promise<ResultOf<"mcpServer/resource/read">> {
  const { enabledMcpServers } = await import("../../../config/mcp-servers.js");
  const config = context.runtime.config;
  const entry = enabledMcpServers(config.mcpServers).find(([name]) => name === server);
  if (!entry)
    throw unknownServer(
      server,
      enabledMcpServers(config.mcpServers).map(([name]) => name),
    );
  const { McpClientManager } = await import("../../../mcp/client-manager.js");
  const manager = McpClientManager.start([entry], {
    env: context.runtime.env,
    cwd: process.cwd(),
    home: config.home,
  });
  try {
    const failure = await startupFailure(manager, server, context.session.signal);
    if (failure) throw failure;
    return { contents: await read(manager, server, uri) };
  } finally {
    await manager.dispose();
  }
}

/** The thread's servers once startup is over, when `server` is one that came up. */
async function readyServers(
  channel: ThreadChannel,
  server: string,
  signal: AbortSignal,
): Promise<McpDirectAccess> {
  const startup = channel.thread?.mcpServers;
  if (!startup) throw unknownServer(server, []);
  const starting = {
    whenReady: (emit: (event: Event) => void, signal?: AbortSignal) => startup.whenReady(emit, signal),
    readyServers: () => startup.direct.readyServers(),
  };
  const failure = await startupFailure(starting, server, signal);
  if (failure) throw failure;
  return startup.direct;
}

/** Servers starting: their startup events (so far and to come) and, once over, those that came up. */
interface StartingServers {
  whenReady(emit: (event: Event) => void, signal?: AbortSignal): Promise<void>;
  readyServers(): string[];
}

/** Waits for startup; the error to answer with when `server` did not come up, else null. */
async function startupFailure(
  starting: StartingServers,
  server: string,
  signal: AbortSignal,
): Promise<RpcError | null> {
  const states = new Map<string, string>();
  await starting.whenReady((event) => {
    if (event.type !== "mcp_startup_update") return;
    const { status } = event;
    states.set(event.server, status.state === "failed" ? `failed to start: ${status.error}` : status.state);
  }, signal);
  if (starting.readyServers().includes(server)) return null;
  const state = states.get(server);
  if (state === undefined) return unknownServer(server, [...states.keys()].sort());
  return RpcError.invalidRequest(`MCP server \`${server}\` is not available (${state})`);
}

async function read(servers: Pick<McpDirectAccess, "readResource">, server: string, uri: string) {
  let records: McpRecord[];
  try {
    records = await servers.readResource(server, uri);
  } catch (error) {
    throw new RpcError(
      ErrorCode.InternalError,
      `resource read failed for \`${server}\` (${uri}): ${describeMcpError(error)}`,
    );
  }
  return records.flatMap((record): ResourceContent[] => {
    const common = {
      uri: typeof record.uri === "string" ? record.uri : uri,
      mimeType: typeof record.mimeType === "string" ? record.mimeType : null,
    };
    const meta = record._meta !== undefined ? { _meta: record._meta } : {};
    if (typeof record.text === "string") return [{ ...common, text: record.text, ...meta }];
    if (typeof record.blob === "string") return [{ ...common, blob: record.blob, ...meta }];
    return [];
  });
}

/** Refused before reaching the server, as a model's call would be under the thread's policy. */
function refuseWhenPolicyDoes(entry: McpToolEntry, channel: ThreadChannel): void {
  const plan = planMcpCall({
    approvalMode: entry.approvalMode,
    readOnly: entry.readOnly,
    approvalPolicy: channel.settings.approvalPolicy,
    sandboxMode: channel.settings.sandbox.mode,
  });
  if (plan.action === "reject") throw RpcError.invalidRequest(plan.message);
}

function unknownServer(server: string, known: string[]): RpcError {
  const list = known.length > 0 ? known.map((name) => `\`${name}\``).join(", ") : "none";
  return RpcError.invalidParams(`unknown MCP server \`${server}\` (configured: ${list})`);
}

function toolNames(servers: McpDirectAccess, server: string): string {
  const names = servers
    .tools()
    .filter((tool) => tool.server === server)
    .map((tool) => `\`${tool.tool}\``);
  return names.length > 0 ? names.join(", ") : "none";
}
