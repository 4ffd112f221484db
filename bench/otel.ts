/**
 * `npm run bench -- otel`: what OpenTelemetry export costs (issue 41), tscodex against itself
 * with and without `[otel]` (all three signals, otlp-http protobuf, to a live collector on
 * loopback that answers 200 at once), alternately, run by run (A B A B ...):
 * - one-turn `exec` (the model answers "ok"): wall time and peak RSS. Without `[otel]` no
 *   OpenTelemetry code loads (test/cli/exec-startup-modules.test.ts); with it, the packages load,
 *   the turn is recorded and everything is exported before exit.
 * - a turn with one shell call in a long-lived `app-server` (stdio): the median turn time over
 *   TURNS turns, the same thread, with and without `[otel]` (the packages are loaded by then, so
 *   this is the recording and exporting a turn adds).
 * Targets: exec +<= 80 ms and +<= 12 MB with export on (loading the SDK is most of it: ~85 ms
 * as node_modules packages, about half bundled); a server turn +<= 5 ms (under 0.5% of a model
 * turn of a second).
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { StdioAppClient } from "../test/support/app-server-client.js";
import { type FakeModelServer, functionCall, message, turn } from "../test/support/fake-model-server.js";
import {
  type Agent,
  benchRuns,
  fakeProviderToml,
  makeAgents,
  measureScripted,
  median,
  withTempDirAndServer,
  writeResults,
} from "./support/bench.js";

const RUNS = benchRuns(9);
const TURNS = Number(process.env.BENCH_TURNS ?? 40);

/** A collector that takes every export and answers 200 with an empty body, counting what came. */
async function startCollector(): Promise<{
  url: string;
  requests: () => number;
  bytes: () => number;
  close(): Promise<void>;
}> {
  let requests = 0;
  let bytes = 0;
  const server: Server = createServer((request, response) => {
    request.on("data", (chunk: Buffer) => {
      bytes += chunk.length;
    });
    request.on("end", () => {
      requests += 1;
      response.writeHead(200, { "content-type": "application/x-protobuf" }).end();
    });
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests: () => requests,
    bytes: () => bytes,
    close: () => new Promise((done) => server.close(() => done())),
  };
}

function otelToml(collector: string): string {
  const exporter = (path: string) =>
    `{ otlp-http = { endpoint = "${collector}${path}", protocol = "binary" } }`;
  return [
    "[otel]",
    'environment = "bench"',
    `exporter = ${exporter("/v1/logs")}`,
    `trace_exporter = ${exporter("/v1/traces")}`,
    `metrics_exporter = ${exporter("/v1/metrics")}`,
    "",
  ].join("\n");
}

async function agentsFor(dir: string, server: FakeModelServer, collector: string): Promise<[Agent, Agent]> {
  const [plain] = await makeAgents(dir, fakeProviderToml(server.url), { suffix: "-plain" });
  const [exporting] = await makeAgents(dir, fakeProviderToml(server.url, otelToml(collector)), {
    suffix: "-otel",
  });
  if (!plain || !exporting) throw new Error("no tscodex agent");
  return [plain, exporting];
}

async function execOneTurn(dir: string, server: FakeModelServer, collector: string) {
  const [plain, exporting] = await agentsFor(dir, server, collector);
  const samples = {
    plain: [] as { wallMs: number; rssMb: number }[],
    otel: [] as { wallMs: number; rssMb: number }[],
  };
  const args = ["exec", "--skip-git-repo-check", "-s", "danger-full-access", "say ok"];
  for (let run = 0; run <= RUNS; run++) {
    for (const [name, agent] of [
      ["plain", plain],
      ["otel", exporting],
    ] as const) {
      const result = await measureScripted(agent, server, [turn(message("ok"))], args, dir);
      if (run > 0) samples[name].push(result);
    }
  }
  const summary = (list: { wallMs: number; rssMb: number }[]) => ({
    wallMs: median(list.map((s) => s.wallMs)),
    rssMb: median(list.map((s) => s.rssMb)),
  });
  return { plain: summary(samples.plain), otel: summary(samples.otel) };
}

/** Median ms of a turn (one shell call, then a message) on one app-server thread. */
async function serverTurns(agent: Agent, server: FakeModelServer, cwd: string): Promise<number> {
  const client = new StdioAppClient(
    { home: agent.home, cwd, env: { FAKE_KEY: "bench", ...agent.env } },
    [],
    agent.argv(["app-server"]),
  );
  try {
    await client.initialize({});
    const { thread } = await client.call("thread/start", {
      cwd,
      approvalPolicy: "never",
      sandbox: "danger-full-access",
    });
    const times: number[] = [];
    for (let index = 0; index <= TURNS; index++) {
      server.reset();
      server.enqueue(turn(functionCall("shell_command", { command: "true" })), turn(message("done")));
      const from = client.received.length;
      const started = performance.now();
      const { turn: begun } = await client.call("turn/start", {
        threadId: thread.id,
        input: [{ type: "text", text: `turn ${index}` }],
      });
      const done = await client.turnCompleted(begun.id, from, 30_000);
      if (done.params.turn.status !== "completed")
        throw new Error(`turn ended ${JSON.stringify(done.params.turn)}`);
      // Turn 0 loads the tool's code: dropped.
      if (index > 0) times.push(performance.now() - started);
    }
    return median(times);
  } finally {
    await client.close();
  }
}

await withTempDirAndServer("tscodex-bench-otel-", async (dir, server) => {
  const collector = await startCollector();
  try {
    const exec = await execOneTurn(dir, server, collector.url);
    const exported = { requests: collector.requests(), bytes: collector.bytes() };
    const [plain, exporting] = await agentsFor(dir, server, collector.url);
    const plainTurn: number[] = [];
    const otelTurn: number[] = [];
    for (let round = 0; round < 3; round++) {
      plainTurn.push(await serverTurns(plain, server, dir));
      otelTurn.push(await serverTurns(exporting, server, dir));
    }
    const results = {
      runs: RUNS,
      turns: TURNS,
      exec,
      execAddedMs: exec.otel.wallMs - exec.plain.wallMs,
      execAddedMb: exec.otel.rssMb - exec.plain.rssMb,
      execExports: {
        requestsPerRun: exported.requests / (RUNS + 1),
        bytesPerRun: Math.round(exported.bytes / (RUNS + 1)),
      },
      serverTurnMs: { plain: median(plainTurn), otel: median(otelTurn) },
      serverTurnAddedMs: median(otelTurn) - median(plainTurn),
    };
    console.log(
      `exec one turn:     ${exec.plain.wallMs.toFixed(0)} ms / ${exec.plain.rssMb.toFixed(1)} MB without [otel]`,
    );
    console.log(
      `                   ${exec.otel.wallMs.toFixed(0)} ms / ${exec.otel.rssMb.toFixed(1)} MB with export on (+${results.execAddedMs.toFixed(0)} ms, +${results.execAddedMb.toFixed(1)} MB; target +80 ms, +12 MB)`,
    );
    console.log(
      `                   ${results.execExports.requestsPerRun.toFixed(1)} export requests, ${results.execExports.bytesPerRun} bytes per run`,
    );
    console.log(
      `app-server turn:   ${results.serverTurnMs.plain.toFixed(2)} ms without, ${results.serverTurnMs.otel.toFixed(2)} ms with export on (+${results.serverTurnAddedMs.toFixed(2)} ms; target +5 ms)`,
    );
    await writeResults("otel", results);
  } finally {
    await collector.close();
  }
});
