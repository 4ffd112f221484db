/**
 * What the MCP server says of itself in its initialize result, shared by the SDK server
 * (server.ts) and the stdio transport's early answers (early-answers.ts), which must agree.
 */
import { VERSION } from "../../version.js";

export const SERVER_INFO = { name: "tscodex-mcp-server", title: "tscodex", version: VERSION };

export const SERVER_CAPABILITIES = { tools: { listChanged: true }, logging: {} };
