/**
 * `npm run bench -- shared-store`: 100 concurrent one-turn threads across two `tscodex proxy`
 * processes, JSONL (both proxies on one home) vs PostgreSQL (each proxy its own home, one
 * database). Each request is a new thread answered by the fake model; requests alternate between
 * the two proxies. Reports the wall time of the whole round, per-request p50/p99, threads per
 * second and failures.
 * PostgreSQL needs its server binaries (apt-get install postgresql); without them only JSONL runs.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { message, turn } from "../test/support/fake-model-server.js";
import { type ListeningServer, spawnListening } from "../test/support/listening-server.js";
import { postgresBinDir, startPostgres } from "../test/support/postgres.js";
import {
  benchRuns,
  fakeProviderToml,
  median,
  TSCODEX_BIN,
  withTempDirAndServer,
  writeResults,
} from "./support/bench.js";

const CONCURRENT = Number(process.env.BENCH_CONCURRENT ?? 100);
const ROUNDS = benchRuns(3);

function startProxy(home: string, env: Record<string, string>): Promise<ListeningServer> {
  return spawnListening(
    ["proxy", "--port", "0"],
    { home, cwd: home, env },
    { what: "proxy", cli: TSCODEX_BIN },
  );
}

async function oneRequest(url: string, i: number): Promise<{ ok: boolean; ms: number }> {
  const started = performance.now();
  try {
    const response = await fetch(`${url}/responses`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "m", input: `request ${i}` }),
    });
    const text = await response.text();
    const ok = response.status === 200 && text.includes("done");
    if (!ok) console.log(`request ${i} failed: ${response.status} ${text.slice(0, 300)}`);
    return { ok, ms: performance.now() - started };
  } catch (error) {
    console.log(`request ${i} failed: ${String(error)}`);
    return { ok: false, ms: performance.now() - started };
  }
}

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
}

interface Round {
  wallMs: number;
  p50: number;
  p99: number;
  failures: number;
}

async function rounds(proxies: ListeningServer[], enqueue: (count: number) => void): Promise<Round[]> {
  const results: Round[] = [];
  for (let round = 0; round < ROUNDS + 1; round++) {
    enqueue(CONCURRENT);
    const started = performance.now();
    const timings = await Promise.all(
      Array.from({ length: CONCURRENT }, (_, i) => oneRequest(proxies[i % proxies.length]?.url ?? "", i)),
    );
    const wallMs = performance.now() - started;
    // The first round warms both processes up (JIT, connections): not counted.
    if (round === 0) continue;
    const ms = timings.map((timing) => timing.ms);
    results.push({
      wallMs,
      p50: percentile(ms, 50),
      p99: percentile(ms, 99),
      failures: timings.filter((timing) => !timing.ok).length,
    });
  }
  return results;
}

function summary(name: string, all: Round[]) {
  return {
    store: name,
    wallMs: Math.round(median(all.map((round) => round.wallMs))),
    p50Ms: Math.round(median(all.map((round) => round.p50))),
    p99Ms: Math.round(median(all.map((round) => round.p99))),
    threadsPerSecond: Math.round(CONCURRENT / (median(all.map((round) => round.wallMs)) / 1000)),
    failures: all.reduce((sum, round) => sum + round.failures, 0),
  };
}

async function main(): Promise<void> {
  await withTempDirAndServer("tscodex-bench-shared-", async (root, server) => {
    const enqueue = (count: number) => {
      for (let i = 0; i < count; i++) server.enqueue(turn(message("done")));
    };
    const home = async (name: string, tables = "") => {
      const path = join(root, name);
      await mkdir(path, { recursive: true });
      await writeFile(join(path, "config.toml"), fakeProviderToml(server.url, tables));
      return path;
    };
    const rows = [];

    const jsonlHome = await home("jsonl");
    const jsonl = await Promise.all([startProxy(jsonlHome, {}), startProxy(jsonlHome, {})]);
    try {
      rows.push(summary("JSONL (one home)", await rounds(jsonl, enqueue)));
    } finally {
      await Promise.all(jsonl.map((proxy) => proxy.stop()));
    }

    if (!postgresBinDir()) {
      console.log("PostgreSQL: skipped (no initdb/postgres found; apt-get install postgresql)");
    } else {
      const cluster = await startPostgres();
      try {
        const url = await cluster.createDatabase();
        const env = { TSCODEX_STORE_URL: url };
        const pg = await Promise.all([
          startProxy(await home("pg-a"), env),
          startProxy(await home("pg-b"), env),
        ]);
        try {
          rows.push(summary("PostgreSQL (two homes, one database)", await rounds(pg, enqueue)));
        } finally {
          await Promise.all(pg.map((proxy) => proxy.stop()));
        }
      } finally {
        await cluster.stop();
      }
    }

    console.log(
      `\n${CONCURRENT} concurrent one-turn threads across two proxy processes (median of ${ROUNDS} rounds)`,
    );
    console.table(rows);
    await writeResults("shared-store", { concurrent: CONCURRENT, rounds: ROUNDS, rows });
  });
}

await main();
