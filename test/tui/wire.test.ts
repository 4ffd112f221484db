/**
 * Where the server's messages enter the UI: methods it reads come out typed, the others (and
 * ones missing a field the UI dereferences) are dropped there, not deeper in the screen code.
 */
import { describe, expect, it } from "vitest";
import { Transcript } from "../../src/frontends/tui/transcript.js";
import { readNotification, readReply, readServerRequest } from "../../src/frontends/tui/wire.js";

describe("wire", () => {
  it("reads the notifications the UI uses and drops the rest", () => {
    const started = readNotification("turn/started", { threadId: "t", turn: { id: "u1" } });
    expect(started?.method).toBe("turn/started");
    expect(readNotification("thread/name/updated", { threadId: "t", threadName: "x" })).toBeNull();
    expect(readNotification("turn/started", null)).toBeNull();
    expect(readNotification("turn/started", ["turn"])).toBeNull();
  });

  it("drops a notification missing a field the UI dereferences, so the screen survives it", () => {
    expect(readNotification("turn/started", { threadId: "t" })).toBeNull();
    expect(readNotification("turn/completed", { threadId: "t", turn: "done" })).toBeNull();
    expect(readNotification("item/agentMessage/delta", { itemId: "a", delta: 5 })).toBeNull();
    expect(readNotification("turn/plan/updated", { turnId: "u", plan: null })).toBeNull();
    // Well formed, the same messages reach the transcript.
    const transcript = new Transcript();
    const delta = readNotification("item/agentMessage/delta", { itemId: "a", delta: "hi" });
    expect(delta && transcript.apply(delta)).toBe(true);
    expect(transcript.blocks.map((block) => block.kind)).toEqual(["agent"]);
  });

  it("reads the server requests the UI answers; others are refused by the caller", () => {
    const approval = readServerRequest("item/fileChange/requestApproval", { grantRoot: null, reason: null });
    expect(approval?.method).toBe("item/fileChange/requestApproval");
    expect(readServerRequest("item/tool/call", { tool: "x" })).toBeNull();
    expect(readServerRequest("item/tool/requestUserInput", "nope")).toBeNull();
  });

  it("a reply that is not an object is an error, not a cast", () => {
    expect(readReply("thread/list", { data: [] })).toEqual({ data: [] });
    expect(() => readReply("thread/list", null)).toThrow(/reply to thread\/list is not an object/);
  });
});
