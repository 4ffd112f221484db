/**
 * The zod schemas of client tools' shapes (client-tools.ts), for the boundaries that check what
 * a client or a rollout file sends. Apart so the types and helpers there load no zod.
 */
import { z } from "zod";

export const clientToolSpecSchema = z.object({
  name: z
    .string()
    .min(1)
    .max(128)
    .regex(/^[a-zA-Z0-9_-]+$/, "letters, digits, `_` and `-` only"),
  description: z.string().default(""),
  /** Any JSON Schema; sanitized before the model sees it. */
  inputSchema: z.record(z.string(), z.unknown()).default({ type: "object", properties: {} }),
});

export type ClientToolSpec = z.output<typeof clientToolSpecSchema>;

export const clientToolContentItemSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("inputText"), text: z.string() }),
  z.object({ type: z.literal("inputImage"), imageUrl: z.string() }),
]);

export type ClientToolContentItem = z.output<typeof clientToolContentItemSchema>;

export const clientToolResultSchema = z.object({
  contentItems: z.array(clientToolContentItemSchema),
  success: z.boolean(),
});

/** The client's answer to one call. `success: false` is shown to the model. */
export type ClientToolResult = z.output<typeof clientToolResultSchema>;
