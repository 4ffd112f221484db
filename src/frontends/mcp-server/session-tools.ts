/**
 * Session tools of the MCP server, in the order tools/list shows them: listSessions,
 * deleteSession, sessionStats, status, cancel, listModels, listTools, ping, help.
 * Each answers with text content plus structuredContent matching its declared outputSchema;
 * failures are `isError` results whose structuredContent carries `error` (session-tool.ts).
 */
import { helpTool, listModelsTool, listToolsTool, pingTool } from "./info-tools.js";
import { listSessionsTool } from "./list-sessions-tool.js";
import type { ServerTool } from "./server-tool.js";
import { cancelTool, deleteSessionTool, sessionStatsTool, statusTool } from "./thread-tools.js";

/** The session tools (stateless: every server may list the same objects). */
export function sessionTools(): ServerTool[] {
  return [
    listSessionsTool,
    deleteSessionTool,
    sessionStatsTool,
    statusTool,
    cancelTool,
    listModelsTool,
    listToolsTool,
    pingTool,
    helpTool,
  ];
}
