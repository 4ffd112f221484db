/**
 * The core's ItemTracker: a real thread's live item events (Thread.subscribeItems) and the items
 * replayed from its stored rollout are the same items, for every kind a rollout keeps; tool
 * items have a full lifecycle live; streamed reasoning keeps its summary parts.
 */

import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ResponseEvent } from "../../src/model/types.js";
import { ItemTracker } from "../../src/protocol/item-tracker.js";
import { emptyUsage } from "../../src/protocol/items.js";
import { NO_EXTENT, permissionsFromSandboxMode } from "../../src/protocol/permissions-legacy.js";
import {
  type ItemEvent,
  isItemEvent,
  type ThreadEvent,
  type TurnItem,
} from "../../src/protocol/turn-items.js";
import { replayLines } from "../../src/session/replay-items.js";
import { Thread } from "../../src/session/thread.js";
import { readRollout } from "../../src/store/rollout-reader.js";
import { RolloutRecorder } from "../../src/store/rollout-recorder.js";
import { updatePlanTool } from "../../src/tools/builtin/update-plan.js";
import { call, completed, message, scriptedClient } from "../support/scripted-model.js";
import { testThreadServices } from "../support/thread-services.js";
import { type TempDir, tmpdir } from "../support/tmpdir.js";

const reasoningStream = (id: string, parts: string[]): ResponseEvent[] => [
  ...parts.flatMap((text, summaryIndex): ResponseEvent[] => [
    { type: "reasoning_summary_part_added", itemId: id, summaryIndex },
    { type: "reasoning_summary_delta", delta: text.slice(0, 3), summaryIndex },
    { type: "reasoning_summary_delta", delta: text.slice(3), summaryIndex },
  ]),
  {
    type: "output_item_done",
    item: { type: "reasoning", id, summary: parts.map((text) => ({ type: "summary_text" as const, text })) },
  },
];

const streamedMessage = (text: string): ResponseEvent[] => [
  { type: "output_text_delta", delta: text.slice(0, 2) },
  { type: "output_text_delta", delta: text.slice(2) },
  message(text),
];

let home: TempDir;
beforeEach(async () => {
  home = await tmpdir();
});
afterEach(async () => {
  await home.cleanup();
});

async function recordedThread() {
  const client = scriptedClient([
    () => [
      ...reasoningStream("rs_1", ["Plan first", "then act"]),
      call("update_plan", PLAN, "p1"),
      completed(),
    ],
    () => [...streamedMessage("Planned."), completed()],
    () => [
      { type: "output_item_added", item: { type: "web_search_call", id: "ws_1" } },
      {
        type: "output_item_done",
        item: {
          type: "web_search_call",
          id: "ws_1",
          status: "completed",
          action: { type: "search", query: "tides" },
        },
      },
      ...streamedMessage("High at noon."),
      completed(),
    ],
  ]);
  const thread = new Thread("t-items", testThreadServices(client, [updatePlanTool()]), {
    cwd: "/tmp",
    approvalPolicy: "never",
    permissions: permissionsFromSandboxMode("read-only"),
    configuredExtent: NO_EXTENT,
  });
  const recorder = await RolloutRecorder.create(home.path, {
    id: "t-items",
    created: new Date().toISOString(),
    cwd: "/tmp",
    model: "m",
    provider: "p",
    approval_policy: "never",
    sandbox_mode: "read-only",
    source: "test",
  });
  recorder.attach(thread);
  const live: ThreadEvent[] = [];
  thread.subscribeItems((event) => live.push(event));
  expect((await thread.run({ text: "plan it" })).status).toBe("completed");
  expect((await thread.run({ text: "tides?" })).status).toBe("completed");
  await recorder.close();
  return { live, stored: await readRollout(recorder.path) };
}

const PLAN = { plan: [{ step: "look", status: "in_progress" }] };

const completedItems = (events: readonly ThreadEvent[]): TurnItem[] =>
  events.flatMap((event) => (event.type === "item_completed" ? [event.item] : []));

/** An item without its times (live and replayed times differ by the write's few ms). */
const untimed = ({
  started_at_ms: _s,
  completed_at_ms: _c,
  ...item
}: TurnItem): Omit<TurnItem, "started_at_ms" | "completed_at_ms"> => item;

