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
 * - thread/name/set + thread/read: a name stored in the thread's rollout and read back with the
 *   thread (warm server, idle thread in memory), median per round trip (tscodex only: Codex 0.89
 *   has no thread names).
 *   `BENCH_CASE=thread-name npm run bench -- app-server` runs only this case.
 * - commands and files (tscodex only: 0.169 API): fs/readFile of a 4 KiB file, and command/exec
 *   of `true` contained (dangerFullAccess) and sandboxed (readOnly), request to reply, median.
 *   `BENCH_CASE=files npm run bench -- app-server` runs only this case.
 * - node itself: the same handshake timing for a bare `node -e` echoing a line, the floor of any
 *   Node server on this machine at this moment (a busy machine moves every number).
 * - mcpServer/tool/call round trip: request → reply for the MCP fixture's `echo` tool on a thread
 *   whose servers are up (warm), median; beside Codex 0.169 when found (0.89 has no such method).
 *   `BENCH_CASE=mcp-tool-call npm run bench -- app-server` runs only this case.
 * Targets: initialize <= 100 ms, client-tool round trip <= 5 ms beyond the model, 20 concurrent
 * one-turn threads <= 400 ms and <= 120 MB, a name round trip <= 10 ms.
 */
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { StdioAppClient } from "../test/support/app-server-client.js";
import { type FakeModelServer, functionCall, message, turn } from "../test/support/fake-model-server.js";
import { fixtureToml } from "../test/support/mcp-fixture.js";
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
const MCP_WARMUP_CALLS = 20;

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

