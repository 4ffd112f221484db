/**
 * Thread lifecycle through the real app-server: interrupt, resume after a server restart (the
 * history and the client tools come back from the rollout), a client leaving mid-turn (its turn
 * is interrupted and its command stopped), list / read / loaded, fork, archive and rollback.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { StdioAppClient } from "../support/app-server-client.js";
import { useAppServerHarness } from "../support/app-server-harness.js";
import { referenceSchemaFailures } from "../support/app-server-schemas.js";
import { functionCall, message, turn, usage } from "../support/fake-model-server.js";
import { gone, readPid } from "../support/processes.js";
import { liveItems, runTurn, startThread, type WireItem, withoutTimes } from "./flow.js";

const h = useAppServerHarness();

const FULL_ACCESS = { approvalPolicy: "never", sandbox: "danger-full-access" };

/** A command that records its pid, then sleeps (`exec`: the pid is the sleep's). */
function sleeper(pidFile: string, callId = "call_1") {
  return functionCall("shell_command", { command: `echo $$ > ${pidFile}; exec sleep 30` }, callId);
}

function userTexts(input: unknown[]): string[] {
  return input.flatMap((item) => {
    const entry = item as { type?: string; role?: string; content?: { text?: string }[] };
    return entry.type === "message" && entry.role === "user"
      ? (entry.content ?? []).map((part) => part.text ?? "")
      : [];
  });
}

describe("app-server: turns", () => {
  it("turn/interrupt stops the running command and completes the turn as interrupted", async () => {
    const client = await h.stdio();
    const threadId = await startThread(client, { cwd: h.work, ...FULL_ACCESS });
    const pidFile = join(h.work, "sleep.pid");
    h.model.enqueue(turn(sleeper(pidFile)));
    const { turn: started } = await client.call("turn/start", {
      threadId,
      input: [{ type: "text", text: "sleep" }],
    });
    const pid = await readPid(pidFile);
    const reply = await client.request("turn/interrupt", { threadId, turnId: started.id });
    expect(reply.result).toEqual({});
    const completed = await client.turnCompleted(started.id);
    expect(completed.params.turn).toEqual({
      id: started.id,
      items: [],
      itemsView: "summary",
      status: "interrupted",
      error: null,
    });
    expect(await gone(pid)).toBe(true);
    // The stored turn shows the stopped command as the live stream last completed it.
    const read = await client.call("thread/read", { threadId, includeTurns: true });
    const notPrompt = (item: WireItem) => item.type !== "userMessage";
    const live = liveItems(client, started.id).filter(notPrompt);
    expect(live.map((item) => [item.type, item.status])).toEqual([["commandExecution", "failed"]]);
    expect(read.thread.turns[0].items.map(withoutTimes).filter(notPrompt)).toEqual(live);
    expect(referenceSchemaFailures(client)).toEqual([]);
  });

  it("a client that goes away mid-turn interrupts it: nothing is left running", async () => {
    const client = await h.stdio();
    const threadId = await startThread(client, { cwd: h.work, ...FULL_ACCESS });
    const pidFile = join(h.work, "left.pid");
    h.model.enqueue(turn(sleeper(pidFile)));
    await client.call("turn/start", { threadId, input: [{ type: "text", text: "sleep" }] });
    const pid = await readPid(pidFile);
    await client.close();
    expect(await client.exited).toBe(0);
    expect(await gone(pid)).toBe(true);
    // The stored turn says what happened.
    const again = await h.stdio();
    const { thread } = await again.call("thread/read", { threadId, includeTurns: true });
    expect(thread.turns.map((t: { status: string }) => t.status)).toEqual(["interrupted"]);
  });
});