describe("ItemTracker", () => {
  it("gives the same items live and when the stored thread is replayed", async () => {
    const { live, stored } = await recordedThread();
    const replayed = [...replayLines(stored.lines)].flatMap(({ items }) => items);
    const kept = new Set(["user_message", "agent_message", "reasoning", "web_search"]);
    const liveKept = completedItems(live).filter((item) => kept.has(item.type));
    expect(liveKept.map((item) => item.type)).toEqual([
      "user_message",
      "reasoning",
      "agent_message",
      "user_message",
      "web_search",
      "agent_message",
    ]);
    expect(completedItems(replayed).map(untimed)).toEqual(liveKept.map(untimed));
    expect(untimed(liveKept[1] as TurnItem)).toEqual({
      type: "reasoning",
      id: "rs_1",
      status: "completed",
      summary: ["Plan first", "then act"],
      content: [],
    });
    expect(liveKept[5]).toMatchObject({ type: "agent_message", text: "High at noon.", status: "completed" });
    expect(liveKept[4]).toMatchObject({
      id: "ws_1",
      query: "tides",
      action: { type: "search", query: "tides" },
    });
  });

  it("stamps items with when they started and completed; a replay gives the stored lines' times, not its own", async () => {
    const before = Date.now();
    const { live, stored } = await recordedThread();
    const after = Date.now();
    for (const item of completedItems(live)) {
      expect(item.started_at_ms).toBeGreaterThanOrEqual(before);
      expect(item.completed_at_ms).toBeGreaterThanOrEqual(item.started_at_ms ?? Infinity);
      expect(item.completed_at_ms).toBeLessThanOrEqual(after);
    }
    // As if the thread had run a day before it is replayed: the times are still the thread's own.
    const DAY = 86_400_000;
    const dayOld = stored.lines.map((line) => ({
      ...line,
      timestamp: new Date(Date.parse(line.timestamp) - DAY).toISOString(),
    }));
    const lineTimes = new Set(dayOld.map((line) => Date.parse(line.timestamp)));
    const replayed = completedItems([...replayLines(dayOld)].flatMap(({ items }) => items));
    expect(replayed.length).toBeGreaterThan(3);
    for (const item of replayed) {
      expect(lineTimes.has(item.started_at_ms ?? -1)).toBe(true);
      expect(lineTimes.has(item.completed_at_ms ?? -1)).toBe(true);
      expect(item.completed_at_ms).toBeLessThanOrEqual(after - DAY);
    }
  });

  it("streams each item between its start and its completion, and closes the plan with the turn", async () => {
    const { live } = await recordedThread();
    const lifecycle = (id: string) =>
      live.flatMap((event) => {
        if (!isItemEvent(event) || event.item.id !== id) return [];
        return [event.type === "item_updated" ? (event.delta?.kind ?? "snapshot") : event.type];
      });
    expect(lifecycle("rs_1")).toEqual([
      "item_started",
      "reasoning_summary_part",
      "reasoning_summary_text",
      "reasoning_summary_text",
      "reasoning_summary_part",
      "reasoning_summary_text",
      "reasoning_summary_text",
      "item_completed",
    ]);
    const plan = completedItems(live).find((item) => item.type === "plan");
    expect(plan).toMatchObject({ status: "completed", plan: [{ step: "look", status: "in_progress" }] });
    // Item events follow the legacy event that caused them: the plan closes after turn_complete.
    const types = live.map((event) => event.type);
    expect(types.indexOf("turn_complete")).toBeLessThan(
      live.findIndex((event) => event.type === "item_completed" && event.item.type === "plan"),
    );
  });

  it("gives a command a full lifecycle, a declined one declined, and a cut-short message failed", () => {
    const tracker = new ItemTracker({ startOnApproval: true });
    const events: ItemEvent[] = [
      ...tracker.push({ type: "turn_started", turn_id: "7", model_context_window: null }),
      ...tracker.push({
        type: "exec_approval_request",
        call_id: "c1",
        turn_id: "7",
        command: ["rm", "x"],
        cwd: "/w",
        reason: null,
      }),
      ...tracker.decline("c1", true),
      ...tracker.push({
        type: "exec_command_end",
        call_id: "c1",
        turn_id: "7",
        command: ["rm", "x"],
        cwd: "/w",
        exit_code: -1,
        duration_ms: 0,
        stdout: "",
        stderr: "",
        aggregated_output: "",
        formatted_output: "",
      }),
      ...tracker.push({ type: "agent_message_delta", delta: "Hal" }),
      ...tracker.push({ type: "turn_aborted", turn_id: "7", reason: "interrupted" }),
    ];
    expect(events.map((event) => [event.type, event.item.type, event.item.status, event.turn_id])).toEqual([
      ["item_started", "command_execution", "in_progress", "7"],
      ["item_completed", "command_execution", "declined", "7"],
      ["item_started", "agent_message", "in_progress", "7"],
      ["item_updated", "agent_message", "in_progress", "7"],
      ["item_completed", "agent_message", "failed", "7"],
    ]);
  });
});

