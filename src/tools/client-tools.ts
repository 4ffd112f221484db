/**
 * Client tools as tscodex tools: one function tool per ClientToolSpec, with the same schema
 * repair MCP tools get. One handler serves them all: it checks the arguments are JSON (bad JSON
 * goes back to the model and never reaches the client), asks the front-end through the turn
 * (`callClientTool`, bounded by the thread), and turns the client's answer into the call's
 * output: text items joined, images attached after the outputs (as view_image does), and a
 * failed call marked so the model can tell.
 */
import { sanitizeInputSchema } from "../mcp/schema-sanitizer.js";
import type { ClientToolResult, ClientToolSpec } from "../protocol/client-tools.js";
import type { InputContent } from "../protocol/items.js";
import { runsAsIs, type ToolDefinition, type ToolHandler, type ToolOutput } from "./types.js";

/** Put before the text of a call the client reported as failed. */
export const CLIENT_TOOL_FAILED_MARKER = "The client reported that this tool call failed:\n";

/** The function tools for a set of client tools. */
export function clientToolDefinitions(specs: readonly ClientToolSpec[]): ToolDefinition[] {
  return specs.map((spec) => ({
    spec: {
      type: "function",
      name: spec.name,
      description: spec.description,
      strict: false,
      parameters: sanitizeInputSchema(spec.inputSchema),
    },
    // The client runs them; it may not expect overlapping calls (Codex treats them as mutating).
    supportsParallel: false,
    clientTool: true,
    handler,
  }));
}

// No approval: the client that offers a tool has consented to its calls. Calls never overlap
// (supportsParallel is false), as Codex runs dynamic tools as mutating calls.
const handler: ToolHandler = {
  kinds: ["function"],
  async prepare(invocation) {
    const { payload, turn, callId, toolName } = invocation;
    const empty = payload.kind === "function" && payload.arguments.trim() === "";
    let args: unknown = {};
    if (!empty) {
      // Loaded on the first call (with zod): threads whose client tools go uncalled skip it.
      const { anyJson, parseFunctionArguments } = await import("./any-json.js");
      args = parseFunctionArguments(toolName, invocation, anyJson);
    }
    return runsAsIs(async () =>
      toToolOutput(await turn.callClientTool({ callId, tool: toolName, arguments: args })),
    );
  },
};

/** The model's view of a client's answer. */
export function toToolOutput(result: ClientToolResult): ToolOutput {
  const texts: string[] = [];
  const images: InputContent[] = [];
  for (const item of result.contentItems) {
    if (item.type === "inputText") texts.push(item.text);
    else images.push({ type: "input_image", image_url: item.imageUrl });
  }
  let text = texts.join("\n");
  if (text === "" && images.length > 0) text = `${images.length} image(s) attached`;
  if (!result.success) text = CLIENT_TOOL_FAILED_MARKER + text;
  return { content: text, success: result.success, ...(images.length > 0 ? { followUp: images } : {}) };
}
