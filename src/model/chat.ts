/**
 * The Chat Completions wire (`POST {base}/chat/completions`, SSE of chat.completion.chunk).
 * The history is translated to chat messages (reference section 1, "Chat wire"); the streamed
 * deltas are assembled back into ResponseItems so the turn loop sees the same events as on the
 * Responses wire.
 *
 * Translation choices: reasoning and web_search_call items are dropped; custom tool calls and
 * local_shell calls become function tool calls (a tool message must follow a matching tool call,
 * so a call cannot be dropped while its output stays). Only function tools are offered.
 */
import {
  type InputContent,
  type MessageItem,
  messageText,
  type ResponseItem,
  type TokenUsage,
} from "../protocol/items.js";
import type { ToolSpec } from "../protocol/tool-spec.js";
import { commonHeaders, endpointUrl, type WireRequest } from "./http.js";
import {
  isObject,
  type JsonObject,
  numberField,
  objectField,
  parseJsonObject,
  type SseMessage,
  stringField,
} from "./sse.js";
import {
  type ModelClientConfig,
  ModelError,
  OUTPUT_SCHEMA_NAME,
  type Prompt,
  type ResponseEvent,
} from "./types.js";

/** The request for `POST {base}/chat/completions`: only model, messages, stream and tools. */
export function buildChatRequest(prompt: Prompt, config: ModelClientConfig): WireRequest {
  const { provider, identity } = config;
  const settings = prompt.settings ?? config.settings;
  const body: JsonObject = {
    model: settings.model,
    messages: toChatMessages(prompt.instructions, prompt.input),
    stream: true,
  };
  if (prompt.outputSchema) {
    body.response_format = {
      type: "json_schema",
      json_schema: {
        name: OUTPUT_SCHEMA_NAME,
        schema: prompt.outputSchema as JsonObject,
        strict: prompt.outputSchemaStrict ?? true,
      },
    };
  }
  // OpenAI rejects `tools: []`, so an empty list is left out.
  const tools = toChatTools(prompt.tools);
  if (tools.length > 0) body.tools = tools;
  return {
    url: endpointUrl(provider, "/chat/completions"),
    headers: commonHeaders(provider, identity),
    body: JSON.stringify(body),
  };
}

/** `{"type":"function","name":N,"function":{...}}`: the name twice, as Codex sends it. */
export function toChatTools(tools: ToolSpec[]): JsonObject[] {
  const out: JsonObject[] = [];
  for (const tool of tools) {
    if (tool.type !== "function") continue;
    const { name, description, strict, parameters } = tool;
    out.push({ type: "function", name, function: { name, description, strict, parameters } });
  }
  return out;
}

/** The system message (instructions), then the history translated item by item. */
export function toChatMessages(instructions: string, items: ResponseItem[]): JsonObject[] {
  const messages: JsonObject[] = [{ role: "system", content: instructions }];
  for (const item of items) {
    switch (item.type) {
      case "message":
        messages.push({ role: item.role, content: messageContent(item) });
        break;
      case "function_call":
        pushToolCall(messages, item.call_id, item.name, item.arguments);
        break;
      case "custom_tool_call":
        pushToolCall(messages, item.call_id, item.name, JSON.stringify({ input: item.input }));
        break;
      case "local_shell_call":
        pushToolCall(messages, item.call_id, "local_shell", JSON.stringify(item.action));
        break;
      case "function_call_output":
      case "custom_tool_call_output": {
        const content = typeof item.output === "string" ? item.output : contentParts(item.output);
        messages.push({ role: "tool", tool_call_id: item.call_id, content });
        break;
      }
      case "reasoning":
      case "web_search_call":
        break;
    }
  }
  return messages;
}

/** Consecutive calls (one response's parallel calls) share one assistant message. */
function pushToolCall(messages: JsonObject[], id: string, name: string, args: string): void {
  const call = { id, type: "function", function: { name, arguments: args } };
  const last = messages.at(-1);
  if (last?.role === "assistant" && last.content === null && Array.isArray(last.tool_calls)) {
    last.tool_calls.push(call);
    return;
  }
  messages.push({ role: "assistant", content: null, tool_calls: [call] });
}

/** String content (text parts joined); a parts array only when the message carries images. */
function messageContent(item: MessageItem): string | JsonObject[] {
  if (item.content.some((part) => part.type === "input_image")) return contentParts(item.content);
  return messageText(item);
}

function contentParts(parts: MessageItem["content"] | InputContent[]): JsonObject[] {
  return parts.map((part) =>
    part.type === "input_image"
      ? { type: "image_url", image_url: { url: part.image_url } }
      : { type: "text", text: part.text },
  );
}

interface PendingCall {
  id: string;
  name: string;
  arguments: string;
}

/**
 * Maps one attempt's chunks to ResponseEvents. Deltas stream as they come; at the end
 * (`[DONE]`, or the body ending after a finish_reason) the reasoning, the assistant message and
 * the assembled tool calls are emitted as `output_item_done`, in that order, then `completed`.
 * A body that ends with neither yields no `completed` (the client retries it). An `error`
 * chunk throws a "stream" ModelError.
 */
