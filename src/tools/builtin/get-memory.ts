/**
 * `get_memory {id}`: the whole text of one memory whose summary the prompt listed (see
 * prompt/memories.ts). Offered when the thread has memories. Read at call time, so an edit
 * made meanwhile is what the model gets.
 */
import { z } from "zod";
import { readMemory } from "../../prompt/memories.js";
import { defineFunctionTool } from "../define-tool.js";
import { type ToolDefinition, ToolError } from "../types.js";

export function getMemoryTool(options: { home: string }): ToolDefinition {
  return defineFunctionTool({
    name: "get_memory",
    description:
      "Load a memory (a note kept from earlier work) by the id listed in <memories>, when its summary is relevant.",
    parameters: z.object({ id: z.string().describe("The memory's id, as listed.") }),
    supportsParallel: true,
    handle: async (args, inv) => {
      const found = await readMemory(options.home, inv.turn.cwd, args.id);
      if (!found) throw ToolError.respond(`no memory with id '${args.id}'`);
      return { content: found.text };
    },
  });
}
