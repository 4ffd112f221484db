/**
 * A turn as a Responses API response: its events become output items (reasoning summary,
 * message, the client's function calls) and, when streamed, the Responses SSE sequence
 * (response.created … output_item.added, *.delta, output_item.done … response.completed | failed).
 * One writer serves both modes: without a sender it only collects the items.
 */
import { randomBytes } from "node:crypto";
import type { Event } from "../../protocol/events.js";
import { ItemTracker } from "../../protocol/item-tracker.js";
import type { TokenUsage } from "../../protocol/items.js";
import type { ItemEvent } from "../../protocol/turn-items.js";
import type { TurnResult } from "../../session/thread.js";
import { agentWorkLine } from "./agent-work.js";

export type SseSend = (event: string, data: Record<string, unknown>) => void;

type OutputItem = Record<string, unknown> & { id: string; type: string };

/** The request-echo fields of the response object. */
export type ResponseBase = Record<string, unknown> & { id: string; model: string };

interface OpenItem {
  index: number;
  id: string;
  text: string;
}

export class ResponsesWriter {
  private readonly output: OutputItem[] = [];
  private sequence = 0;
  private message: OpenItem | null = null;
  private reasoning: OpenItem | null = null;
  private readonly tracker = new ItemTracker();
  private readonly createdAt = Math.floor(Date.now() / 1000);

  constructor(
    private readonly base: ResponseBase,
    private readonly send: SseSend | null,
    private readonly quietAgentWork: boolean,
  ) {}

  /** response.created and response.in_progress. */
  start(): void {
    const response = this.response("in_progress", null, null);
    this.emit("response.created", { response });
    this.emit("response.in_progress", { response });
  }

  /**
   * Deltas stream live; the final item events arrive once the model response is complete, so a
   * reasoning item and a message may be open at once: each closes on its own final event.
   */
  onEvent(event: Event): void {
    for (const change of this.tracker.push(event)) this.onItem(change);
  }

  /** One core item change: reasoning and the message stream; tool work becomes a reasoning line. */
  private onItem(change: ItemEvent): void {
    const { item } = change;
    if (change.type === "item_updated" && change.delta) {
      const { delta } = change;
      if (delta.kind === "reasoning_summary_text" || delta.kind === "reasoning_content_text")
        this.reasoningDelta(delta.text);
      else if (delta.kind === "agent_message_text") this.messageDelta(delta.text);
      return;
    }
    if (change.type === "item_completed" && item.status === "completed") {
      if (item.type === "reasoning") {
        // Summaries only: raw reasoning text stays in the open item until something closes it.
        const text = item.summary.join("\n\n");
        if (!text) return;
        if (!this.reasoning) this.reasoningDelta(text);
        this.closeReasoning(text);
        return;
      }
      if (item.type === "agent_message") {
        if (!this.message) this.messageDelta(item.text);
        this.closeMessage(item.text);
        return;
      }
    }
    const line = this.quietAgentWork ? null : agentWorkLine(change);
    if (line === null) return;
    this.closeReasoning();
    this.reasoningDelta(line);
    this.closeReasoning();
  }

  /** Close open items and add the client's function calls; the final response (see complete()). */
  finish(result: TurnResult): Record<string, unknown> {
    this.closeMessage();
    this.closeReasoning();
    for (const call of result.pendingCalls) {
      if (call.type !== "function_call") continue;
      const item: OutputItem = {
        id: itemId("fc"),
        type: "function_call",
        status: "completed",
        call_id: call.call_id,
        name: call.name,
        arguments: call.arguments,
      };
      const index = this.output.length;
      this.output.push(item);
      const ids = { item_id: item.id, output_index: index };
      this.emit("response.output_item.added", {
        output_index: index,
        item: { ...item, status: "in_progress", arguments: "" },
      });
      this.emit("response.function_call_arguments.delta", { ...ids, delta: call.arguments });
      this.emit("response.function_call_arguments.done", {
        ...ids,
        name: call.name,
        arguments: call.arguments,
      });
      this.emit("response.output_item.done", { output_index: index, item });
    }
    const failed = result.status === "failed" || result.status === "interrupted";
    const error = failed
      ? { code: "server_error", message: result.error ?? "the turn was interrupted" }
      : null;
    return this.response(failed ? "failed" : "completed", usageOf(result.usage), error);
  }

