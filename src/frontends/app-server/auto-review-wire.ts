/**
 * The core's auto_review_started / auto_review_completed as Codex 0.171's
 * `item/autoApprovalReview/started|completed`: the reviewed action in its wire shape, the verdict,
 * and the item it is about (none for a network review, as Codex has it). A review that failed
 * (an answer that was not one) is `denied` there, its reason in `rationale`.
 */
import type { ReviewedAction, ReviewOutcome } from "../../protocol/auto-review.js";
import type { EventOf } from "../../protocol/events.js";
import { shellQuote } from "../../util/shell-quote.js";
import type { ReviewActionWire, ReviewWire } from "./protocol/auto-review-messages.js";
import type { ServerNotification } from "./protocol/server-messages.js";

type ReviewNotification = Extract<
  ServerNotification,
  { method: "item/autoApprovalReview/started" | "item/autoApprovalReview/completed" }
>;

export class ReviewNotifications {
  private readonly started = new Map<string, number>();

  constructor(private readonly threadId: string) {}

  map(event: EventOf<"auto_review_started"> | EventOf<"auto_review_completed">): ReviewNotification {
    const now = Date.now();
    if (event.type === "auto_review_started") this.started.set(event.review_id, now);
    const startedAtMs = this.started.get(event.review_id) ?? now;
    const base = {
      threadId: this.threadId,
      turnId: event.turn_id,
      reviewId: event.review_id,
      targetItemId: event.action.kind === "network" ? null : event.call_id,
      startedAtMs,
      action: wireAction(event.action),
    };
    if (event.type === "auto_review_started")
      return {
        method: "item/autoApprovalReview/started",
        params: {
          ...base,
          review: { status: "inProgress", riskLevel: null, userAuthorization: null, rationale: null },
        },
      };
    this.started.delete(event.review_id);
    return {
      method: "item/autoApprovalReview/completed",
      params: { ...base, review: wireReview(event.outcome), completedAtMs: now, decisionSource: "agent" },
    };
  }
}

function wireReview(outcome: ReviewOutcome): ReviewWire {
  const { assessment } = outcome;
  return {
    status: outcome.status === "failed" ? "denied" : outcome.status,
    riskLevel: assessment?.riskLevel ?? null,
    userAuthorization: assessment?.userAuthorization ?? null,
    rationale: assessment?.rationale ?? (outcome.status === "approved" ? null : outcome.message),
  };
}

function wireAction(action: ReviewedAction): ReviewActionWire {
  switch (action.kind) {
    case "exec":
      return { type: "command", command: shellQuote(action.command), cwd: action.cwd, source: "shell" };
    case "patch":
      return { type: "applyPatch", cwd: action.cwd, files: action.files };
    case "network": {
      const protocol = action.protocol as Extract<ReviewActionWire, { type: "networkAccess" }>["protocol"];
      const port = protocol === "http" ? 80 : protocol === "https" ? 443 : 1080;
      return { type: "networkAccess", host: action.host, port, protocol, target: `${action.host}:${port}` };
    }
    case "mcp":
      return {
        type: "mcpToolCall",
        server: action.server,
        toolName: action.tool,
        connectorId: null,
        connectorName: null,
        toolTitle: null,
      };
  }
}
