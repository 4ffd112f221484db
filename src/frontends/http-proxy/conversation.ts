/**
 * A request's conversation, wire-neutral: what /v1/responses `input` and /v1/chat/completions
 * `messages` carry, as instructions plus ordered entries. The tail decides the turn: trailing
 * function_call_output entries continue a parked turn, a trailing user message starts one.
 */
import type { ClientToolSpec } from "../../protocol/client-tools.js";
import { type ResponseItem, userMessage } from "../../protocol/items.js";
import type { TraceCarrier } from "../../protocol/telemetry.js";
import { ApiError } from "./errors.js";
import type { ChatPart, ChatRequest, ResponsesPart, ResponsesRequest } from "./schemas.js";

export type Entry =
  | { kind: "user"; text: string; images: string[] }
  | { kind: "assistant"; text: string }
  | { kind: "call"; callId: string; name: string; arguments: string }
  | { kind: "output"; callId: string; output: string };

export interface Conversation {
  /** system / developer messages and `instructions`, joined into the thread's developer text. */
  instructions: string[];
  entries: Entry[];
  tools: ClientToolSpec[];
  /** The request had a `tools` field (a parked turn keeps its tools when the follow-up has none). */
  toolsGiven: boolean;
  /** The final message's JSON schema (text.format / response_format json_schema). */
  outputSchema: Record<string, unknown> | undefined;
  /** The request's `traceparent` / `tracestate`: the turn's spans join the caller's trace. */
  trace?: TraceCarrier | undefined;
}

/** What the request asks for, from its tail. */
export type TurnPlan =
  | { kind: "user"; history: Entry[]; text: string; images: string[] }
  | { kind: "outputs"; history: Entry[]; outputs: Extract<Entry, { kind: "output" }>[] };

export function planTurn(entries: Entry[]): TurnPlan {
  let end = entries.length;
  while (end > 0 && entries[end - 1]?.kind === "output") end -= 1;
  if (end < entries.length) {
    const outputs = entries.slice(end) as Extract<Entry, { kind: "output" }>[];
    return { kind: "outputs", history: entries.slice(0, end), outputs };
  }
  while (end > 0 && entries[end - 1]?.kind === "user") end -= 1;
  const users = entries.slice(end) as Extract<Entry, { kind: "user" }>[];
  if (users.length === 0)
    throw ApiError.invalid("The input must end with a user message or function_call_output items.", "input");
  return {
    kind: "user",
    history: entries.slice(0, end),
    text: users.map((user) => user.text).join("\n\n"),
    images: users.flatMap((user) => user.images),
  };
}

/** History entries as the thread's items (user, assistant, calls, outputs). */
export function toHistoryItems(entries: readonly Entry[]): ResponseItem[] {
  return entries.map(toHistoryItem);
}

function toHistoryItem(entry: Entry): ResponseItem {
  switch (entry.kind) {
    case "user":
      return userMessage(entry.text, entry.images);
    case "assistant":
      return { type: "message", role: "assistant", content: [{ type: "output_text", text: entry.text }] };
    case "call":
      return { type: "function_call", call_id: entry.callId, name: entry.name, arguments: entry.arguments };
    case "output":
      return { type: "function_call_output", call_id: entry.callId, output: entry.output };
  }
}

export function fromResponsesRequest(body: ResponsesRequest): Conversation {
  const instructions = body.instructions ? [body.instructions] : [];
  const entries: Entry[] = [];
  const items: Exclude<ResponsesRequest["input"], string> =
    typeof body.input === "string" ? [{ role: "user", content: body.input }] : body.input;
  for (const item of items) {
    if ("role" in item && typeof item.role === "string") {
      const { text, images } = responsesContent(item.content as string | ResponsesPart[]);
      if (item.role === "system" || item.role === "developer") instructions.push(text);
      else if (item.role === "assistant") entries.push({ kind: "assistant", text });
      else entries.push({ kind: "user", text, images });
    } else if (item.type === "function_call") {
      entries.push({ kind: "call", callId: item.call_id, name: item.name, arguments: item.arguments });
    } else if (item.type === "function_call_output") {
      const output = typeof item.output === "string" ? item.output : responsesContent(item.output).text;
      entries.push({ kind: "output", callId: item.call_id, output });
    }
  }
  const tools =
    body.tool_choice === "none"
      ? []
      : (body.tools ?? []).map((tool) => ({
          name: tool.name,
          description: tool.description ?? "",
          inputSchema: tool.parameters ?? { type: "object", properties: {} },
        }));
  const format = body.text?.format;
  const outputSchema =
    format?.type === "json_schema" ? (format.schema as Record<string, unknown>) : undefined;
  return { instructions, entries, tools, toolsGiven: body.tools != null, outputSchema };
}

export function fromChatRequest(body: ChatRequest): Conversation {
  const instructions: string[] = [];
  const entries: Entry[] = [];
  for (const message of body.messages) {
    switch (message.role) {
      case "system":
      case "developer":
        instructions.push(chatContent(message.content).text);
        break;
      case "user": {
        const { text, images } = chatContent(message.content);
        entries.push({ kind: "user", text, images });
        break;
      }
      case "assistant": {
        const text = message.content ? chatContent(message.content).text : "";
        if (text) entries.push({ kind: "assistant", text });
        for (const call of message.tool_calls ?? [])
          entries.push({
            kind: "call",
            callId: call.id,
            name: call.function.name,
            arguments: call.function.arguments,
          });
        break;
      }
      case "tool":
        entries.push({
          kind: "output",
          callId: message.tool_call_id,
          output: chatContent(message.content).text,
        });
        break;
    }
  }
  const tools =
    body.tool_choice === "none"
      ? []
      : (body.tools ?? []).map(({ function: fn }) => ({
          name: fn.name,
          description: fn.description ?? "",
          inputSchema: fn.parameters ?? { type: "object", properties: {} },
        }));
  const format = body.response_format;
  const outputSchema =
    format?.type === "json_schema" ? (format.json_schema.schema as Record<string, unknown>) : undefined;
  return { instructions, entries, tools, toolsGiven: body.tools != null, outputSchema };
}

function responsesContent(content: string | ResponsesPart[]): { text: string; images: string[] } {
  if (typeof content === "string") return { text: content, images: [] };
  const texts: string[] = [];
  const images: string[] = [];
  for (const part of content) {
    if (part.type === "input_image")
      images.push(typeof part.image_url === "string" ? part.image_url : part.image_url.url);
    else if (part.type === "refusal") texts.push(part.refusal);
    else texts.push(part.text);
  }
  return { text: texts.join(""), images };
}

function chatContent(content: string | ChatPart[]): { text: string; images: string[] } {
  if (typeof content === "string") return { text: content, images: [] };
  const texts: string[] = [];
  const images: string[] = [];
  for (const part of content) {
    if (part.type === "image_url") images.push(part.image_url.url);
    else texts.push(part.text);
  }
  return { text: texts.join(""), images };
}
