/**
 * Tool results of the MCP server (the MCP CallToolResult shape) and the few ways tools build
 * them. A tool never throws for a task failure: it returns `isError: true` with a clear text.
 */
import type { Page } from "./pagination.js";

/** Fields of a result's structuredContent. */
export type Structured = Record<string, unknown>;

/** The MCP CallToolResult shape (content + optional structuredContent). */
export interface ServerToolResult {
  content: ({ type: "text"; text: string } | { type: "image"; data: string; mimeType: string })[];
  structuredContent?: Structured;
  isError?: boolean;
}

/** A result whose text is `text` and whose structuredContent is `structured`. */
export function ok(text: string, structured: Structured): ServerToolResult {
  return { content: [{ type: "text", text }], structuredContent: structured };
}

/** An isError result whose structuredContent is `structured` plus `error: text`. */
export function fail(text: string, structured: Structured): ServerToolResult {
  return {
    content: [{ type: "text", text }],
    structuredContent: { ...structured, error: text },
    isError: true,
  };
}

/** An isError result that belongs to no thread (no structuredContent). */
export function plainError(text: string): ServerToolResult {
  return { content: [{ type: "text", text }], isError: true };
}

/** A codex result for thread `threadId` whose text is `text`. */
export function threadResult(threadId: string, text: string, isError = false): ServerToolResult {
  return {
    content: [{ type: "text", text }],
    structuredContent: { threadId, content: text },
    ...(isError ? { isError: true } : {}),
  };
}

/** A codex result holding one page of an answer; a further page is announced in the text. */
export function pagedResult(threadId: string, page: Page): ServerToolResult {
  if (!page.nextPageToken) return threadResult(threadId, page.text);
  const note = `\n\n[Result continues: call codex with pageToken "${page.nextPageToken}" for the next page.]`;
  return {
    content: [{ type: "text", text: page.text + note }],
    structuredContent: { threadId, content: page.text, nextPageToken: page.nextPageToken },
  };
}

/** The text parts of a result, joined by newlines. */
export function resultText(result: ServerToolResult): string {
  return result.content.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("\n");
}
