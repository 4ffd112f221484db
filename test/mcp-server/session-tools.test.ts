/**
 * The session tools against a real ThreadManager over a temp TSCODEX_HOME, with rollouts made by
 * running short threads against the fake model server.
 */
import { readFile, writeFile } from "node:fs/promises";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { type Config, loadConfig } from "../../src/config/load.js";
import type { ServerToolResult } from "../../src/frontends/mcp-server/results.js";
import { assembleRuntime } from "../../src/frontends/mcp-server/runtime.js";
import type {
  ServerRuntime,
  ServerTool,
  ServerToolContext,
} from "../../src/frontends/mcp-server/server-tool.js";
import { sessionTools } from "../../src/frontends/mcp-server/session-tools.js";
import { serverTools } from "../../src/frontends/mcp-server/tools.js";
import { ThreadManager } from "../../src/session/thread-manager.js";
import { findRollout } from "../../src/store/rollout-store.js";
import { VERSION } from "../../src/version.js";
import { writeFakeConfig } from "../support/cli.js";
import {
  delay,
  type FakeModelServer,
  hang,
  message,
  startFakeModelServer,
  turn,
  usage,
} from "../support/fake-model-server.js";
import { type TempDir, tmpdir } from "../support/tmpdir.js";

let server: FakeModelServer;
let home: TempDir;
let work: TempDir;
let config: Config;
let threads: ThreadManager;
/** The runtime of a server serving the session tools only, around `threads`. */
let runtime: ServerRuntime;
const env = () => ({ FAKE_KEY: "k", PATH: process.env.PATH ?? "", HOME: home.path });

beforeAll(async () => {
  server = await startFakeModelServer();
});
afterAll(() => server.close());
beforeEach(async () => {
  server.reset();
  home = await tmpdir("tscodex-home-");
  work = await tmpdir("tscodex-work-");
  const extra = [
    'profile = "fast"',
    "[profiles.fast]",
    'model = "gpt-5-mini"',
    "[profiles.deep]",
    'model = "o3"',
  ];
  await writeFakeConfig(home.path, { baseUrl: server.url, extra: extra.join("\n") });
  threads = await manager();
  runtime = runtimeFor(threads);
});
afterEach(async () => {
  await threads.close();
  await home.cleanup();
  await work.cleanup();
});

async function manager(): Promise<ThreadManager> {
  config = await loadConfig({ home: home.path, env: env() });
  return new ThreadManager({ config, source: "test", originator: "test", env: env() });
}

function runtimeFor(manager: ThreadManager, tools: ServerTool[] = sessionTools()): ServerRuntime {
  const settings = { configOverrides: {}, rawEvents: false, home: home.path };
  return assembleRuntime({ config, threads: manager, settings, tools });
}

function context(serving = runtime): ServerToolContext {
  return { runtime: serving, progress: () => {}, signal: new AbortController().signal };
}

async function call(
  name: string,
  args: Record<string, unknown> = {},
  ctx = context(),
): Promise<ServerToolResult> {
  const tool = sessionTools().find((entry) => entry.name === name);
  if (!tool) throw new Error(`no tool ${name}`);
  const result = await tool.handle(args, ctx);
  expect(result.content[0]?.type).toBe("text");
  expect(result.structuredContent).toBeDefined();
  return result;
}

const structured = (result: ServerToolResult) => result.structuredContent as Record<string, unknown>;
const text = (result: ServerToolResult) =>
  result.content.map((part) => (part.type === "text" ? part.text : "")).join("\n");

/** A thread that ran one turn answering `answer` to `prompt`. */
async function ranThread(prompt: string, answer: string) {
  const thread = await threads.start({ cwd: work.path });
  server.enqueue(turn(message(answer), usage({ input: 20, output: 5 })));
  expect((await thread.run({ text: prompt })).status).toBe("completed");
  return thread;
}

