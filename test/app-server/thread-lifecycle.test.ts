/**
 * thread/delete, thread/unsubscribe and thread/turns/list (Codex 0.169) through the real
 * app-server, with the notifications that say a thread went away (thread/archived,
 * thread/deleted, thread/closed); every message checked against Codex's schemas.
 */
import { describe, expect, it } from "vitest";
import { useAppServerHarness } from "../support/app-server-harness.js";
import { referenceSchemaFailures } from "../support/app-server-schemas.js";
import { message, turn } from "../support/fake-model-server.js";
import { runTurn, startThread } from "./flow.js";

const h = useAppServerHarness();

const FULL_ACCESS = { approvalPolicy: "never", sandbox: "danger-full-access" };

describe("app-server: thread lifecycle (0.169)", () => {
  it("lists a thread's turns in either direction and pages them", async () => {
    const client = await h.stdio();
    const threadId = await startThread(client, { cwd: h.work, ...FULL_ACCESS });
    h.model.enqueue(turn(message("one")), turn(message("two")));
    const first = await runTurn(client, threadId, "first");
    const second = await runTurn(client, threadId, "second");
    const asc = await client.call("thread/turns/list", { threadId });
    expect(asc.data.map((t: { id: string }) => t.id)).toEqual([first.turnId, second.turnId]);
    expect(asc.data[0].items.length).toBeGreaterThan(0);
    const desc = await client.call("thread/turns/list", { threadId, sortDirection: "desc", limit: 1 });
    expect(desc.data.map((t: { id: string }) => t.id)).toEqual([second.turnId]);
    expect(desc.nextCursor).not.toBeNull();
    const rest = await client.call("thread/turns/list", {
      threadId,
      sortDirection: "desc",
      cursor: desc.nextCursor,
      itemsView: "notLoaded",
    });
    expect(rest.data).toEqual([
      expect.objectContaining({ id: first.turnId, items: [], itemsView: "notLoaded" }),
    ]);
    expect(referenceSchemaFailures(client)).toEqual([]);
  });

  it("deletes a thread and tells its followers (over WebSocket: two clients of one server)", async () => {
    const server = await h.wsServer();
    const client = await server.connect();
    await client.initialize();
    const other = await server.connect();
    h.defer(client);
    h.defer(other);
    await other.initialize();
    const threadId = await startThread(client, { cwd: h.work, ...FULL_ACCESS });
    h.model.enqueue(turn(message("kept")));
    await runTurn(client, threadId, "hello");
    expect(await other.call("thread/unsubscribe", { threadId })).toEqual({ status: "notSubscribed" });
    await other.call("thread/resume", { threadId });
    expect(await client.call("thread/delete", { threadId })).toEqual({});
    await client.waitFor((m) => m.method === "thread/deleted" && m.params?.threadId === threadId);
    await other.waitFor((m) => m.method === "thread/deleted" && m.params?.threadId === threadId);
    const read = await client.request("thread/read", { threadId });
    expect(read.error?.message).toContain("thread not found");
    const again = await client.request("thread/delete", { threadId });
    expect(again.error?.message).toContain("thread not found");
    expect(referenceSchemaFailures(client)).toEqual([]);
    expect(referenceSchemaFailures(other)).toEqual([]);
  });

  it("announces an archive to the thread's followers", async () => {
    const client = await h.stdio();
    const threadId = await startThread(client, { cwd: h.work, ...FULL_ACCESS });
    h.model.enqueue(turn(message("x")));
    await runTurn(client, threadId, "hello");
    await client.call("thread/archive", { threadId });
    await client.waitFor((m) => m.method === "thread/archived" && m.params?.threadId === threadId);
    expect(referenceSchemaFailures(client)).toEqual([]);
  });

  it("unsubscribes: the last follower leaving closes the thread; a second unsubscribe is notSubscribed (Codex), another client's notLoaded", async () => {
    const server = await h.wsServer();
    const client = await server.connect();
    const other = await server.connect();
    h.defer(client);
    h.defer(other);
    await client.initialize();
    await other.initialize();
    const threadId = await startThread(client, { cwd: h.work, ...FULL_ACCESS });
    h.model.enqueue(turn(message("x")));
    await runTurn(client, threadId, "hello");
    expect(await client.call("thread/unsubscribe", { threadId })).toEqual({ status: "unsubscribed" });
    await client.waitFor((m) => m.method === "thread/closed" && m.params?.threadId === threadId);
    expect((await client.call("thread/loaded/list", {})).data).not.toContain(threadId);
    expect(await client.call("thread/unsubscribe", { threadId })).toEqual({ status: "notSubscribed" });
    expect(await other.call("thread/unsubscribe", { threadId })).toEqual({ status: "notLoaded" });
    // Resuming brings it back.
    await client.call("thread/resume", { threadId });
    expect(await client.call("thread/unsubscribe", { threadId })).toEqual({ status: "unsubscribed" });
    expect(referenceSchemaFailures(client)).toEqual([]);
  });
});
