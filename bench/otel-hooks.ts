/**
 * `npm run bench -- otel-hooks`: what `[otel]` costs inside the process (bench/otel.ts: through the CLI).
 * (1) start: `startOtelTelemetry` in a fresh process (its OpenTelemetry modules imported cold),
 *     time to a usable Telemetry and the RSS it adds, per transport (all three signals on);
 * (2) one turn's hook calls (1 turn, 2 model requests of 10 SSE events each, 1 tool call, a
 *     hook run) with export on to a loopback collector: the synchronous cost per turn, p50/p99,
 *     and the flush that exports them.
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import type { OtelExporterSetting } from "../src/config/otel.js";
import { startOtelTelemetry } from "../src/telemetry/start.js";
import { driveTurn, otelSettings } from "../test/telemetry/drive.js";
import { benchRuns, median, writeResults } from "./support/bench.js";

type Transport = "binary" | "json" | "grpc";
const TURNS = Number(process.env.BENCH_TURNS ?? 500);
const RUNS = benchRuns(5);
const execFileAsync = promisify(execFile);

/** The collector's base URLs: the receiver lives in the parent, so a child's cold start loads only our modules. */
interface Collector {
  http: string;
  grpc: string;
}

function exporters(collector: Collector, transport: Transport) {
  const one = (path: string): OtelExporterSetting =>
    transport === "grpc"
      ? { kind: "otlp-grpc", endpoint: collector.grpc, headers: {} }
      : { kind: "otlp-http", endpoint: `${collector.http}${path}`, headers: {}, protocol: transport };
  return { logs: one("/v1/logs"), traces: one("/v1/traces"), metrics: one("/v1/metrics") };
}

/** Child mode: one cold start, printed as JSON on stdout. */
async function coldStart(transport: Transport, collector: Collector): Promise<void> {
  const rssBefore = process.memoryUsage().rss;
  const started = performance.now();
  const telemetry = await startOtelTelemetry(otelSettings(exporters(collector, transport)), {
    serviceName: "codex_exec",
    sessionSource: "exec",
  });
  const startMs = performance.now() - started;
  driveTurn(telemetry);
  const rssAfter = process.memoryUsage().rss;
  await telemetry.shutdown();
  process.stdout.write(`${JSON.stringify({ startMs, rssAddedMb: (rssAfter - rssBefore) / 2 ** 20 })}\n`);
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

async function main(): Promise<void> {
  // Imported here only: the receiver loads grpc-js and protobufjs, which would skew a cold start.
  const { startOtlpReceiver } = await import("../test/support/otlp-receiver.js");
  const receiver = await startOtlpReceiver();
  const collector = { http: receiver.httpUrl(""), grpc: receiver.grpcUrl };
  const results: Record<string, unknown> = {};
  for (const transport of ["binary", "json", "grpc"] as const) {
    const samples: { startMs: number; rssAddedMb: number }[] = [];
    for (let run = 0; run < RUNS; run++) {
      // Async: the receiver in this process must keep answering the child.
      const child = await execFileAsync(
        process.execPath,
        ["scripts/run-ts.mjs", "bench/otel-hooks.ts", "--cold", transport, collector.http, collector.grpc],
        { encoding: "utf8" },
      );
      samples.push(JSON.parse(child.stdout.trim().split("\n").at(-1) ?? "{}"));
    }
    const start = {
      startMs: median(samples.map((s) => s.startMs)),
      rssAddedMb: median(samples.map((s) => s.rssAddedMb)),
    };
    results[`start.${transport}`] = start;
    console.log(
      `start (${transport}, cold, median of ${RUNS}): ${start.startMs.toFixed(1)} ms, +${start.rssAddedMb.toFixed(1)} MB RSS`,
    );
  }

  const telemetry = await startOtelTelemetry(otelSettings(exporters(collector, "binary")), {
    serviceName: "codex_exec",
    sessionSource: "exec",
  });
  for (let i = 0; i < 50; i++) driveTurn(telemetry, { deltas: 6 });
  await telemetry.flush();
  const perTurnUs: number[] = [];
  const flushMs: number[] = [];
  for (let i = 0; i < TURNS; i++) {
    const started = performance.now();
    driveTurn(telemetry, { deltas: 6 });
    perTurnUs.push((performance.now() - started) * 1000);
    if (i % 50 === 49) {
      const flushStarted = performance.now();
      await telemetry.flush();
      flushMs.push((performance.now() - flushStarted) / 50);
    }
  }
  await telemetry.shutdown();
  await receiver.close();
  const turn = {
    hookCallsP50Us: percentile(perTurnUs, 50),
    hookCallsP99Us: percentile(perTurnUs, 99),
    exportPerTurnMs: median(flushMs),
  };
  results.turn = turn;
  console.log(
    `one turn's hook calls (otlp-http binary, export on): p50 ${turn.hookCallsP50Us.toFixed(0)} µs, p99 ${turn.hookCallsP99Us.toFixed(0)} µs; ` +
      `export (flush, amortised over 50 turns): ${turn.exportPerTurnMs.toFixed(2)} ms per turn`,
  );
  await writeResults("otel-hooks", { turns: TURNS, runs: RUNS, results });
}

const coldIndex = process.argv.indexOf("--cold");
if (coldIndex >= 0) {
  const [transport, http = "", grpc = ""] = process.argv.slice(coldIndex + 1);
  await coldStart(transport as Transport, { http, grpc });
} else await main();