export async function* mapChatStream(messages: AsyncIterable<SseMessage>): AsyncGenerator<ResponseEvent> {
  let responseId: string | undefined;
  let model: string | undefined;
  let text: string | undefined;
  let reasoning: string | undefined;
  let usage: TokenUsage | null = null;
  let finished = false;
  const calls = new Map<number, PendingCall>();

  for await (const message of messages) {
    if (message.data.trim() === "[DONE]") {
      finished = true;
      break;
    }
    const chunk = parseJsonObject(message.data);
    if (!chunk) continue;
    const error = objectField(chunk, "error");
    if (error) {
      const code = stringField(error, "code") ?? stringField(error, "type");
      const text = stringField(error, "message") ?? "error chunk received";
      throw new ModelError(text, "stream", undefined, code === undefined ? {} : { code });
    }
    responseId ??= stringField(chunk, "id");
    model ??= stringField(chunk, "model");
    const usageObject = objectField(chunk, "usage");
    if (usageObject) usage = parseChatUsage(usageObject);
    const choice = Array.isArray(chunk.choices) ? chunk.choices[0] : undefined;
    if (!isObject(choice)) continue;
    const delta = objectField(choice, "delta");
    if (delta) {
      const thought = reasoningDelta(delta);
      if (thought) {
        if (reasoning === undefined) yield { type: "output_item_added", item: reasoningItem("") };
        reasoning = (reasoning ?? "") + thought;
        yield { type: "reasoning_content_delta", delta: thought };
      }
      const content = stringField(delta, "content");
      if (content) {
        if (text === undefined) yield { type: "output_item_added", item: assistantMessage("") };
        text = (text ?? "") + content;
        yield { type: "output_text_delta", delta: content };
      }
      if (Array.isArray(delta.tool_calls)) collectToolCalls(calls, delta.tool_calls);
    }
    // Keep reading after finish_reason: the usage chunk and [DONE] follow it.
    if (stringField(choice, "finish_reason")) finished = true;
  }
  if (!finished) return;

  if (reasoning !== undefined) yield { type: "output_item_done", item: reasoningItem(reasoning) };
  if (text !== undefined) yield { type: "output_item_done", item: assistantMessage(text) };
  for (const index of [...calls.keys()].sort((a, b) => a - b)) {
    const call = calls.get(index);
    if (!call) continue;
    // Some local servers omit call ids; the history still needs one to pair the output with.
    const callId = call.id || `call_${randomId()}`;
    const item: ResponseItem = {
      type: "function_call",
      name: call.name,
      arguments: call.arguments,
      call_id: callId,
    };
    yield { type: "output_item_done", item };
  }
  const id = responseId ?? `chatcmpl-${randomId()}`;
  yield { type: "completed", responseId: id, usage, ...(model ? { model } : {}) };
}

function collectToolCalls(calls: Map<number, PendingCall>, deltas: unknown[]): void {
  deltas.forEach((delta, position) => {
    if (!isObject(delta)) return;
    const index = numberField(delta, "index") ?? position;
    let call = calls.get(index);
    if (!call) {
      call = { id: "", name: "", arguments: "" };
      calls.set(index, call);
    }
    const id = stringField(delta, "id");
    if (id && !call.id) call.id = id;
    const fn = objectField(delta, "function");
    if (!fn) return;
    const name = stringField(fn, "name");
    if (name && !call.name) call.name = name;
    const args = fn.arguments;
    // Some local servers send the arguments as an object instead of a JSON string.
    if (typeof args === "string") call.arguments += args;
    else if (isObject(args)) call.arguments += JSON.stringify(args);
  });
}

/** `reasoning` (OpenRouter, Ollama, gpt-oss) or `reasoning_content` (DeepSeek, vLLM). */
function reasoningDelta(delta: JsonObject): string | undefined {
  const value = delta.reasoning ?? delta.reasoning_content;
  if (typeof value === "string") return value;
  if (isObject(value)) return stringField(value, "text") ?? stringField(value, "content");
  return undefined;
}

function parseChatUsage(usage: JsonObject): TokenUsage {
  const input = numberField(usage, "prompt_tokens") ?? 0;
  const output = numberField(usage, "completion_tokens") ?? 0;
  const promptDetails = objectField(usage, "prompt_tokens_details");
  const completionDetails = objectField(usage, "completion_tokens_details");
  return {
    input_tokens: input,
    cached_input_tokens: (promptDetails && numberField(promptDetails, "cached_tokens")) ?? 0,
    output_tokens: output,
    reasoning_output_tokens: (completionDetails && numberField(completionDetails, "reasoning_tokens")) ?? 0,
    total_tokens: numberField(usage, "total_tokens") ?? input + output,
  };
}

function assistantMessage(text: string): MessageItem {
  return { type: "message", role: "assistant", content: text ? [{ type: "output_text", text }] : [] };
}

function reasoningItem(text: string): ResponseItem {
  return { type: "reasoning", summary: [], content: text ? [{ type: "reasoning_text", text }] : [] };
}

function randomId(): string {
  return Math.random().toString(36).slice(2, 12);
}
