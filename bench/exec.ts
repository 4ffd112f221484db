/**
 * `npm run bench`: tscodex against the project's fake model server, and Codex 0.89 side by
 * side when its binary is found ($CODEX_BIN, or node_modules/@openai/codex after
 * `npm install --no-save @openai/codex@0.89.0`). Each scenario is a whole `exec` run,
 * measured from outside (wall time and peak RSS from wait4, via bench/measure.py).
 *
 * Scenarios (issue 2): one-turn cold start; 50 sequential shell_command `true` calls
 * (per-call round trip = (run − one-turn run) / 50); a command printing 50 MB.
 */
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import {
  type FakeModelServer,
  functionCall,
  message,
  type ScriptEntry,
  startFakeModelServer,
  turn,
} from "../test/support/fake-model-server.js";
import { findCodex } from "./support/codex.js";

const run = promisify(execFile);
const TSCODEX = join(process.cwd(), "bin/tscodex.js");
const MEASURE = join(process.cwd(), "bench/measure.py");
const RUNS = Number(process.env.BENCH_RUNS ?? 7);

interface Sample {
  wallMs: number;
  rssMb: number;
}

interface Agent {
  name: string;
  /** `sandbox`: the flags choosing the sandbox (--full-auto, or -s danger-full-access). */
  argv: (prompt: string, sandbox: string[]) => string[];
  home: string;
  env: Record<string, string>;
}

async function makeAgents(server: FakeModelServer, work: string): Promise<Agent[]> {
  const config = (extra: string) =>
    [
      'model = "gpt-5.2-codex"',
      'model_provider = "fake"',
      extra,
      "[model_providers.fake]",
      'name = "fake"',
      `base_url = "${server.url}"`,
      'wire_api = "responses"',
      'env_key = "FAKE_KEY"',
      "",
    ].join("\n");
  const tsHome = join(work, "tscodex-home");
  await mkdir(tsHome, { recursive: true });
  await writeFile(join(tsHome, "config.toml"), config(""));
  const agents: Agent[] = [
    {
      name: "tscodex",
      argv: (prompt, sandbox) => [
        process.execPath,
        TSCODEX,
        "exec",
        "--skip-git-repo-check",
        ...sandbox,
        prompt,
      ],
      home: tsHome,
      env: { TSCODEX_HOME: tsHome },
    },
  ];
  const codex = findCodex();
  if (codex) {
    const codexHome = join(work, "codex-home");
    await mkdir(codexHome, { recursive: true });
    await writeFile(join(codexHome, "config.toml"), config(""));
    agents.push({
      name: "codex-0.89",
      argv: (prompt, sandbox) => [codex, "exec", "--skip-git-repo-check", ...sandbox, prompt],
      home: codexHome,
      env: { CODEX_HOME: codexHome },
    });
  }
  return agents;
}

async function measureOnce(
  agent: Agent,
  server: FakeModelServer,
  script: ScriptEntry[],
  cwd: string,
  sandbox: string[],
): Promise<Sample> {
  server.reset();
  server.enqueue(...script);
  const { stdout } = await run("python3", [MEASURE, "--", ...agent.argv("bench task", sandbox)], {
    cwd,
    env: { PATH: process.env.PATH ?? "", HOME: agent.home, FAKE_KEY: "bench", ...agent.env },
    maxBuffer: 1 << 20,
  });
  const result = JSON.parse(stdout) as { wall_ms: number; max_rss_kb: number; exit: number; stderr: string };
  if (result.exit !== 0 || server.pending !== 0) {
    throw new Error(
      `${agent.name} run failed (exit ${result.exit}, ${server.pending} turns unused):\n${result.stderr}`,
    );
  }
  return { wallMs: result.wall_ms, rssMb: result.max_rss_kb / 1024 };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

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
) {
  await measureOnce(agent, server, script(), cwd, sandbox); // warm the page cache
  const samples: Sample[] = [];
  for (let i = 0; i < runs; i++) samples.push(await measureOnce(agent, server, script(), cwd, sandbox));
  return { wallMs: median(samples.map((s) => s.wallMs)), rssMb: median(samples.map((s) => s.rssMb)) };
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
  const work = await mkdtemp(join(tmpdir(), "tscodex-bench-"));
  const server = await startFakeModelServer();
  const rows: Record<string, Record<string, string>> = {};
  const raw: Record<string, unknown> = {};
  try {
    for (const agent of await makeAgents(server, work)) {
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
  } finally {
    await server.close();
    await rm(work, { recursive: true, force: true });
  }
  console.log(`exec benchmarks (median of ${RUNS} runs; fake model server on loopback)`);
  console.table(rows);
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
    console.log(
      "codex 0.89 not found: set CODEX_BIN or `npm install --no-save @openai/codex@0.89.0` for side-by-side numbers",
    );
  }
  await mkdir(join(process.cwd(), "bench/results"), { recursive: true });
  await writeFile(join(process.cwd(), "bench/results/exec.json"), `${JSON.stringify(raw, null, 2)}\n`);
}

await main();
