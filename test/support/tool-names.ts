/**
 * The tool names an exec request offers the model, in the order they are sent, as the
 * end-to-end tests expect them (`FakeModelServer` requests' `toolNames`).
 */

/** The MCP resource tools: always offered, right after the shell tool(s). */
export const MCP_RESOURCE_TOOLS: readonly string[] = [
  "list_mcp_resources",
  "list_mcp_resource_templates",
  "read_mcp_resource",
];

/** What every default request starts with: shell_command, the MCP resource tools, update_plan, apply_patch. */
export const BASE_TOOLS: readonly string[] = [
  "shell_command",
  ...MCP_RESOURCE_TOOLS,
  "update_plan",
  "apply_patch",
];

/** The whole tool list of a default request (Responses and Chat alike): the base tools, then view_image. */
export const DEFAULT_TOOLS: readonly string[] = [...BASE_TOOLS, "view_image"];
