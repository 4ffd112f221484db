/**
 * `web_search`: the provider's own search tool, `{"type":"web_search","external_web_access"}`
 * on the Responses wire. The provider runs the searches; they come back as `web_search_call`
 * items, which the turn loop turns into web_search_begin/end events. There is nothing to run
 * here: a function call by that name is answered like any unknown tool.
 */
import type { ToolDefinition } from "../types.js";
import { ToolError } from "../types.js";

/** The web_search tool; `live` false asks for cached results only (`web_search_cached`). */
export function webSearchTool(options: { live: boolean }): ToolDefinition {
  return {
    spec: { type: "web_search", external_web_access: options.live },
    supportsParallel: true,
    handler: {
      kinds: ["function", "custom", "local_shell", "mcp"],
      prepare: async (invocation) => {
        throw ToolError.respond(`unsupported call: ${invocation.toolName}`);
      },
    },
  };
}
