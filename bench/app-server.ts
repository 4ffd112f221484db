/**
 * `npm run bench -- app-server`: `tscodex app-server` over stdio against the fake model server,
 * and Codex 0.89's `codex app-server` beside it when its binary is found (client tools are 0.169
 * API: Codex 0.89 has no column for them). Per agent:
 * - initialize: spawn → initialize answered (fresh server each run);
 * - thread/start + one turn answering "done" (warm server), median;
 * - client tool round trip: the gap between the model request that asks for a client tool and
 *   the next model request (the server announces the call, the client answers at once, the
 *   server sends the output back), minus the same gap for a built-in no-op tool (update_plan):
 *   what a client tool costs beyond the model and the loop;
 * - 20 concurrent threads on one connection (20 × thread/start + turn/start at once): total time
 *   and the server's peak RSS (VmHWM from /proc).
 * - node itself: the same handshake timing for a bare `node -e` echoing a line, the floor of any
 *   Node server on this machine at this moment (a busy machine moves every number).
 * - commands and files (tscodex only: 0.169 API): fs/readFile of a 4 KiB file, and command/exec
 *   of `true` contained (dangerFullAccess) and sandboxed (readOnly), request to reply, median.
 * Targets: initialize <= 100 ms, client-tool round trip <= 5 ms beyond the model, 20 concurrent
 * one-turn threads <= 400 ms and <= 120 MB.
 * `BENCH_CASES=files npm run bench -- app-server` runs only the named cases (initialize, turn,
 * clientTool, concurrent, files; comma-separated).
 */
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { StdioAppClient } from "../test/support/app-server-client.js";
import { type FakeModelServer, functionCall, message, turn } from "../test/support/fake-model-server.js";
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
const CONCURRENT = 20;
const CASES = new Set((process.env.BENCH_CASES ?? "initialize,turn,clientTool,concurrent,files").split(","));

interface Connected {
  client: StdioAppClient;
  initializeMs: number;
}

async function connect(agent: Agent, cwd: string, experimental: boolean): Promise<Connected> {
  const command = agent.argv(["app-server"]);
  const started = performance.now();
  const client = new StdioAppClient(
    { home: agent.home, cwd, env: { FAKE_KEY: "bench", ...agent.env } },
    [],
    command,
  );
  const reply = await client.initialize(experimental ? { experimentalApi: true } : {});
  if (reply.error) throw new Error(`${agent.name} initialize failed: ${reply.error.message}`);
  return { client, initializeMs: performance.now() - started };
}

async function oneTurn(
  client: StdioAppClient,
  cwd: string,
  extra: Record<string, unknown> = {},
): Promise<void> {
  const { thread } = await client.call("thread/start", {
    cwd,
    approvalPolicy: "never",
    sandbox: "read-only",
    ...extra,
  });
  const from = client.received.length;
  const { turn: started } = await client.call("turn/start", {
    threadId: thread.id,
    input: [{ type: "text", text: "bench task" }],
  });
  const done = await client.turnCompleted(started.id, from, 30_000);
  if (done.params.turn.status !== "completed")
    throw new Error(`turn ended ${JSON.stringify(done.params.turn)}`);
}

async function peakRssMb(pid: number | undefined): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, "utf8");
  return Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

async function initialize(agent: Agent, cwd: string) {
  const times: number[] = [];
  for (let run = 0; run <= RUNS; run++) {
    const { client, initializeMs } = await connect(agent, cwd, false);
    await client.close();
    // Run 0 warms the page cache.
    if (run > 0) times.push(initializeMs);
  }
  return median(times);
}

/** The same handshake timing for a bare node echoing one line: what any Node server pays to start here. */
async function nodeBaseline(cwd: string): Promise<number> {
  const echo = "process.stdin.once('data', () => process.stdout.write('{\"id\":1,\"result\":{}}\\n'))";
  const times: number[] = [];
  for (let run = 0; run <= RUNS; run++) {
    const started = performance.now();
    const client = new StdioAppClient({ home: cwd, cwd }, [], [process.execPath, "-e", echo]);
    await client.request("initialize", {}, 1);
    const elapsed = performance.now() - started;
    await client.close();
    if (run > 0) times.push(elapsed);
  }
  return median(times);
}

async function threadAndTurn(agent: Agent, server: FakeModelServer, cwd: string) {
  const { client } = await connect(agent, cwd, false);
  try {
    const times: number[] = [];
    for (let run = 0; run <= RUNS; run++) {
      server.reset();
      server.enqueue(turn(message("done")));
      const started = performance.now();
      await oneTurn(client, cwd);
      // Turn 0 warms the server (lazy imports, the first connection to the model).
      if (run > 0) times.push(performance.now() - started);
    }
    return median(times);
  } finally {
    await client.close();
  }
}

const PING = {
  type: "function",
  name: "ping_app",
  description: "Answers pong.",
  inputSchema: { type: "object", properties: {} },
};

/** Median gap between the request that asks for `call` and the next model request. */
async function requestGap(
  client: StdioAppClient,
  server: FakeModelServer,
  cwd: string,
  call: () => ReturnType<typeof functionCall>,
) {
  const gaps: number[] = [];
  for (let run = 0; run <= RUNS; run++) {
    server.reset();
    let asked = 0;
    let next = 0;
    server.enqueue(
      () => {
        asked = performance.now();
        return turn(call());
      },
      () => {
        next = performance.now();
        return turn(message("done"));
      },
    );
    await oneTurn(client, cwd, { dynamicTools: [PING] });
    if (run > 0) gaps.push(next - asked);
  }
  return median(gaps);
}

