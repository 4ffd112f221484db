/**
 * ThreadManager against the fake model server: threads recorded as they run, resumed by a fresh
 * manager (another process's view), expired from memory after the TTL, forked, deleted; and the
 * library's resumeThread / forkThread / listThreads on top of it.
 */

import { appendFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/load.js";
import { Tscodex } from "../../src/index.js";
import { messageText, type ResponseItem } from "../../src/protocol/items.js";
import { ThreadManager, ThreadManagerClosedError } from "../../src/session/thread-manager.js";
import { JsonlThreadStore } from "../../src/store/jsonl-store.js";
import type { RolloutLine } from "../../src/store/rollout.js";
import { findRollout } from "../../src/store/rollout-store.js";
import { useExecHarness } from "../support/exec-harness.js";
import { delay, message, turn, usage } from "../support/fake-model-server.js";

const h = useExecHarness({ git: false, key: "k" });
const env = () => h.libraryEnv();

async function manager(options: { ttlMs?: number } = {}): Promise<ThreadManager> {
  const config = await loadConfig({ home: h.home, env: env() });
  return new ThreadManager({ config, source: "test", originator: "test", env: env(), ...options });
}

const texts = (input: readonly ResponseItem[]) =>
  input.map((item) => (item.type === "message" ? `${item.role}: ${messageText(item)}` : item.type));

describe("ThreadManager", () => {
  it("shuts down a thread still opening when close() begins, and opens none after (a draining server)", async () => {
    const threads = await manager();
    const opening = threads.start({ cwd: h.work });
    const closed = threads.close();
    const thread = await opening;
    await closed;
    expect(threads.size).toBe(0);
    // Its turn never starts: nothing of it (no command) runs past the close.
    expect((await thread.run({ text: "hello" })).status).toBe("failed");
    expect(h.server.requests).toHaveLength(0);
    await expect(threads.start({ cwd: h.work })).rejects.toThrow(ThreadManagerClosedError);
  });

  it("records a thread and resumes it from disk in a fresh manager with the full history", async () => {
    const first = await manager();
    const thread = await first.start({ cwd: h.work });
    h.server.enqueue(turn(message("hello back"), usage({ input: 30, output: 3 })));
    expect((await thread.run({ text: "hello" })).status).toBe("completed");
    await first.close();
    expect(first.size).toBe(0);

    const second = await manager();
    const resumed = await second.resume(thread.id);
    expect(resumed.id).toBe(thread.id);
    expect(resumed.cwd).toBe(h.work);
    expect(resumed.totalUsage.total_tokens).toBe(33);
    h.server.enqueue(turn(message("still here")));
    const result = await resumed.run({ text: "again" });
    expect(result.turnId).toBe("1");
    expect(texts(h.server.requests[1]?.input ?? []).slice(-3)).toEqual([
      "user: hello",
      "assistant: hello back",
      "user: again",
    ]);
    // A second resume of a live thread returns the same object.
    expect(await second.resume(thread.id)).toBe(resumed);
    await second.close();
  });

  it("records the client tools each turn used, so a resumed thread offers the same set", async () => {
    const spec = (name: string) => ({
      name,
      description: name,
      inputSchema: { type: "object", properties: {} },
    });
    const first = await manager();
    const thread = await first.start({ cwd: h.work, clientTools: [spec("alpha")] });
    h.server.enqueue(turn(message("one")), turn(message("two")));
    await thread.run({ text: "1" });
    await thread.run({ text: "2" }, { clientTools: [spec("beta")] });
    await first.close();

    const second = await manager();
    const resumed = await second.resume(thread.id);
    h.server.enqueue(turn(message("three")));
    await resumed.run({ text: "3" });
    const offered = h.server.requests.map((request) =>
      request.toolNames.filter((name) => name === "alpha" || name === "beta"),
    );
    expect(offered).toEqual([["alpha"], ["beta"], ["beta"]]);
    await second.close();
  });

  it("expires idle threads from memory, not from disk, and loads them again on demand", async () => {
    const threads = await manager({ ttlMs: 40 });
    const thread = await threads.start({ cwd: h.work });
    h.server.enqueue(turn(message("one")));
    await thread.run({ text: "x" });
    expect(threads.size).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(threads.size).toBe(0);
    expect(threads.peek(thread.id)).toBeUndefined();
    expect(await findRollout(h.home, thread.id)).not.toBeNull();
    const again = await threads.resume(thread.id);
    expect(again).not.toBe(thread);
    expect(again.history.some((item) => item.type === "message" && messageText(item) === "one")).toBe(true);
    await threads.close();
  });

  it("keeps a busy thread past its TTL", async () => {
    const threads = await manager({ ttlMs: 20 });
    const thread = await threads.start({ cwd: h.work });
    h.server.enqueue(turn(delay(150), message("slow")));
    await thread.run({ text: "x" });
    expect(threads.peek(thread.id)).toBe(thread);
    await threads.close();
  });

  it("counts a held thread's stored lines as the store does, without reading the thread again", async () => {
    const first = await manager();
    const thread = await first.start({ cwd: h.work });
    h.server.enqueue(turn(message("one")));
    await thread.run({ text: "first" });
    await first.close();
    // A torn last line (a crash mid-write) is no line: the count skips it, as readLines does.
    const path = await findRollout(h.home, thread.id);
    if (!path) throw new Error("no rollout");
    await appendFile(path, '{"timestamp":"2026-01-01T00:00:00Z","type":"response_it');

    let reads = 0;
    class CountingStore extends JsonlThreadStore {
      override readLines(id: string, options?: { fromTurn?: number }): Promise<RolloutLine[] | null> {
        reads += 1;
        return super.readLines(id, options);
      }
    }
    const store = new CountingStore(h.home);
    const config = await loadConfig({ home: h.home, env: env() });
    const second = new ThreadManager({ config, source: "test", originator: "test", env: env(), store });
    const resumed = await second.resume(thread.id);
    const atOpen = await second.storedLines(thread.id);
    expect(reads).toBe(0);
    expect(atOpen).toBe((await store.readLines(thread.id))?.length);
    reads = 0;
    h.server.enqueue(turn(message("two")));
    await resumed.run({ text: "second" });
    const afterTurn = await second.storedLines(thread.id);
    expect(reads).toBe(0);
    expect(afterTurn).toBe((await store.readLines(thread.id))?.length);
    expect(afterTurn).toBeGreaterThan(atOpen ?? Number.POSITIVE_INFINITY);
    await second.close();
  });

  it("forks and deletes", async () => {
    const threads = await manager();
    const thread = await threads.start({ cwd: h.work });
    h.server.enqueue(turn(message("a1")), turn(message("a2")));
    await thread.run({ text: "q1" });
    await thread.run({ text: "q2" });
    const fork = await threads.fork(thread.id, { turns: 1 });
    expect(fork.id).not.toBe(thread.id);
    expect(texts(fork.history).filter((line) => line.startsWith("user: q"))).toEqual(["user: q1"]);
    expect((await threads.list()).map((summary) => summary.id).sort()).toEqual([thread.id, fork.id].sort());
    expect(await threads.delete(thread.id)).toBe(true);
    expect(threads.peek(thread.id)).toBeUndefined();
    expect((await threads.list()).map((summary) => summary.id)).toEqual([fork.id]);
    await expect(threads.resume(thread.id)).rejects.toThrow(/no stored thread/);
    await threads.close();
  });
});

describe("library: resumeThread, forkThread, listThreads", () => {
  it("continues a stored thread from a new Tscodex instance", async () => {
    const agent = new Tscodex({ home: h.home, env: env() });
    const thread = agent.startThread({ cwd: h.work });
    h.server.enqueue(turn(message("first answer")));
    await thread.run("first question");
    await agent.close();

    const later = new Tscodex({ home: h.home, env: env() });
    expect((await later.listThreads()).map((summary) => summary.id)).toEqual([thread.id]);
    h.server.enqueue(turn(message("second answer")));
    const resumed = later.resumeThread(thread.id);
    expect((await resumed.run("second question")).finalResponse).toBe("second answer");
    expect(texts(h.server.requests[1]?.input ?? [])).toContain("assistant: first answer");

    const fork = await later.forkThread(thread.id, { turns: 1 });
    h.server.enqueue(turn(message("fork answer")));
    await fork.run("fork question");
    const forkInput = texts(h.server.requests[2]?.input ?? []);
    expect(forkInput).toContain("assistant: first answer");
    expect(forkInput).not.toContain("user: second question");
    await expect(later.forkThread("ffffffff-0000-7000-8000-000000000000")).rejects.toThrow(
      /no stored thread/,
    );
    await later.close();
  });
});
