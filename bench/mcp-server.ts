/**
 * `npm run bench -- mcp-server`: `tscodex mcp-server` over stdio, driven by the official SDK
 * client against the fake model server, and Codex 0.89's `codex mcp-server` side by side when
 * its binary is found. Per agent:
 * - spawn → initialize answered, and tools/list latency (fresh server each run);
 * - one-turn `codex` round trip (a new thread answering "done"), median of several calls;
 * - 10 and 20 concurrent one-turn `codex` calls (each on a fresh server): total time and the
 *   server's peak RSS (VmHWM from /proc).
 * Targets (issue 7): initialize ≤ 150 ms, one-turn call ≤ 40 ms, 10 concurrent ≤ 400 ms and ≤ 100 MB.
 * Target (issue 16): 20 concurrent one-turn calls in ≤ 90 MB peak RSS.
 */
import { readFile } from "node:fs/promises";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
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

const RUNS = benchRuns(7);
/** Issue 16: the server's peak RSS over 20 concurrent one-turn calls. */
const CONCURRENT_20_RSS_MB = 90;

interface Connected {
  client: Client;
  pid: number;
  initializeMs: number;
}

async function connect(agent: Agent, cwd: string): Promise<Connected> {
  const [command, ...args] = agent.argv(["mcp-server"]);
  const transport = new StdioClientTransport({
    command: command ?? "",
    args,
    cwd,
    env: { PATH: process.env.PATH ?? "", FAKE_KEY: "bench", ...agent.env },
    stderr: "ignore",
  });
  const client = new Client({ name: "bench", version: "1.0.0" });
  const started = performance.now();
  // connect() spawns the server and completes the initialize handshake.
  await client.connect(transport);
  return { client, pid: transport.pid ?? 0, initializeMs: performance.now() - started };
}

async function oneTurn(client: Client, cwd: string): Promise<void> {
  const result = (await client.callTool({
    name: "codex",
    arguments: { prompt: "bench task", cwd, sandbox: "read-only", "approval-policy": "never" },
  })) as CallToolResult;
  const text = result.content[0]?.type === "text" ? result.content[0].text : "";
  if (result.isError || !text.includes("done"))
    throw new Error(`codex call failed: ${JSON.stringify(result)}`);
}

async function peakRssMb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, "utf8");
  return Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

async function startup(agent: Agent, cwd: string) {
  const initialize: number[] = [];
  const toolsList: number[] = [];
  for (let run = 0; run <= RUNS; run++) {
    const { client, initializeMs } = await connect(agent, cwd);
    const started = performance.now();
    await client.listTools();
    const listMs = performance.now() - started;
    await client.close();
    // Run 0 warms the page cache.
    if (run === 0) continue;
    initialize.push(initializeMs);
    toolsList.push(listMs);
  }
  return { initializeMs: median(initialize), toolsListMs: median(toolsList) };
}

async function roundTrip(agent: Agent, server: FakeModelServer, cwd: string) {
  const { client } = await connect(agent, cwd);
  try {
    const times: number[] = [];
    for (let run = 0; run <= RUNS; run++) {
      server.reset();
      server.enqueue(turn(message("done")));
      const started = performance.now();
      await oneTurn(client, cwd);
      // Call 0 warms the server (lazy imports, first connection to the model).
      if (run > 0) times.push(performance.now() - started);
    }
    return { oneTurnMs: median(times) };
  } finally {
    await client.close();
  }
}

async function concurrent(agent: Agent, server: FakeModelServer, cwd: string, threads: number) {
  const totals: number[] = [];
  const peaks: number[] = [];
  for (let run = 0; run < Math.max(3, Math.ceil(RUNS / 2)); run++) {
    const { client, pid } = await connect(agent, cwd);
    try {
      server.reset();
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

async function main(): Promise<void> {
  await withTempDirAndServer("tscodex-bench-mcp-server-", async (root, server) => {
    // Codex 0.89 otherwise first fetches its model list from chatgpt.com (~3 s to fail offline).
    const agents = await makeAgents(
      root,
      fakeProviderToml(server.url, "[features]\nremote_models = false\n"),
    );
    const results: Record<string, unknown> = {};
    for (const agent of agents) {
      const start = await startup(agent, root);
      const trip = await roundTrip(agent, server, root);
      const ten = await concurrent(agent, server, root, 10);
      const twenty = await concurrent(agent, server, root, 20);
      results[agent.name] = { ...start, ...trip, concurrent10: ten, concurrent20: twenty };
      console.log(
        `${agent.name.padEnd(11)} initialize ${start.initializeMs.toFixed(0)} ms, tools/list ${start.toolsListMs.toFixed(1)} ms, ` +
          `one-turn codex ${trip.oneTurnMs.toFixed(1)} ms, 10 concurrent ${ten.totalMs.toFixed(0)} ms / ${ten.peakRssMb.toFixed(0)} MB, ` +
          `20 concurrent ${twenty.totalMs.toFixed(0)} ms / ${twenty.peakRssMb.toFixed(0)} MB`,
      );
    }
    if (agents.length === 1) console.log(`${codexNotFound()}; tscodex only`);
    console.log("targets: initialize <= 150 ms, one-turn <= 40 ms, 10 concurrent <= 400 ms and <= 100 MB");
    const peak20 = (name: string) =>
      (results[name] as { concurrent20: { peakRssMb: number } } | undefined)?.concurrent20.peakRssMb;
    const mine = peak20("tscodex") ?? 0;
    const theirs = peak20("codex-0.89");
    console.log(
      `issue 16 target: 20 concurrent one-turn calls peak RSS ${mine.toFixed(1)} MB (codex-0.89 ` +
        `${theirs === undefined ? "n/a" : `${theirs.toFixed(1)} MB`}), target <= ${CONCURRENT_20_RSS_MB} MB: ` +
        `${mine <= CONCURRENT_20_RSS_MB ? "met" : "NOT met"}`,
    );
    await writeResults("mcp-server", { runs: RUNS, ...results });
  });
}

await main();
