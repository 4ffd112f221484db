/**
 * `npm run bench -- mcp-server`: `tscodex mcp-server` over stdio, driven by the official SDK
 * client against the fake model server, and Codex 0.89's `codex mcp-server` side by side when
 * its binary is found. Per agent:
 * - spawn → initialize answered, and tools/list latency (fresh server each run): the request's
 *   round trip with the reply parsed but not checked, since the SDK client's listTools() also
 *   compiles a validator for every tool's output schema, client-side work no server can save;
 * - idle RSS: the server's resident memory once it has answered initialize and tools/list and
 *   sat idle for a moment (VmRSS from /proc), what a host pays per configured server;
 * - one-turn `codex` round trip (a new thread answering "done"), median of several calls, and the
 *   first call of a fresh server (which pays for loading the runtime the stdio server defers);
 * - 10 and 20 concurrent one-turn `codex` calls (each on a fresh server warmed by one call, so
 *   they time the calls, not the first call's loading): total time and the server's peak RSS
 *   (VmHWM from /proc).
 * Targets (issue 7): initialize ≤ 150 ms, one-turn call ≤ 40 ms, 10 concurrent ≤ 400 ms and ≤ 100 MB.
 * Targets (issue 16, against Codex 0.89 in the same run): initialize ≤ 1.0x Codex, tools/list
 * ≤ 5 ms, idle ≤ 50 MB, 20 concurrent ≤ 90 MB. With $BENCH_BASELINE (another build's
 * bin/tscodex.js) that build is measured too, as tscodex-before.
 */
import { readFile } from "node:fs/promises";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { type FakeModelServer, message, turn } from "../test/support/fake-model-server.js";
import {
  type Agent,
  benchRuns,
  fakeProviderToml,
  makeAgents,
  median,
  withTempDirAndServer,
  writeResults,
} from "./support/bench.js";
import { codexNotFound } from "./support/codex.js";
import { connectMcpServer } from "./support/mcp-client.js";

const RUNS = benchRuns(7);

async function oneTurn(client: Client, cwd: string): Promise<void> {
  const result = (await client.callTool({
    name: "codex",
    arguments: { prompt: "bench task", cwd, sandbox: "read-only", "approval-policy": "never" },
  })) as CallToolResult;
  const text = result.content[0]?.type === "text" ? result.content[0].text : "";
  if (result.isError || !text.includes("done"))
    throw new Error(`codex call failed: ${JSON.stringify(result)}`);
}

/** A /proc/PID/status field in MB (VmHWM: peak resident, VmRSS: resident now). */
async function statusMb(pid: number, field: "VmHWM" | "VmRSS"): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, "utf8");
  return Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0) / 1024;
}

const peakRssMb = (pid: number) => statusMb(pid, "VmHWM");

/** Any result object: tools/list's reply is timed, not validated. */
const anyResult = z.looseObject({ tools: z.array(z.unknown()).optional() });

/** How long a fresh server sits after tools/list before its idle RSS is read. */
const IDLE_MS = 500;

async function startup(agent: Agent, cwd: string) {
  const initialize: number[] = [];
  const toolsList: number[] = [];
  const idle: number[] = [];
  for (let run = 0; run <= RUNS; run++) {
    const { client, pid, initializeMs } = await connectMcpServer(agent, cwd);
    const started = performance.now();
    const listed = await client.request({ method: "tools/list" }, anyResult);
    const listMs = performance.now() - started;
    if (!Array.isArray(listed.tools) || listed.tools.length === 0)
      throw new Error(`${agent.name}: tools/list answered ${JSON.stringify(listed).slice(0, 200)}`);
    await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
    const idleMb = await statusMb(pid, "VmRSS");
    await client.close();
    // Run 0 warms the page cache.
    if (run === 0) continue;
    initialize.push(initializeMs);
    toolsList.push(listMs);
    idle.push(idleMb);
  }
  return { initializeMs: median(initialize), toolsListMs: median(toolsList), idleRssMb: median(idle) };
}

async function roundTrip(agent: Agent, server: FakeModelServer, cwd: string) {
  const { client } = await connectMcpServer(agent, cwd);
  try {
    const times: number[] = [];
    let firstCallMs = 0;
    for (let run = 0; run <= RUNS; run++) {
      server.reset();
      server.enqueue(turn(message("done")));
      const started = performance.now();
      await oneTurn(client, cwd);
      // Call 0 warms the server (lazy imports, first connection to the model).
      if (run > 0) times.push(performance.now() - started);
      else firstCallMs = performance.now() - started;
    }
    return { oneTurnMs: median(times), firstCallMs };
  } finally {
    await client.close();
  }
}

