/**
 * A tools/call result at the boundary, validated with zod (a server may send anything). Apart
 * from render.ts so rendering, which every thread's MCP tool definitions import, needs no zod:
 * only a connection to a server (connection.ts) loads this.
 */
import { z } from "zod";

const contentBlockSchema = z.looseObject({ type: z.string() });

/** A tools/call result, checked. Unknown content kinds and fields pass through. */
export const callToolResultSchema = z.looseObject({
  content: z.array(contentBlockSchema).default([]),
  structuredContent: z.record(z.string(), z.unknown()).nullish(),
  isError: z.boolean().nullish(),
});

export type McpContentBlock = z.infer<typeof contentBlockSchema>;
export type McpCallResult = z.infer<typeof callToolResultSchema>;
