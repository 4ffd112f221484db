/**
 * The Responses API wire (`POST {base}/responses`, SSE). Request layout and header set follow
 * reference section 1 exactly; history items go back without their `id`, as Codex sends them.
 */
import type { ResponseItem, Role, TokenUsage } from "../protocol/items.js";
import { commonHeaders, endpointUrl, retryAfterFromMessage, type WireRequest } from "./http.js";
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

/** The request for `POST {base}/responses`: body fields in Codex's order, SSE headers. */
export function buildResponsesRequest(prompt: Prompt, config: ModelClientConfig): WireRequest {
  const { provider, identity } = config;
  const settings = prompt.settings ?? config.settings;
  const body: JsonObject = {
    model: settings.model,
    instructions: prompt.instructions,
    input: prompt.input.map(toWireItem),
    tools: prompt.tools,
    tool_choice: "auto",
    parallel_tool_calls: prompt.parallelToolCalls,
    reasoning: settings.reasoning,
    store: false,
    stream: true,
    include: settings.include,
    prompt_cache_key: identity.sessionId,
  };
  const text: JsonObject = {};
  if (settings.textVerbosity !== undefined) text.verbosity = settings.textVerbosity;
  if (prompt.outputSchema) text.format = outputFormat(prompt.outputSchema, prompt.outputSchemaStrict);
  if (Object.keys(text).length > 0) body.text = text;
  const headers = { "x-oai-web-search-eligible": "true", ...commonHeaders(provider, identity) };
  return { url: endpointUrl(provider, "/responses"), headers, body: JSON.stringify(body) };
}

/** `text.format` for an output schema: JSON schema output, strict unless the prompt says otherwise. */
export function outputFormat(schema: Record<string, unknown>, strict = true): JsonObject {
  return { type: "json_schema", name: OUTPUT_SCHEMA_NAME, schema: schema as JsonObject, strict };
}

/** A history item as sent in `input`: no `id` (store is false, ids would dangle). */
export function toWireItem(item: ResponseItem): JsonObject {
  switch (item.type) {
    case "message":
      return { type: "message", role: item.role, content: item.content };
    case "reasoning": {
      const wire: JsonObject = { type: "reasoning", summary: item.summary };
      // Codex does not resend raw chain-of-thought (`reasoning_text`), only summaries.
      const raw = item.content?.some((part) => part.type === "reasoning_text") ?? false;
      if (!raw) wire.content = item.content ?? null;
      wire.encrypted_content = item.encrypted_content ?? null;
      return wire;
    }
    case "function_call":
      return { type: "function_call", name: item.name, arguments: item.arguments, call_id: item.call_id };
    case "custom_tool_call":
      return { type: "custom_tool_call", call_id: item.call_id, name: item.name, input: item.input };
    case "local_shell_call":
      return { type: "local_shell_call", call_id: item.call_id, status: item.status, action: item.action };
    case "web_search_call": {
      const { id: _id, ...rest } = item;
      return { ...rest };
    }
    case "function_call_output":
    case "custom_tool_call_output":
      return { type: item.type, call_id: item.call_id, output: item.output };
  }
}

/**
 * Maps the SSE messages of one attempt to ResponseEvents, ending after `completed`.
 * `response.failed`, `response.incomplete` and `error` events throw a "stream" ModelError
 * (with the API error code when given); unknown events and items are skipped.
 */
export async function* mapResponsesStream(
  messages: AsyncIterable<SseMessage>,
): AsyncGenerator<ResponseEvent> {
  for await (const message of messages) {
    const data = parseJsonObject(message.data);
    if (!data) continue;
    const type = stringField(data, "type") ?? message.event;
    switch (type) {
      case "response.created":
        yield { type: "created" };
        break;
      case "response.output_text.delta":
        yield { type: "output_text_delta", delta: stringField(data, "delta") ?? "" };
        break;
      case "response.reasoning_summary_text.delta":
        yield {
          type: "reasoning_summary_delta",
          delta: stringField(data, "delta") ?? "",
          summaryIndex: numberField(data, "summary_index") ?? 0,
          itemId: stringField(data, "item_id") ?? "",
        };
        break;
      case "response.reasoning_summary_part.added":
        yield {
          type: "reasoning_summary_part_added",
          itemId: stringField(data, "item_id") ?? "",
          summaryIndex: numberField(data, "summary_index") ?? 0,
        };
        break;
      case "response.reasoning_text.delta":
        yield {
          type: "reasoning_content_delta",
          delta: stringField(data, "delta") ?? "",
          itemId: stringField(data, "item_id") ?? "",
        };
        break;
      case "response.custom_tool_call_input.delta":
        yield {
          type: "custom_tool_input_delta",
          itemId: stringField(data, "item_id") ?? "",
          delta: stringField(data, "delta") ?? "",
        };
        break;
      case "response.output_item.added":
      case "response.output_item.done": {
        const item = parseResponseItem(data.item);
        if (!item) break;
        yield {
          type: type === "response.output_item.added" ? "output_item_added" : "output_item_done",
          item,
        };
        break;
      }
      case "response.completed": {
        const response = objectField(data, "response") ?? {};
        const responseId = stringField(response, "id") ?? "";
        const model = stringField(response, "model");
        const usage = parseUsage(objectField(response, "usage"));
        yield { type: "completed", responseId, usage, ...(model ? { model } : {}) };
        return;
      }
      case "response.failed": {
        const error = objectField(objectField(data, "response") ?? {}, "error") ?? {};
        throw apiError(stringField(error, "message") ?? "response.failed event received", error);
      }
      case "response.incomplete": {
        const details = objectField(objectField(data, "response") ?? {}, "incomplete_details");
        const reason = (details && stringField(details, "reason")) ?? "unknown";
        throw new ModelError(`Incomplete response returned, reason: ${reason}`, "stream");
      }
      case "error":
        throw apiError(stringField(data, "message") ?? "error event received", data);
    }
  }
}

