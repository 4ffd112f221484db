/**
 * Codex 0.171's methods that clients such as codex-acp call before and around a session,
 * through the real app-server: account/* for API-key accounts (login keeps the key in the
 * server's memory, never on disk or in a reply), permissionProfile/list, thread goals (kept in
 * the store across a restart, JSONL and PostgreSQL), modelProvider/default/set, thread/list's
 * includedThreadIds (both stores), `environmentId` on the MCP methods, and the W3C `trace`
 * envelope on any request. Replies and notifications are checked against 0.171's schema.
 */
import { appendFile, readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Ajv } from "ajv";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { classify } from "../../src/frontends/app-server/protocol/jsonrpc.js";
import { type AppClient, StdioAppClient } from "../support/app-server-client.js";
import { useAppServerHarness } from "../support/app-server-harness.js";
import { message, turn } from "../support/fake-model-server.js";
import { fixtureToml } from "../support/mcp-fixture.js";
import { noPostgres, type PostgresCluster, startPostgres } from "../support/postgres.js";
import { runTurn, startThread } from "./flow.js";

const h = useAppServerHarness();

const SCHEMAS = fileURLToPath(new URL("../fixtures/reference/app-server/schema-171/", import.meta.url));
const ajv = new Ajv({ strict: false, validateFormats: false });

/** `value`'s problems against 0.171's `name` schema (empty when it matches). */
async function schemaErrors(name: string, value: unknown): Promise<string> {
  const schema = JSON.parse(await readFile(join(SCHEMAS, name), "utf8")) as object;
  const validate = ajv.compile(schema);
  return validate(value) ? "" : `${name}: ${ajv.errorsText(validate.errors)} in ${JSON.stringify(value)}`;
}

async function expectShape(name: string, value: unknown): Promise<void> {
  expect(await schemaErrors(`v2/${name}.json`, value)).toBe("");
}

/** A server whose provider key (FAKE_KEY) is `key` ("" = unset). */
async function serverWithKey(key: string, env: Record<string, string> = {}): Promise<StdioAppClient> {
  const client = new StdioAppClient({ home: h.home, cwd: h.work, env: { FAKE_KEY: key, ...env } });
  h.defer(client);
  const reply = await client.initialize();
  if (reply.error) throw new Error(reply.error.message);
  return client;
}

function notified(client: AppClient, method: string) {
  return client.received.filter((m) => m.method === method && m.id === undefined);
}

