/**
 * The ThreadStore contract, run on every implementation (JSONL, PostgreSQL): the same behaviour
 * whatever holds the threads. `makeStore` gives each test a fresh, empty store, how a child
 * process finds the same store (for the killed-holder lease case), and its cleanup.
 * Nothing here assumes one implementation; store-specific cases live in each store's own tests.
 */
import { spawn } from "node:child_process";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Event } from "../../src/protocol/events.js";
import { emptyUsage, type ResponseItem, userMessage } from "../../src/protocol/items.js";
import type { RolloutLine, SessionMeta } from "../../src/store/rollout.js";
import { ThreadBusyError } from "../../src/store/thread-lock.js";
import { summaryOf, type ThreadStore, type ThreadWriter } from "../../src/store/thread-store.js";
import type { StoreAddress } from "./lease-holder.js";

export interface StoreUnderTest {
  store: ThreadStore;
  /** Where a child process opens the same store (test/support/lease-holder.ts). */
  address: StoreAddress;
  cleanup(): Promise<void>;
}

/** Thread ids that share prefixes: "0193aaaa-0000-7000-8000-00000000000N". */
export function threadId(n: number, group = "aaaa"): string {
  return `0193${group}-0000-7000-8000-${String(n).padStart(12, "0")}`;
}

export function metaOf(id: string, overrides: Partial<SessionMeta> = {}): SessionMeta {
  return {
    id,
    created: "2026-01-02T03:04:05.000Z",
    cwd: "/work/project",
    model: "gpt-5.2-codex",
    provider: "openai",
    approval_policy: "never",
    sandbox_mode: "read-only",
    source: "exec",
    ...overrides,
  };
}

/** The events of one turn `n` (a prompt, a tool call and its output, an answer). */
export function turnEvents(n: number, text = `step ${n}`): Event[] {
  const usage = { ...emptyUsage(), input_tokens: 100 + n, output_tokens: 10, total_tokens: 110 + n };
  return [
    { type: "turn_started", turn_id: `turn-${n}`, model_context_window: 272_000 },
    { type: "raw_response_item", item: userMessage(text) },
    { type: "user_message", message: text, images: [] },
    {
      type: "raw_response_item",
      item: {
        type: "function_call",
        name: "shell",
        arguments: `{"command":["ls","${n}"]}`,
        call_id: `call-${n}`,
      },
    },
    {
      type: "raw_response_item",
      item: { type: "function_call_output", call_id: `call-${n}`, output: `out ${n}` },
    },
    {
      type: "raw_response_item",
      item: { type: "message", role: "assistant", content: [{ type: "output_text", text: `done ${n}` }] },
    },
    { type: "token_count", last: usage, total: usage, model_context_window: 272_000 },
    { type: "turn_complete", turn_id: `turn-${n}`, last_agent_message: `done ${n}`, usage },
  ];
}

/** A stored thread of `turns` turns (created, written, closed). */
export async function storeThread(
  store: ThreadStore,
  meta: SessionMeta,
  turns: number,
  firstTurn = 1,
): Promise<void> {
  const writer = await store.create(meta);
  await record(writer, turns, firstTurn);
  await writer.close();
}

async function record(writer: ThreadWriter, turns: number, firstTurn = 1): Promise<void> {
  for (let n = firstTurn; n < firstTurn + turns; n++)
    for (const event of turnEvents(n)) writer.recordEvent(event);
  await writer.flush();
}

function historyOfTurns(from: number, to: number): ResponseItem[] {
  const items: ResponseItem[] = [];
  for (let n = from; n <= to; n++)
    for (const event of turnEvents(n)) if (event.type === "raw_response_item") items.push(event.item);
  return items;
}

/** Payloads (no timestamps) of `lines`, to compare with what was recorded. */
function payloads(lines: readonly RolloutLine[]): unknown[] {
  return lines.map((line) => ({ type: line.type, payload: line.payload }));
}

