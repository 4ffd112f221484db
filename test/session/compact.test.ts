/**
 * Compaction: the replacement history's shape, the threshold, the prompt overrides, the
 * `compact` op, and auto-compaction before the first request of the next turn.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/load.js";
import type { Event } from "../../src/protocol/events.js";
import { developerMessage, messageText, type ResponseItem, userMessage } from "../../src/protocol/items.js";
import {
  autoCompactLimit,
  compactedHistory,
  initialContext,
  KEPT_USER_MESSAGE_CHARS,
  SUMMARY_PREFIX,
} from "../../src/session/compact.js";
import { ThreadManager } from "../../src/session/thread-manager.js";
import { readRollout } from "../../src/store/rollout-reader.js";
import { findRollout } from "../../src/store/rollout-store.js";
import { writeFakeConfig } from "../support/cli.js";
import {
  type FakeModelServer,
  message,
  startFakeModelServer,
  turn,
  usage,
} from "../support/fake-model-server.js";
import { type TempDir, tmpdir } from "../support/tmpdir.js";

const assistant = (text: string): ResponseItem => ({
  type: "message",
  role: "assistant",
  content: [{ type: "output_text", text }],
});
const texts = (input: readonly ResponseItem[]) =>
  input.map((item) => (item.type === "message" ? `${item.role}: ${messageText(item)}` : item.type));

describe("compactedHistory", () => {
  const context = [
    developerMessage("perms"),
    userMessage("# AGENTS.md"),
    userMessage("<environment_context>x</environment_context>"),
  ];

  it("keeps the initial context and the user's messages, then the summary", () => {
    const history = [
      ...context,
      userMessage("task one"),
      assistant("did one"),
      { type: "function_call", name: "shell", arguments: "{}", call_id: "c" } as const,
      { type: "function_call_output", call_id: "c", output: "out" } as const,
      userMessage("<turn_aborted>\n</turn_aborted>"),
      userMessage(`${SUMMARY_PREFIX}\nolder summary`),
      userMessage("task two"),
    ];
    expect(initialContext(history)).toEqual(context);
    expect(texts(compactedHistory(history, "the summary"))).toEqual([
      "developer: perms",
      "user: # AGENTS.md",
      "user: <environment_context>x</environment_context>",
      "user: task one",
      "user: task two",
      `user: ${SUMMARY_PREFIX}\nthe summary`,
    ]);
  });

  it("bounds the kept user messages, newest first", () => {
    const big = "y".repeat(KEPT_USER_MESSAGE_CHARS - 10);
    const kept = texts(
      compactedHistory([...context, userMessage("old"), userMessage("z".repeat(50)), userMessage(big)], "s"),
    );
    expect(kept).not.toContain("user: old");
    expect(kept.some((line) => line.endsWith("[…truncated]"))).toBe(true);
    expect(kept.at(-2)).toBe(`user: ${big}`);
  });

  it("without a recognisable context keeps only user messages and the summary", () => {
    expect(initialContext([assistant("x"), userMessage("<environment_context>")])).toEqual([]);
  });

  it("limit: configured, else 90% of the window, else none", () => {
    expect(autoCompactLimit(1000, 500)).toBe(500);
    expect(autoCompactLimit(1000)).toBe(900);
    expect(autoCompactLimit(null)).toBeNull();
  });
});

let server: FakeModelServer;
let home: TempDir;
let work: TempDir;
const env = () => ({ FAKE_KEY: "k", PATH: process.env.PATH ?? "", HOME: home.path });

beforeAll(async () => {
  server = await startFakeModelServer();
});
afterAll(() => server.close());
beforeEach(async () => {
  server.reset();
  home = await tmpdir("tscodex-home-");
  work = await tmpdir("tscodex-work-");
});
afterEach(async () => {
  await home.cleanup();
  await work.cleanup();
});

async function manager(extra = ""): Promise<ThreadManager> {
  await writeFakeConfig(home.path, { baseUrl: server.url, extra });
  const config = await loadConfig({ home: home.path, env: env() });
  return new ThreadManager({ config, source: "test", originator: "test", env: env() });
}

describe("compaction in a thread", () => {
  it("the compact op summarises with the configured prompt and records it", async () => {
    const threads = await manager('compact_prompt = "Summarise tersely."');
    const thread = await threads.start({ cwd: work.path });
    const events: Event[] = [];
    thread.subscribe((event) => events.push(event));
    server.enqueue(turn(message("answer one")), turn(message("short summary")), turn(message("after")));
    await thread.run({ text: "question one" });
    await thread.compact();
    expect(events.find((event) => event.type === "context_compacted")).toMatchObject({
      summary: "short summary",
    });
    expect(texts(server.requests[1]?.input ?? []).at(-1)).toBe("user: Summarise tersely.");
    expect(server.requests[1]?.toolNames).toEqual([]);
    await thread.run({ text: "question two" });
    expect(texts(server.requests[2]?.input ?? []).slice(-3)).toEqual([
      "user: question one",
      `user: ${SUMMARY_PREFIX}\nshort summary`,
      "user: question two",
    ]);
    await threads.close();
    const stored = await readRollout((await findRollout(home.path, thread.id)) ?? "");
    expect(stored.compactions).toBe(1);
    expect(texts(stored.history)).not.toContain("assistant: answer one");
  });

  it("a failed compaction leaves the history and reports an error", async () => {
    const threads = await manager();
    const thread = await threads.start({ cwd: work.path });
    const events: Event[] = [];
    thread.subscribe((event) => events.push(event));
    server.enqueue(turn(message("answer")), turn(usage({ input: 1, output: 1 })));
    await thread.run({ text: "q" });
    const before = thread.history.length;
    await thread.compact();
    expect(thread.history).toHaveLength(before);
    expect(events.find((event) => event.type === "error")).toMatchObject({
      message: expect.stringMatching(/compaction failed/),
    });
    await threads.close();
  });

  it("auto-compacts before the next turn's first request, with a prompt from a file", async () => {
    await writeFile(join(home.path, "compact.md"), "FILE PROMPT");
    const threads = await manager(
      'model_auto_compact_token_limit = 500\nexperimental_compact_prompt_file = "compact.md"',
    );
    const thread = await threads.start({ cwd: work.path });
    server.enqueue(
      turn(message("big answer"), usage({ input: 480, output: 30 })),
      turn(message("sum")),
      turn(message("ok")),
    );
    await thread.run({ text: "first" });
    await thread.run({ text: "second" });
    expect(server.requests).toHaveLength(3);
    expect(texts(server.requests[1]?.input ?? []).at(-1)).toBe("user: FILE PROMPT");
    const next = texts(server.requests[2]?.input ?? []);
    expect(next).not.toContain("assistant: big answer");
    expect(next.slice(-3)).toEqual(["user: first", "user: second", `user: ${SUMMARY_PREFIX}\nsum`]);
    await threads.close();
  });
});
