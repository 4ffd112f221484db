/**
 * The items of a turn's modes, for the ItemTracker: a review (entered_review_mode ..
 * exited_review_mode: one review item; the reviewer's prompt and JSON answer are not items) and
 * a compaction (context_compaction_started .. context_compacted). Kept apart from the tracker's
 * tool and message items; the tracker asks this first.
 */
import type { Event } from "./events.js";
import type { ContextCompactionItem, ItemEvent, ReviewItem, TurnItem } from "./turn-items.js";

export class ModeItems {
  private review: ReviewItem | null = null;
  private compaction: ContextCompactionItem | null = null;

  /** Whether `event` is the review's own message traffic (its prompt, its JSON answer). */
  hides(event: Event): boolean {
    if (!this.review) return false;
    return (
      event.type === "user_message" ||
      event.type === "agent_message_delta" ||
      (event.type === "raw_response_item" && event.item.type === "message")
    );
  }

  /** The item events of a mode event in turn `turnId` ("" outside a turn); null for other events. */
  push(event: Event, turnId: string, newId: () => string): ItemEvent[] | null {
    const started = (item: TurnItem): ItemEvent => ({
      type: "item_started",
      turn_id: turnId,
      item: { ...item },
    });
    const completed = (item: TurnItem): ItemEvent => ({
      type: "item_completed",
      turn_id: turnId,
      item: { ...item },
    });
    switch (event.type) {
      case "entered_review_mode":
        this.review = {
          type: "review",
          id: event.turn_id,
          status: "in_progress",
          prompt: event.review,
          review: null,
        };
        return [started(this.review)];
      case "exited_review_mode":
        return this.end(turnId, event.review);
      case "context_compaction_started":
        if (!turnId) return [];
        this.compaction = { type: "context_compaction", id: newId(), status: "in_progress", summary: "" };
        return [started(this.compaction)];
      case "context_compacted": {
        // A stored compaction has no start: it starts and completes at once.
        const open = this.compaction;
        this.compaction = null;
        if (!turnId) return [];
        const done: ContextCompactionItem = {
          type: "context_compaction",
          id: open?.id ?? newId(),
          status: "completed",
          summary: event.summary,
        };
        return open ? [completed(done)] : [started({ ...done, status: "in_progress" }), completed(done)];
      }
      default:
        return null;
    }
  }

  /**
   * Close the review with its verdict (`review`), or, at the turn's end (null), whatever is still
   * open as failed.
   */
  end(turnId: string, review: string | null): ItemEvent[] {
    const out: ItemEvent[] = [];
    const close = (item: TurnItem): ItemEvent => ({
      type: "item_completed",
      turn_id: turnId,
      item: { ...item },
    });
    if (this.review)
      out.push(close({ ...this.review, status: review === null ? "failed" : "completed", review }));
    this.review = null;
    if (review !== null) return out;
    if (this.compaction) out.push(close({ ...this.compaction, status: "failed" }));
    this.compaction = null;
    return out;
  }
}