describe("app-server: resume after a restart", () => {
  it("continues a thread with its history and its client tools", async () => {
    const first = await h.stdio();
    const weather = {
      type: "function",
      name: "lookup_weather",
      description: "Weather.",
      inputSchema: { type: "object", properties: { city: { type: "string" } } },
    };
    const threadId = await startThread(first, { cwd: h.work, dynamicTools: [weather] });
    h.model.enqueue(turn(message("remembered: blue")));
    await runTurn(first, threadId, "my colour is blue");
    await first.close();

    const second = await h.stdio();
    second.onRequest = () => ({
      result: { contentItems: [{ type: "inputText", text: "rainy" }], success: true },
    });
    expect((await second.call("thread/loaded/list", {})).data).toEqual([]);
    const resumed = await second.call("thread/resume", { threadId });
    expect(resumed.thread).toMatchObject({ id: threadId, preview: "my colour is blue", cwd: h.work });
    expect(resumed.thread.turns).toEqual([
      {
        id: "0",
        items: [
          expect.objectContaining({
            type: "userMessage",
            content: [{ type: "text", text: "my colour is blue", text_elements: [] }],
          }),
          expect.objectContaining({ type: "agentMessage", text: "remembered: blue" }),
        ],
        itemsView: "full",
        status: "completed",
        error: null,
      },
    ]);
    h.model.enqueue(
      turn(functionCall("lookup_weather", { city: "Oslo" }, "call_1")),
      turn(message("blue, and rainy")),
    );
    const { turnId, completed } = await runTurn(second, threadId, "what was my colour?");
    expect(turnId).toBe("1");
    expect(completed.params.turn.status).toBe("completed");
    const request = h.model.requests[1];
    expect(userTexts(request?.input ?? [])).toEqual(
      expect.arrayContaining(["my colour is blue", "what was my colour?"]),
    );
    expect(request?.toolNames).toContain("lookup_weather");
    expect(referenceSchemaFailures(second)).toEqual([]);
  });
});

describe("app-server: loading a stored thread", () => {
  it("thread/resume tells the resuming client the thread's last token usage, after the reply", async () => {
    const first = await h.stdio();
    const threadId = await startThread(first, { cwd: h.work, ...FULL_ACCESS });
    h.model.enqueue(
      turn(message("one"), usage({ input: 1_000, output: 100 })),
      turn(message("two"), usage({ input: 2_000, output: 200 })),
    );
    await runTurn(first, threadId, "first");
    await runTurn(first, threadId, "second");
    await first.close();

    const second = await h.stdio();
    const resumed = await second.call("thread/resume", { threadId });
    const restored = await second.waitFor((m) => m.method === "thread/tokenUsage/updated");
    expect(second.received.indexOf(restored)).toBeGreaterThan(
      second.received.findIndex((m) => m.result?.thread?.id === threadId),
    );
    expect(restored.params).toMatchObject({
      threadId,
      turnId: resumed.thread.turns.at(-1).id,
      tokenUsage: {
        last: { inputTokens: 2_000, outputTokens: 200, totalTokens: 2_200 },
        total: { totalTokens: 3_300 },
        modelContextWindow: 272_000,
      },
    });
    expect(referenceSchemaFailures(second)).toEqual([]);
  });

  it("turn/start loads it with the model and policies it started with, not the config's defaults", async () => {
    const first = await h.stdio();
    const threadId = await startThread(first, { cwd: h.work, model: "gpt-5.1-codex", ...FULL_ACCESS });
    h.model.enqueue(turn(message("ready")));
    await runTurn(first, threadId, "get ready");
    await first.close();

    // The config says read-only + on-request; the thread said danger-full-access + never.
    const second = await h.stdio();
    h.model.enqueue(
      turn(functionCall("shell_command", { command: "touch restored.txt" }, "call_1")),
      turn(message("touched")),
    );
    const { completed } = await runTurn(second, threadId, "touch it");
    expect(completed.params.turn.status).toBe("completed");
    expect(second.received.some((m) => m.method?.endsWith("requestApproval"))).toBe(false);
    expect(await readFile(join(h.work, "restored.txt"), "utf8")).toBe("");
    expect(h.model.requests[1]?.body.model).toBe("gpt-5.1-codex");
    const resumed = await second.call("thread/resume", { threadId });
    expect(resumed).toMatchObject({
      model: "gpt-5.1-codex",
      approvalPolicy: "never",
      sandbox: { type: "dangerFullAccess" },
    });
  });
});

