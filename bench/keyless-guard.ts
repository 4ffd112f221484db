/**
 * `npm run bench -- keyless-guard`: what the key-less caller check costs a legitimate client
 * (issue 37, cause 9). A key-less `tscodex proxy` on loopback decides per TCP connection who
 * is calling; this measures GET /v1/models on a new connection each time, sequentially:
 * - quiet: nothing else running;
 * - flooded: a local process holding 6,000 open files keeps 200 connections in flight to the
 *   same proxy (the attack that once delayed a legitimate client past 5 s).
 * Reports p50 / p99 / max latency of each, and how many requests the flood got through.
 * With $BENCH_BASELINE naming another build's bin/tscodex.js, that build is measured too
 * (alternating rounds), as tscodex-before. Target: flooded p99 under 250 ms.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { request } from "node:http";
import { join } from "node:path";
import {
  benchRuns,
  fakeProviderToml,
  TSCODEX_BIN,
  withTempDirAndServer,
  writeResults,
} from "./support/bench.js";

const REQUESTS = benchRuns(60);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const FLOOD_FDS = 6_000;
const FLOOD_CONNECTIONS = 200;
const TARGET_P99_MS = 250;

/** Holds FLOOD_FDS open files, then keeps FLOOD_CONNECTIONS requests in flight until killed (or 60 s). */
const FLOOD_PY = `
import asyncio, os, resource, sys, time
port = int(sys.argv[1]); fds = int(sys.argv[2]); conns = int(sys.argv[3])
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, fds + conns + 256), hard))
held = [os.open("/dev/null", os.O_RDONLY) for _ in range(fds)]
done = 0
async def one():
    global done
    while True:
        try:
            r, w = await asyncio.open_connection("127.0.0.1", port)
            w.write(b"GET /v1/models HTTP/1.1\\r\\nHost: 127.0.0.1\\r\\nConnection: close\\r\\n\\r\\n")
            await w.drain()
            await r.read()
            w.close()
            done += 1
        except Exception:
            await asyncio.sleep(0.01)
async def main():
    tasks = [asyncio.create_task(one()) for _ in range(conns)]
    print("ready", flush=True)
    await asyncio.sleep(60)
asyncio.run(main())
`;

/** One GET on a fresh connection (no keep-alive: the check runs per connection); ms, or -1. */
function timedGet(port: number): Promise<number> {
  const started = performance.now();
  return new Promise((resolve) => {
    const req = request({ host: "127.0.0.1", port, path: "/v1/models", agent: false }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode === 200 ? performance.now() - started : -1));
    });
    req.on("error", () => resolve(-1));
    req.setTimeout(30_000, () => req.destroy());
    req.end();
  });
}

async function startProxy(bin: string, home: string): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, [bin, "proxy", "--port", "0"], {
    cwd: home,
    env: { PATH: process.env.PATH ?? "", HOME: home, TSCODEX_HOME: home, FAKE_KEY: "bench" },
    stdio: ["ignore", "ignore", "pipe"],
  });
  const port = await new Promise<number>((resolve, reject) => {
    let stderr = "";
    child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
      const found = /listening on http:\/\/[^:]+:(\d+)/.exec(stderr)?.[1];
      if (found) resolve(Number(found));
    });
    child.once("exit", (code) => reject(new Error(`proxy exited (${code}): ${stderr}`)));
  });
  child.stderr?.resume();
  return { child, port };
}

async function startFlood(port: number): Promise<ChildProcess> {
  const flood = spawn(
    "python3",
    ["-c", FLOOD_PY, String(port), String(FLOOD_FDS), String(FLOOD_CONNECTIONS)],
    {
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  await new Promise<void>((resolve, reject) => {
    flood.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
      if (chunk.includes("ready")) resolve();
    });
    flood.once("exit", (code) => reject(new Error(`flood exited (${code})`)));
  });
  return flood;
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGKILL");
  await exited;
}

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
}

interface Series {
  quiet: number[];
  flooded: number[];
  failures: number;
}

async function measure(bin: string, home: string, series: Series): Promise<void> {
  const { child, port } = await startProxy(bin, home);
  try {
    await timedGet(port); // warm-up: lazy imports, first verdict
    for (let i = 0; i < REQUESTS; i++) {
      const ms = await timedGet(port);
      if (ms < 0) series.failures += 1;
      else series.quiet.push(ms);
    }
    const flood = await startFlood(port);
    try {
      for (let i = 0; i < REQUESTS; i++) {
        const ms = await timedGet(port);
        if (ms < 0) series.failures += 1;
        else series.flooded.push(ms);
      }
    } finally {
      await stop(flood);
    }
  } finally {
    await stop(child);
  }
}

async function main(): Promise<void> {
  await withTempDirAndServer("tscodex-bench-keyless-", async (root, server) => {
    await writeFile(join(root, "config.toml"), fakeProviderToml(server.url));
    const builds: [string, string][] = [["tscodex", TSCODEX_BIN]];
    if (process.env.BENCH_BASELINE) builds.push(["tscodex-before", process.env.BENCH_BASELINE]);
    const results = new Map<string, Series>(
      builds.map(([name]) => [name, { quiet: [], flooded: [], failures: 0 }]),
    );
    for (let round = 0; round < ROUNDS; round++) {
      for (const [name, bin] of round % 2 ? [...builds].reverse() : builds) {
        await measure(bin, root, results.get(name) as Series);
      }
    }
    const f = (n: number) => n.toFixed(1);
    const summary: Record<string, unknown> = {};
    for (const [name, series] of results) {
      const stats = (values: number[]) => ({
        p50: percentile(values, 50),
        p99: percentile(values, 99),
        max: Math.max(0, ...values),
      });
      const quiet = stats(series.quiet);
      const flooded = stats(series.flooded);
      summary[name] = { quiet, flooded, failures: series.failures };
      console.log(
        `${name}: GET /v1/models on a new connection, ${series.quiet.length} quiet: p50 ${f(quiet.p50)} / p99 ${f(quiet.p99)} / max ${f(quiet.max)} ms; ` +
          `${series.flooded.length} under a ${FLOOD_FDS}-fd, ${FLOOD_CONNECTIONS}-connection flood: p50 ${f(flooded.p50)} / p99 ${f(flooded.p99)} / max ${f(flooded.max)} ms; failures ${series.failures}`,
      );
    }
    await writeResults("keyless-guard", summary);
    console.log(`target: flooded p99 <= ${TARGET_P99_MS} ms, 0 failures`);
  });
}

await main();
