/**
 * Exec-session benchmarks (issue 5): `npm run bench -- exec-sessions`.
 *
 * In process (the handlers, timed with performance.now()):
 * - exec_command round trip of `true`, without and with a tty (spawn → exit → reply);
 * - 20 concurrent tty sessions (`cat`): starting them all, one echo round on each
 *   (write_stdin, 250 ms yield: the floor), ending them all; RSS growth of this process.
 *
 * Whole CLI (wall time and peak RSS from wait4 via bench/measure.py), for tscodex and Codex
 * 0.89 when found, with unified_exec on: a one-turn baseline; 20 sequential exec_command `true`
 * calls without and with a tty (per call = (run − baseline) / 20); 20 sessions started by 20
 * parallel calls in one response (`sleep 5`, 250 ms yield), ended when the run ends.
 */
import { execCommandTool } from "../src/tools/builtin/exec-command.js";
import { writeStdinTool } from "../src/tools/builtin/write-stdin.js";
import { ResourceScope } from "../src/util/resource-scope.js";
import { callTool, parseEnvelope, testTurn } from "../test/exec/sessions-helpers.js";
import {
  type FakeModelServer,
  functionCall,
  message,
  type ScriptEntry,
  turn,
} from "../test/support/fake-model-server.js";
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
  withFakeModelServer,
  withTempDir,
  writeResults,
} from "./support/bench.js";

/** $TSCODEX_CLI runs another build (e.g. a snapshot while dist/ is being rebuilt). */
const TSCODEX = process.env.TSCODEX_CLI;
const RUNS = benchRuns(5);
const ROUND_TRIPS = 50;
const SESSIONS = 20;
/** No sandbox: Codex's unified exec needs its codex-linux-sandbox helper for any other mode. */
const EXEC_ARGS = ["exec", "--skip-git-repo-check", "-s", "danger-full-access", "bench task"];

async function timed<T>(work: () => Promise<T>): Promise<[number, T]> {
  const started = performance.now();
  const value = await work();
  return [performance.now() - started, value];
}

// ---------------------------------------------------------------------------------------------
// In process

async function inProcess(cwd: string) {
  const exec = execCommandTool({ shellPath: "/bin/bash" });
  const write = writeStdinTool();
  const scope = new ResourceScope();
  const context = testTurn(scope, cwd).context;
  const roundTrip = async (tty: boolean) => {
    const samples: number[] = [];
    for (let i = 0; i < ROUND_TRIPS + 5; i++) {
      const [ms, text] = await timed(() => callTool(exec, context, { cmd: "true", tty, login: false }));
      if (parseEnvelope(text).exitCode !== 0) throw new Error(`unexpected reply: ${text}`);
      if (i >= 5) samples.push(ms); // the first calls warm up node-pty and the shell
    }
    return median(samples);
  };
  const pipesMs = await roundTrip(false);
  const ttyMs = await roundTrip(true);

  global.gc?.();
  const rssBefore = process.memoryUsage().rss;
  const [startMs, replies] = await timed(() =>
    Promise.all(
      Array.from({ length: SESSIONS }, () =>
        callTool(exec, context, { cmd: "cat", tty: true, login: false, yield_time_ms: 250 }),
      ),
    ),
  );
  const ids = replies.map((text) => parseEnvelope(text).sessionId);
  const [echoMs, echoes] = await timed(() =>
    Promise.all(
      ids.map((id) => callTool(write, context, { session_id: id, chars: "ping\n", yield_time_ms: 250 })),
    ),
  );
  if (!echoes.every((text) => parseEnvelope(text).output === "ping\r\nping\r\n"))
    throw new Error("lost an echo");
  const rssGrowthMb = (process.memoryUsage().rss - rssBefore) / 2 ** 20;
  const [endMs] = await timed(() => scope.dispose());
  return { pipesMs, ttyMs, concurrent: { startMs, echoMs, endMs, rssGrowthMb } };
}

// ---------------------------------------------------------------------------------------------
// Whole CLI

