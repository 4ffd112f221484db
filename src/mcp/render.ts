/**
 * MCP results (validated at the boundary by call-result.ts) rendered for the model as Codex does
 * (reference section 3) — structuredContent as its JSON, a result with images as an
 * input_text/input_image array, otherwise the content array as JSON with keys sorted — except
 * where Codex is wrong: an `isError` result starts with a marker, and a JSON-RPC error is one
 * clean line.
 */
import type { InputContent } from "../protocol/items.js";
import type { McpCallResult, McpContentBlock } from "./call-result.js";

export type { McpCallResult, McpContentBlock } from "./call-result.js";

/** What the model reads before an error result's content (tscodex; Codex shows nothing). */
export const TOOL_ERROR_MARKER = "MCP tool reported an error:\n";

/** `value` as JSON with every object's keys sorted (Codex serializes through sorted maps). */
export function sortedJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

/** A copy of `value` whose objects have their keys in sorted order. */
export function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (typeof value !== "object" || value === null) return value;
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort())
    sorted[key] = sortKeys((value as Record<string, unknown>)[key]);
  return sorted;
}

/** The model's output for a tools/call result, and whether the tool succeeded. */
export function renderCallResult(result: McpCallResult): {
  content: string | InputContent[];
  success: boolean;
} {
  const failed = result.isError === true;
  if (result.structuredContent) {
    const text = sortedJson(result.structuredContent);
    return { content: failed ? TOOL_ERROR_MARKER + text : text, success: !failed };
  }
  if (result.content.some((block) => block.type === "image")) {
    const parts = result.content.map(toInputContent);
    const marker: InputContent[] = failed ? [{ type: "input_text", text: TOOL_ERROR_MARKER.trimEnd() }] : [];
    return { content: [...marker, ...parts], success: !failed };
  }
  const text = sortedJson(result.content);
  return { content: failed ? TOOL_ERROR_MARKER + text : text, success: !failed };
}

function toInputContent(block: McpContentBlock): InputContent {
  if (block.type === "text" && typeof block.text === "string")
    return { type: "input_text", text: block.text };
  if (block.type === "image" && typeof block.data === "string") {
    const mime = typeof block.mimeType === "string" ? block.mimeType : "image/png";
    return { type: "input_image", image_url: `data:${mime};base64,${block.data}` };
  }
  return { type: "input_text", text: sortedJson(block) };
}

/**
 * A failure as one line: JSON-RPC errors as `Mcp error: {code}: {message}`, anything else by its
 * message; never a stack.
 */
export function describeMcpError(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    if (typeof code === "number") {
      // The SDK's McpError message is "MCP error {code}: {message}"; keep just the message.
      const message = error.message.replace(/^MCP error -?\d+: /, "");
      return oneLine(`Mcp error: ${code}: ${message}`);
    }
    return oneLine(error.message);
  }
  return oneLine(String(error));
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, " ").trim();
}