describe("app-server: stored threads", () => {
  it("lists, reads and pages threads; loaded/list shows the ones in memory", async () => {
    const client = await h.stdio();
    const ids: string[] = [];
    for (const text of ["one", "two", "three"]) {
      const id = await startThread(client, { cwd: h.work });
      h.model.enqueue(turn(message(`answer ${text}`)));
      await runTurn(client, id, text);
      ids.push(id);
    }
    const all = await client.call("thread/list", {});
    expect(all.data.map((t: { id: string }) => t.id)).toEqual([...ids].reverse());
    expect(all.data[0]).toMatchObject({ preview: "three", modelProvider: "fake", turns: [] });
    const firstPage = await client.call("thread/list", { limit: 2 });
    expect(firstPage.data).toHaveLength(2);
    const secondPage = await client.call("thread/list", { limit: 2, cursor: firstPage.nextCursor });
    expect(secondPage).toMatchObject({ data: [{ id: ids[0] }], nextCursor: null });
    expect((await client.call("thread/list", { modelProviders: ["other"] })).data).toEqual([]);
    const loaded = await client.call("thread/loaded/list", {});
    expect([...loaded.data].sort()).toEqual([...ids].sort());
    const read = await client.call("thread/read", { threadId: ids[1], includeTurns: true });
    expect(read.thread.turns[0].items.map((item: { type: string }) => item.type)).toEqual([
      "userMessage",
      "agentMessage",
    ]);
    expect((await client.call("thread/read", { threadId: ids[1] })).thread.turns).toEqual([]);
    expect(referenceSchemaFailures(client)).toEqual([]);
  });

  it("forks a thread into a new one that continues from its history", async () => {
    const client = await h.stdio();
    const threadId = await startThread(client, { cwd: h.work });
    h.model.enqueue(turn(message("original answer")));
    await runTurn(client, threadId, "original question");
    const forked = await client.call("thread/fork", { threadId });
    expect(forked.thread.id).not.toBe(threadId);
    expect(forked.thread.turns).toHaveLength(1);
    await client.waitFor((m) => m.method === "thread/started" && m.params.thread.id === forked.thread.id);
    h.model.enqueue(turn(message("fork answer")));
    await runTurn(client, forked.thread.id, "fork question");
    expect(userTexts(h.model.requests[1]?.input ?? [])).toEqual(
      expect.arrayContaining(["original question", "fork question"]),
    );
    const original = await client.call("thread/read", { threadId, includeTurns: true });
    expect(original.thread.turns).toHaveLength(1);
    expect(referenceSchemaFailures(client)).toEqual([]);
  });

  it("rolls back the last turns: the model no longer sees them", async () => {
    const client = await h.stdio();
    const threadId = await startThread(client, { cwd: h.work });
    h.model.enqueue(turn(message("a1")), turn(message("a2")), turn(message("a3")));
    await runTurn(client, threadId, "keep this");
    await runTurn(client, threadId, "drop this");
    const rolled = await client.call("thread/rollback", { threadId, numTurns: 1 });
    expect(rolled.thread.turns.map((t: { id: string }) => t.id)).toEqual(["0"]);
    const { turnId } = await runTurn(client, threadId, "after rollback");
    expect(turnId).toBe("1");
    const texts = userTexts(h.model.requests[2]?.input ?? []);
    expect(texts).toContain("keep this");
    expect(texts).not.toContain("drop this");
    expect(referenceSchemaFailures(client)).toEqual([]);
  });

  it("archives a thread: out of the list, in the archived list, no more turns", async () => {
    const client = await h.stdio();
    const threadId = await startThread(client, { cwd: h.work });
    h.model.enqueue(turn(message("done")));
    await runTurn(client, threadId, "archive me");
    expect(await client.call("thread/archive", { threadId })).toEqual({});
    expect((await client.call("thread/list", {})).data).toEqual([]);
    expect(
      (await client.call("thread/list", { archived: true })).data.map((t: { id: string }) => t.id),
    ).toEqual([threadId]);
    expect((await client.call("thread/loaded/list", {})).data).toEqual([]);
    const refused = await client.request("turn/start", { threadId, input: [{ type: "text", text: "more" }] });
    expect(refused.error).toEqual({ code: -32600, message: `thread not found: ${threadId}` });
    expect((await client.call("thread/read", { threadId })).thread.id).toBe(threadId);
  });

  it("refuses to archive or roll back a thread while a turn runs", async () => {
    const client = await h.stdio();
    const threadId = await startThread(client, { cwd: h.work, ...FULL_ACCESS });
    const pidFile = join(h.work, "busy.pid");
    h.model.enqueue(turn(sleeper(pidFile)));
    const { turn: running } = await client.call("turn/start", {
      threadId,
      input: [{ type: "text", text: "x" }],
    });
    await readPid(pidFile);
    for (const [method, params] of [
      ["thread/archive", { threadId }],
      ["thread/rollback", { threadId, numTurns: 1 }],
    ] as const) {
      const reply = await client.request(method, params);
      expect(reply.error?.message).toContain("interrupt it first");
    }
    await client.call("turn/interrupt", { threadId, turnId: running.id });
    await client.turnCompleted(running.id);
  });
});

describe("app-server: stdio end of input", () => {
  it("exits 0 when the client closes stdin between turns", async () => {
    const client = new StdioAppClient({ home: h.home, cwd: h.work });
    h.defer(client);
    await client.initialize();
    await client.close();
    expect(await client.exited).toBe(0);
  });
});
