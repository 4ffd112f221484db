/**
 * Codex 0.169's thread edits through the real app-server: thread/name/set (kept in the store
 * across a restart, JSONL and PostgreSQL, shown by thread/list and thread/read),
 * thread/metadata/update, thread/unarchive, thread/revert, thread/items/list,
 * thread/inject_items, and the 0.169 fields of thread/start|resume|fork; every message checked
 * against Codex's schemas (both 0.89's and 0.169's where a reply is in both).
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AppClient, StdioAppClient } from "../support/app-server-client.js";
import { useAppServerHarness } from "../support/app-server-harness.js";
import { referenceSchemaFailures } from "../support/app-server-schemas.js";
import { functionCall, hang, message, turn } from "../support/fake-model-server.js";
import { noPostgres, type PostgresCluster, startPostgres } from "../support/postgres.js";
import { readPid } from "../support/processes.js";
import { runTurn, startThread } from "./flow.js";

/** A thread busy in another process is reported after 300 ms (PostgreSQL), not the default 5 s. */
const h = useAppServerHarness({ extraConfig: "[store]\nlease_wait_ms = 300" });

const FULL_ACCESS = { approvalPolicy: "never", sandbox: "danger-full-access" };

function userTexts(input: unknown[]): string[] {
  return input.flatMap((item) => {
    const entry = item as { type?: string; role?: string; content?: { text?: string }[] };
    return entry.type === "message" ? (entry.content ?? []).map((part) => part.text ?? "") : [];
  });
}

/** Name a thread, then read it back from a second server on the same store. */
async function nameSurvivesRestart(env: Record<string, string> = {}) {
  const first = new StdioAppClient({ home: h.home, cwd: h.work, env });
  h.defer(first);
  await first.initialize();
  const threadId = await startThread(first, { cwd: h.work });
  h.model.enqueue(turn(message("hi")));
  await runTurn(first, threadId, "hello");
  expect(await first.call("thread/name/set", { threadId, name: "  Parser fix  " })).toEqual({});
  const updated = await first.waitFor((m) => m.method === "thread/name/updated");
  expect(updated.params).toEqual({ threadId, threadName: "Parser fix" });
  expect(referenceSchemaFailures(first)).toEqual([]);
  await first.close();

  const second = new StdioAppClient({ home: h.home, cwd: h.work, env });
  h.defer(second);
  await second.initialize();
  const listed = await second.call("thread/list", {});
  expect(listed.data).toEqual([expect.objectContaining({ id: threadId, name: "Parser fix" })]);
  const read = await second.call("thread/read", { threadId });
  expect(read.thread).toMatchObject({ name: "Parser fix", status: { type: "notLoaded" } });
  const resumed = await second.call("thread/resume", { threadId });
  expect(resumed.thread).toMatchObject({ name: "Parser fix", status: { type: "idle" } });
  expect(referenceSchemaFailures(second)).toEqual([]);
}

