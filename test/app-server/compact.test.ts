/**
 * thread/compact/start through the real `tscodex app-server` (stdio), as Codex 0.169 serves it:
 * `{}`, then a turn of its own with the `contextCompaction` item (started, completed) and
 * `thread/compacted`; the next turn's request carries the summary instead of the history. A
 * model failure fails that turn; one asked for while a turn runs waits for it; an unknown
 * thread is refused; the item shows while the model summarises, and turn/interrupt stops it. Every message is checked against Codex's schemas.
 */
import { describe, expect, it } from "vitest";
import type { AppClient } from "../support/app-server-client.js";
import { useAppServerHarness } from "../support/app-server-harness.js";
import { referenceSchemaFailures } from "../support/app-server-schemas.js";
import { delay, failed, hang, message, turn } from "../support/fake-model-server.js";
import { flow, runTurn, startThread } from "./flow.js";

const h = useAppServerHarness();

/** thread/compact/start; resolves with the reply and the compaction turn's turn/completed. */
async function compact(client: AppClient, threadId: string, otherTurns: string[] = []) {
  const from = client.received.length;
  const reply = await client.request("thread/compact/start", { threadId });
  const started = await client.waitFor(
    (m) =>
      m.method === "turn/started" &&
      client.received.indexOf(m) >= from &&
      !otherTurns.includes(m.params.turn.id),
  );
  const turnId = String(started.params.turn.id);
  return { reply, turnId, completed: await client.turnCompleted(turnId, from) };
}

describe("app-server: thread/compact/start", () => {
  it("compacts as a turn: the contextCompaction item, thread/compacted, then the summary in history", async () => {
    const client = await h.stdio();
    const threadId = await startThread(client, { cwd: h.work, approvalPolicy: "never" });
    h.model.enqueue(turn(message("The answer is 42.")));
    await runTurn(client, threadId, "what is the answer? remember-this-marker");

    h.model.enqueue(turn(message("SUMMARY: the user asked for the answer; it is 42.")));
    const { reply, turnId, completed } = await compact(client, threadId);
    expect(reply.result).toEqual({});
    expect(completed.params.turn.status).toBe("completed");
    expect(flow(client, turnId)).toEqual([
      "turn/started",
      "item/started contextCompaction",
      "item/completed contextCompaction",
      "thread/compacted",
      "turn/completed completed",
    ]);
    const [item] = client
      .notifications("item/completed")
      .filter((m) => m.params.turnId === turnId)
      .map((m) => m.params.item);
    expect(item).toEqual({ type: "contextCompaction", id: expect.any(String) });
    expect(client.notifications("thread/compacted").at(-1)?.params).toEqual({ threadId, turnId });

    h.model.enqueue(turn(message("Still 42.")));
    await runTurn(client, threadId, "and now?");
    const next = JSON.stringify(h.model.requests.at(-1)?.input);
    expect(next).toContain("SUMMARY: the user asked for the answer");
    expect(next).not.toContain("The answer is 42.");
    expect(referenceSchemaFailures(client)).toEqual([]);
  });

  it("fails the compaction turn when the model fails, and waits for a running turn", async () => {
    const client = await h.stdio();
    const threadId = await startThread(client, { cwd: h.work, approvalPolicy: "never" });
    // The first turn is still streaming when compaction is asked for: compaction runs after it.
    h.model.enqueue(turn(delay(400), message("slow answer")), turn(failed("summariser down")));
    const from = client.received.length;
    const { turn: first } = await client.call("turn/start", {
      threadId,
      input: [{ type: "text", text: "hello" }],
    });
    const { reply, turnId, completed } = await compact(client, threadId, [String(first.id)]);
    expect(reply.result).toEqual({});
    const firstDone = await client.turnCompleted(String(first.id), from);
    expect(client.received.indexOf(firstDone)).toBeLessThan(client.received.indexOf(completed));
    expect(completed.params.turn.status).toBe("failed");
    expect(completed.params.turn.error.message).toContain("compaction failed");
    expect(flow(client, turnId)).not.toContain("thread/compacted");
    expect(referenceSchemaFailures(client)).toEqual([]);
  });

  it("shows the item while the model summarises; turn/interrupt stops the compaction", async () => {
    const client = await h.stdio();
    const threadId = await startThread(client, { cwd: h.work, approvalPolicy: "never" });
    h.model.enqueue(turn(message("hello back")));
    await runTurn(client, threadId, "hello");
    h.model.enqueue(turn(hang()));
    const from = client.received.length;
    expect((await client.request("thread/compact/start", { threadId })).result).toEqual({});
    const started = await client.waitFor(
      (m) => m.method === "item/started" && m.params.item.type === "contextCompaction",
    );
    const turnId = String(started.params.turnId);
    expect(await client.call("turn/interrupt", { threadId, turnId })).toEqual({});
    const completed = await client.turnCompleted(turnId, from);
    expect(completed.params.turn.status).toBe("interrupted");
    expect(flow(client, turnId)).toEqual([
      "turn/started",
      "item/started contextCompaction",
      "item/completed contextCompaction",
      "turn/completed interrupted",
    ]);
    // The history is as it was: the next turn still sends the first exchange.
    h.model.enqueue(turn(message("still here")));
    await runTurn(client, threadId, "again");
    expect(JSON.stringify(h.model.requests.at(-1)?.input)).toContain("hello back");
    expect(referenceSchemaFailures(client)).toEqual([]);
  });

  it("refuses an unknown thread", async () => {
    const client = await h.stdio();
    const reply = await client.request("thread/compact/start", {
      threadId: "01a2005b-f1c1-7330-8b78-4122bb98a157",
    });
    expect(reply.error).toMatchObject({ code: -32600, message: expect.stringContaining("thread not found") });
    expect(h.model.requests).toEqual([]);
  });
});