async function concurrent(agent: Agent, server: FakeModelServer, cwd: string, threads: number) {
  const totals: number[] = [];
  const peaks: number[] = [];
  for (let run = 0; run < Math.max(3, Math.ceil(RUNS / 2)); run++) {
    const { client, pid } = await connectMcpServer(agent, cwd);
    try {
      server.reset();
      server.enqueue(turn(message("done")));
      await oneTurn(client, cwd);
      server.enqueue(...Array.from({ length: threads }, () => turn(message("done"))));
      const started = performance.now();
      await Promise.all(Array.from({ length: threads }, () => oneTurn(client, cwd)));
      totals.push(performance.now() - started);
      peaks.push(await peakRssMb(pid));
    } finally {
      await client.close();
    }
  }
  return { totalMs: median(totals), peakRssMb: median(peaks) };
}

type Figures = Awaited<ReturnType<typeof startup>> &
  Awaited<ReturnType<typeof roundTrip>> & {
    concurrent10: { totalMs: number; peakRssMb: number };
    concurrent20: { totalMs: number; peakRssMb: number };
  };

/** Issue 16's targets: each tscodex figure beside Codex's (and the baseline build's, if measured). */
function printTargets(results: Record<string, Figures>): void {
  const ts = results.tscodex;
  if (!ts) return;
  const before = results["tscodex-before"];
  const cx = results["codex-0.89"];
  const row = (target: string, pick: (f: Figures) => number, unit: string, digits = 0) => ({
    target,
    ...(before ? { before: `${pick(before).toFixed(digits)} ${unit}` } : {}),
    tscodex: `${pick(ts).toFixed(digits)} ${unit}`,
    ...(cx
      ? { "codex-0.89": `${pick(cx).toFixed(digits)} ${unit}`, ratio: (pick(ts) / pick(cx)).toFixed(2) }
      : {}),
  });
  console.log("issue 16 targets (medians):");
  console.table({
    "spawn → initialize": row("<= 1.0x Codex", (f) => f.initializeMs, "ms"),
    "tools/list": row("<= 5 ms", (f) => f.toolsListMs, "ms", 1),
    "idle RSS": row("<= 50 MB", (f) => f.idleRssMb, "MB"),
    "20 concurrent peak RSS": row("<= 90 MB", (f) => f.concurrent20.peakRssMb, "MB"),
    "one-turn codex call": row("no worse", (f) => f.oneTurnMs, "ms", 1),
    "first call of a fresh server": row("(loads the runtime)", (f) => f.firstCallMs, "ms"),
    "10 concurrent": row("no worse", (f) => f.concurrent10.totalMs, "ms"),
  });
  if (!cx) console.log(codexNotFound());
}

async function main(): Promise<void> {
  await withTempDirAndServer("tscodex-bench-mcp-server-", async (root, server) => {
    // Codex 0.89 otherwise first fetches its model list from chatgpt.com (~3 s to fail offline).
    const agents = await makeAgents(
      root,
      fakeProviderToml(server.url, "[features]\nremote_models = false\n"),
      { baseline: true },
    );
    const results: Record<string, Figures> = {};
    for (const agent of agents) {
      const start = await startup(agent, root);
      const trip = await roundTrip(agent, server, root);
      const ten = await concurrent(agent, server, root, 10);
      const twenty = await concurrent(agent, server, root, 20);
      results[agent.name] = { ...start, ...trip, concurrent10: ten, concurrent20: twenty };
      console.log(
        `${agent.name.padEnd(14)} initialize ${start.initializeMs.toFixed(0)} ms, tools/list ${start.toolsListMs.toFixed(1)} ms, ` +
          `idle ${start.idleRssMb.toFixed(0)} MB, one-turn codex ${trip.oneTurnMs.toFixed(1)} ms ` +
          `(first call ${trip.firstCallMs.toFixed(0)} ms), ` +
          `10 concurrent ${ten.totalMs.toFixed(0)} ms / ${ten.peakRssMb.toFixed(0)} MB, ` +
          `20 concurrent ${twenty.totalMs.toFixed(0)} ms / ${twenty.peakRssMb.toFixed(0)} MB`,
      );
    }
    printTargets(results);
    console.log(
      "targets (issue 7): initialize <= 150 ms, one-turn <= 40 ms, 10 concurrent <= 400 ms and <= 100 MB",
    );
    await writeResults("mcp-server", { runs: RUNS, ...results });
  });
}

await main();
