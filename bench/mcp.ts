/**
 * `npm run bench -- mcp`: MCP servers as tool sources (issue 6), with the stdio fixture server
 * (test/support/mcp-fixture-server.ts) and the fake model server.
 *
 * - startup: McpClientManager.start → all ready (what a thread starts first thing), 1 and 5
 *   servers, in process.
 * - round trip: tools/call `echo` through the client manager (in process), and through the
 *   whole `tscodex exec` loop ((run with 40 calls − one-turn run) / 40, one server, measured from
 *   outside).
 * - exec cold start with 0, 1 and 5 servers (wall time and peak RSS, bench/measure.py); Codex 0.89
 *   side by side when its binary is found (bench/support/codex.ts).
 */
import { McpClientManager } from "../src/mcp/client-manager.js";
import {
  type FakeModelServer,
  functionCall,
  message,
  type ScriptEntry,
  turn,
} from "../test/support/fake-model-server.js";
import { fixtureScript, fixtureToml } from "../test/support/mcp-fixture.js";
import {
  type Agent,
  benchRuns,
  fakeProviderToml,
  makeAgents,
  measureScripted,
  median,
  medianSample,
  repeat,
  type Sample,
  withTempDirAndServer,
  writeResults,
} from "./support/bench.js";

const RUNS = benchRuns(7);
const CALLS = 40;
/** Every exec run of this bench. */
const EXEC_ARGS = ["exec", "--skip-git-repo-check", "--full-auto", "bench task"];

async function serversToml(count: number): Promise<string> {
  const names = Array.from({ length: count }, (_, i) => `s${i + 1}`);
  return (await Promise.all(names.map((name) => fixtureToml({ name })))).join("\n");
}

/**
 * McpClientManager.start → every server ready: what createThread starts first thing and the
 * first turn waits for. (createThread itself is not used: bundled, it cannot find prompts/.)
 */
async function startupOnce(count: number, script: string): Promise<number> {
  const servers = Array.from({ length: count }, (_, i): [string, { command: string; args: string[] }] => [
    `s${i + 1}`,
    { command: process.execPath, args: [script] },
  ]);
  const started = performance.now();
  const manager = McpClientManager.start(servers, { env: process.env, cwd: process.cwd() });
  let failed = "";
  await manager.whenReady((event) => {
    if (event.type === "mcp_startup_complete" && event.failed.length > 0)
      failed = JSON.stringify(event.failed);
  });
  const elapsed = performance.now() - started;
  await manager.dispose();
  if (failed) throw new Error(`startup failed: ${failed}`);
  return elapsed;
}

async function startupScenario(count: number): Promise<number> {
  const script = await fixtureScript();
  return median(await repeat(RUNS, () => startupOnce(count, script)));
}

/** tools/call echo through the client manager, median of `count` sequential calls. */
async function managerRoundTrip(count: number): Promise<number> {
  const script = await fixtureScript();
  const manager = McpClientManager.start([["fixture", { command: process.execPath, args: [script] }]], {
    env: process.env,
    cwd: process.cwd(),
  });
  await manager.ready;
  const signal = new AbortController().signal;
  const samples: number[] = [];
  try {
    for (let i = 0; i < count; i++) {
      const started = performance.now();
      await manager.callTool("fixture", "echo", { text: `call ${i}` }, signal);
      samples.push(performance.now() - started);
    }
  } finally {
    await manager.dispose();
  }
  return median(samples);
}

async function execScenario(
  agent: Agent,
  server: FakeModelServer,
  script: () => ScriptEntry[],
  cwd: string,
): Promise<Sample> {
  return medianSample(await repeat(RUNS, () => measureScripted(agent, server, script(), EXEC_ARGS, cwd)));
}

const oneTurn = (): ScriptEntry[] => [turn(message("ok"))];
const mcpCalls = (): ScriptEntry[] => [
  ...Array.from({ length: CALLS }, (_, i) =>
    turn(functionCall("mcp__s1__echo", { text: `${i}` }, `call_${i}`)),
  ),
  turn(message("done")),
];

/** The agents, each with a home whose config.toml lists `servers` fixture servers. */
async function agentsWith(server: FakeModelServer, work: string, servers: number): Promise<Agent[]> {
  const toml = fakeProviderToml(server.url, servers > 0 ? await serversToml(servers) : "");
  return makeAgents(work, toml, { suffix: `-${servers}` });
}

async function main(): Promise<void> {
  const raw: Record<string, unknown> = {};
  const rows: Record<string, Record<string, string>> = {};
  await withTempDirAndServer("tscodex-bench-mcp-", async (work, server) => {
    const one = await startupScenario(1);
    const five = await startupScenario(5);
    const roundTrip = await managerRoundTrip(200);
    raw.inProcess = { startup1Ms: one, startup5Ms: five, toolCallRoundTripMs: roundTrip };
    console.log(`MCP in process (median of ${RUNS} runs; stdio fixture servers)`);
    console.table({
      "MCP startup → ready, 1 server": { value: `${one.toFixed(0)} ms` },
      "MCP startup → ready, 5 servers in parallel": { value: `${five.toFixed(0)} ms` },
      "tools/call round trip (client manager)": { value: `${roundTrip.toFixed(2)} ms` },
    });
    const bare = await agentsWith(server, work, 0);
    const withOne = await agentsWith(server, work, 1);
    const withFive = await agentsWith(server, work, 5);
    for (const [index, agent] of bare.entries()) {
      const one = withOne[index] as Agent;
      const five = withFive[index] as Agent;
      const cold = await execScenario(agent, server, oneTurn, work);
      const coldOne = await execScenario(one, server, oneTurn, work);
      const coldFive = await execScenario(five, server, oneTurn, work);
      const calls = await execScenario(one, server, mcpCalls, work);
      const perCall = (calls.wallMs - coldOne.wallMs) / CALLS;
      raw[agent.name] = {
        cold,
        coldOneServer: coldOne,
        coldFiveServers: coldFive,
        calls,
        perCallMs: perCall,
      };
      rows[agent.name] = {
        "one-turn exec, no MCP": `${cold.wallMs.toFixed(0)} ms, ${cold.rssMb.toFixed(0)} MB`,
        "… 1 MCP server": `${coldOne.wallMs.toFixed(0)} ms, ${coldOne.rssMb.toFixed(0)} MB`,
        "… 5 MCP servers": `${coldFive.wallMs.toFixed(0)} ms, ${coldFive.rssMb.toFixed(0)} MB`,
        "MCP tool call round trip (exec)": `${perCall.toFixed(1)} ms/call`,
      };
      process.stderr.write(`measured ${agent.name}\n`);
    }
  });
  console.log(`exec with MCP servers (median of ${RUNS} runs)`);
  console.table(rows);
  if (!raw["codex-0.89"]) {
    console.log("codex 0.89 not found: set CODEX_BIN for side-by-side numbers");
  }
  await writeResults("mcp", raw);
}

await main();