describe("app-server: account methods for API-key accounts (0.171)", () => {
  it("reads the account from the provider's key, and needs no OpenAI auth", async () => {
    const keyed = await serverWithKey("sk-test");
    const read = await keyed.call("account/read", { refreshToken: false });
    expect(read).toEqual({ account: { type: "apiKey" }, requiresOpenaiAuth: false, userId: null });
    await expectShape("GetAccountResponse", read);

    const keyless = await serverWithKey("");
    const none = await keyless.call("account/read", {});
    expect(none).toEqual({ account: null, requiresOpenaiAuth: false, userId: null });
    await expectShape("GetAccountResponse", none);
  });

  it("logs in with an API key the turns then use, never shown, and logs out", async () => {
    const client = await serverWithKey("");
    const secret = "sk-login-5e3b9f";
    const login = await client.call("account/login/start", { type: "apiKey", apiKey: secret });
    expect(login).toEqual({ type: "apiKey" });
    await expectShape("LoginAccountResponse", login);
    const completed = await client.waitFor((m) => m.method === "account/login/completed");
    expect(completed.params).toEqual({ loginId: null, success: true, error: null });
    await expectShape("AccountLoginCompletedNotification", completed.params);
    const updated = await client.waitFor((m) => m.method === "account/updated");
    expect(updated.params).toEqual({ authMode: "apikey", planType: null });
    await expectShape("AccountUpdatedNotification", updated.params);
    expect((await client.call("account/read", {})).account).toEqual({ type: "apiKey" });

    // The model server sees the key; nothing the server sent or wrote holds it.
    const threadId = await startThread(client, { cwd: h.work });
    h.model.enqueue(turn(message("keyed")));
    await runTurn(client, threadId, "hello");
    expect(h.model.requests.at(-1)?.headers.authorization).toBe(`Bearer ${secret}`);
    expect(JSON.stringify(client.received)).not.toContain(secret);
    expect(client.stderr).not.toContain(secret);
    for (const file of await readdir(h.home, { recursive: true })) {
      const text = await readFile(join(h.home, file), "utf8").catch(() => "");
      expect(text, file).not.toContain(secret);
    }

    const cancel = await client.call("account/login/cancel", { loginId: "none" });
    expect(cancel).toEqual({ status: "notFound" });
    await expectShape("CancelLoginAccountResponse", cancel);
    const logout = await client.call("account/logout");
    expect(logout).toEqual({});
    await expectShape("LogoutAccountResponse", logout);
    await client.waitFor((m) => m.method === "account/updated" && m.params?.authMode === null);
    expect((await client.call("account/read", {})).account).toBeNull();
    // A logout with no login to forget is told too (clients wait for account/updated).
    expect(await client.call("account/logout")).toEqual({});
    await client.waitFor(() => notified(client, "account/updated").length === 3);
    for (const note of notified(client, "account/updated"))
      await expectShape("AccountUpdatedNotification", note.params);
  });

  it("refuses ChatGPT and cloud logins with a clear error", async () => {
    const client = await serverWithKey("sk-test");
    for (const params of [
      { type: "chatgpt" },
      { type: "chatgptDeviceCode" },
      { type: "amazonBedrock", apiKey: "k", region: "us-east-1" },
    ]) {
      const reply = await client.request("account/login/start", params);
      expect(reply.error?.code).toBe(-32600);
      expect(reply.error?.message).toContain('supports only API-key login (`type: "apiKey"`)');
    }
    expect(notified(client, "account/updated")).toEqual([]);
  });

  it("answers rate limits without ChatGPT windows (an API-key account has none)", async () => {
    const client = await serverWithKey("sk-test");
    for (const params of [undefined, {}, { excludeResetCreditDetails: true }]) {
      const limits = await client.call("account/rateLimits/read", params);
      expect(limits.rateLimits).toMatchObject({ primary: null, secondary: null, credits: null });
      await expectShape("GetAccountRateLimitsResponse", limits);
    }
  });
});

describe("app-server: permission profiles and the default provider (0.171)", () => {
  it("lists the built-in permission profiles, all allowed, and pages them", async () => {
    const client = await h.stdio();
    const all = await client.call("permissionProfile/list", { cwd: h.work, cursor: null });
    expect(all).toEqual({
      data: [
        { id: ":read-only", description: null, allowed: true },
        { id: ":workspace", description: null, allowed: true },
        { id: ":danger-full-access", description: null, allowed: true },
      ],
      nextCursor: null,
    });
    await expectShape("PermissionProfileListResponse", all);
    const first = await client.call("permissionProfile/list", { limit: 2 });
    expect(first.data.map((p: { id: string }) => p.id)).toEqual([":read-only", ":workspace"]);
    const rest = await client.call("permissionProfile/list", { cursor: first.nextCursor });
    expect(rest).toEqual({
      data: [expect.objectContaining({ id: ":danger-full-access" })],
      nextCursor: null,
    });
  });

  it("sets the default model provider in config.toml, refusing an unknown one", async () => {
    const client = await h.stdio();
    expect((await client.call("modelProvider/list", {})).defaultProviderId).toBe("fake");
    expect(await client.call("modelProvider/default/set", { providerId: "oss" })).toEqual({});
    expect((await client.call("modelProvider/list", {})).defaultProviderId).toBe("oss");
    expect(await readFile(join(h.home, "config.toml"), "utf8")).toMatch(/^model_provider = "oss"$/m);
    const unknown = await client.request("modelProvider/default/set", { providerId: "nope" });
    expect(unknown.error?.code).toBe(-32602);
    expect(unknown.error?.message).toContain("unknown model provider `nope`");
  });
});

