/**
 * A sub-agent through the real app-server: the thread's spawn_agent shows as a
 * `collabAgentToolCall` item (0.169's ThreadItem): started and completed by the spawn call (the
 * child running), completed again with the child's final message in `agentsStates`; the child's own messages never appear as the
 * parent's agentMessage items.
 */
import { describe, expect, it } from "vitest";
import { messageText, type ResponseItem } from "../../src/protocol/items.js";
import { useAppServerHarness } from "../support/app-server-harness.js";
import { referenceSchemaFailures } from "../support/app-server-schemas.js";
import { callOutputs } from "../support/exec-harness.js";
import { functionCall, hold, message, turn } from "../support/fake-model-server.js";
import { completedItems, liveItems, runTurn, startThread, type WireItem, withoutTimes } from "./flow.js";

const h = useAppServerHarness();

const isChild = (input: readonly ResponseItem[]) =>
  input.some(
    (item) => item.type === "message" && item.role === "user" && messageText(item) === "count files",
  );

describe("app-server: sub-agents", () => {
  it("shows a spawned sub-agent as a collabAgentToolCall item with the child's final message", async () => {
    for (let i = 0; i < 6; i++)
      h.model.enqueue((request) => {
        if (isChild(request.input)) return turn(message("there are 3 files"));
        const outputs = callOutputs(request.input);
        if (!outputs.s1) return turn(functionCall("spawn_agent", { message: "count files" }, "s1"));
        const id = (JSON.parse(String(outputs.s1)) as { agent_id: string }).agent_id;
        if (!outputs.w) return turn(functionCall("wait", { ids: [id], timeout_ms: 20000 }, "w"));
        return turn(message("the child says 3"));
      });
    const client = await h.stdio({ args: ["-c", "features.collab=true"] });
    const threadId = await startThread(client, {
      cwd: h.work,
      approvalPolicy: "never",
      sandbox: "danger-full-access",
    });
    const { turnId, completed } = await runTurn(client, threadId, "delegate");
    expect(completed.params.turn.status).toBe("completed");

    const started = client
      .notifications("item/started")
      .filter((m) => m.params.item.type === "collabAgentToolCall")
      .map((m) => m.params.item);
    const completions = completedItems(client, turnId, "collabAgentToolCall");
    // The spawn call's completion (the child running), then the child's work ending.
    expect(completions).toHaveLength(2);
    const done = completions[1];
    const childId = done?.receiverThreadIds[0];
    expect(completions[0]).toMatchObject({
      status: "completed",
      agentsStates: { [childId]: { status: "running", message: null } },
    });
    expect(childId).toMatch(/^[0-9a-f-]{36}$/);
    expect(started).toEqual([
      expect.objectContaining({
        type: "collabAgentToolCall",
        tool: "spawnAgent",
        status: "inProgress",
        senderThreadId: threadId,
        prompt: "count files",
        agentsStates: { [childId]: { status: "running", message: null } },
      }),
    ]);
    expect(done).toMatchObject({
      status: "completed",
      senderThreadId: threadId,
      receiverThreadIds: [childId],
      agentsStates: { [childId]: { status: "completed", message: "there are 3 files" } },
    });
    expect(completedItems(client, turnId, "agentMessage").map((item) => item.text)).toEqual([
      "the child says 3",
    ]);
    // The stored turn shows the sub-agent as the live stream last completed it.
    const read = await client.call("thread/read", { threadId, includeTurns: true });
    const notPrompt = (item: WireItem) => item.type !== "userMessage";
    expect(read.thread.turns[0].items.map(withoutTimes).filter(notPrompt)).toEqual(
      liveItems(client, turnId).filter(notPrompt),
    );
    expect(referenceSchemaFailures(client)).toEqual([]);
  });

  it("completes the spawnAgent item when the spawn call completes, while the child still works", async () => {
    let release = () => {};
    const childMayAnswer = new Promise<void>((resolve) => {
      release = resolve;
    });
    for (let i = 0; i < 4; i++)
      h.model.enqueue((request) => {
        if (isChild(request.input)) return turn(hold(childMayAnswer), message("there are 3 files"));
        const outputs = callOutputs(request.input);
        if (!outputs.s1) return turn(functionCall("spawn_agent", { message: "count files" }, "s1"));
        return turn(message("spawned; not waiting"));
      });
    const client = await h.stdio({ args: ["-c", "features.collab=true"] });
    const threadId = await startThread(client, {
      cwd: h.work,
      approvalPolicy: "never",
      sandbox: "danger-full-access",
    });
    try {
      const { turnId, completed } = await runTurn(client, threadId, "delegate");
      const ended = client.received.indexOf(completed);
      const spawnCompleted = client.received.findIndex(
        (m) =>
          m.method === "item/completed" &&
          m.params.turnId === turnId &&
          m.params.item.type === "collabAgentToolCall",
      );
      expect(spawnCompleted).toBeGreaterThanOrEqual(0);
      expect(spawnCompleted).toBeLessThan(ended);
      const item = client.received[spawnCompleted]?.params.item;
      expect(item).toMatchObject({ tool: "spawnAgent", status: "completed", senderThreadId: threadId });
      expect(item.agentsStates[item.receiverThreadIds[0]]).toEqual({ status: "running", message: null });
    } finally {
      release();
    }
  });
});
