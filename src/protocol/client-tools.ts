/**
 * Client tools (Codex's "dynamic tools"): tools a front-end's client brings, run by the client.
 * The model sees each as a function tool; a call becomes a request event the front-end answers
 * with a ClientToolResult. Shapes follow Codex's app-server (`dynamicTools`, `item/tool/call`).
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

/** A failed result carrying one line of text (timeouts, client errors). */
export function failedClientResult(text: string): ClientToolResult {
  return { contentItems: [{ type: "inputText", text }], success: false };
}
