/**
 * turn/start's keys: one turn per key and thread; a resend with the same params gets it (and
 * how it ended), other params are refused, a start that failed frees the key, keys expire.
 */
import { describe, expect, it } from "vitest";
import { TurnKeys } from "../../src/frontends/app-server/turn-keys.js";
import { KEY_TTL_MS } from "../../src/frontends/common/keyed-requests.js";

const params = { threadId: "t1", input: [{ type: "text", text: "go" }] };

describe("TurnKeys", () => {
  it("answers a resend with the first turn, then with how it ended", async () => {
    const keys = new TurnKeys();
    const first = keys.claim("t1", "k", params);
    if (first.kind !== "new") throw new Error("a new key must be new");
    const resend = keys.claim("t1", "k", params);
    first.started("0");
    if (resend.kind !== "known") throw new Error("a resend must find the first");
    expect(await resend.turnId).toBe("0");
    expect(resend.ended()).toBeNull();
    keys.ended("t1", "k", { status: "completed", error: null });
    expect(resend.ended()).toEqual({ status: "completed", error: null });
    // Keys are per thread.
    expect(keys.claim("t2", "k", params).kind).toBe("new");
  });

  it("refuses the key with other params, and frees it when the start failed", async () => {
    const keys = new TurnKeys();
    const first = keys.claim("t1", "k", params);
    expect(() => keys.claim("t1", "k", { ...params, input: [] })).toThrow(/already used on thread t1/);
    const resend = keys.claim("t1", "k", params);
    if (first.kind !== "new" || resend.kind !== "known") throw new Error("unexpected claims");
    first.failed();
    await expect(resend.turnId).rejects.toThrow(/failed; send it again/);
    expect(keys.claim("t1", "k", params).kind).toBe("new");
  });

  it("forgets keys after their window", () => {
    let now = 1_000;
    const keys = new TurnKeys(() => now);
    const first = keys.claim("t1", "k", params);
    if (first.kind === "new") first.started("0");
    now += KEY_TTL_MS + 1;
    expect(keys.claim("t1", "k", params).kind).toBe("new");
  });
});