async function scenario(
  agent: Agent,
  server: FakeModelServer,
  script: () => ScriptEntry[],
  cwd: string,
): Promise<Sample> {
  const once = async () => {
    const result = await measureScripted(agent, server, script(), EXEC_ARGS, cwd);
    const outputs =
      server.requests.at(-1)?.input.filter((item) => item.type === "function_call_output") ?? [];
    for (const item of outputs) {
      if (!String(item.output).startsWith("Chunk ID: "))
        throw new Error(`${agent.name}: ${String(item.output)}`);
    }
    return result;
  };
  return medianSample(await repeat(RUNS, once)); // the first run warms the page cache
}

const oneTurn = (): ScriptEntry[] => [turn(message("ok"))];
const sequential = (tty: boolean) => (): ScriptEntry[] => [
  ...Array.from({ length: SESSIONS }, (_, i) =>
    turn(functionCall("exec_command", { cmd: "true", tty }, `call_${i}`)),
  ),
  turn(message("done")),
];
const concurrent = (): ScriptEntry[] => [
  turn(
    ...Array.from({ length: SESSIONS }, (_, i) =>
      functionCall("exec_command", { cmd: "sleep 5", yield_time_ms: 250 }, `call_${i}`),
    ),
  ),
  turn(message("done")),
];

async function wholeCli(work: string) {
  const raw: Record<string, unknown> = {};
  await withFakeModelServer(async (server) => {
    const toml = fakeProviderToml(server.url, "[features]\nunified_exec = true\n");
    const agents = await makeAgents(work, toml, { tscodex: TSCODEX });
    for (const agent of agents) {
      const cold = await scenario(agent, server, oneTurn, work);
      const pipes = await scenario(agent, server, sequential(false), work);
      const tty = await scenario(agent, server, sequential(true), work);
      const many = await scenario(agent, server, concurrent, work);
      raw[agent.name] = {
        cold,
        pipesPerCallMs: (pipes.wallMs - cold.wallMs) / SESSIONS,
        ttyPerCallMs: (tty.wallMs - cold.wallMs) / SESSIONS,
        concurrent: many,
      };
      process.stderr.write(`measured ${agent.name}\n`);
    }
  });
  return raw;
}

async function main(): Promise<void> {
  await withTempDir("tscodex-bench-", async (work) => {
    const local = await inProcess(work);
    console.log(`exec sessions in process (median of ${ROUND_TRIPS} calls)`);
    console.table({
      "exec_command `true`, pipes": `${local.pipesMs.toFixed(1)} ms`,
      "exec_command `true`, tty": `${local.ttyMs.toFixed(1)} ms`,
      [`start ${SESSIONS} tty sessions (250 ms yield)`]: `${local.concurrent.startMs.toFixed(0)} ms`,
      [`echo on all ${SESSIONS} (250 ms yield)`]: `${local.concurrent.echoMs.toFixed(0)} ms`,
      [`end all ${SESSIONS}`]: `${local.concurrent.endMs.toFixed(0)} ms`,
      [`RSS growth for ${SESSIONS} sessions`]: `${local.concurrent.rssGrowthMb.toFixed(1)} MB`,
    });
    const cli = await wholeCli(work);
    console.log(`whole CLI, unified_exec on (median of ${RUNS} runs; fake model server on loopback)`);
    const rows: Record<string, Record<string, string>> = {};
    for (const [name, value] of Object.entries(cli)) {
      const v = value as { cold: Sample; pipesPerCallMs: number; ttyPerCallMs: number; concurrent: Sample };
      rows[name] = {
        "one-turn baseline": `${v.cold.wallMs.toFixed(0)} ms, ${v.cold.rssMb.toFixed(0)} MB`,
        "exec_command round trip, pipes": `${v.pipesPerCallMs.toFixed(1)} ms/call`,
        "exec_command round trip, tty": `${v.ttyPerCallMs.toFixed(1)} ms/call`,
        [`${SESSIONS} parallel sessions`]: `${v.concurrent.wallMs.toFixed(0)} ms, ${v.concurrent.rssMb.toFixed(0)} MB`,
      };
    }
    console.table(rows);
    if (!cli["codex-0.89"]) {
      console.log("codex 0.89 not found: set CODEX_BIN or `npm install --no-save @openai/codex@0.89.0`");
    }
    await writeResults("exec-sessions", { inProcess: local, cli });
  });
}

await main();
