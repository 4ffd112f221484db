import { setImmediate as nextTurn } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { collectGarbage } from "../../src/util/collect-garbage.js";

describe("collectGarbage", () => {
  it("runs a full collection: an object nothing holds is gone after it", async () => {
    let held: object | undefined = { payload: new Array(1000).fill("x") };
    const ref = new WeakRef(held);
    held = undefined;
    // A WeakRef keeps its target for the rest of the job that made it.
    await nextTurn();
    expect(collectGarbage()).toBe(true);
    expect(ref.deref()).toBeUndefined();
  });

  it("leaves natives syntax off for code compiled after it", () => {
    collectGarbage();
    expect(() => new Function("%CollectGarbage(null)")).toThrow(SyntaxError);
  });

  it("keeps what is still held", async () => {
    const held = { payload: "kept" };
    const ref = new WeakRef(held);
    await nextTurn();
    collectGarbage();
    expect(ref.deref()).toBe(held);
  });
});
