/**
 * tools/list's entries. The stdio server answers tools/list before its tools' modules (and zod's
 * schema conversion) are loaded: the build computes the list once into built-tool-list.ts;
 * from source it is computed here.
 */
import { builtToolList } from "./built-tool-list.js";
import type { ServerTool } from "./server-tool.js";

/** One tool as tools/list shows it. */
export function listEntry(tool: ServerTool) {
  return {
    name: tool.name,
    ...(tool.title ? { title: tool.title } : {}),
    description: tool.description,
    inputSchema: tool.inputSchema,
    ...(tool.outputSchema ? { outputSchema: tool.outputSchema } : {}),
  };
}

/** A tools/list entry as JSON. */
export type ListedTool = ReturnType<typeof listEntry>;

/** The default tools' entries (serverTools()), as built into the bundle or computed now. */
export async function defaultToolList(): Promise<readonly ListedTool[]> {
  if (builtToolList) return builtToolList;
  const { serverTools } = await import("./tools.js");
  return serverTools().map(listEntry);
}
