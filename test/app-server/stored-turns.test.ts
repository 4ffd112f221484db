/**
 * A stored thread's turns hold every item its live stream completed (Codex returns them all;
 * codex-acp replays them on `session/load`): one turn with reasoning, a command, a patch, an MCP
 * tool call, a client tool call, a web search and the answer, through the real app-server. The
 * items of the live `item/completed` notifications must come back equal (same ids, types, final
 * fields, order) from thread/read, thread/turns/list (paged) and thread/resume, read by a fresh
 * server from the store, JSONL and PostgreSQL alike; `turn/completed` carries Codex's summary.
 *
 * Fields that legitimately differ are left out of the comparison: `startedAtMs` / `completedAtMs`
 * (when the live stream sent it, not part of what the item is). A user message's content is the
 * client's input echoed as sent, so the prompts here carry `text_elements: []`, as a stored
 * prompt is shown.
 */
import { appendFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AppClient, StdioAppClient, type WireMessage } from "../support/app-server-client.js";
import { useAppServerHarness } from "../support/app-server-harness.js";
import { referenceSchemaFailures } from "../support/app-server-schemas.js";
import {
  customToolCall,
  functionCall,
  message,
  reasoning,
  turn,
  webSearchCall,
} from "../support/fake-model-server.js";
import { fixtureToml } from "../support/mcp-fixture.js";
import { noPostgres, type PostgresCluster, startPostgres } from "../support/postgres.js";
import { liveItems, type WireItem, withoutTimes } from "./flow.js";

const h = useAppServerHarness();

const WEATHER = {
  type: "function",
  name: "lookup_weather",
  description: "Current weather of a city.",
  inputSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
};
const PATCH = "*** Begin Patch\n*** Add File: notes.txt\n+kept\n*** End Patch\n";

type Item = WireItem;

/** `text` as a prompt whose echo equals the stored prompt's content. */
function prompt(text: string) {
  return [{ type: "text", text, text_elements: [] }];
}

const essence = withoutTimes;

function itemsOf(turnEntry: { items: Item[] }): Item[] {
  return turnEntry.items.map(essence);
}

/** A client on the harness's home (with `env`: its store), answering the weather tool. */
function openClient(env: Record<string, string>): StdioAppClient {
  const client = new StdioAppClient({ home: h.home, cwd: h.work, env });
  h.defer(client);
  client.onRequest = (request: WireMessage) =>
    request.method === "item/tool/call"
      ? { result: { contentItems: [{ type: "inputText", text: "sunny, 21C" }], success: true } }
      : null;
  return client;
}

/** Run the turn with every kind of item, then a short second turn; returns the ids and live items. */
async function runEverything(client: AppClient) {
  const { thread } = await client.call("thread/start", {
    cwd: h.work,
    approvalPolicy: "never",
    sandbox: "danger-full-access",
    dynamicTools: [WEATHER],
  });
  const threadId = String(thread.id);
  h.model.enqueue(
    turn(
      reasoning(["**Look** at the tree"], { raw: "A command first." }),
      functionCall("shell_command", { command: "echo out; echo err >&2; exit 3" }, "call_cmd"),
    ),
    turn(customToolCall("apply_patch", PATCH, "call_patch")),
    turn(functionCall("mcp__fixture__echo", { text: "hi" }, "call_mcp")),
    turn(functionCall("lookup_weather", { city: "Paris" }, "call_tool")),
    // Raw reasoning text with no summary part first (open-weight models stream only that).
    turn(reasoning([], { raw: "Now search." }), webSearchCall("weather in Paris"), message("all done")),
    turn(message("second answer")),
  );
  const from = client.received.length;
  const first = await client.call("turn/start", { threadId, input: prompt("do everything") });
  const firstId = String(first.turn.id);
  const completed = await client.turnCompleted(firstId, from);
  const second = await client.call("turn/start", { threadId, input: prompt("and again") });
  const secondId = String(second.turn.id);
  await client.turnCompleted(secondId, from);
  return {
    threadId,
    turnIds: [firstId, secondId],
    live: [liveItems(client, firstId), liveItems(client, secondId)],
    completed,
  };
}

