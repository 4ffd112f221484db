/** The tools the MCP server serves, in tools/list order: codex, codex-reply, then the session tools. */
import { codexReplyTool } from "./codex-reply-tool.js";
import { codexTool } from "./codex-tool.js";
import type { ServerTool } from "./server-tool.js";
import { sessionTools } from "./session-tools.js";

/** Every served tool (a fresh list per server: tools hold no per-connection state). */
export function serverTools(): ServerTool[] {
  return [codexTool(), codexReplyTool(), ...sessionTools()];
}
