/**
 * migrateThreads: every thread (archived ones too) copied with its lines and timestamps; a run
 * that stopped half way is completed by running it again; a second run changes nothing.
 * Store to store through the ThreadStore contract (here JSONL to JSONL; the PostgreSQL target is
 * covered end to end in test/store/postgres-store.test.ts and test/session/postgres-servers.test.ts).
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Event } from "../../src/protocol/events.js";
import { emptyUsage, userMessage } from "../../src/protocol/items.js";
import { JsonlThreadStore } from "../../src/store/jsonl-store.js";
import { migrateThreads } from "../../src/store/migrate.js";
import { uuidv7 } from "../../src/util/ids.js";
import { metaOf } from "../support/thread-store-contract.js";
import { type TempDir, tmpdir } from "../support/tmpdir.js";

let source: TempDir;
let target: TempDir;
beforeEach(async () => {
  source = await tmpdir("tscodex-migrate-from-");
  target = await tmpdir("tscodex-migrate-to-");
});
afterEach(async () => {
  await source.cleanup();
  await target.cleanup();
});

function turn(turnId: string, prompt: string): Event[] {
  const usage = { ...emptyUsage(), input_tokens: 3, total_tokens: 3 };
  return [
    { type: "turn_started", turn_id: turnId, model_context_window: null },
    { type: "raw_response_item", item: userMessage(prompt) },
    { type: "user_message", message: prompt, images: [] },
    { type: "turn_complete", turn_id: turnId, last_agent_message: null, usage },
  ];
}

async function storeThread(store: JsonlThreadStore, turns: number, id = uuidv7()): Promise<string> {
  const writer = await store.create(metaOf(id));
  for (let i = 0; i < turns; i++)
    for (const event of turn(String(i), `prompt ${i}`)) writer.recordEvent(event);
  await writer.close();
  return id;
}

describe("migrateThreads", () => {
  it("copies every thread with its lines, archived ones into the archive", async () => {
    const from = new JsonlThreadStore(source.path);
    const to = new JsonlThreadStore(target.path);
    const a = await storeThread(from, 2);
    const b = await storeThread(from, 1);
    const archived = await storeThread(from, 3);
    expect(await from.archive(archived)).toBe(true);

    const seen: string[] = [];
    const report = await migrateThreads(from, to, (progress) =>
      seen.push(`${progress.done}/${progress.total}`),
    );
    expect(report).toMatchObject({ copied: 3, resumed: 0, unchanged: 0, failed: [] });
    expect(seen).toEqual(["1/3", "2/3", "3/3"]);
    for (const id of [a, b]) {
      const original = await from.readLines(id);
      const copy = await to.readLines(id);
      // Everything after the metadata line is copied as it was, timestamps included.
      expect(copy?.slice(1)).toEqual(original?.slice(1));
      expect(copy?.[0]?.payload).toEqual(original?.[0]?.payload);
    }
    expect(await to.read(archived)).toBeNull();
    expect((await to.read(archived, { archived: true }))?.turns).toBe(3);
  });

  it("completes a partial copy and changes nothing on a second run", async () => {
    const from = new JsonlThreadStore(source.path);
    const to = new JsonlThreadStore(target.path);
    const id = await storeThread(from, 3);
    // A run that stopped after the first turn of this thread.
    const lines = (await from.readLines(id)) ?? [];
    const partial = await to.create(metaOf(id));
    for (const line of lines.slice(1, 5)) partial.writeLine(line);
    await partial.close();

    const first = await migrateThreads(from, to);
    expect(first).toMatchObject({ copied: 0, resumed: 1, unchanged: 0, lines: lines.length - 5 });
    expect((await to.readLines(id))?.slice(1)).toEqual(lines.slice(1));
    expect((await to.read(id))?.turns).toBe(3);

    const second = await migrateThreads(from, to);
    expect(second).toMatchObject({ copied: 0, resumed: 0, unchanged: 1, lines: 0 });
    expect(await to.readLines(id)).toHaveLength(lines.length);
  });

  it("reports a thread held by a running process and copies the rest", async () => {
    const from = new JsonlThreadStore(source.path);
    const to = new JsonlThreadStore(target.path);
    const busy = await storeThread(from, 1);
    const free = await storeThread(from, 1);
    const lease = await to.leases.acquire(busy);
    try {
      const report = await migrateThreads(from, to);
      expect(report.copied).toBe(1);
      expect(report.failed).toEqual([{ id: busy, error: expect.stringContaining("in use") }]);
      expect(await to.read(free)).not.toBeNull();
    } finally {
      await lease.release();
    }
    expect((await migrateThreads(from, to)).copied).toBe(1);
  });
});