  /** The final event: response.completed, or response.failed, carrying `response` (from finish()). */
  complete(response: Record<string, unknown>): void {
    this.emit(response.status === "failed" ? "response.failed" : "response.completed", { response });
  }

  /** The response as it stands, with `status` (a background response before its end). */
  snapshot(status: string): Record<string, unknown> {
    return this.response(status, null, null);
  }

  /** A failure before the turn produced anything: the stream's error event. */
  fail(message: string): void {
    this.emit("response.failed", {
      response: this.response("failed", null, { code: "server_error", message }),
    });
  }

  private response(
    status: string,
    usage: Record<string, unknown> | null,
    error: Record<string, unknown> | null,
  ) {
    return {
      ...this.base,
      object: "response",
      created_at: this.createdAt,
      status,
      error,
      incomplete_details: null,
      output: [...this.output],
      usage,
    };
  }

  private reasoningDelta(delta: string): void {
    if (!this.reasoning) {
      this.reasoning = { index: this.output.length, id: itemId("rs"), text: "" };
      const item: OutputItem = { id: this.reasoning.id, type: "reasoning", summary: [] };
      this.output.push(item);
      this.emit("response.output_item.added", { output_index: this.reasoning.index, item });
      this.emit("response.reasoning_summary_part.added", {
        ...this.ids(this.reasoning),
        summary_index: 0,
        part: { type: "summary_text", text: "" },
      });
    }
    this.reasoning.text += delta;
    this.emit("response.reasoning_summary_text.delta", {
      ...this.ids(this.reasoning),
      summary_index: 0,
      delta,
    });
  }

  private closeReasoning(finalText?: string): void {
    const open = this.reasoning;
    if (!open) return;
    this.reasoning = null;
    const text = finalText ?? open.text;
    const part = { type: "summary_text", text };
    const item: OutputItem = { id: open.id, type: "reasoning", summary: [part] };
    this.output[open.index] = item;
    this.emit("response.reasoning_summary_text.done", { ...this.ids(open), summary_index: 0, text });
    this.emit("response.reasoning_summary_part.done", { ...this.ids(open), summary_index: 0, part });
    this.emit("response.output_item.done", { output_index: open.index, item });
  }

  private messageDelta(delta: string): void {
    if (!this.message) {
      this.message = { index: this.output.length, id: itemId("msg"), text: "" };
      const item: OutputItem = {
        id: this.message.id,
        type: "message",
        status: "in_progress",
        role: "assistant",
        content: [],
      };
      this.output.push(item);
      this.emit("response.output_item.added", { output_index: this.message.index, item });
      this.emit("response.content_part.added", {
        ...this.ids(this.message),
        content_index: 0,
        part: { type: "output_text", text: "", annotations: [] },
      });
    }
    this.message.text += delta;
    this.emit("response.output_text.delta", {
      ...this.ids(this.message),
      content_index: 0,
      delta,
      logprobs: [],
    });
  }

  private closeMessage(finalText?: string): void {
    const open = this.message;
    if (!open) return;
    this.message = null;
    const text = finalText ?? open.text;
    const part = { type: "output_text", text, annotations: [] };
    const item: OutputItem = {
      id: open.id,
      type: "message",
      status: "completed",
      role: "assistant",
      content: [part],
    };
    this.output[open.index] = item;
    this.emit("response.output_text.done", { ...this.ids(open), content_index: 0, text, logprobs: [] });
    this.emit("response.content_part.done", { ...this.ids(open), content_index: 0, part });
    this.emit("response.output_item.done", { output_index: open.index, item });
  }

  private ids(item: OpenItem) {
    return { item_id: item.id, output_index: item.index };
  }

  private emit(type: string, fields: Record<string, unknown>): void {
    this.send?.(type, { type, sequence_number: this.sequence++, ...fields });
  }
}

/** The Responses API usage object. */
export function usageOf(usage: TokenUsage): Record<string, unknown> {
  return {
    input_tokens: usage.input_tokens,
    input_tokens_details: { cached_tokens: usage.cached_input_tokens },
    output_tokens: usage.output_tokens,
    output_tokens_details: { reasoning_tokens: usage.reasoning_output_tokens },
    total_tokens: usage.total_tokens,
  };
}

export function itemId(prefix: string): string {
  return `${prefix}_${randomBytes(12).toString("hex")}`;
}
