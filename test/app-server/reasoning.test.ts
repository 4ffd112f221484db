/**
 * Reasoning streamed through the real `tscodex app-server`, as 0.169 does: the reasoning item
 * starts with the first part, each summary part is announced (`item/reasoning/summaryPartAdded`)
 * and streamed (`item/reasoning/summaryTextDelta`), raw reasoning text streams as
 * `item/reasoning/textDelta`, then the item completes with the whole; thread/read replays the
 * same item. Every message is checked against Codex's schemas.
 */
import { describe, expect, it } from "vitest";
import type { WireMessage } from "../support/app-server-client.js";
import { useAppServerHarness } from "../support/app-server-harness.js";
import { referenceSchemaFailures } from "../support/app-server-schemas.js";
import { message, reasoning, turn, usage } from "../support/fake-model-server.js";
import { flow, runTurn, startThread } from "./flow.js";

const h = useAppServerHarness();

const SUMMARY = ["**Scan** the tree for tests", "**Answer** with the count"];
const RAW = "There are two test files under test/.";

describe("app-server: reasoning", () => {
  it("streams summary parts and raw text on the reasoning item, then completes it", async () => {
    const client = await h.stdio();
    const threadId = await startThread(client, { cwd: h.work, approvalPolicy: "never" });
    h.model.enqueue(turn(reasoning(SUMMARY, { raw: RAW }), message("Two."), usage({ input: 9, output: 4 })));
    const { turnId } = await runTurn(client, threadId, "how many tests?");

    const steps = flow(client, turnId).filter((line) => line.includes("reasoning"));
    expect(steps[0]).toBe("item/started reasoning");
    expect(steps.at(-1)).toBe("item/completed reasoning");
    const inTurn = (method: string): WireMessage[] =>
      client.notifications(method).filter((m) => m.params.turnId === turnId);
    const [started] = inTurn("item/started").filter((m) => m.params.item.type === "reasoning");
    const itemId = started?.params.item.id;
    expect(itemId).toMatch(/^rs_/);

    expect(
      inTurn("item/reasoning/summaryPartAdded").map((m) => [m.params.itemId, m.params.summaryIndex]),
    ).toEqual([
      [itemId, 0],
      [itemId, 1],
    ]);
    const summaryDeltas = inTurn("item/reasoning/summaryTextDelta");
    expect(summaryDeltas.length).toBeGreaterThan(SUMMARY.length);
    const streamed = ["", ""];
    for (const m of summaryDeltas) {
      expect(m.params.itemId).toBe(itemId);
      streamed[m.params.summaryIndex] += m.params.delta;
    }
    expect(streamed).toEqual(SUMMARY);
    const textDeltas = inTurn("item/reasoning/textDelta");
    expect(textDeltas.every((m) => m.params.itemId === itemId && m.params.contentIndex === 0)).toBe(true);
    expect(textDeltas.map((m) => m.params.delta).join("")).toBe(RAW);

    const done = inTurn("item/completed").find((m) => m.params.item.type === "reasoning");
    expect(done?.params.item).toEqual({ type: "reasoning", id: itemId, summary: SUMMARY, content: [RAW] });
    // Every delta comes between the item's start and its completion.
    const order = client.received.filter((m) => m.params?.turnId === turnId);
    const first = order.indexOf(started as WireMessage);
    const last = order.indexOf(done as WireMessage);
    for (const delta of [...summaryDeltas, ...textDeltas]) {
      expect(order.indexOf(delta)).toBeGreaterThan(first);
      expect(order.indexOf(delta)).toBeLessThan(last);
    }

    const read = await client.call("thread/read", { threadId, includeTurns: true });
    const items = read.thread.turns[0].items;
    expect(items.find((item: { type: string }) => item.type === "reasoning")).toEqual(done?.params.item);
    expect(referenceSchemaFailures(client)).toEqual([]);
  });
});