/** Median of thread/name/set then thread/read (the name checked) on one idle thread with a turn. */
async function nameRoundTrip(agent: Agent, server: FakeModelServer, cwd: string) {
  const { client } = await connect(agent, cwd, false);
  try {
    server.reset();
    server.enqueue(turn(message("done")));
    const { thread } = await client.call("thread/start", {
      cwd,
      approvalPolicy: "never",
      sandbox: "read-only",
    });
    const from = client.received.length;
    const { turn: started } = await client.call("turn/start", {
      threadId: thread.id,
      input: [{ type: "text", text: "bench task" }],
    });
    await client.turnCompleted(started.id, from, 30_000);
    const times: number[] = [];
    for (let run = 0; run <= RUNS * 3; run++) {
      const name = `bench ${run}`;
      const begun = performance.now();
      await client.call("thread/name/set", { threadId: thread.id, name });
      const read = await client.call("thread/read", { threadId: thread.id });
      const elapsed = performance.now() - begun;
      if (read.thread.name !== name) throw new Error(`thread/read gave name ${read.thread.name}`);
      if (run > 0) times.push(elapsed);
    }
    return median(times);
  } finally {
    await client.close();
  }
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

function describeFiles(files: Awaited<ReturnType<typeof commandsAndFiles>>): string {
  const sandboxed = files.execTrueSandboxedMs;
  return (
    `fs/readFile 4 KiB ${files.readFile4KiBMs.toFixed(2)} ms, command/exec true ${files.execTrueContainedMs.toFixed(1)} ms ` +
    `(sandboxed ${sandboxed === null ? "n/a" : `${sandboxed.toFixed(1)} ms`})`
  );
}

/** `BENCH_CASE=files`: only the commands-and-files round trips, for tscodex (results in app-server-files.json). */
async function filesCaseOnly(): Promise<void> {
  await withTempDirAndServer("tscodex-bench-app-server-", async (root, server) => {
    const agents = await makeAgents(root, fakeProviderToml(server.url), { baseline: true });
    const results: Record<string, unknown> = {};
    for (const agent of agents.filter((candidate) => candidate.name !== "codex-0.89")) {
      const files = await commandsAndFiles(agent, root).catch((error: Error) => error);
      if (files instanceof Error) {
        console.log(`${agent.name.padEnd(14)} commands and files n/a (${files.message})`);
        continue;
      }
      results[agent.name] = files;
      console.log(`${agent.name.padEnd(14)} ${describeFiles(files)}`);
    }
    await writeResults("app-server-files", { runs: RUNS * 10, ...results });
  });
}

/** `BENCH_CASE=thread-name`: only the name round trip, for tscodex (results in app-server-thread-name.json). */
async function nameCaseOnly(): Promise<void> {
  await withTempDirAndServer("tscodex-bench-app-server-", async (root, server) => {
    const agents = await makeAgents(root, fakeProviderToml(server.url), { baseline: true });
    const results: Record<string, unknown> = {};
    for (const agent of agents.filter((candidate) => candidate.name !== "codex-0.89")) {
      const nameSetAndReadMs = await nameRoundTrip(agent, server, root);
      results[agent.name] = { nameSetAndReadMs };
      console.log(`${agent.name.padEnd(14)} thread/name/set + thread/read ${nameSetAndReadMs.toFixed(2)} ms`);
    }
    console.log("target: a name round trip <= 10 ms");
    await writeResults("app-server-thread-name", { runs: RUNS * 3, ...results });
  });
}

/** Median request → reply time of mcpServer/tool/call on the fixture's echo tool (servers up). */
async function mcpToolCall(agent: Agent, cwd: string): Promise<number> {
  const { client } = await connect(agent, cwd, true);
  try {
    const { thread } = await client.call("thread/start", {
      cwd,
      approvalPolicy: "never",
      sandbox: "read-only",
    });
    const call = async () => {
      const reply = await client.request("mcpServer/tool/call", {
        threadId: thread.id,
        server: "fixture",
        tool: "echo",
        arguments: { text: "bench" },
      });
      if (reply.error) throw new Error(`${agent.name} mcpServer/tool/call failed: ${reply.error.message}`);
    };
    // The first calls wait for the server to start and warm both ends (JIT, buffers).
    for (let run = 0; run < MCP_WARMUP_CALLS; run++) await call();
    const times: number[] = [];
    for (let run = 0; run < RUNS * 10; run++) {
      const started = performance.now();
      await call();
      times.push(performance.now() - started);
    }
    return median(times);
  } finally {
    await client.close();
  }
}

/** The mcpServer/tool/call case alone, each agent with the MCP fixture configured. */
async function mcpToolCallCase(root: string, server: FakeModelServer): Promise<Record<string, number>> {
  const toml = fakeProviderToml(server.url, await fixtureToml({ name: "fixture" }));
  const agents = (await makeAgents(root, toml, { suffix: "-mcp", codex169: true })).filter(
    (agent) => agent.name !== "codex-0.89",
  );
  const results: Record<string, number> = {};
  for (const agent of agents) {
    results[agent.name] = await mcpToolCall(agent, root);
    console.log(
      `${agent.name.padEnd(14)} mcpServer/tool/call round trip ${results[agent.name]?.toFixed(2)} ms`,
    );
  }
  if (!agents.some((agent) => agent.name === "codex-0.169")) console.log(codexNotFound("0.169"));
  return results;
}

/** `BENCH_CASE=mcp-tool-call`: only the mcpServer/tool/call round trip (results in app-server-mcp-tool-call.json). */
async function mcpToolCallCaseOnly(): Promise<void> {
  await withTempDirAndServer("tscodex-bench-app-server-", async (root, server) => {
    await writeResults("app-server-mcp-tool-call", {
      runs: RUNS * 10,
      ...(await mcpToolCallCase(root, server)),
    });
  });
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
    for (const agent of agents) {
      const initializeMs = await initialize(agent, root);
      const oneTurnMs = await threadAndTurn(agent, server, root);
      const tool = agent.name !== "codex-0.89" ? await clientToolRoundTrip(agent, server, root) : null;
      const many = await concurrent(agent, server, root);
      const nameMs = agent.name !== "codex-0.89" ? await nameRoundTrip(agent, server, root) : null;
      const files = agent.name === "tscodex" ? await commandsAndFiles(agent, root) : null;
      results[agent.name] = {
        initializeMs,
        threadStartAndTurnMs: oneTurnMs,
        clientTool: tool,
        concurrent20: many,
        nameSetAndReadMs: nameMs,
        commandsAndFiles: files,
      };
      console.log(
        `${agent.name.padEnd(14)} initialize ${initializeMs.toFixed(0)} ms, thread/start + one turn ${oneTurnMs.toFixed(1)} ms, ` +
          (tool
            ? `client tool round trip ${tool.clientToolGapMs.toFixed(1)} ms (built-in ${tool.builtInGapMs.toFixed(1)} ms, +${tool.beyondModelMs.toFixed(1)} ms), `
            : "client tools n/a (0.169 API), ") +
          `${CONCURRENT} concurrent threads ${many.totalMs.toFixed(0)} ms / ${many.peakRssMb.toFixed(0)} MB` +
          (nameMs === null ? "" : `, thread/name/set + thread/read ${nameMs.toFixed(2)} ms`) +
          (files === null ? "" : `, ${describeFiles(files)}`),
      );
    }
    results.mcpToolCallMs = await mcpToolCallCase(root, server);
    console.log(`node itself (spawn → one line answered): ${Number(results.nodeStartupMs).toFixed(0)} ms`);
    if (!agents.some((agent) => agent.name === "codex-0.89")) console.log(codexNotFound());
    console.log(
      "targets: initialize <= 100 ms, client tool <= 5 ms beyond the model, 20 concurrent <= 400 ms and <= 120 MB",
    );
    await writeResults("app-server", { runs: RUNS, ...results });
  });
}

if (process.env.BENCH_CASE === "thread-name") await nameCaseOnly();
else if (process.env.BENCH_CASE === "files") await filesCaseOnly();
else if (process.env.BENCH_CASE === "mcp-tool-call") await mcpToolCallCaseOnly();
else await main();
