/**
 * POST /v1/chat/completions: messages run as one turn; the answer is a chat.completion or
 * chat.completion.chunk SSE ending in `data: [DONE]` (usage in a last chunk with
 * stream_options.include_usage). Client tool calls come back as `tool_calls` with
 * finish_reason "tool_calls"; the follow-up's `role: "tool"` messages continue the parked turn,
 * found from the call ids the history carries.
 */
import { randomBytes } from "node:crypto";
import type { Context } from "hono";
import { stream as streamBody } from "hono/streaming";
import type { Event } from "../../protocol/events.js";
import { ItemTracker } from "../../protocol/item-tracker.js";
import type { TokenUsage } from "../../protocol/items.js";
import type { ItemEvent } from "../../protocol/turn-items.js";
import type { TurnResult } from "../../session/thread.js";
import { errorMessage } from "../../util/errors.js";
import { agentWorkLine } from "./agent-work.js";
import { fromChatRequest } from "./conversation.js";
import { ApiError, internalError } from "./errors.js";
import type { KeyedRequest } from "./idempotency.js";
import { type ProxyOptions, readBody, requestTrace } from "./request.js";
import { chatRequestSchema } from "./schemas.js";
import { beginTurn } from "./serve-turn.js";

export async function handleChat(
  c: Context,
  options: ProxyOptions,
  keyed: KeyedRequest | null = null,
): Promise<Response> {
  const body = await readBody(c, chatRequestSchema);
  // A keyed turn outlives a dropped connection: its client comes back with the key for the answer.
  const signal = keyed ? new AbortController().signal : c.req.raw.signal;
  const conversation = { ...fromChatRequest(body), trace: requestTrace(c) };
  const run = await beginTurn(options, conversation, null, signal, { keyed });
  const head = {
    id: `chatcmpl-${randomBytes(12).toString("hex")}`,
    created: Math.floor(Date.now() / 1000),
    model: body.model ?? options.config.model,
  };
  const quiet = options.quietAgentWork;
  if (!body.stream) {
    const texts: string[] = [];
    return run.drive(
      (event) => {
        if (event.type === "agent_message") texts.push(event.message);
      },
      (result) => {
        const failure = failedTurn(result);
        if (failure) return failure;
        const toolCalls = toolCallsOf(result);
        return {
          ...head,
          object: "chat.completion",
          choices: [
            {
              index: 0,
              message: {
                role: "assistant",
                content: texts.length > 0 ? texts.join("\n\n") : null,
                refusal: null,
                ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
              },
              logprobs: null,
              finish_reason: toolCalls.length > 0 ? "tool_calls" : "stop",
            },
          ],
          usage: chatUsage(result.usage),
        };
      },
      (completion) => c.json(completion),
    );
  }
  c.header("Content-Type", "text/event-stream");
  c.header("Cache-Control", "no-cache");
  return streamBody(c, async (out) => {
    const send = (data: unknown) => {
      if (!out.aborted) out.write(`data: ${JSON.stringify(data)}\n\n`).catch(() => {});
    };
    const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
      send({
        ...head,
        object: "chat.completion.chunk",
        choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
      });
    chunk({ role: "assistant", content: "" });
    let messages = 0;
    let inMessage = false;
    const tracker = new ItemTracker();
    const onItem = (change: ItemEvent) => {
      const { item } = change;
      const delta = change.type === "item_updated" ? change.delta : undefined;
      if (delta?.kind === "agent_message_text") {
        if (!inMessage && messages > 0) chunk({ content: "\n\n" });
        inMessage = true;
        chunk({ content: delta.text });
      } else if (change.type === "item_completed" && item.type === "agent_message") {
        if (item.status !== "completed") return;
        if (!inMessage) chunk({ content: (messages > 0 ? "\n\n" : "") + item.text });
        inMessage = false;
        messages += 1;
      } else if (delta?.kind === "reasoning_summary_text" || delta?.kind === "reasoning_content_text") {
        chunk({ reasoning_content: delta.text });
      } else if (!quiet) {
        const line = agentWorkLine(change);
        if (line) chunk({ reasoning_content: `${line}\n` });
      }
    };
    const onEvent = (event: Event) => {
      for (const change of tracker.push(event)) onItem(change);
    };
    const deliver = async (_summary: unknown, result: TurnResult) => {
      const toolCalls = toolCallsOf(result);
      if (toolCalls.length > 0) chunk({ tool_calls: toolCalls.map((call, index) => ({ index, ...call })) });
      chunk({}, toolCalls.length > 0 ? "tool_calls" : "stop");
      if (body.stream_options?.include_usage)
        send({ ...head, object: "chat.completion.chunk", choices: [], usage: chatUsage(result.usage) });
      if (!out.aborted) await out.write("data: [DONE]\n\n").catch(() => {});
    };
    const finish = (result: TurnResult) => failedTurn(result) ?? { ...head, object: "chat.completion.chunk" };
    await run.drive(onEvent, finish, deliver).catch(async (error: unknown) => {
      // A failed turn (its ApiError) or a response that could not be stored.
      send((error instanceof ApiError ? error : internalError(errorMessage(error))).body);
      if (!out.aborted) await out.write("data: [DONE]\n\n").catch(() => {});
    });
  });
}

/** A failed or interrupted turn's answer (500): stored as it is sent, for a takeover to repeat. */
function failedTurn(result: TurnResult): ApiError | null {
  if (result.status !== "failed" && result.status !== "interrupted") return null;
  return internalError(result.error ?? "the turn was interrupted");
}

function toolCallsOf(result: TurnResult) {
  return result.pendingCalls.flatMap((call) =>
    call.type === "function_call"
      ? [{ id: call.call_id, type: "function", function: { name: call.name, arguments: call.arguments } }]
      : [],
  );
}

function chatUsage(usage: TokenUsage) {
  return {
    prompt_tokens: usage.input_tokens,
    completion_tokens: usage.output_tokens,
    total_tokens: usage.total_tokens,
    prompt_tokens_details: { cached_tokens: usage.cached_input_tokens },
    completion_tokens_details: { reasoning_tokens: usage.reasoning_output_tokens },
  };
}
