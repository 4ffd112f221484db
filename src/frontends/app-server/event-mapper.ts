/**
 * One thread's core events → app-server notifications, in Codex's order and shapes
 * (reference/app-server session-089.jsonl; client tool calls as in session-169.jsonl).
 * Items come from the core's ItemTracker and are mapped by threadItemOf (thread-items.ts); this
 * file adds the turn-level notifications and the item deltas' wire form. Its own state is the
 * wire's: per-command UTF-8 decoders (output chunks may split a character).
 *
 * Ordering notes: an approval question for a patch arrives before the patch begins, so the
 * fileChange item starts with the question; a declined command completes as `declined` when the
 * answer is known, then as `failed` (exit -1) when the core closes it, as Codex does; a
 * cancelled one only as `declined`. A sub-agent's spawnAgent item completes as soon as it starts
 * (the spawn call is done), and again each time the child's work ends. A sub-agent's forwarded
 * question (it carries `agent_id`) is the child's item, not this thread's.
 */

import { TextDecoder } from "node:util";
import type { Event } from "../../protocol/events.js";
import { ItemTracker, turnScopedIds } from "../../protocol/item-tracker.js";
import type { TokenUsage } from "../../protocol/items.js";
import type { ItemDelta, ItemEvent } from "../../protocol/turn-items.js";
import { ReviewNotifications } from "./auto-review-wire.js";
import { hookNotification } from "./hook-runs.js";
import type { ThreadItem, TurnError, UserInputWire } from "./protocol/common.js";
import type { ServerNotification } from "./protocol/server-messages.js";
import { changesOf, threadItemOf } from "./thread-items.js";

export { changesOf, contentOf } from "./thread-items.js";

type Notification = ServerNotification;

export class EventMapper {
  private readonly tracker: ItemTracker;
  /** The running turn's last completed agent message: turn/completed's summary of the turn. */
  private answer: ThreadItem | null = null;
  private readonly decoders = new Map<string, TextDecoder>();
  /** The echoed content of userMessage items started and not yet completed, by item id. */
  private readonly echoes = new Map<string, UserInputWire[]>();
  private readonly reviews: ReviewNotifications;

  /**
   * `userContent(turnId)`: the next input of that turn as the client sent it (the turn's own,
   * then each steer's), echoed in its userMessage item; undefined for turns started elsewhere.
   */
  constructor(
    private readonly threadId: string,
    private readonly userContent: (turnId: string) => UserInputWire[] | undefined,
  ) {
    // Ids a replay of the stored thread gives again (thread/read shows the same items).
    this.tracker = new ItemTracker({ newId: turnScopedIds(threadId), startOnApproval: true });
    this.reviews = new ReviewNotifications(threadId);
  }

  /** The turn running now ("" between turns). */
  get currentTurn(): string {
    return this.tracker.currentTurn;
  }

  /** The notifications `event` stands for (often none). */
  map(event: Event): Notification[] {
    if (isForwardedQuestion(event)) return [];
    const turnId = this.tracker.currentTurn;
    const out: Notification[] = [];
    for (const change of this.tracker.push(event)) this.item(change, out);
    switch (event.type) {
      case "turn_started":
        out.unshift({
          method: "turn/started",
          params: { threadId: this.threadId, turn: turnOf(event.turn_id) },
        });
        return out;
      case "turn_diff":
        out.push({ method: "turn/diff/updated", params: { ...this.at(), diff: event.unified_diff } });
        return out;
      case "plan_update":
        out.push({
          method: "turn/plan/updated",
          params: {
            ...this.at(),
            explanation: event.explanation,
            plan: event.plan.map(({ step, status }) => ({
              step,
              status: status === "in_progress" ? "inProgress" : status,
            })),
          },
        });
        return out;
      case "token_count":
        out.push({
          method: "thread/tokenUsage/updated",
          params: {
            ...this.at(),
            tokenUsage: {
              total: usageOf(event.total),
              last: usageOf(event.last),
              modelContextWindow: event.model_context_window,
            },
          },
        });
        return out;
      case "stream_error":
        out.push(this.error(event.message, true));
        return out;
      case "error":
        out.push(this.error(event.message, false));
        return out;
      case "context_compacted":
        out.push({ method: "thread/compacted", params: this.at() });
        return out;
      case "patch_apply_updated":
        out.push({
          method: "item/fileChange/patchUpdated",
          params: { ...this.at(event.turn_id), itemId: event.call_id, changes: changesOf(event.changes) },
        });
        return out;
      case "hook_started":
      case "hook_completed":
        return out.concat(hookNotification(this.threadId, event) ?? []);
      case "auto_review_started":
      case "auto_review_completed":
        out.push(this.reviews.map(event));
        return out;
      case "turn_complete":
        out.push(this.turnCompleted(turnId, "completed", null));
        return out;
      case "turn_aborted":
        out.push(this.turnCompleted(turnId, "interrupted", null));
        return out;
      case "turn_failed":
        out.push(this.turnCompleted(turnId, "failed", errorOf(event.message)));
        return out;
      case "warning":
        // Hooks or skills that did not load, answers to nothing: what the CLI prints on stderr.
        out.push({ method: "warning", params: { threadId: this.threadId, message: event.message } });
        return out;
      default:
        return out;
    }
  }

  /**
   * The client declined (or, with `cancel`, cancelled) call `callId`: its item completes as
   * `declined` now. A cancelled command's later end event is not shown.
   */
  declined(callId: string, cancel: boolean): Notification[] {
    const out: Notification[] = [];
    for (const change of this.tracker.decline(callId, cancel)) this.item(change, out);
    return out;
  }

