/**
 * Client tools (Codex's "dynamic tools"): tools a front-end's client brings, run by the client.
 * The model sees each as a function tool; a call becomes a request event the front-end answers
 * with a ClientToolResult. Shapes follow Codex's app-server (`dynamicTools`, `item/tool/call`).
 * The shapes' zod schemas are in client-tools-schema.ts.
 */
import type { ClientToolResult } from "./client-tools-schema.js";

export type { ClientToolContentItem, ClientToolResult, ClientToolSpec } from "./client-tools-schema.js";

/** A failed result carrying one line of text (timeouts, client errors). */
export function failedClientResult(text: string): ClientToolResult {
  return { contentItems: [{ type: "inputText", text }], success: false };
}