async function clientToolRoundTrip(agent: Agent, server: FakeModelServer, cwd: string) {
  const { client } = await connect(agent, cwd, true);
  client.onRequest = () => ({
    result: { contentItems: [{ type: "inputText", text: "pong" }], success: true },
  });
  try {
    const builtIn = await requestGap(client, server, cwd, () =>
      functionCall("update_plan", { plan: [{ step: "bench", status: "completed" }] }),
    );
    const clientTool = await requestGap(client, server, cwd, () => functionCall("ping_app", {}));
    return { clientToolGapMs: clientTool, builtInGapMs: builtIn, beyondModelMs: clientTool - builtIn };
  } finally {
    await client.close();
  }
}

async function concurrent(agent: Agent, server: FakeModelServer, cwd: string) {
  const totals: number[] = [];
  const peaks: number[] = [];
  for (let run = 0; run < Math.max(3, Math.ceil(RUNS / 2)); run++) {
    const { client } = await connect(agent, cwd, false);
    try {
      server.reset();
      server.enqueue(...Array.from({ length: CONCURRENT }, () => turn(message("done"))));
      const started = performance.now();
      await Promise.all(Array.from({ length: CONCURRENT }, () => oneTurn(client, cwd)));
      totals.push(performance.now() - started);
      peaks.push(await peakRssMb(client.child.pid));
    } finally {
      await client.close();
    }
  }
  return { totalMs: median(totals), peakRssMb: median(peaks) };
}

/** Median request → reply time of `method` over 10 × RUNS calls on a warm server. */
async function roundTrip(client: StdioAppClient, method: string, params: unknown): Promise<number> {
  const times: number[] = [];
  for (let run = 0; run <= 10 * RUNS; run++) {
    const started = performance.now();
    const reply = await client.request(method, params);
    if (reply.error) throw new Error(`${method} failed: ${reply.error.message}`);
    if (run > 0) times.push(performance.now() - started);
  }
  return median(times);
}

async function commandsAndFiles(agent: Agent, cwd: string) {
  const path = join(cwd, "bench-read.txt");
  await writeFile(path, "x".repeat(4096));
  const { client } = await connect(agent, cwd, false);
  try {
    const exec = (type: string) => ({ command: ["true"], cwd, sandboxPolicy: { type } });
    return {
      readFile4KiBMs: await roundTrip(client, "fs/readFile", { path }),
      execTrueContainedMs: await roundTrip(client, "command/exec", exec("dangerFullAccess")),
      execTrueSandboxedMs: await roundTrip(client, "command/exec", exec("readOnly")).catch(() => null),
    };
  } finally {
    await client.close();
  }
}

async function main(): Promise<void> {
  await withTempDirAndServer("tscodex-bench-app-server-", async (root, server) => {
    // Codex 0.89 otherwise first fetches its model list from chatgpt.com (~3 s to fail offline).
    const agents = await makeAgents(
      root,
      fakeProviderToml(server.url, "[features]\nremote_models = false\n"),
      { baseline: true },
    );
    const results: Record<string, unknown> = { nodeStartupMs: await nodeBaseline(root) };
    const ms = (value: number | null | undefined, digits = 1) =>
      value == null ? "n/a" : `${value.toFixed(digits)} ms`;
    for (const agent of agents) {
      const initializeMs = CASES.has("initialize") ? await initialize(agent, root) : null;
      const oneTurnMs = CASES.has("turn") ? await threadAndTurn(agent, server, root) : null;
      const tool =
        CASES.has("clientTool") && agent.name !== "codex-0.89"
          ? await clientToolRoundTrip(agent, server, root)
          : null;
      const many = CASES.has("concurrent") ? await concurrent(agent, server, root) : null;
      const files =
        CASES.has("files") && agent.name === "tscodex" ? await commandsAndFiles(agent, root) : null;
      results[agent.name] = {
        initializeMs,
        threadStartAndTurnMs: oneTurnMs,
        clientTool: tool,
        concurrent20: many,
        commandsAndFiles: files,
      };
      console.log(
        `${agent.name.padEnd(14)} initialize ${ms(initializeMs, 0)}, thread/start + one turn ${ms(oneTurnMs)}, ` +
          (tool
            ? `client tool round trip ${tool.clientToolGapMs.toFixed(1)} ms (built-in ${tool.builtInGapMs.toFixed(1)} ms, +${tool.beyondModelMs.toFixed(1)} ms), `
            : "client tool round trip n/a, ") +
          `${CONCURRENT} concurrent threads ${many ? `${many.totalMs.toFixed(0)} ms / ${many.peakRssMb.toFixed(0)} MB` : "n/a"}` +
          (files
            ? `, fs/readFile 4 KiB ${ms(files.readFile4KiBMs, 2)}, command/exec true ${ms(files.execTrueContainedMs)} (sandboxed ${ms(files.execTrueSandboxedMs)})`
            : ""),
      );
    }
    console.log(`node itself (spawn → one line answered): ${Number(results.nodeStartupMs).toFixed(0)} ms`);
    if (!agents.some((agent) => agent.name === "codex-0.89")) console.log(codexNotFound());
    console.log(
      "targets: initialize <= 100 ms, client tool <= 5 ms beyond the model, 20 concurrent <= 400 ms and <= 120 MB",
    );
    await writeResults("app-server", { runs: RUNS, ...results });
  });
}

await main();