/** Set, change, read and clear a goal; it survives a restart of the server on the same store. */
async function goalsSurviveRestart(env: Record<string, string> = {}) {
  const first = await serverWithKey("sk-test", env);
  const threadId = await startThread(first, { cwd: h.work });
  h.model.enqueue(turn(message("hi")));
  await runTurn(first, threadId, "hello");
  expect(await first.call("thread/goal/get", { threadId })).toEqual({ goal: null });
  const missing = await first.request("thread/goal/set", { threadId, status: "paused" });
  expect(missing.error?.message).toContain("needs a non-empty objective");

  const set = await first.call("thread/goal/set", {
    threadId,
    objective: "Ship the parser",
    tokenBudget: 5000,
  });
  expect(set.goal).toMatchObject({
    threadId,
    objective: "Ship the parser",
    status: "active",
    tokenBudget: 5000,
    tokensUsed: 0,
    timeUsedSeconds: 0,
  });
  await expectShape("ThreadGoalSetResponse", set);
  const paused = await first.call("thread/goal/set", { threadId, status: "paused" });
  expect(paused.goal).toMatchObject({ objective: "Ship the parser", status: "paused", tokenBudget: 5000 });
  expect(paused.goal.createdAt).toBe(set.goal.createdAt);
  await first.waitFor((m) => m.method === "thread/goal/updated" && m.params?.goal.status === "paused");
  const updates = notified(first, "thread/goal/updated");
  expect(updates.map((m) => m.params?.goal.status)).toEqual(["active", "paused"]);
  for (const note of updates) await expectShape("ThreadGoalUpdatedNotification", note.params);
  await first.close();

  const second = await serverWithKey("sk-test", env);
  const got = await second.call("thread/goal/get", { threadId });
  expect(got).toEqual({ goal: paused.goal });
  await expectShape("ThreadGoalGetResponse", got);
  const cleared = await second.call("thread/goal/clear", { threadId });
  expect(cleared).toEqual({ cleared: true });
  await expectShape("ThreadGoalClearResponse", cleared);
  const note = await second.waitFor((m) => m.method === "thread/goal/cleared");
  expect(note.params).toEqual({ threadId });
  await expectShape("ThreadGoalClearedNotification", note.params);
  expect(await second.call("thread/goal/clear", { threadId })).toEqual({ cleared: false });
  expect(await second.call("thread/goal/get", { threadId })).toEqual({ goal: null });
  const unknown = await second.request("thread/goal/get", {
    threadId: "019a0000-0000-7000-8000-000000000000",
  });
  expect(unknown.error?.message).toContain("thread not found");
}

/** thread/list's includedThreadIds: only those threads, none for an empty list, at most 100. */
async function listsOnlyIncluded(env: Record<string, string> = {}) {
  const client = await serverWithKey("sk-test", env);
  const ids: string[] = [];
  for (const text of ["one", "two", "three"]) {
    const threadId = await startThread(client, { cwd: h.work });
    h.model.enqueue(turn(message(text)));
    await runTurn(client, threadId, text);
    ids.push(threadId);
  }
  const [one = "", two = "", three = ""] = ids;
  const listed = await client.call("thread/list", { includedThreadIds: [three, one, "not-a-thread"] });
  expect(listed.data.map((thread: { id: string }) => thread.id)).toEqual([three, one]);
  await expectShape("ThreadListResponse", listed);
  const paged = await client.call("thread/list", { includedThreadIds: [one, two], limit: 1 });
  expect(paged.data.map((thread: { id: string }) => thread.id)).toEqual([two]);
  const rest = await client.call("thread/list", { includedThreadIds: [one, two], cursor: paged.nextCursor });
  expect(rest.data.map((thread: { id: string }) => thread.id)).toEqual([one]);
  expect((await client.call("thread/list", { includedThreadIds: [] })).data).toEqual([]);
  // Plain paging too: a PostgreSQL store's cursor is not a number (it was refused as one).
  const firstTwo = await client.call("thread/list", { limit: 2 });
  expect(firstTwo.data.map((thread: { id: string }) => thread.id)).toEqual([three, two]);
  const last = await client.call("thread/list", { limit: 2, cursor: firstTwo.nextCursor });
  expect(last).toMatchObject({ data: [expect.objectContaining({ id: one })], nextCursor: null });
  expect((await client.call("thread/list", { includedThreadIds: null })).data).toHaveLength(3);
  const tooMany = await client.request("thread/list", {
    includedThreadIds: Array.from({ length: 101 }, (_, index) => `id-${index}`),
  });
  expect(tooMany.error?.code).toBe(-32602);
}

