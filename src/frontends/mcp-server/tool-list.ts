/**
 * tools/list's entries. The stdio server answers tools/list before its tools' modules (and zod's
 * schema conversion) are loaded: the build computes the list once into built-tool-list.ts;
 * from source it is computed here.
 */
import { builtToolList, type ListedTool } from "./built-tool-list.js";
import type { ServerTool } from "./server-tool.js";

export type { ListedTool } from "./built-tool-list.js";

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
  if (builtToolList) return builtToolList;
  const { serverTools } = await import("./tools.js");
  return serverTools().map(listEntry);
}