describe("session tools", () => {
  it("lists stored sessions newest first with their details, across pages", async () => {
    const a = await ranThread("first task", "one");
    const b = await ranThread("second task", "two");
    const c = await ranThread(`third task ${"x".repeat(300)}`, "three");
    const result = await call("listSessions");
    const sessions = structured(result).sessions as Record<string, unknown>[];
    expect(sessions.map((entry) => entry.id)).toEqual([c.id, b.id, a.id]);
    expect(sessions[2]).toMatchObject({
      id: a.id,
      turns: 1,
      cwd: work.path,
      firstPrompt: "first task",
      loaded: true,
      model: "gpt-5-mini",
    });
    expect(sessions[2]?.bytes).toBeGreaterThan(100);
    expect(Date.parse(String(sessions[2]?.expiresAt))).toBeGreaterThan(Date.now() + 20 * 60_000);
    expect(String(sessions[0]?.firstPrompt)).toHaveLength(201);
    expect(text(result)).toContain(a.id);

    // ~500 characters a session: a 1000-character page holds fewer than three.
    const first = await call("listSessions", { pageSize: 1000 });
    const token = structured(first).nextPageToken as string;
    expect(token).toMatch(/^ls_/);
    const seen = [...(structured(first).sessions as { id: string }[])];
    let next: string | undefined = token;
    while (next) {
      const page = await call("listSessions", { pageSize: 1000, pageToken: next });
      seen.push(...(structured(page).sessions as { id: string }[]));
      next = structured(page).nextPageToken as string | undefined;
    }
    expect(seen.map((entry) => entry.id)).toEqual([c.id, b.id, a.id]);

    const bad = await call("listSessions", { pageToken: "garbage" });
    expect(bad.isError).toBe(true);
    expect(text(bad)).toContain("Invalid pageToken 'garbage' for listSessions");
  });

  it("shows stored threads as not loaded after a restart", async () => {
    const thread = await ranThread("persist me", "ok");
    await threads.close();
    const fresh = await manager();
    try {
      const sessions = structured(await call("listSessions", {}, context(runtimeFor(fresh))))
        .sessions as Record<string, unknown>[];
      expect(sessions).toEqual([expect.objectContaining({ id: thread.id, loaded: false, expiresAt: null })]);
    } finally {
      await fresh.close();
    }
  });

  it("reports a thread's stats", async () => {
    const thread = await ranThread("count me", "counted");
    const result = await call("sessionStats", { threadId: thread.id });
    expect(result.isError).toBeUndefined();
    expect(structured(result)).toMatchObject({
      threadId: thread.id,
      live: true,
      stored: true,
      running: false,
      state: "completed",
      turns: 1,
      tokens: { input_tokens: 20, output_tokens: 5, total_tokens: 25 },
    });
    expect(structured(result).bytes).toBeGreaterThan(100);
    // A unique prefix works too.
    expect(structured(await call("sessionStats", { threadId: thread.id.slice(0, 30) })).threadId).toBe(
      thread.id,
    );
  });

  it("deletes a thread from memory and disk, and rejects an unknown one clearly", async () => {
    const thread = await ranThread("delete me", "bye");
    const result = await call("deleteSession", { threadId: thread.id });
    expect(structured(result)).toEqual({ threadId: thread.id, deleted: true });
    expect(threads.peek(thread.id)).toBeUndefined();
    expect(await findRollout(home.path, thread.id)).toBeNull();

    const again = await call("deleteSession", { threadId: thread.id });
    expect(again.isError).toBe(true);
    expect(text(again)).toBe(`Session not found for thread_id: ${thread.id}`);
    expect(structured(again)).toMatchObject({ threadId: thread.id, deleted: false });
  });

  it("rejects bad arguments with a clear error result", async () => {
    const result = await call("sessionStats", {});
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/^Invalid arguments for sessionStats: threadId: /);
    const status = await call("status", { threadId: "0000" });
    expect(text(status)).toBe("Session not found for thread_id: 0000");
  });

  it("polls a background turn to completion and pages its long answer", async () => {
    const thread = await threads.start({ cwd: work.path });
    const answer = `${"a".repeat(1000)}${"b".repeat(1000)}${"c".repeat(200)}`;
    server.enqueue(turn(delay(150), message(answer)));
    runtime.tasks.start(thread.id, async () => {
      const outcome = await thread.run({ text: "long task" });
      return { content: [{ type: "text", text: outcome.finalResponse ?? "" }] };
    });
    const running = await call("status", { threadId: thread.id });
    expect(structured(running)).toEqual({ threadId: thread.id, state: "running" });
    await runtime.tasks.settled(thread.id);

    const first = await call("status", { threadId: thread.id, pageSize: 1000 });
    expect(structured(first)).toMatchObject({ state: "completed", content: "a".repeat(1000) });
    expect(text(first)).toContain("pageToken");
    const second = await call("status", { threadId: thread.id, pageToken: structured(first).nextPageToken });
    expect(structured(second).content).toBe("b".repeat(1000));
    const third = await call("status", { threadId: thread.id, pageToken: structured(second).nextPageToken });
    expect(structured(third)).toEqual({ threadId: thread.id, state: "completed", content: "c".repeat(200) });

    const bad = await call("status", { threadId: thread.id, pageToken: "pt_AAAAAAAAAAAAAAAAAAAAAA" });
    expect(bad.isError).toBe(true);
    expect(text(bad)).toContain("Unknown or expired pageToken");
  });

  it("answers status from the rollout for a thread without a background task", async () => {
    const thread = await ranThread("plain", "the answer");
    expect(structured(await call("status", { threadId: thread.id }))).toEqual({
      threadId: thread.id,
      state: "completed",
      content: "the answer",
    });
  });

  it("answers a live thread's state from the ThreadManager, a stored one's from its rollout", async () => {
    const thread = await ranThread("remember", "kept in memory");
    const path = await findRollout(home.path, thread.id);
    if (!path) throw new Error("no rollout");
    await threads.close();
    const stored = await readFile(path, "utf8");
    const restarted = await manager();
    try {
      // After a restart the thread is only on disk: its state and answer come from the file.
      const fromDisk = context(runtimeFor(restarted));
      expect(structured(await call("status", { threadId: thread.id }, fromDisk))).toEqual({
        threadId: thread.id,
        state: "completed",
        content: "kept in memory",
      });
      // Loaded again, it is answered from memory: a rollout cut back to its first line changes nothing.
      await restarted.resume(thread.id);
      await writeFile(path, `${stored.split("\n")[0]}\n`);
      expect(structured(await call("status", { threadId: thread.id }, fromDisk))).toEqual({
        threadId: thread.id,
        state: "completed",
        content: "kept in memory",
      });
      expect(structured(await call("sessionStats", { threadId: thread.id }, fromDisk))).toMatchObject({
        live: true,
        state: "completed",
        turns: 1,
        model: "gpt-5-mini",
        cwd: work.path,
      });
    } finally {
      await restarted.close();
    }
  });

  it("cancels a running turn, and errors when none runs", async () => {
    const thread = await threads.start({ cwd: work.path });
    server.enqueue(turn(hang()));
    const started = new Promise<void>((resolve) => {
      thread.subscribe((event) => {
        if (event.type === "turn_started") resolve();
      });
    });
    const run = thread.run({ text: "never ends" });
    await started;
    // The rollout records the start a write later.
    await vi.waitFor(async () => {
      const stats = await call("sessionStats", { threadId: thread.id });
      expect(structured(stats)).toMatchObject({ running: true, state: "running" });
    });

    const result = await call("cancel", { threadId: thread.id });
    expect(structured(result)).toEqual({ threadId: thread.id, cancelled: true, state: "interrupted" });
    expect((await run).status).toBe("interrupted");

    const again = await call("cancel", { threadId: thread.id });
    expect(again.isError).toBe(true);
    expect(text(again)).toBe(`No running turn to cancel in thread ${thread.id}.`);
  });

  it("lists models, providers and profiles from the config", async () => {
    const result = await call("listModels");
    expect(structured(result)).toMatchObject({
      defaultModel: "gpt-5-mini",
      defaultProvider: "fake",
      activeProfile: "fast",
      models: ["gpt-5-mini", "o3"],
      profiles: [
        { name: "fast", model: "gpt-5-mini" },
        { name: "deep", model: "o3" },
      ],
    });
    const providers = structured(result).providers as { id: string; baseUrl: string }[];
    expect(providers.map((provider) => provider.id)).toEqual(["openai", "oss", "ollama", "lmstudio", "fake"]);
    expect(providers[4]?.baseUrl).toBe(server.url.replace(/\/+$/, ""));
    expect(text(result)).toContain("Default: gpt-5-mini via fake (profile fast)");
  });

  it("answers ping, listTools and help", async () => {
    expect(structured(await call("ping"))).toEqual({ ok: true, version: VERSION });
    const tools = structured(await call("listTools")).tools as {
      name: string;
      inputSchema: { type: string };
    }[];
    expect(tools.map((entry) => entry.name)).toEqual([
      "listSessions",
      "deleteSession",
      "sessionStats",
      "status",
      "cancel",
      "listModels",
      "listTools",
      "ping",
      "help",
    ]);
    expect(tools.every((entry) => entry.inputSchema.type === "object")).toBe(true);
    // A server serving every tool lists them all, in tools/list order.
    const bare = context(runtimeFor(threads, serverTools()));
    const served = structured(await call("listTools", {}, bare)).tools as { name: string }[];
    expect(served.map((entry) => entry.name).slice(0, 4)).toEqual([
      "codex",
      "codex-reply",
      "review",
      "listSessions",
    ]);
    const help = await call("help");
    expect(text(help)).toContain("- sessionStats(threadId): Statistics of one thread");
    expect(text(help)).toContain("- status(threadId, pageSize?, pageToken?)");
  });
});
