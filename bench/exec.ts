/**
 * `npm run bench`: tscodex against the project's fake model server, and Codex 0.89 side by
 * side when its binary is found ($CODEX_BIN, or node_modules/@openai/codex after
 * `npm install --no-save @openai/codex@0.89.0`). Each scenario is a whole `exec` run,
 * measured from outside (wall time and peak RSS from wait4, via bench/measure.py).
 *
 * Scenarios (issue 2): one-turn cold start; 50 sequential shell_command `true` calls
 * (per-call round trip = (run − one-turn run) / 50); a command printing 50 MB.
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
const bigOutput = (): ScriptEntry[] => [
  turn(functionCall("shell_command", { command: "head -c 50000000 /dev/zero | tr '\\0' a" }, "call_big")),
  turn(message("done")),
];

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
      const perCall = (calls.wallMs - cold.wallMs) / 50;
      const perCallBare = (bare.wallMs - cold.wallMs) / 50;
      raw[agent.name] = { cold, calls, perCallMs: perCall, perCallUnsandboxedMs: perCallBare, big };
      rows[agent.name] = {
        "one-turn cold start": `${cold.wallMs.toFixed(0)} ms, ${cold.rssMb.toFixed(0)} MB`,
        "shell_command round trip": `${perCall.toFixed(1)} ms/call`,
        "… without sandbox": `${perCallBare.toFixed(1)} ms/call`,
        "50 MB of output": `${big.wallMs.toFixed(0)} ms, ${big.rssMb.toFixed(0)} MB`,
      };
      process.stderr.write(`measured ${agent.name}\n`);
    }
  });
  console.log(`exec benchmarks (median of ${RUNS} runs; fake model server on loopback)`);
  console.table(rows);
  console.log("targets (issue 16): one-turn cold start <= 0.8x Codex's wall and <= 45 MB peak RSS");
  const ts = raw.tscodex as { cold: Sample; perCallMs: number; big: Sample } | undefined;
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
    });
  } else {
    console.log(codexNotFound());
  }
  await writeResults("exec", raw);
}

await main();
