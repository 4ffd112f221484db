/**
 * The resumable-stream store of an MCP HTTP session: a resume gets every event after its cursor
 * on that stream only, and past the byte bound the oldest streams go whole, so a cursor into one
 * is refused rather than answered with a hole.
 */
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { SessionEventStore } from "../../src/frontends/mcp-server/event-store.js";

const note = (n: number): JSONRPCMessage => ({
  jsonrpc: "2.0",
  method: "notifications/progress",
  params: { n },
});

async function replay(store: SessionEventStore, after: string) {
  const sent: { id: string; message: JSONRPCMessage }[] = [];
  const stream = await store.replayEventsAfter(after, {
    send: async (id, message) => {
      sent.push({ id, message });
    },
  });
  return { stream, sent };
}

describe("SessionEventStore", () => {
  it("replays the events after the cursor, of the cursor's stream only", async () => {
    const store = new SessionEventStore();
    const first = await store.storeEvent("a", note(1));
    await store.storeEvent("b", note(2));
    const third = await store.storeEvent("a", note(3));
    expect(await store.getStreamIdForEventId(first)).toBe("a");
    const { stream, sent } = await replay(store, first);
    expect(stream).toBe("a");
    expect(sent).toEqual([{ id: third, message: note(3) }]);
    expect((await replay(store, third)).sent).toEqual([]);
  });

  it("drops the oldest streams whole past its bound and refuses their cursors", async () => {
    const size = JSON.stringify(note(1)).length;
    const store = new SessionEventStore(size * 3);
    const old = await store.storeEvent("old", note(1));
    await store.storeEvent("old", note(2));
    const kept = await store.storeEvent("new", note(3));
    await store.storeEvent("new", note(4));
    expect(await store.getStreamIdForEventId(old)).toBeUndefined();
    await expect(replay(store, old)).rejects.toThrow(/unknown or expired event id/);
    expect((await replay(store, kept)).sent.map((event) => event.message)).toEqual([note(4)]);
    expect(await store.getStreamIdForEventId("not-an-id")).toBeUndefined();
  });

  it("keeps a long stream's requests and result, dropping its oldest notifications", async () => {
    const size = JSON.stringify(note(1)).length;
    const store = new SessionEventStore(size * 2);
    const start = await store.storeEvent("long", note(0));
    const question: JSONRPCMessage = { jsonrpc: "2.0", id: 5, method: "elicitation/create", params: {} };
    await store.storeEvent("long", question);
    for (let n = 1; n <= 5; n += 1) await store.storeEvent("long", note(n));
    const result: JSONRPCMessage = { jsonrpc: "2.0", id: 1, result: { content: [] } };
    await store.storeEvent("long", result);
    expect((await replay(store, start)).sent.map((event) => event.message)).toEqual([question, result]);
  });
});