export function describeThreadStoreContract(name: string, makeStore: () => Promise<StoreUnderTest>): void {
  describe(`ThreadStore contract: ${name}`, () => {
    let under: StoreUnderTest;
    let store: ThreadStore;
    beforeEach(async () => {
      under = await makeStore();
      store = under.store;
    });
    afterEach(async () => {
      await under.cleanup();
    });

    it("stores a thread's lines in order and reads them back exactly", async () => {
      const id = threadId(1);
      const before = new Date().toISOString();
      const writer = await store.create(metaOf(id, { client_tools: [] }));
      expect(writer.threadId).toBe(id);
      // Content that trips naive storage: NUL, line and paragraph separators, quotes, astral
      // characters, big and small numbers, fields the schema does not know.
      const odd = `a\u0000b "quoted" \\ back\nslash \u2028\u2029 🧵 ${"x".repeat(100_000)}`;
      const item = {
        type: "function_call_output",
        call_id: "c1",
        output: odd,
        extra: { nested: [1, 0.1, -2.5e-7, 1e21, null, true], "key with space": "v" },
      } as unknown as ResponseItem;
      writer.recordEvent({ type: "raw_response_item", item });
      for (const event of turnEvents(1)) writer.recordEvent(event);
      await writer.close();
      const after = new Date().toISOString();

      const stored = await store.read(id);
      expect(stored?.meta).toEqual(metaOf(id, { client_tools: [] }));
      expect(stored?.turns).toBe(1);
      expect(stored?.firstPrompt).toBe("step 1");
      expect(stored?.history).toEqual([item, ...historyOfTurns(1, 1)]);
      const lines = stored?.lines ?? [];
      expect(payloads(lines.slice(1, 2))).toEqual([{ type: "response_item", payload: item }]);
      expect(lines).toHaveLength(1 + 1 + turnEvents(1).length);
      for (const line of lines) {
        expect(line.timestamp >= before && line.timestamp <= after).toBe(true);
        expect(new Date(line.timestamp).toISOString()).toBe(line.timestamp);
      }
      expect(await store.readLines(id)).toEqual(lines);
      expect(summaryOf(stored as NonNullable<typeof stored>)).toMatchObject({
        id,
        turns: 1,
        firstPrompt: "step 1",
      });
    });

    it("continues a stored thread after what it holds; version grows with every append", async () => {
      const id = threadId(2);
      expect(await store.version(id)).toBeNull();
      await storeThread(store, metaOf(id), 1);
      const v1 = await store.version(id);
      expect(v1).not.toBeNull();
      const writer = await store.append(id);
      for (const event of turnEvents(2)) writer.recordEvent(event);
      await writer.flush();
      const v2 = await store.version(id);
      expect(v2).toBeGreaterThan(v1 as number);
      // Seen by readers as soon as flush resolved, before close.
      expect((await store.read(id))?.turns).toBe(2);
      for (const event of turnEvents(3)) writer.recordEvent(event);
      await writer.close();
      expect(await store.version(id)).toBeGreaterThan(v2 as number);
      const stored = await store.read(id);
      expect(stored?.turns).toBe(3);
      expect(stored?.history).toEqual(historyOfTurns(1, 3));
      // Recording after close stores nothing.
      writer.recordEvent({ type: "user_message", message: "late", images: [] });
      await writer.flush();
      expect((await store.read(id))?.lines).toHaveLength(stored?.lines.length ?? -1);
    });

    it("refuses a second thread with the same id", async () => {
      const id = threadId(3);
      await storeThread(store, metaOf(id), 0);
      await expect(store.create(metaOf(id, { model: "other" }))).rejects.toThrow();
      expect((await store.read(id))?.meta.model).toBe("gpt-5.2-codex");
    });

    it("reads the lines from a given turn on", async () => {
      const id = threadId(4);
      await storeThread(store, metaOf(id), 3);
      const all = (await store.readLines(id)) ?? [];
      expect(all[0]?.type).toBe("session_meta");
      expect(await store.readLines(id, { fromTurn: 1 })).toEqual(all);
      const fromTwo = (await store.readLines(id, { fromTurn: 2 })) ?? [];
      expect(fromTwo[0]).toMatchObject({
        type: "event",
        payload: { type: "turn_started", turn_id: "turn-2" },
      });
      expect(fromTwo).toEqual(all.slice(all.length - 2 * turnEvents(1).length));
      expect(await store.readLines(id, { fromTurn: 9 })).toEqual([]);
      expect(await store.readLines(threadId(99))).toBeNull();
      expect(await store.read(threadId(99))).toBeNull();
    });

    it("resolves full ids and unique prefixes; an ambiguous prefix is an error naming the count", async () => {
      const [a, b, c] = [threadId(11), threadId(12), threadId(1, "bbbb")];
      for (const id of [a, b, c]) await storeThread(store, metaOf(id), 0);
      expect(await store.resolveId(a)).toBe(a);
      expect(await store.resolveId("0193bbbb")).toBe(c);
      expect(await store.resolveId("0193b")).toBe(c);
      expect(await store.resolveId(b)).toBe(b);
      await expect(store.resolveId("0193aaaa")).rejects.toThrow(/ambiguous.*2/);
      expect(await store.resolveId("0193cccc")).toBeNull();
    });

    it("knows the newest live thread", async () => {
      expect(await store.newestId()).toBeNull();
      await storeThread(store, metaOf(threadId(21), { created: "2026-01-01T00:00:00.000Z" }), 0);
      await storeThread(store, metaOf(threadId(22), { created: "2026-01-03T00:00:00.000Z" }), 0);
      await storeThread(store, metaOf(threadId(23), { created: "2026-01-02T00:00:00.000Z" }), 0);
      expect(await store.newestId()).toBe(threadId(22));
      expect(await store.archive(threadId(22))).toBe(true);
      expect(await store.newestId()).toBe(threadId(23));
    });

    it("lists newest first in pages, by creation or by last update, with filters", async () => {
      const days = [5, 1, 4, 2, 3];
      for (const [i, day] of days.entries())
        await storeThread(
          store,
          metaOf(threadId(31 + i), {
            created: `2026-02-0${day}T10:00:00.000Z`,
            provider: i % 2 === 0 ? "openai" : "ollama",
            source: i < 3 ? "exec" : "proxy",
            cwd: i === 1 || i === 4 ? "/work/other" : "/work/project",
          }),
          1,
        );
      const byCreated = [0, 2, 4, 3, 1].map((i) => threadId(31 + i));
      const all = await store.list();
      expect(all.threads.map((thread) => thread.meta.id)).toEqual(byCreated);
      expect(all.nextCursor).toBeNull();
      expect(all.threads[0]?.turns).toBe(1);

      const seen: string[] = [];
      const sizes: number[] = [];
      let cursor: string | null = null;
      do {
        const page = await store.list({ limit: 2, cursor });
        seen.push(...page.threads.map((thread) => thread.meta.id));
        sizes.push(page.threads.length);
        cursor = page.nextCursor;
      } while (cursor);
      expect(seen).toEqual(byCreated);
      expect(sizes).toEqual([2, 2, 1]);

      const ollama = await store.list({ providers: ["ollama"] });
      expect(ollama.threads.map((thread) => thread.meta.id)).toEqual([threadId(34), threadId(32)]);
      const proxy = await store.list({ source: "proxy", providers: ["openai", "ollama"] });
      expect(proxy.threads.map((thread) => thread.meta.id)).toEqual([threadId(35), threadId(34)]);
      expect(proxy.threads.map((thread) => thread.meta.source)).toEqual(["proxy", "proxy"]);
      // A directory's threads (thread/list's `cwd`); several directories: any of them.
      const other = await store.list({ cwds: ["/work/other"] });
      expect(other.threads.map((thread) => thread.meta.id)).toEqual([threadId(35), threadId(32)]);
      const both = await store.list({ cwds: ["/work/other", "/work/project"], limit: 10 });
      expect(both.threads).toHaveLength(5);
      expect((await store.list({ cwds: ["/work"] })).threads).toEqual([]);

      // The oldest thread gets a new turn: first when sorted by update.
      const writer = await store.append(threadId(32));
      for (const event of turnEvents(2)) writer.recordEvent(event);
      await writer.close();
      const byUpdated = await store.list({ sort: "updated", limit: 1 });
      expect(byUpdated.threads.map((thread) => thread.meta.id)).toEqual([threadId(32)]);
      expect(byUpdated.nextCursor).not.toBeNull();
      const rest = await store.list({ sort: "updated", cursor: byUpdated.nextCursor });
      expect(rest.threads.map((thread) => thread.meta.id)).not.toContain(threadId(32));
      expect(rest.threads).toHaveLength(4);

      expect(await store.archive(threadId(31))).toBe(true);
      const live = await store.list();
      expect(live.threads.map((thread) => thread.meta.id)).not.toContain(threadId(31));
      const archived = await store.list({ archived: true });
      expect(archived.threads.map((thread) => thread.meta.id)).toEqual([threadId(31)]);
    });

    it("forks the first turns of a thread under a new id", async () => {
      const id = threadId(41);
      await storeThread(store, metaOf(id), 3);
      const forkId = await store.fork(id, { turns: 2 });
      expect(forkId).not.toBe(id);
      const fork = await store.read(forkId);
      expect(fork?.meta).toMatchObject({ id: forkId, forked_from: id, model: "gpt-5.2-codex" });
      expect(fork?.turns).toBe(2);
      expect(fork?.history).toEqual(historyOfTurns(1, 2));
      const original = await store.read(id);
      expect(original?.turns).toBe(3);
      // Copied lines keep their timestamps.
      expect(fork?.lines.slice(1)).toEqual(original?.lines.slice(1, fork?.lines.length));

      const whole = await store.fork(id, { newId: threadId(42) });
      expect(whole).toBe(threadId(42));
      expect((await store.read(whole))?.history).toEqual(historyOfTurns(1, 3));
      expect(await store.resolveId(whole)).toBe(whole);
      // A fork is a thread like any other: it can be continued.
      const writer = await store.append(forkId);
      for (const event of turnEvents(7)) writer.recordEvent(event);
      await writer.close();
      expect((await store.read(forkId))?.history).toEqual([...historyOfTurns(1, 2), ...historyOfTurns(7, 7)]);
      await expect(store.fork(threadId(99))).rejects.toThrow();
    });

    it("deletes live and archived threads", async () => {
      const [a, b] = [threadId(51), threadId(52)];
      await storeThread(store, metaOf(a), 1);
      await storeThread(store, metaOf(b), 1);
      expect(await store.delete(a)).toBe(true);
      expect(await store.read(a)).toBeNull();
      expect(await store.resolveId(a)).toBeNull();
      expect(await store.delete(a)).toBe(false);
      expect(await store.archive(b)).toBe(true);
      expect(await store.delete(b)).toBe(true);
      expect(await store.read(b, { archived: true })).toBeNull();
      expect((await store.list({ archived: true })).threads).toEqual([]);
    });

    it("archives a thread out of the live list", async () => {
      const id = threadId(61);
      await storeThread(store, metaOf(id), 2);
      expect(await store.archive(id)).toBe(true);
      expect(await store.read(id)).toBeNull();
      expect(await store.resolveId(id)).toBeNull();
      expect((await store.read(id, { archived: true }))?.turns).toBe(2);
      expect(await store.resolveId(id.slice(0, 20), { archived: true })).toBe(id);
      expect(await store.archive(id)).toBe(false);
      expect(await store.archive(threadId(99))).toBe(false);
    });

    it("unarchives a thread back into the live list, where it can be appended to", async () => {
      const id = threadId(62);
      await storeThread(store, metaOf(id), 2);
      expect(await store.unarchive(id)).toBe(false);
      expect(await store.archive(id)).toBe(true);
      expect(await store.unarchive(id)).toBe(true);
      expect(await store.read(id, { archived: true })).toBeNull();
      expect((await store.read(id))?.turns).toBe(2);
      expect((await store.list()).threads.map((thread) => thread.meta.id)).toEqual([id]);
      expect(await store.unarchive(id)).toBe(false);
      expect(await store.unarchive(threadId(99))).toBe(false);
      const writer = await store.append(id);
      for (const event of turnEvents(3)) writer.recordEvent(event);
      await writer.close();
      expect((await store.read(id))?.turns).toBe(3);
    });

    it("replays a thread's name and metadata lines: the last of each wins, null clears", async () => {
      const id = threadId(63);
      await storeThread(store, metaOf(id), 1);
      const at = "2026-01-02T04:00:00.000Z";
      const writer = await store.append(id);
      const lines: RolloutLine[] = [
        { timestamp: at, type: "event", payload: { type: "thread_name_updated", thread_name: "first" } },
        { timestamp: at, type: "event", payload: { type: "thread_name_updated", thread_name: "second" } },
        {
          timestamp: at,
          type: "event",
          payload: {
            type: "thread_metadata_updated",
            metadata: { git_info: { sha: "abc", branch: "main" }, project_id: "p1" },
          },
        },
        {
          timestamp: at,
          type: "event",
          payload: {
            type: "thread_metadata_updated",
            metadata: { git_info: { branch: null }, daybreak_enabled: true },
          },
        },
      ];
      for (const line of lines) writer.writeLine(line);
      await writer.close();
      const stored = await store.read(id);
      expect(stored).toMatchObject({
        name: "second",
        gitInfo: { sha: "abc", branch: null, origin_url: null },
        projectId: "p1",
        daybreakEnabled: true,
        turns: 1,
      });
      expect((await store.list()).threads[0]?.name).toBe("second");
    });

    it("keeps a thread's name and metadata through a rollback of the turns before them", async () => {
      const id = threadId(64);
      await storeThread(store, metaOf(id), 2);
      const writer = await store.append(id);
      const at = "2026-01-02T05:00:00.000Z";
      writer.writeLine({
        timestamp: at,
        type: "event",
        payload: { type: "thread_name_updated", thread_name: "n" },
      });
      writer.writeLine({
        timestamp: at,
        type: "event",
        payload: { type: "thread_metadata_updated", metadata: { project_id: "p" } },
      });
      await writer.close();
      expect(await store.rollback(id, 2)).toBe(true);
      expect(await store.read(id)).toMatchObject({ turns: 0, name: "n", projectId: "p", history: [] });
      const more = await store.append(id);
      for (const event of turnEvents(1)) more.recordEvent(event);
      await more.close();
      expect(await store.read(id)).toMatchObject({ turns: 1, name: "n" });
    });

    it("rolls back the last turns", async () => {
      const id = threadId(71);
      await storeThread(store, metaOf(id), 3);
      const before = await store.version(id);
      expect(await store.rollback(id, 1)).toBe(true);
      let stored = await store.read(id);
      expect(stored?.turns).toBe(2);
      expect(stored?.history).toEqual(historyOfTurns(1, 2));
      expect(await store.version(id)).not.toBe(before);
      // Continuing after a rollback appends after the kept turns.
      const writer = await store.append(id);
      for (const event of turnEvents(9)) writer.recordEvent(event);
      await writer.close();
      expect((await store.read(id))?.history).toEqual([...historyOfTurns(1, 2), ...historyOfTurns(9, 9)]);
      expect(await store.rollback(id, 10)).toBe(true);
      stored = await store.read(id);
      expect(stored?.turns).toBe(0);
      expect(stored?.history).toEqual([]);
      expect(stored?.meta.id).toBe(id);
      expect(await store.rollback(threadId(99), 1)).toBe(false);
    });

    it("truncates a thread to its first lines, as readLines counts them; continuing appends after them", async () => {
      const id = threadId(72);
      await storeThread(store, metaOf(id), 1);
      const kept = (await store.readLines(id))?.length ?? 0;
      // What a turn that died with its process left: a second turn, half written.
      const dying = await store.append(id);
      for (const event of turnEvents(2).slice(0, 4)) dying.recordEvent(event);
      await dying.close();
      const before = await store.version(id);
      expect(await store.truncate(id, kept)).toBe(true);
      expect(await store.readLines(id)).toHaveLength(kept);
      expect(await store.read(id)).toMatchObject({ turns: 1, history: historyOfTurns(1, 1) });
      expect(await store.version(id)).not.toBe(before);
      expect(await store.truncate(id, kept)).toBe(true); // nothing more to drop
      const writer = await store.append(id);
      for (const event of turnEvents(2)) writer.recordEvent(event);
      await writer.close();
      expect((await store.read(id))?.history).toEqual(historyOfTurns(1, 2));
      // The metadata line always stays.
      expect(await store.truncate(id, 0)).toBe(true);
      expect(await store.read(id)).toMatchObject({ turns: 0, history: [], meta: { id } });
      expect(await store.truncate(threadId(98), 1)).toBe(false);
    });

    it("indexes the calls a parked turn waits for", async () => {
      const [a, b] = [threadId(81), threadId(82)];
      await storeThread(store, metaOf(a), 1);
      await storeThread(store, metaOf(b), 1);
      expect(await store.threadOfCall("call-x")).toBeNull();
      await store.indexParkedCalls(a, ["call-x", "call-y"]);
      await store.indexParkedCalls(b, ["call-z"]);
      expect(await store.threadOfCall("call-x")).toBe(a);
      expect(await store.threadOfCall("call-y")).toBe(a);
      expect(await store.threadOfCall("call-z")).toBe(b);
      expect(await store.threadOfCall("call-w")).toBeNull();
      expect(await store.responseOfCall("call-x")).toBeNull();
      await store.indexParkedCalls(b, ["call-x"], `resp_${b}_0123456789ab`);
      expect(await store.threadOfCall("call-x")).toBe(b);
      expect(await store.responseOfCall("call-x")).toBe(`resp_${b}_0123456789ab`);
    });

    it("prunes parked-call entries made before a time, and keeps the newer ones", async () => {
      const id = threadId(84);
      await storeThread(store, metaOf(id), 1);
      await store.indexParkedCalls(id, ["call-p1", "call-p2"]);
      expect(await store.pruneParkedCalls(Date.now() - 60_000)).toBe(0);
      expect(await store.threadOfCall("call-p1")).toBe(id);
      expect(await store.pruneParkedCalls(Date.now() + 60_000)).toBe(2);
      expect(await store.threadOfCall("call-p1")).toBeNull();
      expect(await store.threadOfCall("call-p2")).toBeNull();
      expect(await store.pruneParkedCalls(Date.now() + 60_000)).toBe(0);
    });

    it("claims an idempotency key once until it expires; saves, drops and prunes keys", async () => {
      const now = Date.now();
      const record = { key: "key-1", fingerprint: "f1", result: null, created: now, expires: now + 60_000 };
      expect(await store.claimIdempotencyKey(record)).toBeNull();
      // A second claim (another process, another body) sees the first one's record.
      expect(await store.claimIdempotencyKey({ ...record, fingerprint: "f2" })).toEqual(record);
      const done = { ...record, result: { status: 200, body: { id: "resp_x", output: [] } } };
      await store.saveIdempotencyKey(done);
      expect(await store.claimIdempotencyKey({ ...record, fingerprint: "f3" })).toEqual(done);
      await store.dropIdempotencyKey("key-1");
      expect(await store.claimIdempotencyKey({ ...record, fingerprint: "f4" })).toBeNull();
      // An expired key is free again, and pruning removes only expired ones.
      const old = { key: "key-old", fingerprint: "o", result: null, created: now - 10_000, expires: now - 1 };
      await store.saveIdempotencyKey(old);
      expect(
        await store.claimIdempotencyKey({ ...old, fingerprint: "new", expires: now + 60_000 }),
      ).toBeNull();
      await store.saveIdempotencyKey({ ...old, key: "key-old-2" });
      // Where a running request's turn writes is kept with its key (a takeover reads it).
      const work = { threadId: threadId(5), linesBefore: 12, answerId: "resp_w", continues: null };
      await store.saveIdempotencyKey({ ...record, key: "key-work", work });
      expect((await store.claimIdempotencyKey({ ...record, key: "key-work" }))?.work).toEqual(work);
      expect(await store.pruneIdempotencyKeys(now)).toBe(1);
      expect((await store.claimIdempotencyKey({ ...record, fingerprint: "f5" }))?.fingerprint).toBe("f4");
    });

    it("finds the live key whose request's answer is stored under an id (deleting that answer tombstones it)", async () => {
      const now = Date.now();
      const work = (answerId: string) => ({
        threadId: threadId(6),
        linesBefore: null,
        answerId,
        continues: null,
      });
      const record = { key: "key-ans", fingerprint: "f", result: null, created: now, expires: now + 60_000 };
      expect(await store.idempotencyKeysAnswering("resp_a")).toEqual([]);
      await store.saveIdempotencyKey({ ...record, work: work("resp_a") });
      const answered = { ...record, work: work("resp_a"), result: { status: 200, body: { id: "resp_a" } } };
      await store.saveIdempotencyKey(answered);
      expect(await store.idempotencyKeysAnswering("resp_a")).toEqual([answered]);
      expect(await store.idempotencyKeysAnswering("resp_b")).toEqual([]);
      // A takeover that ran the request again answers under another id: the old one names no key.
      await store.saveIdempotencyKey({ ...record, work: work("resp_b") });
      expect(await store.idempotencyKeysAnswering("resp_a")).toEqual([]);
      expect((await store.idempotencyKeysAnswering("resp_b")).map((found) => found.key)).toEqual(["key-ans"]);
      await store.dropIdempotencyKey("key-ans");
      expect(await store.idempotencyKeysAnswering("resp_b")).toEqual([]);
      // An expired key is no longer found.
      await store.saveIdempotencyKey({ ...record, key: "key-old", expires: now - 1, work: work("resp_c") });
      expect(await store.idempotencyKeysAnswering("resp_c")).toEqual([]);
      await store.pruneIdempotencyKeys(now);
      expect(await store.idempotencyKeysAnswering("resp_c")).toEqual([]);
    });

    it("stores response records under their exact id, and replaces one saved again", async () => {
      const id = threadId(83);
      await storeThread(store, metaOf(id), 2);
      const record = {
        id: `resp_${id}_a1b2c3d4e5f6`,
        threadId: id,
        turns: 2,
        parkedTurnId: "1",
        transcript: "f".repeat(64),
        body: { id: `resp_${id}_a1b2c3d4e5f6`, object: "response", output: [{ type: "message" }] },
        created: 1_700_000_000_000,
      };
      expect(await store.readResponse(record.id)).toBeNull();
      await store.saveResponse(record);
      expect(await store.readResponse(record.id)).toEqual(record);
      // The random part is checked: a neighbour of a real id names nothing.
      expect(await store.readResponse(`resp_${id}_000000000000`)).toBeNull();
      expect(await store.readResponse(`resp_${id}_a1b2c3d4e5f`)).toBeNull();
      await store.saveResponse({
        ...record,
        parkedTurnId: null,
        answeredBy: "resp_next",
        input: [{ id: "msg_1" }],
      });
      expect(await store.readResponse(record.id)).toMatchObject({
        parkedTurnId: null,
        answeredBy: "resp_next",
        input: [{ id: "msg_1" }],
      });
      expect(await store.deleteResponse(record.id)).toBe(true);
      expect(await store.readResponse(record.id)).toBeNull();
      expect(await store.deleteResponse(record.id)).toBe(false);
      // Deleted for good: a later save (a background turn ending, an answeredBy update) stores nothing.
      await store.saveResponse({ ...record, body: { ...record.body, status: "completed" } });
      expect(await store.readResponse(record.id)).toBeNull();
    });

    it("deleting a thread removes its responses and gives its keys a 404 response_deleted to replay", async () => {
      const [gone, kept] = [threadId(84), threadId(85)];
      await storeThread(store, metaOf(gone), 1);
      await storeThread(store, metaOf(kept), 1);
      const response = (thread: string) => ({
        id: `resp_${thread}_a1b2c3d4e5f6`,
        threadId: thread,
        turns: 1,
        parkedTurnId: null,
        transcript: "f".repeat(64),
        body: { id: `resp_${thread}_a1b2c3d4e5f6`, object: "response", output: [{ text: "SECRET" }] },
        created: 1_700_000_000_000,
      });
      const now = Date.now();
      const key = (name: string, thread: string) => ({
        key: name,
        fingerprint: "f",
        result: { status: 200, body: response(thread).body },
        created: now,
        expires: now + 60_000,
        work: { threadId: thread, linesBefore: null, answerId: response(thread).id, continues: null },
      });
      for (const thread of [gone, kept]) await store.saveResponse(response(thread));
      await store.saveIdempotencyKey(key("key-gone", gone));
      await store.saveIdempotencyKey(key("key-kept", kept));

      expect(await store.delete(gone)).toBe(true);
      expect(await store.readResponse(response(gone).id)).toBeNull();
      expect(await store.readResponse(response(kept).id)).toEqual(response(kept));
      const probe = { key: "", fingerprint: "f", result: null, created: now, expires: now + 60_000 };
      const tombstoned = await store.claimIdempotencyKey({ ...probe, key: "key-gone" });
      expect(tombstoned?.result?.status).toBe(404);
      expect(JSON.stringify(tombstoned?.result?.body)).toContain("response_deleted");
      expect(JSON.stringify(tombstoned?.result?.body)).not.toContain("SECRET");
      expect((await store.claimIdempotencyKey({ ...probe, key: "key-kept" }))?.result?.status).toBe(200);
    });

    describe("leases", () => {
      it("lets one holder have a thread at a time, and others once it is released", async () => {
        const [a, b] = [threadId(91), threadId(92)];
        const lease = await store.leases.acquire(a);
        expect(lease.threadId).toBe(a);
        await expect(store.leases.acquire(a)).rejects.toBeInstanceOf(ThreadBusyError);
        const other = await store.leases.acquire(b); // other threads are not held
        await lease.release();
        await lease.release(); // idempotent
        const again = await store.leases.acquire(a);
        await again.release();
        await other.release();
      });

      it("waits for a holder that releases in time, and is busy after the wait", async () => {
        const id = threadId(93);
        const lease = await store.leases.acquire(id);
        const started = performance.now();
        await expect(store.leases.acquire(id, { waitMs: 150 })).rejects.toBeInstanceOf(ThreadBusyError);
        expect(performance.now() - started).toBeGreaterThanOrEqual(140);
        const waiting = store.leases.acquire(id, { waitMs: 10_000 });
        setTimeout(() => void lease.release(), 100);
        const next = await waiting;
        expect(performance.now() - started).toBeLessThan(5_000);
        await next.release();
      });

      it("frees the lease of a holder killed with SIGKILL", async () => {
        const id = threadId(94);
        const child = spawn(
          process.execPath,
          [
            "scripts/run-ts.mjs",
            "test/support/lease-holder.ts",
            under.address.kind,
            under.address.target,
            id,
          ],
          { stdio: ["ignore", "pipe", "pipe"] },
        );
        const exited = new Promise((resolve) => child.once("exit", resolve));
        try {
          await new Promise<void>((resolve, reject) => {
            let out = "";
            let err = "";
            child.stdout?.on("data", (chunk: Buffer) => {
              out += chunk.toString();
              if (out.includes("held\n")) resolve();
            });
            child.stderr?.on("data", (chunk: Buffer) => {
              err += chunk.toString();
            });
            child.once("exit", (code) => reject(new Error(`lease holder exited (${code}): ${err}`)));
          });
          const busy = await store.leases.acquire(id).catch((error: unknown) => error);
          expect(busy).toBeInstanceOf(ThreadBusyError);
          expect((busy as ThreadBusyError).holder.pid).toBe(child.pid);
          child.kill("SIGKILL");
          await exited;
          const lease = await store.leases.acquire(id, { waitMs: 10_000 });
          await lease.release();
        } finally {
          child.kill("SIGKILL");
          await exited;
        }
      });
    });
  });
}