/** The thread's turns as each read method returns them, from `client`. */
async function storedTurns(client: AppClient, threadId: string) {
  const read = await client.call("thread/read", { threadId, includeTurns: true });
  const pages: { items: Item[]; id: string; itemsView?: string }[] = [];
  let cursor: string | null = null;
  do {
    const page: { data: typeof pages; nextCursor: string | null } = await client.call("thread/turns/list", {
      threadId,
      limit: 1,
      cursor,
    });
    pages.push(...page.data);
    cursor = page.nextCursor;
  } while (cursor !== null);
  const summary = await client.call("thread/turns/list", { threadId, itemsView: "summary" });
  // thread/items/list (0.169): the same items, item by item, paged.
  const items: { turnId: string; item: Item }[] = [];
  cursor = null;
  do {
    const page: { data: typeof items; nextCursor: string | null } = await client.call("thread/items/list", {
      threadId,
      limit: 3,
      cursor,
    });
    items.push(...page.data);
    cursor = page.nextCursor;
  } while (cursor !== null);
  return { read: read.thread.turns, listed: pages, summary: summary.data, items };
}

/** Every read of the stored thread, from a fresh server on the same store, equals the live items. */
async function expectStoredEqualsLive(env: Record<string, string>) {
  await appendFile(join(h.home, "config.toml"), `\n${await fixtureToml({ name: "fixture" })}`);
  const first = openClient(env);
  await first.initialize();
  const { threadId, turnIds, live, completed } = await runEverything(first);

  const kinds = live[0]?.map((item) => item.type);
  expect(kinds).toEqual([
    "userMessage",
    "reasoning",
    "commandExecution",
    "fileChange",
    "mcpToolCall",
    "dynamicToolCall",
    "reasoning",
    "webSearch",
    "agentMessage",
  ]);
  const command = live[0]?.find((item) => item.type === "commandExecution");
  expect(command).toMatchObject({ id: "call_cmd", status: "failed", exitCode: 3 });
  expect(String(command?.aggregatedOutput)).toContain("out");

  // Codex's turn/completed carries the turn's summary view: its final answer.
  const answer = live[0]?.at(-1);
  expect.soft(completed.params.turn.itemsView).toBe("summary");
  expect.soft(completed.params.turn.items.map(essence)).toEqual([answer]);

  // The same server, the thread still in memory.
  const inMemory = await storedTurns(first, threadId);
  expect.soft(inMemory.read.map(itemsOf)).toEqual(live);
  await first.close();

  // A fresh process reading the store.
  const second = openClient(env);
  await second.initialize();
  const fresh = await storedTurns(second, threadId);
  expect(fresh.read.map((entry: { id: string }) => entry.id)).toEqual(turnIds);
  expect.soft(fresh.read.map(itemsOf)).toEqual(live);
  expect(fresh.listed.map((entry) => entry.id)).toEqual(turnIds);
  expect.soft(fresh.listed.map(itemsOf)).toEqual(live);
  expect.soft(fresh.listed.every((entry) => entry.itemsView === "full")).toBe(true);
  expect
    .soft(fresh.items.map(({ turnId, item }) => [turnId, essence(item)]))
    .toEqual(live.flatMap((items, index) => items.map((item) => [turnIds[index], item])));
  // The summary view: each turn's prompt and final answer.
  expect.soft(fresh.summary.map(itemsOf)).toEqual(live.map((items) => [items[0], items.at(-1)]));
  // A client that pages the turns itself asks for none (codex-acp's session/load does).
  const bare = await second.call("thread/resume", { threadId, excludeTurns: true });
  expect.soft(bare.thread.turns).toEqual([]);
  const resumed = await second.call("thread/resume", { threadId });
  expect.soft(resumed.thread.turns.map(itemsOf)).toEqual(live);
  expect(referenceSchemaFailures(first)).toEqual([]);
  expect(referenceSchemaFailures(second)).toEqual([]);
  await second.close();
}

describe("app-server: stored turns hold every item", () => {
  it("thread/read, thread/turns/list and thread/resume give back the live items (JSONL store)", async () => {
    await expectStoredEqualsLive({});
  }, 90_000);
});

const skipPostgres = noPostgres("the app-server stored turns test on PostgreSQL");

describe.skipIf(skipPostgres)("app-server: stored turns hold every item, in PostgreSQL", () => {
  let cluster: PostgresCluster;
  beforeAll(async () => {
    cluster = await startPostgres();
  }, 60_000);
  afterAll(async () => {
    await cluster?.stop();
  });

  it("thread/read, thread/turns/list and thread/resume give back the live items (PostgreSQL store)", async () => {
    await expectStoredEqualsLive({ TSCODEX_STORE_URL: await cluster.createDatabase() });
  }, 90_000);
});
