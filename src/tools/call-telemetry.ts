/**
 * One tool call as telemetry sees it (only with `[otel]`): where the tool comes from, and a
 * decision reported once (policy's, a hook's or a person's; else the call ran by configuration).
 */
import type { ResponseItem, ToolCallItem } from "../protocol/items.js";
import type { ToolDecisionSource, ToolOrigin, ToolTelemetry, TurnTelemetry } from "../protocol/telemetry.js";
import type { ToolDefinition } from "./types.js";

type Decision = Parameters<ToolTelemetry["decision"]>[0];

/** `name`: the tool's name as the router looks it up. */
export function observeCall(
  turn: TurnTelemetry,
  call: ToolCallItem,
  name: string,
  definition: ToolDefinition | undefined,
): ToolTelemetry {
  const origin: ToolOrigin = definition?.mcpTool ? "mcp" : definition?.clientTool ? "client" : "builtin";
  const tool = turn.toolCall({
    name,
    callId: call.call_id,
    origin,
    mcpServer: definition?.mcpTool?.server,
    arguments: argumentsOf(call),
  });
  let decided = false;
  return {
    carrier: () => tool.carrier(),
    decision(decision: Decision, source: ToolDecisionSource) {
      if (decided) return;
      decided = true;
      tool.decision(decision, source);
    },
    end: (info) => tool.end(info),
  };
}

function argumentsOf(call: ToolCallItem): string {
  switch (call.type) {
    case "function_call":
      return call.arguments;
    case "custom_tool_call":
      return call.input;
    case "local_shell_call":
      return JSON.stringify(call.action);
  }
}

/** The text of a call's output item, as the model reads it. */
export function outputText(item: ResponseItem): string {
  if (item.type === "custom_tool_call_output") return item.output;
  if (item.type !== "function_call_output") return "";
  const { output } = item;
  if (typeof output === "string") return output;
  return output.map((part) => (part.type === "input_text" ? part.text : "")).join("");
}
