/**
 * `mcpServer/startupStatus/updated`: as a thread's configured MCP servers start, fail or come up
 * (the core's `mcp_startup_update` events), the client that opened the thread is told, each
 * state once per server. A client that opens a thread whose servers already started hears the
 * states so far (the startup replays them), so it always learns where each server stands.
 */
import type { McpStartupStatus } from "../../protocol/events.js";
import type { Thread } from "../../session/thread.js";
import type { SessionHandle } from "./handlers/context.js";
import { encodeNotification } from "./protocol/jsonrpc.js";
import type { NotificationParams } from "./protocol/server-messages.js";

/** Tell `session` how `thread`'s MCP servers start, until startup is over or the client leaves. */
export function reportMcpStartup(thread: Thread, session: SessionHandle): void {
  const servers = thread.mcpServers;
  if (!servers) return;
  void servers.whenReady((event) => {
    if (event.type !== "mcp_startup_update") return;
    session.send(
      encodeNotification("mcpServer/startupStatus/updated", statusOf(thread.id, event.server, event.status)),
    );
  }, session.signal);
}

function statusOf(
  threadId: string,
  name: string,
  status: McpStartupStatus,
): NotificationParams<"mcpServer/startupStatus/updated"> {
  return {
    threadId,
    name,
    status: status.state,
    error: status.state === "failed" ? status.error : null,
    environmentId: null,
  };
}