describe("app-server: thread names and metadata (0.169)", () => {
  it("keeps a thread's name across a server restart (JSONL store)", async () => {
    await nameSurvivesRestart();
  });

  it("refuses an empty name and an unknown thread", async () => {
    const client = await h.stdio();
    const threadId = await startThread(client, { cwd: h.work });
    const empty = await client.request("thread/name/set", { threadId, name: "   " });
    expect(empty.error?.code).toBe(-32602);
    expect(empty.error?.message).toContain("must not be empty");
    const unknown = "00000000-0000-7000-8000-000000000000";
    for (const [method, params] of [
      ["thread/name/set", { threadId: unknown, name: "x" }],
      ["thread/metadata/update", { threadId: unknown, projectId: "p" }],
      ["thread/items/list", { threadId: unknown }],
      ["thread/revert", { threadId: unknown, beforeTurnId: "0" }],
      ["thread/inject_items", { threadId: unknown, items: [] }],
    ] as const) {
      const reply = await client.request(method, params);
      expect(reply.error, method).toEqual({ code: -32600, message: `thread not found: ${unknown}` });
    }
    const unarchive = await client.request("thread/unarchive", { threadId });
    expect(unarchive.error?.message).toBe(`no archived thread: ${threadId}`);
    const bad = await client.request("thread/name/set", { threadId: "nope", name: "x" });
    expect(bad.error?.message).toContain("invalid thread id");
    expect(referenceSchemaFailures(client)).toEqual([]);
  });

  it("updates metadata: absent fields stay, null clears; thread/read shows it", async () => {
    const client = await h.stdio();
    const threadId = await startThread(client, { cwd: h.work });
    const set = await client.call("thread/metadata/update", {
      threadId,
      gitInfo: { sha: "abc123", branch: "main", originUrl: "https://example.com/r.git" },
      projectId: "proj-1",
    });
    expect(set.thread).toMatchObject({
      id: threadId,
      gitInfo: { sha: "abc123", branch: "main", originUrl: "https://example.com/r.git" },
      projectId: "proj-1",
      daybreakEnabled: null,
    });
    const changed = await client.call("thread/metadata/update", {
      threadId,
      gitInfo: { branch: "feature", originUrl: null },
      daybreakEnabled: true,
    });
    expect(changed.thread).toMatchObject({
      gitInfo: { sha: "abc123", branch: "feature", originUrl: null },
      projectId: "proj-1",
      daybreakEnabled: true,
    });
    const cleared = await client.call("thread/metadata/update", { threadId, gitInfo: null, projectId: null });
    expect(cleared.thread).toMatchObject({ gitInfo: null, projectId: null, daybreakEnabled: true });
    const read = await client.call("thread/read", { threadId });
    expect(read.thread).toMatchObject({ gitInfo: null, projectId: null, daybreakEnabled: true });
    expect(referenceSchemaFailures(client)).toEqual([]);
  });

  it("unarchives a thread: back in the list, notified, turns run again", async () => {
    const client = await h.stdio();
    const threadId = await startThread(client, { cwd: h.work });
    h.model.enqueue(turn(message("one")), turn(message("two")));
    await runTurn(client, threadId, "before archive");
    await client.call("thread/name/set", { threadId, name: "kept" });
    await client.call("thread/archive", { threadId });
    expect((await client.call("thread/list", {})).data).toEqual([]);
    const { thread } = await client.call("thread/unarchive", { threadId });
    expect(thread).toMatchObject({ id: threadId, name: "kept", status: { type: "notLoaded" } });
    await client.waitFor((m) => m.method === "thread/unarchived" && m.params?.threadId === threadId);
    expect((await client.call("thread/list", {})).data.map((t: { id: string }) => t.id)).toEqual([threadId]);
    await runTurn(client, threadId, "after unarchive");
    expect(userTexts(h.model.requests[1]?.input ?? [])).toContain("before archive");
    expect(referenceSchemaFailures(client)).toEqual([]);
  });
});

