/**
 * apply_patch benchmarks (issue 3): `npm run bench` (all benchmarks) or
 * `npm run bench -- apply-patch`. Each scenario is a whole `exec` run against the in-process
 * fake model server, measured from outside (wall time and peak RSS from wait4, via
 * bench/measure.py), for tscodex and, when found, Codex 0.89, in a git work tree reset before
 * every run.
 *
 * Scenarios:
 * - a 20,000-line file and one 500-hunk patch: run − one-turn baseline, and the in-process
 *   round trip (arrival of the request carrying the result − arrival of the one that got the patch);
 * - one patch touching 200 files (100 updated, 100 added): the same two numbers;
 * - 50 successive small patches (each to its own file) in one turn: (run − baseline) / 50, and
 *   the mean request-to-request interval of the first 10 vs the last 10 patches (flatness).
 * Targets from the issue: ≤ 100 ms for the big patch, ≤ 10 ms per small patch, flat.
 */
import { execFileSync } from "node:child_process";
import { mkdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { ResponseItem } from "../src/protocol/items.js";
import {
  customToolCall,
  type FakeModelServer,
  message,
  type ScriptEntry,
  type TurnPart,
  turn,
} from "../test/support/fake-model-server.js";
import {
  type Agent,
  benchRuns,
  fakeProviderToml,
  makeAgents,
  measure as measureCommand,
  median,
  type Sample as RunSample,
  repeat,
  withTempDirAndServer,
  writeResults,
} from "./support/bench.js";
import { findCodex } from "./support/codex.js";

const BASELINE_RUNS = benchRuns(7);
const RUNS = Math.max(3, Math.floor(BASELINE_RUNS / 2));

const BIG_LINES = 20_000;
const BIG_HUNKS = 500;
const MANY_FILES = 200;
const SMALL_PATCHES = 50;

/** Every exec run of this bench. */
const EXEC_ARGS = ["exec", "--skip-git-repo-check", "--full-auto", "bench task"];

interface Sample extends RunSample {
  /** performance.now() at the arrival of each model request. */
  arrivals: number[];
}

interface Scenario {
  /** Put the work tree in its starting state (not timed). */
  setup(work: string): Promise<void>;
  /** The model's answers, in order. */
  script: TurnPart[][];
  /** Patches that must succeed (checked in the last request's history). */
  patches: number;
}

// ---------------------------------------------------------------------------------------------
// Scenarios

/**
 * Short lines keep the patch under 128 KiB: Codex 0.89 runs apply_patch by re-executing itself
 * with the patch as one argument, and Linux refuses a longer one (E2BIG).
 */
function bigFileLines(): string[] {
  return Array.from({ length: BIG_LINES }, (_, i) => `  v${i % 1000} = f(${(i * 7919) % 10007});`);
}

function bigPatch(lines: readonly string[]): string {
  const out = ["*** Begin Patch", "*** Update File: big.ts"];
  const step = Math.floor(BIG_LINES / BIG_HUNKS);
  for (let h = 0; h < BIG_HUNKS; h++) {
    const at = h * step + 5;
    out.push("@@");
    for (let k = at - 3; k < at; k++) out.push(` ${lines[k]}`);
    out.push(`-${lines[at]}`, `+  w${h} = ${h};`);
    for (let k = at + 1; k <= at + 3; k++) out.push(` ${lines[k]}`);
  }
  out.push("*** End Patch");
  return out.join("\n");
}

const smallFile = (n: number): string =>
  Array.from({ length: 40 }, (_, i) => `line ${i} of file ${n}\n`).join("");

const oneTurn: Scenario = { setup: async () => undefined, script: [[message("ok")]], patches: 0 };

function bigScenario(): Scenario {
  const lines = bigFileLines();
  const text = `${lines.join("\n")}\n`;
  return {
    setup: (work) => writeFile(join(work, "big.ts"), text),
    script: [[customToolCall("apply_patch", bigPatch(lines), "call_big")], [message("done")]],
    patches: 1,
  };
}

function manyFilesScenario(): Scenario {
  const out = ["*** Begin Patch"];
  for (let n = 0; n < MANY_FILES / 2; n++) {
    out.push(`*** Update File: src/mod${n}.txt`, "@@", ` line 19 of file ${n}`, `-line 20 of file ${n}`);
    out.push(`+changed line 20 of file ${n}`, ` line 21 of file ${n}`);
    out.push(`*** Add File: gen/new${n}/file.txt`, `+generated ${n}`, "+second line");
  }
  out.push("*** End Patch");
  return {
    async setup(work) {
      await rm(join(work, "gen"), { recursive: true, force: true });
      await mkdir(join(work, "src"), { recursive: true });
      await Promise.all(
        Array.from({ length: MANY_FILES / 2 }, (_, n) =>
          writeFile(join(work, `src/mod${n}.txt`), smallFile(n)),
        ),
      );
    },
    script: [[customToolCall("apply_patch", out.join("\n"), "call_many")], [message("done")]],
    patches: 1,
  };
}

function smallPatchesScenario(): Scenario {
  const script: TurnPart[][] = Array.from({ length: SMALL_PATCHES }, (_, n) => [
    customToolCall(
      "apply_patch",
      `*** Begin Patch\n*** Update File: small/f${n}.txt\n@@\n line 9 of file ${n}\n-line 10 of file ${n}\n+patched ${n}\n line 11 of file ${n}\n*** End Patch`,
      `call_${n}`,
    ),
  ]);
  script.push([message("done")]);
  return {
    async setup(work) {
      await mkdir(join(work, "small"), { recursive: true });
      await Promise.all(
        Array.from({ length: SMALL_PATCHES }, (_, n) =>
          writeFile(join(work, `small/f${n}.txt`), smallFile(n)),
        ),
      );
    },
    script,
    patches: SMALL_PATCHES,
  };
}

// ---------------------------------------------------------------------------------------------
// Running

/** Successful patch outputs in the history of the last request. */
function appliedPatches(input: readonly ResponseItem[]): number {
  return input.filter(
    (item) =>
      (item.type === "custom_tool_call_output" || item.type === "function_call_output") &&
      typeof item.output === "string" &&
      item.output.includes("Success. Updated the following files:"),
  ).length;
}

async function measureOnce(
  agent: Agent,
  server: FakeModelServer,
  scenario: Scenario,
  work: string,
): Promise<Sample> {
  await scenario.setup(work);
  server.reset();
  const arrivals: number[] = [];
  // A script function runs when its request has arrived: the timestamp costs no server change.
  const entries: ScriptEntry[] = scenario.script.map((parts) => () => {
    arrivals.push(performance.now());
    return turn(...parts);
  });
  server.enqueue(...entries);
  const result = await measureCommand(agent.argv(EXEC_ARGS), { cwd: work, env: agent.env });
  const applied = appliedPatches(server.requests.at(-1)?.input ?? []);
  if (result.exit !== 0 || server.pending !== 0 || applied !== scenario.patches) {
    throw new Error(
      `${agent.name} run failed (exit ${result.exit}, ${server.pending} turns unused, ${applied}/${scenario.patches} patches applied):\n${result.stderr}`,
    );
  }
  return { wallMs: result.wallMs, rssMb: result.rssMb, arrivals };
}

/** Mean of arrivals[k+1] − arrivals[k] for k in [from, to). */
function meanInterval(arrivals: readonly number[], from: number, to: number): number {
  let sum = 0;
  for (let k = from; k < to; k++) sum += arrivals[k + 1]! - arrivals[k]!;
  return sum / (to - from);
}

interface Summary {
  wallMs: number;
  rssMb: number;
  /** Median of the first request-to-request interval (the patch's in-process round trip). */
  firstIntervalMs: number;
  firstTenMs: number;
  lastTenMs: number;
}

async function measure(
  agent: Agent,
  server: FakeModelServer,
  scenario: Scenario,
  work: string,
  runs = RUNS,
): Promise<Summary> {
  const samples = await repeat(runs, () => measureOnce(agent, server, scenario, work)); // the first run warms the page cache
  const of = (f: (s: Sample) => number) => median(samples.map(f));
  const n = scenario.patches;
  return {
    wallMs: of((s) => s.wallMs),
    rssMb: of((s) => s.rssMb),
    firstIntervalMs: n > 0 ? of((s) => meanInterval(s.arrivals, 0, 1)) : 0,
    firstTenMs: n >= 20 ? of((s) => meanInterval(s.arrivals, 0, 10)) : 0,
    lastTenMs: n >= 20 ? of((s) => meanInterval(s.arrivals, n - 10, n)) : 0,
  };
}

interface AgentResult {
  baseline: Summary;
  big: Summary;
  many: Summary;
  small: Summary;
  bigOverBaselineMs: number;
  manyOverBaselineMs: number;
  perSmallPatchMs: number;
}

async function benchAgent(agent: Agent, server: FakeModelServer, root: string): Promise<AgentResult> {
  const work = join(root, `work-${agent.name}`);
  await mkdir(work, { recursive: true });
  execFileSync("git", ["init", "-q", work]);
  const baseline = await measure(agent, server, oneTurn, work, BASELINE_RUNS);
  const big = await measure(agent, server, bigScenario(), work);
  const many = await measure(agent, server, manyFilesScenario(), work);
  const small = await measure(agent, server, smallPatchesScenario(), work);
  return {
    baseline,
    big,
    many,
    small,
    bigOverBaselineMs: big.wallMs - baseline.wallMs,
    manyOverBaselineMs: many.wallMs - baseline.wallMs,
    perSmallPatchMs: (small.wallMs - baseline.wallMs) / SMALL_PATCHES,
  };
}

const ms = (value: number) => `${value.toFixed(value < 20 ? 1 : 0)} ms`;
const mb = (value: number) => `${value.toFixed(0)} MB`;

function row(r: AgentResult): Record<string, string> {
  return {
    "one-turn baseline": `${ms(r.baseline.wallMs)}, ${mb(r.baseline.rssMb)}`,
    "20k lines, 500 hunks": `+${ms(r.bigOverBaselineMs)} (round trip ${ms(r.big.firstIntervalMs)}), ${mb(r.big.rssMb)}`,
    "200-file patch": `+${ms(r.manyOverBaselineMs)} (round trip ${ms(r.many.firstIntervalMs)}), ${mb(r.many.rssMb)}`,
    "50 small patches": `${ms(r.perSmallPatchMs)}/patch, ${mb(r.small.rssMb)}`,
    "small: first 10 / last 10": `${ms(r.small.firstTenMs)} / ${ms(r.small.lastTenMs)}`,
  };
}

async function main(): Promise<void> {
  const codexBin = findCodex();
  const results: Record<string, AgentResult> = {};
  await withTempDirAndServer("tscodex-bench-ap-", async (root, server) => {
    for (const agent of await makeAgents(root, fakeProviderToml(server.url))) {
      results[agent.name] = await benchAgent(agent, server, root);
      process.stderr.write(`measured apply_patch for ${agent.name}\n`);
    }
  });
  console.log(
    `apply_patch benchmarks (median of ${RUNS} runs, baseline ${BASELINE_RUNS}; "+" = over the one-turn baseline; round trip = request to request)`,
  );
  console.table(Object.fromEntries(Object.entries(results).map(([name, r]) => [name, row(r)])));
  const ts = results.tscodex;
  if (ts) {
    const flat = ts.small.lastTenMs <= ts.small.firstTenMs * 1.25 + 1;
    console.log(
      `targets: big patch ${ms(ts.bigOverBaselineMs)} (≤ 100 ms), small patch ${ms(ts.perSmallPatchMs)} (≤ 10 ms), ` +
        `flat: ${flat ? "yes" : "no"} (${ms(ts.small.firstTenMs)} → ${ms(ts.small.lastTenMs)})`,
    );
  }
  const cx = results["codex-0.89"];
  if (ts && cx) {
    const ratio = (a: number, b: number) => (a / b).toFixed(2);
    console.log(
      `time ratios tscodex / codex-0.89 (lower is better): big patch ${ratio(ts.big.firstIntervalMs, cx.big.firstIntervalMs)}, ` +
        `200 files ${ratio(ts.many.firstIntervalMs, cx.many.firstIntervalMs)}, small patch ${ratio(ts.perSmallPatchMs, cx.perSmallPatchMs)}`,
    );
  }
  if (!codexBin) {
    console.log(
      "codex 0.89 not found: set CODEX_BIN or `npm install --no-save @openai/codex@0.89.0` for side-by-side numbers",
    );
  }
  await writeResults("apply-patch", results);
}

await main();
