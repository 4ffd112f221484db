/**
 * Tool specs as the Responses API takes them. The chat wire serializes the function
 * ones and drops the rest (see model/chat.ts).
 */

export type JsonSchema = { [key: string]: unknown };

export interface FunctionToolSpec {
  type: "function";
  name: string;
  description: string;
  strict: boolean;
  parameters: JsonSchema;
}

export interface CustomToolSpec {
  type: "custom";
  name: string;
  description: string;
  format: { type: "grammar"; syntax: "lark" | "regex"; definition: string } | { type: "text" };
}

export interface LocalShellToolSpec {
  type: "local_shell";
}

export interface WebSearchToolSpec {
  type: "web_search";
  external_web_access?: boolean;
}

export type ToolSpec = FunctionToolSpec | CustomToolSpec | LocalShellToolSpec | WebSearchToolSpec;

export function toolSpecName(spec: ToolSpec): string {
  return spec.type === "function" || spec.type === "custom" ? spec.name : spec.type;
}