describe("app-server: thread history edits (0.169)", () => {
  it("reverts to before a turn: that turn and later ones are gone for the model too", async () => {
    const client = await h.stdio();
    const threadId = await startThread(client, { cwd: h.work });
    h.model.enqueue(turn(message("a1")), turn(message("a2")), turn(message("a3")), turn(message("a4")));
    const kept = await runTurn(client, threadId, "keep this");
    const dropped = await runTurn(client, threadId, "drop this");
    await runTurn(client, threadId, "drop this too");
    const missing = await client.request("thread/revert", { threadId, beforeTurnId: "no-such-turn" });
    expect(missing.error).toEqual({
      code: -32600,
      message: `turn not found in thread ${threadId}: no-such-turn`,
    });
    await client.call("thread/name/set", { threadId, name: "named after turn 3" });
    const reverted = await client.call("thread/revert", { threadId, beforeTurnId: dropped.turnId });
    expect(reverted.thread.turns.map((t: { id: string }) => t.id)).toEqual([kept.turnId]);
    // The name is about the thread, not the dropped turns: it stays.
    expect(reverted.thread.name).toBe("named after turn 3");
    await client.waitFor((m) => m.method === "thread/reverted" && m.params?.threadId === threadId);
    await runTurn(client, threadId, "after revert");
    const texts = userTexts(h.model.requests[3]?.input ?? []);
    expect(texts).toContain("keep this");
    expect(texts).not.toContain("drop this");
    expect(texts).not.toContain("drop this too");
    // thread/rollback still counts from the end.
    const rolled = await client.call("thread/rollback", { threadId, numTurns: 1 });
    expect(rolled.thread.turns.map((t: { id: string }) => t.id)).toEqual([kept.turnId]);
    expect(referenceSchemaFailures(client)).toEqual([]);
  });

  it("refuses to revert or inject while a turn runs", async () => {
    const client = await h.stdio();
    const threadId = await startThread(client, { cwd: h.work, ...FULL_ACCESS });
    const pidFile = join(h.work, "busy.pid");
    h.model.enqueue(
      turn(functionCall("shell_command", { command: `echo $$ > ${pidFile}; exec sleep 30` }, "call_1")),
    );
    const { turn: running } = await client.call("turn/start", {
      threadId,
      input: [{ type: "text", text: "x" }],
    });
    await readPid(pidFile);
    const revert = await client.request("thread/revert", { threadId, beforeTurnId: running.id });
    expect(revert.error?.message).toContain("interrupt it first");
    const inject = await client.request("thread/inject_items", {
      threadId,
      items: [{ type: "message", role: "user", content: [{ type: "input_text", text: "late" }] }],
    });
    expect(inject.error?.message).toContain("interrupt it first");
    // A name can still be set while it runs.
    expect(await client.call("thread/name/set", { threadId, name: "busy" })).toEqual({});
    await client.call("turn/interrupt", { threadId, turnId: running.id });
    await client.turnCompleted(running.id);
    expect((await client.call("thread/read", { threadId })).thread.name).toBe("busy");
    expect(referenceSchemaFailures(client)).toEqual([]);
  });

  it("lists items by turn, in either direction, paged by position or after an item", async () => {
    const client = await h.stdio();
    const threadId = await startThread(client, { cwd: h.work });
    h.model.enqueue(turn(message("answer one")), turn(message("answer two")));
    const first = await runTurn(client, threadId, "question one");
    const second = await runTurn(client, threadId, "question two");
    const all = await client.call("thread/items/list", { threadId });
    const summary = all.data.map((e: { turnId: string; item: { type: string } }) => [e.turnId, e.item.type]);
    expect(summary).toEqual([
      [first.turnId, "userMessage"],
      [first.turnId, "agentMessage"],
      [second.turnId, "userMessage"],
      [second.turnId, "agentMessage"],
    ]);
    expect(all.nextCursor).toBeNull();
    const desc = await client.call("thread/items/list", { threadId, sortDirection: "desc", limit: 1 });
    expect(desc.data.map((e: { item: { text?: string } }) => e.item.text)).toEqual(["answer two"]);
    const next = await client.call("thread/items/list", {
      threadId,
      sortDirection: "desc",
      limit: 1,
      cursor: desc.nextCursor,
    });
    expect(next.data[0].item.type).toBe("userMessage");
    const afterFirst = await client.call("thread/items/list", {
      threadId,
      cursor: { type: "item", itemId: all.data[1].item.id },
    });
    expect(afterFirst.data.map((e: { turnId: string }) => e.turnId)).toEqual([second.turnId, second.turnId]);
    const oneTurn = await client.call("thread/items/list", { threadId, turnId: first.turnId });
    expect(oneTurn.data).toHaveLength(2);
    const badTurn = await client.request("thread/items/list", { threadId, turnId: "nope" });
    expect(badTurn.error?.message).toBe(`turn not found in thread ${threadId}: nope`);
    expect(referenceSchemaFailures(client)).toEqual([]);
  });

  it("injects raw items the model sees on the next turn; refuses items that are not response items", async () => {
    const client = await h.stdio();
    const threadId = await startThread(client, { cwd: h.work });
    h.model.enqueue(turn(message("first")), turn(message("second")));
    await runTurn(client, threadId, "start");
    const note = { type: "message", role: "user", content: [{ type: "input_text", text: "injected note" }] };
    expect(await client.call("thread/inject_items", { threadId, items: [note] })).toEqual({});
    const bad = await client.request("thread/inject_items", { threadId, items: [note, { type: "bogus" }] });
    expect(bad.error?.code).toBe(-32602);
    expect(bad.error?.message).toContain("items: item 1");
    await runTurn(client, threadId, "go on");
    const texts = userTexts(h.model.requests[1]?.input ?? []);
    expect(texts.indexOf("injected note")).toBeGreaterThan(texts.indexOf("start"));
    expect(texts.indexOf("injected note")).toBeLessThan(texts.indexOf("go on"));
    expect(referenceSchemaFailures(client)).toEqual([]);
  });
});

