/**
 * `npm run bench`: tscodex against the project's fake model server, and Codex 0.89 side by
 * side when its binary is found ($CODEX_BIN, or node_modules/@openai/codex after
 * `npm install --no-save @openai/codex@0.89.0`). Each scenario is a whole `exec` run,
 * measured from outside (wall time and peak RSS from wait4, via bench/measure.py).
 *
 * Scenarios (issue 2): one-turn cold start; 50 sequential shell_command `true` calls
 * (per-call round trip = (run − one-turn run) / 50); a command printing 50 MB, through
 * shell_command and through exec_command (unified exec).
 * Targets (issue 16): 50 MB of output in <= 60 MB peak RSS and <= 0.5x Codex's wall time.
 */
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
  medianSample,
  repeat,
  type Sample,
  withTempDirAndServer,
  writeResults,
} from "./support/bench.js";
import { codexNotFound } from "./support/codex.js";

const RUNS = benchRuns(7);

/** Commands sandboxed (workspace-write), as a user of --full-auto runs them. */
const SANDBOXED = ["--full-auto"];
const UNSANDBOXED = ["-s", "danger-full-access"];

async function scenario(
  agent: Agent,
  server: FakeModelServer,
  script: () => ScriptEntry[],
  cwd: string,
  runs: number,
  sandbox: string[] = SANDBOXED,
): Promise<Sample> {
  const args = ["exec", "--skip-git-repo-check", ...sandbox, "bench task"];
  return medianSample(await repeat(runs, () => measureScripted(agent, server, script(), args, cwd)));
}

const oneTurn = (): ScriptEntry[] => [turn(message("ok"))];
const fiftyCalls = (): ScriptEntry[] => [
  ...Array.from({ length: 50 }, (_, i) =>
    turn(functionCall("shell_command", { command: "true" }, `call_${i}`)),
  ),
  turn(message("done")),
];
const PRINT_50_MB = "head -c 50000000 /dev/zero | tr '\\0' a";
const bigOutput = (): ScriptEntry[] => [
  turn(functionCall("shell_command", { command: PRINT_50_MB }, "call_big")),
  turn(message("done")),
];
/** The same through exec_command, waiting for the end (the 30 s yield cap is far off). */
const bigOutputSession = (): ScriptEntry[] => [
  turn(functionCall("exec_command", { cmd: PRINT_50_MB, yield_time_ms: 30_000 }, "call_big")),
  turn(message("done")),
];
/** Both CLIs' switch for the exec_command tool. */
const UNIFIED_EXEC = ["--enable", "unified_exec", ...SANDBOXED];

/** Issue 16's output targets: peak RSS and the wall-time ratio to Codex. */
const BIG_OUTPUT_RSS_MB = 60;
const BIG_OUTPUT_WALL_RATIO = 0.5;

async function main(): Promise<void> {
  const rows: Record<string, Record<string, string>> = {};
  const raw: Record<string, unknown> = {};
  await withTempDirAndServer("tscodex-bench-", async (work, server) => {
    for (const agent of await makeAgents(work, fakeProviderToml(server.url), { baseline: true })) {
      const cold = await scenario(agent, server, oneTurn, work, RUNS);
      const few = Math.max(3, Math.floor(RUNS / 2));
      const calls = await scenario(agent, server, fiftyCalls, work, few);
      const bare = await scenario(agent, server, fiftyCalls, work, few, UNSANDBOXED);
      const big = await scenario(agent, server, bigOutput, work, few);
      const bigSession = await scenario(agent, server, bigOutputSession, work, few, UNIFIED_EXEC);
      const perCall = (calls.wallMs - cold.wallMs) / 50;
      const perCallBare = (bare.wallMs - cold.wallMs) / 50;
      raw[agent.name] = {
        cold,
        calls,
        perCallMs: perCall,
        perCallUnsandboxedMs: perCallBare,
        big,
        bigSession,
      };
      rows[agent.name] = {
        "one-turn cold start": `${cold.wallMs.toFixed(0)} ms, ${cold.rssMb.toFixed(0)} MB`,
        "shell_command round trip": `${perCall.toFixed(1)} ms/call`,
        "… without sandbox": `${perCallBare.toFixed(1)} ms/call`,
        "50 MB of output": `${big.wallMs.toFixed(0)} ms, ${big.rssMb.toFixed(0)} MB`,
        "… through exec_command": `${bigSession.wallMs.toFixed(0)} ms, ${bigSession.rssMb.toFixed(0)} MB`,
      };
      process.stderr.write(`measured ${agent.name}\n`);
    }
  });
  console.log(`exec benchmarks (median of ${RUNS} runs; fake model server on loopback)`);
  console.table(rows);
  console.log("targets (issue 16): one-turn cold start <= 0.8x Codex's wall and <= 45 MB peak RSS");
  const ts = raw.tscodex as { cold: Sample; perCallMs: number; big: Sample; bigSession: Sample } | undefined;
  const cx = raw["codex-0.89"] as typeof ts;
  if (ts && cx) {
    console.log("ratios tscodex / codex-0.89 (lower is better):");
    console.table({
      "one-turn cold start": {
        time: (ts.cold.wallMs / cx.cold.wallMs).toFixed(2),
        rss: (ts.cold.rssMb / cx.cold.rssMb).toFixed(2),
      },
      "shell_command round trip": { time: (ts.perCallMs / cx.perCallMs).toFixed(2), rss: "" },
      "50 MB of output": {
        time: (ts.big.wallMs / cx.big.wallMs).toFixed(2),
        rss: (ts.big.rssMb / cx.big.rssMb).toFixed(2),
      },
      "… through exec_command": {
        time: (ts.bigSession.wallMs / cx.bigSession.wallMs).toFixed(2),
        rss: (ts.bigSession.rssMb / cx.bigSession.rssMb).toFixed(2),
      },
    });
  } else {
    console.log(codexNotFound());
  }
  if (ts) printOutputTargets(ts, cx);
  await writeResults("exec", raw);
}

/** Issue 16's 50 MB targets, each figure beside Codex's and the target. */
function printOutputTargets(
  ts: { big: Sample; bigSession: Sample },
  cx: { big: Sample; bigSession: Sample } | undefined,
): void {
  const rows: Record<string, Record<string, string>> = {};
  for (const [name, key] of [
    ["shell_command", "big"],
    ["exec_command", "bigSession"],
  ] as const) {
    const mine = ts[key];
    const theirs = cx?.[key];
    const ratio = theirs ? mine.wallMs / theirs.wallMs : null;
    rows[`50 MB via ${name}: peak RSS`] = {
      tscodex: `${mine.rssMb.toFixed(1)} MB`,
      "codex-0.89": theirs ? `${theirs.rssMb.toFixed(1)} MB` : "n/a",
      target: `<= ${BIG_OUTPUT_RSS_MB} MB`,
      met: mine.rssMb <= BIG_OUTPUT_RSS_MB ? "yes" : "NO",
    };
    rows[`50 MB via ${name}: wall`] = {
      tscodex: `${mine.wallMs.toFixed(0)} ms`,
      "codex-0.89": theirs ? `${theirs.wallMs.toFixed(0)} ms (ratio ${ratio?.toFixed(2)})` : "n/a",
      target: `<= ${BIG_OUTPUT_WALL_RATIO}x codex`,
      met: ratio === null ? "n/a" : ratio <= BIG_OUTPUT_WALL_RATIO ? "yes" : "NO",
    };
  }
  console.log("issue 16 targets for 50 MB of command output:");
  console.table(rows);
}

await main();