  private at(turnId: string = this.tracker.currentTurn): { threadId: string; turnId: string } {
    return { threadId: this.threadId, turnId };
  }

  /** One core item change as notifications (none for items v2 has no type for). */
  private item(change: ItemEvent, out: Notification[]): void {
    const at = this.at(change.turn_id);
    if (change.type === "item_updated") {
      if (change.delta) this.delta(change.item.id, change.delta, at, out);
      return;
    }
    const item = threadItemOf(change.item, this.threadId);
    if (!item) return;
    if (item.type === "userMessage") item.content = this.echoed(item.id, change) ?? item.content;
    // When the core saw the item start / complete (0.169's and 0.171's required timestamps).
    const startedAtMs = change.item.started_at_ms ?? Date.now();
    const completedAtMs = change.item.completed_at_ms ?? Date.now();
    // Codex announces each review mode change as an item that starts and completes at once.
    const instant = item.type === "enteredReviewMode" || item.type === "exitedReviewMode";
    if (instant) {
      out.push({ method: "item/started", params: { ...at, item, startedAtMs } });
      out.push({ method: "item/completed", params: { ...at, item, completedAtMs } });
      return;
    }
    if (change.type === "item_started") {
      out.push({ method: "item/started", params: { ...at, item, startedAtMs } });
      // A spawnAgent call completes once the child is spawned (Codex's item ends with the call);
      // the child's work ending completes it again, with the child's final state.
      if (item.type === "collabAgentToolCall")
        out.push({
          method: "item/completed",
          params: { ...at, item: { ...item, status: "completed" }, completedAtMs: startedAtMs },
        });
      return;
    }
    this.decoders.delete(item.id);
    if (item.type === "agentMessage") this.answer = item;
    out.push({ method: "item/completed", params: { ...at, item, completedAtMs } });
  }

  /** The client's own form of user message `itemId`: taken when it starts, kept until it completes. */
  private echoed(itemId: string, change: ItemEvent): UserInputWire[] | undefined {
    if (change.type === "item_started") {
      const content = this.userContent(change.turn_id);
      if (content) this.echoes.set(itemId, content);
      return content;
    }
    const content = this.echoes.get(itemId) ?? this.userContent(change.turn_id);
    this.echoes.delete(itemId);
    return content;
  }

  private delta(
    itemId: string,
    delta: ItemDelta,
    at: { threadId: string; turnId: string },
    out: Notification[],
  ) {
    switch (delta.kind) {
      case "agent_message_text":
        out.push({ method: "item/agentMessage/delta", params: { ...at, itemId, delta: delta.text } });
        return;
      case "proposed_plan_text":
        out.push({ method: "item/plan/delta", params: { ...at, itemId, delta: delta.text } });
        return;
      case "reasoning_summary_part":
        out.push({
          method: "item/reasoning/summaryPartAdded",
          params: { ...at, itemId, summaryIndex: delta.summary_index },
        });
        return;
      case "reasoning_summary_text":
        out.push({
          method: "item/reasoning/summaryTextDelta",
          params: { ...at, itemId, delta: delta.text, summaryIndex: delta.summary_index },
        });
        return;
      case "reasoning_content_text":
        out.push({
          method: "item/reasoning/textDelta",
          params: { ...at, itemId, delta: delta.text, contentIndex: delta.content_index },
        });
        return;
      case "command_output": {
        let decoder = this.decoders.get(itemId);
        if (!decoder) {
          decoder = new TextDecoder();
          this.decoders.set(itemId, decoder);
        }
        const text = decoder.decode(delta.chunk, { stream: true });
        if (text !== "")
          out.push({ method: "item/commandExecution/outputDelta", params: { ...at, itemId, delta: text } });
        return;
      }
      case "file_change_output":
        out.push({ method: "item/fileChange/outputDelta", params: { ...at, itemId, delta: delta.text } });
        return;
      case "mcp_progress":
        out.push({ method: "item/mcpToolCall/progress", params: { ...at, itemId, message: delta.message } });
        return;
    }
  }

  private error(message: string, willRetry: boolean): Notification {
    return { method: "error", params: { ...this.at(), error: errorOf(message), willRetry } };
  }

  private turnCompleted(
    turnId: string,
    status: "completed" | "interrupted" | "failed",
    error: TurnError | null,
  ): Notification {
    // As Codex: the turn's summary view, its final answer (thread/read has every item).
    const items = this.answer ? [this.answer] : [];
    this.answer = null;
    return {
      method: "turn/completed",
      params: {
        threadId: this.threadId,
        turn: { ...turnOf(turnId), items, itemsView: "summary", status, error },
      },
    };
  }
}

/** A sub-agent's question the core forwarded: its command or patch is the child's item. */
function isForwardedQuestion(event: Event): boolean {
  return (
    (event.type === "exec_approval_request" || event.type === "apply_patch_approval_request") &&
    event.agent_id !== undefined
  );
}

function turnOf(id: string) {
  return { id, items: [], status: "inProgress" as const, error: null };
}

function errorOf(message: string): TurnError {
  return { message, codexErrorInfo: null, additionalDetails: null };
}

export function usageOf(usage: TokenUsage | null) {
  return {
    totalTokens: usage?.total_tokens ?? 0,
    inputTokens: usage?.input_tokens ?? 0,
    cachedInputTokens: usage?.cached_input_tokens ?? 0,
    outputTokens: usage?.output_tokens ?? 0,
    reasoningOutputTokens: usage?.reasoning_output_tokens ?? 0,
  };
}
