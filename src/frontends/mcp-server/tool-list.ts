/**
 * tools/list's entries. The stdio server answers tools/list before its tools' modules (and zod's
 * schema conversion) are loaded: scripts/build.mjs computes the default list once and writes it
 * into BUILT_TOOL_LIST below in the bundle; from source (tests) it is computed on first use.
 */
import type { ServerTool } from "./server-tool.js";

/** One tool as tools/list shows it. */
export interface ListedTool {
  name: string;
  title?: string;
  description: string;
  inputSchema: { type: "object"; [key: string]: unknown };
  outputSchema?: { type: "object"; [key: string]: unknown };
}

// The build replaces this line (and only it) with the computed list.
const BUILT_TOOL_LIST: readonly ListedTool[] | undefined = undefined;

/** One tool as tools/list shows it. */
export function listEntry(tool: ServerTool): ListedTool {
  return {
    name: tool.name,
    ...(tool.title ? { title: tool.title } : {}),
    description: tool.description,
    inputSchema: tool.inputSchema,
    ...(tool.outputSchema ? { outputSchema: tool.outputSchema } : {}),
  };
}

/** The default tools' entries (serverTools()), as built into the bundle or computed now. */
export async function defaultToolList(): Promise<readonly ListedTool[]> {
  if (BUILT_TOOL_LIST) return BUILT_TOOL_LIST;
  const { serverTools } = await import("./tools.js");
  return serverTools().map(listEntry);
}