describe("app-server: thread goals and thread/list includedThreadIds (0.171)", () => {
  it("keeps a thread's goal across a server restart (JSONL store)", async () => {
    await goalsSurviveRestart();
  });

  it("lists only the included threads (JSONL store)", async () => {
    await listsOnlyIncluded();
  });
});

describe("app-server: environmentId on the MCP methods and the trace envelope (0.171)", () => {
  it("accepts the local environment's id on the MCP methods, echoes it, and refuses another", async () => {
    await appendFile(join(h.home, "config.toml"), `\n${await fixtureToml({ name: "fixture" })}`);
    const client = await serverWithKey("sk-test");
    const threadId = await startThread(client, { cwd: h.work });
    const startup = await client.waitFor(
      (m) => m.method === "mcpServer/startupStatus/updated" && m.params?.status === "ready",
    );
    expect(startup.params).toMatchObject({ name: "fixture", environmentId: null });
    const local = { environmentId: "local" };
    const statuses = await client.call("mcpServerStatus/list", { threadId, serverName: "fixture", ...local });
    expect(statuses.data).toEqual([expect.objectContaining({ name: "fixture", environmentId: "local" })]);
    const unscoped = await client.call("mcpServerStatus/list", {});
    expect(unscoped.data).toEqual([expect.objectContaining({ name: "fixture", environmentId: null })]);
    const echo = await client.call("mcpServer/tool/call", {
      threadId,
      server: "fixture",
      tool: "echo",
      arguments: { text: "scoped" },
      ...local,
    });
    expect(echo.content).toEqual([{ type: "text", text: "echo: scoped" }]);
    for (const [method, params] of [
      ["mcpServer/tool/call", { threadId, server: "fixture", tool: "echo", arguments: { text: "x" } }],
      ["mcpServer/resource/read", { threadId, server: "fixture", uri: "fixture://readme" }],
      ["mcpServerStatus/list", { threadId, serverName: "fixture" }],
      ["mcpServer/oauth/login", { name: "fixture" }],
    ] as const) {
      const reply = await client.request(method, { ...params, environmentId: "remote-1" });
      expect(reply.error?.code, method).toBe(-32600);
      expect(reply.error?.message).toContain("unknown environment `remote-1`");
    }
  });

  it("carries a request's W3C trace context, and drops one that is not the envelope", () => {
    const traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    const request = (trace: unknown) => JSON.stringify({ id: 1, method: "thread/list", params: {}, trace });
    expect(classify(request({ traceparent, tracestate: "vendor=1" }))).toMatchObject({
      kind: "request",
      trace: { traceparent, tracestate: "vendor=1" },
    });
    expect(classify(request({ traceparent }))).toMatchObject({ trace: { traceparent, tracestate: null } });
    for (const bad of [null, "garbage", 7, { traceparent: 5 }])
      expect(classify(request(bad))).toMatchObject({ kind: "request", trace: null });
  });

  it("answers requests that carry a trace context, well-formed or not", async () => {
    const client = await serverWithKey("sk-test");
    const traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    for (const trace of [{ traceparent, tracestate: "vendor=1" }, { traceparent: null }, null, "garbage"]) {
      client.sendRaw(
        JSON.stringify({ id: `traced-${JSON.stringify(trace)}`, method: "account/read", params: {}, trace }),
      );
      const reply = await client.waitFor((m) => m.id === `traced-${JSON.stringify(trace)}`);
      expect(reply.result).toEqual({ account: { type: "apiKey" }, requiresOpenaiAuth: false, userId: null });
    }
  });
});

const skipPostgres = noPostgres("the app-server PostgreSQL goal and thread list tests");

describe.skipIf(skipPostgres)("app-server: thread goals and includedThreadIds in PostgreSQL", () => {
  let cluster: PostgresCluster;
  beforeAll(async () => {
    cluster = await startPostgres();
  }, 60_000);
  afterAll(async () => {
    await cluster?.stop();
  });

  it("keeps a thread's goal across a server restart (PostgreSQL store)", async () => {
    await goalsSurviveRestart({ TSCODEX_STORE_URL: await cluster.createDatabase() });
  });

  it("lists only the included threads (PostgreSQL store)", async () => {
    await listsOnlyIncluded({ TSCODEX_STORE_URL: await cluster.createDatabase() });
  });
});