describe("ItemTracker: review turns", () => {
  const summary = (events: ItemEvent[]) => events.map((e) => [e.type, e.item.type, e.item.status]);

  it("makes one review item of a review turn, hiding its prompt and its JSON answer", () => {
    const tracker = new ItemTracker();
    const push = (...events: Parameters<ItemTracker["push"]>[0][]) => events.flatMap((e) => tracker.push(e));
    const entered = push(
      { type: "turn_started", turn_id: "4", model_context_window: null },
      { type: "entered_review_mode", turn_id: "4", review: "current changes" },
      { type: "user_message", message: "Review this diff ...", images: [] },
      { type: "agent_message_delta", delta: '{"findings"' },
      {
        type: "raw_response_item",
        item: { type: "message", role: "assistant", content: [{ type: "output_text", text: "{}" }] },
      },
    );
    expect(summary(entered)).toEqual([["item_started", "review", "in_progress"]]);
    expect(entered[0]?.item).toMatchObject({ id: "4", prompt: "current changes", review: null });
    const exited = push(
      { type: "exited_review_mode", turn_id: "4", review: "Review: patch is correct" },
      { type: "turn_complete", turn_id: "4", last_agent_message: "{}", usage: emptyUsage() },
    );
    expect(summary(exited)).toEqual([["item_completed", "review", "completed"]]);
    expect(exited[0]?.item).toMatchObject({ review: "Review: patch is correct" });

    // After the review, messages are items again; an interrupted review completes as failed.
    push({ type: "turn_started", turn_id: "5", model_context_window: null });
    expect(summary(push({ type: "user_message", message: "fix it", images: [] }))).toHaveLength(2);
    push({ type: "entered_review_mode", turn_id: "5", review: "commit abc1234" });
    const aborted = push({ type: "turn_aborted", turn_id: "5", reason: "interrupted" });
    expect(summary(aborted)).toEqual([["item_completed", "review", "failed"]]);
  });
});

describe("ItemTracker: compaction", () => {
  it("starts the compaction item when summarising begins and completes it with the summary", () => {
    const tracker = new ItemTracker();
    tracker.push({ type: "turn_started", turn_id: "2", model_context_window: null });
    const [started] = tracker.push({ type: "context_compaction_started" }, 1_000);
    expect(started).toMatchObject({
      type: "item_started",
      item: { type: "context_compaction", started_at_ms: 1_000 },
    });
    const done = tracker.push({ type: "context_compacted", summary: "S", replacement_history: [] }, 2_000);
    expect(done).toEqual([
      {
        type: "item_completed",
        turn_id: "2",
        item: { ...started?.item, status: "completed", summary: "S", completed_at_ms: 2_000 },
      },
    ]);
    // A stored compaction has no start: it starts and completes at once; an unfinished one fails.
    expect(
      tracker.push({ type: "context_compacted", summary: "T", replacement_history: [] }).map((e) => e.type),
    ).toEqual(["item_started", "item_completed"]);
    tracker.push({ type: "context_compaction_started" });
    const failed = tracker.push({ type: "turn_failed", turn_id: "2", message: "down" });
    expect(failed.map((e) => [e.type, e.item.status])).toEqual([["item_completed", "failed"]]);
  });
});
