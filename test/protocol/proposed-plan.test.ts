/**
 * Plan mode's `<proposed_plan>` block: PlanSplitter cuts a streamed message wherever the deltas
 * split the tags, and ItemTracker makes the same plan and agent message items live (deltas) and
 * replayed (only the recorded messages), plan mode read from the recorded mode message.
 */
import { describe, expect, it } from "vitest";
import { collaborationModeMessage } from "../../src/prompt/collaboration-mode.js";
import type { Event } from "../../src/protocol/events.js";
import { ItemTracker } from "../../src/protocol/item-tracker.js";
import { developerMessage, type MessageItem } from "../../src/protocol/items.js";
import { PlanSplitter, splitProposedPlan } from "../../src/protocol/proposed-plan.js";
import type { ItemEvent } from "../../src/protocol/turn-items.js";

const TEXT = "Looked around.\n<proposed_plan>\n# Plan\n- a < b\n</proposed_plan>\nOK?";

function streamed(text: string, size: number): { message: string; plan: string } {
  const splitter = new PlanSplitter();
  const out = { message: "", plan: "" };
  for (let at = 0; at < text.length; at += size)
    for (const piece of splitter.push(text.slice(at, at + size))) out[piece.part] += piece.text;
  for (const piece of splitter.finish()) out[piece.part] += piece.text;
  return out;
}

describe("PlanSplitter", () => {
  it("cuts the block out whatever the delta size, tags split across deltas included", () => {
    for (const size of [1, 2, 3, 5, 7, 16, TEXT.length]) {
      const { message, plan } = streamed(TEXT, size);
      expect(message, `size ${size}`).toBe("Looked around.\n\nOK?");
      expect(plan, `size ${size}`).toBe("# Plan\n- a < b\n");
    }
  });

  it("keeps text that only looks like a tag start, and a message without a block", () => {
    expect(streamed("a <proposed thing> b <", 1)).toEqual({ message: "a <proposed thing> b <", plan: "" });
    expect(splitProposedPlan("no plan here")).toEqual({ message: "no plan here", plan: null });
    expect(splitProposedPlan(TEXT)).toEqual({ message: "Looked around.\n\nOK?", plan: "# Plan\n- a < b" });
  });
});

function items(events: Event[]): ItemEvent[] {
  const tracker = new ItemTracker();
  return events.flatMap((event) => tracker.push(event));
}

const modeItem = developerMessage(collaborationModeMessage({ mode: "plan", developerInstructions: null }));
const answer: MessageItem = {
  type: "message",
  role: "assistant",
  content: [{ type: "output_text", text: TEXT }],
};
const begin: Event[] = [
  { type: "turn_started", turn_id: "0", model_context_window: null },
  { type: "raw_response_item", item: modeItem },
];
const end: Event[] = [
  { type: "raw_response_item", item: answer },
  {
    type: "turn_complete",
    turn_id: "0",
    last_agent_message: TEXT,
    usage: {
      input_tokens: 0,
      cached_input_tokens: 0,
      output_tokens: 0,
      reasoning_output_tokens: 0,
      total_tokens: 0,
    },
  },
];

/** The completed items, without their times (item-tracker.test.ts checks those). */
function completedItems(events: ItemEvent[]) {
  return events
    .filter((event) => event.type === "item_completed")
    .map(({ item: { started_at_ms: _s, completed_at_ms: _c, ...item } }) => item);
}

describe("ItemTracker in plan mode", () => {
  it("gives the same plan and message items live and replayed", () => {
    const deltas: Event[] = [...TEXT].map((delta) => ({ type: "agent_message_delta", delta }));
    const live = items([...begin, ...deltas, ...end]);
    const replayed = items([...begin, ...end]);
    const expected = [
      { type: "proposed_plan", id: "item-1-plan", status: "completed", text: "# Plan\n- a < b" },
      { type: "agent_message", id: "item-1", status: "completed", text: "Looked around.\n\nOK?" },
    ];
    expect(completedItems(live)).toEqual(expected);
    expect(completedItems(replayed)).toEqual(expected);
    const planText = live.flatMap((event) =>
      event.type === "item_updated" && event.delta?.kind === "proposed_plan_text" ? [event.delta.text] : [],
    );
    expect(planText.join("")).toBe("# Plan\n- a < b\n");
  });

  it("leaves the block in the message outside plan mode", () => {
    const replayed = items([begin[0] as Event, ...end]);
    expect(completedItems(replayed)).toEqual([
      { type: "agent_message", id: "item-1", status: "completed", text: TEXT },
    ]);
  });
});