describe("app-server: 0.169's thread/start, resume and fork fields", () => {
  async function checkOpened(client: AppClient, reply: Record<string, unknown>, cwd: string) {
    expect(Object.keys(reply)).toEqual([
      "thread",
      "model",
      "modelProvider",
      "serviceTier",
      "disabledPluginIds",
      "cwd",
      "runtimeWorkspaceRoots",
      "instructionSources",
      "approvalPolicy",
      "approvalsReviewer",
      "sandbox",
      "activePermissionProfile",
      "reasoningEffort",
      "multiAgentMode",
    ]);
    expect(reply).toMatchObject({
      approvalsReviewer: "user",
      runtimeWorkspaceRoots: [cwd],
      instructionSources: [join(h.home, "AGENTS.md"), join(cwd, "AGENTS.md")],
      multiAgentMode: "explicitRequestOnly",
      disabledPluginIds: [],
    });
    expect(reply.thread).toMatchObject({ sessionId: expect.any(String), ephemeral: false, projectId: null });
    expect(referenceSchemaFailures(client)).toEqual([]);
  }

  it("answers with every field 0.169 requires, over WebSocket, and true instruction sources", async () => {
    await writeFile(join(h.home, "AGENTS.md"), "be brief\n");
    const cwd = join(h.work, "repo");
    await mkdir(join(cwd, ".git"), { recursive: true });
    await writeFile(join(cwd, "AGENTS.md"), "run the tests\n");
    const server = await h.wsServer();
    const client = await server.connect();
    h.defer(client);
    await client.initialize();
    const started = await client.call("thread/start", { cwd });
    await checkOpened(client, started, cwd);
    expect(started.thread.status).toEqual({ type: "idle" });
    const threadId = started.thread.id;
    h.model.enqueue(turn(message("ok")));
    await runTurn(client, threadId, "hello");
    await checkOpened(client, await client.call("thread/resume", { threadId }), cwd);
    const forked = await client.call("thread/fork", { threadId });
    await checkOpened(client, forked, cwd);
    expect(forked.thread.forkedFromId).toBe(threadId);
  });
});

const skipPostgres = noPostgres("the app-server PostgreSQL name test");

describe.skipIf(skipPostgres)("app-server: thread names in PostgreSQL", () => {
  let cluster: PostgresCluster;
  beforeAll(async () => {
    cluster = await startPostgres();
  }, 60_000);
  afterAll(async () => {
    await cluster?.stop();
  });

  it("keeps a thread's name across a server restart (PostgreSQL store)", async () => {
    await nameSurvivesRestart({ TSCODEX_STORE_URL: await cluster.createDatabase() });
  });

  it("names a thread another server is running a turn on only once that turn ends", async () => {
    const env = { TSCODEX_STORE_URL: await cluster.createDatabase() };
    const [x, y] = [
      new StdioAppClient({ home: h.home, cwd: h.work, env }),
      new StdioAppClient({ home: h.home, cwd: h.work, env }),
    ];
    h.defer(x);
    h.defer(y);
    await Promise.all([x.initialize(), y.initialize()]);
    const threadId = await startThread(x, { cwd: h.work });
    h.model.enqueue(turn(hang()));
    const { turn: running } = await x.call("turn/start", {
      threadId,
      input: [{ type: "text", text: "slow" }],
    });
    await h.model.waitForRequests(1);
    const busy = await y.request("thread/name/set", { threadId, name: "from y" });
    expect(busy.error?.code).toBe(-32600);
    expect(busy.error?.message).toMatch(/in use by another tscodex process/);
    await x.call("turn/interrupt", { threadId, turnId: running.id });
    await x.turnCompleted(running.id);
    // x keeps the thread in memory only briefly on a shared store; then y may write.
    await expect
      .poll(async () => (await y.request("thread/name/set", { threadId, name: "from y" })).error ?? null, {
        timeout: 10_000,
      })
      .toBeNull();
    expect((await x.call("thread/read", { threadId })).thread.name).toBe("from y");
    expect(referenceSchemaFailures(y)).toEqual([]);
  });
});