function apiError(message: string, error: JsonObject): ModelError {
  const options: { code?: string; retryAfterMs?: number } = {};
  const code = stringField(error, "code") ?? stringField(error, "type");
  if (code !== undefined) options.code = code;
  const retryAfterMs = retryAfterFromMessage(message);
  if (retryAfterMs !== undefined) options.retryAfterMs = retryAfterMs;
  return new ModelError(message, "stream", undefined, options);
}

export function parseUsage(usage: JsonObject | undefined): TokenUsage | null {
  if (!usage) return null;
  const input = numberField(usage, "input_tokens") ?? 0;
  const output = numberField(usage, "output_tokens") ?? 0;
  const inputDetails = objectField(usage, "input_tokens_details");
  const outputDetails = objectField(usage, "output_tokens_details");
  return {
    input_tokens: input,
    cached_input_tokens: (inputDetails && numberField(inputDetails, "cached_tokens")) ?? 0,
    output_tokens: output,
    reasoning_output_tokens: (outputDetails && numberField(outputDetails, "reasoning_tokens")) ?? 0,
    total_tokens: numberField(usage, "total_tokens") ?? input + output,
  };
}

function isRole(value: string): value is Role {
  return value === "user" || value === "assistant" || value === "developer" || value === "system";
}

/** Narrows an output item from the wire to a ResponseItem; null for kinds we do not model. */
export function parseResponseItem(value: unknown): ResponseItem | null {
  if (!isObject(value)) return null;
  const id = stringField(value, "id");
  const withId = <T extends ResponseItem>(item: T): T => (id === undefined ? item : { ...item, id });
  switch (value.type) {
    case "message": {
      const role = stringField(value, "role") ?? "assistant";
      if (!isRole(role) || !Array.isArray(value.content)) return null;
      return withId({ type: "message", role, content: parseContent(value.content) });
    }
    case "reasoning": {
      const summary = textParts(value.summary).map((text) => ({ type: "summary_text" as const, text }));
      const item: ResponseItem = { type: "reasoning", summary };
      if (Array.isArray(value.content)) {
        item.content = value.content.filter(isObject).map((part) => ({
          type: part.type === "text" ? ("text" as const) : ("reasoning_text" as const),
          text: stringField(part, "text") ?? "",
        }));
      }
      const encrypted = stringField(value, "encrypted_content");
      if (encrypted !== undefined) item.encrypted_content = encrypted;
      return withId(item);
    }
    case "function_call": {
      const name = stringField(value, "name");
      const callId = stringField(value, "call_id");
      if (name === undefined || callId === undefined) return null;
      const args = stringField(value, "arguments") ?? "";
      return withId({ type: "function_call", name, arguments: args, call_id: callId });
    }
    case "custom_tool_call": {
      const name = stringField(value, "name");
      const callId = stringField(value, "call_id");
      if (name === undefined || callId === undefined) return null;
      return withId({
        type: "custom_tool_call",
        name,
        input: stringField(value, "input") ?? "",
        call_id: callId,
      });
    }
    case "local_shell_call":
      return parseLocalShellCall(value, id);
    case "web_search_call": {
      const item: ResponseItem = { type: "web_search_call" };
      const status = stringField(value, "status");
      if (status !== undefined) item.status = status;
      const action = objectField(value, "action");
      const actionType = action && stringField(action, "type");
      if (action && actionType !== undefined) {
        const query = stringField(action, "query");
        item.action = query === undefined ? { type: actionType } : { type: actionType, query };
      }
      return withId(item);
    }
    default:
      return null;
  }
}

function parseContent(parts: unknown[]): Extract<ResponseItem, { type: "message" }>["content"] {
  const content: Extract<ResponseItem, { type: "message" }>["content"] = [];
  for (const part of parts) {
    if (!isObject(part)) continue;
    if (part.type === "input_image") {
      const url = stringField(part, "image_url");
      if (url !== undefined) content.push({ type: "input_image", image_url: url });
    } else if (part.type === "input_text") {
      content.push({ type: "input_text", text: stringField(part, "text") ?? "" });
    } else if (part.type === "output_text" || part.type === "refusal") {
      content.push({
        type: "output_text",
        text: stringField(part, "text") ?? stringField(part, "refusal") ?? "",
      });
    }
  }
  return content;
}

function textParts(value: unknown): string[] {
  if (!Array.isArray(value)) return [];
  return value.filter(isObject).map((part) => stringField(part, "text") ?? "");
}

function parseLocalShellCall(value: JsonObject, id: string | undefined): ResponseItem | null {
  const callId = stringField(value, "call_id") ?? id;
  const action = objectField(value, "action");
  const command = action?.command;
  if (callId === undefined || !action || !Array.isArray(command)) return null;
  const status = value.status === "in_progress" || value.status === "incomplete" ? value.status : "completed";
  const item: ResponseItem = {
    type: "local_shell_call",
    call_id: callId,
    status,
    action: {
      type: "exec",
      command: command.filter((part): part is string => typeof part === "string"),
      timeout_ms: numberField(action, "timeout_ms") ?? null,
      working_directory: stringField(action, "working_directory") ?? null,
      env: isStringRecord(action.env) ? action.env : null,
      user: stringField(action, "user") ?? null,
    },
  };
  if (id !== undefined) item.id = id;
  return item;
}

function isStringRecord(value: unknown): value is Record<string, string> {
  return isObject(value) && Object.values(value).every((entry) => typeof entry === "string");
}
