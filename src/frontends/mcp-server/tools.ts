/** The tools the MCP server serves, in tools/list order: codex, codex-reply, review, then the session tools. */
import { codexReplyTool } from "./codex-reply-tool.js";
import { codexTool } from "./codex-tool.js";
import { reviewTool } from "./review-tool.js";
import type { ServerTool } from "./server-tool.js";
import { sessionTools } from "./session-tools.js";

/** Every served tool (tools hold no state: what a server keeps is on its runtime). */
export function serverTools(): ServerTool[] {
  return [codexTool, codexReplyTool, reviewTool, ...sessionTools()];
}
