/**
 * `npm run bench -- thread-store`: JSONL rollouts vs the PostgreSQL store, in process.
 * (1) append latency: one batch (a model response: reasoning, answer, token count) recorded and
 *     flushed, p50/p99 over many batches;
 * (2) loading a 1,000-turn thread (written one flush per turn, as a live thread does);
 * (3) 100 threads at once, each leased, created, given one turn, closed and released.
 * PostgreSQL is a throwaway local cluster with its crash safety on (fsync, synchronous commit),
 * reached over TCP on 127.0.0.1; the JSONL side runs with and without fdatasync per batch.
 * PostgreSQL needs its server binaries (apt-get install postgresql); without them only JSONL runs.
 */

import { join } from "node:path";
import type { Event } from "../src/protocol/events.js";
import { emptyUsage } from "../src/protocol/items.js";
import { openPostgresStore } from "../src/store/postgres-store.js";
import type { SessionMeta } from "../src/store/rollout.js";
import { readRollout } from "../src/store/rollout-reader.js";
import { RolloutRecorder } from "../src/store/rollout-recorder.js";
import { FileThreadLeases, type ThreadLeases } from "../src/store/thread-lock.js";
import type { ThreadStore, ThreadWriter } from "../src/store/thread-store.js";
import { uuidv7 } from "../src/util/ids.js";
import { postgresBinDir, startPostgres } from "../test/support/postgres.js";
import { benchRuns, median, withTempDir, writeResults } from "./support/bench.js";
import { benchTurnEvents } from "./support/turn-events.js";

const RUNS = benchRuns(5);
const BATCHES = Number(process.env.BENCH_BATCHES ?? 500);
const TURNS = 1000;
const CONCURRENT = 100;

function meta(): SessionMeta {
  return {
    id: uuidv7(),
    created: new Date().toISOString(),
    cwd: "/work/project",
    model: "gpt-5.2-codex",
    provider: "fake",
    approval_policy: "never",
    sandbox_mode: "read-only",
    source: "bench",
  };
}

/** One model response: what a live thread flushes at a time. */
function responseBatch(i: number): Event[] {
  const usage = { ...emptyUsage(), input_tokens: 1000 + i, output_tokens: 50, total_tokens: 1050 + i };
  return [
    {
      type: "raw_response_item",
      item: { type: "reasoning", summary: [{ type: "summary_text", text: `Thinking ${i}` }] },
    },
    {
      type: "raw_response_item",
      item: {
        type: "message",
        role: "assistant",
        content: [{ type: "output_text", text: `Answer ${i}. ${"ok ".repeat(60)}` }],
      },
    },
    { type: "token_count", last: usage, total: usage, model_context_window: 272_000 },
  ];
}

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
}

/** A store under test: how to start a thread, read it back, and lease it. */
interface Side {
  name: string;
  create(meta: SessionMeta): Promise<ThreadWriter>;
  load(id: string, path: string | null): Promise<number>;
  leases: ThreadLeases;
}

async function appendLatency(side: Side) {
  const writer = await side.create(meta());
  const times: number[] = [];
  for (let i = 0; i < BATCHES; i++) {
    const started = performance.now();
    for (const event of responseBatch(i)) writer.recordEvent(event);
    await writer.flush();
    times.push(performance.now() - started);
  }
  await writer.close();
  return { p50Ms: percentile(times, 50), p99Ms: percentile(times, 99) };
}

async function longThread(side: Side) {
  const m = meta();
  const started = performance.now();
  const writer = await side.create(m);
  for (let i = 0; i < TURNS; i++) {
    for (const event of benchTurnEvents(i)) writer.recordEvent(event);
    await writer.flush();
  }
  await writer.close();
  const writeMs = performance.now() - started;
  let items = 0;
  const times: number[] = [];
  items = await side.load(m.id, writer.path); // warm-up
  for (let i = 0; i < RUNS; i++) {
    const t = performance.now();
    items = await side.load(m.id, writer.path);
    times.push(performance.now() - t);
  }
  return { writeMs, loadMs: median(times), items };
}

async function concurrentThreads(side: Side) {
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENT }, async () => {
      const m = meta();
      const lease = await side.leases.acquire(m.id);
      const writer = await side.create(m);
      for (const event of benchTurnEvents(0)) writer.recordEvent(event);
      await writer.close();
      await lease.release();
    }),
  );
  return { wallMs: performance.now() - started };
}

async function measureSide(side: Side) {
  return {
    append: await appendLatency(side),
    thread: await longThread(side),
    concurrent: await concurrentThreads(side),
  };
}

function jsonlSide(home: string, fsync: boolean): Side {
  return {
    name: fsync ? "JSONL (fdatasync per batch)" : "JSONL",
    create: (m) => RolloutRecorder.create(home, m, { fsync }),
    load: async (_id, path) => (await readRollout(path ?? "")).history.length,
    leases: new FileThreadLeases(home),
  };
}

function postgresSide(store: ThreadStore): Side {
  return {
    name: "PostgreSQL (127.0.0.1, synchronous commit)",
    create: (m) => store.create(m),
    load: async (id) => (await store.read(id))?.history.length ?? 0,
    leases: store.leases,
  };
}

async function main(): Promise<void> {
  const results: Record<string, Awaited<ReturnType<typeof measureSide>>> = {};
  await withTempDir("tscodex-bench-store-", async (dir) => {
    for (const side of [jsonlSide(join(dir, "a"), false), jsonlSide(join(dir, "b"), true)])
      results[side.name] = await measureSide(side);
  });
  if (postgresBinDir()) {
    const cluster = await startPostgres({ durable: true });
    try {
      const store = await openPostgresStore(await cluster.createDatabase());
      try {
        const side = postgresSide(store);
        results[side.name] = await measureSide(side);
      } finally {
        await store.close();
      }
    } finally {
      await cluster.stop();
    }
  } else console.log("PostgreSQL skipped: no server binaries (apt-get install postgresql)");
  console.log(
    `thread store benchmark: ${BATCHES} appends of one response (3 lines), a ${TURNS}-turn thread (load: median of ${RUNS}), ${CONCURRENT} concurrent one-turn threads`,
  );
  const table: Record<string, Record<string, string>> = {};
  for (const [name, r] of Object.entries(results))
    table[name] = {
      "append p50": `${r.append.p50Ms.toFixed(2)} ms`,
      "append p99": `${r.append.p99Ms.toFixed(2)} ms`,
      [`write ${TURNS} turns`]: `${r.thread.writeMs.toFixed(0)} ms`,
      [`load ${TURNS} turns`]: `${r.thread.loadMs.toFixed(0)} ms (${r.thread.items} items)`,
      [`${CONCURRENT} threads at once`]: `${r.concurrent.wallMs.toFixed(0)} ms`,
    };
  console.table(table);
  await writeResults("thread-store", {
    batches: BATCHES,
    turns: TURNS,
    concurrent: CONCURRENT,
    runs: RUNS,
    results,
  });
}

await main();
