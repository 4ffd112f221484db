/**
 * Response items: the conversation history as the Responses API sees it.
 * Everything the model said, every tool call and every tool output is one of these;
 * the chat wire is a translation of the same list.
 */

export type InputContent = { type: "input_text"; text: string } | { type: "input_image"; image_url: string };

export type OutputContent = { type: "output_text"; text: string };

export type MessageContent = InputContent | OutputContent;

export type Role = "user" | "assistant" | "developer" | "system";

export interface MessageItem {
  type: "message";
  role: Role;
  content: MessageContent[];
  id?: string;
}

export interface ReasoningItem {
  type: "reasoning";
  id?: string;
  summary: { type: "summary_text"; text: string }[];
  content?: { type: "reasoning_text" | "text"; text: string }[] | null;
  encrypted_content?: string | null;
}

export interface FunctionCallItem {
  type: "function_call";
  name: string;
  arguments: string;
  call_id: string;
  id?: string;
}

export interface CustomToolCallItem {
  type: "custom_tool_call";
  name: string;
  input: string;
  call_id: string;
  id?: string;
}

export interface LocalShellAction {
  type: "exec";
  command: string[];
  timeout_ms?: number | null;
  working_directory?: string | null;
  env?: Record<string, string> | null;
  user?: string | null;
}

export interface LocalShellCallItem {
  type: "local_shell_call";
  call_id: string;
  status: "in_progress" | "completed" | "incomplete";
  action: LocalShellAction;
  id?: string;
}

export interface WebSearchCallItem {
  type: "web_search_call";
  id?: string;
  status?: string;
  action?: { type: string; query?: string };
}

/** What a tool sends back: plain text, or content items (text and images) for richer results. */
export type FunctionCallOutputPayload = string | InputContent[];

export interface FunctionCallOutputItem {
  type: "function_call_output";
  call_id: string;
  output: FunctionCallOutputPayload;
}

export interface CustomToolCallOutputItem {
  type: "custom_tool_call_output";
  call_id: string;
  output: string;
}

export type ResponseItem =
  | MessageItem
  | ReasoningItem
  | FunctionCallItem
  | CustomToolCallItem
  | LocalShellCallItem
  | WebSearchCallItem
  | FunctionCallOutputItem
  | CustomToolCallOutputItem;

export type ToolCallItem = FunctionCallItem | CustomToolCallItem | LocalShellCallItem;

export function isToolCall(item: ResponseItem): item is ToolCallItem {
  return (
    item.type === "function_call" || item.type === "custom_tool_call" || item.type === "local_shell_call"
  );
}

export function userMessage(text: string, images: string[] = []): MessageItem {
  const content: InputContent[] = [{ type: "input_text", text }];
  for (const url of images) content.push({ type: "input_image", image_url: url });
  return { type: "message", role: "user", content };
}

export function developerMessage(text: string): MessageItem {
  return { type: "message", role: "developer", content: [{ type: "input_text", text }] };
}

/** Concatenated text of a message's content parts. */
export function messageText(item: MessageItem): string {
  let text = "";
  for (const part of item.content) if (part.type !== "input_image") text += part.text;
  return text;
}

/** Token usage as reported by the API (both wires are mapped onto this). */
export interface TokenUsage {
  input_tokens: number;
  cached_input_tokens: number;
  output_tokens: number;
  reasoning_output_tokens: number;
  total_tokens: number;
}

export function emptyUsage(): TokenUsage {
  return {
    input_tokens: 0,
    cached_input_tokens: 0,
    output_tokens: 0,
    reasoning_output_tokens: 0,
    total_tokens: 0,
  };
}

export function addUsage(a: TokenUsage, b: TokenUsage): TokenUsage {
  return {
    input_tokens: a.input_tokens + b.input_tokens,
    cached_input_tokens: a.cached_input_tokens + b.cached_input_tokens,
    output_tokens: a.output_tokens + b.output_tokens,
    reasoning_output_tokens: a.reasoning_output_tokens + b.reasoning_output_tokens,
    total_tokens: a.total_tokens + b.total_tokens,
  };
}
